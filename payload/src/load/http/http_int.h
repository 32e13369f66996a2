/* load/http/http_int.h: what the `benchboot http` engines share inside the http
 * modules (http.c: epoll engine, options and report; http_curl.c: the
 * libcurl engine for HTTPS).  Not a contract for other modules. */
#ifndef BB_HTTP_INT_H
#define BB_HTTP_INT_H

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
void http_count_response(struct http_thread *th, long st, uint64_t lat);

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
extern const char *const http_err_names[HTTP_E_N];

/* Set by SIGINT/SIGTERM: every loop stops at its next wake-up. */
extern volatile sig_atomic_t http_stop;

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
void http_note_err(struct http_thread *th, int cls, const char *what,
		   int err);

/* Starts the measured interval: zeroes th's counters and histogram and
 * takes the thread's CPU time. */
void http_begin_measure(struct http_thread *th);

/* curl engine.  http_curl_setup() runs once before the threads: global
 * libcurl init and the full URLs; returns 0 or -ENOMEM.
 * http_curl_thread() is a thread's whole run (pthread start routine).
 * http_curl_cleanup() frees what setup made. */
int http_curl_setup(struct http_cfg *cfg);
void *http_curl_thread(void *arg);
void http_curl_cleanup(struct http_cfg *cfg);

/* The curl engine's prepare phase (behind an agent's gate, keep-alive):
 * makes every thread's multi and easy handles now and has each easy
 * handle take one request of the first URL, so that the window starts
 * with its connections open (TLS handshakes done) in the thread's
 * connection cache, where its requests find them.  Bounded by --timeout
 * and the gate's budget; a request that fails or is not answered in
 * time is dropped with its connection, which is then opened in the
 * window and counted there as any.  Nothing it does is counted (the
 * window's counters start at zero).  Returns the connections ready. */
unsigned http_curl_prepare(struct http_cfg *cfg, struct http_thread *ths);

/* Frees th's handles and header list if it still has them (a thread
 * frees its own as it ends); safe to call twice. */
void http_curl_thread_free(struct http_thread *th);

#endif
