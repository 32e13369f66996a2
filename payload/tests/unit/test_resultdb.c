/* test_resultdb.c: the store's pure parts, table-driven: the --db URL
 * parser (what it accepts, each refusal) and resultdb_judge(), the
 * regression verdict (noise, a shift, a window that disagrees); and the
 * rows resultdb_index() writes, through a handle with no server
 * (resultdb_new_exec()). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "resultdb/resultdb_conn.h"
#include "resultdb/resultdb_index.h"
#include "resultdb/resultdb_regress.h"
#include "tap.h"

static const struct {
	const char *url;
	int rc;
	const char *user, *pass, *host, *db;
	unsigned port;
} urls[] = {
	{ "mysql://bench@127.0.0.1/lab", 0, "bench", "", "127.0.0.1", "lab",
	  3306 },
	{ "mariadb://u:p%40ss@db.example:3307/bb_1", 0, "u", "p@ss",
	  "db.example", "bb_1", 3307 },
	{ "mysql://u:a:b@[::1]:4000/x", 0, "u", "a:b", "::1", "x", 4000 },
	{ "mysql://u@p@host/x", 0, "u@p", "", "host", "x", 3306 },
	{ "mysql://u@[::1]/x", 0, "u", "", "::1", "x", 3306 },
	{ "postgres://u@h/x", -EINVAL, NULL, NULL, NULL, NULL, 0 },
	{ "mysql://h/x", -EINVAL, NULL, NULL, NULL, NULL, 0 },
	{ "mysql://@h/x", -EINVAL, NULL, NULL, NULL, NULL, 0 },
	{ "mysql://u@h", -EINVAL, NULL, NULL, NULL, NULL, 0 },
	{ "mysql://u@h/", -EINVAL, NULL, NULL, NULL, NULL, 0 },
	{ "mysql://u@/x", -EINVAL, NULL, NULL, NULL, NULL, 0 },
	{ "mysql://u@h:0/x", -EINVAL, NULL, NULL, NULL, NULL, 0 },
	{ "mysql://u@h:65536/x", -EINVAL, NULL, NULL, NULL, NULL, 0 },
	{ "mysql://u@h:-1/x", -EINVAL, NULL, NULL, NULL, NULL, 0 },
	{ "mysql://u@h:/x", -EINVAL, NULL, NULL, NULL, NULL, 0 },
	{ "mysql://u@[::1/x", -EINVAL, NULL, NULL, NULL, NULL, 0 },
	{ "mysql://u@[::1]x/x", -EINVAL, NULL, NULL, NULL, NULL, 0 },
	{ "mysql://u@::1/x", -EINVAL, NULL, NULL, NULL, NULL, 0 },
	{ "mysql://u@fe80::1:3306/x", -EINVAL, NULL, NULL, NULL, NULL, 0 },
	{ "mysql://u@[fe80::1]:3307/x", 0, "u", "", "fe80::1", "x", 3307 },
	{ "mysql://u@[]:3307/x", -EINVAL, NULL, NULL, NULL, NULL, 0 },
	{ "mysql://u@h/x;drop", -EINVAL, NULL, NULL, NULL, NULL, 0 },
	{ "mysql://u@h/a`b", -EINVAL, NULL, NULL, NULL, NULL, 0 },
	{ "mysql://u:%4@h/x", -EINVAL, NULL, NULL, NULL, NULL, 0 },
	{ "mysql://u:%00@h/x", -EINVAL, NULL, NULL, NULL, NULL, 0 },
	{ "mysql://u@h/"
	  "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
	  -EINVAL, NULL, NULL, NULL, NULL, 0 },
};

/* A figure: n repeats, mean m, 95 % CI m +- h. */
#define ST(n, m, h) { (n), (m), (m), (m) - (h), (m) + (h) }

static const struct {
	const char *name;
	struct result_doc_stat prev[4];
	int n;
	struct result_doc_stat now;
	double thr;
	int want;
} judge[] = {
	{ "no previous run: nothing to say", { { 0 } }, 0, ST(3, 100, 1), 5,
	  0 },
	{ "inside the noise", { ST(3, 100, 3), ST(3, 101, 3) }, 2,
	  ST(3, 99, 3), 5, 0 },
	{ "30 % lower, tight CIs: lower", { ST(3, 100, 3), ST(3, 101, 3),
	  ST(3, 99, 3) }, 3, ST(3, 70, 2), 5, -1 },
	{ "30 % higher: higher", { ST(3, 100, 3), ST(3, 99, 3) }, 2,
	  ST(3, 130, 2), 5, 1 },
	{ "significant but under the threshold", { ST(5, 100, 0.5) }, 1,
	  ST(5, 97, 0.5), 5, 0 },
	{ "one previous run overlaps: not beyond noise", { ST(3, 100, 3),
	  ST(3, 72, 3) }, 2, ST(3, 70, 2), 5, 0 },
	{ "previous runs on both sides: not one direction", { ST(3, 50, 1),
	  ST(3, 150, 1) }, 2, ST(3, 100, 1), 5, 0 },
	{ "one repeat: cannot be said", { ST(3, 100, 3) }, 1,
	  (struct result_doc_stat)ST(1, 50, 0), 5, 0 },
	{ "previous runs of one repeat are left out", { ST(1, 10, 0),
	  ST(3, 100, 3) }, 2, ST(3, 70, 2), 5, -1 },
	{ "CI wide as the change: noise", { ST(3, 100, 40) }, 1,
	  ST(3, 70, 20), 5, 0 },
};

/* What the index sent: statements by table, the bb_runs row's error and
 * file, and the longest string against its column. */
struct rec {
	int begin, commit, runs, steps, repeats, other;
	int over;		/* a string over its column */
	char error[300], file[300];
};

static int rec_exec(void *arg, const char *sql, const struct resultdb_val *v,
		    int n, struct resultdb_col *c, int nc, resultdb_row_fn row,
		    void *rarg, char *err, size_t errlen)
{
	struct rec *r = arg;
	int i;

	for (i = 0; i < n; i++)
		r->over |= v[i].t == SV_STR && strlen(v[i].s) > v[i].max;
	if (strcmp(sql, "START TRANSACTION") == 0)
		r->begin++;
	else if (strcmp(sql, "COMMIT") == 0)
		r->commit++;
	else if (strncmp(sql, "INSERT INTO bb_runs ", 20) == 0) {
		r->runs++;
		snprintf(r->error, sizeof(r->error), "%s",
			 v[14].t == SV_STR ? v[14].s : "(null)");
		snprintf(r->file, sizeof(r->file), "%s", v[12].s);
	} else if (strncmp(sql, "INSERT INTO bb_steps ", 21) == 0)
		r->steps++;
	else if (strncmp(sql, "INSERT INTO bb_repeats ", 23) == 0)
		r->repeats++;
	else
		r->other++;
	return 0;
}

/* A fixture indexed with no server: its rows; a refused document: its
 * run row alone, saying why; a file name over its column: cut. */
static void test_index(void)
{
	static const char id[] = "report-20261201T161220Z-ctl-fixture-c865";
	struct rec r = { 0 };
	struct resultdb *st = resultdb_new_exec(rec_exec, &r);
	FILE *f = fopen("payload/tests/fixtures/results/run-a.json", "r");
	char err[300], longname[400], *text = malloc(1 << 20);
	size_t len = f && text ? fread(text, 1, 1 << 20, f) : 0;
	int rc;

	if (f)
		fclose(f);
	if (!len || len == 1 << 20 || !st) {
		tap_ok(0, "index: the fixture and a handle");
		free(text);
		resultdb_free(st);
		return;
	}
	rc = resultdb_index(st, id, text, len, "run-a.json", 5, 5, NULL, err,
			    sizeof(err));
	TAP_EQ_INT(rc, 0, "index: fixture run-a, with no server");
	tap_ok(r.begin == 1 && r.commit == 1 && r.runs == 1 && r.steps == 8 &&
	       r.repeats > 0 && !r.over && strcmp(r.error, "(null)") == 0,
	       "  ... one transaction: its run, 8 steps, %d repeat rows, %d other statements",
	       r.repeats, r.other);
	memset(&r, 0, sizeof(r));
	rc = resultdb_index(st, "run-a", text, len, "run-a.json", 0, 5, NULL,
			    err, sizeof(err));
	/* Its "id" is not "run-a": one row saying so. */
	TAP_EQ_INT(rc, -EINVAL, "index: a document whose id is not its name's: refused");
	tap_ok(r.runs == 1 && r.steps == 0 && strstr(r.error, "\"id\""),
	       "  ... its run row alone, saying why (%s)", r.error);
	memset(&r, 0, sizeof(r));
	memset(longname, 'f', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = 0;
	rc = resultdb_index(st, "run-a", "{", 1, longname, 0, 5, NULL, err,
			    sizeof(err));
	TAP_EQ_INT(rc, -EINVAL, "index: not JSON: refused");
	tap_ok(r.runs == 1 && r.begin == 1 && r.commit == 1 && !r.over &&
	       strlen(r.file) == 255,
	       "  ... one transaction, its file name cut to the column (%zu)",
	       strlen(r.file));
	free(text);
	resultdb_free(st);
}

int main(void)
{
	char err[256];
	size_t i;

	for (i = 0; i < sizeof(urls) / sizeof(urls[0]); i++) {
		struct resultdb_url u;
		int rc = resultdb_parse_url(urls[i].url, &u, err, sizeof(err));
		char name[160];

		snprintf(name, sizeof(name), "url %s: %s", urls[i].url,
			 urls[i].rc ? "refused" : "parsed");
		TAP_EQ_INT(rc, urls[i].rc, name);
		if (rc != 0 || urls[i].rc != 0) {
			if (rc != 0 && !tap_ok(err[0] != 0,
					       "  ... with a reason"))
				printf("#   no message\n");
			continue;
		}
		snprintf(name, sizeof(name), "  %s:%s@%s:%u/%s", urls[i].user,
			 urls[i].pass, urls[i].host, urls[i].port, urls[i].db);
		tap_ok(strcmp(u.user, urls[i].user) == 0 &&
		       strcmp(u.pass, urls[i].pass) == 0 &&
		       strcmp(u.host, urls[i].host) == 0 &&
		       strcmp(u.db, urls[i].db) == 0 && u.port == urls[i].port,
		       "%s", name);
	}
	for (i = 0; i < sizeof(judge) / sizeof(judge[0]); i++) {
		double base, pct;
		int d = resultdb_judge(judge[i].prev, judge[i].n, &judge[i].now,
				    judge[i].thr, &base, &pct);

		TAP_EQ_INT(d, judge[i].want, judge[i].name);
	}
	{
		struct result_doc_stat p[] = { ST(3, 100, 1), ST(3, 200, 1) },
			now = ST(3, 75, 1);
		double base, pct;

		resultdb_judge(p, 2, &now, 5, &base, &pct);
		tap_ok(base == 150 && pct == -50, "the change is against the mean of the previous means (%g, %g %%)",
		       base, pct);
	}
	test_index();
	return tap_done();
}
