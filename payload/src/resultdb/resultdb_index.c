/* resultdb/resultdb_index.c: indexes one result document: its run, hosts,
 * steps, workloads, figures and repeats as rows, in one transaction that
 * replaces any earlier rows of its id, then its regression check. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "lib/hist.h"
#include "lib/util.h"
#include "result/result.h"
#include "result/result_doc.h"
#include "resultdb/resultdb_conn.h"
#include "resultdb/resultdb_index.h"
#include "resultdb/resultdb_regress.h"

/* --- indexing --------------------------------------------------------- */

static const char *resultdb_str(const cJSON *o, const char *k)
{
	const cJSON *j = cJSON_GetObjectItemCaseSensitive(o, k);

	return cJSON_IsString(j) ? j->valuestring : NULL;
}

static int resultdb_strcmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static double resultdb_num(const cJSON *o, const char *k, double dflt)
{
	const cJSON *j = cJSON_GetObjectItemCaseSensitive(o, k);

	return cJSON_IsNumber(j) ? j->valuedouble : dflt;
}

/* A number of the document as an integer column's value: NULL unless it
 * is finite and within +-max (a cast of anything else is undefined, and
 * the column could not hold it: fuzz_resultdb found cpus 1e300). */
static struct resultdb_val resultdb_vint(double x, double max)
{
	if (isfinite(x) && x >= -max && x <= max)
		return (struct resultdb_val)VI(x);
	return (struct resultdb_val)VN;
}

/* The image digest that stands for the run: its server's, else the
 * first host's that has one. */
static const char *resultdb_run_digest(const cJSON *hosts)
{
	const cJSON *h;
	const char *d = NULL;

	cJSON_ArrayForEach(h, hosts) {
		const char *role = resultdb_str(h, "role");

		if (!resultdb_str(h, "image_digest"))
			continue;
		if (role && strncmp(role, "server", 6) == 0)
			return resultdb_str(h, "image_digest");
		if (!d)
			d = resultdb_str(h, "image_digest");
	}
	return d;
}

/* The bb_runs row of r (error: why it could not be parsed, or NULL). */
static int resultdb_put_run(struct resultdb *st, const struct result_doc *r,
			    const char *id, const char *file, size_t bytes,
			    const char *error, char *err, size_t errlen)
{
	const cJSON *doc = r ? r->doc : NULL;
	const cJSON *lab = cJSON_GetObjectItemCaseSensitive(doc, "lab");
	const cJSON *env = cJSON_GetObjectItemCaseSensitive(doc,
							    "environment");
	const cJSON *keyed = cJSON_GetObjectItemCaseSensitive(lab, "keyed");
	char server[256] = "", cls[32] = "", dt[20], *ident;
	struct resultdb_val v[16];
	int rc;

	if (r)
		resultdb_keys(r, server, sizeof(server), cls, sizeof(cls));
	ident = cJSON_PrintUnformatted(cJSON_GetObjectItemCaseSensitive(
		doc, "server_identity"));
	v[0] = (struct resultdb_val)VS(id, 128);
	v[1] = (struct resultdb_val)VS(r ? resultdb_datetime(r->created, dt) :
				       NULL, 19);
	v[2] = (struct resultdb_val)VS(r ? r->suite : "", 64);
	v[3] = (struct resultdb_val)VS(r ? r->suite_version : "", 32);
	v[4] = (struct resultdb_val)VS(r ? r->controller : NULL, 128);
	v[5] = (struct resultdb_val)VS(r ? r->tool_version : NULL, 32);
	v[6] = (struct resultdb_val)VS(resultdb_str(lab, "name"), 64);
	v[7] = cJSON_IsBool(keyed) ? (struct resultdb_val)VI(
		cJSON_IsTrue(keyed)) : (struct resultdb_val)VN;
	v[8] = (struct resultdb_val)VS(server, 255);
	v[9] = (struct resultdb_val)VS(cls, 16);
	v[10] = (struct resultdb_val)VS(resultdb_run_digest(
		cJSON_GetObjectItemCaseSensitive(env, "hosts")), 80);
	v[11] = (struct resultdb_val)VI(cJSON_IsTrue(
		cJSON_GetObjectItemCaseSensitive(doc, "partial")));
	v[12] = (struct resultdb_val)VS(file, 255);
	v[13] = (struct resultdb_val)VI(bytes);
	v[14] = (struct resultdb_val)VS(error, 255);
	/* The whole object, or none: cut JSON is no JSON. */
	v[15] = (struct resultdb_val)VS(ident && strlen(ident) < 65535 ? ident :
				     NULL, 65535);
	rc = resultdb_exec(st, "INSERT INTO bb_runs (id, created, suite,"
			" suite_version, controller, tool_version, lab, keyed,"
			" server, hosts_class, image_digest, partial, file,"
			" bytes, error, server_identity, indexed) VALUES (?, ?,"
			" ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?,"
			" UTC_TIMESTAMP())", v, 16, err, errlen);
	free(ident);
	return rc;
}

/* One bb_hosts row per environment.hosts[] entry, the whole entry kept
 * as JSON in facts. */
static int resultdb_put_hosts(struct resultdb *st, const struct result_doc *r,
			      char *err, size_t errlen)
{
	const cJSON *env = cJSON_GetObjectItemCaseSensitive(r->doc,
							    "environment");
	const cJSON *h;
	int idx = 0, rc = 0;

	cJSON_ArrayForEach(h, cJSON_GetObjectItemCaseSensitive(env, "hosts")) {
		char *facts = cJSON_PrintUnformatted(h);
		double cpus = resultdb_num(h, "cpus", NAN),
			mem = resultdb_num(h, "mem_kb", NAN);
		struct resultdb_val v[] = {
			VS(r->id, 128), VI(idx), VS(resultdb_str(h, "id"), 128),
			VS(resultdb_str(h, "role"), 32),
			VS(resultdb_str(h, "arch"), 32),
			VS(resultdb_str(h, "cpu"), 128),
			resultdb_vint(cpus, INT_MAX),
			/* BIGINT: 2^62 is as near its end as a double goes
			 * safely. */
			resultdb_vint(mem, 4611686018427387904.0),
			VS(resultdb_str(h, "kernel"), 255),
			VS(resultdb_str(h, "image"), 64),
			VS(resultdb_str(h, "image_release"), 128),
			VS(resultdb_str(h, "image_digest"), 80),
			VS(resultdb_str(h, "address"), 64),
			/* A host longer than the column is not kept cut
			 * (cut JSON is no JSON): NULL, its columns stay. */
			VS(facts && strlen(facts) < 16000000 ? facts : NULL,
			   16000000),
		};

		rc = resultdb_exec(st, "INSERT INTO bb_hosts VALUES (?, ?, ?, ?,"
				" ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", v, 14, err,
				errlen);
		free(facts);
		if (rc != 0)
			return rc;
		idx++;
	}
	return 0;
}

#define VSTAT_OPT(c, x) \
	((c) ? (struct resultdb_val)VD(x) : (struct resultdb_val)VN)

/* The bb_steps row of step i. */
static int resultdb_put_step(struct resultdb *st, const struct result_doc *r,
			     int i, char *err, size_t errlen)
{
	const struct result_doc_step *s = &r->steps[i];
	int sm = s->sm_n > 0, pb = s->pb_seconds > 0;
	struct resultdb_val v[23] = {
		VS(r->id, 128), VI(i), VS(s->name, 96), VS(s->step, 64),
		VI(s->conc), VI(s->repeats), VI(s->complete), VI(s->invalid),
		VS(s->skipped, 255), VD(s->warmup_s), VD(s->duration_s),
		sm ? (struct resultdb_val)VI(s->sm_n) : (struct resultdb_val)VN,
	};
	int k;

	for (k = 0; k < RESULT_DOC_SM_N; k++)
		v[12 + k] = VSTAT_OPT(sm, s->sm[k]);
	v[20] = pb ? (struct resultdb_val)VI(s->pb_seconds) :
		(struct resultdb_val)VN;
	v[21] = VSTAT_OPT(pb, s->pb_lost_pct);
	v[22] = VSTAT_OPT(pb, s->pb_stddev_pct);
	return resultdb_exec(st, "INSERT INTO bb_steps VALUES (?, ?, ?, ?, ?, ?,"
			  " ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
			  v, 23, err, errlen);
}

/* The bb_workloads row and the bb_figures rows of one workload. */
static int resultdb_put_wl(struct resultdb *st, const struct result_doc *r,
			   int i, const struct result_doc_wl *w, char *err,
			   size_t errlen)
{
	static const char *const fig[] = { "thr", "p50", "p99" };
	const struct result_doc_stat *fs[] = { &w->thr, &w->p50, &w->p99 };
	double er = result_doc_wl_error_rate(w);
	struct resultdb_val v[] = {
		VS(r->id, 128), VI(i), VS(w->name, 48), VS(w->metric, 40),
		VD(w->errors), VSTAT_OPT(w->has_rate, w->succ),
		VSTAT_OPT(w->has_rate, w->fail), VSTAT_OPT(er >= 0, er),
		VSTAT_OPT(w->sd_ns >= 0, w->sd_ns),
	};
	int k, rc;

	rc = resultdb_exec(st, "INSERT INTO bb_workloads VALUES (?, ?, ?, ?, ?,"
			" ?, ?, ?, ?)", v, 9, err, errlen);
	for (k = 0; rc == 0 && k < 3; k++) {
		struct resultdb_val f[] = {
			VS(r->id, 128), VI(i), VS(w->name, 48), VS(fig[k], 8),
			VI(fs[k]->n), VD(fs[k]->mean), VD(fs[k]->median),
			VD(fs[k]->lo), VD(fs[k]->hi),
		};

		if (fs[k]->n > 0)
			rc = resultdb_exec(st, "INSERT INTO bb_figures VALUES"
					" (?, ?, ?, ?, ?, ?, ?, ?, ?)", f, 9,
					err, errlen);
	}
	return rc;
}

/* The bb_repeats row of repeat rp (number no) of step i, workload w
 * (a "merged" entry): its throughput (the workload's success counter
 * per second), p50, p99 (h: scratch) and failures. */
static int resultdb_put_rep(struct resultdb *st, const struct result_doc *r,
			    int i, int no, const cJSON *rp, const cJSON *w,
			    struct hist *h, char *err, size_t errlen)
{
	const struct result_doc_wl *rw = result_doc_find_wl(&r->steps[i],
							    w->string);
	const char *m = rw ? rw->metric : result_success_counter(w->string);
	const cJSON *lat = cJSON_GetObjectItemCaseSensitive(w, "latency");
	const cJSON *rates = cJSON_GetObjectItemCaseSensitive(w, "rates");
	int hv = lat && hist_from_json(h, lat, NULL, 0) == 0;
	struct resultdb_val v[] = {
		VS(r->id, 128), VI(i), VI(no), VS(w->string, 48),
		VI(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(rp,
								 "complete"))),
		VI(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(rp,
								 "invalid"))),
		VD(m ? resultdb_num(rates, m, NAN) : NAN),
		VSTAT_OPT(hv, hv ? hist_percentile(h, 50) : 0),
		VSTAT_OPT(hv, hv ? hist_percentile(h, 99) : 0),
		VD(resultdb_num(w, "failures", NAN)),
	};

	return resultdb_exec(st, "INSERT INTO bb_repeats VALUES"
			  " (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", v, 10, err,
			  errlen);
}

/* The bb_repeats rows of step i: one per repeat and workload. */
static int resultdb_put_repeats(struct resultdb *st, const struct result_doc *r,
				int i, struct hist *h, char *err, size_t errlen)
{
	const cJSON *so = cJSON_GetArrayItem(
		cJSON_GetObjectItemCaseSensitive(r->doc, "steps"), i);
	const cJSON *rp, *w;
	int j = 0, rc = 0;

	cJSON_ArrayForEach(rp, cJSON_GetObjectItemCaseSensitive(so,
								"repeats")) {
		double nr = resultdb_num(rp, "repeat", j + 1);
		/* Its number as given when an int can hold it (a key
		 * column: never NULL), else its place. */
		int no = nr >= INT_MIN && nr <= INT_MAX ? (int)nr : j + 1;

		j++;
		cJSON_ArrayForEach(w, cJSON_GetObjectItemCaseSensitive(
					   rp, "merged")) {
			/* Validated (result_doc.h); named entries only all
			 * the same, whatever a later change lets through. */
			if (!w->string)
				continue;
			rc = resultdb_put_rep(st, r, i, no, rp, w, h, err,
					   errlen);
			if (rc != 0)
				return rc;
		}
	}
	return 0;
}

/* Every row of a parsed result but its run's. */
static int resultdb_put_body(struct resultdb *st, const struct result_doc *r,
			     char *err, size_t errlen)
{
	struct hist *h = malloc(sizeof(*h));
	int i, k, rc;

	if (!h)
		return util_fail(err, errlen, -ENOMEM, "out of memory");
	rc = resultdb_put_hosts(st, r, err, errlen);
	for (i = 0; rc == 0 && i < r->nsteps; i++) {
		rc = resultdb_put_step(st, r, i, err, errlen);
		for (k = 0; rc == 0 && k < r->steps[i].nwl; k++)
			rc = resultdb_put_wl(st, r, i, &r->steps[i].wl[k], err,
					  errlen);
		if (rc == 0)
			rc = resultdb_put_repeats(st, r, i, h, err, errlen);
	}
	free(h);
	return rc;
}

/* --- the entry points ------------------------------------------------- */

/* One transaction: the run's old rows out, its new rows in. */
static int resultdb_txn(struct resultdb *st, const struct result_doc *r,
			const char *id, const char *file, size_t bytes,
			const char *why, char *err, size_t errlen)
{
	struct resultdb_val v[] = { VS(id, 128) };
	int rc;

	rc = resultdb_exec(st, "START TRANSACTION", NULL, 0, err, errlen);
	if (rc == 0)
		rc = resultdb_exec(st, "DELETE FROM bb_runs WHERE id = ?", v, 1,
				err, errlen);
	if (rc == 0)
		rc = resultdb_put_run(st, r, id, file, bytes, why, err, errlen);
	if (rc == 0 && r)
		rc = resultdb_put_body(st, r, err, errlen);
	if (rc == 0)
		rc = resultdb_exec(st, "COMMIT", NULL, 0, err, errlen);
	if (rc != 0)
		resultdb_rollback(st);
	return rc;
}

int resultdb_index(struct resultdb *st, const char *id, const char *text,
		size_t len, const char *file, int window, double threshold_pct,
		   struct resultdb_changes *ch, char *err, size_t errlen)
{
	struct result_doc r;
	char why[300];
	int rc;

	if (ch)
		ch->n = ch->dropped = 0, ch->run[0] = 0;
	rc = resultdb_connect(st, err, errlen);
	if (rc != 0)
		return rc;
	rc = result_doc_parse(text, len, file, &r, why, sizeof(why));
	if (rc == 0 && strcmp(r.id, id) != 0) {
		snprintf(why, sizeof(why), "%s: its \"id\" is not its name's",
			 file);
		result_doc_free(&r);
		rc = -EINVAL;
	}
	if (rc != 0) {
		rc = resultdb_txn(st, NULL, id, file, len, why, err, errlen);
		return rc ? rc : util_fail(err, errlen, -EINVAL, "%s", why);
	}
	rc = resultdb_txn(st, &r, id, file, len, NULL, err, errlen);
	if (rc == -EINVAL) {
		/* The server refused a row of it (strict mode: a value the
		 * schema cannot hold): recorded, so it is not retried. */
		snprintf(why, sizeof(why), "%s", err);
		rc = resultdb_txn(st, NULL, id, file, len, why, err, errlen);
		result_doc_free(&r);
		return rc ? rc : util_fail(err, errlen, -EINVAL, "%s", why);
	}
	if (rc == 0)
		rc = resultdb_regress(st, &r, window, threshold_pct, ch, err,
				   errlen);
	result_doc_free(&r);
	return rc;
}

int resultdb_ids(struct resultdb *st, char ***ids, int *n, char *err,
		 size_t errlen)
{
	struct resultdb_col c = { .t = SV_STR };
	struct resultdb_idlist l = { 0 };
	int rc, i;

	rc = resultdb_connect(st, err, errlen);
	if (rc == 0)
		rc = resultdb_run(st, "SELECT id FROM bb_runs", NULL, 0, &c, 1,
			       resultdb_id_row, &l, err, errlen);
	if (rc != 0) {
		for (i = 0; i < l.n; i++)
			free(l.ids[i]);
		free(l.ids);
		return rc == -ENOMEM ?
			util_fail(err, errlen, rc, "out of memory") : rc;
	}
	if (l.n)
		qsort(l.ids, (size_t)l.n, sizeof(*l.ids), resultdb_strcmp);
	*ids = l.ids;
	*n = l.n;
	return 0;
}

int resultdb_clear(struct resultdb *st, char *err, size_t errlen)
{
	int rc = resultdb_connect(st, err, errlen);

	/* The cascades take every other table's rows with their run's. */
	return rc ? rc : resultdb_exec(st, "DELETE FROM bb_runs", NULL, 0, err,
				    errlen);
}
