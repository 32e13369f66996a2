/* report/report_mdc.c: the minimum detectable change from a figure's
 * repeats: its spread (the CI the result keeps, turned back into a
 * standard deviation) and Student's t for a two-sample test. */
#include <math.h>
#include <stdio.h>

#include "lib/repeat_stats.h"
#include "lib/tdist.h"
#include "report/report_mdc.h"

double report_mdc_pct(const struct result_doc_stat *s)
{
	double sd, df;

	if (s->n < 2 || s->mean == 0 || !(s->hi >= s->lo))
		return -1;
	/* The CI is mean +- t95(n - 1) * sd / sqrt(n) (repeat_stats). */
	sd = (s->hi - s->lo) / 2 * sqrt(s->n) / repeat_stats_t95(s->n - 1);
	df = 2.0 * (s->n - 1);
	return (tdist_q2(0.05, df) + tdist_q2(0.4, df)) * sqrt(2) * sd /
		fabs(s->mean) * 100;
}

void report_mdc_fmt(char *buf, size_t len, const struct result_doc_stat *s)
{
	double m = report_mdc_pct(s);

	if (m < 0)
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.1f %%", m);
}
