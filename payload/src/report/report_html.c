/* report/report_html.c: `benchboot report --html`: one self-contained page, the
 * charts drawn as inline SVG here (no script, no font, nothing fetched). */
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/report_html.h"
#include "report/report_mdc.h"
#include "report/report_system.h"
#include "result/result_doc.h"

#define HTML_MAXPTS 64
#define HTML_MAXSER 16

static const char *const html_colors[] = {
	"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b",
	"#e377c2", "#17becf",
};
#define HTML_COLOR(i) html_colors[(i) % 8]

/* Every string that comes from a result goes through here, in text and
 * in attributes alike (a result is whatever anyone uploaded): the five
 * markup characters become entities, and control characters (never
 * meaningful in a name, and a way to confuse a reader) become U+FFFD. */
static void html_esc(FILE *f, const char *s)
{
	for (; s && *s; s++) {
		switch (*s) {
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '&': fputs("&amp;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&#39;", f); break;
		default:
			if ((unsigned char)*s < 0x20 || *s == 0x7f)
				fputs("&#xfffd;", f);
			else
				fputc(*s, f);
		}
	}
}

/* A figure as text: four significant digits, k/M suffixes for axes. */
static void html_num(char *b, size_t n, double v)
{
	double a = fabs(v);

	if (a >= 1e9)
		snprintf(b, n, "%.3gG", v / 1e9);
	else if (a >= 1e6)
		snprintf(b, n, "%.3gM", v / 1e6);
	else if (a >= 1e4)
		snprintf(b, n, "%.3gk", v / 1e3);
	else
		snprintf(b, n, "%.4g", v);
}

static char html_letter(int i)
{
	return (char)('A' + i % 26);
}

/* A legend label: the result's letter and its file's base name, short
 * enough for the legend box (the table on top maps letters to ids). */
static void html_label(char *b, size_t n, const struct result_doc *r, int i)
{
	const char *base = strrchr(r->file, '/');

	base = base ? base + 1 : r->file;
	snprintf(b, n, "%c %.16s", html_letter(i), base);
}

/* A table figure: median and half the CI, no exponent. */
static void html_stat(FILE *f, const struct result_doc_stat *x, double d)
{
	char m[32], h[32];

	html_num(m, sizeof(m), x->median / d);
	if (x->n < 2) {
		fprintf(f, "<td>%s (1)</td>", m);
		return;
	}
	html_num(h, sizeof(h), (x->hi - x->lo) / 2 / d);
	fprintf(f, "<td>%s ± %s (%d)</td>", m, h, x->n);
}

/* --- charts ---------------------------------------------------------- */

/* A plot area mapped onto data ranges; log axes are base 2 (x, the
 * concurrency sweep) or 10 (y, the sql ops' seconds spanning decades). */
struct chart {
	FILE *f;
	double w, h;			/* the SVG's size */
	double l, t, r, b;		/* the plot area, pixels */
	double x0, x1, y0, y1;		/* data ranges */
	int xlog, ylog;
};

/* The most grid lines or ticks an axis draws: every loop that draws one
 * counts to it, so no range a document gives can keep it going. */
#define CHART_MAX_TICKS 64
/* The farthest a value may lie outside the plot area, in plot widths:
 * a coordinate is clamped there, so none is NaN, infinite or huge. */
#define CHART_SPILL 0.5
/* The narrowest and widest data a log axis spans. */
#define CHART_LOG_MIN 1e-300
#define CHART_LOG_MAX 1e300

/* A position on an axis, 0..1 inside the plot area, clamped to
 * -CHART_SPILL..1 + CHART_SPILL (NaN: 0). */
static double chart_unit(double u)
{
	if (!(u == u))
		return 0;
	return fmin(fmax(u, -CHART_SPILL), 1 + CHART_SPILL);
}

static double chart_x(const struct chart *c, double x)
{
	double u = c->xlog ? (log2(x) - log2(c->x0)) /
				     (log2(c->x1) - log2(c->x0)) :
			     (x - c->x0) / (c->x1 - c->x0);

	return c->l + chart_unit(u) * (c->r - c->l);
}

static double chart_y(const struct chart *c, double y)
{
	double u;

	if (c->ylog) {
		if (y < c->y0)
			y = c->y0;
		u = (log10(y) - log10(c->y0)) / (log10(c->y1) - log10(c->y0));
	} else {
		u = (y - c->y0) / (c->y1 - c->y0);
	}
	return c->b - chart_unit(u) * (c->b - c->t);
}

/* One axis's range made drawable, whatever the document held: finite,
 * lo < hi with a finite span, on a log axis within CHART_LOG_MIN ..
 * CHART_LOG_MAX. */
static void chart_range(double *lo, double *hi, int log)
{
	if (log) {
		if (!(*lo >= CHART_LOG_MIN))
			*lo = CHART_LOG_MIN;
		if (!(*hi <= CHART_LOG_MAX))
			*hi = CHART_LOG_MAX;
		if (!(*lo < *hi) || !(*lo <= CHART_LOG_MAX / 10)) {
			*lo = fmin(*lo, CHART_LOG_MAX / 10);
			*hi = *lo * 10;
		}
		return;
	}
	if (!isfinite(*lo))
		*lo = 0;
	if (!isfinite(*hi) || !isfinite(*hi - *lo))
		*hi = *lo >= 0 ? DBL_MAX / 4 : *lo + DBL_MAX / 4;
	if (!(*lo < *hi))
		*hi = *lo + fmax(fabs(*lo), 1);
}

/* A "nice" step (1, 2 or 5 times a power of ten) for about n ticks: a
 * finite step > 0 for any finite range > 0 (one too small for a power
 * of ten: the range itself). */
static double chart_step(double range, int n)
{
	double raw = range / n, p = pow(10, floor(log10(raw)));

	if (!(p > 0 && isfinite(p)))
		return range > 0 && isfinite(range) ? range : 1;
	if (raw / p >= 5)
		return 5 * p;
	if (raw / p >= 2)
		return 2 * p;
	return p;
}

/* Opens the figure: title, frame, y grid with labels, axis titles.  The
 * x ticks are the caller's (chart_xtick). */
static void chart_begin(struct chart *c, FILE *f, const char *cls,
			const char *title, const char *xlabel,
			const char *ylabel)
{
	char b[32];
	double v, st;
	int i;

	chart_range(&c->x0, &c->x1, c->xlog);
	chart_range(&c->y0, &c->y1, c->ylog);
	c->f = f;
	fprintf(f, "<figure class=\"chart %s\"><svg viewBox=\"0 0 %.0f %.0f\" "
		"width=\"%.0f\" height=\"%.0f\" role=\"img\"><title>",
		cls, c->w, c->h, c->w, c->h);
	html_esc(f, title);
	fprintf(f, "</title><text class=\"ttl\" x=\"%.1f\" y=\"16\">",
		c->l);
	html_esc(f, title);
	fprintf(f, "</text><rect class=\"frame\" x=\"%.1f\" y=\"%.1f\" "
		"width=\"%.1f\" height=\"%.1f\"/>", c->l, c->t, c->r - c->l,
		c->b - c->t);
	if (c->ylog) {
		for (i = 0, v = pow(10, ceil(log10(c->y0)));
		     i < CHART_MAX_TICKS && v <= c->y1 * 1.0001; i++, v *= 10) {
			html_num(b, sizeof(b), v);
			fprintf(f, "<path class=\"grid\" d=\"M%.1f %.1fH"
				"%.1f\"/><text class=\"yt\" x=\"%.1f\" "
				"y=\"%.1f\">%s</text>", c->l, chart_y(c, v),
				c->r, c->l - 4, chart_y(c, v) + 4, b);
		}
	} else {
		st = chart_step(c->y1 - c->y0, 5);
		for (i = 0, v = ceil(c->y0 / st) * st;
		     i < CHART_MAX_TICKS && v <= c->y1 + st * 1e-6;
		     i++, v += st) {
			html_num(b, sizeof(b), fabs(v) < st * 1e-6 ? 0 : v);
			fprintf(f, "<path class=\"grid\" d=\"M%.1f %.1fH"
				"%.1f\"/><text class=\"yt\" x=\"%.1f\" "
				"y=\"%.1f\">%s</text>", c->l, chart_y(c, v),
				c->r, c->l - 4, chart_y(c, v) + 4, b);
		}
	}
	fprintf(f, "<text class=\"xl\" x=\"%.1f\" y=\"%.1f\">",
		(c->l + c->r) / 2, c->h - 4);
	html_esc(f, xlabel);
	fprintf(f, "</text><text class=\"yl\" transform=\"translate(12 %.1f) "
		"rotate(-90)\">", (c->t + c->b) / 2);
	html_esc(f, ylabel);
	fputs("</text>", f);
}

static void chart_xtick(struct chart *c, double px, const char *label)
{
	fprintf(c->f, "<path class=\"tick\" d=\"M%.1f %.1fv4\"/><text "
		"class=\"xt\" x=\"%.1f\" y=\"%.1f\">", px, c->b, px, c->b + 15);
	html_esc(c->f, label);
	fputs("</text>", c->f);
}

/* Legend: one swatch per series, top right inside the frame. */
static void chart_legend(struct chart *c, const char *const *labels, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		double y = c->t + 12 + i * 14;

		fprintf(c->f, "<path class=\"key\" stroke=\"%s\" d=\"M%.1f "
			"%.1fh14\"/><text class=\"lg\" x=\"%.1f\" y=\"%.1f\">",
			HTML_COLOR(i), c->r - 120, y - 4, c->r - 102, y);
		html_esc(c->f, labels[i]);
		fputs("</text>", c->f);
	}
}

static void chart_end(struct chart *c, const char *caption)
{
	fputs("</svg>", c->f);
	if (caption) {
		fputs("<figcaption>", c->f);
		html_esc(c->f, caption);
		fputs("</figcaption>", c->f);
	}
	fputs("</figure>\n", c->f);
}

/* One line of a figure against concurrency, with its CI as error bars. */
struct html_line {
	const char *label;
	int n;
	double x[HTML_MAXPTS], y[HTML_MAXPTS], lo[HTML_MAXPTS],
		hi[HTML_MAXPTS];
};

static void html_line_chart(FILE *f, const char *cls, const char *title,
			    const char *ylabel, struct html_line *ln, int nl)
{
	struct chart c = { .w = 460, .h = 280, .l = 62, .t = 26, .r = 446,
			   .b = 246, .xlog = 1 };
	const char *labels[HTML_MAXSER];
	double xs[HTML_MAXPTS * 2];
	int nx = 0, i, j, k;
	char b[32];

	c.x0 = INFINITY;
	c.x1 = 0;
	c.y0 = 0;
	c.y1 = 0;
	for (i = 0; i < nl; i++)
		for (j = 0; j < ln[i].n; j++) {
			c.x0 = fmin(c.x0, ln[i].x[j]);
			c.x1 = fmax(c.x1, ln[i].x[j]);
			c.y1 = fmax(c.y1, fmax(ln[i].y[j], ln[i].hi[j]));
			for (k = 0; k < nx; k++)
				if (xs[k] == ln[i].x[j])
					break;
			if (k == nx && nx < HTML_MAXPTS * 2)
				xs[nx++] = ln[i].x[j];
		}
	if (!(c.x0 < INFINITY))
		return;
	/* Room around the points, also for a single concurrency value. */
	c.x0 /= 1.4;
	c.x1 *= 1.4;
	c.y1 = c.y1 > 0 ? c.y1 * 1.12 : 1;
	chart_begin(&c, f, cls, title, "concurrency (connections, log scale)",
		    ylabel);
	for (k = 0; k < nx; k++) {
		snprintf(b, sizeof(b), "%g", xs[k]);
		chart_xtick(&c, chart_x(&c, xs[k]), b);
	}
	for (i = 0; i < nl; i++) {
		/* Error bars: the 95 % CI of the mean, clipped to the axis. */
		fprintf(f, "<path class=\"ci\" stroke=\"%s\" d=\"",
			HTML_COLOR(i));
		for (j = 0; j < ln[i].n; j++) {
			double x = chart_x(&c, ln[i].x[j]);

			fprintf(f, "M%.1f %.1fV%.1fM%.1f %.1fh8M%.1f %.1fh8",
				x, chart_y(&c, fmax(ln[i].lo[j], 0)),
				chart_y(&c, ln[i].hi[j]), x - 4,
				chart_y(&c, fmax(ln[i].lo[j], 0)), x - 4,
				chart_y(&c, ln[i].hi[j]));
		}
		fprintf(f, "\"/><path class=\"line\" stroke=\"%s\" d=\"",
			HTML_COLOR(i));
		for (j = 0; j < ln[i].n; j++)
			fprintf(f, "%c%.1f %.1f", j ? 'L' : 'M',
				chart_x(&c, ln[i].x[j]),
				chart_y(&c, ln[i].y[j]));
		fputs("\"/>", f);
		for (j = 0; j < ln[i].n; j++)
			fprintf(f, "<circle class=\"pt\" fill=\"%s\" "
				"cx=\"%.1f\" cy=\"%.1f\" r=\"3\"/>",
				HTML_COLOR(i), chart_x(&c, ln[i].x[j]),
				chart_y(&c, ln[i].y[j]));
		labels[i] = ln[i].label;
	}
	chart_legend(&c, labels, nl);
	chart_end(&c,
		  "median of the complete repeats; bars: 95 % CI of the mean");
}

/* Grouped bars: v[g * ns + s] for group g and series s (NAN: none). */
static void html_bar_chart(FILE *f, const char *cls, const char *title,
			   const char *ylabel, const char *const *groups,
			   int ng, const char *const *labels, int ns,
			   const double *v, int ylog)
{
	struct chart c = { .h = 330, .l = 90, .t = 26, .b = 240,
			   .ylog = ylog };
	double gw, bw, mn = INFINITY;
	int g, s;
	char b[32];

	c.w = fmax(460, 110 + ng * (ns * 14 + 18));
	c.r = c.w - 14;
	c.x0 = 0;
	c.x1 = ng;
	c.y0 = 0;
	c.y1 = 0;
	for (g = 0; g < ng * ns; g++)
		if (!isnan(v[g])) {
			c.y1 = fmax(c.y1, v[g]);
			if (v[g] > 0)
				mn = fmin(mn, v[g]);
		}
	if (ylog) {
		if (!(mn < INFINITY))
			mn = 1;
		c.y0 = pow(10, floor(log10(mn)));
		c.y1 = pow(10, ceil(log10(fmax(c.y1, mn) * 1.01)));
	} else {
		c.y1 = c.y1 > 0 ? c.y1 * 1.12 : 1;
	}
	chart_begin(&c, f, cls, title, "", ylabel);
	gw = (c.r - c.l) / ng;
	bw = fmin(24, (gw - 10) / ns);
	for (g = 0; g < ng; g++) {
		double x0 = c.l + g * gw + (gw - bw * ns) / 2;

		fprintf(f, "<text class=\"xt rot\" transform=\"translate(%.1f "
			"%.1f) rotate(-35)\">", c.l + (g + 0.5) * gw, c.b + 12);
		html_esc(f, groups[g]);
		fputs("</text>", f);
		for (s = 0; s < ns; s++) {
			double y, val = v[g * ns + s];

			if (isnan(val))
				continue;
			y = chart_y(&c, val);
			fprintf(f, "<path class=\"bar\" fill=\"%s\" d=\"M%.1f "
				"%.1fV%.1fH%.1fV%.1fZ\"><title>", HTML_COLOR(s),
				x0 + s * bw, c.b, y, x0 + (s + 1) * bw - 1,
				c.b);
			html_num(b, sizeof(b), val);
			html_esc(f, labels[s]);
			fputs(" ", f);
			html_esc(f, groups[g]);
			fprintf(f, ": %s</title></path>", b);
		}
	}
	chart_legend(&c, labels, ns);
	chart_end(&c, NULL);
}

/* --- sections -------------------------------------------------------- */

/* One line per result of (step, workload): the throughput or p99. */
static void html_fill_lines(struct result_doc *rs, int n,
			    const struct result_doc_key *k, int p99,
			    struct html_line *ln, char (*lab)[160])
{
	int i, s;

	for (i = 0; i < n && i < HTML_MAXSER; i++) {
		memset(&ln[i], 0, sizeof(ln[i]));
		html_label(lab[i], 160, &rs[i], i);
		ln[i].label = lab[i];
		for (s = 0; s < rs[i].nsteps; s++) {
			const struct result_doc_step *st = &rs[i].steps[s];
			const struct result_doc_wl *w;
			const struct result_doc_stat *f;
			double div = p99 ? 1e6 : 1;
			int j;

			if (strcmp(st->step, k->step) != 0 ||
			    !(w = result_doc_find_wl(st, k->wl)))
				continue;
			f = p99 ? &w->p99 : &w->thr;
			if (!f->n || ln[i].n == HTML_MAXPTS)
				continue;
			/* Kept sorted by concurrency. */
			for (j = ln[i].n; j > 0 &&
			     ln[i].x[j - 1] > (st->conc ? st->conc : 1); j--) {
				ln[i].x[j] = ln[i].x[j - 1];
				ln[i].y[j] = ln[i].y[j - 1];
				ln[i].lo[j] = ln[i].lo[j - 1];
				ln[i].hi[j] = ln[i].hi[j - 1];
			}
			ln[i].x[j] = st->conc ? st->conc : 1;
			ln[i].y[j] = f->median / div;
			ln[i].lo[j] = f->lo / div;
			ln[i].hi[j] = f->hi / div;
			ln[i].n++;
		}
	}
}

/* A result's error rate and flag cells: the flag (INVALID: a repeat
 * over the error threshold, not averaged, with its reason as the
 * cell's title; errors: some errors) is styled to stand out. */
static void html_err_cells(FILE *f, const struct result_doc_step *st,
			   const struct result_doc_wl *w)
{
	double e = w ? result_doc_wl_error_rate(w) : -1;
	const char *flag = st && !st->skipped ? result_doc_step_flag(st) : "";

	if (e < 0)
		fputs("<td>-</td>", f);
	else
		fprintf(f, e > 0 && e < 0.0001 ? "<td>%.4f</td>" :
			"<td>%.2f</td>", e * 100);
	if (!flag[0]) {
		fputs("<td></td>", f);
		return;
	}
	fprintf(f, "<td class=\"flag\" title=\"");
	if (st->invalid) {
		fprintf(f, "%d of %d repeat(s) not averaged: ", st->invalid,
			st->repeats);
		html_esc(f, st->invalid_reason ? st->invalid_reason : "?");
	} else {
		fputs("errors in the complete repeats", f);
	}
	fprintf(f, "\">%s</td>", flag);
}

/* The minimum detectable change of w's rate (report_mdc.h), a cell. */
static void html_mdc_cell(FILE *f, const struct result_doc_wl *w)
{
	char mdc[16] = "-";

	if (w)
		report_mdc_fmt(mdc, sizeof(mdc), &w->thr);
	fprintf(f, "<td>%s</td>", mdc);
}

/* The figures as a table under the charts: value per result, ratio to A
 * and significance. */
static void html_fig_table(FILE *f, struct result_doc *rs, int n,
			   const struct result_doc_key *k)
{
	int conc[64], nc, c, i, p;

	fputs("<table class=\"fig\"><tr><th>conc</th>", f);
	for (i = 0; i < n; i++) {
		fprintf(f, "<th>%c ", html_letter(i));
		html_esc(f, k->metric);
		fprintf(f, "/s</th><th>%c p99 ms</th><th>%c sd ms</th>"
			"<th title=\"minimum detectable change of the rate "
			"(docs/report.md)\">%c MDC</th>"
			"<th>%c err %%</th><th>%c flag</th>", html_letter(i),
			html_letter(i), html_letter(i), html_letter(i),
			html_letter(i));
		if (i > 0)
			fprintf(f, "<th>%c/A rate</th><th>sig</th><th>%c/A "
				"p99</th><th>sig</th>", html_letter(i),
				html_letter(i));
	}
	fputs("</tr>\n", f);
	nc = result_doc_concs(rs, n, k->step, conc, 64);
	for (c = 0; c < nc; c++) {
		const struct result_doc_step *b =
			result_doc_at(&rs[0], k->step, conc[c]);
		const struct result_doc_wl *bw = b ?
			result_doc_find_wl(b, k->wl) : NULL;

		if (conc[c])
			fprintf(f, "<tr><td>%d</td>", conc[c]);
		else
			fputs("<tr><td>-</td>", f);
		for (i = 0; i < n; i++) {
			const struct result_doc_step *st =
				result_doc_at(&rs[i], k->step, conc[c]);
			const struct result_doc_wl *w = st ?
				result_doc_find_wl(st, k->wl) : NULL;

			for (p = 0; p < 2; p++) {
				const struct result_doc_stat *x = !w ? NULL :
					p ? &w->p99 : &w->thr;
				double d = p ? 1e6 : 1;

				if (x && x->n)
					html_stat(f, x, d);
				else
					fputs("<td>-</td>", f);
			}
			if (w && w->sd_ns >= 0) {
				char sd[32];

				html_num(sd, sizeof(sd), w->sd_ns / 1e6);
				fprintf(f, "<td>%s</td>", sd);
			} else {
				fputs("<td>-</td>", f);
			}
			html_mdc_cell(f, w);
			html_err_cells(f, st, w);
			if (i == 0)
				continue;
			for (p = 0; p < 2; p++) {
				const struct result_doc_stat *x = !w ? NULL :
					p ? &w->p99 : &w->thr;
				const struct result_doc_stat *y = !bw ? NULL :
					p ? &bw->p99 : &bw->thr;
				int sig;

				if (!x || !y || !x->n || !y->n ||
				    y->median == 0) {
					fputs("<td>-</td><td>-</td>", f);
					continue;
				}
				sig = result_doc_significant(y, x);
				fprintf(f, "<td>%.3f</td><td class=\"s%d\">%s"
					"</td>", x->median / y->median,
					sig + 1, sig < 0 ? "n&lt;2" :
					sig ? "yes" : "no");
			}
		}
		fputs("</tr>\n", f);
	}
	fputs("</table>\n", f);
}

static void html_workloads(FILE *f, struct result_doc *rs, int n)
{
	static struct html_line ln[HTML_MAXSER];
	static char lab[HTML_MAXSER][160];
	struct result_doc_key k[128];
	char t[200], y[80];
	int nk, j, ns = n < HTML_MAXSER ? n : HTML_MAXSER;

	nk = result_doc_keys(rs, n, k, 128);
	fputs("<h2>Throughput and p99 latency against concurrency</h2>\n", f);
	for (j = 0; j < nk; j++) {
		fprintf(f, "<section class=\"wl\"><h3>");
		html_esc(f, k[j].step);
		fputs(" (", f);
		html_esc(f, k[j].wl);
		fputs(")</h3><div class=\"row\">", f);
		html_fill_lines(rs, n, &k[j], 0, ln, lab);
		snprintf(t, sizeof(t), "%s: %s/s", k[j].step, k[j].metric);
		snprintf(y, sizeof(y), "%s per second", k[j].metric);
		html_line_chart(f, "thr", t, y, ln, ns);
		html_fill_lines(rs, n, &k[j], 1, ln, lab);
		snprintf(t, sizeof(t), "%s: p99 latency", k[j].step);
		html_line_chart(f, "p99", t, "p99 latency, ms", ln, ns);
		fputs("</div>", f);
		html_fig_table(f, rs, n, &k[j]);
		fputs("</section>\n", f);
	}
	for (j = 0; j < n; j++) {
		int s;

		for (s = 0; s < rs[j].nsteps; s++) {
			if (!rs[j].steps[s].skipped)
				continue;
			fprintf(f, "<p class=\"skip\">%c: ", html_letter(j));
			html_esc(f, rs[j].steps[s].name);
			fputs(" skipped: ", f);
			html_esc(f, rs[j].steps[s].skipped);
			fputs("</p>\n", f);
		}
	}
}

/* Under the ops chart: the medians v[g * n + i] as a table, then the
 * Totals row (each result's total_s, as the study summed its table). */
static void html_ops_table(FILE *f, struct result_doc *rs, int n,
			   const char *const *groups, int ng, const double *v)
{
	const struct result_doc_stat *t;
	int g, i, s;

	fputs("<table class=\"fig\"><tr><th>operation</th>", f);
	for (i = 0; i < n; i++)
		fprintf(f, "<th>%c seconds</th>", html_letter(i));
	fputs("</tr>\n", f);
	for (g = 0; g < ng; g++) {
		fputs("<tr><td>", f);
		html_esc(f, groups[g]);
		fputs("</td>", f);
		for (i = 0; i < n; i++) {
			char b[32];

			html_num(b, sizeof(b), v[g * n + i]);
			fprintf(f, "<td>%s</td>", isnan(v[g * n + i]) ? "-" : b);
		}
		fputs("</tr>\n", f);
	}
	fputs("<tr class=\"total\"><td>Totals</td>", f);
	for (i = 0; i < n; i++) {
		t = NULL;
		for (s = 0; s < rs[i].nsteps && !t; s++)
			if (rs[i].steps[s].nops)
				t = &rs[i].steps[s].ops_total;
		if (t && t->n)
			html_stat(f, t, 1);
		else
			fputs("<td>-</td>", f);
	}
	fputs("</tr>\n</table>\n", f);
}

static void html_ops(FILE *f, struct result_doc *rs, int n)
{
	const char *groups[RESULT_DOC_MAX_OPS * 2], *labels[HTML_MAXSER] = { 0 };
	static char lab[HTML_MAXSER][160];
	double *v;
	int ng, i, s, o, g, ns = n < HTML_MAXSER ? n : HTML_MAXSER;

	ng = result_doc_op_names(rs, ns, groups, RESULT_DOC_MAX_OPS * 2);
	if (!ng)
		return;
	v = malloc(sizeof(*v) * ng * ns);
	if (!v)
		return;
	for (g = 0; g < ng * ns; g++)
		v[g] = NAN;
	for (i = 0; i < ns; i++) {
		html_label(lab[i], 160, &rs[i], i);
		labels[i] = lab[i];
		for (s = 0; s < rs[i].nsteps; s++)
			for (o = 0; o < rs[i].steps[s].nops; o++)
				for (g = 0; g < ng; g++)
					if (strcmp(groups[g],
						   rs[i].steps[s].op_name[o])
					    == 0 && rs[i].steps[s].op_s[o].n)
						v[g * ns + i] = rs[i].steps[s]
							.op_s[o].median;
	}
	fputs("<h2>SQL operations (Byte.com table)</h2>\n", f);
	html_bar_chart(f, "ops", "sql ops: seconds per operation (log scale)",
		       "seconds", groups, ng, labels, ns, v, 1);
	html_ops_table(f, rs, ns, groups, ng, v);
	free(v);
}

/* One sampler reading on the controller's clock. */
struct html_pt {
	double t;
	double v[RESULT_DOC_SM_N];
};

static int html_pt_cmp(const void *a, const void *b)
{
	double x = ((const struct html_pt *)a)->t;
	double y = ((const struct html_pt *)b)->t;

	return x < y ? -1 : x > y;
}

/* One sampler reading into pt[n] (result_doc_parse checked every field). */
static void html_pt_fill(struct html_pt *p, const cJSON *rec, double off)
{
	const cJSON *t = cJSON_GetObjectItem(rec, "t");
	int k;

	p->t = cJSON_GetObjectItem(t, "realtime_ns")->valuedouble - off;
	for (k = 0; k < RESULT_DOC_SM_N; k++)
		p->v[k] = cJSON_GetObjectItem(rec, result_doc_sm_fields[k])
			->valuedouble;
}

/* Every sampler reading of r that ran (skipped repeats have none that
 * result_doc_parse checked), on the controller's clock, sorted, each once;
 * *t0 the first repeat's start.  Returns the count; *out is the
 * caller's to free. */
static size_t html_points(const struct result_doc *r, struct html_pt **out,
			  double *t0)
{
	const cJSON *so, *rp, *rec, *st;
	struct html_pt *pt = NULL, *np;
	size_t n = 0, cap = 0, i, m;

	*t0 = INFINITY;
	cJSON_ArrayForEach(so, cJSON_GetObjectItem(r->doc, "steps"))
	cJSON_ArrayForEach(rp, cJSON_GetObjectItem(so, "repeats")) {
		if (cJSON_GetObjectItem(rp, "skipped"))
			continue;
		st = cJSON_GetObjectItem(rp, "start_ns");
		if (cJSON_IsNumber(st))
			*t0 = fmin(*t0, st->valuedouble);
		cJSON_ArrayForEach(rec, cJSON_GetObjectItem(
			cJSON_GetObjectItem(rp, "series"), "sample")) {
			if (n == cap) {
				cap = cap * 2 + 64;
				np = realloc(pt, cap * sizeof(*pt));
				if (!np) {
					free(pt);
					return 0;
				}
				pt = np;
			}
			html_pt_fill(&pt[n++], rec, r->server_offset_ns);
		}
	}
	if (!n) {
		free(pt);
		return 0;
	}
	qsort(pt, n, sizeof(*pt), html_pt_cmp);
	for (i = m = 0; i < n; i++)
		if (m == 0 || pt[i].t != pt[m - 1].t)
			pt[m++] = pt[i];
	*t0 = fmin(*t0, pt[0].t);
	*out = pt;
	return m;
}

/* Steps on a time chart: each repeat's measured window shaded, a dashed
 * line and the step's name where its first repeat starts. */
static void html_step_marks(struct chart *c, const struct result_doc *r,
			    double t0)
{
	const cJSON *so, *rp, *sn;
	FILE *f = c->f;

	cJSON_ArrayForEach(so, cJSON_GetObjectItem(r->doc, "steps")) {
		const cJSON *w = cJSON_GetObjectItem(so, "warmup_s");
		const cJSON *d = cJSON_GetObjectItem(so, "duration_s");
		double ws = cJSON_IsNumber(w) ? w->valuedouble : 0;
		double ds = cJSON_IsNumber(d) ? d->valuedouble : 0;
		int first = 1;

		cJSON_ArrayForEach(rp, cJSON_GetObjectItem(so, "repeats")) {
			double a, x, e;

			sn = cJSON_GetObjectItem(rp, "start_ns");
			if (!cJSON_IsNumber(sn))
				continue;
			a = (sn->valuedouble - t0) / 1e9;
			x = chart_x(c, a + ws);
			e = chart_x(c, a + ws + ds);
			fprintf(f, "<rect class=\"win\" x=\"%.1f\" y=\"%.1f\" "
				"width=\"%.1f\" height=\"%.1f\"/>", x, c->t,
				fmax(e - x, 1), c->b - c->t);
			if (!first)
				continue;
			first = 0;
			x = chart_x(c, a);
			fprintf(f, "<path class=\"stepb\" d=\"M%.1f %.1fV"
				"%.1f\"/><text class=\"stepl\" transform=\""
				"translate(%.1f %.1f) rotate(-90)\">", x, c->t,
				c->b, x + 9, c->b - 3);
			html_esc(f, cJSON_GetStringValue(
				cJSON_GetObjectItem(so, "name")));
			fputs("</text>", f);
		}
	}
}

/* The Byte.com combined table: sampler averages per step. */
static void html_sm_table(FILE *f, const struct result_doc *r)
{
	char b[32];
	int i, k;

	fputs("<table class=\"sm\"><tr><th>step</th>", f);
	for (k = 0; k < RESULT_DOC_SM_N; k++)
		fprintf(f, "<th>%s</th>", result_doc_sm_heads[k]);
	fputs("<th>intervals</th></tr>\n", f);
	for (i = 0; i < r->nsteps; i++) {
		const struct result_doc_step *s = &r->steps[i];

		if (!s->sm_n)
			continue;
		fputs("<tr><td>", f);
		html_esc(f, s->name);
		fputs("</td>", f);
		for (k = 0; k < RESULT_DOC_SM_N; k++) {
			html_num(b, sizeof(b), s->sm[k]);
			fprintf(f, "<td>%s</td>", b);
		}
		fprintf(f, "<td>%d</td></tr>\n", s->sm_n);
	}
	fputs("</table>\n", f);
}

static void html_sampler(FILE *f, struct result_doc *r, int idx)
{
	struct html_pt *pt = NULL;
	double t0, tmax;
	size_t n, i;
	int k, j;
	char title[200];

	n = html_points(r, &pt, &t0);
	if (!n)
		return;
	tmax = (pt[n - 1].t - t0) / 1e9;
	fprintf(f, "<h3>%c ", html_letter(idx));
	html_esc(f, r->id);
	fputs("</h3>", f);
	html_sm_table(f, r);
	fputs("<div class=\"grid\">\n", f);
	for (k = 0; k < RESULT_DOC_SM_N; k++) {
		struct chart c = { .w = 460, .h = 200, .l = 62, .t = 26,
				   .r = 446, .b = 170 };
		double ymax = 0, st, v, x;
		char b[32];

		for (i = 0; i < n; i++)
			ymax = fmax(ymax, pt[i].v[k]);
		c.x0 = 0;
		c.x1 = tmax > 0 ? tmax * 1.02 : 1;
		c.y0 = 0;
		c.y1 = ymax > 0 ? ymax * 1.1 : 1;
		snprintf(title, sizeof(title), "%s (%s)", result_doc_sm_heads[k],
			 result_doc_sm_fields[k]);
		chart_begin(&c, f, "ts", title, "seconds since the first step",
			    result_doc_sm_heads[k]);
		html_step_marks(&c, r, t0);
		st = chart_step(c.x1, 6);
		for (j = 0, v = 0; j < CHART_MAX_TICKS && v <= c.x1;
		     j++, v += st) {
			snprintf(b, sizeof(b), "%g", v);
			chart_xtick(&c, chart_x(&c, v), b);
		}
		fprintf(f, "<path class=\"line\" stroke=\"%s\" d=\"",
			HTML_COLOR(idx));
		for (i = 0; i < n; i++)
			fprintf(f, "%c%.1f %.1f", i ? 'L' : 'M',
				chart_x(&c, (pt[i].t - t0) / 1e9),
				chart_y(&c, pt[i].v[k]));
		fputs("\"/>", f);
		for (i = 0; i < n; i++) {
			x = chart_x(&c, (pt[i].t - t0) / 1e9);
			fprintf(f, "<circle class=\"pt\" fill=\"%s\" "
				"cx=\"%.1f\" cy=\"%.1f\" r=\"2\"/>",
				HTML_COLOR(idx), x, chart_y(&c, pt[i].v[k]));
		}
		chart_end(&c, NULL);
	}
	fputs("</div>\n", f);
	free(pt);
}

/* Several results: the sampler tables side by side, per step and field
 * each result's average and its ratio to A's. */
static void html_sm_compare(FILE *f, struct result_doc *rs, int n)
{
	const char *names[256];
	struct result_doc_sm_cell *cell;
	int nn, i, j, k;
	char b[32];

	nn = result_doc_sm_steps(rs, n, names, 256);
	if (n < 2 || !nn)
		return;
	cell = calloc((size_t)n, sizeof(*cell));
	if (!cell)
		return;
	fputs("<h2>Server sampler side by side (ratios against A)</h2>\n"
	      "<table class=\"fig\"><tr><th>step</th><th>field</th>", f);
	for (i = 0; i < n; i++) {
		fprintf(f, "<th>%c</th>", html_letter(i));
		if (i > 0)
			fprintf(f, "<th>%c/A</th>", html_letter(i));
	}
	fputs("</tr>\n", f);
	for (j = 0; j < nn; j++)
		for (k = 0; k < RESULT_DOC_SM_N; k++) {
			fputs("<tr><td>", f);
			if (!k)
				html_esc(f, names[j]);
			fprintf(f, "</td><td>%s</td>", result_doc_sm_heads[k]);
			result_doc_sm_compare(rs, n, names[j], k, cell);
			for (i = 0; i < n; i++) {
				html_num(b, sizeof(b), cell[i].v);
				fprintf(f, "<td>%s</td>", cell[i].has ? b : "-");
				if (i == 0)
					continue;
				if (cell[i].has_ratio)
					fprintf(f, "<td>%.3f</td>",
						cell[i].ratio);
				else
					fputs("<td>-</td>", f);
			}
			fputs("</tr>\n", f);
		}
	fputs("</table>\n", f);
	free(cell);
}

/* Under the probe chart: per step and result, the std-dev %, the loss
 * % and the seconds they cover. */
static void html_probe_table(FILE *f, struct result_doc *rs, int n,
			     const char *const *groups, int ng)
{
	char a[32], b[32];
	int g, i, s;

	fputs("<table class=\"fig\"><tr><th>step</th>", f);
	for (i = 0; i < n; i++)
		fprintf(f, "<th>%c stddev %%</th><th>%c lost %%</th>"
			"<th>%c seconds</th>", html_letter(i), html_letter(i),
			html_letter(i));
	fputs("</tr>\n", f);
	for (g = 0; g < ng; g++) {
		fputs("<tr><td>", f);
		html_esc(f, groups[g]);
		fputs("</td>", f);
		for (i = 0; i < n; i++) {
			const struct result_doc_step *st;

			s = result_doc_find_step(&rs[i], groups[g]);
			st = s >= 0 ? &rs[i].steps[s] : NULL;
			if (!st || !st->pb_seconds) {
				fputs("<td>-</td><td>-</td><td>-</td>", f);
				continue;
			}
			html_num(a, sizeof(a), st->pb_stddev_pct);
			html_num(b, sizeof(b), st->pb_lost_pct);
			fprintf(f, "<td>%s</td><td>%s</td><td>%d</td>", a, b,
				st->pb_seconds);
		}
		fputs("</tr>\n", f);
	}
	fputs("</table>\n", f);
}

static void html_probe(FILE *f, struct result_doc *rs, int n)
{
	const char *groups[256], *labels[HTML_MAXSER];
	static char lab[HTML_MAXSER][160];
	double *v;
	int ng = 0, i, s, g, ns = n < HTML_MAXSER ? n : HTML_MAXSER;

	for (i = 0; i < ns; i++)
		for (s = 0; s < rs[i].nsteps; s++) {
			if (!rs[i].steps[s].pb_seconds)
				continue;
			for (g = 0; g < ng; g++)
				if (strcmp(groups[g], rs[i].steps[s].name) == 0)
					break;
			if (g == ng && ng < 256)
				groups[ng++] = rs[i].steps[s].name;
		}
	if (!ng)
		return;
	v = malloc(sizeof(*v) * ng * ns);
	if (!v)
		return;
	for (g = 0; g < ng * ns; g++)
		v[g] = NAN;
	for (i = 0; i < ns; i++) {
		html_label(lab[i], 160, &rs[i], i);
		labels[i] = lab[i];
		for (g = 0; g < ng; g++) {
			s = result_doc_find_step(&rs[i], groups[g]);
			if (s >= 0 && rs[i].steps[s].pb_seconds)
				v[g * ns + i] =
					rs[i].steps[s].pb_stddev_pct;
		}
	}
	/* N&K charted the standard deviation from the ideal share, not the
	 * loss: the table under it has both. */
	fputs("<h2>Fairness probe: standard deviation from the ideal per step (N&amp;K)</h2>\n", f);
	html_bar_chart(f, "probe", "probe: std-dev from ideal, %",
		       "stddev %", groups, ng, labels, ns, v, 0);
	free(v);
	html_probe_table(f, rs, ns, groups, ng);
}

/* Host fields shown in their own column; any other scalar field (a newer
 * agent's dependency or server stack versions) goes to "more". */
static const char *const html_host_cols[] = {
	"id", "role", "arch", "cpu", "cpus", "mem_kb", "kernel", "image",
	"image_release", "address", NULL,
};

static void html_scalar(FILE *f, const cJSON *j)
{
	char b[64];

	if (cJSON_IsString(j)) {
		html_esc(f, j->valuestring);
	} else if (cJSON_IsNumber(j)) {
		snprintf(b, sizeof(b), "%.15g", j->valuedouble);
		fputs(b, f);
	} else if (cJSON_IsBool(j)) {
		fputs(cJSON_IsTrue(j) ? "true" : "false", f);
	}
}

/* Scalars of o (recursively, as a.b=c), except the named columns. */
static void html_more(FILE *f, const cJSON *o, const char *prefix, int *first)
{
	const cJSON *x;
	int i;

	cJSON_ArrayForEach(x, o) {
		char key[128];

		for (i = 0; !*prefix && html_host_cols[i]; i++)
			if (strcmp(x->string, html_host_cols[i]) == 0)
				break;
		if (!*prefix && html_host_cols[i])
			continue;
		/* The system table shows "system" and "nics". */
		if (!*prefix && (strcmp(x->string, "clock") == 0 ||
				 strcmp(x->string, "workloads") == 0 ||
				 strcmp(x->string, "system") == 0 ||
				 strcmp(x->string, "nics") == 0))
			continue;
		snprintf(key, sizeof(key), "%s%s%s", prefix, *prefix ? "." : "",
			 x->string ? x->string : "");
		if (cJSON_IsObject(x)) {
			html_more(f, x, key, first);
			continue;
		}
		if (cJSON_IsArray(x))
			continue;
		fputs(*first ? "" : "<br>", f);
		*first = 0;
		html_esc(f, key);
		fputs("=", f);
		html_scalar(f, x);
	}
}

/* A "µs" cell from a nanosecond number, or "-". */
static void html_us_cell(FILE *f, const cJSON *x)
{
	if (cJSON_IsNumber(x))
		fprintf(f, "<td>%.1f</td>", x->valuedouble / 1e3);
	else
		fputs("<td>-</td>", f);
}

/* One host of the environment table. */
static void html_host_row(FILE *f, const cJSON *h)
{
	const cJSON *clk = cJSON_GetObjectItem(h, "clock"), *x;
	int first = 1, i;

	fputs(cJSON_IsTrue(cJSON_GetObjectItem(h, "lost")) ?
	      "<tr class=\"lost\">" : "<tr>", f);
	for (i = 0; html_host_cols[i]; i++) {
		x = cJSON_GetObjectItem(h, html_host_cols[i]);
		fputs("<td>", f);
		if (strcmp(html_host_cols[i], "mem_kb") == 0 &&
		    cJSON_IsNumber(x))
			fprintf(f, "%.1f GiB", x->valuedouble / 1048576);
		else
			html_scalar(f, x);
		fputs("</td>", f);
	}
	html_us_cell(f, cJSON_GetObjectItem(clk, "offset_ns"));
	html_us_cell(f, cJSON_GetObjectItem(clk, "rtt_ns"));
	fputs("<td>", f);
	i = 0;
	cJSON_ArrayForEach(x, cJSON_GetObjectItem(h, "workloads")) {
		fputs(i++ ? " " : "", f);
		html_scalar(f, x);
	}
	fputs("</td><td>", f);
	html_more(f, h, "", &first);
	fputs("</td></tr>\n", f);
}

/* The line under the environment table: suite, tool, skew, events. */
static void html_env_meta(FILE *f, struct result_doc *r)
{
	const cJSON *sk, *x;
	int i;

	fputs("</table>\n<p class=\"meta\">suite ", f);
	html_esc(f, r->suite);
	fputs(" version ", f);
	html_esc(f, r->suite_version);
	if (r->time_scale != 1)
		fprintf(f, ", <strong>time-scaled x%g: every warm-up, duration and cool-down times %g, not comparable with a full-length run</strong>",
			r->time_scale, r->time_scale);
	fputs(", benchboot ", f);
	html_esc(f, r->tool_version ? r->tool_version : "?");
	fputs(", created ", f);
	html_esc(f, r->created ? r->created : "?");
	fputs(", controller ", f);
	html_esc(f, r->controller ? r->controller : "?");
	sk = cJSON_GetObjectItem(r->doc, "skew");
	for (i = 0; i < 2; i++) {
		const cJSON *s = cJSON_GetObjectItem(sk, i ? "record_ns" :
						     "launch_ns");
		const cJSON *md = cJSON_GetObjectItem(s, "median");
		const cJSON *mx = cJSON_GetObjectItem(s, "max");

		if (cJSON_IsNumber(md) && cJSON_IsNumber(mx))
			fprintf(f,
				"; %s skew between clients: median %.1f µs, max %.1f µs",
				i ? "workload start" : "launch",
				md->valuedouble / 1e3, mx->valuedouble / 1e3);
	}
	i = cJSON_GetArraySize(cJSON_GetObjectItem(r->doc, "events"));
	fprintf(f, "; %d event%s", i, i == 1 ? "" : "s");
	cJSON_ArrayForEach(x, cJSON_GetObjectItem(r->doc, "events")) {
		const char *t = cJSON_GetStringValue(cJSON_GetObjectItem(x,
								       "type"));

		if (t && strcmp(t, "agent_joined") != 0) {
			fputs(" (", f);
			html_esc(f, t);
			fputs(")", f);
		}
	}
	fputs("</p>\n", f);
}

static void html_env(FILE *f, struct result_doc *r, int idx)
{
	const cJSON *h;
	int i;

	fprintf(f, "<h3>%c ", html_letter(idx));
	html_esc(f, r->id);
	fputs("</h3><table class=\"env\"><tr>", f);
	for (i = 0; html_host_cols[i]; i++)
		fprintf(f, "<th>%s</th>", html_host_cols[i]);
	fputs("<th>clock offset µs</th><th>rtt µs</th><th>workloads</th><th>more</th></tr>\n",
	      f);
	cJSON_ArrayForEach(h, cJSON_GetObjectItem(cJSON_GetObjectItem(r->doc,
				"environment"), "hosts"))
		html_host_row(f, h);
	html_env_meta(f, r);
}

/* The hosts' system table (report_system.h): one column per host, the
 * rows that differ between results first, marked. */
static void html_system(FILE *f, struct result_doc *rs, int n)
{
	struct report_sys t;
	int r, c, k;

	if (report_sys_build(rs, n, &t) != 0 || !t.ncols || !t.nrows) {
		report_sys_free(&t);
		return;
	}
	fputs("<h2>System</h2>\n<p class=\"meta\">One column per host, as "
	      "each read it from its own firmware and kernel", f);
	if (t.compared)
		fprintf(f, "; %d row%s differ%s between the results: marked "
			"&#8800; and listed first", t.ndiffer,
			t.ndiffer == 1 ? "" : "s", t.ndiffer == 1 ? "s" : "");
	fputs(".</p>\n<table class=\"sys\"><tr><th></th>", f);
	for (c = 0; c < t.ncols; c++) {
		fprintf(f, "<th style=\"color:%s\">%c ",
			HTML_COLOR(t.col[c].run), html_letter(t.col[c].run));
		html_esc(f, t.col[c].role);
		fputs("<br><span class=\"hid\">", f);
		html_esc(f, t.col[c].id);
		fputs("</span></th>", f);
	}
	fputs("</tr>\n", f);
	for (r = 0; r < t.nrows; r++) {
		fputs(t.row[r].differs ? "<tr class=\"differs\"><th>"
		      "<span class=\"mark\">&#8800;</span> " : "<tr><th>", f);
		html_esc(f, t.row[r].label);
		fputs("</th>", f);
		for (c = 0; c < t.ncols; c = k) {
			const char *v = t.row[r].cell[c];

			/* Equal neighbours share one cell, as in the
			 * Phoronix Test Suite's table. */
			for (k = c + 1; k < t.ncols; k++) {
				const char *w = t.row[r].cell[k];

				if (!v != !w || (v && strcmp(v, w) != 0))
					break;
			}
			if (k - c > 1)
				fprintf(f, "<td colspan=\"%d\">", k - c);
			else
				fputs("<td>", f);
			html_esc(f, v ? v : "-");
			fputs("</td>", f);
		}
		fputs("</tr>\n", f);
	}
	fputs("</table>\n", f);
	report_sys_free(&t);
}

static const char html_css[] =
"body{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;"
"margin:1.5em;color:#222;background:#fff}"
"h1{font-size:1.4em}h2{font-size:1.2em;border-bottom:1px solid #ccc;"
"margin-top:1.6em}h3{font-size:1em}"
"table{border-collapse:collapse;font-size:.85em;margin:.5em 0}"
"td,th{border:1px solid #ccc;padding:2px 6px;text-align:right;"
"vertical-align:top}th{background:#f3f3f3}"
"table.env td{text-align:left}tr.lost{color:#b00}"
"td.flag{color:#b00;font-weight:bold}tr.total td{font-weight:bold}"
".s2{color:#b00;font-weight:bold}.s0{color:#888}"
".row,.grid{display:flex;flex-wrap:wrap;gap:8px}"
"figure{margin:0}figcaption{font-size:.75em;color:#666}"
"svg{background:#fff}svg text{font-size:11px;fill:#333}"
".ttl{font-weight:bold;font-size:12px}"
".frame{fill:none;stroke:#999}.grid path,.grid{}"
"path.grid{stroke:#e5e5e5}.tick{stroke:#999}"
".yt{text-anchor:end}.xt{text-anchor:middle}.rot{text-anchor:end}"
".xl{text-anchor:middle}.yl{text-anchor:middle}"
".line{fill:none;stroke-width:2}.ci{fill:none;stroke-width:1;opacity:.6}"
".key{stroke-width:3}.win{fill:#f0f4ff}.stepb{stroke:#888;"
"stroke-dasharray:3 3}.stepl{font-size:9px;fill:#555}"
".meta{font-size:.85em;color:#444}"
"table.sys td,table.sys th{text-align:left;max-width:26em;"
"overflow-wrap:anywhere}.hid{font-weight:normal;color:#555}"
"tr.differs th,tr.differs td{background:#fff3cd}.mark{color:#b00}"
"table.sys tr>th:first-child{white-space:nowrap}\n";

void report_html_esc(FILE *f, const char *s)
{
	html_esc(f, s);
}

void report_html_head(FILE *f, const char *title, int forms)
{
	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8"
	      "\">\n<meta name=\"viewport\" content=\"width=device-width\">\n"
	      /* Defence in depth behind html_esc: the page runs nothing and
	       * fetches nothing, so a string that slipped through could
	       * neither execute nor call home. */
	      "<meta http-equiv=\"Content-Security-Policy\" content=\""
	      "default-src 'none'; style-src 'unsafe-inline'; "
	      "img-src data:; form-action ", f);
	fputs(forms ? "'self'" : "'none'", f);
	fputs("\">\n<title>", f);
	html_esc(f, title);
	fputs("</title>\n<style>", f);
	fputs(html_css, f);
	fputs("</style></head><body>\n", f);
}

/* Widest an x label's character is drawn (11 px sans-serif: digits about
 * 6.2 px in Chromium, 660_report.sh measures it) and the room kept
 * between two labels, in pixels. */
#define HTML_XT_CHAR 7.0
#define HTML_XT_GAP 8.0

/* Every how many runs an x label fits: labels of len characters centred
 * on points step pixels apart never overlap. */
int report_html_label_every(int n, size_t len, double step)
{
	double need = (double)len * HTML_XT_CHAR + HTML_XT_GAP;
	int every = step > 0 ? (int)ceil(need / step) : n;

	return every < 1 ? 1 : every;
}

/* A change point (docs/collect.md) as a dashed line just before its
 * run, a triangle on top, what changed as its title. */
static void html_trend_marks(struct chart *c, const struct report_trend *t)
{
	int i;

	for (i = 0; i < t->n; i++) {
		double x = chart_x(c, i - 0.5);

		if (!t->pt[i].mark)
			continue;
		fprintf(c->f, "<g class=\"cp\"><title>change point at ");
		html_esc(c->f, t->pt[i].id);
		fputs(": ", c->f);
		html_esc(c->f, t->pt[i].mark);
		fprintf(c->f, "</title><line x1=\"%.1f\" y1=\"%.1f\" "
			"x2=\"%.1f\" y2=\"%.1f\" stroke=\"#c00\" "
			"stroke-dasharray=\"4 3\"/><path fill=\"#c00\" "
			"d=\"M%.1f %.1fl-5 -8h10z\"/></g>", x, c->t, x, c->b,
			x, c->t);
	}
}

/* The trend: one point per run, left to right in the given order, its
 * CI as an error bar; x ticks name as many runs as fit without their
 * labels running into each other (report_html_label_every). */
void report_html_trend(FILE *f, const char *title, const char *ylabel,
		       const struct report_trend *t)
{
	struct chart c = { .w = 560, .h = 300, .l = 62, .t = 26, .r = 546,
			   .b = 246 };
	size_t len = 0;
	int i, every;

	for (i = 0; i < t->n; i++)
		if (t->pt[i].label && strlen(t->pt[i].label) > len)
			len = strlen(t->pt[i].label);
	every = report_html_label_every(t->n, len, t->n ?
					(c.r - c.l) / t->n : 0);
	c.x0 = -0.5;
	c.x1 = t->n - 0.5;
	for (i = 0; i < t->n; i++)
		c.y1 = fmax(c.y1, fmax(t->pt[i].y, t->pt[i].hi));
	c.y1 = c.y1 > 0 ? c.y1 * 1.12 : 1;
	chart_begin(&c, f, "trend", title, "runs, oldest first", ylabel);
	for (i = 0; i < t->n; i += every)
		chart_xtick(&c, chart_x(&c, i), t->pt[i].label);
	fprintf(f, "<path class=\"ci\" stroke=\"%s\" d=\"", HTML_COLOR(0));
	for (i = 0; i < t->n; i++)
		if (t->pt[i].hi > t->pt[i].lo)
			fprintf(f, "M%.1f %.1fV%.1f", chart_x(&c, i),
				chart_y(&c, fmax(t->pt[i].lo, 0)),
				chart_y(&c, t->pt[i].hi));
	fprintf(f, "\"/><path class=\"line\" stroke=\"%s\" d=\"",
		HTML_COLOR(0));
	for (i = 0; i < t->n; i++)
		fprintf(f, "%c%.1f %.1f", i ? 'L' : 'M', chart_x(&c, i),
			chart_y(&c, t->pt[i].y));
	fputs("\"/>", f);
	for (i = 0; i < t->n; i++) {
		fprintf(f, "<circle class=\"pt\" fill=\"%s\" cx=\"%.1f\" "
			"cy=\"%.1f\" r=\"3\"><title>", HTML_COLOR(0),
			chart_x(&c, i), chart_y(&c, t->pt[i].y));
		html_esc(f, t->pt[i].id);
		fputs("</title></circle>", f);
	}
	html_trend_marks(&c, t);
	chart_end(&c, "mean of the complete repeats; bars: 95 % CI of the mean");
}

int report_html(FILE *f, struct result_doc *rs, int n)
{
	int i;

	report_html_head(f, "benchboot report", 0);
	fputs("<h1>benchboot report</h1>\n"
	      "<table class=\"res\"><tr><th></th><th>result</th><th>suite</th>"
	      "<th>benchboot</th><th>created</th><th>file</th></tr>\n", f);
	for (i = 0; i < n; i++) {
		fprintf(f, "<tr><td style=\"color:%s\">%c</td><td>",
			HTML_COLOR(i), html_letter(i));
		html_esc(f, rs[i].id);
		fputs("</td><td>", f);
		html_esc(f, rs[i].suite);
		fputs(" v", f);
		html_esc(f, rs[i].suite_version);
		fputs("</td><td>", f);
		html_esc(f, rs[i].tool_version ? rs[i].tool_version : "?");
		fputs("</td><td>", f);
		html_esc(f, rs[i].created ? rs[i].created : "?");
		fputs("</td><td>", f);
		html_esc(f, rs[i].file);
		fputs("</td></tr>\n", f);
	}
	fputs("</table>\n", f);
	if (n > 1)
		fputs("<p class=\"meta\">Ratios are against A; a difference "
		      "is significant (sig) when the 95 % confidence "
		      "intervals of the repeats do not overlap.</p>\n", f);
	html_system(f, rs, n);
	html_workloads(f, rs, n);
	html_ops(f, rs, n);
	fputs("<h2>Server sampler per step (Byte.com combined table)</h2>\n"
	      "<p class=\"meta\">Shaded: the measured interval of every "
	      "repeat; dashed: a step begins.</p>\n", f);
	for (i = 0; i < n; i++)
		html_sampler(f, &rs[i], i);
	html_sm_compare(f, rs, n);
	html_probe(f, rs, n);
	fputs("<h2>Environment</h2>\n", f);
	for (i = 0; i < n; i++)
		html_env(f, &rs[i], i);
	fputs("</body></html>\n", f);
	fflush(f);
	return ferror(f) ? -EIO : 0;
}
