/* resultdb/resultdb_query.c: the listings the collector's pages and
 * `benchboot report --db` read: constant SQL with every filter a bound
 * parameter, rows handed to the caller's callback one at a time. */
#include <stdio.h>
#include <string.h>

#include "result/result_doc.h"
#include "resultdb/resultdb_conn.h"
#include "resultdb/resultdb_query.h"

/* --- listings ---------------------------------------------------------- */

/* The filter's SQL: constant text, two parameters per filter (the
 * first says whether it applies), so no value ever becomes SQL. */
#define RESULTDB_FILTER_SQL \
	" (? IS NULL OR EXISTS (SELECT 1 FROM bb_hosts h" \
	" WHERE h.run_id = r.id AND h.host_id = ?))" \
	" AND (? IS NULL OR r.suite = ?)" \
	" AND (? IS NULL OR r.suite_version = ?)" \
	" AND (? IS NULL OR EXISTS (SELECT 1 FROM bb_hosts h" \
	" WHERE h.run_id = r.id AND h.image_digest = ?))" \
	" AND (? IS NULL OR r.server = ?)" \
	" AND (? IS NULL OR r.created >= ?)" \
	" AND (? IS NULL OR r.created < ? + INTERVAL 1 DAY)"
#define RESULTDB_FILTER_N 14

/* f's 14 values into v. */
static void resultdb_filter_vals(const struct resultdb_filter *f,
				 struct resultdb_val *v)
{
	const char *s[] = { f->host, f->suite, f->version, f->digest,
			    f->server, f->from, f->to };
	static const size_t max[] = { 128, 64, 32, 80, 255, 10, 10 };
	int i;

	for (i = 0; i < 7; i++) {
		const char *x = s[i] && s[i][0] ? s[i] : NULL;

		v[2 * i] = (struct resultdb_val)VS(x, max[i]);
		v[2 * i + 1] = (struct resultdb_val)VS(x, max[i]);
	}
}

/* resultdb_run() after resultdb_connect(): what every listing does. */
static int resultdb_query(struct resultdb *st, const char *sql,
			  const struct resultdb_val *v, int n,
			  struct resultdb_col *c, int nc, resultdb_row_fn row,
			  void *arg, char *err, size_t errlen)
{
	int rc = resultdb_connect(st, err, errlen);

	return rc ? rc : resultdb_run(st, sql, v, n, c, nc, row, arg, err,
				   errlen);
}

struct resultdb_cb {
	void *fn;
	void *arg;
};

static int resultdb_runs_row(void *arg, struct resultdb_col *c)
{
	struct resultdb_cb *cb = arg;
	int (*fn)(void *, const struct resultdb_runrow *) = cb->fn;
	struct resultdb_runrow r = { .regressions = (int)c[8].i };

	snprintf(r.id, sizeof(r.id), "%.128s", c[0].s);
	snprintf(r.created, sizeof(r.created), "%.20s", c[1].s);
	snprintf(r.suite, sizeof(r.suite), "%.64s", c[2].s);
	snprintf(r.version, sizeof(r.version), "%.32s", c[3].s);
	snprintf(r.server, sizeof(r.server), "%s", c[4].s);
	snprintf(r.digest, sizeof(r.digest), "%.80s", c[5].s);
	snprintf(r.controller, sizeof(r.controller), "%.128s", c[6].s);
	snprintf(r.error, sizeof(r.error), "%s", c[7].s);
	return fn(cb->arg, &r);
}

int resultdb_runs(struct resultdb *st, const struct resultdb_filter *f,
		  int limit,
		  int (*fn)(void *arg, const struct resultdb_runrow *r),
		  void *arg, char *err, size_t errlen)
{
	struct resultdb_val v[RESULTDB_FILTER_N + 1];
	struct resultdb_col c[9];
	struct resultdb_cb cb = { (void *)fn, arg };
	int i;

	for (i = 0; i < 9; i++)
		c[i] = (struct resultdb_col){ .t = i == 8 ? SV_INT : SV_STR };
	resultdb_filter_vals(f, v);
	v[RESULTDB_FILTER_N] = (struct resultdb_val)VI(limit);
	return resultdb_query(st, "SELECT r.id, DATE_FORMAT(r.created,"
			 " '%Y-%m-%dT%H:%i:%sZ'), r.suite, r.suite_version,"
			 " r.server, r.image_digest, r.controller, r.error,"
			 " (SELECT COUNT(*) FROM bb_regressions g"
			 " WHERE g.run_id = r.id AND g.worse = 1)"
			 " FROM bb_runs r WHERE" RESULTDB_FILTER_SQL
			 " ORDER BY r.created DESC, r.id DESC LIMIT ?",
			 v, RESULTDB_FILTER_N + 1, c, 9, resultdb_runs_row, &cb,
			 err, errlen);
}

static int resultdb_keys_row(void *arg, struct resultdb_col *c)
{
	struct resultdb_cb *cb = arg;
	int (*fn)(void *, const char *, const char *) = cb->fn;

	return fn(cb->arg, c[0].s, c[1].s);
}

int resultdb_trend_keys(struct resultdb *st, const struct resultdb_filter *f,
			int (*fn)(void *arg, const char *step, const char *wl),
			void *arg, char *err, size_t errlen)
{
	struct resultdb_val v[RESULTDB_FILTER_N];
	struct resultdb_col c[3] = { { .t = SV_STR }, { .t = SV_STR },
				  { .t = SV_INT } };
	struct resultdb_cb cb = { (void *)fn, arg };

	resultdb_filter_vals(f, v);
	return resultdb_query(st, "SELECT s.name, w.workload, MIN(s.idx)"
			 " FROM bb_runs r JOIN bb_steps s ON s.run_id = r.id"
			 " JOIN bb_workloads w ON w.run_id = r.id"
			 " AND w.step_idx = s.idx WHERE" RESULTDB_FILTER_SQL
			 " GROUP BY s.name, w.workload"
			 " ORDER BY MIN(s.idx), s.name, w.workload LIMIT 200",
			 v, RESULTDB_FILTER_N, c, 3, resultdb_keys_row, &cb,
			 err, errlen);
}

static int resultdb_trend_row(void *arg, struct resultdb_col *c)
{
	struct resultdb_cb *cb = arg;
	int (*fn)(void *, const struct resultdb_trendrow *) = cb->fn;
	struct resultdb_trendrow r = {
		.thr = { .n = c[3].null ? 0 : (int)c[3].i, .mean = c[4].d,
			 .median = c[4].d, .lo = c[5].d, .hi = c[6].d },
		.p99 = { .n = c[7].null ? 0 : (int)c[7].i, .mean = c[8].d,
			 .median = c[8].d, .lo = c[9].d, .hi = c[10].d },
	};

	snprintf(r.id, sizeof(r.id), "%.128s", c[0].s);
	snprintf(r.created, sizeof(r.created), "%.20s", c[1].s);
	snprintf(r.digest, sizeof(r.digest), "%.80s", c[2].s);
	return fn(cb->arg, &r);
}

int resultdb_trend(struct resultdb *st, const struct resultdb_filter *f,
		   const char *step, const char *wl, int limit,
		   int (*fn)(void *arg, const struct resultdb_trendrow *r),
		   void *arg, char *err, size_t errlen)
{
	struct resultdb_val v[RESULTDB_FILTER_N + 4];
	struct resultdb_col c[11];
	struct resultdb_cb cb = { (void *)fn, arg };
	int i;

	for (i = 0; i < 11; i++)
		c[i] = (struct resultdb_col){ .t = i < 3 ? SV_STR :
					   i == 3 || i == 7 ? SV_INT : SV_DBL };
	v[0] = (struct resultdb_val)VS(wl, 48);
	v[1] = (struct resultdb_val)VS(wl, 48);
	v[2] = (struct resultdb_val)VS(step, 96);
	resultdb_filter_vals(f, v + 3);
	v[RESULTDB_FILTER_N + 3] = (struct resultdb_val)VI(limit);
	return resultdb_query(st, "SELECT r.id, DATE_FORMAT(r.created,"
			 " '%Y-%m-%dT%H:%i:%sZ'), r.image_digest,"
			 " t.n, t.mean, t.ci_lo, t.ci_hi,"
			 " p.n, p.mean, p.ci_lo, p.ci_hi"
			 " FROM bb_runs r JOIN bb_steps s ON s.run_id = r.id"
			 " LEFT JOIN bb_figures t ON t.run_id = r.id"
			 " AND t.step_idx = s.idx AND t.workload = ?"
			 " AND t.figure = 'thr'"
			 " LEFT JOIN bb_figures p ON p.run_id = r.id"
			 " AND p.step_idx = s.idx AND p.workload = ?"
			 " AND p.figure = 'p99'"
			 " WHERE s.name = ? AND" RESULTDB_FILTER_SQL
			 " ORDER BY r.created, r.id LIMIT ?",
			 v, RESULTDB_FILTER_N + 4, c, 11, resultdb_trend_row,
			 &cb, err, errlen);
}
