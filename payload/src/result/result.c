/* result/result.c: merge and statistics of the clients' records (result.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/json_int.h"
#include "result/result.h"
#include "lib/repeat_stats.h"
#include "lib/util.h"

void result_merge_init(struct result_merge *m)
{
	memset(m, 0, sizeof(*m));
}

static struct result_acc *result_acc_get(struct result_merge *m,
					 const char *w)
{
	struct result_acc *a;
	int i;

	for (i = 0; i < m->n; i++)
		if (strcmp(m->acc[i].workload, w) == 0)
			return &m->acc[i];
	if (m->n == RESULT_MAX_WL)
		return NULL;
	a = &m->acc[m->n++];
	memset(a, 0, sizeof(*a));
	snprintf(a->workload, sizeof(a->workload), "%s", w);
	a->h = malloc(sizeof(*a->h));
	if (a->h)
		hist_init(a->h);
	a->obj = cJSON_CreateObject();
	cJSON_AddObjectToObject(a->obj, "counters");
	cJSON_AddObjectToObject(a->obj, "errors");
	cJSON_AddObjectToObject(a->obj, "rates");
	return a;
}

/* Adds f (divided by div) to dst[f->string] (created): exactly, as a
 * 64-bit integer, when both are integers and div is 1 (counters). */
static void result_add(cJSON *dst, const cJSON *f, double div)
{
	cJSON *d = cJSON_GetObjectItemCaseSensitive(dst, f->string);
	int64_t a = 0, b;

	if (div == 1 && json_int_get(f, &b) == 0 &&
	    (!d || json_int_get(d, &a) == 0) &&
	    !__builtin_add_overflow(a, b, &b)) {
		if (d)
			json_int_set(d, b);
		else
			json_int_add(dst, f->string, b);
	} else if (d) {
		cJSON_SetNumberValue(d, d->valuedouble + f->valuedouble / div);
	} else {
		cJSON_AddNumberToObject(dst, f->string, f->valuedouble / div);
	}
}

/* Adds the numbers of src's object into dst_parent's object name, each
 * divided by div. */
static void result_sum_obj(cJSON *dst_parent, const char *name,
			   const cJSON *src, double div)
{
	cJSON *dst = cJSON_GetObjectItemCaseSensitive(dst_parent, name);
	const cJSON *f;

	if (!cJSON_IsObject(src))
		return;
	if (!dst)
		dst = cJSON_AddObjectToObject(dst_parent, name);
	cJSON_ArrayForEach(f, src)
		if (cJSON_IsNumber(f) && f->string)
			result_add(dst, f, div);
}

int result_merge_record(struct result_merge *m, const cJSON *rec, char *err,
			size_t errlen)
{
	const cJSON *w = cJSON_GetObjectItemCaseSensitive(rec, "workload");
	const cJSON *sch = cJSON_GetObjectItemCaseSensitive(rec, "schema");
	const cJSON *el = cJSON_GetObjectItemCaseSensitive(rec, "elapsed_s");
	const cJSON *ctr = cJSON_GetObjectItemCaseSensitive(rec, "counters");
	const cJSON *lat = cJSON_GetObjectItemCaseSensitive(rec, "latency");
	const cJSON *lb;
	struct result_acc *a;
	char key[32];
	struct hist *h = NULL;
	int rc;

	if (!cJSON_IsString(sch) ||
	    strncmp(sch->valuestring, "benchboot.workload/1", 20) != 0)
		return util_fail(err, errlen, -EINVAL, "record: field \"schema\": want benchboot.workload/1");
	if (!cJSON_IsString(w))
		return util_fail(err, errlen, -EINVAL, "record: field \"workload\" missing");
	if (lat) {
		/* Checked before anything is added, so a bad record counts
		 * for nothing. */
		h = malloc(sizeof(*h));
		if (!h)
			return -ENOMEM;
		rc = hist_from_json(h, lat, err, errlen);
		if (rc != 0)
			goto out;
	}
	/* A labelled record (http --label) has its own accumulator. */
	lb = cJSON_GetObjectItemCaseSensitive(rec, "label");
	snprintf(key, sizeof(key), "%.15s%s%.15s", w->valuestring,
		 cJSON_IsString(lb) ? ":" : "",
		 cJSON_IsString(lb) ? lb->valuestring : "");
	a = result_acc_get(m, key);
	rc = !a ? util_fail(err, errlen, -ENOSPC, "more than %d workloads in one step", RESULT_MAX_WL) :
	     !a->h || !a->obj ? -ENOMEM : 0;
	if (rc != 0)
		goto out;
	if (h) {
		hist_merge(a->h, h);
		a->has_hist = 1;
	}
	result_sum_obj(a->obj, "counters", ctr, 1);
	result_sum_obj(a->obj, "errors",
		       cJSON_GetObjectItemCaseSensitive(rec, "errors"), 1);
	if (cJSON_IsNumber(el) && el->valuedouble > 0)
		result_sum_obj(a->obj, "rates", ctr, el->valuedouble);
	a->records++;
out:
	free(h);
	return rc;
}

void result_merge_hists(struct result_merge *dst,
			const struct result_merge *src)
{
	struct result_acc *t;
	int i;

	for (i = 0; i < src->n; i++) {
		/* Every workload gets its accumulator, histogram or not:
		 * result_step_stats() lists what dst has. */
		t = result_acc_get(dst, src->acc[i].workload);
		if (t && t->h && src->acc[i].has_hist) {
			hist_merge(t->h, src->acc[i].h);
			t->has_hist = 1;
		}
	}
}

int result_merge_load(struct result_merge *m, const cJSON *merged,
		      char *err, size_t errlen)
{
	const cJSON *w, *lat;
	struct result_acc *a;
	struct hist *h;
	int rc = 0;

	h = malloc(sizeof(*h));
	if (!h)
		return -ENOMEM;
	cJSON_ArrayForEach(w, merged) {
		if (!w->string)
			continue;
		lat = cJSON_GetObjectItemCaseSensitive(w, "latency");
		/* Checked first: a bad histogram loads nothing. */
		if (lat && (rc = hist_from_json(h, lat, err, errlen)) != 0)
			break;
		a = result_acc_get(m, w->string);
		rc = !a ? util_fail(err, errlen, -ENOSPC, "more than %d workloads in one step", RESULT_MAX_WL) :
		     !a->h || !a->obj ? -ENOMEM : 0;
		if (rc != 0)
			break;
		if (lat) {
			hist_merge(a->h, h);
			a->has_hist = 1;
		}
	}
	free(h);
	return rc;
}

cJSON *result_merge_json(struct result_merge *m)
{
	cJSON *mo = cJSON_CreateObject();
	int i;

	for (i = 0; mo && i < m->n; i++) {
		cJSON *w = m->acc[i].obj;

		if (!w)
			continue;
		m->acc[i].obj = NULL;
		cJSON_AddNumberToObject(w, "records", m->acc[i].records);
		if (m->acc[i].has_hist)
			cJSON_AddItemToObject(w, "latency",
					      hist_to_json(m->acc[i].h));
		cJSON_AddItemToObject(mo, m->acc[i].workload, w);
	}
	return mo;
}

/* Each workload's success counter: the one its throughput is. */
static const struct {
	const char *workload, *counter;
} result_succ[] = {
	{ "http", "requests" },
	{ "sql", "statements" },
	{ "smtp", "mails" },
};

const char *result_success_counter(const char *w)
{
	size_t i;

	size_t n = w ? strcspn(w, ":") : 0;

	for (i = 0; w && i < sizeof(result_succ) / sizeof(result_succ[0]);
	     i++)
		if (strncmp(result_succ[i].workload, w, n) == 0 &&
		    result_succ[i].workload[n] == 0)
			return result_succ[i].counter;
	return NULL;
}

double result_error_rate(const char *w, const cJSON *counters,
			 const cJSON *errors, double *succ, double *fail)
{
	const char *sc = result_success_counter(w);
	const cJSON *x;
	double s = 0, f = 0;

	if (!sc)
		return -1;
	x = cJSON_GetObjectItemCaseSensitive(counters, sc);
	if (cJSON_IsNumber(x) && x->valuedouble > 0)
		s = x->valuedouble;
	cJSON_ArrayForEach(x, errors)
		if (cJSON_IsNumber(x) && x->valuedouble > 0)
			f += x->valuedouble;
	if (succ)
		*succ = s;
	if (fail)
		*fail = f;
	return s + f > 0 ? f / (s + f) : 0;
}

int result_repeat_check(struct result_merge *m, cJSON *rep,
			double max_rate)
{
	char why[256];
	size_t wl = 0;
	double s, f, e;
	int i;

	why[0] = 0;
	for (i = 0; i < m->n; i++) {
		cJSON *o = m->acc[i].obj;

		e = result_error_rate(m->acc[i].workload,
			cJSON_GetObjectItemCaseSensitive(o, "counters"),
			cJSON_GetObjectItemCaseSensitive(o, "errors"), &s, &f);
		if (!o || e < 0)
			continue;
		cJSON_AddNumberToObject(o, "successes", s);
		cJSON_AddNumberToObject(o, "failures", f);
		cJSON_AddNumberToObject(o, "error_rate", e);
		/* Nothing succeeded: no throughput to average, whatever the
		 * threshold (a plain 0 once hid a sql-mix whose setup ate
		 * the window). */
		if (s == 0 && wl < sizeof(why) - 1) {
			wl += (size_t)snprintf(why + wl, sizeof(why) - wl, "%s%s: no successful operation (%.0f errors)",
					       wl ? "; " : "",
					       m->acc[i].workload, f);
			continue;
		}
		if (max_rate < 0 || e <= max_rate || wl >= sizeof(why) - 1)
			continue;
		wl += (size_t)snprintf(why + wl, sizeof(why) - wl, "%s%s: %.0f errors of %.0f attempts (%.2f %%), above %.2f %%",
				       wl ? "; " : "", m->acc[i].workload, f,
				       s + f, e * 100, max_rate * 100);
	}
	if (!why[0])
		return 1;
	cJSON_AddBoolToObject(rep, "invalid", 1);
	cJSON_AddStringToObject(rep, "invalid_reason", why);
	return 0;
}

void result_merge_free(struct result_merge *m)
{
	int i;

	for (i = 0; i < m->n; i++) {
		free(m->acc[i].h);
		cJSON_Delete(m->acc[i].obj);
	}
	m->n = 0;
}

/* Adds to dst, under key, the statistics of per_rep[*].WORKLOAD.OBJ.FIELD
 * (WORKLOAD.FIELD when obj is NULL; one value per complete repeat);
 * nothing when no repeat has it. */
static void result_stat(cJSON *dst, const char *key, const cJSON *per_rep,
			const char *workload, const char *obj,
			const char *field)
{
	double v[1000];
	const cJSON *pr;
	struct repeat_stats s;
	int n = 0;

	cJSON_ArrayForEach(pr, per_rep) {
		const cJSON *w = cJSON_GetObjectItemCaseSensitive(pr, workload);
		const cJSON *o = obj ? cJSON_GetObjectItemCaseSensitive(w, obj)
				     : w;
		const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, field);

		if (cJSON_IsNumber(x) && n < 1000)
			v[n++] = x->valuedouble;
	}
	if (repeat_stats_compute(v, n, &s) == 0)
		cJSON_AddItemToObject(dst, key, repeat_stats_json(&s));
}

void result_step_stats(cJSON *merged, cJSON *stats,
		       const struct result_merge *all, const cJSON *per_rep)
{
	int k;

	for (k = 0; k < all->n; k++) {
		const char *wl = all->acc[k].workload;
		cJSON *wo = cJSON_AddObjectToObject(merged, wl);
		cJSON *wst = cJSON_AddObjectToObject(stats, wl);
		const cJSON *first, *f;

		if (all->acc[k].has_hist)
			cJSON_AddItemToObject(wo, "latency",
					      hist_to_json(all->acc[k].h));
		/* Every rate key of the first complete repeat. */
		first = cJSON_GetObjectItemCaseSensitive(
			cJSON_GetObjectItemCaseSensitive(
				cJSON_GetArrayItem(per_rep, 0), wl), "rates");
		cJSON_ArrayForEach(f, first) {
			char key[80];

			snprintf(key, sizeof(key), "%s_per_s", f->string);
			result_stat(wst, key, per_rep, wl, "rates", f->string);
		}
		result_stat(wst, "p50_ns", per_rep, wl, "latency", "p50");
		result_stat(wst, "p99_ns", per_rep, wl, "latency", "p99");
		result_stat(wst, "stddev_ns", per_rep, wl, "latency", "stddev");
		result_stat(wst, "error_rate", per_rep, wl, NULL, "error_rate");
	}
}

void result_starts_note(struct result_starts *s, const cJSON *rec,
			int64_t off)
{
	const cJSON *st = cJSON_GetObjectItemCaseSensitive(rec, "start");
	const cJSON *rt = cJSON_GetObjectItemCaseSensitive(st, "realtime_ns");
	const cJSON *wn = cJSON_GetObjectItemCaseSensitive(rec, "workload");
	int64_t t;
	int k;

	/* Exactly: ns since 1970 exceed a double's 2^53 (json_int.h). */
	if (json_int_get(rt, &t) != 0 || !cJSON_IsString(wn))
		return;
	t -= off;
	for (k = 0; k < s->n; k++)
		if (strcmp(s->wl[k].w, wn->valuestring) == 0)
			break;
	if (k == RESULT_MAX_WL)
		return;
	if (k == s->n) {
		snprintf(s->wl[k].w, sizeof(s->wl[k].w), "%s",
			 wn->valuestring);
		s->wl[k].mn = s->wl[k].mx = t;
		s->wl[k].n = 0;
		s->n++;
	}
	s->wl[k].mn = t < s->wl[k].mn ? t : s->wl[k].mn;
	s->wl[k].mx = t > s->wl[k].mx ? t : s->wl[k].mx;
	s->wl[k].n++;
}

int64_t result_starts_skew(const struct result_starts *s)
{
	int64_t sk = -1;
	int k;

	for (k = 0; k < s->n; k++)
		if (s->wl[k].n >= 2 && s->wl[k].mx - s->wl[k].mn > sk)
			sk = s->wl[k].mx - s->wl[k].mn;
	return sk;
}

void result_skew_summary(cJSON *doc)
{
	double v[4096], rv[4096];
	const cJSON *st, *rp;
	int n = 0, rn = 0;
	struct repeat_stats s;
	cJSON *o = cJSON_AddObjectToObject(doc, "skew");

	cJSON_ArrayForEach(st, cJSON_GetObjectItemCaseSensitive(doc, "steps"))
		cJSON_ArrayForEach(rp, cJSON_GetObjectItemCaseSensitive(
					   st, "repeats")) {
			const cJSON *sk = cJSON_GetObjectItemCaseSensitive(
				rp, "skew_ns");
			const cJSON *l = cJSON_GetObjectItemCaseSensitive(
				sk, "launch");
			const cJSON *rr = cJSON_GetObjectItemCaseSensitive(
				sk, "record");

			if (cJSON_IsNumber(l) && n < 4096)
				v[n++] = l->valuedouble;
			if (cJSON_IsNumber(rr) && rn < 4096)
				rv[rn++] = rr->valuedouble;
		}
	if (repeat_stats_compute(v, n, &s) == 0)
		cJSON_AddItemToObject(o, "launch_ns", repeat_stats_json(&s));
	if (repeat_stats_compute(rv, rn, &s) == 0)
		cJSON_AddItemToObject(o, "record_ns", repeat_stats_json(&s));
}

/* Whether client id is one of ids[0..n). */
static int result_has_id(const char *const *ids, int n, const char *id)
{
	int i;

	for (i = 0; i < n; i++)
		if (strcmp(ids[i], id) == 0)
			return 1;
	return 0;
}

int result_resume_match(const cJSON *cp, const cJSON *suite,
			const char *const *ids, int n, char *why,
			size_t whylen)
{
	const cJSON *h, *role, *id;
	int seen = 0;

	if (!cJSON_Compare(cJSON_GetObjectItemCaseSensitive(cp, "suite"),
			   suite, 1)) {
		util_fail(why, whylen, 0, "the suite changed (name, version, file, time scale or variables)");
		return 0;
	}
	cJSON_ArrayForEach(h, cJSON_GetObjectItemCaseSensitive(
		cJSON_GetObjectItemCaseSensitive(cp, "environment"), "hosts")) {
		role = cJSON_GetObjectItemCaseSensitive(h, "role");
		id = cJSON_GetObjectItemCaseSensitive(h, "id");
		if (!cJSON_IsString(role) || strcmp(role->valuestring, "client"))
			continue;
		if (!cJSON_IsString(id) || !result_has_id(ids, n, id->valuestring)) {
			util_fail(why, whylen, 0, "client %.64s of the checkpoint is not here", cJSON_IsString(id) ? id->valuestring : "?");
			return 0;
		}
		seen++;
	}
	if (seen != n) {
		util_fail(why, whylen, 0, "%d client(s) now, %d in the checkpoint", n, seen);
		return 0;
	}
	return 1;
}

int result_resume_step(const cJSON *cp, const char *step, cJSON *reps,
		       struct result_merge *all, cJSON *per_rep,
		       int *ncomplete, cJSON *names)
{
	const cJSON *st, *ro, *nm, *mo;
	struct result_merge one;
	char name[240], err[256];
	cJSON *copy;
	int k = 0;

	cJSON_ArrayForEach(st, cJSON_GetObjectItemCaseSensitive(cp, "steps")) {
		nm = cJSON_GetObjectItemCaseSensitive(st, "name");
		if (cJSON_IsString(nm) && strcmp(nm->valuestring, step) == 0)
			break;
	}
	cJSON_ArrayForEach(ro, cJSON_GetObjectItemCaseSensitive(st, "repeats")) {
		const cJSON *n = cJSON_GetObjectItemCaseSensitive(ro, "repeat");

		mo = cJSON_GetObjectItemCaseSensitive(ro, "merged");
		/* Only repeats 1, 2, ... in order, each finished. */
		if (!cJSON_IsObject(mo) || !cJSON_IsNumber(n) ||
		    n->valuedouble != k + 1)
			break;
		copy = cJSON_Duplicate(ro, 1);
		if (!copy)
			break;
		cJSON_DeleteItemFromObject(copy, "resumed");
		cJSON_AddBoolToObject(copy, "resumed", 1);
		cJSON_AddItemToArray(reps, copy);
		k++;
		snprintf(name, sizeof(name), "%s/r%d", step, k);
		cJSON_AddItemToArray(names, cJSON_CreateString(name));
		if (!cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(ro, "complete")) ||
		    cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(ro, "invalid")))
			continue;
		result_merge_init(&one);
		if (result_merge_load(&one, mo, err, sizeof(err)) == 0) {
			result_merge_hists(all, &one);
			(*ncomplete)++;
			cJSON_AddItemToArray(per_rep, cJSON_Duplicate(mo, 1));
		}
		result_merge_free(&one);
	}
	return k;
}

enum result_missing result_missing_cause(int prepare_error, int lost,
					 int stopping)
{
	/* A client aborted in the prepare phase is also marked lost: the
	 * prepare's own error says more. */
	if (prepare_error)
		return RESULT_MISSING_UNPREPARED;
	if (lost)
		return RESULT_MISSING_LOST;
	return stopping ? RESULT_MISSING_STOPPED : RESULT_MISSING_LATE;
}

static const char *const result_missing_labels[RESULT_MISSING_N][2] = {
	{ "agent lost during the step", "lost" },
	{ "not prepared in time", "not prepared in time" },
	{ "no result within the step's time limit",
	  "over the step's time limit" },
	{ "no result: the controller was stopped",
	  "stopped with the controller" },
};

const char *result_missing_label(enum result_missing m)
{
	return result_missing_labels[m][0];
}

void result_incomplete_reason(char *buf, size_t len, const int *missing,
			      int failed)
{
	size_t off = 0;
	int i;

	buf[0] = 0;
	for (i = 0; i < RESULT_MISSING_N; i++) {
		if (missing[i] <= 0)
			continue;
		snprintf(buf + off, len - off, "%d client(s) %s, ", missing[i],
			 result_missing_labels[i][1]);
		off += strlen(buf + off);
	}
	snprintf(buf + off, len - off, "%d record(s) failed", failed);
}
