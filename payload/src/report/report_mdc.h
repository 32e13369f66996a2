/* report/report_mdc.h: the minimum detectable change of a step's figure:
 * the smallest move of its mean that two runs with this many repeats and
 * this spread would show, so nobody reads meaning into a 1 % move on a
 * step whose noise is 6 % (docs/report.md). */
#ifndef BB_REPORT_MDC_H
#define BB_REPORT_MDC_H

#include <stddef.h>

#include "result/result_doc.h"

/* The MDC of s in % of its mean, for a two-sample t-test between two
 * runs of s->n repeats each at alpha 0.05 (two-sided) and power 0.8:
 * (t_{0.975, 2(n-1)} + t_{0.8, 2(n-1)}) * sqrt(2) * sd / mean * 100,
 * sd taken back from the 95 % CI of the mean the result keeps.  -1 when
 * it cannot be computed: fewer than two repeats, a mean of 0. */
double report_mdc_pct(const struct result_doc_stat *s);

/* The MDC as a table shows it: "12.3 %", or "-" when it cannot be
 * computed. */
void report_mdc_fmt(char *buf, size_t len, const struct result_doc_stat *s);

#endif
