/* repeat_stats.c: repeat statistics; a step's figure is the median of its
 * repeats with the spread beside it, never a lone mean. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "lib/repeat_stats.h"
#include "lib/tdist.h"

double repeat_stats_t95(int df)
{
	static const double t[] = {
		0, 12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306,
		2.262, 2.228, 2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110,
		2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056,
		2.052, 2.048, 2.045, 2.042,
	};

	if (df < 1)
		return NAN;
	if (df < (int)(sizeof(t) / sizeof(t[0])))
		return t[df];
	if (df <= 40)
		return 2.021;
	if (df <= 60)
		return 2.000;
	if (df <= 120)
		return 1.980;
	return 1.960;
}

static int repeat_stats_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int repeat_stats_compute(double *v, int n, struct repeat_stats *out)
{
	double sum = 0, ss = 0, half;
	int i;

	if (n < 1)
		return -EINVAL;
	qsort(v, (size_t)n, sizeof(*v), repeat_stats_cmp);
	for (i = 0; i < n; i++)
		sum += v[i];
	out->n = n;
	out->mean = sum / n;
	for (i = 0; i < n; i++)
		ss += (v[i] - out->mean) * (v[i] - out->mean);
	out->stddev = n > 1 ? sqrt(ss / (n - 1)) : 0;
	out->median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
	out->min = v[0];
	out->max = v[n - 1];
	half = n > 1 ? repeat_stats_t95(n - 1) * out->stddev / sqrt(n) : 0;
	out->ci95_lo = out->mean - half;
	out->ci95_hi = out->mean + half;
	return 0;
}

cJSON *repeat_stats_json(const struct repeat_stats *s)
{
	cJSON *o = cJSON_CreateObject(), *ci;

	if (!o)
		return NULL;
	cJSON_AddNumberToObject(o, "n", s->n);
	cJSON_AddNumberToObject(o, "median", s->median);
	cJSON_AddNumberToObject(o, "mean", s->mean);
	cJSON_AddNumberToObject(o, "stddev", s->stddev);
	ci = cJSON_AddArrayToObject(o, "ci95");
	cJSON_AddItemToArray(ci, cJSON_CreateNumber(s->ci95_lo));
	cJSON_AddItemToArray(ci, cJSON_CreateNumber(s->ci95_hi));
	cJSON_AddNumberToObject(o, "min", s->min);
	cJSON_AddNumberToObject(o, "max", s->max);
	if (repeat_stats_mdc_pct(s) >= 0)
		cJSON_AddNumberToObject(o, "mdc_pct", repeat_stats_mdc_pct(s));
	return o;
}

double repeat_stats_mdc_pct(const struct repeat_stats *s)
{
	double df = 2.0 * (s->n - 1);

	if (s->n < 2 || s->mean == 0)
		return -1;
	return (tdist_q2(0.05, df) + tdist_q2(0.4, df)) * sqrt(2) *
		s->stddev / fabs(s->mean) * 100;
}
