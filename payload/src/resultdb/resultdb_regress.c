/* resultdb/resultdb_regress.c: which runs are comparable (the keys
 * bb_runs keeps), and the check of a new run's figures against the
 * window of previous comparable runs: beyond noise, or not. */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "lib/util.h"
#include "result/result_doc.h"
#include "resultdb/resultdb_conn.h"
#include "resultdb/resultdb_regress.h"

/* --- comparability ---------------------------------------------------- */

static const char *resultdb_str(const cJSON *o, const char *k)
{
	const cJSON *j = cJSON_GetObjectItemCaseSensitive(o, k);

	return cJSON_IsString(j) ? j->valuestring : NULL;
}

static int resultdb_strcmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* hosts_class: FNV-1a over the sorted "role|arch|cpu|cpus" lines. */
static void resultdb_class(const cJSON *hosts, char *out, size_t olen)
{
	char *line[64];
	const cJSON *h;
	uint64_t x = 1469598103934665603ull;
	int n = 0, i;

	cJSON_ArrayForEach(h, hosts) {
		const char *role = resultdb_str(h, "role");
		const cJSON *cp = cJSON_GetObjectItemCaseSensitive(h, "cpus");

		if (!role || strcmp(role, "controller") == 0 || n == 64)
			continue;
		if (asprintf(&line[n], "%s|%s|%s|%d", role,
			     resultdb_str(h, "arch") ? resultdb_str(h, "arch") : "",
			     resultdb_str(h, "cpu") ? resultdb_str(h, "cpu") : "",
			     cJSON_IsNumber(cp) ? cp->valueint : 0) < 0)
			continue;
		n++;
	}
	qsort(line, (size_t)n, sizeof(line[0]), resultdb_strcmp);
	for (i = 0; i < n; i++) {
		const unsigned char *p = (const unsigned char *)line[i];

		for (; *p; p++)
			x = (x ^ *p) * 1099511628211ull;
		x = (x ^ '\n') * 1099511628211ull;
		free(line[i]);
	}
	snprintf(out, olen, "%s", "");
	if (n)
		snprintf(out, olen, "%016llx", (unsigned long long)x);
}

void resultdb_keys(const struct result_doc *r, char *server, size_t slen,
		   char *hosts_class, size_t hlen)
{
	const cJSON *env = cJSON_GetObjectItemCaseSensitive(r->doc,
							    "environment");
	const cJSON *hosts = cJSON_GetObjectItemCaseSensitive(env, "hosts");
	const cJSON *si = cJSON_GetObjectItemCaseSensitive(r->doc,
							   "server_identity");
	const cJSON *h;

	snprintf(server, slen, "%s", "");
	if (cJSON_IsObject(si)) {
		const cJSON *http = cJSON_GetObjectItemCaseSensitive(si,
								     "http");
		const cJSON *sql = cJSON_GetObjectItemCaseSensitive(si, "sql");
		const char *hs = resultdb_str(http, "server"),
			*sv = resultdb_str(sql, "version");

		snprintf(server, slen, "%s%s%s%s%s",
			 resultdb_str(si, "host") ? resultdb_str(si, "host") : "?",
			 hs ? " " : "", hs ? hs : "", sv ? " " : "",
			 sv ? sv : "");
	} else {
		cJSON_ArrayForEach(h, hosts) {
			const char *role = resultdb_str(h, "role");

			if (role && strncmp(role, "server", 6) == 0 &&
			    resultdb_str(h, "id")) {
				snprintf(server, slen, "%s",
					 resultdb_str(h, "id"));
				break;
			}
		}
	}
	resultdb_class(hosts, hosts_class, hlen);
}

/* --- regressions ------------------------------------------------------ */

int resultdb_judge(const struct result_doc_stat *prev, int n,
		   const struct result_doc_stat *now, double threshold_pct,
		   double *base, double *pct)
{
	double sum = 0;
	int i, m = 0, dir = 0, all = 1;

	for (i = 0; i < n; i++) {
		int side = now->mean > prev[i].mean ? 1 : -1;

		if (prev[i].n < 2)
			continue;
		sum += prev[i].mean;
		m++;
		if (result_doc_significant(&prev[i], now) != 1 ||
		    (dir && side != dir))
			all = 0;
		dir = side;
	}
	*base = m ? sum / m : 0;
	*pct = m && *base != 0 ? (now->mean - *base) / fabs(*base) * 100 : 0;
	if (!m || !all || now->n < 2 || fabs(*pct) <= threshold_pct)
		return 0;
	return dir;
}

/* One figure of one previous run (resultdb_prev_row). */
struct resultdb_prev {
	char step[97], wl[49], fig[9];	/* the columns' lengths */
	struct result_doc_stat s;
};

struct resultdb_prevs {
	struct resultdb_prev *p;
	int n, cap;
	struct resultdb_idlist runs;	/* the window's run ids */
};

static int resultdb_prev_row(void *arg, struct resultdb_col *c)
{
	struct resultdb_prevs *ps = arg;
	struct resultdb_prev *e;

	if (ps->n == ps->cap) {
		void *np = realloc(ps->p, (size_t)(ps->cap * 2 + 64) *
				   sizeof(*ps->p));

		if (!np)
			return -ENOMEM;
		ps->p = np;
		ps->cap = ps->cap * 2 + 64;
	}
	e = &ps->p[ps->n++];
	snprintf(e->step, sizeof(e->step), "%.96s", c[0].s);
	snprintf(e->wl, sizeof(e->wl), "%.48s", c[1].s);
	snprintf(e->fig, sizeof(e->fig), "%.8s", c[2].s);
	e->s = (struct result_doc_stat){ .n = (int)c[3].i, .mean = c[4].d,
				     .median = c[5].d, .lo = c[6].d,
				     .hi = c[7].d };
	return 0;
}

/* The figures (thr, p99) of the window runs before r comparable with
 * it into ps. */
static int resultdb_window(struct resultdb *st, const struct result_doc *r,
			   int window, struct resultdb_prevs *ps, char *err,
			   size_t errlen)
{
	char server[256], cls[32], dt[20];
	struct resultdb_col c[8] = { { .t = SV_STR }, { .t = SV_STR },
				  { .t = SV_STR }, { .t = SV_INT },
				  { .t = SV_DBL }, { .t = SV_DBL },
				  { .t = SV_DBL }, { .t = SV_DBL } };
	int i, rc;

	resultdb_keys(r, server, sizeof(server), cls, sizeof(cls));
	{
		struct resultdb_val v[] = {
			VS(r->suite, 64), VS(r->suite_version, 32),
			VS(server, 255), VS(cls, 16),
			VS(resultdb_datetime(r->created, dt), 19),
			VS(resultdb_datetime(r->created, dt), 19),
			VS(r->id, 128), VI(window),
		};

		rc = resultdb_run(st, "SELECT id FROM bb_runs WHERE suite = ?"
			       " AND suite_version = ? AND server = ?"
			       " AND hosts_class = ? AND error IS NULL"
			       " AND partial = 0 AND (created < ?"
			       " OR (created = ? AND id < ?))"
			       " ORDER BY created DESC, id DESC LIMIT ?",
			       v, 8, c, 1, resultdb_id_row, &ps->runs, err,
			       errlen);
	}
	for (i = 0; rc == 0 && i < ps->runs.n; i++) {
		struct resultdb_val v[] = { VS(ps->runs.ids[i], 128) };

		rc = resultdb_run(st, "SELECT s.name, f.workload, f.figure, f.n,"
			       " f.mean, f.median, f.ci_lo, f.ci_hi"
			       " FROM bb_figures f JOIN bb_steps s"
			       " ON s.run_id = f.run_id AND s.idx = f.step_idx"
			       " WHERE f.run_id = ?"
			       " AND f.figure IN ('thr', 'p99')", v, 1, c, 8,
			       resultdb_prev_row, ps, err, errlen);
	}
	return rc == -ENOMEM ? util_fail(err, errlen, rc, "out of memory") :
		rc;
}

/* Judges one figure of step s, workload w against the window; a change
 * is recorded in ch and bb_regressions. */
static int resultdb_judge_one(struct resultdb *st, const struct result_doc *r,
			      const struct result_doc_step *s,
			      const struct result_doc_wl *w, const char *fig,
			      const struct resultdb_prevs *ps, double thr,
			      struct resultdb_changes *ch, char *err,
			      size_t errlen)
{
	const struct result_doc_stat *now = fig[0] == 't' ? &w->thr : &w->p99;
	struct result_doc_stat prev[64];
	struct resultdb_change c = { .now = now->mean };
	int i, n = 0, dir;

	for (i = 0; i < ps->n && n < 64; i++)
		if (strcmp(ps->p[i].step, s->name) == 0 &&
		    strcmp(ps->p[i].wl, w->name) == 0 &&
		    strcmp(ps->p[i].fig, fig) == 0)
			prev[n++] = ps->p[i].s;
	dir = resultdb_judge(prev, n, now, thr, &c.base, &c.pct);
	if (dir == 0)
		return 0;
	/* Fewer per second, or a longer p99, is the worse way. */
	c.worse = fig[0] == 't' ? dir < 0 : dir > 0;
	c.nbase = n;
	snprintf(c.step, sizeof(c.step), "%s", s->name);
	snprintf(c.wl, sizeof(c.wl), "%s", w->name);
	snprintf(c.figure, sizeof(c.figure), "%s", fig);
	if (ch && ch->n < RESULTDB_MAX_CHANGES)
		ch->c[ch->n++] = c;
	else if (ch)
		ch->dropped++;
	{
		struct resultdb_val v[] = {
			VS(r->id, 128), VS(c.step, 96), VS(c.wl, 48),
			VS(c.figure, 8), VI(c.worse), VD(c.base), VD(c.now),
			VD(c.pct), VI(c.nbase),
		};

		return resultdb_exec(st, "INSERT INTO bb_regressions VALUES"
				  " (?, ?, ?, ?, ?, ?, ?, ?, ?)", v, 9, err,
				  errlen);
	}
}

/* Every step's thr and p99 of r against its window. */
int resultdb_regress(struct resultdb *st, const struct result_doc *r,
		     int window, double thr, struct resultdb_changes *ch,
		     char *err, size_t errlen)
{
	struct resultdb_prevs ps = { 0 };
	char dt[20];
	int i, k, rc;

	if (ch)
		snprintf(ch->run, sizeof(ch->run), "%s", r->id);
	if (window <= 0 || !resultdb_datetime(r->created, dt) ||
	    cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(r->doc, "partial")))
		return 0;
	rc = resultdb_window(st, r, window, &ps, err, errlen);
	for (i = 0; rc == 0 && ps.runs.n && i < r->nsteps; i++)
		for (k = 0; rc == 0 && k < r->steps[i].nwl; k++) {
			rc = resultdb_judge_one(st, r, &r->steps[i],
					     &r->steps[i].wl[k], "thr", &ps,
					     thr, ch, err, errlen);
			if (rc == 0)
				rc = resultdb_judge_one(st, r, &r->steps[i],
						     &r->steps[i].wl[k], "p99",
						     &ps, thr, ch, err,
						     errlen);
		}
	for (i = 0; i < ps.runs.n; i++)
		free(ps.runs.ids[i]);
	free(ps.runs.ids);
	free(ps.p);
	return rc;
}
