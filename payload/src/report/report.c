/* report/report.c: `benchboot report`: loads and validates result documents into
 * a small model (report.h), prints the terminal tables and the CSV. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/hist.h"
#include "lib/json_int.h"
#include "report/report.h"
#include "result/result.h"
#include "lib/repeat_stats.h"
#include "lib/util.h"

/* Room for a field path: paths are cut at 200 characters, keys at 60. */
#define VP 300

const char *const report_sm_fields[REPORT_SM_N] = {
	"running", "cpu_idle_pct", "context_switches_ps", "free_pages",
	"interrupts_ps", "blocks_out_ps", "load1", "swap_used_kb",
};
const char *const report_sm_heads[REPORT_SM_N] = {
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
		  struct report_stat *out)
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
static const char *report_metric(const cJSON *wst)
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
	double w, sm[REPORT_SM_N], last_sm_t;
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
		double vals[REPORT_SM_N];

		snprintf(p, sizeof(p), "%.200s.sample[%d]", path, i++);
		vschema(v, rec, p, "benchboot.sample", 1);
		t = vget(v, rec, p, "t", 'o', 0);
		iv = vget(v, rec, p, "interval_s", 'n', 0);
		for (k = 0; k < REPORT_SM_N; k++) {
			const cJSON *f = vget(v, rec, p, report_sm_fields[k],
					      'n', 0);

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
		for (k = 0; k < REPORT_SM_N; k++)
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
	const char *name[REPORT_MAX_OPS];
	int n[REPORT_MAX_OPS];
	double v[REPORT_MAX_OPS][64];
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
			if (o->nops == REPORT_MAX_OPS)
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
static int report_step_wl(struct report_step *s, const char *name)
{
	const char *m;
	int i;

	for (i = 0; i < s->nwl; i++)
		if (strcmp(s->wl[i].name, name) == 0)
			return i;
	if (s->nwl == REPORT_MAX_WL)
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
		    struct report_step *s, struct series_acc *sa,
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
	if (!complete)
		return;
	/* Error counts and rates of the complete repeats, per workload. */
	mo = vget(v, rp, path, "merged", 'o', 1);
	cJSON_ArrayForEach(w, mo) {
		const cJSON *er = cJSON_GetObjectItemCaseSensitive(w,
								   "errors");
		const cJSON *e;
		double sc, fl;

		i = report_step_wl(s, w->string);
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

double report_wl_error_rate(const struct report_wl *w)
{
	if (!w->has_rate)
		return -1;
	return w->succ + w->fail > 0 ? w->fail / (w->succ + w->fail) : 0;
}

const char *report_step_flag(const struct report_step *s)
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
		    struct report_wl *wl)
{
	const cJSON *f;
	const char *m;

	snprintf(wl->name, sizeof(wl->name), "%s", w->string);
	/* Every figure is checked, not only the ones shown. */
	cJSON_ArrayForEach(f, w) {
		struct report_stat tmp;
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
	m = report_metric(w);
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
		       struct report_step *s)
{
	const cJSON *w;
	char p[256], q[VP];
	int i;

	snprintf(p, sizeof(p), "%.200s.stats", path);
	cJSON_ArrayForEach(w, stats) {
		if (s->nwl == REPORT_MAX_WL)
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
static void report_stat_of(struct report_stat *out, double *v, int n)
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
			  const char *path, struct report_step *s)
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
	for (k = 0; k < REPORT_SM_N; k++)
		s->sm[k] = sa.w > 0 ? sa.sm[k] / sa.w : 0;
	s->pb_seconds = sa.seconds;
	if (sa.seconds > 0) {
		s->pb_lost_pct = (sa.ideal - sa.done) / sa.ideal * 100;
		s->pb_stddev_pct = sqrt(sa.sq / sa.seconds) * 100;
	}
	s->nops = oa->nops;
	report_stat_of(&s->ops_total, oa->tot, oa->ntot);
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
		  struct report_step *s)
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
static void report_linecol(const char *text, size_t off, int *line, int *col)
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
static int report_unclosed(const char *text, size_t len)
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
static int report_json_error(const char *text, size_t len, const char *end,
			     const char *name, char *err, size_t errlen)
{
	size_t off = end ? (size_t)(end - text) : 0;
	int line, col;

	/* cJSON points at the first byte it could not use. */
	while (off < len && (text[off] == ' ' || text[off] == '\n' ||
			     text[off] == '\t' || text[off] == '\r'))
		off++;
	report_linecol(text, off, &line, &col);
	if (off >= len || report_unclosed(text, len)) {
		report_linecol(text, len, &line, &col);
		return util_fail(err, errlen, -EINVAL,
				 "%s: not a whole JSON document: it ends early at byte %zu, line %d, inside an unclosed value (truncated?)",
				 name, len, line);
	}
	return util_fail(err, errlen, -EINVAL,
			 "%s: not valid JSON at line %d column %d (byte %zu)",
			 name, line, col, off);
}

/* environment.hosts: each an object with an id and a role; a server's
 * clock offset is kept.  Returns -1 on the first mistake. */
static int vhosts(struct vctx *v, const cJSON *hosts, struct report_res *r)
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
static int vsteps(struct vctx *v, const cJSON *steps, struct report_res *r)
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
static void report_defang(cJSON *j)
{
	cJSON *x;
	char *c;

	for (c = j->string; c && *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			*c = '?';
	for (c = cJSON_IsString(j) ? j->valuestring : NULL; c && *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			*c = '?';
	cJSON_ArrayForEach(x, j)
		report_defang(x);
}

int report_parse(const char *text, size_t len, const char *name,
		 struct report_res *r, char *err, size_t errlen)
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
		return report_json_error(text, len, end, name, err, errlen);
	report_defang(r->doc);
	v.h = malloc(sizeof(*v.h));
	if (!v.h) {
		cJSON_Delete(r->doc);
		r->doc = NULL;
		return util_fail(err, errlen, -ENOMEM, "%s: out of memory",
				 name);
	}
	if (!cJSON_IsObject(r->doc))
		verr(&v, "(top level)", "expected an object");
	vschema(&v, r->doc, "", "benchboot.result", REPORT_SCHEMA_MAJOR);
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
	report_free(r);
	return v.bad ? -EINVAL : -ENOMEM;
}

int report_load(const char *path, struct report_res *r, char *err,
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
	rc = report_parse(buf, len, path, r, err, errlen);
	free(buf);
	return rc;
}

void report_free(struct report_res *r)
{
	cJSON_Delete(r->doc);
	free(r->steps);
	r->doc = NULL;
	r->steps = NULL;
	r->nsteps = 0;
}

int report_comparable(const struct report_res *a, const struct report_res *b,
		      char *why, size_t whylen)
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

int report_significant(const struct report_stat *a,
		       const struct report_stat *b)
{
	if (a->n < 2 || b->n < 2)
		return -1;
	return a->hi < b->lo || b->hi < a->lo;
}

int report_find_step(const struct report_res *r, const char *name)
{
	int i;

	for (i = 0; i < r->nsteps; i++)
		if (strcmp(r->steps[i].name, name) == 0)
			return i;
	return -1;
}

const struct report_wl *report_find_wl(const struct report_step *s,
				       const char *wl)
{
	int i;

	for (i = 0; i < s->nwl; i++)
		if (strcmp(s->wl[i].name, wl) == 0)
			return &s->wl[i];
	return NULL;
}

/* --- terminal tables ------------------------------------------------- */

/* A figure with about four significant digits, no exponent for the
 * ranges results have. */
static void report_fmt(char *b, size_t n, double v)
{
	double a = fabs(v);

	if (a >= 1000)
		snprintf(b, n, "%.0f", v);
	else if (a >= 100)
		snprintf(b, n, "%.1f", v);
	else if (a >= 10)
		snprintf(b, n, "%.2f", v);
	else if (a >= 0.01 || a == 0)
		snprintf(b, n, "%.3f", v);
	else
		snprintf(b, n, "%.3g", v);
}

/* "median ± half-CI (n)" scaled by div; "-" when absent. */
static void report_fmt_stat(char *b, size_t n, const struct report_stat *s,
			    double div)
{
	char m[32], h[32];

	if (s->n == 0) {
		snprintf(b, n, "-");
		return;
	}
	report_fmt(m, sizeof(m), s->median / div);
	if (s->n < 2) {
		/* One repeat has no interval: say so rather than "± 0". */
		snprintf(b, n, "%s (1)", m);
		return;
	}
	report_fmt(h, sizeof(h), (s->hi - s->lo) / 2 / div);
	snprintf(b, n, "%s ± %s (%d)", m, h, s->n);
}

/* Prints s padded to width display columns (UTF-8 aware). */
static void report_cell(FILE *out, const char *s, int width, int right)
{
	int cols = 0;
	const char *c;

	for (c = s; *c; c++)
		if (((unsigned char)*c & 0xc0) != 0x80)
			cols++;
	if (right)
		fprintf(out, "%*s%s", cols < width ? width - cols : 0, "", s);
	else
		fprintf(out, "%s%*s", s, cols < width ? width - cols : 0, "");
}

static const char *report_sig_str(int sig)
{
	return sig < 0 ? "n<2" : sig ? "yes" : "no";
}

static char report_letter(int i)
{
	return (char)('A' + i % 26);
}

static int report_key_has(const struct report_key *k, int nk,
			  const char *step, const char *wl)
{
	int j;

	for (j = 0; j < nk; j++)
		if (strcmp(k[j].step, step) == 0 && strcmp(k[j].wl, wl) == 0)
			return 1;
	return 0;
}

int report_keys(struct report_res *rs, int n, struct report_key *k, int max)
{
	const struct report_step *st;
	int nk = 0, i, s, w;

	for (i = 0; i < n; i++)
		for (s = 0; s < rs[i].nsteps; s++)
			for (w = 0; w < rs[i].steps[s].nwl && nk < max; w++) {
				st = &rs[i].steps[s];
				if (report_key_has(k, nk, st->step,
						   st->wl[w].name))
					continue;
				k[nk].step = st->step;
				k[nk].wl = st->wl[w].name;
				k[nk++].metric = st->wl[w].metric;
			}
	return nk;
}

int report_concs(struct report_res *rs, int n, const char *step,
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

const struct report_step *report_at(const struct report_res *r,
					   const char *step, int conc)
{
	int s;

	for (s = 0; s < r->nsteps; s++)
		if (strcmp(r->steps[s].step, step) == 0 &&
		    r->steps[s].conc == conc)
			return &r->steps[s];
	return NULL;
}

/* The error-rate and flag cells of one result's row (throughput table);
 * the flag is padded unless it ends the line (last). */
static void report_err_cells(FILE *out, const struct report_step *st,
			     const struct report_wl *w, int last)
{
	double e = w ? report_wl_error_rate(w) : -1;
	const char *fl;
	char b[32];

	if (e < 0)
		snprintf(b, sizeof(b), "-");
	else
		snprintf(b, sizeof(b), e > 0 && e < 0.0001 ? "%.4f" : "%.2f",
			 e * 100);
	fl = st && !st->skipped ? report_step_flag(st) : "";
	fprintf(out, "  %6s", b);
	if (!last || fl[0])
		fprintf(out, "  %-*s", last ? 0 : 7, fl);
}

/* Under a throughput table: every step of k with an invalid repeat, why
 * (the first reason), and that it is not averaged. */
static void report_invalid_notes(FILE *out, struct report_res *rs, int n,
				 const struct report_key *k)
{
	int i, s;

	for (i = 0; i < n; i++)
		for (s = 0; s < rs[i].nsteps; s++) {
			const struct report_step *st = &rs[i].steps[s];

			if (strcmp(st->step, k->step) != 0 || !st->invalid)
				continue;
			fprintf(out, "  %c: %s: %d of %d repeat(s) invalid, not averaged: %s\n",
				report_letter(i), st->name, st->invalid,
				st->repeats, st->invalid_reason ?
				st->invalid_reason : "?");
		}
}

/* A figure table's title and column headings. */
static void report_fig_head(FILE *out, int n, const struct report_key *k,
			    int p99)
{
	char h[64];
	int i;

	fprintf(out, "\n%s (%s): %s%s against concurrency%s\n", k->step,
		k->wl,
		p99 ? "p99 latency (ms)" : k->metric[0] ? k->metric : "rate",
		p99 ? "" : "/s",
		p99 ? "; sd: response-time standard deviation (estimate)" : "");
	fprintf(out, "  %-5s", "conc");
	for (i = 0; i < n; i++) {
		snprintf(h, sizeof(h), "%c %s", report_letter(i),
			 p99 ? "p99 ms" : "per s");
		fputs("  ", out);
		report_cell(out, h, 24, 1);
		if (!p99)
			fprintf(out, "  %6s  %-*s", "err %", n == 1 ? 0 : 7,
				"flag");
		else
			fprintf(out, "  %8s", "sd ms");
		if (i > 0) {
			snprintf(h, sizeof(h), "%c/A", report_letter(i));
			fputs("  ", out);
			report_cell(out, h, 6, 1);
			fputs("  sig", out);
		}
	}
}

/* One figure table: rows = concurrency, per result the figure, and for
 * every result after the first its ratio to the first and significance. */
static void report_fig_table(FILE *out, struct report_res *rs, int n,
			     const struct report_key *k, int p99)
{
	int conc[64], nc, c, i;
	char b[96];
	double div = p99 ? 1e6 : 1;

	nc = report_concs(rs, n, k->step, conc, 64);
	report_fig_head(out, n, k, p99);
	fputc('\n', out);
	for (c = 0; c < nc; c++) {
		const struct report_wl *base = NULL;

		if (conc[c])
			fprintf(out, "  %-5d", conc[c]);
		else
			fprintf(out, "  %-5s", "-");
		for (i = 0; i < n; i++) {
			const struct report_step *st =
				report_at(&rs[i], k->step, conc[c]);
			const struct report_wl *w =
				st ? report_find_wl(st, k->wl) : NULL;
			const struct report_stat *f =
				w ? (p99 ? &w->p99 : &w->thr) : NULL;

			if (st && st->skipped)
				snprintf(b, sizeof(b), "skipped");
			else if (f)
				report_fmt_stat(b, sizeof(b), f, div);
			else
				snprintf(b, sizeof(b), "-");
			fputs("  ", out);
			report_cell(out, b, 24, 1);
			if (!p99) {
				report_err_cells(out, st, w, n == 1);
			} else {
				if (w && w->sd_ns >= 0)
					report_fmt(b, sizeof(b), w->sd_ns / 1e6);
				else
					snprintf(b, sizeof(b), "-");
				fprintf(out, "  %8s", b);
			}
			if (i == 0) {
				base = w;
				continue;
			}
			if (base && w && f->n && (p99 ? base->p99.median :
						  base->thr.median) != 0) {
				const struct report_stat *bf =
					p99 ? &base->p99 : &base->thr;

				snprintf(b, sizeof(b), "%.3f",
					 f->median / bf->median);
				fputs("  ", out);
				report_cell(out, b, 6, 1);
				fprintf(out, "  %-3s",
					report_sig_str(report_significant(bf,
									  f)));
			} else {
				fprintf(out, "  %6s  %-3s", "-", "-");
			}
		}
		fputc('\n', out);
	}
}

/* One row of the sql ops table: label, then per result its figure f[i]
 * (NULL: absent) and, after the first, the ratio and significance. */
static void report_ops_row(FILE *out, const char *label,
			   const struct report_stat *const *f, int n)
{
	char b[96];
	int i;

	fprintf(out, "  %-18s", label);
	for (i = 0; i < n; i++) {
		if (f[i] && f[i]->n)
			report_fmt_stat(b, sizeof(b), f[i], 1);
		else
			snprintf(b, sizeof(b), "-");
		fputs("  ", out);
		report_cell(out, b, 22, 1);
		if (i == 0)
			continue;
		if (f[0] && f[i] && f[i]->n && f[0]->n && f[0]->median != 0)
			fprintf(out, "  %8.3f  %-3s", f[i]->median / f[0]->median,
				report_sig_str(report_significant(f[0], f[i])));
		else
			fprintf(out, "  %8s  %-3s", "-", "-");
	}
	fputc('\n', out);
}

/* Result r's statistics of sql ops operation name (its first step that
 * has it), or NULL. */
static const struct report_stat *report_op_stat(const struct report_res *r,
						const char *name)
{
	int s, o;

	for (s = 0; s < r->nsteps; s++)
		for (o = 0; o < r->steps[s].nops; o++)
			if (strcmp(r->steps[s].op_name[o], name) == 0)
				return &r->steps[s].op_s[o];
	return NULL;
}

/* The Byte.com table: seconds per operation, then the Totals row (each
 * run's own total_s, as the study's sum). */
static void report_ops_table(FILE *out, struct report_res *rs, int n)
{
	const char *names[REPORT_MAX_OPS * 4];
	const struct report_stat *f[64];
	int nn = 0, i, s, o, j, any = 0;
	char h[64];

	for (i = 0; i < n; i++)
		for (s = 0; s < rs[i].nsteps; s++)
			for (o = 0; o < rs[i].steps[s].nops; o++) {
				for (j = 0; j < nn; j++)
					if (strcmp(names[j],
						   rs[i].steps[s].op_name[o])
					    == 0)
						break;
				if (j == nn && nn < REPORT_MAX_OPS * 4)
					names[nn++] =
						rs[i].steps[s].op_name[o];
				any = 1;
			}
	if (!any)
		return;
	n = n < 64 ? n : 64;
	fprintf(out,
		"\nsql ops: seconds per operation (Byte.com table; median ± half 95 %% CI (n))\n  %-18s",
		"operation");
	for (i = 0; i < n; i++) {
		snprintf(h, sizeof(h), "%c seconds", report_letter(i));
		fputs("  ", out);
		report_cell(out, h, 22, 1);
		if (i > 0)
			fprintf(out, "  %6c/A  sig", report_letter(i));
	}
	fputc('\n', out);
	for (j = 0; j < nn; j++) {
		for (i = 0; i < n; i++)
			f[i] = report_op_stat(&rs[i], names[j]);
		report_ops_row(out, names[j], f, n);
	}
	for (i = 0; i < n; i++) {
		f[i] = NULL;
		for (s = 0; s < rs[i].nsteps && !f[i]; s++)
			if (rs[i].steps[s].nops)
				f[i] = &rs[i].steps[s].ops_total;
	}
	report_ops_row(out, "Totals", f, n);
}

static void report_sampler_table(FILE *out, struct report_res *r, int idx)
{
	int s, k, any = 0;
	char b[32];

	for (s = 0; s < r->nsteps; s++)
		any |= r->steps[s].sm_n > 0;
	if (!any)
		return;
	fprintf(out,
		"\n%c: server sampler, averages per step (Byte.com combined table)\n  %-20s",
		report_letter(idx), "step");
	for (k = 0; k < REPORT_SM_N; k++)
		fprintf(out, " %10s", report_sm_heads[k]);
	fprintf(out, " %4s\n", "s");
	for (s = 0; s < r->nsteps; s++) {
		const struct report_step *st = &r->steps[s];

		if (!st->sm_n)
			continue;
		fprintf(out, "  %-20s", st->name);
		for (k = 0; k < REPORT_SM_N; k++) {
			report_fmt(b, sizeof(b), st->sm[k]);
			fprintf(out, " %10s", b);
		}
		fprintf(out, " %4d\n", st->sm_n);
	}
}

int report_sm_steps(struct report_res *rs, int n, const char **names,
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

const struct report_step *report_sm_at(const struct report_res *r,
				       const char *name)
{
	int s = report_find_step(r, name);

	return s >= 0 && r->steps[s].sm_n ? &r->steps[s] : NULL;
}

/* Several results: their sampler tables side by side, as the study set
 * its two systems' "combined" columns: per step and field, each result's
 * average and its ratio to A's. */
static void report_sampler_compare(FILE *out, struct report_res *rs, int n)
{
	const char *names[256];
	const struct report_step *st, *a;
	int nn, i, j, k;
	char b[32];

	nn = report_sm_steps(rs, n, names, 256);
	if (n < 2 || !nn)
		return;
	fprintf(out, "\nserver sampler side by side (Byte.com combined table; ratios against A)\n  %-20s %-10s", "step", "field");
	for (i = 0; i < n; i++) {
		fprintf(out, " %10c", report_letter(i));
		if (i > 0)
			fprintf(out, " %6c/A", report_letter(i));
	}
	fputc('\n', out);
	for (j = 0; j < nn; j++)
		for (k = 0; k < REPORT_SM_N; k++) {
			fprintf(out, "  %-20s %-10s", k ? "" : names[j],
				report_sm_heads[k]);
			a = report_sm_at(&rs[0], names[j]);
			for (i = 0; i < n; i++) {
				st = report_sm_at(&rs[i], names[j]);
				if (st)
					report_fmt(b, sizeof(b), st->sm[k]);
				fprintf(out, " %10s", st ? b : "-");
				if (i == 0)
					continue;
				if (st && a && a->sm[k] != 0)
					snprintf(b, sizeof(b), "%.3f",
						 st->sm[k] / a->sm[k]);
				else
					snprintf(b, sizeof(b), "-");
				fprintf(out, " %8s", b);
			}
			fputc('\n', out);
		}
}

static void report_probe_table(FILE *out, struct report_res *rs, int n)
{
	const char *names[256];
	int nn = 0, i, s, j, any = 0;

	for (i = 0; i < n; i++)
		for (s = 0; s < rs[i].nsteps; s++) {
			if (!rs[i].steps[s].pb_seconds)
				continue;
			any = 1;
			for (j = 0; j < nn; j++)
				if (strcmp(names[j], rs[i].steps[s].name) == 0)
					break;
			if (j == nn && nn < 256)
				names[nn++] = rs[i].steps[s].name;
		}
	if (!any)
		return;
	fprintf(out,
		"\nfairness probe: units lost per step (N&K: standard deviation from the ideal, %%)\n  %-20s",
		"step");
	for (i = 0; i < n; i++)
		fprintf(out, "  %c lost %%  %c stddev %%  %c s",
			report_letter(i), report_letter(i), report_letter(i));
	fputc('\n', out);
	for (j = 0; j < nn; j++) {
		fprintf(out, "  %-20s", names[j]);
		for (i = 0; i < n; i++) {
			int k = report_find_step(&rs[i], names[j]);
			const struct report_step *st =
				k >= 0 ? &rs[i].steps[k] : NULL;

			if (st && st->pb_seconds)
				fprintf(out, "  %8.2f  %10.2f  %3d",
					st->pb_lost_pct, st->pb_stddev_pct,
					st->pb_seconds);
			else
				fprintf(out, "  %8s  %10s  %3s", "-", "-",
					"-");
		}
		fputc('\n', out);
	}
}

static void report_hosts(FILE *out, const struct report_res *r, int idx)
{
	const cJSON *h;

	cJSON_ArrayForEach(h, cJSON_GetObjectItem(cJSON_GetObjectItem(
				r->doc, "environment"), "hosts")) {
		const cJSON *clk = cJSON_GetObjectItem(h, "clock");
		const char *cpu = cJSON_GetStringValue(
			cJSON_GetObjectItem(h, "cpu"));
		const char *ker = cJSON_GetStringValue(
			cJSON_GetObjectItem(h, "kernel"));
		const cJSON *cpus = cJSON_GetObjectItem(h, "cpus");
		const cJSON *mem = cJSON_GetObjectItem(h, "mem_kb");
		const cJSON *off = cJSON_GetObjectItem(clk, "offset_ns");
		char o[32] = "-";

		if (cJSON_IsNumber(off))
			snprintf(o, sizeof(o), "%.1f us",
				 off->valuedouble / 1e3);
		fprintf(out,
			"  %c  %-22s %-18s %s x%d, %.1f GiB, %.40s, clock offset %s%s\n",
			report_letter(idx),
			cJSON_GetStringValue(cJSON_GetObjectItem(h, "id")),
			cJSON_GetStringValue(cJSON_GetObjectItem(h, "role")),
			cpu ? cpu : "?",
			cJSON_IsNumber(cpus) ? cpus->valueint : 0,
			cJSON_IsNumber(mem) ? mem->valuedouble / 1048576 : 0,
			ker ? ker : "?", o,
			cJSON_IsTrue(cJSON_GetObjectItem(h, "lost")) ?
			", LOST" : "");
	}
}

int report_text(FILE *out, struct report_res *rs, int n)
{
	struct report_key k[128];
	int nk, i, j;

	fprintf(out, "benchboot report: %d result%s%s\n", n, n > 1 ? "s" : "",
		n > 1 ? " (ratios against A; sig: 95 % CIs do not overlap)" :
		"");
	for (i = 0; i < n; i++)
		fprintf(out, "  %c  %s  suite %s v%s  benchboot %s  %s  (%s)\n",
			report_letter(i), rs[i].id, rs[i].suite,
			rs[i].suite_version,
			rs[i].tool_version ? rs[i].tool_version : "?",
			rs[i].created ? rs[i].created : "?", rs[i].file);
	for (i = 0; i < n; i++)
		if (rs[i].time_scale != 1)
			fprintf(out, "  %c  TIME-SCALED x%g: every warm-up, duration and cool-down times %g; not comparable with a full-length run\n",
				report_letter(i), rs[i].time_scale,
				rs[i].time_scale);
	fprintf(out, "\nhosts\n");
	for (i = 0; i < n; i++)
		report_hosts(out, &rs[i], i);
	nk = report_keys(rs, n, k, 128);
	for (j = 0; j < nk; j++) {
		report_fig_table(out, rs, n, &k[j], 0);
		report_invalid_notes(out, rs, n, &k[j]);
		report_fig_table(out, rs, n, &k[j], 1);
	}
	for (i = 0; i < n; i++)
		for (j = 0; j < rs[i].nsteps; j++)
			if (rs[i].steps[j].skipped)
				fprintf(out, "%c: %s skipped: %s\n",
					report_letter(i), rs[i].steps[j].name,
					rs[i].steps[j].skipped);
	report_ops_table(out, rs, n);
	for (i = 0; i < n; i++)
		report_sampler_table(out, &rs[i], i);
	report_sampler_compare(out, rs, n);
	report_probe_table(out, rs, n);
	fflush(out);
	return ferror(out) ? -EIO : 0;
}

/* --- CSV ------------------------------------------------------------- */

/* A CSV field, quoted when it holds a separator, quote or line break.
 * A field a spreadsheet would read as a formula (it starts with = + - @,
 * a tab or a CR: OWASP's CSV injection list) gets a leading ' and is
 * quoted, so a hostile step name or id is shown, never evaluated.  Only
 * strings from the result come here; numbers are printed directly. */
static void report_csv_str(FILE *out, const char *s)
{
	const char *c;
	int formula;

	if (!s)
		s = "";
	formula = s[0] && strchr("=+-@\t\r", s[0]) != NULL;
	if (!formula && !strpbrk(s, ",\"\r\n")) {
		fputs(s, out);
		return;
	}
	fputc('"', out);
	if (formula)
		fputc('\'', out);
	for (c = s; *c; c++) {
		if (*c == '"')
			fputc('"', out);
		fputc(*c, out);
	}
	fputc('"', out);
}

static void report_csv_stat(FILE *out, const struct report_stat *s)
{
	if (s->n)
		fprintf(out, ",%d,%.17g,%.17g,%.17g,%.17g", s->n, s->median,
			s->mean, s->lo, s->hi);
	else
		fputs(",,,,,", out);
}

/* One row; w NULL for a step with no workload statistics. */
/* The columns added after the probe's: error rate, invalid repeats,
 * the flag, the response-time standard deviation; then the line end. */
static void report_csv_tail(FILE *out, const struct report_step *st,
			    const struct report_wl *w)
{
	double e = w ? report_wl_error_rate(w) : -1;

	if (e >= 0)
		fprintf(out, ",%.17g,%.17g,%.17g", w->succ, w->fail, e);
	else
		fputs(",,,", out);
	fprintf(out, ",%d,%s", st->invalid, st->skipped ? "" :
		report_step_flag(st));
	if (w && w->sd_ns >= 0)
		fprintf(out, ",%.17g\n", w->sd_ns);
	else
		fputs(",\n", out);
}

static void report_csv_row(FILE *out, const struct report_res *r,
			   const struct report_step *st,
			   const struct report_wl *w)
{
	int k;

	report_csv_str(out, r->id);
	fputc(',', out);
	report_csv_str(out, r->file);
	fputc(',', out);
	report_csv_str(out, r->suite);
	fputc(',', out);
	report_csv_str(out, r->suite_version);
	fputc(',', out);
	report_csv_str(out, w ? w->name : "");
	fputc(',', out);
	report_csv_str(out, st->step);
	fputc(',', out);
	report_csv_str(out, st->name);
	fprintf(out, ",%d,%d,%d,", st->conc, st->repeats, st->complete);
	report_csv_str(out, st->skipped);
	fputc(',', out);
	report_csv_str(out, w ? w->metric : "");
	if (w) {
		report_csv_stat(out, &w->thr);
		report_csv_stat(out, &w->p50);
		report_csv_stat(out, &w->p99);
		fprintf(out, ",%.17g", w->errors);
	} else {
		fputs(",,,,,,,,,,,,,,,,", out);
	}
	fprintf(out, ",%d", st->sm_n);
	for (k = 0; k < REPORT_SM_N; k++)
		if (st->sm_n)
			fprintf(out, ",%.17g", st->sm[k]);
		else
			fputc(',', out);
	if (st->pb_seconds)
		fprintf(out, ",%d,%.17g,%.17g", st->pb_seconds,
			st->pb_lost_pct, st->pb_stddev_pct);
	else
		fputs(",0,,", out);
	report_csv_tail(out, st, w);
}

int report_csv(FILE *out, struct report_res *rs, int n)
{
	static const char *const sh[] = { "thr", "p50_ns", "p99_ns" };
	int i, s, w, k;

	fputs("result,file,suite,suite_version,workload,step,step_name,concurrency,repeats,complete_repeats,skipped,metric",
	      out);
	for (k = 0; k < 3; k++)
		fprintf(out, ",%s_n,%s_median,%s_mean,%s_ci95_lo,%s_ci95_hi",
			sh[k], sh[k], sh[k], sh[k], sh[k]);
	fputs(",errors,sampler_intervals", out);
	for (k = 0; k < REPORT_SM_N; k++)
		fprintf(out, ",%s", report_sm_fields[k]);
	fputs(",probe_seconds,probe_lost_pct,probe_stddev_pct,successes,failures,error_rate,invalid_repeats,flag,stddev_ns\n", out);
	for (i = 0; i < n; i++)
		for (s = 0; s < rs[i].nsteps; s++) {
			const struct report_step *st = &rs[i].steps[s];

			if (!st->nwl)
				report_csv_row(out, &rs[i], st, NULL);
			for (w = 0; w < st->nwl; w++)
				report_csv_row(out, &rs[i], st, &st->wl[w]);
		}
	fflush(out);
	return ferror(out) ? -EIO : 0;
}

/* --- command --------------------------------------------------------- */

static void report_usage(FILE *f)
{
	fprintf(f,
"usage: benchboot report [--html OUT.html] [--csv OUT.csv] [--force]\n"
"                        [--quiet] RESULT.json...\n"
"  Tables of one result, or several side by side (the first is the\n"
"  baseline: ratio and significance per figure).\n"
"  --html OUT   one self-contained HTML page with charts\n"
"  --csv OUT    one row per (result, workload, step, concurrency)\n"
"  --force      compare results of different suites or suite versions\n"
"  --quiet      no terminal tables (only the files asked for)\n");
}

/* Writes OUT through a temporary file, so a failed run leaves no half
 * page behind. */
static int report_write(const char *path, struct report_res *rs, int n,
			int (*fn)(FILE *, struct report_res *, int))
{
	char tmp[4096];
	FILE *f;
	int rc;

	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "w");
	if (!f)
		return -errno;
	rc = fn(f, rs, n);
	if (fclose(f) != 0 && rc == 0)
		rc = -errno;
	if (rc == 0 && rename(tmp, path) != 0)
		rc = -errno;
	if (rc != 0)
		unlink(tmp);
	return rc;
}

int report_main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "html", required_argument, 0, 'H' },
		{ "csv", required_argument, 0, 'C' },
		{ "force", no_argument, 0, 'f' },
		{ "quiet", no_argument, 0, 'q' },
		{ "help", no_argument, 0, 'h' },
		{ 0, 0, 0, 0 },
	};
	const char *html = NULL, *csv = NULL;
	struct report_res *rs = NULL;
	int force = 0, quiet = 0, c, i, n = 0, rc = 1;
	char err[512];

	optind = 1;
	while ((c = getopt_long(argc, argv, "fqh", lo, NULL)) != -1) {
		switch (c) {
		case 'H': html = optarg; break;
		case 'C': csv = optarg; break;
		case 'f': force = 1; break;
		case 'q': quiet = 1; break;
		case 'h': report_usage(stdout); return 0;
		default: report_usage(stderr); return 2;
		}
	}
	if (optind >= argc) {
		fprintf(stderr, "benchboot report: no result file given\n");
		report_usage(stderr);
		return 2;
	}
	rs = calloc(argc - optind, sizeof(*rs));
	if (!rs)
		return 1;
	for (i = optind; i < argc; i++) {
		if (report_load(argv[i], &rs[n], err, sizeof(err)) != 0) {
			fprintf(stderr, "benchboot report: %s\n", err);
			goto out;
		}
		n++;
	}
	for (i = 1; i < n; i++) {
		if (report_comparable(&rs[0], &rs[i], err, sizeof(err)) == 0)
			continue;
		if (!force) {
			fprintf(stderr,
				"benchboot report: refusing to compare: %s; --force compares anyway\n",
				err);
			goto out;
		}
		fprintf(stderr, "benchboot report: warning: %s (--force)\n",
			err);
	}
	if (!quiet && report_text(stdout, rs, n) != 0)
		goto out;
	if (html && (c = report_write(html, rs, n, report_html)) != 0) {
		fprintf(stderr, "benchboot report: %s: %s\n", html,
			strerror(-c));
		goto out;
	}
	if (csv && (c = report_write(csv, rs, n, report_csv)) != 0) {
		fprintf(stderr, "benchboot report: %s: %s\n", csv,
			strerror(-c));
		goto out;
	}
	rc = 0;
out:
	for (i = 0; i < n; i++)
		report_free(&rs[i]);
	free(rs);
	return rc;
}
