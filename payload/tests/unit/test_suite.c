/* test_suite.c: the suite file parser: good files parse into the right
 * steps, and every mistake names the file, the line and what was wanted;
 * the shipped suite files parse. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "controller/suite.h"
#include "tap.h"

#define HEAD "suite t\nversion 1\n"
#define X8 " x x x x x x x x"
#define X64 X8 X8 X8 X8 X8 X8 X8 X8

static const struct {
	const char *name, *text, *err;	/* err NULL: must parse */
} cases[] = {
	{ "minimal", HEAD "step a\n run http -c {conc} http://{server}/\n",
	  NULL },
	{ "comments, blanks, quotes", "# c\n\n" HEAD "step a # trailing\n"
	  "\trun http \"-H\" \"X: a b\" http://{server}/\n", NULL },
	{ "url patterns pass through", HEAD "step a\n run http "
	  "http://h/d{00..99}/f{a,b}.html\n", NULL },
	{ "unknown key at top", HEAD "bogus 1\nstep a\n run http x\n",
	  "t.suite:3: expected suite, version" },
	{ "unknown key in step", HEAD "step a\n run http x\n frob 2\n",
	  "t.suite:5: expected a step setting" },
	{ "bad duration", HEAD "duration 10q\nstep a\n run http x\n",
	  "t.suite:3: duration: expected a duration" },
	{ "too short duration", HEAD "duration 5ms\nstep a\n run http x\n",
	  "t.suite:3: duration: expected at least 100ms" },
	{ "bad repeats", HEAD "repeats 0\nstep a\n run http x\n",
	  "t.suite:3: repeats: expected a whole number 1..1000" },
	{ "bad concurrency", HEAD "step a\n concurrency 2 x\n run http x\n",
	  "t.suite:4: concurrency: expected a whole number" },
	{ "no steps", HEAD, "t.suite:3: expected at least one step" },
	{ "step without run", HEAD "step a\nstep b\n run http x\n",
	  "t.suite:3: step a: expected at least one run line" },
	{ "duplicate step", HEAD "step a\n run http x\nstep a\n run http y\n",
	  "t.suite:5: step: expected a new name, 'a' is already used on "
	  "line 3" },
	{ "unknown placeholder", HEAD "step a\n run http {nope}\n",
	  "t.suite:4: run: unknown placeholder {nope}" },
	{ "set variable resolves", HEAD "set port 80\nstep a\n run http "
	  ":{port}\n", NULL },
	{ "unclosed quote", HEAD "step a\n run http \"abc\n",
	  "t.suite:4: expected a closing '\"'" },
	{ "missing suite line", "version 1\nstep a\n run http x\n",
	  "t.suite: expected a 'suite NAME' line" },
	{ "missing version", "suite t\nstep a\n run http x\n",
	  "t.suite: expected a 'version V' line" },
	{ "bad workload name", HEAD "step a\n run ht/tp x\n",
	  "t.suite:4: run: expected a workload name" },
	{ "servers out of range", HEAD "servers 2\nstep a\n run http x\n",
	  "t.suite:3: servers: expected a whole number 0..1" },
	{ "relay sink port", HEAD "step a\n sink 2525\n run smtp x\n", NULL },
	{ "relay sink port 0", HEAD "step a\n sink 0\n run smtp x\n",
	  "t.suite:4: sink: expected a whole number 1..65535, got '0'" },
	{ "NUL byte", HEAD "step a\n run http x\0y\n",
	  "t.suite: expected text, found a NUL byte" },
	/* Every keyword's bad input, whole messages. */
	{ "step without name", HEAD "step\n run http x\n",
	  "t.suite:3: step: expected one step name" },
	{ "step two names", HEAD "step a b\n run http x\n",
	  "t.suite:3: step: expected one step name" },
	{ "step bad name", HEAD "step a/b\n run http x\n",
	  "t.suite:3: step: expected a name of letters, digits, '-', '_', "
	  "'.', got 'a/b'" },
	{ "suite without name", "suite\nversion 1\nstep a\n run http x\n",
	  "t.suite:1: suite: expected one suite name" },
	{ "suite bad name", "suite a/b\nversion 1\nstep a\n run http x\n",
	  "t.suite:1: suite: expected one name before the first step" },
	{ "suite in step", HEAD "step a\n suite u\n run http x\n",
	  "t.suite:4: suite: expected one name before the first step" },
	{ "version twice", "suite t\nversion 1 2\nstep a\n run http x\n",
	  "t.suite:2: version: expected one version" },
	{ "version in step", HEAD "step a\n version 2\n run http x\n",
	  "t.suite:4: version: expected one version (like 1 or 2.1) before "
	  "the first step" },
	{ "clients without number", HEAD "clients\nstep a\n run http x\n",
	  "t.suite:3: clients: expected a number of clients" },
	{ "clients zero", HEAD "clients 0\nstep a\n run http x\n",
	  "t.suite:3: clients: expected a whole number 1..4096, got '0'" },
	{ "clients in step", HEAD "step a\n clients 2\n run http x\n",
	  "t.suite:4: expected a step setting (run, concurrency, warmup, "
	  "duration, cooldown, repeats, max_error_rate) or the next step; got "
	  "'clients'" },
	{ "servers without number", HEAD "servers\nstep a\n run http x\n",
	  "t.suite:3: servers: expected 0 or 1" },
	{ "servers in step", HEAD "step a\n servers 1\n run http x\n",
	  "t.suite:4: expected a step setting" },
	{ "wait without duration", HEAD "wait\nstep a\n run http x\n",
	  "t.suite:3: wait: expected a duration" },
	{ "wait bad duration", HEAD "wait soon\nstep a\n run http x\n",
	  "t.suite:3: wait: expected a duration like 10s, 500ms or 2m, got "
	  "'soon'" },
	{ "wait in step", HEAD "step a\n wait 1s\n run http x\n",
	  "t.suite:4: expected a step setting" },
	{ "set without value", HEAD "set a\nstep a\n run http x\n",
	  "t.suite:3: set: expected a name and a value" },
	{ "set bad name", HEAD "set a/b 1\nstep a\n run http x\n",
	  "t.suite:3: set: expected a name of letters, digits, '-', '_', got "
	  "'a/b'" },
	{ "set in step", HEAD "step a\n set a 1\n run http x\n",
	  "t.suite:4: expected a step setting" },
	{ "set many words", HEAD "set v a b  c\nstep a\n run http {v}\n",
	  NULL },
	{ "warmup without duration", HEAD "warmup\nstep a\n run http x\n",
	  "t.suite:3: warmup: expected a duration" },
	{ "warmup bad in step", HEAD "step a\n warmup 1x\n run http x\n",
	  "t.suite:4: warmup: expected a duration like 10s, 500ms or 2m, got "
	  "'1x'" },
	{ "duration too short in step", HEAD "step a\n duration 99ms\n"
	  " run http x\n", "t.suite:4: duration: expected at least 100ms" },
	{ "duration two values", HEAD "duration 1s 2s\nstep a\n run http x\n",
	  "t.suite:3: duration: expected a duration" },
	{ "cooldown bad", HEAD "cooldown -1s\nstep a\n run http x\n",
	  "t.suite:3: cooldown: expected a duration like 10s, 500ms or 2m, "
	  "got '-1s'" },
	{ "repeats without number", HEAD "step a\n repeats\n run http x\n",
	  "t.suite:4: repeats: expected a number of repeats" },
	{ "repeats too many in step", HEAD "step a\n repeats 1001\n"
	  " run http x\n",
	  "t.suite:4: repeats: expected a whole number 1..1000, got '1001'" },
	{ "concurrency without numbers", HEAD "step a\n concurrency\n"
	  " run http x\n", "t.suite:4: concurrency: expected 1..16 numbers" },
	{ "concurrency too many numbers", HEAD "step a\n concurrency 1 2 3 4 "
	  "5 6 7 8 9 10 11 12 13 14 15 16 17\n run http x\n",
	  "t.suite:4: concurrency: expected 1..16 numbers" },
	{ "concurrency zero", HEAD "step a\n concurrency 1 0\n run http x\n",
	  "t.suite:4: concurrency: expected a whole number 1..100000, got "
	  "'0'" },
	{ "concurrency at top", HEAD "concurrency 2\nstep a\n run http x\n",
	  "t.suite:3: expected suite, version, repeats, clients, servers, "
	  "wait, warmup, duration, cooldown, max_error_rate, set or step; "
	  "got 'concurrency'" },
	{ "run without workload", HEAD "step a\n run\n",
	  "t.suite:4: run: expected a workload and its arguments" },
	{ "run at top", HEAD "run http x\nstep a\n run http x\n",
	  "t.suite:3: expected suite, version" },
	{ "too many run lines", HEAD "step a\n run a\n run b\n run c\n"
	  " run d\n run e\n run f\n run g\n run h\n run i\n",
	  "t.suite:12: run: expected at most 8 run lines in a step" },
	{ "bad workload name, whole", HEAD "step a\n run ht/tp x\n",
	  "t.suite:4: run: expected a workload name (http, sql, smtp, ...), "
	  "got 'ht/tp'" },
	{ "unknown placeholder, whole", HEAD "step a\n run http {nope}\n",
	  "t.suite:4: run: unknown placeholder {nope}; expected a built-in "
	  "(conc, total, duration, warmup, server, ...) or a 'set' "
	  "variable" },
	{ "too many words", HEAD "step a\n run http" X64 "\n",
	  "t.suite:4: expected at most 64 words on a line" },
	{ "64 words", HEAD "step a\n run" X64 "\n", NULL },
	{ "no steps after comments", HEAD "# c\n\n",
	  "t.suite:5: expected at least one step" },
	{ "max_error_rate fraction", HEAD "max_error_rate 0.05\nstep a\n"
	  " run http x\n", NULL },
	{ "max_error_rate percent in step", HEAD "step a\n max_error_rate 2%\n"
	  " run http x\n", NULL },
	{ "max_error_rate above 1", HEAD "max_error_rate 1.5\nstep a\n"
	  " run http x\n",
	  "t.suite:3: max_error_rate: expected a fraction 0..1 or a "
	  "percentage like 1%, got '1.5'" },
	{ "max_error_rate junk", HEAD "step a\n max_error_rate 1%x\n"
	  " run http x\n",
	  "t.suite:4: max_error_rate: expected a fraction 0..1 or a "
	  "percentage like 1%, got '1%x'" },
	{ "max_error_rate without value", HEAD "max_error_rate\nstep a\n"
	  " run http x\n",
	  "t.suite:3: max_error_rate: expected a fraction or a percentage" },
};

static const char *lookup(void *ctx, const char *name)
{
	if (strcmp(name, "conc") == 0)
		return "4";
	if (strcmp(name, "server") == 0)
		return "10.0.0.1";
	return NULL;
}

int main(void)
{
	struct suite s;
	char err[512], out[256];
	size_t i;
	int rc;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		size_t len = strlen(cases[i].text);

		if (strcmp(cases[i].name, "NUL byte") == 0)
			len += 4;	/* past the embedded NUL */
		err[0] = 0;
		rc = suite_parse(cases[i].text, len, "t.suite", &s, err,
				 sizeof(err));
		if (!cases[i].err) {
			if (!tap_ok(rc == 0, "%s parses", cases[i].name))
				printf("#   %s\n", err);
			suite_free(&s);
			continue;
		}
		if (!tap_ok(rc != 0 && strncmp(err, cases[i].err,
					       strlen(cases[i].err)) == 0,
			    "%s: error names file, line, expectation",
			    cases[i].name))
			printf("#   got \"%s\"\n#   want \"%s...\"\n", err,
			       cases[i].err);
	}

	/* Defaults, inheritance, overrides, sweeps. */
	rc = suite_parse(HEAD "repeats 3\nwarmup 1s\nduration 4s\nclients 5\n"
			 "step a\n concurrency 2 4 8\n run http x\n"
			 "step b\n repeats 1\n duration 500ms\n run http y\n"
			 " run smtp z\n", 1000, "t.suite", &s, err,
			 sizeof(err));
	/* len 1000 overruns: use the real length instead. */
	if (rc == 0)
		suite_free(&s);
	{
		const char *t = HEAD "repeats 3\nwarmup 1s\nduration 4s\n"
				"clients 5\nstep a\n concurrency 2 4 8\n"
				" run http x\nstep b\n repeats 1\n"
				" duration 500ms\n run http y\n run smtp z\n";

		rc = suite_parse(t, strlen(t), "t.suite", &s, err,
				 sizeof(err));
	}
	TAP_EQ_INT(rc, 0, "full suite parses");
	TAP_EQ_INT(s.nsteps, 2, "two steps");
	TAP_EQ_INT(s.clients, 5, "clients");
	TAP_EQ_INT(s.steps[0].nconc, 3, "sweep of three");
	TAP_EQ_INT(s.steps[0].conc[2], 8, "sweep values");
	TAP_EQ_INT(s.steps[0].repeats, 3, "repeats inherited");
	TAP_EQ_INT(s.steps[0].duration_ns, 4000000000ll, "duration inherited");
	TAP_EQ_INT(s.steps[1].repeats, 1, "repeats overridden");
	TAP_EQ_INT(s.steps[1].duration_ns, 500000000ll, "duration overridden");
	TAP_EQ_INT(s.steps[1].warmup_ns, 1000000000ll, "warmup inherited");
	TAP_EQ_INT(s.steps[1].nruns, 2, "two run lines");
	TAP_EQ_STR(s.steps[1].runs[1].argv[0], "smtp", "run workload");
	TAP_EQ_INT((long long)(s.steps[0].max_error_rate * 1000), 10,
		   "max_error_rate defaults to 1 %");
	suite_free(&s);
	{
		const char *t = HEAD "max_error_rate 5%\nstep a\n run http x\n"
				"step b\n max_error_rate 0\n run http y\n";

		rc = suite_parse(t, strlen(t), "t.suite", &s, err,
				 sizeof(err));
		TAP_EQ_INT(rc, 0, "max_error_rate suite parses");
		TAP_EQ_INT((long long)(s.steps[0].max_error_rate * 1000 + 0.5),
			   50, "max_error_rate 5% inherited as 0.05");
		TAP_EQ_INT((long long)(s.steps[1].max_error_rate * 1000), 0,
			   "max_error_rate 0 in a step overrides");
		suite_free(&s);
	}

	/* Expansion. */
	rc = suite_expand("http://{server}:80/d{00..99}?c={conc}", out,
			  sizeof(out), lookup, NULL, err, sizeof(err));
	TAP_EQ_INT(rc, 0, "expand ok");
	TAP_EQ_STR(out, "http://10.0.0.1:80/d{00..99}?c=4",
		   "placeholders expanded, patterns kept");
	rc = suite_expand("{missing}", out, sizeof(out), lookup, NULL, err,
			  sizeof(err));
	TAP_EQ_INT(rc, -2, "unknown placeholder is -ENOENT");
	TAP_EQ_STR(err, "missing", "unknown name reported");
	rc = suite_expand("{server}{server}", out, 12, lookup, NULL, err,
			  sizeof(err));
	TAP_EQ_INT(rc, -28, "too long is -ENOSPC");
	suite_fmt_duration(2000000000ull, out, sizeof(out));
	TAP_EQ_STR(out, "2s", "whole seconds");
	suite_fmt_duration(500000000ull, out, sizeof(out));
	TAP_EQ_STR(out, "500ms", "milliseconds");

	/* Time scale: the factor's forms, and bad values named. */
	{
		static const struct {
			const char *in;
			double want;	/* 0: refused */
		} sc[] = {
			{ "0.1", 0.1 }, { "1/20", 0.05 }, { "10%", 0.1 },
			{ "2", 2 }, { "0.01", 0.01 }, { "10", 10 },
			{ "0", 0 }, { "0.001", 0 }, { "11", 0 }, { "", 0 },
			{ "fast", 0 }, { "0.1s", 0 }, { "1/0", 0 },
			{ "-0.5", 0 }, { "nan", 0 }, { "1/2/3", 0 },
		};
		double f;

		for (i = 0; i < (int)(sizeof(sc) / sizeof(sc[0])); i++) {
			f = -1;
			rc = suite_parse_scale(sc[i].in, &f, err, sizeof(err));
			if (sc[i].want > 0)
				tap_ok(rc == 0 && f > sc[i].want - 1e-12 &&
				       f < sc[i].want + 1e-12,
				       "time scale '%s' is %g", sc[i].in,
				       sc[i].want);
			else
				tap_ok(rc == -EINVAL && f == -1 &&
				       strstr(err, "time scale '") &&
				       strstr(err, "0.01 to 10"),
				       "time scale '%s' refused: %s", sc[i].in,
				       err);
		}
	}
	/* Scaling keeps steps, concurrencies and repeats; times shrink to
	 * the millisecond, a duration to 100 ms at least, the peer wait
	 * to 120 s at least. */
	{
		static const char txt[] = HEAD "repeats 3\nwait 600s\n"
			"warmup 5s\nduration 30s\ncooldown 5s\n"
			"step a\n concurrency 2 64\n run http x\n"
			"step b\n duration 120s\n warmup 0s\n run sql x\n"
			"step c\n duration 500ms\n run smtp x\n";

		rc = suite_parse(txt, sizeof(txt) - 1, "t.suite", &s, err,
				 sizeof(err));
		TAP_EQ_INT(rc, 0, "scale: suite parses");
		TAP_EQ_INT(suite_scale(&s, 0.05), 0, "scale 0.05 applies");
		TAP_EQ_INT(suite_scale(&s, 0), -EINVAL, "scale 0 refused");
		tap_ok(s.nsteps == 3 && s.steps[0].nconc == 2 &&
		       s.steps[0].conc[1] == 64 && s.steps[0].repeats == 3,
		       "steps, concurrencies and repeats kept");
		tap_ok(s.steps[0].warmup_ns == 250000000ull &&
		       s.steps[0].duration_ns == 1500000000ull &&
		       s.steps[0].cooldown_ns == 250000000ull,
		       "5 s / 30 s / 5 s become 250 ms / 1.5 s / 250 ms");
		tap_ok(s.steps[1].duration_ns == 6000000000ull &&
		       s.steps[1].warmup_ns == 0,
		       "120 s becomes 6 s, no warm-up stays none");
		tap_ok(s.steps[2].duration_ns == 100000000ull,
		       "500 ms is not scaled below 100 ms");
		tap_ok(s.steps[1].limit_ns == 120000000000ull &&
		       s.steps[0].limit_ns == 35000000000ull,
		       "each step's time limit stays as written");
		tap_ok(s.wait_ns == 120000000000ull, "600 s wait: 120 s");
		tap_ok(s.time_scale == 0.05, "the scale is recorded");
		suite_free(&s);
	}

	/* The shipped suites. */
	{
		static const char *const files[] = {
			"configs/suite/smoke.suite",
			"configs/suite/default.suite",
			"configs/suite/peak.suite",
			"payload/tests/integration/suites/chain.suite",
		};
		const char *top = getenv("TOP");
		char path[1024];

		for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
			snprintf(path, sizeof(path), "%s/%s", top ? top : ".",
				 files[i]);
			rc = suite_load(path, NULL, &s, err, sizeof(err));
			if (!tap_ok(rc == 0, "%s parses", files[i]))
				printf("#   %s\n", err);
			if (rc == 0)
				suite_free(&s);
		}
	}
	rc = suite_load("no-such-suite", "/nonexistent", &s, err, sizeof(err));
	tap_ok(rc == -2 && strstr(err, "no no-such-suite.suite in "
				  "/nonexistent"),
	       "missing suite name lists where it looked");
	return tap_done();
}
