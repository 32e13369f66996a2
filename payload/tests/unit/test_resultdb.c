/* test_resultdb.c: the store's pure parts, table-driven: the --db URL
 * parser (what it accepts, each refusal) and resultdb_judge(), the
 * regression verdict (noise, a shift, a window that disagrees). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "resultdb/resultdb_conn.h"
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
	return tap_done();
}
