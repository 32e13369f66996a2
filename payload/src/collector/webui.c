/* collector/webui.c: the collector's pages, rendered on the server from the
 * database (listings; trends through report_db) and the result files
 * (reports), through the report's own HTML (report_html*: its CSS, its
 * escaping, its charts); each page is one string built in memory, then
 * sent. */
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collector/webui.h"
#include "lib/util.h"

/* Hex digits of an image digest the run list shows. */
#define WEBUI_DIGEST_HEX 12
#include "report/report_db.h"
#include "report/report_html.h"
#include "result/result_doc.h"
#include "resultdb/resultdb_query.h"

#define WEBUI_MAX_RUNS 500	/* rows of the index */

/* The filters of r as a store filter. */
static void webui_filter(const struct webui_req *r, struct resultdb_filter *f)
{
	*f = (struct resultdb_filter){ r->host, r->suite, r->version, r->digest,
				    r->server, r->from, r->to };
}

/* A link: "/ui/PAGE?" + the query, escaped for the attribute. */
static void webui_href(FILE *f, const char *page, const char *query)
{
	fprintf(f, "<a href=\"/ui/%s%s", page, query[0] ? "?" : "");
	report_html_esc(f, query);
	fputs("\">", f);
}

/* The filter form, each field showing its current value; it asks the
 * page it is on (action: "" the index, "trend"). */
static void webui_form(FILE *f, const struct webui_req *r, const char *action)
{
	struct resultdb_filter flt;

	webui_filter(r, &flt);
	report_db_form(f, &flt, action);
}

/* The index's rows, kept to link each run to the previous one of its
 * suite. */
struct webui_rows {
	struct resultdb_runrow *r;
	int n;
};

static int webui_row(void *arg, const struct resultdb_runrow *r)
{
	struct webui_rows *rows = arg;

	return util_array_push(&rows->r, &rows->n, r, sizeof(*r));
}

/* An image digest as a list shows it: "sha256:" and its first 12 hex
 * digits, the whole digest as the cell's title (a full 71-character
 * digest on every row made the run list wider than a 1280-pixel window).
 * Anything else is shown whole. */
static void webui_digest(FILE *f, const char *d)
{
	if (strncmp(d, "sha256:", 7) != 0 || strlen(d) <= 7 + WEBUI_DIGEST_HEX) {
		report_html_esc(f, d);
		return;
	}
	char head[7 + WEBUI_DIGEST_HEX + 1];

	/* Both parts escaped: the digest is the document's, not ours. */
	memcpy(head, d, sizeof(head) - 1);	/* d is longer: checked */
	head[sizeof(head) - 1] = 0;
	fputs("<span title=\"", f);
	report_html_esc(f, d);
	fputs("\">", f);
	report_html_esc(f, head);
	fputs("&hellip;</span>", f);
}

/* One row of the index: radio buttons for the comparison, the run, its
 * facts and links (its trend, and against the previous run of its
 * suite and version in the listing). */
static void webui_index_row(FILE *f, const struct webui_rows *rows, int i)
{
	const struct resultdb_runrow *x = &rows->r[i];
	struct webui_req q = { 0 };
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
	webui_digest(f, x->digest);
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
	webui_filter_query(&q, qs, sizeof(qs));
	webui_href(f, "trend", qs);
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

static int webui_index(FILE *f, struct resultdb *st, const struct webui_req *r,
		      char *err, size_t errlen)
{
	struct webui_rows rows = { 0 };
	struct resultdb_filter flt;
	int i, rc;

	webui_filter(r, &flt);
	rc = resultdb_runs(st, &flt, WEBUI_MAX_RUNS, webui_row, &rows, err,
			errlen);
	if (rc != 0) {
		free(rows.r);
		return rc;
	}
	report_html_head(f, "benchboot results", 1);
	fputs("<h1>benchboot results</h1>\n", f);
	webui_form(f, r, "");
	fprintf(f, "<p class=\"meta\">%d run%s%s, newest first.  Pick A and B "
		"to compare any two.</p>\n", rows.n, rows.n == 1 ? "" : "s",
		rows.n == WEBUI_MAX_RUNS ? " (the limit: narrow the filter)" :
		"");
	fputs("<form method=\"get\" action=\"/ui/compare\">"
	      "<table class=\"runs\"><tr><th>A</th><th>B</th><th>run</th>"
	      "<th>created</th><th>suite</th><th>server</th>"
	      "<th>image digest</th><th>controller</th><th>notes</th>"
	      "<th></th></tr>\n", f);
	for (i = 0; i < rows.n; i++)
		webui_index_row(f, &rows, i);
	fputs("</table><button>compare A and B</button></form>\n"
	      "</body></html>\n", f);
	free(rows.r);
	return 0;
}

/* --- trends ----------------------------------------------------------- */

static int webui_trend(FILE *f, struct resultdb *st, const struct webui_req *r,
		      char *err, size_t errlen)
{
	struct resultdb_filter flt;

	webui_filter(r, &flt);
	return report_db_trend(f, st, &flt, err, errlen);
}

/* --- reports ---------------------------------------------------------- */

/* The report of one run (b == NULL) or of two, from their files. */
static int webui_report(FILE *f, const char *dir, const char *a,
		       const char *b, char *err, size_t errlen)
{
	struct result_doc rs[2];
	const char *ids[2] = { a, b };
	char path[PATH_MAX];
	int n = b ? 2 : 1, i, rc = 0;

	for (i = 0; i < n && rc == 0; i++) {
		snprintf(path, sizeof(path), "%s/%s.json", dir, ids[i]);
		rc = result_doc_load(path, &rs[i], err, errlen);
		if (rc != 0)
			break;
	}
	if (rc == 0 && n == 2)
		rc = result_doc_comparable(&rs[0], &rs[1], err, errlen);
	if (rc == 0)
		rc = report_html(f, rs, n);
	while (i-- > 0)
		result_doc_free(&rs[i]);
	return rc;
}

int webui_render(struct resultdb *st, const char *dir, const struct webui_req *r,
		char **body, size_t *len, char *err, size_t errlen)
{
	FILE *f = open_memstream(body, len);
	int rc;

	if (!f) {
		*body = NULL;
		util_fail(err, errlen, -ENOMEM, "out of memory");
		return 500;
	}
	if (r->kind == WEBUI_RUN || r->kind == WEBUI_COMPARE)
		rc = webui_report(f, dir, r->kind == WEBUI_RUN ? r->id : r->a,
				 r->kind == WEBUI_RUN ? NULL : r->b, err,
				 errlen);
	else if (r->kind == WEBUI_TREND)
		rc = webui_trend(f, st, r, err, errlen);
	else
		rc = webui_index(f, st, r, err, errlen);
	if (fclose(f) != 0 && rc == 0)
		rc = util_fail(err, errlen, -ENOMEM, "out of memory");
	if (rc == 0)
		return 200;
	free(*body);
	*body = NULL;
	return rc == -ENOENT ? 404 : rc == -EIO || rc == -EPROTO ? 503 :
		rc == -ENOMEM ? 500 : 400;
}
