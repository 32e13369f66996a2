/* report/report_html.h: `benchboot report --html`: one self-contained
 * page of results, and the pieces the collector's pages reuse (the
 * escaping, the page head, the trend chart). */
#ifndef BB_REPORT_HTML_H
#define BB_REPORT_HTML_H

#include <stddef.h>
#include <stdio.h>

#include "result/result_doc.h"

/* One self-contained HTML page (inline SVG and CSS, no script, nothing
 * fetched).  Returns 0 or -errno. */
int report_html(FILE *out, struct result_doc *rs, int n);

/* Writes s to f with HTML's markup characters as entities and control
 * characters as U+FFFD: for text and attribute values alike. */
void report_html_esc(FILE *f, const char *s);

/* The report's page head (its CSS, a Content-Security-Policy that runs
 * and fetches nothing; forms: whether GET forms may submit to the page's
 * own origin) up to and including <body>. */
void report_html_head(FILE *f, const char *title, int forms);

/* One figure across runs (report_html_trend). */
struct report_trend {
	int n;
	struct {
		const char *id, *label;	/* the run; its short x label */
		double y, lo, hi;	/* mean; its 95 % CI (lo == hi: none) */
		/* A change point at this run: what changed (its
		 * title, lines apart), or NULL. */
		const char *mark;
	} *pt;
};

/* Every how many of n points a centred x label of len characters is
 * drawn when points are step pixels apart, so that no two labels overlap
 * (at least 1). */
int report_html_label_every(int n, size_t len, double step);

/* A line chart of t's points in order, one per run, with CI bars, as
 * inline SVG in a <figure class="chart trend">. */
void report_html_trend(FILE *f, const char *title, const char *ylabel,
		       const struct report_trend *t);

#endif
