/* repeat_stats.h: statistics over the repeats of a step: median, mean, sample
 * standard deviation and the 95 % confidence interval of the mean. */
#ifndef BB_REPEAT_STATS_H
#define BB_REPEAT_STATS_H

#include <cjson/cJSON.h>

struct repeat_stats {
	int n;
	double median, mean, stddev;
	double ci95_lo, ci95_hi;	/* Student's t; both = mean if n < 2 */
	double min, max;
};

/* Computes the statistics of v[0..n-1] (v is sorted in place).  Returns
 * 0, or -EINVAL when n < 1. */
int repeat_stats_compute(double *v, int n, struct repeat_stats *out);

/* Two-sided 95 % Student's t quantile for df degrees of freedom (df >= 1;
 * the normal 1.96 beyond the table). */
double repeat_stats_t95(int df);

/* The minimum detectable change of s in % of its mean: what a two-sample
 * t-test between two runs of s->n repeats finds at alpha 0.05 with power
 * 0.8, (t_{.975,2(n-1)} + t_{.8,2(n-1)}) * sqrt(2) * stddev / |mean| *
 * 100 (docs/report.md); -1 with fewer than two repeats or a mean of 0. */
double repeat_stats_mdc_pct(const struct repeat_stats *s);

/* A new object {"n","median","mean","stddev","ci95":[lo,hi],"min","max"}
 * and "mdc_pct" when repeat_stats_mdc_pct() has one; caller owns. */
cJSON *repeat_stats_json(const struct repeat_stats *s);

#endif
