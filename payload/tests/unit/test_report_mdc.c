/* test_report_mdc.c: the minimum detectable change from a figure's
 * repeats: the factors for 2, 3, 5 and 10 repeats against Student's t
 * quantiles from tables, the spread taken back from the kept CI, and
 * the cases it cannot be computed. */
#include <math.h>
#include <string.h>

#include "lib/repeat_stats.h"
#include "report/report_mdc.h"
#include "tap.h"

/* A figure of n repeats, mean m and standard deviation sd, with the CI
 * repeat_stats would have kept. */
static struct result_doc_stat stat_of(int n, double m, double sd)
{
	double h = n > 1 ? repeat_stats_t95(n - 1) * sd / sqrt(n) : 0;

	return (struct result_doc_stat){ n, m, m, m - h, m + h };
}

int main(void)
{
	/* (t_{.975,df} + t_{.8,df}) * sqrt(2), df = 2(n - 1), from
	 * printed t tables. */
	static const struct {
		int n;
		double factor;
	} f[] = {
		{ 2, (4.3027 + 1.0607) * M_SQRT2 },
		{ 3, (2.7764 + 0.9410) * M_SQRT2 },
		{ 5, (2.3060 + 0.8889) * M_SQRT2 },
		{ 10, (2.1009 + 0.8620) * M_SQRT2 },
	};
	struct result_doc_stat s;
	char buf[32];
	size_t i;

	for (i = 0; i < sizeof(f) / sizeof(f[0]); i++) {
		double got;

		s = stat_of(f[i].n, 50000, 1000);	/* CV 2 % */
		got = report_mdc_pct(&s);
		if (!tap_ok(fabs(got - f[i].factor * 2) < 0.002 * f[i].factor,
			    "%d repeats at CV 2 %%: MDC %.2f %%", f[i].n,
			    f[i].factor * 2))
			printf("#   got %.4f\n", got);
	}
	s = stat_of(3, -200, 4);
	tap_ok(fabs(report_mdc_pct(&s) - f[1].factor * 2) < 0.01,
	       "a negative mean: the same share of its size");
	s = stat_of(1, 50000, 0);
	tap_ok(report_mdc_pct(&s) == -1, "one repeat: cannot be computed");
	report_mdc_fmt(buf, sizeof(buf), &s);
	TAP_EQ_STR(buf, "-", "  shown as -");
	s = stat_of(3, 0, 1);
	tap_ok(report_mdc_pct(&s) == -1, "a mean of 0: cannot be computed");
	s = stat_of(3, 100, 0);
	tap_ok(report_mdc_pct(&s) == 0, "no spread: 0");
	s = stat_of(3, 50000, 1000);
	report_mdc_fmt(buf, sizeof(buf), &s);
	TAP_EQ_STR(buf, "10.5 %", "3 repeats at CV 2 %: shown as 10.5 %");
	return tap_done();
}
