/* node/series.h: long-running series producers (`benchboot sample`, `probe`)
 * started beside the server stack, whose JSON lines an agent forwards to
 * the controller (or the controller keeps, when it is the server). */
#ifndef BB_SERIES_H
#define BB_SERIES_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <cjson/cJSON.h>

/* The services whose RSS and CPU the server's sampler follows by
 * default (the reference stack and the usual alternatives). */
#define SERIES_SAMPLE_PROCS \
	"apache2,httpd,nginx,mariadbd,mysqld,master,smtpd,qmgr"

/* The producers a server runs: at most this many. */
#define SERIES_MAX 2

struct series {
	const char *source;		/* "probe" or "sample" */
	pid_t pid;
	int fd;				/* its stdout (non-blocking) */
	char buf[65536];
	size_t len;
	uint64_t lines, dropped;
};

/* Called with each record read; takes ownership of rec. */
typedef void series_cb(void *ctx, const char *source, cJSON *rec);

/* Starts `benchboot SOURCE --json` (plus `--proc PROCS` when procs is
 * not NULL) with stdout piped.  Returns 0 or a negative errno. */
int series_start(struct series *s, const char *source, const char *procs);

/* Starts every producer a server runs (the sampler following procs, and
 * the probe) into s[0..SERIES_MAX), skipping (and logging) one that fails
 * to start.  Returns how many run. */
int series_start_server(struct series *s, const char *procs);

/* Reads what the pipe holds and calls cb for each complete line that
 * parses as a JSON object.  Returns 0, or -EPIPE when the producer has
 * gone (then fd is -1). */
int series_read(struct series *s, series_cb *cb, void *ctx);

/* A series_cb that drops the record (nobody to send it to). */
void series_discard(void *ctx, const char *source, cJSON *rec);

/* Stops the producer (SIGTERM, then SIGKILL after 1 s) and reaps it. */
void series_stop(struct series *s);

#endif
