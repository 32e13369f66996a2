/* resultdb/resultdb_changes.c: the SQL of the change points: the series
 * an index holds, a series' points, the hosts of a run again, and the
 * points found, replaced per series in one transaction. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/util.h"
#include "resultdb/resultdb_changes.h"
#include "resultdb/resultdb_conn.h"

/* A series' key as the seven values of "suite = ? AND ... figure = ?". */
#define RESULTDB_CP_KEY_SQL(p) \
	" " p "suite = ? AND " p "suite_version = ? AND " p "server = ?" \
	" AND " p "hosts_class = ? AND " p "step = ? AND " p "workload = ?" \
	" AND " p "figure = ?"

static void resultdb_cp_keyvals(const struct resultdb_cp_key *k,
				struct resultdb_val *v)
{
	v[0] = (struct resultdb_val)VS(k->suite, 64);
	v[1] = (struct resultdb_val)VS(k->version, 32);
	v[2] = (struct resultdb_val)VS(k->server, 255);
	v[3] = (struct resultdb_val)VS(k->hosts_class, 16);
	v[4] = (struct resultdb_val)VS(k->step, 96);
	v[5] = (struct resultdb_val)VS(k->wl, 48);
	v[6] = (struct resultdb_val)VS(k->figure, 8);
}

static void resultdb_cp_keycols(struct resultdb_cp_key *k,
				const struct resultdb_col *c)
{
	snprintf(k->suite, sizeof(k->suite), "%.64s", c[0].s);
	snprintf(k->version, sizeof(k->version), "%.32s", c[1].s);
	snprintf(k->server, sizeof(k->server), "%.255s", c[2].s);
	snprintf(k->hosts_class, sizeof(k->hosts_class), "%.16s", c[3].s);
	snprintf(k->step, sizeof(k->step), "%.96s", c[4].s);
	snprintf(k->wl, sizeof(k->wl), "%.48s", c[5].s);
	snprintf(k->figure, sizeof(k->figure), "%.8s", c[6].s);
}

static int resultdb_cp_query(struct resultdb *st, const char *sql,
			     const struct resultdb_val *v, int n,
			     struct resultdb_col *c, int nc,
			     resultdb_row_fn row, void *arg, char *err,
			     size_t errlen)
{
	int rc = resultdb_connect(st, err, errlen);

	return rc ? rc : resultdb_run(st, sql, v, n, c, nc, row, arg, err,
				   errlen);
}

struct resultdb_cp_cb {
	void *fn;
	void *arg;
};

static int resultdb_cp_key_row(void *arg, struct resultdb_col *c)
{
	struct resultdb_cp_cb *cb = arg;
	int (*fn)(void *, const struct resultdb_cp_key *) = cb->fn;
	struct resultdb_cp_key k;

	resultdb_cp_keycols(&k, c);
	return fn(cb->arg, &k);
}

int resultdb_changes_keys(struct resultdb *st, const char *run_id,
			  const char *suite, const char *version,
			  int (*fn)(void *arg, const struct resultdb_cp_key *k),
			  void *arg, char *err, size_t errlen)
{
	const char *id = run_id && run_id[0] ? run_id : NULL;
	const char *su = suite && suite[0] ? suite : NULL;
	const char *ve = version && version[0] ? version : NULL;
	struct resultdb_val v[] = { VS(id, 128), VS(id, 128), VS(su, 64),
				    VS(su, 64), VS(ve, 32), VS(ve, 32) };
	struct resultdb_col c[7];
	struct resultdb_cp_cb cb = { (void *)fn, arg };
	int i;

	for (i = 0; i < 7; i++)
		c[i] = (struct resultdb_col){ .t = SV_STR };
	return resultdb_cp_query(st, "SELECT DISTINCT r.suite,"
			      " r.suite_version, r.server, r.hosts_class,"
			      " s.name, f.workload, f.figure"
			      " FROM bb_runs r JOIN bb_steps s"
			      " ON s.run_id = r.id JOIN bb_figures f"
			      " ON f.run_id = r.id AND f.step_idx = s.idx"
			      " WHERE r.error IS NULL AND r.partial = 0"
			      " AND r.created IS NOT NULL AND f.n > 0"
			      " AND f.figure IN ('thr', 'p99')"
			      " AND (? IS NULL OR r.id = ?)"
			      " AND (? IS NULL OR r.suite = ?)"
			      " AND (? IS NULL OR r.suite_version = ?)"
			      " ORDER BY 1, 2, 3, 4, 5, 6, 7", v, 6, c, 7,
			      resultdb_cp_key_row, &cb, err, errlen);
}

static int resultdb_cp_run_row(void *arg, struct resultdb_col *c)
{
	struct resultdb_cp_cb *cb = arg;
	int (*fn)(void *, const struct resultdb_cp_run *) = cb->fn;
	struct resultdb_cp_run r = { .y = c[3].d };

	snprintf(r.id, sizeof(r.id), "%.128s", c[0].s);
	snprintf(r.created, sizeof(r.created), "%.20s", c[1].s);
	snprintf(r.digest, sizeof(r.digest), "%.80s", c[2].s);
	return c[3].null ? 0 : fn(cb->arg, &r);
}

int resultdb_changes_history(struct resultdb *st,
			    const struct resultdb_cp_key *k, int limit,
			    int (*fn)(void *arg,
				      const struct resultdb_cp_run *r),
			    void *arg, char *err, size_t errlen)
{
	struct resultdb_val v[8];
	struct resultdb_col c[4] = { { .t = SV_STR }, { .t = SV_STR },
				     { .t = SV_STR }, { .t = SV_DBL } };
	struct resultdb_cp_cb cb = { (void *)fn, arg };

	resultdb_cp_keyvals(k, v);
	v[7] = (struct resultdb_val)VI(limit);
	/* The newest limit, turned oldest first. */
	return resultdb_cp_query(st, "SELECT * FROM (SELECT r.id,"
			      " DATE_FORMAT(r.created, '%Y-%m-%dT%H:%i:%sZ')"
			      " AS c, COALESCE(r.image_digest, '') AS d,"
			      " f.mean FROM bb_runs r JOIN bb_steps s"
			      " ON s.run_id = r.id JOIN bb_figures f"
			      " ON f.run_id = r.id AND f.step_idx = s.idx"
			      " WHERE r.error IS NULL AND r.partial = 0"
			      " AND r.created IS NOT NULL AND f.n > 0"
			      " AND r.suite = ? AND r.suite_version = ?"
			      " AND r.server = ? AND r.hosts_class = ?"
			      " AND s.name = ? AND f.workload = ?"
			      " AND f.figure = ?"
			      " ORDER BY r.created DESC, r.id DESC LIMIT ?) t"
			      " ORDER BY c, id", v, 8, c, 4,
			      resultdb_cp_run_row, &cb, err, errlen);
}

/* A JSON array built from facts, one row at a time. */
struct resultdb_cp_json {
	char *buf;
	size_t len;
	FILE *f;
	int n;
};

/* Facts longer than a column are read in slices of it. */
#define RESULTDB_SLICES 12

static int resultdb_cp_host_row(void *arg, struct resultdb_col *c)
{
	struct resultdb_cp_json *j = arg;
	int i;

	fputs(j->n++ ? "," : "", j->f);
	for (i = 0; i < RESULTDB_SLICES; i++)
		fwrite(c[i].s, 1, c[i].null ? 0 : c[i].len < 255 ? c[i].len :
		       255, j->f);
	return 0;
}

/* One column per slice of 255 bytes of expr: "SUBSTRING(CAST(expr AS
 * BINARY), 1, 255), ...": a byte slice may split a character, joined
 * again here. */
#define RESULTDB_SL(e, k) "SUBSTRING(CAST(" e " AS BINARY), " #k "*255+1, 255)"
#define RESULTDB_SLICED(e) RESULTDB_SL(e, 0) "," RESULTDB_SL(e, 1) "," \
	RESULTDB_SL(e, 2) "," RESULTDB_SL(e, 3) "," RESULTDB_SL(e, 4) "," \
	RESULTDB_SL(e, 5) "," RESULTDB_SL(e, 6) "," RESULTDB_SL(e, 7) "," \
	RESULTDB_SL(e, 8) "," RESULTDB_SL(e, 9) "," RESULTDB_SL(e, 10) "," \
	RESULTDB_SL(e, 11)

int resultdb_changes_hosts(struct resultdb *st, const char *id, char **json,
			   char *err, size_t errlen)
{
	struct resultdb_val v[] = { VS(id, 128) };
	struct resultdb_col c[RESULTDB_SLICES];
	struct resultdb_cp_json j = { 0 };
	int i, rc;

	*json = NULL;
	for (i = 0; i < RESULTDB_SLICES; i++)
		c[i] = (struct resultdb_col){ .t = SV_STR };
	j.f = open_memstream(&j.buf, &j.len);
	if (!j.f)
		return util_fail(err, errlen, -ENOMEM, "out of memory");
	fputc('[', j.f);
	/* A host's facts over 3060 bytes would be cut: then it is left
	 * out (the length test), never half read. */
	rc = resultdb_cp_query(st, "SELECT " RESULTDB_SLICED("facts")
			    " FROM bb_hosts WHERE run_id = ?"
			    " AND facts IS NOT NULL"
			    " AND LENGTH(facts) <= 3060 ORDER BY idx", v, 1, c,
			    RESULTDB_SLICES, resultdb_cp_host_row, &j, err,
			    errlen);
	fputc(']', j.f);
	if (fclose(j.f) != 0 && rc == 0)
		rc = util_fail(err, errlen, -ENOMEM, "out of memory");
	if (rc == 0)
		*json = j.buf;
	else
		free(j.buf);
	return rc;
}

static int resultdb_cp_str_row(void *arg, struct resultdb_col *c)
{
	snprintf(arg, 256, "%s", c[0].null ? "" : c[0].s);
	return 0;
}

int resultdb_changes_server(struct resultdb *st, const char *id, char *out,
			    char *err, size_t errlen)
{
	struct resultdb_val v[] = { VS(id, 128) };
	struct resultdb_col c = { .t = SV_STR };

	out[0] = 0;
	return resultdb_cp_query(st, "SELECT server FROM bb_runs WHERE id = ?",
			      v, 1, &c, 1, resultdb_cp_str_row, out, err,
			      errlen);
}

/* The stored points, read in two passes: the rows, then each one's
 * other columns and "what changed" in slices. */
struct resultdb_cp_points {
	struct resultdb_cpoint *p;
	int n;
};

static int resultdb_cp_point_row(void *arg, struct resultdb_col *c)
{
	struct resultdb_cp_points *ps = arg;
	struct resultdb_cpoint p = { .p = c[8].d, .before = c[9].d,
				     .after = c[10].d, .pct = c[11].d };

	resultdb_cp_keycols(&p.k, c);
	snprintf(p.run, sizeof(p.run), "%.128s", c[7].s);
	return util_array_push(&ps->p, &ps->n, &p, sizeof(p));
}

#define RESULTDB_CHANGED_SLICES 8

static int resultdb_cp_more_row(void *arg, struct resultdb_col *c)
{
	struct resultdb_cpoint *p = arg;
	size_t len = 0;
	int i;

	snprintf(p->prev, sizeof(p->prev), "%.128s", c[0].s);
	snprintf(p->created, sizeof(p->created), "%.20s", c[1].s);
	snprintf(p->found_with, sizeof(p->found_with), "%.128s", c[2].s);
	p->worse = (int)c[3].i;
	if (c[4].null)
		return 0;
	p->changed = malloc(RESULTDB_CHANGED_SLICES * 255 + 1);
	if (!p->changed)
		return -ENOMEM;
	for (i = 4; i < 4 + RESULTDB_CHANGED_SLICES; i++) {
		size_t l = c[i].null ? 0 : c[i].len < 255 ? c[i].len : 255;

		memcpy(p->changed + len, c[i].s, l);
		len += l;
	}
	p->changed[len] = 0;
	return 0;
}

int resultdb_changes_list(struct resultdb *st, const struct resultdb_cp_key *k,
			  const char *suite, const char *version,
			  int (*fn)(void *arg, const struct resultdb_cpoint *p),
			  void *arg, char *err, size_t errlen)
{
	struct resultdb_cp_points ps = { 0 };
	struct resultdb_val v[14];
	struct resultdb_col c[12];
	const char *su = suite && suite[0] ? suite : NULL;
	const char *ve = version && version[0] ? version : NULL;
	int i, rc;

	for (i = 0; i < 12; i++)
		c[i] = (struct resultdb_col){ .t = i < 8 ? SV_STR : SV_DBL };
	for (i = 0; i < 7; i++) {
		struct resultdb_val kv[7];

		if (k)
			resultdb_cp_keyvals(k, kv);
		v[2 * i] = k ? kv[i] : (struct resultdb_val)VN;
		v[2 * i + 1] = k ? kv[i] : (struct resultdb_val)VN;
	}
	if (!k) {
		v[0] = v[1] = (struct resultdb_val)VS(su, 64);
		v[2] = v[3] = (struct resultdb_val)VS(ve, 32);
	}
	rc = resultdb_cp_query(st, "SELECT c.suite, c.suite_version, c.server,"
			    " c.hosts_class, c.step, c.workload, c.figure,"
			    " c.run_id, c.p, c.before_mean, c.after_mean,"
			    " c.change_pct FROM bb_change_points c"
			    " JOIN bb_runs r ON r.id = c.run_id"
			    " WHERE (? IS NULL OR c.suite = ?)"
			    " AND (? IS NULL OR c.suite_version = ?)"
			    " AND (? IS NULL OR c.server = ?)"
			    " AND (? IS NULL OR c.hosts_class = ?)"
			    " AND (? IS NULL OR c.step = ?)"
			    " AND (? IS NULL OR c.workload = ?)"
			    " AND (? IS NULL OR c.figure = ?)"
			    " ORDER BY 1, 2, 3, 4, 5, 6, 7, r.created, r.id",
			    v, 14, c, 12, resultdb_cp_point_row, &ps, err,
			    errlen);
	for (i = 0; rc == 0 && i < ps.n; i++) {
		struct resultdb_val w[8];
		struct resultdb_col d[4 + RESULTDB_CHANGED_SLICES];
		int j;

		resultdb_cp_keyvals(&ps.p[i].k, w);
		w[7] = (struct resultdb_val)VS(ps.p[i].run, 128);
		for (j = 0; j < 4 + RESULTDB_CHANGED_SLICES; j++)
			d[j] = (struct resultdb_col){ .t = j == 3 ? SV_INT :
						   SV_STR };
		rc = resultdb_run(st, "SELECT COALESCE(c.prev_run, ''),"
			       " DATE_FORMAT(r.created,"
			       " '%Y-%m-%dT%H:%i:%sZ'), c.found_with, c.worse, "
			       RESULTDB_SL("c.changed", 0) ","
			       RESULTDB_SL("c.changed", 1) ","
			       RESULTDB_SL("c.changed", 2) ","
			       RESULTDB_SL("c.changed", 3) ","
			       RESULTDB_SL("c.changed", 4) ","
			       RESULTDB_SL("c.changed", 5) ","
			       RESULTDB_SL("c.changed", 6) ","
			       RESULTDB_SL("c.changed", 7)
			       " FROM bb_change_points c JOIN bb_runs r"
			       " ON r.id = c.run_id WHERE"
			       RESULTDB_CP_KEY_SQL("c.") " AND c.run_id = ?",
			       w, 8, d, 4 + RESULTDB_CHANGED_SLICES,
			       resultdb_cp_more_row, &ps.p[i], err, errlen);
		if (rc == 0)
			rc = fn(arg, &ps.p[i]);
	}
	for (i = 0; i < ps.n; i++)
		free(ps.p[i].changed);
	free(ps.p);
	return rc == -ENOMEM ? util_fail(err, errlen, rc, "out of memory") : rc;
}

/* The points of one series from run from on go, in a transaction the
 * caller opened. */
static int resultdb_cp_delete(struct resultdb *st,
			      const struct resultdb_cp_key *k,
			      const char *from, char *err, size_t errlen)
{
	struct resultdb_val v[9];

	v[0] = (struct resultdb_val)VS(from, 128);
	resultdb_cp_keyvals(k, v + 1);
	v[8] = (struct resultdb_val)VS(from, 128);
	return resultdb_exec(st, "DELETE c FROM bb_change_points c"
			  " JOIN bb_runs r ON r.id = c.run_id"
			  " JOIN bb_runs f ON f.id = ?"
			  " WHERE" RESULTDB_CP_KEY_SQL("c.")
			  " AND (r.created > f.created"
			  " OR (r.created = f.created AND r.id >= ?))", v, 9,
			  err, errlen);
}

int resultdb_changes_replace(struct resultdb *st,
			     const struct resultdb_cp_key *k,
			     const char *from, const struct resultdb_cpoint *p,
			     int n, char *err, size_t errlen)
{
	int i, rc;

	rc = resultdb_connect(st, err, errlen);
	if (rc == 0)
		rc = resultdb_exec(st, "START TRANSACTION", NULL, 0, err,
				   errlen);
	if (rc == 0)
		rc = resultdb_cp_delete(st, k, from, err, errlen);
	for (i = 0; rc == 0 && i < n; i++) {
		struct resultdb_val v[17];

		resultdb_cp_keyvals(k, v);
		v[7] = (struct resultdb_val)VS(p[i].run, 128);
		v[8] = (struct resultdb_val)VS(p[i].prev[0] ? p[i].prev :
					       NULL, 128);
		v[9] = (struct resultdb_val)VD(p[i].p);
		v[10] = (struct resultdb_val)VD(p[i].before);
		v[11] = (struct resultdb_val)VD(p[i].after);
		v[12] = (struct resultdb_val)VD(p[i].pct);
		v[13] = (struct resultdb_val)VI(p[i].worse);
		v[14] = (struct resultdb_val)VS(p[i].found_with, 128);
		v[15] = (struct resultdb_val)VS(p[i].changed,
					       RESULTDB_CHANGED_MAX);
		rc = resultdb_exec(st, "INSERT INTO bb_change_points (suite,"
				" suite_version, server, hosts_class, step,"
				" workload, figure, run_id, prev_run, p,"
				" before_mean, after_mean, change_pct, worse,"
				" found_with, changed, found) VALUES (?, ?, ?,"
				" ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?,"
				" UTC_TIMESTAMP())", v, 16, err, errlen);
	}
	if (rc == 0)
		rc = resultdb_exec(st, "COMMIT", NULL, 0, err, errlen);
	if (rc != 0)
		resultdb_rollback(st);
	return rc;
}
