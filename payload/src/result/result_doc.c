/* result/result_doc.c: reads benchboot.result/1 documents: validates one
 * (every field the renderers and the index use, named by its path in a
 * refusal) into the model result_doc.h describes, and looks figures up. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/hist.h"
#include "lib/json_int.h"
#include "lib/repeat_stats.h"
#include "lib/util.h"
#include "result/result.h"
#include "result/result_doc.h"

/* Room for a field path: paths are cut at 200 characters, keys at 60. */
#define VP 300

const char *const result_doc_sm_fields[RESULT_DOC_SM_N] = {
	"running", "cpu_idle_pct", "context_switches_ps", "free_pages",
	"interrupts_ps", "blocks_out_ps", "load1", "swap_used_kb",
};
const char *const result_doc_sm_heads[RESULT_DOC_SM_N] = {
	"runnable", "idle %", "ctx sw/s", "free pages", "intr/s",
	"blk out/s", "load", "swap KiB",
};

/* --- validation ------------------------------------------------------ */

/* Sticky validation state: the first error wins, later checks are no-ops
 * so callers test v->bad once per batch. */
struct vctx {
	const char *file;
	char *err;
	size_t errlen;
	int bad;
	struct hist *h;		/* scratch for histogram checks, 26 KB */
};

static void __attribute__((format(printf, 3, 4)))
verr(struct vctx *v, const char *path, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	if (v->bad)
		return;
	v->bad = 1;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	snprintf(v->err, v->errlen, "%s: field \"%s\": %s", v->file, path,
		 msg);
}

static const char *vtype_name(char t)
{
	switch (t) {
	case 's': return "a string";
	case 'n': return "a number";
	case 'o': return "an object";
	case 'a': return "an array";
	case 'b': return "true or false";
	}
	return "?";
}

static int vtype_ok(const cJSON *j, char t)
{
	switch (t) {
	case 's': return cJSON_IsString(j);
	case 'n': return cJSON_IsNumber(j) && isfinite(j->valuedouble);
	case 'o': return cJSON_IsObject(j);
	case 'a': return cJSON_IsArray(j);
	case 'b': return cJSON_IsBool(j);
	}
	return 0;
}

/* o's field key, which must be of type t ('s', 'n', 'o', 'a', 'b');
 * path is o's own path.  NULL when absent (an error unless opt) or
 * mistyped (an error). */
static const cJSON *vget(struct vctx *v, const cJSON *o, const char *path,
			 const char *key, char t, int opt)
{
	const cJSON *j = cJSON_GetObjectItemCaseSensitive(o, key);
	char p[VP];

	if (v->bad)
		return NULL;
	snprintf(p, sizeof(p), "%.200s%s%.60s", path, *path ? "." : "", key);
	if (!j) {
		if (!opt)
			verr(v, p, "missing (expected %s)", vtype_name(t));
		return NULL;
	}
	if (!vtype_ok(j, t)) {
		verr(v, p, "expected %s", vtype_name(t));
		return NULL;
	}
	return j;
}

/* Checks o.schema is "KIND/MAJOR" with the major this reader knows. */
static void vschema(struct vctx *v, const cJSON *o, const char *path,
		    const char *kind, int major)
{
	const cJSON *s = vget(v, o, path, "schema", 's', 0);
	size_t kl = strlen(kind);
	char p[VP], *end;
	long m;

	if (!s)
		return;
	snprintf(p, sizeof(p), "%.200s%sschema", path, *path ? "." : "");
	if (strncmp(s->valuestring, kind, kl) != 0 ||
	    s->valuestring[kl] != '/') {
		verr(v, p, "expected %s/%d, got '%.60s'", kind, major,
		     s->valuestring);
		return;
	}
	m = strtol(s->valuestring + kl + 1, &end, 10);
	if (end == s->valuestring + kl + 1 || (*end && *end != '.'))
		verr(v, p, "expected %s/%d, got '%.60s'", kind, major,
		     s->valuestring);
	else if (m > major)
		verr(v, p,
		     "%.60s is newer than this benchboot reads (%s/%d): update benchboot to read it",
		     s->valuestring, kind, major);
	else if (m != major)
		verr(v, p,
		     "%.60s is not supported (this benchboot reads %s/%d)",
		     s->valuestring, kind, major);
}

/* A statistics object ({"n","median","mean","ci95":[lo,hi],...}). */
static void vstat(struct vctx *v, const cJSON *o, const char *path,
		  struct result_doc_stat *out)
{
	const cJSON *n, *med, *mean, *ci;
	char p[VP];

	memset(out, 0, sizeof(*out));
	if (!vtype_ok(o, 'o')) {
		verr(v, path, "expected an object");
		return;
	}
	n = vget(v, o, path, "n", 'n', 0);
	med = vget(v, o, path, "median", 'n', 0);
	mean = vget(v, o, path, "mean", 'n', 0);
	ci = vget(v, o, path, "ci95", 'a', 0);
	if (v->bad)
		return;
	snprintf(p, sizeof(p), "%.200s.ci95", path);
	if (cJSON_GetArraySize(ci) != 2 ||
	    !vtype_ok(cJSON_GetArrayItem(ci, 0), 'n') ||
	    !vtype_ok(cJSON_GetArrayItem(ci, 1), 'n')) {
		verr(v, p, "expected an array of two numbers [low, high]");
		return;
	}
	if (n->valuedouble < 1 || n->valuedouble > 1e6) {
		snprintf(p, sizeof(p), "%.200s.n", path);
		verr(v, p, "expected 1 .. 1000000, got %g", n->valuedouble);
		return;
	}
	out->n = (int)n->valuedouble;
	out->median = med->valuedouble;
	out->mean = mean->valuedouble;
	out->lo = cJSON_GetArrayItem(ci, 0)->valuedouble;
	out->hi = cJSON_GetArrayItem(ci, 1)->valuedouble;
}

static void vhist(struct vctx *v, const cJSON *lat, const char *path)
{
	char msg[200];

	if (v->bad || !lat)
		return;
	if (hist_from_json(v->h, lat, msg, sizeof(msg)) != 0)
		verr(v, path, "%s", msg);
}

/* The throughput counter of a workload's stats: the workload's own unit
 * when there is one, else the first rate that is not bytes or CPU. */
static const char *result_doc_metric(const cJSON *wst)
{
	static const char *const pref[] = {
		"requests_per_s", "statements_per_s", "mails_per_s", NULL,
	};
	const cJSON *f;
	int i;

	for (i = 0; pref[i]; i++)
		if (cJSON_GetObjectItemCaseSensitive(wst, pref[i]))
			return pref[i];
	cJSON_ArrayForEach(f, wst) {
		size_t l = strlen(f->string);

		if (l > 6 && strcmp(f->string + l - 6, "_per_s") == 0 &&
		    strncmp(f->string, "bytes", 5) != 0 &&
		    strncmp(f->string, "cpu_", 4) != 0)
			return f->string;
	}
	return NULL;
}

/* Sampler and probe series of one repeat, added to the step's sums.
 * Records are deduplicated across repeats by time (windows may touch). */
struct series_acc {
	double w, sm[RESULT_DOC_SM_N], last_sm_t;
	double ideal, done, sq;
	int seconds, nsm;
	double last_pb_t;
};

static void vseries(struct vctx *v, const cJSON *ser, const char *path,
		    struct series_acc *a)
{
	const cJSON *arr, *rec;
	char p[VP];
	int i, k;

	if (!ser)
		return;
	arr = vget(v, ser, path, "sample", 'a', 1);
	i = 0;
	cJSON_ArrayForEach(rec, arr) {
		const cJSON *t, *rt, *iv;
		double vals[RESULT_DOC_SM_N];

		snprintf(p, sizeof(p), "%.200s.sample[%d]", path, i++);
		vschema(v, rec, p, "benchboot.sample", 1);
		t = vget(v, rec, p, "t", 'o', 0);
		iv = vget(v, rec, p, "interval_s", 'n', 0);
		for (k = 0; k < RESULT_DOC_SM_N; k++) {
			const cJSON *f = vget(v, rec, p,
					      result_doc_sm_fields[k], 'n', 0);

			vals[k] = f ? f->valuedouble : 0;
		}
		if (v->bad)
			return;
		snprintf(p + strlen(p), sizeof(p) - strlen(p), ".t");
		rt = vget(v, t, p, "realtime_ns", 'n', 0);
		if (v->bad)
			return;
		if (rt->valuedouble <= a->last_sm_t || iv->valuedouble <= 0)
			continue;
		a->last_sm_t = rt->valuedouble;
		for (k = 0; k < RESULT_DOC_SM_N; k++)
			a->sm[k] += vals[k] * iv->valuedouble;
		a->w += iv->valuedouble;
		a->nsm++;
	}
	arr = vget(v, ser, path, "probe", 'a', 1);
	i = 0;
	cJSON_ArrayForEach(rec, arr) {
		const cJSON *t, *rt, *id, *dn;

		snprintf(p, sizeof(p), "%.200s.probe[%d]", path, i++);
		vschema(v, rec, p, "benchboot.probe", 1);
		t = vget(v, rec, p, "t", 'o', 0);
		id = vget(v, rec, p, "ideal", 'n', 0);
		dn = vget(v, rec, p, "done", 'n', 0);
		if (v->bad)
			return;
		if (id->valuedouble <= 0) {
			snprintf(p + strlen(p), sizeof(p) - strlen(p),
				 ".ideal");
			verr(v, p, "expected a positive number");
			return;
		}
		snprintf(p + strlen(p), sizeof(p) - strlen(p), ".t");
		rt = vget(v, t, p, "realtime_ns", 'n', 0);
		if (v->bad)
			return;
		if (rt->valuedouble <= a->last_pb_t)
			continue;
		a->last_pb_t = rt->valuedouble;
		a->ideal += id->valuedouble;
		a->done += dn->valuedouble;
		a->sq += pow((dn->valuedouble - id->valuedouble) /
			     id->valuedouble, 2);
		a->seconds++;
	}
}

/* sql ops: every complete repeat's per-operation seconds. */
struct ops_acc {
	int ntot;
	double tot[64];		/* each record's counters.total_s */
	int nops;
	const char *name[RESULT_DOC_MAX_OPS];
	int n[RESULT_DOC_MAX_OPS];
	double v[RESULT_DOC_MAX_OPS][64];
};

static void vops(struct vctx *v, const cJSON *rec, const char *path,
		 struct ops_acc *o)
{
	const cJSON *cn, *ops, *op, *tot;
	char p[VP];
	int i;

	cn = vget(v, rec, path, "counters", 'o', 1);
	snprintf(p, sizeof(p), "%.200s.counters", path);
	ops = cn ? vget(v, cn, p, "ops", 'o', 1) : NULL;
	if (!ops)
		return;
	tot = vget(v, cn, p, "total_s", 'n', 1);
	if (tot && o->ntot < 64)
		o->tot[o->ntot++] = tot->valuedouble;
	snprintf(p, sizeof(p), "%.200s.counters.ops", path);
	cJSON_ArrayForEach(op, ops) {
		const cJSON *s;
		char q[VP];

		snprintf(q, sizeof(q), "%.200s.%.60s", p, op->string);
		s = vget(v, op, q, "seconds", 'n', 0);
		if (v->bad)
			return;
		for (i = 0; i < o->nops; i++)
			if (strcmp(o->name[i], op->string) == 0)
				break;
		if (i == o->nops) {
			if (o->nops == RESULT_DOC_MAX_OPS)
				continue;
			o->name[o->nops++] = op->string;
		}
		if (o->n[i] < 64)
			o->v[i][o->n[i]++] = s->valuedouble;
	}
}

/* The index of workload name in s, added (no statistics: every repeat
 * was invalid) when the step's stats do not have it; -1 when s is
 * full. */
static int result_doc_step_wl(struct result_doc_step *s, const char *name)
{
	const char *m;
	int i;

	for (i = 0; i < s->nwl; i++)
		if (strcmp(s->wl[i].name, name) == 0)
			return i;
	if (s->nwl == RESULT_DOC_MAX_WL)
		return -1;
	memset(&s->wl[i], 0, sizeof(s->wl[i]));
	snprintf(s->wl[i].name, sizeof(s->wl[i].name), "%s", name);
	m = result_success_counter(name);
	snprintf(s->wl[i].metric, sizeof(s->wl[i].metric), "%s",
		 m ? m : "");
	s->wl[i].sd_ns = -1;
	return s->nwl++;
}

static void vrepeat(struct vctx *v, const cJSON *rp, const char *path,
		    struct result_doc_step *s, struct series_acc *sa,
		    struct ops_acc *oa)
{
	const cJSON *cl, *c, *recs, *r, *mo, *w, *cmp, *inv;
	char p[VP];
	int i, j, complete;

	cmp = vget(v, rp, path, "complete", 'b', 1);
	complete = cmp && cJSON_IsTrue(cmp);
	if (cJSON_GetObjectItemCaseSensitive(rp, "skipped"))
		return;
	vget(v, rp, path, "start_ns", 'n', 0);
	cl = vget(v, rp, path, "clients", 'a', 0);
	snprintf(p, sizeof(p), "%.200s.series", path);
	vseries(v, vget(v, rp, path, "series", 'o', 1), p, sa);
	i = 0;
	cJSON_ArrayForEach(c, cl) {
		char cp[VP];

		snprintf(cp, sizeof(cp), "%.200s.clients[%d]", path, i++);
		recs = vget(v, c, cp, "records", 'a', 1);
		j = 0;
		cJSON_ArrayForEach(r, recs) {
			const cJSON *rec;
			char rp2[VP];

			snprintf(rp2, sizeof(rp2), "%.200s.records[%d]", cp,
				 j++);
			rec = vget(v, r, rp2, "record", 'o', 1);
			if (!rec)
				continue;
			snprintf(rp2 + strlen(rp2), sizeof(rp2) - strlen(rp2),
				 ".record");
			vschema(v, rec, rp2, "benchboot.workload", 1);
			if (complete)
				vops(v, rec, rp2, oa);
		}
	}
	inv = vget(v, rp, path, "invalid", 'b', 1);
	if (inv && cJSON_IsTrue(inv)) {
		const cJSON *why = vget(v, rp, path, "invalid_reason", 's', 1);

		if (s->invalid++ == 0 && why)
			s->invalid_reason = why->valuestring;
	}
	/* Every repeat's merged records are an object of workloads, also
	 * in an incomplete repeat, which the index reads too. */
	mo = vget(v, rp, path, "merged", 'o', 1);
	cJSON_ArrayForEach(w, mo) {
		char wp[VP];

		snprintf(wp, sizeof(wp), "%.200s.merged", path);
		if (!cJSON_IsObject(w))
			verr(v, wp, "'%.40s' is not an object", w->string);
	}
	if (!complete)
		return;
	/* Error counts and rates of the complete repeats, per workload. */
	cJSON_ArrayForEach(w, mo) {
		const cJSON *er = cJSON_GetObjectItemCaseSensitive(w,
								   "errors");
		const cJSON *e;
		double sc, fl;

		i = result_doc_step_wl(s, w->string);
		if (i < 0)
			continue;
		cJSON_ArrayForEach(e, er)
			if (cJSON_IsNumber(e))
				s->wl[i].errors += e->valuedouble;
		if (result_error_rate(w->string,
				      cJSON_GetObjectItemCaseSensitive(
					      w, "counters"), er, &sc, &fl) < 0)
			continue;
		s->wl[i].has_rate = 1;
		s->wl[i].succ += sc;
		s->wl[i].fail += fl;
	}
}

double result_doc_wl_error_rate(const struct result_doc_wl *w)
{
	if (!w->has_rate)
		return -1;
	return w->succ + w->fail > 0 ? w->fail / (w->succ + w->fail) : 0;
}

const char *result_doc_step_flag(const struct result_doc_step *s)
{
	int i;

	if (s->invalid)
		return "INVALID";
	for (i = 0; i < s->nwl; i++)
		if (s->wl[i].errors > 0)
			return "errors";
	return "";
}

/* One workload's figures in a step's "stats" (q is its path).  Returns
 * -1 when validation is to stop. */
static int vstep_wl(struct vctx *v, const cJSON *w, const char *q,
		    struct result_doc_wl *wl)
{
	const cJSON *f;
	const char *m;

	snprintf(wl->name, sizeof(wl->name), "%s", w->string);
	/* Every figure is checked, not only the ones shown. */
	cJSON_ArrayForEach(f, w) {
		struct result_doc_stat tmp;
		char fp[VP];

		snprintf(fp, sizeof(fp), "%.200s.%.60s", q, f->string);
		vstat(v, f, fp, &tmp);
		if (v->bad)
			return -1;
		if (strcmp(f->string, "p50_ns") == 0)
			wl->p50 = tmp;
		else if (strcmp(f->string, "p99_ns") == 0)
			wl->p99 = tmp;
	}
	m = result_doc_metric(w);
	if (m) {
		size_t l = strlen(m) - 6;

		snprintf(wl->metric, sizeof(wl->metric), "%.*s", (int)l, m);
		vstat(v, cJSON_GetObjectItemCaseSensitive(w, m), q, &wl->thr);
	}
	return 0;
}

/* A step's "stats" and "merged" objects.  Returns -1 when validation is
 * to stop. */
static int vstep_stats(struct vctx *v, const cJSON *stats,
		       const cJSON *merged, const char *path,
		       struct result_doc_step *s)
{
	const cJSON *w;
	char p[256], q[VP];
	int i;

	snprintf(p, sizeof(p), "%.200s.stats", path);
	cJSON_ArrayForEach(w, stats) {
		if (s->nwl == RESULT_DOC_MAX_WL)
			break;
		snprintf(q, sizeof(q), "%.200s.%.60s", p, w->string);
		if (!vtype_ok(w, 'o')) {
			verr(v, q, "expected an object");
			return -1;
		}
		if (vstep_wl(v, w, q, &s->wl[s->nwl++]) != 0)
			return -1;
	}
	for (i = 0; i < s->nwl; i++)
		s->wl[i].sd_ns = -1;
	snprintf(p, sizeof(p), "%.200s.merged", path);
	cJSON_ArrayForEach(w, merged) {
		const cJSON *lat = cJSON_GetObjectItemCaseSensitive(w,
								    "latency");

		snprintf(q, sizeof(q), "%.200s.%.60s.latency", p, w->string);
		vhist(v, lat, q);
		if (v->bad || !lat)
			continue;
		for (i = 0; i < s->nwl; i++)
			if (strcmp(s->wl[i].name, w->string) == 0)
				s->wl[i].sd_ns = hist_stddev(v->h);
	}
	return 0;
}

/* out: the statistics (repeat_stats.h) of v[0..n); left empty (n 0) when
 * there are none. */
static void result_doc_stat_of(struct result_doc_stat *out, double *v, int n)
{
	struct repeat_stats rs;

	if (repeat_stats_compute(v, n, &rs) != 0)
		return;
	out->n = rs.n;
	out->median = rs.median;
	out->mean = rs.mean;
	out->lo = rs.ci95_lo;
	out->hi = rs.ci95_hi;
}

/* A step's repeats, and what the step shows from them: the samplers'
 * means, the probe's loss and the per-operation statistics. */
static void vstep_repeats(struct vctx *v, const cJSON *reps,
			  const char *path, struct result_doc_step *s)
{
	const cJSON *rp;
	struct series_acc sa;
	struct ops_acc *oa;
	char p[256];
	int i, k;

	memset(&sa, 0, sizeof(sa));
	oa = calloc(1, sizeof(*oa));
	if (!oa) {
		verr(v, path, "out of memory");
		return;
	}
	i = 0;
	cJSON_ArrayForEach(rp, reps) {
		snprintf(p, sizeof(p), "%.200s.repeats[%d]", path, i++);
		if (!vtype_ok(rp, 'o')) {
			verr(v, p, "expected an object");
			break;
		}
		vrepeat(v, rp, p, s, &sa, oa);
	}
	s->sm_n = sa.nsm;
	for (k = 0; k < RESULT_DOC_SM_N; k++)
		s->sm[k] = sa.w > 0 ? sa.sm[k] / sa.w : 0;
	s->pb_seconds = sa.seconds;
	if (sa.seconds > 0) {
		s->pb_lost_pct = (sa.ideal - sa.done) / sa.ideal * 100;
		s->pb_stddev_pct = sqrt(sa.sq / sa.seconds) * 100;
	}
	s->nops = oa->nops;
	result_doc_stat_of(&s->ops_total, oa->tot, oa->ntot);
	for (i = 0; i < oa->nops; i++) {
		struct repeat_stats rs;

		s->op_name[i] = oa->name[i];
		if (repeat_stats_compute(oa->v[i], oa->n[i], &rs) == 0) {
			s->op_s[i].n = rs.n;
			s->op_s[i].median = rs.median;
			s->op_s[i].mean = rs.mean;
			s->op_s[i].lo = rs.ci95_lo;
			s->op_s[i].hi = rs.ci95_hi;
		}
	}
	free(oa);
}

static void vstep(struct vctx *v, const cJSON *so, int idx,
		  struct result_doc_step *s)
{
	const cJSON *nm, *st, *cc, *sk, *reps, *cr, *stats, *merged, *f;
	char path[64], p[256];

	snprintf(path, sizeof(path), "steps[%d]", idx);
	memset(s, 0, sizeof(*s));
	nm = vget(v, so, path, "name", 's', 0);
	st = vget(v, so, path, "step", 's', 0);
	cc = vget(v, so, path, "concurrency", 'n', 1);
	sk = vget(v, so, path, "skipped", 's', 1);
	reps = vget(v, so, path, "repeats", 'a', 0);
	cr = vget(v, so, path, "complete_repeats", 'n', sk != NULL);
	stats = vget(v, so, path, "stats", 'o', sk != NULL);
	merged = vget(v, so, path, "merged", 'o', 1);
	f = vget(v, so, path, "warmup_s", 'n', 1);
	s->warmup_s = f ? f->valuedouble : 0;
	f = vget(v, so, path, "duration_s", 'n', 1);
	s->duration_s = f ? f->valuedouble : 0;
	if (cc && (cc->valuedouble < 1 || cc->valuedouble > 1e7)) {
		snprintf(p, sizeof(p), "%s.concurrency", path);
		verr(v, p, "expected 1 .. 10000000, got %g", cc->valuedouble);
	}
	if (cr && (cr->valuedouble < 0 || cr->valuedouble > 1e6)) {
		snprintf(p, sizeof(p), "%s.complete_repeats", path);
		verr(v, p, "expected 0 .. 1000000, got %g", cr->valuedouble);
	}
	if (v->bad)
		return;
	s->name = nm->valuestring;
	s->step = st->valuestring;
	s->conc = cc ? (int)cc->valuedouble : 0;
	s->skipped = sk ? sk->valuestring : NULL;
	s->repeats = cJSON_GetArraySize(reps);
	s->complete = cr ? (int)cr->valuedouble : 0;
	if (vstep_stats(v, stats, merged, path, s) != 0)
		return;
	vstep_repeats(v, reps, path, s);
}

/* Line and column of byte off in text, for a parse error. */
static void result_doc_linecol(const char *text, size_t off, int *line,
			       int *col)
{
	size_t i;

	*line = 1;
	*col = 1;
	for (i = 0; i < off; i++) {
		if (text[i] == '\n') {
			(*line)++;
			*col = 1;
		} else {
			(*col)++;
		}
	}
}

/* Whether text ends inside a string, object or array: a document cut
 * short (cJSON's error position is where the unfinished value began). */
static int result_doc_unclosed(const char *text, size_t len)
{
	int depth = 0, str = 0, esc = 0;
	size_t i;

	for (i = 0; i < len; i++) {
		char c = text[i];

		if (str) {
			if (esc)
				esc = 0;
			else if (c == '\\')
				esc = 1;
			else if (c == '"')
				str = 0;
		} else if (c == '"') {
			str = 1;
		} else if (c == '{' || c == '[') {
			depth++;
		} else if (c == '}' || c == ']') {
			depth--;
		}
	}
	return str || depth > 0 || len == 0;
}

/* Says where text (len bytes, which cJSON could not parse; end is where
 * it stopped) goes wrong.  Returns -EINVAL. */
static int result_doc_json_error(const char *text, size_t len, const char *end,
				 const char *name, char *err, size_t errlen)
{
	size_t off = end ? (size_t)(end - text) : 0;
	int line, col;

	/* cJSON points at the first byte it could not use. */
	while (off < len && (text[off] == ' ' || text[off] == '\n' ||
			     text[off] == '\t' || text[off] == '\r'))
		off++;
	result_doc_linecol(text, off, &line, &col);
	if (off >= len || result_doc_unclosed(text, len)) {
		result_doc_linecol(text, len, &line, &col);
		return util_fail(err, errlen, -EINVAL,
				 "%s: not a whole JSON document: it ends early at byte %zu, line %d, inside an unclosed value (truncated?)",
				 name, len, line);
	}
	return util_fail(err, errlen, -EINVAL,
			 "%s: not valid JSON at line %d column %d (byte %zu)",
			 name, line, col, off);
}

/* A host's system table (docs/result-schema.md, "system"): every part
 * optional, every field of its fixed type when present. */
static const struct vsys_field {
	const char *part, *key;
	char t;
} vsys_fields[] = {
	{ "firmware", "sys_vendor", 's' }, { "firmware", "product_name", 's' },
	{ "firmware", "product_version", 's' },
	{ "firmware", "board_vendor", 's' }, { "firmware", "board_name", 's' },
	{ "firmware", "board_version", 's' },
	{ "firmware", "bios_vendor", 's' }, { "firmware", "bios_version", 's' },
	{ "firmware", "bios_date", 's' },
	{ "cpu", "model", 's' }, { "cpu", "vendor", 's' },
	{ "cpu", "family", 'n' }, { "cpu", "model_id", 'n' },
	{ "cpu", "stepping", 'n' }, { "cpu", "microcode", 's' },
	{ "cpu", "sockets", 'n' }, { "cpu", "cores", 'n' },
	{ "cpu", "threads", 'n' }, { "cpu", "numa_nodes", 'n' },
	{ "cpu", "base_mhz", 'n' }, { "cpu", "max_mhz", 'n' },
	{ "cpu", "scaling_driver", 's' }, { "cpu", "governor", 's' },
	{ "cpu", "boost", 'b' }, { "cpu", "smt", 'b' },
	{ "cpu", "smt_control", 's' }, { "cpu", "vulnerabilities", 'o' },
	{ "memory", "total_kb", 'n' }, { "memory", "slots", 'n' },
	{ "memory", "dimms", 'a' },
	{ "kernel", "release", 's' }, { "kernel", "version", 's' },
	{ "kernel", "cmdline", 's' }, { "kernel", "secure_boot", 'b' },
	{ "kernel", "lockdown", 's' }, { "kernel", "clocksource", 's' },
};

static void vsystem(struct vctx *v, const cJSON *h, const char *path)
{
	static const char *const parts[] = { "firmware", "cpu", "memory",
					     "kernel" };
	static const char *const dimm[][2] = { { "locator", "s" },
		{ "bank", "s" }, { "size_mb", "n" }, { "type", "s" },
		{ "speed_mts", "n" }, { "configured_mts", "n" } };
	const cJSON *sys, *o, *x;
	char p[VP], q[VP];
	size_t i, k;
	int j = 0;

	sys = vget(v, h, path, "system", 'o', 1);
	if (!sys)
		return;
	snprintf(p, sizeof(p), "%.200s.system", path);
	for (i = 0; i < sizeof(parts) / sizeof(parts[0]); i++)
		vget(v, sys, p, parts[i], 'o', 1);
	o = vget(v, sys, p, "cut", 'a', 1);
	snprintf(q, sizeof(q), "%.200s.cut", p);
	cJSON_ArrayForEach(x, o)
		if (!vtype_ok(x, 's'))
			verr(v, q, "expected strings");
	for (i = 0; i < sizeof(vsys_fields) / sizeof(vsys_fields[0]); i++) {
		o = cJSON_GetObjectItemCaseSensitive(sys, vsys_fields[i].part);
		snprintf(q, sizeof(q), "%.200s.%s", p, vsys_fields[i].part);
		if (o)
			vget(v, o, q, vsys_fields[i].key, vsys_fields[i].t, 1);
	}
	o = cJSON_GetObjectItemCaseSensitive(
		cJSON_GetObjectItemCaseSensitive(sys, "cpu"),
		"vulnerabilities");
	snprintf(q, sizeof(q), "%.200s.cpu.vulnerabilities", p);
	cJSON_ArrayForEach(x, o)
		if (x->string)
			vget(v, o, q, x->string, 's', 0);
	o = cJSON_GetObjectItemCaseSensitive(
		cJSON_GetObjectItemCaseSensitive(sys, "memory"), "dimms");
	cJSON_ArrayForEach(x, o) {
		snprintf(q, sizeof(q), "%.200s.memory.dimms[%d]", p, j++);
		if (!vtype_ok(x, 'o')) {
			verr(v, q, "expected an object");
			return;
		}
		for (k = 0; k < sizeof(dimm) / sizeof(dimm[0]); k++)
			vget(v, x, q, dimm[k][0], dimm[k][1][0], 1);
	}
}

/* environment.hosts: each an object with an id and a role; a server's
 * clock offset is kept.  Returns -1 on the first mistake. */
static int vhosts(struct vctx *v, const cJSON *hosts, struct result_doc *r)
{
	const cJSON *h;
	int i = 0;

	cJSON_ArrayForEach(h, hosts) {
		const cJSON *role, *clk, *off;
		char p[64];

		snprintf(p, sizeof(p), "environment.hosts[%d]", i++);
		if (!vtype_ok(h, 'o')) {
			verr(v, p, "expected an object");
			return -1;
		}
		vget(v, h, p, "id", 's', 0);
		role = vget(v, h, p, "role", 's', 0);
		vsystem(v, h, p);
		clk = vget(v, h, p, "clock", 'o', 1);
		snprintf(p + strlen(p), sizeof(p) - strlen(p), ".clock");
		off = clk ? vget(v, clk, p, "offset_ns", 'n', 1) : NULL;
		if (v->bad)
			return -1;
		if (off && strncmp(role->valuestring, "server", 6) == 0)
			r->server_offset_ns = off->valuedouble;
	}
	return 0;
}

/* steps: each an object, validated into r->steps.  Returns -1 on the
 * first mistake. */
static int vsteps(struct vctx *v, const cJSON *steps, struct result_doc *r)
{
	const cJSON *so;
	int i = 0;

	r->nsteps = cJSON_GetArraySize(steps);
	r->steps = calloc(r->nsteps ? r->nsteps : 1, sizeof(*r->steps));
	if (!r->steps) {
		verr(v, "steps", "out of memory");
		return -1;
	}
	cJSON_ArrayForEach(so, steps) {
		if (!vtype_ok(so, 'o')) {
			char p[32];

			snprintf(p, sizeof(p), "steps[%d]", i);
			verr(v, p, "expected an object");
			return -1;
		}
		vstep(v, so, i, &r->steps[i]);
		if (v->bad)
			return -1;
		i++;
	}
	return 0;
}

/* Control characters in a string or key of j become '?', in place: every
 * renderer and every error message then only ever prints what a reader
 * sees (no terminal escape sequence, no carriage return hiding a line in
 * a table).  cJSON bounds the nesting, so the recursion is bounded. */
static void result_doc_defang(cJSON *j)
{
	cJSON *x;
	char *c;

	for (c = j->string; c && *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			*c = '?';
		else if ((unsigned char)c[0] == 0xc2 &&
			 (unsigned char)c[1] >= 0x80 &&
			 (unsigned char)c[1] <= 0x9f)
			c[0] = c[1] = '?';
	for (c = cJSON_IsString(j) ? j->valuestring : NULL; c && *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			*c = '?';
		else if ((unsigned char)c[0] == 0xc2 &&
			 (unsigned char)c[1] >= 0x80 &&
			 (unsigned char)c[1] <= 0x9f)
			/* U+0080..U+009F: C1 controls (CSI is U+009B) that
			 * some terminals obey. */
			c[0] = c[1] = '?';
	cJSON_ArrayForEach(x, j)
		result_doc_defang(x);
}

int result_doc_parse(const char *text, size_t len, const char *name,
		     struct result_doc *r, char *err, size_t errlen)
{
	struct vctx v = { name, err, errlen, 0, NULL };
	const cJSON *su, *tool, *steps, *env, *hosts, *ts;
	const char *end = NULL;

	memset(r, 0, sizeof(*r));
	snprintf(r->file, sizeof(r->file), "%s", name);
	if (len == 0)
		return util_fail(err, errlen, -EINVAL,
				 "%s: empty file (expected a benchboot.result/1 document)",
				 name);
	r->doc = json_int_parse(text, len, &end, 0);
	if (!r->doc)
		return result_doc_json_error(text, len, end, name, err, errlen);
	result_doc_defang(r->doc);
	v.h = malloc(sizeof(*v.h));
	if (!v.h) {
		cJSON_Delete(r->doc);
		r->doc = NULL;
		return util_fail(err, errlen, -ENOMEM, "%s: out of memory",
				 name);
	}
	if (!cJSON_IsObject(r->doc))
		verr(&v, "(top level)", "expected an object");
	vschema(&v, r->doc, "", "benchboot.result", RESULT_DOC_SCHEMA_MAJOR);
	vget(&v, r->doc, "", "id", 's', 0);
	su = vget(&v, r->doc, "", "suite", 'o', 0);
	vget(&v, su, "suite", "name", 's', 0);
	vget(&v, su, "suite", "version", 's', 0);
	tool = vget(&v, r->doc, "", "tool", 'o', 1);
	steps = vget(&v, r->doc, "", "steps", 'a', 0);
	env = vget(&v, r->doc, "", "environment", 'o', 0);
	hosts = vget(&v, env, "environment", "hosts", 'a', 0);
	if (v.bad)
		goto err;
	r->id = cJSON_GetObjectItem(r->doc, "id")->valuestring;
	r->suite = cJSON_GetObjectItem(su, "name")->valuestring;
	r->suite_version = cJSON_GetObjectItem(su, "version")->valuestring;
	ts = cJSON_GetObjectItem(su, "time_scale");
	r->time_scale = 1;
	if (ts && (!cJSON_IsNumber(ts) || !(ts->valuedouble > 0)))
		verr(&v, "suite.time_scale", "expected a number > 0");
	else if (ts)
		r->time_scale = ts->valuedouble;
	if (v.bad)
		goto err;
	r->created = cJSON_GetStringValue(cJSON_GetObjectItem(r->doc,
							      "created"));
	r->controller = cJSON_GetStringValue(cJSON_GetObjectItem(r->doc,
								 "controller"));
	r->tool_version = cJSON_GetStringValue(cJSON_GetObjectItem(tool,
								   "version"));
	if (vhosts(&v, hosts, r) != 0 || vsteps(&v, steps, r) != 0)
		goto err;
	free(v.h);
	return 0;
err:
	free(v.h);
	result_doc_free(r);
	return v.bad ? -EINVAL : -ENOMEM;
}

int result_doc_load(const char *path, struct result_doc *r, char *err,
		    size_t errlen)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t len = 0, cap = 0, n;
	int rc;

	memset(r, 0, sizeof(*r));
	if (!f) {
		rc = -errno;
		return util_fail(err, errlen, rc, "%s: %s", path,
				 strerror(-rc));
	}
	for (;;) {
		if (len + 65536 > cap) {
			char *nb = realloc(buf, cap = cap * 2 + 65536);

			if (!nb) {
				free(buf);
				fclose(f);
				return util_fail(err, errlen, -ENOMEM,
						 "%s: out of memory", path);
			}
			buf = nb;
		}
		n = fread(buf + len, 1, cap - len, f);
		len += n;
		if (n == 0)
			break;
	}
	if (ferror(f)) {
		free(buf);
		fclose(f);
		return util_fail(err, errlen, -EIO, "%s: read error", path);
	}
	fclose(f);
	rc = result_doc_parse(buf, len, path, r, err, errlen);
	free(buf);
	return rc;
}

void result_doc_free(struct result_doc *r)
{
	cJSON_Delete(r->doc);
	free(r->steps);
	r->doc = NULL;
	r->steps = NULL;
	r->nsteps = 0;
}

int result_doc_comparable(const struct result_doc *a,
			  const struct result_doc *b, char *why, size_t whylen)
{
	if (strcmp(a->suite, b->suite) != 0) {
		snprintf(why, whylen,
			 "different suites: %s is suite '%s' version %s, %s is suite '%s' version %s",
			 a->file, a->suite, a->suite_version, b->file, b->suite,
			 b->suite_version);
		return -EINVAL;
	}
	if (strcmp(a->suite_version, b->suite_version) != 0) {
		snprintf(why, whylen,
			 "different suite versions: %s ran '%s' version %s, %s ran version %s (steps may differ)",
			 a->file, a->suite, a->suite_version, b->file,
			 b->suite_version);
		return -EINVAL;
	}
	/* A time-scaled run's shorter windows (and warm-ups) measure
	 * something else than a full one: never a ratio of the two. */
	if (a->time_scale != b->time_scale) {
		snprintf(why, whylen,
			 "different time scales: %s ran x%g, %s ran x%g (a time-scaled result is not comparable with another scale's)",
			 a->file, a->time_scale, b->file, b->time_scale);
		return -EINVAL;
	}
	return 0;
}

int result_doc_significant(const struct result_doc_stat *a,
			   const struct result_doc_stat *b)
{
	if (a->n < 2 || b->n < 2)
		return -1;
	return a->hi < b->lo || b->hi < a->lo;
}

int result_doc_find_step(const struct result_doc *r, const char *name)
{
	int i;

	for (i = 0; i < r->nsteps; i++)
		if (strcmp(r->steps[i].name, name) == 0)
			return i;
	return -1;
}

const struct result_doc_wl *result_doc_find_wl(const struct result_doc_step *s,
					       const char *wl)
{
	int i;

	for (i = 0; i < s->nwl; i++)
		if (strcmp(s->wl[i].name, wl) == 0)
			return &s->wl[i];
	return NULL;
}

/* --- look-ups across results (the renderers' rows and columns) ------- */

static int result_doc_key_has(const struct result_doc_key *k, int nk,
			      const char *step, const char *wl)
{
	int j;

	for (j = 0; j < nk; j++)
		if (strcmp(k[j].step, step) == 0 && strcmp(k[j].wl, wl) == 0)
			return 1;
	return 0;
}

int result_doc_keys(struct result_doc *rs, int n, struct result_doc_key *k,
		    int max)
{
	const struct result_doc_step *st;
	int nk = 0, i, s, w;

	for (i = 0; i < n; i++)
		for (s = 0; s < rs[i].nsteps; s++)
			for (w = 0; w < rs[i].steps[s].nwl && nk < max; w++) {
				st = &rs[i].steps[s];
				if (result_doc_key_has(k, nk, st->step,
						       st->wl[w].name))
					continue;
				k[nk].step = st->step;
				k[nk].wl = st->wl[w].name;
				k[nk++].metric = st->wl[w].metric;
			}
	return nk;
}

int result_doc_concs(struct result_doc *rs, int n, const char *step,
		     int *c, int max)
{
	int nc = 0, i, s, j, t;

	for (i = 0; i < n; i++)
		for (s = 0; s < rs[i].nsteps; s++) {
			if (strcmp(rs[i].steps[s].step, step) != 0)
				continue;
			for (j = 0; j < nc; j++)
				if (c[j] == rs[i].steps[s].conc)
					break;
			if (j == nc && nc < max)
				c[nc++] = rs[i].steps[s].conc;
		}
	for (i = 1; i < nc; i++)
		for (j = i; j > 0 && c[j - 1] > c[j]; j--) {
			t = c[j];
			c[j] = c[j - 1];
			c[j - 1] = t;
		}
	return nc;
}

const struct result_doc_step *result_doc_at(const struct result_doc *r,
					    const char *step, int conc)
{
	int s;

	for (s = 0; s < r->nsteps; s++)
		if (strcmp(r->steps[s].step, step) == 0 &&
		    r->steps[s].conc == conc)
			return &r->steps[s];
	return NULL;
}


int result_doc_sm_steps(struct result_doc *rs, int n, const char **names,
			int max)
{
	int nn = 0, i, s, j;

	for (i = 0; i < n; i++)
		for (s = 0; s < rs[i].nsteps; s++) {
			if (!rs[i].steps[s].sm_n)
				continue;
			for (j = 0; j < nn; j++)
				if (strcmp(names[j], rs[i].steps[s].name) == 0)
					break;
			if (j == nn && nn < max)
				names[nn++] = rs[i].steps[s].name;
		}
	return nn;
}

const struct result_doc_step *result_doc_sm_at(const struct result_doc *r,
					       const char *name)
{
	int s = result_doc_find_step(r, name);

	return s >= 0 && r->steps[s].sm_n ? &r->steps[s] : NULL;
}

void result_doc_sm_compare(const struct result_doc *rs, int n,
			   const char *name, int k,
			   struct result_doc_sm_cell *cells)
{
	const struct result_doc_step *a = result_doc_sm_at(&rs[0], name), *st;
	int i;

	for (i = 0; i < n; i++) {
		st = i ? result_doc_sm_at(&rs[i], name) : a;
		cells[i].has = st != NULL;
		cells[i].v = st ? st->sm[k] : 0;
		cells[i].ratio = st && a && a->sm[k] != 0 ?
				 st->sm[k] / a->sm[k] : 0;
		cells[i].has_ratio = i > 0 && st && a && a->sm[k] != 0 &&
				     isfinite(cells[i].ratio);
	}
}

int result_doc_op_names(const struct result_doc *rs, int n,
			const char **names, int max)
{
	int nn = 0, i, s, o, j;

	for (i = 0; i < n; i++)
		for (s = 0; s < rs[i].nsteps; s++)
			for (o = 0; o < rs[i].steps[s].nops; o++) {
				const char *op = rs[i].steps[s].op_name[o];

				for (j = 0; j < nn; j++)
					if (strcmp(names[j], op) == 0)
						break;
				if (j == nn && nn < max)
					names[nn++] = op;
			}
	return nn;
}
