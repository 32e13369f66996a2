/* rstats.h: statistics over the repeats of a step: median, mean, sample
 * standard deviation and the 95 % confidence interval of the mean. */
#ifndef BB_RSTATS_H
#define BB_RSTATS_H

#include <cjson/cJSON.h>

struct rstats {
	int n;
	double median, mean, stddev;
	double ci95_lo, ci95_hi;	/* Student's t; both = mean if n < 2 */
	double min, max;
};

/* Computes the statistics of v[0..n-1] (v is sorted in place).  Returns
 * 0, or -EINVAL when n < 1. */
int rstats_compute(double *v, int n, struct rstats *out);

/* Two-sided 95 % Student's t quantile for df degrees of freedom (df >= 1;
 * the normal 1.96 beyond the table). */
double rstats_t95(int df);

/* A new object {"n","median","mean","stddev","ci95":[lo,hi],"min","max"};
 * caller owns. */
cJSON *rstats_json(const struct rstats *s);

#endif
