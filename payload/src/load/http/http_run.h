/* load/http/http_run.h: a `benchboot http` run's state and counters, which
 * both engines share (http.c: epoll engine, options and report;
 * http_curl.c: the libcurl engine).  Not a contract for other modules. */
#ifndef BB_HTTP_RUN_H
#define BB_HTTP_RUN_H

#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <sys/resource.h>

#include "lib/hist.h"
#include "load/http/http.h"
#include "load/http/http_parse.h"
#include "load/http/http_target.h"
#include "load/loadgen.h"

#define HTTP_SCAN_NS 10000000ULL	/* timeout/backoff scan period */
#define HTTP_BACKOFF_NS 10000000ULL	/* before reconnecting after a
					 * refused connect: no busy spin */


struct http_cfg {
	unsigned threads, conns, pipeline;
	unsigned refill_at;	/* closed loop: queue more at or below */
	uint64_t duration, warmup, timeout, rate, seed;
	int keepalive, json, head;
	int nobatch;		/* --no-batch: no nap, wake per answer */
	int curl;		/* --engine=curl (libcurl multi) */
	int insecure;		/* -k: no TLS peer/host verification */
	const char *method;
	/* --label: names this run line within a step (the result keeps
	 * http:LABEL apart from other http lines); NULL when not given. */
	const char *label;
	char *const *headers;	/* -H lines */
	size_t nheaders;
	struct http_target_set ts;
	char **urls;		/* curl engine: full URL of each path */
};

enum { C_IDLE, C_CONNECTING, C_OPEN };

struct http_thread;

/* One connection; belongs to one thread. */
struct http_conn {
	int fd;
	uint8_t state;
	uint8_t pre;			/* fd opened in the prepare phase */
	uint32_t inflight, rhead;	/* ring of request start times */
	uint64_t *starts;		/* [pipeline] */
	uint64_t busy_since;		/* oldest request's clock for
					 * --timeout: its send, or the
					 * previous response */
	uint64_t conn_start, retry_at;
	uint64_t responses;		/* on this socket */
	uint64_t next_j;		/* open loop: this connection's next
					 * slot in the thread's schedule */
	uint64_t rng;
	char *wbuf;			/* requests not yet written */
	uint32_t wlen, woff, wcap;
	struct http_parse parse;
	struct http_thread *th;
	void *easy;			/* curl engine: its CURL handle */
};

/* requests: successes (2xx/3xx, body complete), the throughput;
 * responses: every complete response, any status.  Only uint64_t
 * fields: report_merge() sums them as an array. */
struct http_stats {
	uint64_t requests, sent, bytes, connections, responses;
	uint64_t naps;		/* closed-loop naps taken (thread_nap) */
	uint64_t errors[HTTP_E_N];
};

/* The error class of a complete response with status st, or -1 when it
 * is a success (2xx or 3xx). */
static inline int http_status_class(long st)
{
	if (st >= 200 && st < 400)
		return -1;
	if (st >= 400 && st < 500)
		return HTTP_E_4XX;
	return st >= 500 && st < 600 ? HTTP_E_5XX : HTTP_E_STATUS;
}

/* Counts one complete response of status st answered after lat ns:
 * a success enters requests and the histogram, anything else its
 * error class (and the thread's first error). */
void http_run_count_response(struct http_thread *th, long st, uint64_t lat);

struct http_thread {
	const struct http_cfg *cfg;
	unsigned id;
	int epfd;
	int tfd;		/* closed loop: wakes at the next deadline */
	uint64_t armed;		/* deadline tfd is set to */
	struct http_conn *conns;
	unsigned nconns;
	char *rbuf;

	uint64_t measure_start, end;
	int measuring;
	int draining;		/* after -d: answers awaited, not
				 * counted */
	uint64_t stopped_at;

	/* Open loop: slot k of the schedule (pace.k: the next one due)
	 * belongs to connection k % nconns. */
	struct lg_pace pace;

	uint64_t next_scan;
	/* Closed loop: running mean of response times (ns), which sets
	 * the nap before each wait (http.c, thread_nap). */
	uint64_t rtt_avg;
	void *multi;			/* curl engine: its CURLM */
	void *curl_hdrs;		/* curl engine: its curl_slist */
	struct http_stats st;
	struct hist hist;
	struct rusage ru0, ru1;
	char first_err[256];
};

/* Error class names, in enum http_err order. */
extern const char *const http_run_err_names[HTTP_E_N];

/* xorshift64*: the per-connection PRNG choosing among paths. */
static inline uint64_t http_xorshift(uint64_t *s)
{
	uint64_t x = *s;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	*s = x;
	return x * 0x2545f4914f6cdd1dULL;
}

/* A path index in [0, n), from the PRNG's top 32 bits by multiply-shift
 * (no modulo bias worth the name, no division).  Plain 64-bit arithmetic:
 * 32-bit targets (ARCH=ppc) have no unsigned __int128. */
static inline uint32_t http_pick(uint64_t *s, uint32_t n)
{
	return (uint32_t)(((http_xorshift(s) >> 32) * n) >> 32);
}

/* Open loop: when slot j of th's schedule is due (ns, monotonic). */
static inline uint64_t http_slot_time(const struct http_thread *th,
				      uint64_t j)
{
	return lg_pace_at(&th->pace, j);
}

/* Remembers th's first failure ("class: what: strerror(err)"). */
void http_run_note_err(struct http_thread *th, int cls, const char *what,
		       int err);

/* Starts the measured interval: zeroes th's counters and histogram and
 * takes the thread's CPU time. */
void http_run_begin_measure(struct http_thread *th);

#endif
