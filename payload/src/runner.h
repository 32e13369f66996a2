/* runner.h: the controller: accepts agents, synchronises clocks, runs a
 * suite step by step, has result.h merge what the clients measured into
 * one result document (docs/result-schema.md) and hands it to the spool. */
#ifndef BB_RUNNER_H
#define BB_RUNNER_H

#include <signal.h>
#include <stdint.h>

/* What the controller role was told on its command line. */
struct runner_opts {
	const char *id;
	const char *listen;		/* [ADDR][:PORT] */
	const char *suite;		/* NAME, PATH or URL; NULL: smoke */
	const char *suite_dir;
	const char *upload;		/* URL or NULL */
	const char *token;		/* upload bearer token */
	const char *spool;		/* spool directory */
	const char *sets[32];		/* KEY=VALUE overrides */
	int nsets;
	int peers;			/* clients to wait for; -1: suite's */
	int64_t wait_ns;		/* peer wait; -1: suite's */
	int64_t upload_deadline_ns;	/* 0: retry uploads forever */
	long upload_timeout_s;		/* one upload attempt */
	int no_series;			/* local server: no probe/sampler */
	const char *procs;		/* local server: sampler --proc list */
	int local_server;		/* the controller is also the server */
};

/* Runs the controller role for o until the suite is done and its result
 * uploaded (or the upload deadline passed), or *stop becomes non-zero.
 * Returns the exit status: 0 done and uploaded (or no upload asked),
 * 1 failure (suite, listen, spool), 2 usage, 3 result kept in the spool
 * for a later upload. */
int runner_main(const struct runner_opts *o, volatile sig_atomic_t *stop);

#endif
