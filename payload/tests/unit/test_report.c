/* test_report.c: `benchboot report` on the committed sample results (a
 * real chain run, fixtures/results/regenerate.sh): the model against the
 * documents' own fields, damaged documents refused naming the field,
 * significance, comparability, and what each renderer writes. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/report_csv.h"
#include "report/report_html.h"
#include "report/report_text.h"
#include "result/result_doc.h"
#include "tap.h"

#define FIX "payload/tests/fixtures/results/"

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *b;
	long n;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	b = malloc(n + 1);
	if (b && fread(b, 1, n, f) != (size_t)n) {
		free(b);
		b = NULL;
	}
	fclose(f);
	if (b)
		b[n] = 0;
	*len = (size_t)n;
	return b;
}

/* Path of a fixture, from the tree's top ($TOP, else the cwd). */
static const char *fix(const char *name)
{
	static char p[4096];
	const char *top = getenv("TOP");

	snprintf(p, sizeof(p), "%s%s" FIX "%s", top ? top : "",
		 top ? "/" : "", name);
	return p;
}

/* A damaged copy of the document: mutate(doc) changes one thing. */
struct damage {
	const char *what;
	void (*mutate)(cJSON *doc);
	const char *want1, *want2;	/* both must be in the message */
};

static cJSON *step0(cJSON *d)
{
	return cJSON_GetArrayItem(cJSON_GetObjectItem(d, "steps"), 0);
}

static cJSON *rep0(cJSON *d)
{
	return cJSON_GetArrayItem(cJSON_GetObjectItem(step0(d), "repeats"), 0);
}

static void m_newer(cJSON *d)
{
	cJSON_ReplaceItemInObject(d, "schema",
				  cJSON_CreateString("benchboot.result/2"));
}

static void m_other(cJSON *d)
{
	cJSON_ReplaceItemInObject(d, "schema",
				  cJSON_CreateString("something/1"));
}

static void m_noname(cJSON *d)
{
	cJSON_DeleteItemFromObject(step0(d), "name");
}

static void m_ci(cJSON *d)
{
	cJSON *ci = cJSON_GetObjectItem(cJSON_GetObjectItem(
		cJSON_GetObjectItem(cJSON_GetObjectItem(step0(d), "stats"),
				    "http"), "requests_per_s"), "ci95");

	cJSON_DeleteItemFromArray(ci, 1);
}

static void m_record(cJSON *d)
{
	cJSON *r = cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(
		cJSON_GetArrayItem(cJSON_GetObjectItem(rep0(d), "clients"), 0),
		"records"), 0), "record");

	cJSON_ReplaceItemInObject(r, "schema",
				  cJSON_CreateString("benchboot.workload/3"));
}

static void m_hist(cJSON *d)
{
	cJSON *l = cJSON_GetObjectItem(cJSON_GetObjectItem(
		cJSON_GetObjectItem(step0(d), "merged"), "http"), "latency");
	cJSON *c = cJSON_GetObjectItem(l, "count");

	cJSON_SetNumberValue(c, c->valuedouble + 1);
}

static void m_sample(cJSON *d)
{
	cJSON *s = cJSON_GetArrayItem(cJSON_GetObjectItem(cJSON_GetObjectItem(
		rep0(d), "series"), "sample"), 0);

	cJSON_DeleteItemFromObject(s, "cpu_idle_pct");
}

static void m_steps(cJSON *d)
{
	cJSON_ReplaceItemInObject(d, "steps", cJSON_CreateString("none"));
}

static void m_conc(cJSON *d)
{
	cJSON_ReplaceItemInObject(step0(d), "concurrency",
				  cJSON_CreateString("four"));
}

static void m_suite(cJSON *d)
{
	cJSON_DeleteItemFromObject(cJSON_GetObjectItem(d, "suite"),
				   "version");
}

static const struct damage damages[] = {
	{ "newer schema", m_newer, "field \"schema\"", "newer" },
	{ "other schema", m_other, "field \"schema\"", "benchboot.result/1" },
	{ "step without name", m_noname, "\"steps[0].name\"", "missing" },
	{ "ci95 of one number", m_ci,
	  "\"steps[0].stats.http.requests_per_s.ci95\"", "two numbers" },
	{ "embedded record of a newer schema", m_record,
	  "\"steps[0].repeats[0].clients[0].records[0].record.schema\"",
	  "newer" },
	{ "histogram count off by one", m_hist,
	  "\"steps[0].merged.http.latency\"", "count" },
	{ "sampler record without idle", m_sample,
	  "\"steps[0].repeats[0].series.sample[0].cpu_idle_pct\"", "missing" },
	{ "steps not an array", m_steps, "\"steps\"", "an array" },
	{ "concurrency a string", m_conc, "\"steps[0].concurrency\"",
	  "a number" },
	{ "suite without version", m_suite, "\"suite.version\"", "missing" },
};

static void test_damages(const char *text, size_t len)
{
	struct result_doc r;
	char err[512];
	size_t i;

	for (i = 0; i < sizeof(damages) / sizeof(damages[0]); i++) {
		cJSON *d = cJSON_ParseWithLength(text, len);
		char *out;
		int rc;

		damages[i].mutate(d);
		out = cJSON_PrintUnformatted(d);
		err[0] = 0;
		rc = result_doc_parse(out, strlen(out), "x.json", &r, err,
				      sizeof(err));
		if (!tap_ok(rc == -EINVAL && strstr(err, damages[i].want1) &&
			    strstr(err, damages[i].want2) &&
			    strncmp(err, "x.json: ", 8) == 0,
			    "refused: %s", damages[i].what))
			printf("#   rc %d, message '%s'\n", rc, err);
		if (rc == 0)
			result_doc_free(&r);
		free(out);
		cJSON_Delete(d);
	}
}

static void test_truncated(const char *text, size_t len)
{
	static const double cut[] = { 0.001, 0.5, 0.999 };
	struct result_doc r;
	char err[512];
	size_t i;
	int rc;

	for (i = 0; i < 3; i++) {
		size_t n = (size_t)(len * cut[i]);

		rc = result_doc_parse(text, n, "t.json", &r, err, sizeof(err));
		if (!tap_ok(rc == -EINVAL && strstr(err, "truncated"),
			    "truncated at %zu of %zu bytes: refused as "
			    "truncated", n, len))
			printf("#   rc %d, message '%s'\n", rc, err);
	}
	rc = result_doc_parse("{\"schema\": ]", 12, "b.json", &r, err,
			      sizeof(err));
	if (!tap_ok(rc == -EINVAL && strstr(err, "line 1 column 12"),
		    "bad JSON: line and column named"))
		printf("#   message '%s'\n", err);
	rc = result_doc_parse("[1]", 3, "a.json", &r, err, sizeof(err));
	tap_ok(rc == -EINVAL && strstr(err, "top level"),
	       "an array is not a result: '%s'", err);
}

/* The model against the document read directly. */
static void test_model(const struct result_doc *r)
{
	const cJSON *steps = cJSON_GetObjectItem(r->doc, "steps"), *so;
	int i = 0, bad = 0, sm = 0, ops = 0, pb = 0;

	TAP_EQ_INT(r->nsteps, cJSON_GetArraySize(steps),
		   "one model step per document step");
	cJSON_ArrayForEach(so, steps) {
		const struct result_doc_step *s = &r->steps[i++];
		const cJSON *st = cJSON_GetObjectItem(so, "stats"), *w;
		const cJSON *rp;
		double num = 0, den = 0, last = 0;

		cJSON_ArrayForEach(w, st) {
			const struct result_doc_wl *m =
				result_doc_find_wl(s, w->string);
			const cJSON *p99 = cJSON_GetObjectItem(
				cJSON_GetObjectItem(w, "p99_ns"), "median");

			if (!m || m->p99.median != p99->valuedouble ||
			    m->thr.n < 1)
				bad++;
		}
		/* Interval-weighted mean of "running" over distinct
		 * readings, recomputed here. */
		cJSON_ArrayForEach(rp, cJSON_GetObjectItem(so, "repeats")) {
			const cJSON *x;

			cJSON_ArrayForEach(x, cJSON_GetObjectItem(
				cJSON_GetObjectItem(rp, "series"), "sample")) {
				double t = cJSON_GetObjectItem(
					cJSON_GetObjectItem(x, "t"),
					"realtime_ns")->valuedouble;
				double iv = cJSON_GetObjectItem(x,
					"interval_s")->valuedouble;

				if (t <= last)
					continue;
				last = t;
				num += iv * cJSON_GetObjectItem(x,
					"running")->valuedouble;
				den += iv;
			}
		}
		if (den > 0) {
			sm++;
			if (fabs(s->sm[RESULT_DOC_SM_RUNNING] - num / den) >
			    1e-9)
				bad++;
		}
		ops += s->nops;
		pb += s->pb_seconds > 0;
	}
	TAP_EQ_INT(bad, 0, "p99 medians and sampler means match the document");
	tap_ok(sm > 0, "sampler averages in %d steps", sm);
	tap_ok(ops >= 12, "sql ops: %d operations timed", ops);
	tap_ok(pb > 0, "probe loss in %d steps", pb);
}

static void test_significance(void)
{
	static const struct {
		struct result_doc_stat a, b;
		int want;
	} t[] = {
		{ { 3, 10, 10, 9, 11 }, { 3, 20, 20, 19, 21 }, 1 },
		{ { 3, 10, 10, 9, 11 }, { 3, 10.5, 10.5, 10, 12 }, 0 },
		{ { 3, 20, 20, 19, 21 }, { 3, 10, 10, 9, 11 }, 1 },
		{ { 1, 10, 10, 10, 10 }, { 3, 20, 20, 19, 21 }, -1 },
		{ { 2, 10, 10, 9, 11 }, { 2, 11, 11, 11, 12 }, 0 },
	};
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		TAP_EQ_INT(result_doc_significant(&t[i].a, &t[i].b), t[i].want,
			   "significance: CI overlap rule");
}

static size_t count(const char *hay, const char *needle)
{
	size_t n = 0;

	for (; (hay = strstr(hay, needle)); hay++)
		n++;
	return n;
}

/* Runs a renderer into memory. */
static char *render(int (*fn)(FILE *, struct result_doc *, int),
		    struct result_doc *rs, int n)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	if (fn(f, rs, n) != 0) {
		fclose(f);
		free(buf);
		return NULL;
	}
	fclose(f);
	return buf;
}

/* 1 when both the text and the HTML report of r say it is time-scaled
 * (and by how much), 0 when either does not. */
static int render_scaled(struct result_doc *r)
{
	char *t = render(report_text, r, 1), *h = render(report_html, r, 1);
	int ok = t && h && strstr(t, "TIME-SCALED x0.1:") &&
		 strstr(h, "time-scaled x0.1:");

	free(t);
	free(h);
	return ok;
}

static void test_render(struct result_doc *rs)
{
	char *t, *c, *h, *line;
	size_t rows = 0, want = 0, commas = 0, badrow = 0;
	int i, s;

	t = render(report_text, rs, 2);
	tap_ok(t && strstr(t, "http-static (http): requests/s against "
			   "concurrency") && strstr(t, "B/A") &&
	       strstr(t, "create+drop") && strstr(t, "idle %") &&
	       strstr(t, "stddev %"),
	       "text: figures, ratio, sql ops, sampler and probe tables");
	tap_ok(t && !strstr(t, "nan") && !strstr(t, "inf"),
	       "text: no nan or inf");
	tap_ok(t && strstr(t, "combined (http:static): requests/s") &&
	       strstr(t, "combined (http:cgi): requests/s"),
	       "text: the combined step's static and CGI http apart");
	{
		/* B's sampler runnable for the first step over A's. */
		const struct result_doc_step *a = &rs[0].steps[0],
					 *b = result_doc_sm_at(&rs[1], a->name);
		char want_row[128];

		snprintf(want_row, sizeof(want_row), "  %-20s %-10s",
			 a->name, "runnable");
		tap_ok(t && strstr(t, "server sampler side by side") &&
		       strstr(t, want_row) && b && a->sm_n && b->sm_n &&
		       a->sm[0] > 0,
		       "text: the sampler tables side by side, a row per "
		       "step and field");
	}
	c = render(report_csv, rs, 2);
	for (i = 0; i < 2; i++)
		for (s = 0; s < rs[i].nsteps; s++)
			want += rs[i].steps[s].nwl ? rs[i].steps[s].nwl : 1;
	for (line = c; line && *line; line = strchr(line, '\n') + 1) {
		size_t k = 0;
		const char *e = strchr(line, '\n');

		if (!e)
			break;
		for (const char *p = line; p < e; p++)
			k += *p == ',';
		if (rows == 0)
			commas = k;
		else if (k != commas)
			badrow++;
		rows++;
	}
	TAP_EQ_INT(rows, want + 1, "csv: header + one row per (result, "
		   "workload, step)");
	TAP_EQ_INT(badrow, 0, "csv: every row has the header's columns");
	h = render(report_html, rs, 2);
	tap_ok(h && strstr(h, "Server sampler side by side") &&
	       strstr(h, "<th>B/A</th>"),
	       "html: the sampler tables side by side with ratios");
	tap_ok(h && count(h, "<svg") >= 8 && count(h, "<svg") ==
	       count(h, "</svg>"), "html: %zu charts, closed",
	       h ? count(h, "<svg") : 0);
	tap_ok(h && !strstr(h, "http://") && !strstr(h, "https://") &&
	       !strstr(h, "<script") && !strstr(h, "url(") &&
	       !strstr(h, "<link") && !strstr(h, "@import"),
	       "html: nothing that could fetch or run");
	tap_ok(h && strstr(h, "class=\"line\"") && strstr(h, "class=\"bar\"")
	       && strstr(h, "class=\"stepb\"") && strstr(h, rs[0].id) &&
	       strstr(h, "server-525400bb0001"),
	       "html: lines, bars, step boundaries, environment");
	free(t);
	free(c);
	free(h);
}

/* Host fields a newer agent may add (dependency and server stack
 * versions) reach the page's environment table. */
static void test_env_more(const char *text, size_t len)
{
	cJSON *d = cJSON_ParseWithLength(text, len);
	cJSON *h = cJSON_GetArrayItem(cJSON_GetObjectItem(cJSON_GetObjectItem(
		d, "environment"), "hosts"), 1);
	cJSON *deps = cJSON_AddObjectToObject(h, "deps");
	struct result_doc r;
	char err[512], *out, *page;

	cJSON_AddStringToObject(deps, "curl", "7.88.1-10+deb12u8");
	cJSON_AddStringToObject(cJSON_AddObjectToObject(h, "stack"), "nginx",
				"1.22.1-9<b>");
	out = cJSON_PrintUnformatted(d);
	if (result_doc_parse(out, strlen(out), "env.json", &r, err,
			     sizeof(err)) != 0) {
		tap_ok(0, "host with extra fields accepted: %s", err);
	} else {
		page = render(report_html, &r, 1);
		tap_ok(page && strstr(page, "deps.curl=7.88.1-10+deb12u8") &&
		       strstr(page, "stack.nginx=1.22.1-9&lt;b&gt;"),
		       "html: extra host fields shown (escaped) under more");
		free(page);
		result_doc_free(&r);
	}
	free(out);
	cJSON_Delete(d);
}

/* A hostile step name in every renderer: what the CSV, the page and the
 * terminal show of it. */
static const struct {
	const char *name, *csv, *html;
} hostile[] = {
	{ "=SUM(A1)", "\"'=SUM(A1)\"", "=SUM(A1)" },
	{ "+1", "\"'+1\"", "+1" },
	{ "-1+2", "\"'-1+2\"", "-1+2" },
	{ "@x", "\"'@x\"", "@x" },
	{ "\tx", ",?x,", "?x" },
	{ "a,b", "\"a,b\"", "a,b" },
	{ "q\"x", "\"q\"\"x\"", "q&quot;x" },
	{ "<b a='1'>&", "<b a='1'>&", "&lt;b a=&#39;1&#39;&gt;&amp;" },
	{ "\x1b[2J\r", "?[2J?", "?[2J?" },
};

static void test_hostile(const char *text, size_t len)
{
	struct result_doc r;
	char err[512], *out, *csv, *page, *txt;
	size_t i;

	for (i = 0; i < sizeof(hostile) / sizeof(hostile[0]); i++) {
		cJSON *d = cJSON_ParseWithLength(text, len);

		cJSON_ReplaceItemInObject(step0(d), "name",
					  cJSON_CreateString(hostile[i].name));
		out = cJSON_PrintUnformatted(d);
		cJSON_Delete(d);
		if (result_doc_parse(out, strlen(out), "h.json", &r, err,
				     sizeof(err)) != 0) {
			tap_ok(0, "hostile name %zu accepted: %s", i, err);
			free(out);
			continue;
		}
		csv = render(report_csv, &r, 1);
		page = render(report_html, &r, 1);
		txt = render(report_text, &r, 1);
		if (!tap_ok(csv && page && txt &&
			    strstr(csv, hostile[i].csv) &&
			    strstr(page, hostile[i].html) &&
			    !strchr(txt, '\x1b') && !strchr(txt, '\r') &&
			    !strchr(page, '\x1b'),
			    "hostile step name %zu: csv %s, html %s", i,
			    hostile[i].csv, hostile[i].html))
			printf("#   csv has it: %d, html: %d\n",
			       csv && strstr(csv, hostile[i].csv) != NULL,
			       page && strstr(page, hostile[i].html) != NULL);
		free(csv);
		free(page);
		free(txt);
		result_doc_free(&r);
		free(out);
	}
}

/* B swept a concurrency A did not, and skipped a step: both appear. */
static void test_union(const char *text, size_t len, struct result_doc *a)
{
	cJSON *d = cJSON_ParseWithLength(text, len), *so;
	struct result_doc r[2];
	char err[512], *out, *t, *h;

	cJSON_ArrayForEach(so, cJSON_GetObjectItem(d, "steps")) {
		const char *nm =
			cJSON_GetStringValue(cJSON_GetObjectItem(so, "name"));

		if (strcmp(nm, "http-static/c8") == 0) {
			cJSON_ReplaceItemInObject(so, "concurrency",
						  cJSON_CreateNumber(16));
			cJSON_ReplaceItemInObject(so, "name",
				cJSON_CreateString("http-static/c16"));
		} else if (strcmp(nm, "smtp-in/c2") == 0) {
			cJSON_DeleteItemFromObject(so, "stats");
			cJSON_AddStringToObject(so, "skipped",
						"planted reason");
		}
	}
	out = cJSON_PrintUnformatted(d);
	r[0] = *a;
	if (result_doc_parse(out, strlen(out), "u.json", &r[1], err,
			     sizeof(err)) != 0) {
		tap_ok(0, "modified B accepted: %s", err);
	} else {
		t = render(report_text, r, 2);
		h = render(report_html, r, 2);
		tap_ok(t && strstr(t, "\n  8 ") && strstr(t, "\n  16 ") &&
		       strstr(t, "B: smtp-in/c2 skipped: planted reason"),
		       "text: rows for every concurrency of either result, "
		       "skipped step listed");
		tap_ok(h && strstr(h, "<tr><td>16</td><td>-</td>") &&
		       strstr(h, "smtp-in/c2 skipped: planted reason"),
		       "html: the same");
		free(t);
		free(h);
		result_doc_free(&r[1]);
	}
	free(out);
	cJSON_Delete(d);
}

/* Errors and an invalid repeat planted in http-static/c4: its error
 * rate and flag appear in the text and the page, with the reason; a step
 * without errors has a 0.00 rate and no flag. */
static void test_errors(const char *text, size_t len)
{
	cJSON *d = cJSON_ParseWithLength(text, len), *so, *rp, *er;
	struct result_doc r;
	char err[512], *out, *t, *h;
	const struct result_doc_step *st;

	cJSON_ArrayForEach(so, cJSON_GetObjectItem(d, "steps")) {
		if (strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(so,
				"name")), "http-static/c4") != 0)
			continue;
		rp = cJSON_GetArrayItem(cJSON_GetObjectItem(so, "repeats"), 0);
		er = cJSON_GetObjectItem(cJSON_GetObjectItem(
			cJSON_GetObjectItem(rp, "merged"), "http"), "errors");
		/* As many 404s as successes in the first repeat. */
		cJSON_AddNumberToObject(er, "status_4xx", cJSON_GetNumberValue(
			cJSON_GetObjectItem(cJSON_GetObjectItem(
				cJSON_GetObjectItem(cJSON_GetObjectItem(rp,
				"merged"), "http"), "counters"), "requests")));
		cJSON_AddBoolToObject(rp, "invalid", 1);
		cJSON_AddStringToObject(rp, "invalid_reason",
					"http: planted <errors>");
	}
	out = cJSON_PrintUnformatted(d);
	if (result_doc_parse(out, strlen(out), "e.json", &r, err,
			     sizeof(err)) != 0) {
		tap_ok(0, "errors planted: accepted: %s", err);
	} else {
		st = result_doc_at(&r, "http-static", 4);
		tap_ok(st && st->invalid == 1 &&
		       strcmp(result_doc_step_flag(st), "INVALID") == 0,
		       "errors: one invalid repeat, flagged INVALID");
		tap_ok(st && result_doc_wl_error_rate(&st->wl[0]) > 0.1 &&
		       result_doc_wl_error_rate(&st->wl[0]) < 0.5,
		       "errors: error rate over the step's repeats (%g)",
		       st ? result_doc_wl_error_rate(&st->wl[0]) : -1);
		st = result_doc_at(&r, "http-static", 2);
		tap_ok(st && result_doc_wl_error_rate(&st->wl[0]) == 0 &&
		       !result_doc_step_flag(st)[0],
		       "errors: a clean step has rate 0 and no flag");
		t = render(report_text, &r, 1);
		h = render(report_html, &r, 1);
		tap_ok(t && strstr(t, "err %") && strstr(t, "INVALID") &&
		       strstr(t, "A: http-static/c4: 1 of 3 repeat(s) invalid, "
			      "not averaged: http: planted <errors>"),
		       "text: error column, flag and the reason");
		tap_ok(t && strstr(t, "\n  Totals   ") &&
		       strstr(h, "<tr class=\"total\"><td>Totals</td><td>"),
		       "sql ops: a Totals row (text, html)");
		tap_ok(t && strstr(t, "p99 ms") && strstr(h, "A sd ms") &&
		       st && st->wl[0].sd_ns > 0,
		       "p99: in the one table (text), with a response-time standard deviation (html)");
		tap_ok(h && strstr(h, "A err %") &&
		       strstr(h, "class=\"flag\"") &&
		       strstr(h, "planted &lt;errors&gt;\">INVALID</td>"),
		       "html: error column, flag and the escaped reason");
		free(t);
		free(h);
		result_doc_free(&r);
	}
	free(out);
	cJSON_Delete(d);
}

int main(void)
{
	struct result_doc rs[2], x;
	char err[512], why[512];
	size_t len = 0;
	char *text = slurp(fix("run-a.json"), &len);
	int rc;

	if (!tap_ok(text != NULL, "fixture %s readable", fix("run-a.json")))
		return tap_done();
	rc = result_doc_parse(text, len, "run-a.json", &rs[0], err, sizeof(err));
	if (!tap_ok(rc == 0, "run-a.json accepted"))
		printf("#   %s\n", err);
	rc = result_doc_load(fix("run-b.json"), &rs[1], err, sizeof(err));
	if (!tap_ok(rc == 0, "run-b.json accepted"))
		printf("#   %s\n", err);
	if (rc == 0 && rs[0].doc) {
		test_model(&rs[0]);
		test_render(rs);
		TAP_EQ_INT(result_doc_comparable(&rs[0], &rs[1], why,
						 sizeof(why)),
			   0, "same suite version: comparable");
		x = rs[1];
		x.suite_version = "99";
		rc = result_doc_comparable(&rs[0], &x, why, sizeof(why));
		tap_ok(rc == -EINVAL && strstr(why, "suite version"),
		       "another suite version refused: %s", why);
		x.suite = "other";
		rc = result_doc_comparable(&rs[0], &x, why, sizeof(why));
		tap_ok(rc == -EINVAL && strstr(why, "different suites"),
		       "another suite refused");
		tap_ok(rs[0].time_scale == 1, "no time_scale: full length");
		x = rs[1];
		x.time_scale = 0.05;
		rc = result_doc_comparable(&rs[0], &x, why, sizeof(why));
		tap_ok(rc == -EINVAL && strstr(why, "x1,") &&
		       strstr(why, "x0.05"),
		       "a time-scaled result refused beside a full one: %s",
		       why);
		x = rs[0];
		x.time_scale = 0.1;
		rc = render_scaled(&x);
		tap_ok(rc == 1, "the report says TIME-SCALED x0.1");
	}
	test_env_more(text, len);
	test_hostile(text, len);
	test_errors(text, len);
	if (rs[0].doc)
		test_union(text, len, &rs[0]);
	test_damages(text, len);
	test_truncated(text, len);
	test_significance();
	rc = result_doc_load("/nonexistent/r.json", &x, err, sizeof(err));
	tap_ok(rc == -ENOENT && strstr(err, "/nonexistent/r.json"),
	       "missing file: named");
	result_doc_free(&rs[0]);
	result_doc_free(&rs[1]);
	free(text);
	return tap_done();
}
