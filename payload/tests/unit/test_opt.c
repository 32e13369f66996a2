/* test_opt.c: the commands' option parser (lib/opt.h: opt_parse,
 * opt_walk) and the load generators' thread helpers (lg_threads_*,
 * lg_sum_u64), table-driven. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "load/loadgen.h"
#include "tap.h"
#include "lib/util.h"

/* What a parse left behind, rendered into one line to compare. */
struct res {
	unsigned threads, conns;
	uint64_t duration, timeout, count;
	double rate;
	int json, keepalive, have_d, k;
	const char *from, *method;
};

static int opt_method(void *dst, const char *value, char *err,
		      size_t errlen)
{
	struct res *r = dst;

	if (strcmp(value, "GET") && strcmp(value, "HEAD"))
		return util_fail(err, errlen, -EINVAL, "--method '%s': only GET and HEAD", value);
	r->method = value;
	return 0;
}

/* Only "a" or "b"; anything else falls back to the bad-value message. */
static int opt_ab(void *dst, const char *value, char *err, size_t errlen)
{
	return strcmp(value, "a") && strcmp(value, "b") ? -EINVAL : 0;
}

static const struct {
	const char *args;	/* argv[1..], blank-separated */
	int rc;
	const char *want;	/* the result (rc 0) or err (rc < 0) */
} cases[] = {
	{ "", 0, "t=1 c=1 d=10000000000 to=2000000000 n=0 r=0 j=0 ka=1 "
	  "hd=0 from=- m=GET argi=1" },
	{ "-t 4 -c 8 -d 2s --json host:25", 0, "t=4 c=8 d=2000000000 "
	  "to=2000000000 n=0 r=0 j=1 ka=1 hd=1 from=- m=GET argi=8" },
	{ "--threads=3 --connections 5 --duration=500ms", 0, "t=3 c=5 "
	  "d=500000000 to=2000000000 n=0 r=0 j=0 ka=1 hd=1 from=- m=GET "
	  "argi=5" },
	/* operands may come first: getopt_long permutes them to the end */
	{ "u1 -t2 u2 --rate 12.5 --no-keepalive", 0, "t=2 c=1 "
	  "d=10000000000 to=2000000000 n=0 r=12.5 j=0 ka=0 hd=0 from=- "
	  "m=GET argi=5" },
	{ "--timeout 1ms -n 7 --from a@b -m HEAD --ab b", 0, "t=1 c=1 "
	  "d=10000000000 to=1000000 n=7 r=0 j=0 ka=1 hd=0 from=a@b m=HEAD "
	  "argi=11" },
	{ "-h", 1, "" },
	{ "-t 2 --help", 1, "" },
	/* bad values: the entry's message, with the value */
	{ "-t 0", -EINVAL, "-t '0': want 1..64" },
	{ "-t 65", -EINVAL, "-t '65': want 1..64" },
	{ "--threads=x", -EINVAL, "-t 'x': want 1..64" },
	{ "-c -1", -EINVAL, "-c '-1': want 1..1000" },
	{ "-d 0", -EINVAL, "-d '0': want a duration like 10s" },
	{ "-d 10parsecs", -EINVAL, "-d '10parsecs': want a duration like 10s" },
	{ "--timeout 999us", -EINVAL, "--timeout '999us': want 1ms or more" },
	{ "--rate 0", -EINVAL, "--rate '0': want operations per second > 0" },
	{ "--rate 1e9", -EINVAL, "--rate '1e9': want operations per second > 0" },
	{ "--rate 5x", -EINVAL, "--rate '5x': want operations per second > 0" },
	{ "--rate=", -EINVAL, "--rate '': want operations per second > 0" },
	/* no message of its own: the set's, with the argument as typed */
	{ "-n 0", -EINVAL, "bad value '0' in '0' (test)" },
	{ "--count=abc", -EINVAL, "bad value 'abc' in '--count=abc' (test)" },
	/* a function's own message, or the set's when it has none */
	{ "-m POST", -EINVAL, "--method 'POST': only GET and HEAD" },
	{ "--ab c", -EINVAL, "bad value 'c' in 'c' (test)" },
	/* not options at all */
	{ "--bogus", -ENOENT, "unknown option '--bogus'" },
	{ "-x", -ENOENT, "unknown option '-x'" },
	{ "-t", -ENOENT, "option '-t' (--threads) needs a value" },
	{ "-d 1s --from", -ENOENT, "option '--from' needs a value" },
	{ "--json=1", -ENOENT, "unknown option '--json=1'" },
	/* unique prefixes, bundled letters, "--" */
	{ "--thr=3 --conn 5 --dur=1s --no", 0, "t=3 c=5 d=1000000000 "
	  "to=2000000000 n=0 r=0 j=0 ka=0 hd=1 from=- m=GET argi=6" },
	{ "-kt3 x", 0, "t=3 c=1 d=10000000000 to=2000000000 n=0 r=0 j=0 "
	  "ka=1 hd=0 from=- m=GET argi=2 k" },
	{ "-t 2 -- -c 9", 0, "t=2 c=1 d=10000000000 to=2000000000 n=0 r=0 "
	  "j=0 ka=1 hd=0 from=- m=GET argi=4" },
	{ "--t 2", -ENOENT, "unknown option '--t'" },
};

static void render(const struct res *r, int argi, char *buf, size_t len)
{
	snprintf(buf, len, "t=%u c=%u d=%llu to=%llu n=%llu r=%g j=%d ka=%d "
		 "hd=%d from=%s m=%s argi=%d", r->threads, r->conns,
		 (unsigned long long)r->duration,
		 (unsigned long long)r->timeout,
		 (unsigned long long)r->count, r->rate, r->json,
		 r->keepalive, r->have_d, r->from ? r->from : "-",
		 r->method, argi);
	if (r->k)
		snprintf(buf + strlen(buf), len - strlen(buf), " k");
}

#define R(m) OPT_AT(struct res, m)

/* A table like a workload's. */
static const struct opt test_opts[] = {
	LG_OPT_THREADS(R(threads), 64, "-t '%s': want 1..64"),
	LG_OPT_CONNS(R(conns), 1000, "-c '%s': want 1..1000"),
	{ .name = "duration", .key = 'd', .kind = OPT_DUR,
	  .off = R(duration), .min = 1, .seen = OPT_SEEN(struct res, have_d),
	  .bad = "-d '%s': want a duration like 10s" },
	LG_OPT_TIMEOUT(R(timeout), 1000000, "--timeout '%s': want 1ms or more"),
	LG_OPT_RATE_PER_S(R(rate), "--rate '%s': want operations per second > 0"),
	LG_OPT_JSON(R(json)),
	{ .name = "count", .key = 'n', .kind = OPT_U64,
	  .off = R(count), .min = 1, .max = 1000 },
	{ .name = "no-keepalive", .kind = OPT_FLAG,
	  .off = R(keepalive), .val = 0 },
	{ .name = "from", .kind = OPT_STR, .off = R(from) },
	{ .name = "method", .key = 'm', .kind = OPT_FN, .off = 0,
	  .fn = opt_method },
	{ .name = "ab", .kind = OPT_FN, .fn = opt_ab },
	{ .name = "keen", .key = 'k', .kind = OPT_FLAG, .off = R(k),
	  .val = 1 },
};

static const struct optset test_set = { "test", test_opts,
	sizeof(test_opts) / sizeof(test_opts[0]),
	"bad value '%s' in '%s' (test)", NULL, NULL };

/* Parses one case's args against test_set. */
static int parse(const char *args, struct res *r, int *argi, char *err,
		 size_t errlen)
{
	static char buf[256];
	char *argv[32], *tok, *save = NULL;
	int argc = 0;

	snprintf(buf, sizeof(buf), "%s", args);
	argv[argc++] = "test";
	for (tok = strtok_r(buf, " ", &save); tok && argc < 31;
	     tok = strtok_r(NULL, " ", &save))
		argv[argc++] = tok;
	argv[argc] = NULL;
	return opt_parse(&test_set, r, argc, argv, argi, err, errlen);
}

static void test_parse(void)
{
	char got[256], err[256];
	size_t i;
	int rc, argi;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct res r = { .threads = 1, .conns = 1,
				 .duration = 10000000000ULL,
				 .timeout = 2000000000ULL, .keepalive = 1,
				 .method = "GET" };

		argi = -1;
		rc = parse(cases[i].args, &r, &argi, err, sizeof(err));
		TAP_EQ_INT(rc, cases[i].rc, cases[i].args);
		if (rc == 0)
			render(&r, argi, got, sizeof(got));
		else
			snprintf(got, sizeof(got), "%s", rc > 0 ? "" : err);
		if (!tap_ok(strcmp(got, cases[i].want) == 0, "%s",
			    cases[i].want))
			printf("#   got \"%s\"\n", got);
	}
}

/* Thread i adds i + 1 to its own counters n times. */
struct thr {
	struct { uint64_t a, b[3]; } n;
	unsigned i;
};

static void *thr_main(void *arg)
{
	struct thr *t = arg;
	unsigned k;

	for (k = 0; k < 1000; k++) {
		t->n.a += t->i + 1;
		t->n.b[t->i % 3]++;
	}
	return NULL;
}

static void test_threads(void)
{
	static const unsigned ns[] = { 1, 3, 8 };
	struct lg_threads lt = { 0 };
	struct thr thr[8];
	size_t c;
	unsigned i, n;
	int rc;

	for (c = 0; c < sizeof(ns) / sizeof(ns[0]); c++) {
		struct { uint64_t a, b[3]; } tot = { 0 };

		n = ns[c];
		memset(thr, 0, sizeof(thr));
		for (i = 0; i < n; i++)
			thr[i].i = i;
		rc = lg_threads_start(&lt, thr, sizeof(thr[0]), n, thr_main);
		TAP_EQ_INT(rc, 0, "lg_threads_start");
		TAP_EQ_INT(lt.started, n, "every thread started");
		lg_threads_join(&lt);
		for (i = 0; i < n; i++)
			lg_sum_u64(&tot, &thr[i].n, 4);
		TAP_EQ_INT(tot.a, 1000ULL * n * (n + 1) / 2,
			   "per-thread counters merged");
		TAP_EQ_INT(tot.b[0] + tot.b[1] + tot.b[2], 1000ULL * n,
			   "arrays of counters merged");
		tap_ok(lt.tid == NULL && lt.started == 0, "join frees");
	}
}

/* opt_walk's each: the options seen, as "name=value" words. */
static int walk_each(const struct opt *o, const char *value,
		     const char *arg, void *ctx, char *err, size_t errlen)
{
	char *seen = ctx;

	(void)arg;
	snprintf(seen + strlen(seen), 256 - strlen(seen), "%s%s%s%s",
		 seen[0] ? " " : "", o->name, value ? "=" : "",
		 value ? value : "");
	if (strcmp(o->name, "from") == 0)
		return util_fail(err, errlen, -EPERM, "no --from here");
	return 0;
}

/* opt_walk: the same resolution as opt_parse, nothing stored. */
static void test_walk(void)
{
	static const struct {
		const char *args, *seen;
		int rc;
	} walks[] = {
		{ "-kt3 --conn=4 --dur 1s x --js", "keen threads=3 "
		  "connections=4 duration=1s json", 0 },
		{ "--fr=a@b -t 2", "from=a@b", -EPERM },
		{ "-t 2 -- --from=a@b", "threads=2", 0 },
		{ "--no --c 5", "no-keepalive", -ENOENT },
	};
	char buf[256], seen[256], err[128], *argv[32], *tok, *save;
	size_t i;
	int argc, argi, rc;

	for (i = 0; i < sizeof(walks) / sizeof(walks[0]); i++) {
		snprintf(buf, sizeof(buf), "%s", walks[i].args);
		argc = 0;
		argv[argc++] = "test";
		save = NULL;
		for (tok = strtok_r(buf, " ", &save); tok && argc < 31;
		     tok = strtok_r(NULL, " ", &save))
			argv[argc++] = tok;
		argv[argc] = NULL;
		seen[0] = 0;
		rc = opt_walk(&test_set, argc, argv, &argi, walk_each, seen,
			      err, sizeof(err));
		TAP_EQ_INT(rc, walks[i].rc, walks[i].args);
		if (!tap_ok(strcmp(seen, walks[i].seen) == 0, "walk %s",
			    walks[i].seen))
			printf("#   got \"%s\"\n", seen);
	}
}

/* --help from a table: the usage line, one line per option (letter,
 * name, value, text wrapped at 79 columns under column 24, allowed values
 * and default), a long name and value on a line of their own, notes. */
static void test_usage(void)
{
	static const struct opt o[] = {
		{ .name = "threads", .key = 't', .kind = OPT_UINT, .arg = "N",
		  .help = "event loops, one thread each", .def = "2" },
		{ .name = "method", .kind = OPT_STR, .arg = "M",
		  .help = "the request method", .values = "GET|HEAD",
		  .def = "GET" },
		{ .name = "engine", .kind = OPT_STR, .arg = "E",
		  .values = "epoll|curl" },
		{ .name = "no-batch", .kind = OPT_FLAG,
		  .help = "closed loop: wait for every answer, no nap between "
			  "batches (latency exact, more CPU)" },
		{ .name = "db", .kind = OPT_STR,
		  .arg = "mysql://USER@HOST[:PORT]/DB",
		  .help = "the database" },
	};
	static const struct optset set = OPTSET("demo", o, "[options] URL",
						"URLs are http://.\n");
	static const char want[] =
"usage: benchboot demo [options] URL\n"
"  -t, --threads N       event loops, one thread each (default 2)\n"
"      --method M        the request method (GET|HEAD; default GET)\n"
"      --engine E        (epoll|curl)\n"
"      --no-batch        closed loop: wait for every answer, no nap between\n"
"                        batches (latency exact, more CPU)\n"
"      --db mysql://USER@HOST[:PORT]/DB\n"
"                        the database\n"
"URLs are http://.\n";
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!tap_ok(f != NULL, "usage: a memory stream"))
		return;
	opt_usage(&set, f);
	fclose(f);
	TAP_EQ_STR(buf, want, "usage: generated from the table");
	free(buf);
}

int main(void)
{
	test_usage();
	test_parse();
	test_walk();
	test_threads();
	return tap_done();
}
