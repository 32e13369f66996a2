/* test_policy.c: what an agent lets a controller start (policy.h), one
 * table row per argv: every refused option of every workload in every
 * spelling getopt_long takes, and the shipped suites' run lines. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/policy.h"
#include "agent/workload.h"
#include "controller/suite.h"
#include "tap.h"

static const struct {
	const char *argv;	/* JSON array */
	int rc;
	const char *why;	/* in the refusal */
} cases[] = {
	{ "[\"http\",\"-c\",\"4\",\"http://10.0.0.1:80/x.html\",\"--json\"]", 0, "" },
	{ "[\"http\",\"https://10.0.0.1/\"]", 0, "" },
	{ "[\"http\",\"http://[fd00::1]:8080/a\"]", 0, "" },
	{ "[\"http\",\"http://10.0.0.2/\"]", -EPERM, "target '10.0.0.2/'" },
	{ "[\"http\",\"http://10.0.0.10/\"]", -EPERM, "not a server of this run" },
	{ "[\"http\",\"--urls\",\"/etc/shadow\",\"http://10.0.0.1/\"]", -EPERM, "option --urls reads a local file" },
	{ "[\"http\",\"--urls=/etc/shadow\"]", -EPERM, "--urls" },
	{ "[\"sql\",\"--workload=mix\",\"--host\",\"10.0.0.1\",\"--port\",\"3306\"]", 0, "" },
	{ "[\"sql\",\"--host=10.0.0.1\"]", 0, "" },
	{ "[\"sql\",\"--host\",\"10.9.9.9\"]", -EPERM, "target '10.9.9.9'" },
	{ "[\"sql\",\"--socket\",\"/run/mysqld/mysqld.sock\"]", -EPERM, "--socket" },
	{ "[\"smtp\",\"--from\",\"a@b.test\",\"--to\",\"c@d.test\",\"10.0.0.1:25\"]", 0, "" },
	{ "[\"smtp\",\"--to\",\"c@d\",\"10.6.6.6:25\"]", -EPERM, "target '10.6.6.6:25'" },
	{ "[\"smtp\",\"--message\",\"/etc/shadow\",\"10.0.0.1:25\"]", -EPERM, "--message" },
	{ "[\"probe\",\"--json\"]", 0, "" },
	{ "[\"sample\",\"--root\",\"/\"]", -EPERM, "--root" },
	{ "[\"fetch\",\"-o\",\"/etc/passwd\",\"http://x/\"]", -EPERM, "'fetch' is not a workload" },
	{ "[\"agent\",\"--role=controller\"]", -EPERM, "'agent' is not a workload" },
	{ "[\"collect\"]", -EPERM, "'collect' is not a workload" },
	{ "[\"smtp-sink\",\"0.0.0.0:25\"]", -EPERM, "not a workload of this agent" },
	{ "[]", -EPERM, "no workload" },
	{ "[\"http\",7]", -EPERM, "not a string" },

	/* --- every refused option, every spelling ---------------------- */
	/* http --urls (no letter; --u is already unique) */
	{ "[\"http\",\"--urls\",\"/f\",\"http://10.0.0.1/\"]", -EPERM, "http: option --urls reads a local file" },
	{ "[\"http\",\"--ur\",\"/f\",\"http://10.0.0.1/\"]", -EPERM, "option --urls reads" },
	{ "[\"http\",\"--u\",\"/f\",\"http://10.0.0.1/\"]", -EPERM, "option --urls reads" },
	{ "[\"http\",\"--urls=/f\",\"http://10.0.0.1/\"]", -EPERM, "option --urls reads" },
	{ "[\"http\",\"--url=/f\",\"http://10.0.0.1/\"]", -EPERM, "option --urls reads" },
	{ "[\"http\",\"http://10.0.0.1/\",\"--urls\",\"/f\"]", -EPERM, "option --urls reads" },
	{ "[\"http\",\"-k\",\"--\",\"--urls=/f\"]", -EPERM, "operand '--urls=/f' is not a URL" },
	{ "[\"http\",\"--\",\"http://10.9.9.9/\"]", -EPERM, "target '10.9.9.9/'" },
	{ "[\"http\",\"--\",\"http://10.0.0.1/\"]", 0, "" },
	{ "[\"http\",\"-c\",\"--urls\",\"http://10.0.0.1/\"]", 0, "" },
	/* sql --socket (no letter; --s is ambiguous with --seed) */
	{ "[\"sql\",\"--host\",\"10.0.0.1\",\"--socket\",\"/s\"]", -EPERM, "sql: option --socket opens a local socket" },
	{ "[\"sql\",\"--host\",\"10.0.0.1\",\"--so\",\"/s\"]", -EPERM, "option --socket opens" },
	{ "[\"sql\",\"--host\",\"10.0.0.1\",\"--sock\",\"/s\"]", -EPERM, "option --socket opens" },
	{ "[\"sql\",\"--host\",\"10.0.0.1\",\"--socket=/s\"]", -EPERM, "option --socket opens" },
	{ "[\"sql\",\"--host\",\"10.0.0.1\",\"--so=/s\"]", -EPERM, "option --socket opens" },
	{ "[\"sql\",\"--host\",\"10.0.0.1\",\"--s=/s\"]", -EPERM, "unknown option '--s=/s'" },
	{ "[\"sql\",\"--host\",\"10.0.0.1\",\"--\",\"--socket=/s\"]", -EPERM, "operand '--socket=/s': it takes none" },
	{ "[\"sql\",\"--ho\",\"10.0.0.1\"]", 0, "" },
	{ "[\"sql\",\"--ho=10.9.9.9\"]", -EPERM, "target '10.9.9.9'" },
	{ "[\"sql\",\"--workload=mix\"]", -EPERM, "no --host" },
	{ "[\"sql\",\"--host\",\"10.0.0.1\",\"--\",\"--host\",\"10.0.0.1\"]", -EPERM, "it takes none" },
	/* smtp --message (no letter) */
	{ "[\"smtp\",\"--message\",\"/f\",\"10.0.0.1:25\"]", -EPERM, "smtp: option --message reads a local file" },
	{ "[\"smtp\",\"--mes\",\"/f\",\"10.0.0.1:25\"]", -EPERM, "option --message reads" },
	{ "[\"smtp\",\"--messa\",\"/f\",\"10.0.0.1:25\"]", -EPERM, "option --message reads" },
	{ "[\"smtp\",\"--m\",\"/f\",\"10.0.0.1:25\"]", -EPERM, "option --message reads" },
	{ "[\"smtp\",\"--message=/f\",\"10.0.0.1:25\"]", -EPERM, "option --message reads" },
	{ "[\"smtp\",\"--mes=/etc/shadow\",\"10.0.0.1:25\"]", -EPERM, "option --message reads" },
	{ "[\"smtp\",\"10.0.0.1:25\",\"--messa=/f\"]", -EPERM, "option --message reads" },
	{ "[\"smtp\",\"10.0.0.1:25\",\"--\",\"--message=/f\"]", -EPERM, "target '--message=/f'" },
	{ "[\"smtp\",\"--\",\"10.0.0.7:25\"]", -EPERM, "target '10.0.0.7:25'" },
	{ "[\"smtp\",\"--from\",\"--message\",\"10.0.0.1:25\"]", 0, "" },
	/* smtp-sink --store (no letter; --s is unique) */
	{ "[\"smtp-sink\",\"--store\",\"/d\",\"0.0.0.0:25\"]", -EPERM, "smtp-sink: option --store writes local files" },
	{ "[\"smtp-sink\",\"--sto\",\"/d\",\"0.0.0.0:25\"]", -EPERM, "option --store writes" },
	{ "[\"smtp-sink\",\"--s\",\"/d\",\"0.0.0.0:25\"]", -EPERM, "option --store writes" },
	{ "[\"smtp-sink\",\"--store=/d\",\"0.0.0.0:25\"]", -EPERM, "option --store writes" },
	{ "[\"smtp-sink\",\"--sto=/d\",\"0.0.0.0:25\"]", -EPERM, "option --store writes" },
	{ "[\"smtp-sink\",\"0.0.0.0:25\",\"--st=/d\"]", -EPERM, "option --store writes" },
	/* after "--" an operand: its listening address, not an option */
	{ "[\"smtp-sink\",\"--\",\"--store=/d\"]", 0, "" },
	/* sample --root -r, --replay -R (--r is ambiguous) */
	{ "[\"sample\",\"--root\",\"/\"]", -EPERM, "sample: option --root reads local files" },
	{ "[\"sample\",\"--ro\",\"/\"]", -EPERM, "option --root reads" },
	{ "[\"sample\",\"--root=/\"]", -EPERM, "option --root reads" },
	{ "[\"sample\",\"--ro=/\"]", -EPERM, "option --root reads" },
	{ "[\"sample\",\"-r\",\"/\"]", -EPERM, "option --root reads" },
	{ "[\"sample\",\"-r/\"]", -EPERM, "option --root reads" },
	{ "[\"sample\",\"-jr\",\"/\"]", -EPERM, "option --root reads" },
	{ "[\"sample\",\"-jr/\"]", -EPERM, "option --root reads" },
	{ "[\"sample\",\"-c\",\"2\",\"-jr/\"]", -EPERM, "option --root reads" },
	{ "[\"sample\",\"--replay\",\"/d\"]", -EPERM, "sample: option --replay reads local files" },
	{ "[\"sample\",\"--rep\",\"/d\"]", -EPERM, "option --replay reads" },
	{ "[\"sample\",\"--replay=/d\"]", -EPERM, "option --replay reads" },
	{ "[\"sample\",\"--re=/d\"]", -EPERM, "option --replay reads" },
	{ "[\"sample\",\"-R\",\"/d\"]", -EPERM, "option --replay reads" },
	{ "[\"sample\",\"-R/d\"]", -EPERM, "option --replay reads" },
	{ "[\"sample\",\"-jR\",\"/d\"]", -EPERM, "option --replay reads" },
	{ "[\"sample\",\"-jR/d\"]", -EPERM, "option --replay reads" },
	{ "[\"sample\",\"--r\",\"/\"]", -EPERM, "unknown option '--r'" },
	{ "[\"sample\",\"--\",\"-r/\"]", -EPERM, "operand '-r/': it takes none" },
	{ "[\"sample\",\"-j\",\"-c\",\"3\",\"-i\",\"1s\",\"-p\",\"nginx,mariadbd\"]", 0, "" },
	{ "[\"sample\",\"-p\",\"-r\"]", 0, "" },
	/* probe: nothing refused but what it does not know */
	{ "[\"probe\",\"-r\",\"100\",\"-d\",\"5s\",\"-j\"]", 0, "" },
	{ "[\"probe\",\"--bogus\"]", -EPERM, "probe: unknown option '--bogus'" },
	{ "[\"probe\",\"--\",\"x\"]", -EPERM, "operand 'x': it takes none" },
	/* unknown, valueless, help */
	{ "[\"http\",\"-x\",\"http://10.0.0.1/\"]", -EPERM, "http: unknown option '-x'" },
	{ "[\"http\",\"http://10.0.0.1/\",\"-c\"]", -EPERM, "needs a value" },
	{ "[\"http\",\"--help\"]", -EPERM, "http: option --help" },
	{ "[\"smtp\",\"-h\",\"10.0.0.1:25\"]", -EPERM, "smtp: option --help" },
};

/* A suite variable's value: the shipped suite's set lines, the run's
 * server and a step's concurrency, duration and warm-up. */
static const char *lookup(void *ctx, const char *name)
{
	const struct suite *s = ctx;

	if (strcmp(name, "server") == 0)
		return "10.0.0.1";
	if (strcmp(name, "conc") == 0)
		return "4";
	if (strcmp(name, "duration") == 0 || strcmp(name, "warmup") == 0)
		return "5s";
	return suite_var(s, name) ? suite_var(s, name) : "1";
}

/* One run line of suite s, expanded, with the --json the controller
 * adds: allowed. */
static void check_run(struct suite *s, const struct suite_run *r,
		      const cJSON *wl, const cJSON *tg)
{
	char word[512], err[256];
	cJSON *argv = cJSON_CreateArray();
	int i, rc;

	for (i = 0; i < r->argc; i++) {
		rc = suite_expand(r->argv[i], word, sizeof(word), lookup, s,
				  err, sizeof(err));
		cJSON_AddItemToArray(argv, cJSON_CreateString(rc == 0 ? word :
							      "?"));
	}
	cJSON_AddItemToArray(argv, cJSON_CreateString("--json"));
	err[0] = 0;
	rc = policy_check_argv(argv, wl, tg, err, sizeof(err));
	tap_ok(rc == 0, "%s:%d (%s) allowed%s%s", s->file, r->line,
	       r->argv[0], rc ? ": " : "", rc ? err : "");
	cJSON_Delete(argv);
}

/* The shipped suites' run lines and the controller's smtp-sink. */
static void test_suites(const cJSON *wl, const cJSON *tg)
{
	static const char *const files[] = {
		"configs/suite/smoke.suite",
		"configs/suite/default.suite",
		"configs/suite/peak.suite",
	};
	const char *top = getenv("TOP");
	char path[1024], err[256];
	struct suite s;
	size_t i, k, r;
	cJSON *argv;

	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", top ? top : ".",
			 files[i]);
		if (!tap_ok(suite_load(path, NULL, &s, err, sizeof(err)) == 0,
			    "%s loads", files[i])) {
			printf("#   %s\n", err);
			continue;
		}
		for (k = 0; k < s.nsteps; k++)
			for (r = 0; r < s.steps[k].nruns; r++)
				check_run(&s, &s.steps[k].runs[r], wl, tg);
		suite_free(&s);
	}
	/* runner.c's relay sink */
	argv = cJSON_Parse("[\"smtp-sink\",\"-d\",\"6s\",\"--idle\",\"2s\",\"0.0.0.0:2525\",\"--json\"]");
	tap_ok(policy_check_argv(argv, wl, tg, err, sizeof(err)) == 0,
	       "the controller's smtp-sink line is allowed");
	cJSON_Delete(argv);
}

/* The options a controller may give, as each workload's table marks
 * them (.remote): exactly these, and never one that touches the host. */
static void test_remote_options(void)
{
	static const struct {
		const char *workload, *remote;	/* blank-separated, sorted */
	} want[] = {
		{ "http", "connections duration engine header insecure json "
		  "label method no-batch no-keepalive pipeline rate seed "
		  "threads timeout warmup" },
		{ "probe", "count duration json rate work" },
		{ "sample", "count interval json proc" },
		{ "sql", "connections db duration host json keep password "
		  "port rate rows seed table threads timeout user workload" },
		{ "smtp", "connections count duration from helo json "
		  "new-session rate threads timeout to" },
		{ "smtp-sink", "duration hostname idle json no-pipelining "
		  "reject-every tempfail-every threads" },
	};
	const struct workload *w;
	size_t i, j, k;

	for (k = 0; k < sizeof(want) / sizeof(want[0]); k++) {
		const char *names[OPT_MAX];
		char got[512] = "";
		size_t n = 0, len = 0;

		w = workload_find(want[k].workload);
		if (!tap_ok(w && w->opts, "%s has a table", want[k].workload))
			continue;
		for (i = 0; i < w->opts->nopts; i++) {
			const struct opt *o = &w->opts->opts[i];

			if (o->remote)
				names[n++] = o->name;
			tap_ok(!(o->remote && o->local),
			       "%s: --%s is remote only if it touches nothing "
			       "on the host", w->name, o->name);
		}
		for (i = 1; i < n; i++)	/* insertion sort: a few names */
			for (j = i; j > 0 && strcmp(names[j - 1],
						    names[j]) > 0; j--) {
				const char *t = names[j];

				names[j] = names[j - 1];
				names[j - 1] = t;
			}
		for (i = 0; i < n; i++)
			len += (size_t)snprintf(got + len, sizeof(got) - len,
						"%s%s", i ? " " : "",
						names[i]);
		TAP_EQ_STR(got, want[k].remote, want[k].workload);
	}
}

/* What each role announces is all it runs: a server asked for load, or
 * a client for the server's series, is refused. */
static void test_roles(const cJSON *tg)
{
	static const struct {
		int role;
		const char *argv;
		int rc;
	} c[] = {
		{ ROLE_SERVER, "[\"http\",\"http://10.0.0.1/\"]", -EPERM },
		{ ROLE_SERVER, "[\"sql\",\"--workload=ops\",\"--host\","
		  "\"10.0.0.1\"]", -EPERM },
		{ ROLE_SERVER, "[\"smtp-sink\",\"0.0.0.0:2525\"]", -EPERM },
		{ ROLE_SERVER, "[\"probe\",\"--json\"]", 0 },
		{ ROLE_CLIENT, "[\"sample\",\"--json\"]", -EPERM },
		{ ROLE_CLIENT, "[\"probe\",\"--json\"]", -EPERM },
		{ ROLE_CLIENT, "[\"http\",\"http://10.0.0.1/\"]", 0 },
	};
	char err[256];
	size_t i;

	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		cJSON *w = workload_names(c[i].role);
		cJSON *argv = cJSON_Parse(c[i].argv);
		int rc;

		err[0] = 0;
		rc = policy_check_argv(argv, w, tg, err, sizeof(err));
		tap_ok(rc == c[i].rc && (rc == 0 ||
		       strstr(err, "not a workload of this agent")),
		       "%s agent: %s -> %s", role_name(c[i].role), c[i].argv,
		       rc ? err : "allowed");
		cJSON_Delete(argv);
		cJSON_Delete(w);
	}
}

int main(void)
{
	cJSON *wl = cJSON_Parse("[\"http\",\"sql\",\"smtp\",\"probe\",\"sample\"]");
	cJSON *all = cJSON_Parse("[\"http\",\"sql\",\"smtp\",\"smtp-sink\",\"probe\",\"sample\"]");
	cJSON *tg = cJSON_Parse("[\"10.0.0.1\",\"fd00::1\"]");
	char err[256];
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		cJSON *argv = cJSON_Parse(cases[i].argv);
		/* smtp-sink rows past the first use an agent that has it */
		const cJSON *w = strstr(cases[i].argv, "smtp-sink") &&
				 strcmp(cases[i].why, "not a workload of this agent") ?
				 all : wl;
		int rc;

		err[0] = 0;
		rc = policy_check_argv(argv, w, tg, err, sizeof(err));
		if (!tap_ok(rc == cases[i].rc && strstr(err, cases[i].why),
			    "%s -> %s", cases[i].argv, rc ? err : "allowed"))
			printf("#   want %d '%s'\n", cases[i].rc, cases[i].why);
		cJSON_Delete(argv);
	}
	test_suites(all, tg);
	test_remote_options();
	test_roles(tg);
	cJSON_Delete(wl);
	cJSON_Delete(all);
	cJSON_Delete(tg);
	return tap_done();
}
