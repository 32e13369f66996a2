/* report/report_db.c: reports from the collector's database: the runs a
 * filter selects become the file mode's command line, and a selection's
 * trend page is drawn from the index's figures with the report's charts
 * (report_html_trend), the same page the collector serves at /ui/trend. */
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/opt.h"
#include "lib/util.h"
#include "report/report_db.h"
#include "report/report_html.h"
#include "resultdb/resultdb_changes.h"
#include "resultdb/resultdb_conn.h"
#include "resultdb/resultdb_query.h"

#define REPORT_DB_MAX_TREND 200	/* points of a trend chart */

void report_db_form(FILE *f, const struct resultdb_filter *flt,
		    const char *action)
{
	static const struct {
		const char *key, *label;
		size_t off;
	} fields[] = {
		{ "host", "host", offsetof(struct resultdb_filter, host) },
		{ "suite", "suite", offsetof(struct resultdb_filter, suite) },
		{ "version", "version",
		  offsetof(struct resultdb_filter, version) },
		{ "digest", "image digest",
		  offsetof(struct resultdb_filter, digest) },
		{ "server", "server", offsetof(struct resultdb_filter, server) },
		{ "from", "from (YYYY-MM-DD)",
		  offsetof(struct resultdb_filter, from) },
		{ "to", "to", offsetof(struct resultdb_filter, to) },
	};
	size_t i;

	fprintf(f, "<form class=\"filter\" method=\"get\" action=\"/ui/%s\">",
		action);
	for (i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
		fprintf(f, "<label>%s <input name=\"%s\" size=\"14\" value=\"",
			fields[i].label, fields[i].key);
		/* NULL (no filter) prints as "". */
		report_html_esc(f, *(const char *const *)
				((const char *)flt + fields[i].off));
		fputs("\"></label> ", f);
	}
	fputs("<button>filter</button> <a href=\"/ui/\">all runs</a></form>\n",
	      f);
}

/* --- the trend page --------------------------------------------------- */

struct report_db_points {
	struct resultdb_trendrow *p;
	int n;
};

static int report_db_point(void *arg, const struct resultdb_trendrow *r)
{
	struct report_db_points *t = arg;

	return util_array_push(&t->p, &t->n, r, sizeof(*r));
}

/* The change points of the trend's suite version (bb_change_points),
 * what changed at each as one line ("; " between its items). */
struct report_db_cps {
	struct report_db_cp {
		struct resultdb_cpoint p;	/* changed: NULL */
		char *what;
	} *c;
	int n;
};

static int report_db_cp_row(void *arg, const struct resultdb_cpoint *p)
{
	struct report_db_cps *cs = arg;
	struct report_db_cp c = { .p = *p };
	char *w;

	c.p.changed = NULL;
	c.what = strdup(p->changed ? p->changed : "");
	if (!c.what)
		return -ENOMEM;
	for (w = c.what; (w = strchr(w, '\n')); )
		*w = ';';
	if (util_array_push(&cs->c, &cs->n, &c, sizeof(c)) == 0)
		return 0;
	free(c.what);
	return -ENOMEM;
}

/* The change point of (step, wl, figure) at run id, or NULL. */
static const struct report_db_cp *report_db_cp_at(const struct report_db_cps *cs,
						  const char *step,
						  const char *wl,
						  const char *fig,
						  const char *id)
{
	int i;

	for (i = 0; cs && i < cs->n; i++)
		if (strcmp(cs->c[i].p.run, id) == 0 &&
		    strcmp(cs->c[i].p.k.step, step) == 0 &&
		    strcmp(cs->c[i].p.k.wl, wl) == 0 &&
		    strcmp(cs->c[i].p.k.figure, fig) == 0)
			return &cs->c[i];
	return NULL;
}

/* The table under the charts: each point, and what changed at its run. */
static void report_db_cp_table(FILE *f, const struct report_db_cps *cs)
{
	int i;

	if (!cs->n) {
		fputs("<p class=\"meta\">No change point in these series "
		      "(bb_change_points).</p>\n", f);
		return;
	}
	fputs("<h2>Change points</h2>\n<p class=\"meta\">E-Divisive means "
	      "over each series (docs/collect.md); marked on the charts by a "
	      "dashed line before the run.</p>\n<table class=\"cps\"><tr>"
	      "<th>run</th><th>series</th><th>before</th><th>after</th>"
	      "<th>change</th><th>p</th><th>what changed at that run</th>"
	      "</tr>\n", f);
	for (i = 0; i < cs->n; i++) {
		const struct resultdb_cpoint *p = &cs->c[i].p;
		const char *w = cs->c[i].what;

		fprintf(f, "<tr class=\"cp %s\"><td>", p->worse ? "s2" : "");
		report_html_esc(f, p->run);
		fputs("<br>", f);
		report_html_esc(f, p->created);
		fputs("</td><td>", f);
		report_html_esc(f, p->k.step);
		fputs(" ", f);
		report_html_esc(f, p->k.wl);
		fputs(" ", f);
		report_html_esc(f, p->k.figure);
		fputs("<br>", f);
		report_html_esc(f, p->k.server);
		fprintf(f, "</td><td>%.6g</td><td>%.6g</td><td>%+.1f %%%s</td>"
			"<td>%.2g</td><td>", p->before, p->after, p->pct,
			p->worse ? " worse" : "", p->p);
		while (*w) {
			size_t l = strcspn(w, ";");
			char item[RESULTDB_CHANGED_MAX + 1];

			snprintf(item, sizeof(item), "%.*s", (int)l, w);
			report_html_esc(f, item);
			w += l + (w[l] == ';');
			fputs(*w ? "<br>" : "", f);
		}
		fputs("</td></tr>\n", f);
	}
	fputs("</table>\n", f);
}

/* One chart of figure thr (1) or p99 (0) of t's runs that have it, a
 * mark at each change point of cs. */
static int report_db_chart(FILE *f, const struct report_db_points *t,
			   int thr, const char *step, const char *wl,
			   const struct report_db_cps *cs)
{
	const struct report_db_cp *cp;
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
		const struct result_doc_stat *s = thr ? &t->p[i].thr :
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
		cp = report_db_cp_at(cs, step, wl, thr ? "thr" : "p99",
				     t->p[i].id);
		tr.pt[tr.n].mark = cp ? cp->what : NULL;
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
struct report_db_keys {
	char (*k)[2][97];
	int n;
};

static int report_db_key(void *arg, const char *step, const char *wl)
{
	struct report_db_keys *ks = arg;
	char k[2][97];

	snprintf(k[0], sizeof(k[0]), "%s", step);
	snprintf(k[1], sizeof(k[1]), "%s", wl);
	return util_array_push(&ks->k, &ks->n, k, sizeof(k));
}

int report_db_trend(FILE *f, struct resultdb *st,
		    const struct resultdb_filter *flt, char *err,
		    size_t errlen)
{
	struct report_db_keys ks = { 0 };
	struct report_db_cps cs = { 0 };
	int i, rc;

	rc = resultdb_trend_keys(st, flt, report_db_key, &ks, err, errlen);
	if (rc == 0)
		rc = resultdb_changes_list(st, NULL, flt->suite, flt->version,
					   report_db_cp_row, &cs, err, errlen);
	if (rc == 0) {
		report_html_head(f, "benchboot trend", 1);
		fputs("<h1>Trend: ", f);
		report_html_esc(f, flt->suite);
		fputs(" v", f);
		report_html_esc(f, flt->version);
		fputs("</h1>\n", f);
		report_db_form(f, flt, "trend");
		fputs("<p class=\"meta\">One point per run, oldest first: the "
		      "mean of its complete repeats, the bar its 95 % "
		      "confidence interval.</p>\n<div class=\"grid\">", f);
	}
	for (i = 0; rc == 0 && i < ks.n; i++) {
		struct report_db_points t = { 0 };

		rc = resultdb_trend(st, flt, ks.k[i][0], ks.k[i][1],
				    REPORT_DB_MAX_TREND, report_db_point, &t,
				    err, errlen);
		if (rc == 0)
			rc = report_db_chart(f, &t, 1, ks.k[i][0], ks.k[i][1],
					     &cs);
		if (rc == 0)
			rc = report_db_chart(f, &t, 0, ks.k[i][0], ks.k[i][1],
					     &cs);
		free(t.p);
	}
	if (rc == 0) {
		fputs("</div>\n", f);
		report_db_cp_table(f, &cs);
		fputs("</body></html>\n", f);
	}
	for (i = 0; i < cs.n; i++)
		free(cs.c[i].what);
	free(cs.c);
	free(ks.k);
	return rc;
}

/* --- benchboot report --db -------------------------------------------- */

/* What report_db_main reads besides the file mode's options. */
struct report_db_opts {
	const char *db, *pass_file, *dir, *trend;
	struct resultdb_filter flt;	/* into argv: NULL or "" is any */
	unsigned limit;
	struct report_db_sel *sel;	/* the file mode's command line */
};

int report_db_wanted(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++)
		if (strcmp(argv[i], "--db") == 0 ||
		    strncmp(argv[i], "--db=", 5) == 0)
			return 1;
	return 0;
}

/* The selection's files, oldest first, appended to the command line. */
static int report_db_sel_row(void *arg, const struct resultdb_runrow *r)
{
	struct report_db_opts *o = arg;
	char *path;

	if (asprintf(&path, "%s/%s.json", o->dir, r->id) < 0)
		return -ENOMEM;
	o->sel->argv[o->sel->argc++] = path;
	return 0;
}

/* A filter value: at most REPORT_DB_VAL_MAX bytes (dates: 10). */
static int report_db_val(void *dst, const char *value, char *err,
			 size_t errlen)
{
	const char **to = dst;

	if (strlen(value) > REPORT_DB_VAL_MAX)
		return -EINVAL;
	*to = value;
	return 0;
}

static int report_db_date(void *dst, const char *value, char *err,
			  size_t errlen)
{
	const char **to = dst;

	if (strlen(value) > 10)
		return -EINVAL;
	*to = value;
	return 0;
}

/* --html, --csv, --force, --quiet belong to the file mode: passed on in
 * its command line (dst: the options' sel), with their value. */
static int report_db_pass(struct report_db_sel *sel, const char *name,
			  const char *value)
{
	sel->argv[sel->argc++] = (char *)name;
	if (value)
		sel->argv[sel->argc++] = (char *)value;
	return 0;
}

static int report_db_html(void *dst, const char *v, char *e, size_t el)
{
	return report_db_pass(*(struct report_db_sel **)dst, "--html", v);
}

static int report_db_csv(void *dst, const char *v, char *e, size_t el)
{
	return report_db_pass(*(struct report_db_sel **)dst, "--csv", v);
}

static int report_db_force(void *dst, const char *v, char *e, size_t el)
{
	return report_db_pass(*(struct report_db_sel **)dst, "--force", v);
}

static int report_db_quiet(void *dst, const char *v, char *e, size_t el)
{
	return report_db_pass(*(struct report_db_sel **)dst, "--quiet", v);
}

#define RDB(m) OPT_AT(struct report_db_opts, m)
#define RDB_FLT(nm, m, f, ...) { .name = (nm), .kind = OPT_FN, \
	.off = RDB(flt.m), .fn = (f), __VA_ARGS__ }
static const struct opt report_db_opt_tab[] = {
	{ .name = "db", .kind = OPT_STR, .off = RDB(db),
	  .arg = "mysql://USER@HOST[:PORT]/DB",
	  .help = "the collector's database (required)" },
	{ .name = "db-password-file", .kind = OPT_STR, .off = RDB(pass_file),
	  .arg = "F", .help = "the database password, the first line of F" },
	{ .name = "dir", .kind = OPT_STR, .off = RDB(dir), .arg = "DIR",
	  .help = "the collector's store, where the documents are "
		  "(required)" },
	RDB_FLT("host", host, report_db_val, .arg = "H",
		.help = "only runs with this host"),
	RDB_FLT("suite", suite, report_db_val, .arg = "S",
		.help = "only this suite"),
	RDB_FLT("version", version, report_db_val, .arg = "V",
		.help = "only this suite version"),
	RDB_FLT("digest", digest, report_db_val, .arg = "D",
		.help = "only this image digest"),
	RDB_FLT("server", server, report_db_val, .arg = "X",
		.help = "only this server"),
	RDB_FLT("from", from, report_db_date, .arg = "YYYY-MM-DD",
		.help = "only runs from this day on"),
	RDB_FLT("to", to, report_db_date, .arg = "YYYY-MM-DD",
		.help = "only runs up to this day"),
	{ .name = "limit", .kind = OPT_UINT, .off = RDB(limit), .min = 1,
	  .max = 10000, .arg = "N",
	  .help = "the newest N runs that match, oldest first", .def = "20" },
	{ .name = "trend", .kind = OPT_STR, .off = RDB(trend),
	  .arg = "OUT.html", .help = "each step's throughput and p99 across "
	  "the selected runs" },
	{ .name = "html", .kind = OPT_FN, .off = RDB(sel),
	  .fn = report_db_html, .arg = "OUT",
	  .help = "the selected runs side by side, as report --html" },
	{ .name = "csv", .kind = OPT_FN, .off = RDB(sel),
	  .fn = report_db_csv, .arg = "OUT", .help = "as report --csv" },
	{ .name = "force", .key = 'f', .kind = OPT_FN0, .off = RDB(sel),
	  .fn = report_db_force, .help = "as report --force" },
	{ .name = "quiet", .key = 'q', .kind = OPT_FN0, .off = RDB(sel),
	  .fn = report_db_quiet, .help = "as report --quiet" },
};

/* The selection's trend page into o->trend. */
static int report_db_write_trend(struct resultdb *st,
				 struct report_db_opts *o)
{
	char err[300] = "", *body = NULL;
	size_t len = 0;
	FILE *f;
	int rc;

	if (!o->flt.suite || !o->flt.suite[0] || !o->flt.version ||
	    !o->flt.version[0]) {
		util_err("report", EINVAL, "--trend: give --suite and --version (a trend is of one suite)");
		return 2;
	}
	f = open_memstream(&body, &len);
	if (!f)
		rc = util_fail(err, sizeof(err), -ENOMEM, "out of memory");
	else
		rc = report_db_trend(f, st, &o->flt, err, sizeof(err));
	if (f && fclose(f) != 0 && rc == 0)
		rc = util_fail(err, sizeof(err), -ENOMEM, "out of memory");
	if (rc != 0) {
		free(body);
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
 * options in the command line, oldest first.  Returns 0 or an exit
 * status. */
static int report_db_select(struct report_db_opts *o, struct resultdb **st)
{
	struct report_db_sel *sel = o->sel;
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
	if (!*st || resultdb_runs(*st, &o->flt, (int)o->limit, report_db_sel_row,
				  o, err, sizeof(err)) != 0) {
		util_err("report", EIO, "%s", *st ? err : "out of memory");
		return 1;
	}
	/* Newest first from the store; the report's A is the oldest. */
	for (i = 0; i < (sel->argc - sel->first) / 2; i++) {
		char *t = sel->argv[sel->first + i];

		sel->argv[sel->first + i] = sel->argv[sel->argc - 1 - i];
		sel->argv[sel->argc - 1 - i] = t;
	}
	fprintf(stderr, "benchboot report: %d run%s selected from the database\n",
		sel->argc - sel->first, sel->argc - sel->first == 1 ? "" : "s");
	return 0;
}

int report_db_main(int argc, char **argv, struct report_db_sel *sel)
{
	static const struct optset set = {
		"report", report_db_opt_tab,
		sizeof(report_db_opt_tab) / sizeof(report_db_opt_tab[0]),
		"'%s' in '%s': too long or out of range",
		"--db URL --dir DIR [options]", NULL,
	};
	struct report_db_opts o = { .limit = 20, .sel = sel };
	struct resultdb *st = NULL;
	int argi, rc = 2;

	*sel = (struct report_db_sel){ .first = INT_MAX };
	/* Options, then at most --limit files. */
	sel->argv = calloc((size_t)argc + 10001, sizeof(*sel->argv));
	if (!sel->argv)
		return 1;
	sel->argv[sel->argc++] = argv[0];
	rc = opt_main(&set, &o, argc, argv, &argi);
	if (rc == 1) {
		report_db_free(sel);	/* --help: nothing to render */
		return 0;
	}
	if (rc != 0) {
		rc = 2;
		goto out;
	}
	rc = 2;
	sel->first = sel->argc;
	if (argi != argc || !o.dir || !o.db) {
		util_err("report", EINVAL, "--db selects from the collector's database: give --dir DIR (its files) and no file names");
		goto out;
	}
	rc = report_db_select(&o, &st);
	if (rc == 0 && o.trend) {
		rc = report_db_write_trend(st, &o);
		report_db_free(sel);
	} else if (rc == 0 && sel->argc == sel->first) {
		util_err("report", ENOENT, "no run matches the selection");
		rc = 1;
	}
out:
	resultdb_free(st);
	return rc;
}

void report_db_free(struct report_db_sel *sel)
{
	int i;

	for (i = sel->first; i < sel->argc; i++)
		free(sel->argv[i]);
	free(sel->argv);
	*sel = (struct report_db_sel){ .first = INT_MAX };
}
