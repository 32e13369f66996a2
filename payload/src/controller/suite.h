/* controller/suite.h: the suite file (configs/suite/NAME.suite, docs/suite-format.md):
 * a plain text list of steps a person edits, parsed with errors that name
 * the file, the line and what was expected. */
#ifndef BB_SUITE_H
#define BB_SUITE_H

#include <stddef.h>
#include <stdint.h>

#define SUITE_MAX_CONC 16	/* concurrency values per step */
#define SUITE_MAX_RUNS 8	/* run lines per step */
#define SUITE_MAX_VARS 32	/* set lines */
#define SUITE_MAX_ARGS 64	/* words per run line */

struct suite_run {
	int line;			/* where it was written */
	int argc;
	char *argv[SUITE_MAX_ARGS + 1];	/* argv[0] is the workload */
};

struct suite_step {
	char name[64];
	int line;
	uint64_t warmup_ns, duration_ns, cooldown_ns;
	/* Warm-up + duration as written, kept by suite_scale(): a repeat's
	 * time limit is never scaled (sql-ops does fixed work); 0 when not
	 * scaled. */
	uint64_t limit_ns;
	unsigned repeats;
	/* A repeat whose errors exceed this fraction of its attempts is
	 * invalid (result.h); from max_error_rate, default 0.01. */
	double max_error_rate;
	unsigned nconc;			/* 0: once, on client 0 */
	unsigned conc[SUITE_MAX_CONC];
	unsigned nruns;
	struct suite_run runs[SUITE_MAX_RUNS];
	/* sink PORT: a relay step; 0 none.  The controller starts
	 * `benchboot smtp-sink` on the first client for the step and points
	 * the server's relay route at it (runner.c, docs/suite-format.md). */
	unsigned sink_port;
};

struct suite_var {
	char name[32];
	char *value;
};

/* A parsed suite; everything is owned by it (suite_free). */
struct suite {
	char name[64];
	char version[32];
	char file[256];			/* where it came from */
	unsigned repeats;		/* default for steps: 1 */
	double max_error_rate;		/* default for steps: 0.01 */
	unsigned clients;		/* clients to wait for: 1 */
	unsigned servers;		/* servers to wait for: 1 */
	uint64_t wait_ns;		/* how long to wait for them: 120 s */
	/* Defaults for the steps: 2 s, 10 s, 2 s. */
	uint64_t warmup_ns, duration_ns, cooldown_ns;
	unsigned nvars;
	struct suite_var vars[SUITE_MAX_VARS];
	unsigned nsteps;
	struct suite_step *steps;
	double time_scale;		/* suite_scale(); 1 when not scaled */
};

/* Parses suite text (len bytes) named fname in messages.  Returns 0 and
 * fills *s (suite_free it), or -EINVAL with "FILE:LINE: message saying
 * what was expected" in err (errlen bytes), or -ENOMEM. */
int suite_parse(const char *text, size_t len, const char *fname,
		struct suite *s, char *err, size_t errlen);

/* Loads spec: a URL (contains "://", fetched with libcurl), a path
 * (contains '/' or ends in ".suite"), or a NAME looked up as NAME.suite in
 * dir (may be NULL), $BENCHBOOT_SUITE_DIR, ./configs/suite,
 * /etc/benchboot/suite, and configs/suite beside the binary's tree.
 * Returns 0, -ENOENT (message lists where it looked), -EINVAL, -EIO. */
int suite_load(const char *spec, const char *dir, struct suite *s,
	       char *err, size_t errlen);

/* Frees what a parse allocated; s is zeroed. */
void suite_free(struct suite *s);

/* The value of a set variable, or NULL. */
const char *suite_var(const struct suite *s, const char *name);

/* Sets (or overrides) a variable, e.g. from --set KEY=VALUE.  Returns 0,
 * -EINVAL (bad name), -ENOSPC, -ENOMEM. */
int suite_set_var(struct suite *s, const char *name, const char *value);

/* Expands every {NAME} (NAME an identifier: [A-Za-z_][A-Za-z0-9_-]*) in
 * tmpl into out (outlen bytes) with lookup(), which returns the value or
 * NULL for an unknown name; other braces ({00..99}, {a,b}: the http
 * workload's URL patterns) are copied as they are.  Returns 0, -ENOENT
 * (unknown name, copied into err) or -ENOSPC. */
int suite_expand(const char *tmpl, char *out, size_t outlen,
		 const char *(*lookup)(void *ctx, const char *name),
		 void *ctx, char *err, size_t errlen);

/* Time scale bounds: a scaled suite keeps every step, concurrency and
 * repeat; only its times shrink (or grow). */
#define SUITE_SCALE_MIN 0.01
#define SUITE_SCALE_MAX 10.0
/* The peer wait is never scaled below this: machines take as long to
 * boot whatever the suite's times. */
#define SUITE_SCALE_WAIT_MIN_NS 120000000000ull

/* Parses a time scale ("0.1", "1/10", "10%") into *f.  Returns 0, or
 * -EINVAL with a message naming what (the value as given) and the range
 * in err. */
int suite_parse_scale(const char *text, double *f, char *err,
		      size_t errlen);

/* Multiplies every step's warmup, duration and cooldown and the peer wait
 * (not below SUITE_SCALE_WAIT_MIN_NS, nor above what it was) by f,
 * rounded to milliseconds, a duration to at least 100 ms; steps,
 * concurrencies and repeats are kept, and so is each step's time limit
 * (limit_ns: its warm-up + duration as written).  Records f in s->time_scale.
 * Returns 0, or -EINVAL (f out of range). */
int suite_scale(struct suite *s, double f);

/* Formats ns as a duration the workloads accept ("10s", "250ms"). */
void suite_fmt_duration(uint64_t ns, char *out, size_t outlen);

#endif
