/* page.c: the collector's pages, rendered on the server from the
 * database (listings, trends) and the result files (reports), through
 * the report's own HTML (report_html*: its CSS, its escaping, its
 * charts); each page is one string built in memory, then sent. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "page.h"
#include "report.h"
#include "store.h"
#include "util.h"

#define PAGE_MAX_RUNS 500	/* rows of the index */
#define PAGE_MAX_TREND 200	/* points of a trend chart */

/* The filters of r as a store filter. */
static void page_filter(const struct page_req *r, struct store_filter *f)
{
	*f = (struct store_filter){ r->host, r->suite, r->version, r->digest,
				    r->server, r->from, r->to };
}

/* A link: "/ui/PAGE?" + the query, escaped for the attribute. */
static void page_href(FILE *f, const char *page, const char *query)
{
	fprintf(f, "<a href=\"/ui/%s%s", page, query[0] ? "?" : "");
	report_html_esc(f, query);
	fputs("\">", f);
}

/* The filter form, each field showing its current value; it asks the
 * page it is on (action: "" the index, "trend"). */
static void page_form(FILE *f, const struct page_req *r, const char *action)
{
	static const struct {
		const char *key, *label;
		size_t off;
	} fields[] = {
		{ "host", "host", offsetof(struct page_req, host) },
		{ "suite", "suite", offsetof(struct page_req, suite) },
		{ "version", "version", offsetof(struct page_req, version) },
		{ "digest", "image digest", offsetof(struct page_req, digest) },
		{ "server", "server", offsetof(struct page_req, server) },
		{ "from", "from (YYYY-MM-DD)", offsetof(struct page_req, from) },
		{ "to", "to", offsetof(struct page_req, to) },
	};
	size_t i;

	fprintf(f, "<form class=\"filter\" method=\"get\" action=\"/ui/%s\">",
		action);
	for (i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
		fprintf(f, "<label>%s <input name=\"%s\" size=\"14\" value=\"",
			fields[i].label, fields[i].key);
		report_html_esc(f, (const char *)r + fields[i].off);
		fputs("\"></label> ", f);
	}
	fputs("<button>filter</button> <a href=\"/ui/\">all runs</a></form>\n",
	      f);
}

/* Appends the size bytes of item to the array *arr of *n items.
 * Returns 0 or -ENOMEM (the array is kept). */
static int page_push(void *arr, int *n, const void *item, size_t size)
{
	void **a = arr, *np = realloc(*a, (size_t)(*n + 1) * size);

	if (!np)
		return -ENOMEM;
	*a = np;
	memcpy((char *)np + (size_t)*n * size, item, size);
	(*n)++;
	return 0;
}

/* The index's rows, kept to link each run to the previous one of its
 * suite. */
struct page_rows {
	struct store_runrow *r;
	int n;
};

static int page_row(void *arg, const struct store_runrow *r)
{
	struct page_rows *rows = arg;

	return page_push(&rows->r, &rows->n, r, sizeof(*r));
}

/* One row of the index: radio buttons for the comparison, the run, its
 * facts and links (its trend, and against the previous run of its
 * suite and version in the listing). */
static void page_index_row(FILE *f, const struct page_rows *rows, int i)
{
	const struct store_runrow *x = &rows->r[i];
	struct page_req q = { 0 };
	char qs[700];
	int j;

	/* Ids are [A-Za-z0-9._-] (the collector stores by them): nothing
	 * to encode in a URL; escaped all the same. */
	fputs("<tr><td><input type=\"radio\" name=\"a\" value=\"", f);
	report_html_esc(f, x->id);
	fputs("\"></td><td><input type=\"radio\" name=\"b\" value=\"", f);
	report_html_esc(f, x->id);
	fputs("\"></td><td class=\"id\"><a href=\"/ui/run?id=", f);
	report_html_esc(f, x->id);
	fputs("\">", f);
	report_html_esc(f, x->id);
	fputs("</a></td><td>", f);
	report_html_esc(f, x->created);
	fputs("</td><td>", f);
	report_html_esc(f, x->suite);
	fputs(" v", f);
	report_html_esc(f, x->version);
	fputs("</td><td>", f);
	report_html_esc(f, x->server);
	fputs("</td><td>", f);
	report_html_esc(f, x->digest);
	fputs("</td><td>", f);
	report_html_esc(f, x->controller);
	fprintf(f, "</td><td class=\"%s\">", x->regressions ? "s2" : "");
	if (x->error[0])
		report_html_esc(f, x->error);
	else if (x->regressions)
		fprintf(f, "%d regression%s", x->regressions,
			x->regressions == 1 ? "" : "s");
	fputs("</td><td>", f);
	snprintf(q.suite, sizeof(q.suite), "%s", x->suite);
	snprintf(q.version, sizeof(q.version), "%s", x->version);
	page_filter_query(&q, qs, sizeof(qs));
	page_href(f, "trend", qs);
	fputs("trend</a>", f);
	for (j = i + 1; j < rows->n; j++)
		if (strcmp(rows->r[j].suite, x->suite) == 0 &&
		    strcmp(rows->r[j].version, x->version) == 0) {
			fputs(" <a class=\"cmp\" href=\"/ui/compare?a=", f);
			report_html_esc(f, rows->r[j].id);
			fputs("&amp;b=", f);
			report_html_esc(f, x->id);
			fputs("\">vs previous</a>", f);
			break;
		}
	fputs("</td></tr>\n", f);
}

static int page_index(FILE *f, struct store *st, const struct page_req *r,
		      char *err, size_t errlen)
{
	struct page_rows rows = { 0 };
	struct store_filter flt;
	int i, rc;

	page_filter(r, &flt);
	rc = store_runs(st, &flt, PAGE_MAX_RUNS, page_row, &rows, err,
			errlen);
	if (rc != 0) {
		free(rows.r);
		return rc;
	}
	report_html_head(f, "benchboot results", 1);
	fputs("<h1>benchboot results</h1>\n", f);
	page_form(f, r, "");
	fprintf(f, "<p class=\"meta\">%d run%s%s, newest first.  Pick A and B "
		"to compare any two.</p>\n", rows.n, rows.n == 1 ? "" : "s",
		rows.n == PAGE_MAX_RUNS ? " (the limit: narrow the filter)" :
		"");
	fputs("<form method=\"get\" action=\"/ui/compare\">"
	      "<table class=\"runs\"><tr><th>A</th><th>B</th><th>run</th>"
	      "<th>created</th><th>suite</th><th>server</th>"
	      "<th>image digest</th><th>controller</th><th>notes</th>"
	      "<th></th></tr>\n", f);
	for (i = 0; i < rows.n; i++)
		page_index_row(f, &rows, i);
	fputs("</table><button>compare A and B</button></form>\n"
	      "</body></html>\n", f);
	free(rows.r);
	return 0;
}

/* --- trends ----------------------------------------------------------- */

struct page_trend {
	struct store_trendrow *p;
	int n;
};

static int page_trend_row(void *arg, const struct store_trendrow *r)
{
	struct page_trend *t = arg;

	return page_push(&t->p, &t->n, r, sizeof(*r));
}

/* One chart of figure thr (1) or p99 (0) of t's runs that have it. */
static int page_chart(FILE *f, const struct page_trend *t, int thr,
		      const char *step, const char *wl)
{
	struct report_trend tr = { 0 };
	char title[200], (*lab)[16];
	int i;

	tr.pt = calloc((size_t)t->n + 1, sizeof(*tr.pt));
	lab = calloc((size_t)t->n + 1, sizeof(*lab));
	if (!tr.pt || !lab) {
		free(tr.pt);
		free(lab);
		return -ENOMEM;
	}
	for (i = 0; i < t->n; i++) {
		const struct report_stat *s = thr ? &t->p[i].thr :
			&t->p[i].p99;
		double d = thr ? 1 : 1e3;

		if (s->n == 0)
			continue;
		/* "MM-DD HH:MM" of YYYY-MM-DDTHH:MM:SSZ */
		snprintf(lab[tr.n], sizeof(lab[0]), "%.5s %.5s",
			 t->p[i].created + 5, t->p[i].created + 11);
		tr.pt[tr.n].id = t->p[i].id;
		tr.pt[tr.n].label = lab[tr.n];
		tr.pt[tr.n].y = s->mean / d;
		tr.pt[tr.n].lo = s->n > 1 ? s->lo / d : s->mean / d;
		tr.pt[tr.n].hi = s->n > 1 ? s->hi / d : s->mean / d;
		tr.n++;
	}
	snprintf(title, sizeof(title), "%s %s: %s", step, wl,
		 thr ? "throughput" : "p99");
	if (tr.n)
		report_html_trend(f, title, thr ? "per second" : "µs", &tr);
	free(tr.pt);
	free(lab);
	return 0;
}

/* The (step, workload) pairs a trend page draws. */
struct page_keys {
	char (*k)[2][97];
	int n;
};

static int page_key(void *arg, const char *step, const char *wl)
{
	struct page_keys *ks = arg;
	char k[2][97];

	snprintf(k[0], sizeof(k[0]), "%s", step);
	snprintf(k[1], sizeof(k[1]), "%s", wl);
	return page_push(&ks->k, &ks->n, k, sizeof(k));
}

static int page_trend(FILE *f, struct store *st, const struct page_req *r,
		      char *err, size_t errlen)
{
	struct store_filter flt;
	struct page_keys ks = { 0 };
	int i, rc;

	page_filter(r, &flt);
	rc = store_trend_keys(st, &flt, page_key, &ks, err, errlen);
	if (rc == 0) {
		report_html_head(f, "benchboot trend", 1);
		fputs("<h1>Trend: ", f);
		report_html_esc(f, r->suite);
		fputs(" v", f);
		report_html_esc(f, r->version);
		fputs("</h1>\n", f);
		page_form(f, r, "trend");
		fputs("<p class=\"meta\">One point per run, oldest first: the "
		      "mean of its complete repeats, the bar its 95 % "
		      "confidence interval.</p>\n<div class=\"grid\">", f);
	}
	for (i = 0; rc == 0 && i < ks.n; i++) {
		struct page_trend t = { 0 };

		rc = store_trend(st, &flt, ks.k[i][0], ks.k[i][1],
				 PAGE_MAX_TREND, page_trend_row, &t, err,
				 errlen);
		if (rc == 0)
			rc = page_chart(f, &t, 1, ks.k[i][0], ks.k[i][1]);
		if (rc == 0)
			rc = page_chart(f, &t, 0, ks.k[i][0], ks.k[i][1]);
		free(t.p);
	}
	if (rc == 0)
		fputs("</div></body></html>\n", f);
	free(ks.k);
	return rc;
}

/* --- reports ---------------------------------------------------------- */

/* The report of one run (b == NULL) or of two, from their files. */
static int page_report(FILE *f, const char *dir, const char *a,
		       const char *b, char *err, size_t errlen)
{
	struct report_res rs[2];
	const char *ids[2] = { a, b };
	char path[PATH_MAX];
	int n = b ? 2 : 1, i, rc = 0;

	for (i = 0; i < n && rc == 0; i++) {
		snprintf(path, sizeof(path), "%s/%s.json", dir, ids[i]);
		rc = report_load(path, &rs[i], err, errlen);
		if (rc != 0)
			break;
	}
	if (rc == 0 && n == 2)
		rc = report_comparable(&rs[0], &rs[1], err, errlen);
	if (rc == 0)
		rc = report_html(f, rs, n);
	while (i-- > 0)
		report_free(&rs[i]);
	return rc;
}

int page_render(struct store *st, const char *dir, const struct page_req *r,
		char **body, size_t *len, char *err, size_t errlen)
{
	FILE *f = open_memstream(body, len);
	int rc;

	if (!f) {
		*body = NULL;
		util_fail(err, errlen, -ENOMEM, "out of memory");
		return 500;
	}
	if (r->kind == PAGE_RUN || r->kind == PAGE_COMPARE)
		rc = page_report(f, dir, r->kind == PAGE_RUN ? r->id : r->a,
				 r->kind == PAGE_RUN ? NULL : r->b, err,
				 errlen);
	else if (r->kind == PAGE_TREND)
		rc = page_trend(f, st, r, err, errlen);
	else
		rc = page_index(f, st, r, err, errlen);
	if (fclose(f) != 0 && rc == 0)
		rc = util_fail(err, errlen, -ENOMEM, "out of memory");
	if (rc == 0)
		return 200;
	free(*body);
	*body = NULL;
	return rc == -ENOENT ? 404 : rc == -EIO || rc == -EPROTO ? 503 :
		rc == -ENOMEM ? 500 : 400;
}
