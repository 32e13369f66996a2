/* collector/webui.c: the collector's pages, rendered on the server from the
 * database (listings, trends) and the result files (reports), through
 * the report's own HTML (report_html*: its CSS, its escaping, its
 * charts); each page is one string built in memory, then sent. */
#include <errno.h>
#include <getopt.h>
#include <stdint.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collector/webui.h"
#include "report/report.h"
#include "resultdb/resultdb.h"
#include "lib/util.h"

#define WEBUI_MAX_RUNS 500	/* rows of the index */
#define WEBUI_MAX_TREND 200	/* points of a trend chart */

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
	static const struct {
		const char *key, *label;
		size_t off;
	} fields[] = {
		{ "host", "host", offsetof(struct webui_req, host) },
		{ "suite", "suite", offsetof(struct webui_req, suite) },
		{ "version", "version", offsetof(struct webui_req, version) },
		{ "digest", "image digest", offsetof(struct webui_req, digest) },
		{ "server", "server", offsetof(struct webui_req, server) },
		{ "from", "from (YYYY-MM-DD)", offsetof(struct webui_req, from) },
		{ "to", "to", offsetof(struct webui_req, to) },
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
static int webui_push(void *arr, int *n, const void *item, size_t size)
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
struct webui_rows {
	struct resultdb_runrow *r;
	int n;
};

static int webui_row(void *arg, const struct resultdb_runrow *r)
{
	struct webui_rows *rows = arg;

	return webui_push(&rows->r, &rows->n, r, sizeof(*r));
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

struct webui_trend {
	struct resultdb_trendrow *p;
	int n;
};

static int webui_trend_row(void *arg, const struct resultdb_trendrow *r)
{
	struct webui_trend *t = arg;

	return webui_push(&t->p, &t->n, r, sizeof(*r));
}

/* One chart of figure thr (1) or p99 (0) of t's runs that have it. */
static int webui_chart(FILE *f, const struct webui_trend *t, int thr,
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
struct webui_keys {
	char (*k)[2][97];
	int n;
};

static int webui_key(void *arg, const char *step, const char *wl)
{
	struct webui_keys *ks = arg;
	char k[2][97];

	snprintf(k[0], sizeof(k[0]), "%s", step);
	snprintf(k[1], sizeof(k[1]), "%s", wl);
	return webui_push(&ks->k, &ks->n, k, sizeof(k));
}

static int webui_trend(FILE *f, struct resultdb *st, const struct webui_req *r,
		      char *err, size_t errlen)
{
	struct resultdb_filter flt;
	struct webui_keys ks = { 0 };
	int i, rc;

	webui_filter(r, &flt);
	rc = resultdb_trend_keys(st, &flt, webui_key, &ks, err, errlen);
	if (rc == 0) {
		report_html_head(f, "benchboot trend", 1);
		fputs("<h1>Trend: ", f);
		report_html_esc(f, r->suite);
		fputs(" v", f);
		report_html_esc(f, r->version);
		fputs("</h1>\n", f);
		webui_form(f, r, "trend");
		fputs("<p class=\"meta\">One point per run, oldest first: the "
		      "mean of its complete repeats, the bar its 95 % "
		      "confidence interval.</p>\n<div class=\"grid\">", f);
	}
	for (i = 0; rc == 0 && i < ks.n; i++) {
		struct webui_trend t = { 0 };

		rc = resultdb_trend(st, &flt, ks.k[i][0], ks.k[i][1],
				 WEBUI_MAX_TREND, webui_trend_row, &t, err,
				 errlen);
		if (rc == 0)
			rc = webui_chart(f, &t, 1, ks.k[i][0], ks.k[i][1]);
		if (rc == 0)
			rc = webui_chart(f, &t, 0, ks.k[i][0], ks.k[i][1]);
		free(t.p);
	}
	if (rc == 0)
		fputs("</div></body></html>\n", f);
	free(ks.k);
	return rc;
}

/* --- reports ---------------------------------------------------------- */

/* The report of one run (b == NULL) or of two, from their files. */
static int webui_report(FILE *f, const char *dir, const char *a,
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

/* --- benchboot report --db ---------------------------------------------- */

/* What webui_report_main reads besides report_main's options. */
struct webui_ropts {
	const char *db, *pass_file, *dir, *trend;
	struct webui_req q;
	int limit;
	char **argv;		/* report_main's: argv[0], options, files */
	int argc, first;	/* first: the first file (malloc'd) */
};

/* The selection's files, oldest first, appended to o->argv. */
static int webui_sel_row(void *arg, const struct resultdb_runrow *r)
{
	struct webui_ropts *o = arg;
	char *path;

	if (asprintf(&path, "%s/%s.json", o->dir, r->id) < 0)
		return -ENOMEM;
	o->argv[o->argc++] = path;
	return 0;
}

/* One of our options into o (report_main's go to o->argv).  Returns 0
 * or 2 (usage). */
static int webui_ropt(int c, const char *arg, struct webui_ropts *o,
		     const struct option *lo, int li)
{
	static const struct { int c; size_t off, size; } f[] = {
		{ 'o', offsetof(struct webui_req, host), WEBUI_VAL_MAX + 1 },
		{ 's', offsetof(struct webui_req, suite), WEBUI_VAL_MAX + 1 },
		{ 'v', offsetof(struct webui_req, version), WEBUI_VAL_MAX + 1 },
		{ 'g', offsetof(struct webui_req, digest), WEBUI_VAL_MAX + 1 },
		{ 'e', offsetof(struct webui_req, server), WEBUI_VAL_MAX + 1 },
		{ 'F', offsetof(struct webui_req, from), 11 },
		{ 'T', offsetof(struct webui_req, to), 11 },
	};
	size_t i;
	uint64_t v;

	for (i = 0; i < sizeof(f) / sizeof(f[0]); i++)
		if (f[i].c == c) {
			if (strlen(arg) >= f[i].size)
				break;
			snprintf((char *)&o->q + f[i].off, f[i].size, "%s",
				 arg);
			return 0;
		}
	switch (c) {
	case 'D': o->db = arg; return 0;
	case 'P': o->pass_file = arg; return 0;
	case 'd': o->dir = arg; return 0;
	case 't': o->trend = arg; return 0;
	case 'l':
		if (util_parse_u64(arg, 1, 10000, &v) != 0)
			break;
		o->limit = (int)v;
		return 0;
	case 'H': case 'C': case 'f': case 'q':
		o->argv[o->argc++] = (char *)(c == 'H' ? "--html" :
			c == 'C' ? "--csv" : c == 'f' ? "--force" : "--quiet");
		if (arg)
			o->argv[o->argc++] = (char *)arg;
		return 0;
	}
	if (i < sizeof(f) / sizeof(f[0]) || c == 'l')
		util_err("report", EINVAL, "--%s '%s': too long or out of range",
			 lo[li].name, arg);
	else
		fputs("usage: benchboot report --db URL [--db-password-file F] --dir DIR\n"
		      "         [--host H] [--suite S --version V] [--digest D] [--server X]\n"
		      "         [--from YYYY-MM-DD] [--to YYYY-MM-DD] [--limit N]\n"
		      "         [--trend OUT.html | --html OUT] [--csv OUT] [--force] [--quiet]\n",
		      stderr);
	return 2;
}

/* The selection's trend page into o->trend. */
static int webui_write_trend(struct resultdb *st, struct webui_ropts *o)
{
	char err[300], *body = NULL;
	size_t len = 0;
	int rc;

	o->q.kind = WEBUI_TREND;
	if (!o->q.suite[0] || !o->q.version[0]) {
		util_err("report", EINVAL, "--trend: give --suite and --version (a trend is of one suite)");
		return 2;
	}
	rc = webui_render(st, o->dir, &o->q, &body, &len, err, sizeof(err));
	if (rc != 200) {
		util_err("report", EIO, "--trend: %s", err);
		return 1;
	}
	{
		char dir[PATH_MAX];
		const char *slash = strrchr(o->trend, '/');

		snprintf(dir, sizeof(dir), "%.*s", slash ?
			 (int)(slash - o->trend) : 1, slash ? o->trend : ".");
		rc = util_write_atomic(dir[0] ? dir : "/",
				       slash ? slash + 1 : o->trend, body,
				       len);
	}
	free(body);
	if (rc != 0) {
		util_err("report", -rc, "%s: %s", o->trend, strerror(-rc));
		return 1;
	}
	return 0;
}

/* The runs o selects, from the database, as file names after o's
 * options in o->argv, oldest first.  Returns 0 or an exit status. */
static int webui_select(struct webui_ropts *o, struct resultdb **st)
{
	struct resultdb_filter flt;
	struct resultdb_url u;
	char err[300];
	int i;

	if (resultdb_parse_url(o->db, &u, err, sizeof(err)) != 0 ||
	    (o->pass_file && resultdb_password_file(&u, o->pass_file, err,
						 sizeof(err)) != 0)) {
		util_err("report", EINVAL, "%s", err);
		return 2;
	}
	*st = resultdb_new(&u, 5);
	memset(u.pass, 0, sizeof(u.pass));
	webui_filter(&o->q, &flt);
	if (!*st || resultdb_runs(*st, &flt, o->limit, webui_sel_row, o, err,
			       sizeof(err)) != 0) {
		util_err("report", EIO, "%s", *st ? err : "out of memory");
		return 1;
	}
	/* Newest first from the store; the report's A is the oldest. */
	for (i = 0; i < (o->argc - o->first) / 2; i++) {
		char *t = o->argv[o->first + i];

		o->argv[o->first + i] = o->argv[o->argc - 1 - i];
		o->argv[o->argc - 1 - i] = t;
	}
	fprintf(stderr, "benchboot report: %d run%s selected from the database\n",
		o->argc - o->first, o->argc - o->first == 1 ? "" : "s");
	return 0;
}

int webui_report_main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "db", required_argument, 0, 'D' },
		{ "db-password-file", required_argument, 0, 'P' },
		{ "dir", required_argument, 0, 'd' },
		{ "host", required_argument, 0, 'o' },
		{ "suite", required_argument, 0, 's' },
		{ "version", required_argument, 0, 'v' },
		{ "digest", required_argument, 0, 'g' },
		{ "server", required_argument, 0, 'e' },
		{ "from", required_argument, 0, 'F' },
		{ "to", required_argument, 0, 'T' },
		{ "limit", required_argument, 0, 'l' },
		{ "trend", required_argument, 0, 't' },
		{ "html", required_argument, 0, 'H' },
		{ "csv", required_argument, 0, 'C' },
		{ "force", no_argument, 0, 'f' },
		{ "quiet", no_argument, 0, 'q' },
		{ 0, 0, 0, 0 },
	};
	struct webui_ropts o = { .limit = 20, .first = INT_MAX };
	struct resultdb *st = NULL;
	int i, c, li, rc = 2;

	for (i = 1; i < argc && strcmp(argv[i], "--db") != 0 &&
		     strncmp(argv[i], "--db=", 5) != 0; i++)
		;
	if (i == argc)
		return report_main(argc, argv);
	/* Options, then at most --limit files. */
	o.argv = calloc((size_t)argc + 10001, sizeof(*o.argv));
	if (!o.argv)
		return 1;
	o.argv[o.argc++] = argv[0];
	optind = 1;
	while ((c = getopt_long(argc, argv, "fq", lo, &li)) != -1)
		if (c == '?' || webui_ropt(c, optarg, &o, lo, li) != 0)
			goto out;
	o.first = o.argc;
	if (optind != argc || !o.dir || !o.db) {
		util_err("report", EINVAL, "--db selects from the collector's database: give --dir DIR (its files) and no file names");
		goto out;
	}
	rc = webui_select(&o, &st);
	if (rc == 0 && o.trend)
		rc = webui_write_trend(st, &o);
	else if (rc == 0 && o.argc == o.first) {
		util_err("report", ENOENT, "no run matches the selection");
		rc = 1;
	}
	else if (rc == 0)
		rc = report_main(o.argc, o.argv);
out:
	for (i = o.first; i < o.argc; i++)
		free(o.argv[i]);
	free(o.argv);
	resultdb_free(st);
	return rc;
}
