/* test_result.c: the controller's result model (result.h) on records
 * written here: counters, errors and per-client rates summed, histograms
 * merged exactly, bad records refused whole, statistics over repeats, the
 * start-skew figures, and why a repeat missed a client's result. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/hist.h"
#include "lib/json_int.h"
#include "result/result.h"
#include "tap.h"

/* A workload record: wl, elapsed_s, counters "requests" and "bytes",
 * errors "timeout", and latency samples lat[0..nlat) in ns. */
static cJSON *rec_new(const char *wl, double elapsed, double requests,
		      double bytes, double timeouts, const uint64_t *lat,
		      int nlat)
{
	cJSON *r = cJSON_CreateObject(), *c;
	struct hist h;
	int i;

	cJSON_AddStringToObject(r, "schema", "benchboot.workload/1");
	cJSON_AddStringToObject(r, "workload", wl);
	cJSON_AddNumberToObject(r, "elapsed_s", elapsed);
	c = cJSON_AddObjectToObject(r, "counters");
	cJSON_AddNumberToObject(c, "requests", requests);
	cJSON_AddNumberToObject(c, "bytes", bytes);
	c = cJSON_AddObjectToObject(r, "errors");
	cJSON_AddNumberToObject(c, "timeout", timeouts);
	if (nlat) {
		hist_init(&h);
		for (i = 0; i < nlat; i++)
			hist_record(&h, lat[i]);
		cJSON_AddItemToObject(r, "latency", hist_to_json(&h));
	}
	return r;
}

static double num(const cJSON *o, const char *path)
{
	char buf[128], *save = NULL, *k;

	snprintf(buf, sizeof(buf), "%s", path);
	for (k = strtok_r(buf, ".", &save); k && o;
	     k = strtok_r(NULL, ".", &save))
		o = cJSON_GetObjectItemCaseSensitive(o, k);
	return cJSON_IsNumber(o) ? o->valuedouble : -1;
}

/* Two clients' http records and one sql record make one repeat. */
static void merge_cases(void)
{
	static const uint64_t l1[] = { 1000, 2000, 3000 }, l2[] = { 4000 };
	static const struct {
		const char *path;
		double want;
	} want[] = {
		{ "http.counters.requests", 400 },
		{ "http.counters.bytes", 4000 },
		{ "http.errors.timeout", 3 },
		{ "http.rates.requests", 50 + 100 },	/* 100/2 + 300/3 */
		{ "http.records", 2 },
		{ "http.latency.count", 4 },
		{ "sql.records", 1 },
		{ "sql.counters.requests", 7 },
		{ "sql.rates.requests", 7 },
	};
	struct result_merge m;
	char err[256];
	cJSON *a = rec_new("http", 2, 100, 1000, 1, l1, 3);
	cJSON *b = rec_new("http", 3, 300, 3000, 2, l2, 1);
	cJSON *c = rec_new("sql", 1, 7, 0, 0, NULL, 0);
	cJSON *mo;
	size_t i;

	result_merge_init(&m);
	TAP_EQ_INT(result_merge_record(&m, a, err, sizeof(err)), 0,
		   "merge: first http record");
	TAP_EQ_INT(result_merge_record(&m, b, err, sizeof(err)), 0,
		   "merge: second http record");
	TAP_EQ_INT(result_merge_record(&m, c, err, sizeof(err)), 0,
		   "merge: an sql record beside them");
	TAP_EQ_INT(m.n, 2, "merge: one accumulator per workload");
	mo = result_merge_json(&m);
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		tap_ok(num(mo, want[i].path) == want[i].want,
		       "merged %s = %g (got %g)", want[i].path, want[i].want,
		       num(mo, want[i].path));
	tap_ok(cJSON_GetObjectItemCaseSensitive(
		       cJSON_GetObjectItemCaseSensitive(mo, "sql"), "latency") ==
	       NULL, "merged: no latency for a workload without one");
	cJSON_Delete(mo);
	result_merge_free(&m);
	cJSON_Delete(a);
	cJSON_Delete(b);
	cJSON_Delete(c);
}

/* Records refused whole: the reason names the field; nothing counts. */
static void bad_cases(void)
{
	static const struct {
		const char *json;
		int rc;
		const char *msg;
	} bad[] = {
		{ "{\"schema\":\"other/1\",\"workload\":\"http\"}", -EINVAL,
		  "\"schema\"" },
		{ "{\"workload\":\"http\"}", -EINVAL, "\"schema\"" },
		{ "{\"schema\":\"benchboot.workload/1\"}", -EINVAL,
		  "\"workload\"" },
		{ "{\"schema\":\"benchboot.workload/1\",\"workload\":\"http\","
		  "\"counters\":{\"requests\":5},\"latency\":\"fast\"}",
		  -EINVAL, "" },
		{ "{\"schema\":\"benchboot.workload/1\",\"workload\":\"http\","
		  "\"counters\":{\"requests\":5},\"latency\":{\"count\":3}}",
		  -EINVAL, "" },
	};
	struct result_merge m;
	char err[256], name[32];
	size_t i;
	int k;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		cJSON *r = cJSON_Parse(bad[i].json);
		int rc;

		result_merge_init(&m);
		err[0] = 0;
		rc = result_merge_record(&m, r, err, sizeof(err));
		tap_ok(rc == bad[i].rc && strstr(err, bad[i].msg) && err[0] &&
		       m.n == 0, "bad record %zu refused whole: %s", i, err);
		result_merge_free(&m);
		cJSON_Delete(r);
	}
	/* More workloads than a step keeps apart. */
	result_merge_init(&m);
	for (k = 0; k <= RESULT_MAX_WL; k++) {
		cJSON *r;

		snprintf(name, sizeof(name), "w%d", k);
		r = rec_new(name, 1, 1, 1, 0, NULL, 0);
		if (k == RESULT_MAX_WL)
			TAP_EQ_INT(result_merge_record(&m, r, err,
						       sizeof(err)), -ENOSPC,
				   "a 17th workload is refused");
		else
			result_merge_record(&m, r, err, sizeof(err));
		cJSON_Delete(r);
	}
	result_merge_free(&m);
}

/* Three complete repeats: rates 10, 20, 30 and p99s; the exact merge of
 * the repeats' histograms. */
static void stats_cases(void)
{
	static const uint64_t lat[] = { 1000, 2000 };
	struct result_merge all, rep;
	cJSON *per_rep = cJSON_CreateArray(), *merged, *stats, *r;
	char err[256];
	int i;

	result_merge_init(&all);
	for (i = 1; i <= 3; i++) {
		result_merge_init(&rep);
		r = rec_new("http", 1, 10.0 * i, 0, 0, lat, 2);
		result_merge_record(&rep, r, err, sizeof(err));
		cJSON_Delete(r);
		result_merge_hists(&all, &rep);
		result_repeat_check(&rep, NULL, -1);
		cJSON_AddItemToArray(per_rep, result_merge_json(&rep));
		result_merge_free(&rep);
	}
	merged = cJSON_CreateObject();
	stats = cJSON_CreateObject();
	result_step_stats(merged, stats, &all, per_rep);
	tap_ok(num(stats, "http.requests_per_s.n") == 3 &&
	       num(stats, "http.requests_per_s.mean") == 20 &&
	       num(stats, "http.requests_per_s.median") == 20 &&
	       num(stats, "http.requests_per_s.min") == 10 &&
	       num(stats, "http.requests_per_s.max") == 30,
	       "stats: requests_per_s over three repeats (n 3, mean 20)");
	tap_ok(num(stats, "http.bytes_per_s.n") == 3,
	       "stats: every rate key gets its statistics");
	tap_ok(num(stats, "http.p99_ns.n") == 3 &&
	       num(stats, "http.p99_ns.median") > 0,
	       "stats: p99 per repeat summarised");
	tap_ok(num(stats, "http.stddev_ns.n") == 3 &&
	       num(stats, "http.stddev_ns.median") > 400 &&
	       num(stats, "http.stddev_ns.median") < 600,
	       "stats: the response-time stddev per repeat (1 and 2 us: 500 ns)");
	tap_ok(num(stats, "http.error_rate.n") == 3 &&
	       num(stats, "http.error_rate.max") == 0,
	       "stats: the error rate per repeat summarised");
	TAP_EQ_INT(num(merged, "http.latency.count"), 6,
		   "step merge: histograms of every repeat, exactly");
	cJSON_Delete(merged);
	cJSON_Delete(stats);
	cJSON_Delete(per_rep);
	result_merge_free(&all);
}

static cJSON *started(const char *wl, double realtime_ns)
{
	cJSON *r = cJSON_CreateObject();

	cJSON_AddStringToObject(r, "workload", wl);
	cJSON_AddNumberToObject(cJSON_AddObjectToObject(r, "start"),
				"realtime_ns", realtime_ns);
	return r;
}

static void skew_cases(void)
{
	static const struct {
		const char *wl;
		double t;
		int64_t off;
	} notes[] = {
		{ "http", 1000, 0 }, { "http", 1700, 500 },	/* 1000, 1200 */
		{ "sql", 5000, 0 },				/* alone */
		{ "smtp", 100, 0 }, { "smtp", 190, 0 },		/* 90 */
	};
	struct result_starts s = { .n = 0 };
	cJSON *doc, *r;
	size_t i;

	r = started("http", 1);
	result_starts_note(&s, r, 0);
	cJSON_Delete(r);
	TAP_EQ_INT(result_starts_skew(&s), -1, "skew: one record is no skew");
	memset(&s, 0, sizeof(s));
	for (i = 0; i < sizeof(notes) / sizeof(notes[0]); i++) {
		r = started(notes[i].wl, notes[i].t);
		result_starts_note(&s, r, notes[i].off);
		cJSON_Delete(r);
	}
	TAP_EQ_INT(result_starts_skew(&s), 200,
		   "skew: the widest workload's spread, offsets applied");
	doc = cJSON_Parse("{\"steps\":[{\"repeats\":[{\"skew_ns\":{\"launch\":"
			  "10}},{\"skew_ns\":{\"launch\":30}}]},{\"repeats\":"
			  "[{\"skew_ns\":{}}]}]}");
	result_skew_summary(doc);
	tap_ok(num(doc, "skew.launch_ns.n") == 2 &&
	       num(doc, "skew.launch_ns.max") == 30 &&
	       num(doc, "skew.launch_ns.median") == 20,
	       "skew summary: launch over every repeat");
	tap_ok(!cJSON_GetObjectItemCaseSensitive(
		       cJSON_GetObjectItemCaseSensitive(doc, "skew"),
		       "record_ns"),
	       "skew summary: no record_ns when no repeat has one");
	cJSON_Delete(doc);
}

/* Error rates and the validity rule: one repeat of a workload with
 * requests successes and timeouts errors, checked against max. */
static void validity_cases(void)
{
	static const struct {
		const char *name, *wl;
		double ok, errs, max;
		int valid;
		double rate;		/* -1: no error_rate field */
		const char *reason;	/* start of invalid_reason */
	} c[] = {
		{ "no errors", "http", 1000, 0, 0.01, 1, 0, NULL },
		{ "1 % exactly is valid", "http", 990, 10, 0.01, 1, 0.01,
		  NULL },
		{ "half 404s invalid", "http", 500, 500, 0.01, 0, 0.5,
		  "http: 500 errors of 1000 attempts (50.00 %), above 1.00 %" },
		{ "all timeouts invalid", "http", 0, 64, 0.01, 0, 1,
		  "http: no successful operation (64 errors)" },
		{ "nothing attempted: invalid, never a 0", "http", 0, 0, 0.01,
		  0, 0, "http: no successful operation (0 errors)" },
		{ "threshold off", "http", 1, 99, -1, 1, 0.99, NULL },
		{ "threshold off, no success", "http", 0, 5, -1, 0, 1,
		  "http: no successful operation (5 errors)" },
		{ "threshold 0: any error", "http", 1000, 1, 0, 0, 1.0 / 1001,
		  "http: 1 errors of 1001" },
		{ "no success counter", "probe", 0, 50, 0.01, 1, -1, NULL },
	};
	size_t i;

	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		struct result_merge m;
		cJSON *r = rec_new(c[i].wl, 1, c[i].ok, 0, c[i].errs, NULL, 0);
		cJSON *rep = cJSON_CreateObject(), *mo;
		const cJSON *why;
		char err[256];
		int v;

		result_merge_init(&m);
		result_merge_record(&m, r, err, sizeof(err));
		v = result_repeat_check(&m, rep, c[i].max);
		mo = result_merge_json(&m);
		tap_ok(v == c[i].valid, "validity: %s: %s", c[i].name,
		       v ? "valid" : "invalid");
		tap_ok(!!cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(
			       rep, "invalid")) == !c[i].valid,
		       "validity: %s: \"invalid\" only when invalid",
		       c[i].name);
		why = cJSON_GetObjectItemCaseSensitive(rep, "invalid_reason");
		if (!tap_ok(c[i].reason ? cJSON_IsString(why) &&
			    strncmp(why->valuestring, c[i].reason,
				    strlen(c[i].reason)) == 0 : !why,
			    "validity: %s: reason", c[i].name))
			printf("#   got \"%s\"\n", cJSON_IsString(why) ?
			       why->valuestring : "(none)");
		if (c[i].rate < 0) {
			char path[64];

			snprintf(path, sizeof(path), "%s.error_rate", c[i].wl);
			tap_ok(num(mo, path) == -1,
			       "validity: %s: no error_rate", c[i].name);
		} else {
			tap_ok(num(mo, "http.error_rate") - c[i].rate < 1e-9 &&
			       c[i].rate - num(mo, "http.error_rate") < 1e-9,
			       "validity: %s: error_rate %g", c[i].name,
			       num(mo, "http.error_rate"));
			tap_ok(num(mo, "http.successes") == c[i].ok &&
			       num(mo, "http.failures") == c[i].errs,
			       "validity: %s: successes and failures",
			       c[i].name);
		}
		result_merge_free(&m);
		cJSON_Delete(mo);
		cJSON_Delete(rep);
		cJSON_Delete(r);
	}
	TAP_EQ_STR(result_success_counter("http:cgi"), "requests",
		   "a labelled workload's success counter");
	TAP_EQ_STR(result_success_counter("sql"), "statements",
		   "sql's success counter");
	TAP_EQ_STR(result_success_counter("smtp"), "mails",
		   "smtp's success counter");
	tap_ok(result_success_counter("sample") == NULL,
	       "sample has no success counter");
}

/* Labelled records (http --label) merge apart: static and CGI lines of
 * one step, and an unlabelled one. */
static void label_cases(void)
{
	static const char *const lab[] = { "static", "cgi", NULL, "cgi" };
	struct result_merge m;
	char err[256];
	cJSON *mo;
	size_t i;

	result_merge_init(&m);
	for (i = 0; i < 4; i++) {
		cJSON *r = rec_new("http", 1, 100 * (i + 1), 0, 0, NULL, 0);

		if (lab[i])
			cJSON_AddStringToObject(r, "label", lab[i]);
		result_merge_record(&m, r, err, sizeof(err));
		cJSON_Delete(r);
	}
	TAP_EQ_INT(m.n, 3, "labels: three accumulators (static, cgi, http)");
	result_repeat_check(&m, NULL, 0.01);
	mo = result_merge_json(&m);
	tap_ok(num(mo, "http:static.counters.requests") == 100 &&
	       num(mo, "http:cgi.counters.requests") == 600 &&
	       num(mo, "http.counters.requests") == 300,
	       "labels: each line's counters on their own");
	tap_ok(num(mo, "http:cgi.error_rate") == 0,
	       "labels: a labelled workload has its error rate");
	result_merge_free(&m);
	cJSON_Delete(mo);
}

/* Counters and start times as the clients print them (exact integers
 * beyond a double's 2^53, json_int.h), merged and read exactly. */
static void exact_cases(void)
{
	static const struct {
		const char *name;
		const char *a, *b;	/* the two records' "requests" */
		const char *want;	/* the merged counter as printed */
	} c[] = {
		{ "0 + 0", "0", "0", "0" },
		{ "2^53+1 + 1 (a double says 2^53)", "9007199254740993", "1",
		  "9007199254740994" },
		{ "INT64_MAX - 1 + 1", "9223372036854775806", "1",
		  "9223372036854775807" },
		{ "a fraction stays a number", "1.5", "2", "3.5" },
	};
	static const char fmt[] =
		"{\"schema\":\"benchboot.workload/1\",\"workload\":\"http\","
		"\"elapsed_s\":1,\"counters\":{\"requests\":%s},"
		"\"start\":{\"realtime_ns\":%s}}";
	char text[512], err[200], want[128], *out;
	struct result_starts st = { .n = 0 };
	size_t i;

	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		struct result_merge m;
		cJSON *r, *mo;
		int rc;

		result_merge_init(&m);
		snprintf(text, sizeof(text), fmt, c[i].a, "1");
		r = json_int_parse(text, strlen(text), NULL, 0);
		rc = result_merge_record(&m, r, err, sizeof(err));
		cJSON_Delete(r);
		snprintf(text, sizeof(text), fmt, c[i].b, "1");
		r = json_int_parse(text, strlen(text), NULL, 0);
		rc |= result_merge_record(&m, r, err, sizeof(err));
		cJSON_Delete(r);
		mo = result_merge_json(&m);
		out = json_int_print(cJSON_GetObjectItemCaseSensitive(
			cJSON_GetObjectItemCaseSensitive(mo, "http"),
			"counters"), 0);
		snprintf(want, sizeof(want), "{\"requests\":%s}", c[i].want);
		tap_ok(rc == 0, "exact: %s merged", c[i].name);
		TAP_EQ_STR(out, want, c[i].name);
		free(out);
		cJSON_Delete(mo);
		result_merge_free(&m);
	}
	/* Two starts 3 ns apart at a real time: a double would see 0 or
	 * 256. */
	for (i = 0; i < 2; i++) {
		cJSON *r;

		snprintf(text, sizeof(text), fmt, "1",
			 i ? "1796131028425257520" : "1796131028425257517");
		r = json_int_parse(text, strlen(text), NULL, 0);
		result_starts_note(&st, r, 0);
		cJSON_Delete(r);
	}
	TAP_EQ_INT(result_starts_skew(&st), 3,
		   "exact: 3 ns start skew at a real ns time");
}

/* A checkpoint of step "s" with repeats 1 (complete, latency 1000 and
 * 3000 ns), 2 (incomplete) and 4 (out of order: not taken). */
static void resume_cases(void)
{
	static const char cp_text[] =
		"{\"suite\":{\"name\":\"q\",\"version\":\"1\",\"file\":\"f\"},"
		"\"environment\":{\"hosts\":[{\"id\":\"ctl\",\"role\":"
		"\"controller\"},{\"id\":\"c1\",\"role\":\"client\"},"
		"{\"id\":\"c2\",\"role\":\"client\"}]},\"steps\":[{\"name\":"
		"\"s\",\"repeats\":[{\"repeat\":1,\"complete\":true,"
		"\"merged\":{\"http\":{\"rates\":{\"requests\":10},"
		"\"latency\":%s}}},{\"repeat\":2,\"complete\":false,"
		"\"merged\":{}},{\"repeat\":4,\"complete\":true,"
		"\"merged\":{}}]}]}";
	static const struct {
		const char *suite;
		const char *ids[3];
		int n, want;
		const char *why;
	} m[] = {
		{ "{\"name\":\"q\",\"version\":\"1\",\"file\":\"f\"}",
		  { "c2", "c1" }, 2, 1, "" },
		{ "{\"name\":\"q\",\"version\":\"2\",\"file\":\"f\"}",
		  { "c1", "c2" }, 2, 0, "the suite changed" },
		{ "{\"name\":\"q\",\"version\":\"1\",\"file\":\"f\"}",
		  { "c1", "c3" }, 2, 0, "client c2 of the checkpoint" },
		{ "{\"name\":\"q\",\"version\":\"1\",\"file\":\"f\"}",
		  { "c1", "c2", "c3" }, 3, 0, "3 client(s) now, 2" },
	};
	struct result_merge all;
	char text[4096], why[300];
	cJSON *cp, *reps, *per_rep, *names, *lat, *su;
	struct hist h;
	int ncomplete = 0, k;
	size_t i;
	char *ls;

	hist_init(&h);
	hist_record(&h, 1000);
	hist_record(&h, 3000);
	lat = hist_to_json(&h);
	ls = json_int_print(lat, 0);
	snprintf(text, sizeof(text), cp_text, ls);
	free(ls);
	cJSON_Delete(lat);
	cp = json_int_parse(text, strlen(text), NULL, 0);
	for (i = 0; i < sizeof(m) / sizeof(m[0]); i++) {
		su = cJSON_Parse(m[i].suite);
		why[0] = 0;
		k = result_resume_match(cp, su, m[i].ids, m[i].n, why,
					sizeof(why));
		if (!tap_ok(k == m[i].want && strstr(why, m[i].why),
			    "resume match %zu: %s", i, m[i].want ? "same" :
			    m[i].why))
			printf("#   got %d \"%s\"\n", k, why);
		cJSON_Delete(su);
	}
	result_merge_init(&all);
	reps = cJSON_CreateArray();
	per_rep = cJSON_CreateArray();
	names = cJSON_CreateArray();
	k = result_resume_step(cp, "s", reps, &all, per_rep, &ncomplete,
			       names);
	TAP_EQ_INT(k, 2, "resume: repeats 1 and 2 taken, not 4");
	TAP_EQ_INT(ncomplete, 1, "resume: only the complete one counts");
	TAP_EQ_INT(cJSON_GetArraySize(per_rep), 1, "resume: its merged kept");
	tap_ok(all.n == 1 && all.acc[0].has_hist &&
	       all.acc[0].h->count == 2 && all.acc[0].h->max >= 3000,
	       "resume: its histogram in the step's merge");
	tap_ok(cJSON_IsTrue(cJSON_GetObjectItem(cJSON_GetArrayItem(reps, 1),
						"resumed")),
	       "resume: each copy marked resumed");
	TAP_EQ_STR(cJSON_GetArrayItem(names, 1)->valuestring, "s/r2",
		   "resume: the repeats named");
	TAP_EQ_INT(result_resume_step(cp, "other", reps, &all, per_rep,
				      &ncomplete, names), 0,
		   "resume: a step the checkpoint lacks starts at 1");
	result_merge_free(&all);
	cJSON_Delete(reps);
	cJSON_Delete(per_rep);
	cJSON_Delete(names);
	cJSON_Delete(cp);
}

/* A repeat's missing clients: the cause from what the controller knows,
 * its label, and the repeat's reason (a client cut at the step's time
 * limit is not "lost"). */
static void missing_cases(void)
{
	static const struct {
		int prep, lost, stop;
		const char *label, *reason;
	} m[] = {
		{ 0, 0, 0, "no result within the step's time limit",
		  "1 client(s) over the step's time limit, 0 record(s) failed" },
		{ 0, 1, 0, "agent lost during the step",
		  "1 client(s) lost, 0 record(s) failed" },
		{ 1, 1, 0, "not prepared in time",
		  "1 client(s) not prepared in time, 0 record(s) failed" },
		{ 0, 1, 1, "agent lost during the step",
		  "1 client(s) lost, 0 record(s) failed" },
		{ 0, 0, 1, "no result: the controller was stopped",
		  "1 client(s) stopped with the controller, "
		  "0 record(s) failed" },
	};
	int miss[RESULT_MISSING_N];
	char why[200], name[64];
	size_t i;

	for (i = 0; i < sizeof(m) / sizeof(m[0]); i++) {
		enum result_missing c = result_missing_cause(m[i].prep,
							     m[i].lost,
							     m[i].stop);

		memset(miss, 0, sizeof(miss));
		miss[c] = 1;
		result_incomplete_reason(why, sizeof(why), miss, 0);
		snprintf(name, sizeof(name), "missing %zu: the client's error",
			 i);
		TAP_EQ_STR(result_missing_label(c), m[i].label, name);
		snprintf(name, sizeof(name), "missing %zu: the repeat's reason",
			 i);
		TAP_EQ_STR(why, m[i].reason, name);
	}
	memset(miss, 0, sizeof(miss));
	miss[RESULT_MISSING_LOST] = 2;
	miss[RESULT_MISSING_LATE] = 1;
	miss[RESULT_MISSING_STOPPED] = 1;
	result_incomplete_reason(why, sizeof(why), miss, 3);
	TAP_EQ_STR(why, "2 client(s) lost, 1 client(s) over the step's time "
		   "limit, 1 client(s) stopped with the controller, 3 "
		   "record(s) failed", "missing: causes side by side");
	memset(miss, 0, sizeof(miss));
	result_incomplete_reason(why, 30, miss, 1);
	TAP_EQ_STR(why, "1 record(s) failed", "missing: records only");
}

int main(void)
{
	missing_cases();
	exact_cases();
	resume_cases();
	merge_cases();
	label_cases();
	validity_cases();
	bad_cases();
	stats_cases();
	skew_cases();
	return tap_done();
}
