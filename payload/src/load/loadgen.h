/* load/loadgen.h: the base the load generators (http, smtp, smtp-sink, sql)
 * share: their common options (lib/opt.h), thread spawn/join, open-loop
 * pacing, the workload record's common fields and the summary lines.
 * Not an event loop: each workload's epoll loop waits its own way (timerfd,
 * epoll_pwait2, ticks, a shared listener, the connector's states), and a
 * wrapper would cost an indirect call per event (docs/http.md). */
#ifndef BB_LOADGEN_H
#define BB_LOADGEN_H

#include <pthread.h>
#include <stddef.h>
#include <sys/socket.h>
#include <stdint.h>
#include <stdio.h>

#include <cjson/cJSON.h>

#include "lib/hist.h"
#include "lib/opt.h"

/* Open-loop schedule of one thread: the k-th operation is due at
 * start + k / rate.  Latency is measured from that intended time, so a
 * stalled server cannot hide behind a client that waited for it. */
struct lg_pace {
	uint64_t start_ns;
	double interval_ns;	/* 0: closed loop, always due */
	uint64_t k;
};

/* rate: operations per second for this thread; 0 for a closed loop. */
void lg_pace_init(struct lg_pace *p, uint64_t start_ns, double rate);

/* Intended time of operation k (start_ns + k * interval): http's
 * connections keep their own k in the thread's schedule. */
static inline uint64_t lg_pace_at(const struct lg_pace *p, uint64_t k)
{
	return p->start_ns + (uint64_t)((double)k * p->interval_ns);
}

/* Intended time of the next operation. */
static inline uint64_t lg_pace_next(const struct lg_pace *p)
{
	return lg_pace_at(p, p->k);
}

/* Milliseconds an event loop may sleep in epoll_wait() before the next
 * paced operation is due, at most cap_ms (cap_ms in a closed loop). */
static inline int lg_pace_wait_ms(const struct lg_pace *p, uint64_t now,
				  int cap_ms)
{
	uint64_t due;

	if (p->interval_ns == 0)
		return cap_ms;
	due = lg_pace_next(p);
	if (due <= now)
		return 0;
	return due - now >= (uint64_t)cap_ms * 1000000u ?
	       cap_ms : (int)((due - now) / 1000000);
}

/* If the next operation is due at now, takes it: returns its intended
 * time (now in a closed loop) and advances.  Returns 0 when not due yet. */
static inline uint64_t lg_pace_take(struct lg_pace *p, uint64_t now)
{
	uint64_t t;

	if (p->interval_ns == 0)
		return now;
	t = lg_pace_next(p);
	if (t > now)
		return 0;
	p->k++;
	return t;
}

/* Share i (0-based) of total split over n parts as evenly as possible
 * (the first total % n parts get one more). */
uint64_t lg_share(uint64_t total, unsigned n, unsigned i);

/* A new workload record (docs/result-schema.md, benchboot.workload/1)
 * with schema, workload, tool, host, start and elapsed_s filled in; the
 * caller adds params, counters, errors and latency and owns the result
 * (cJSON_Delete).  NULL when out of memory. */
cJSON *lg_record_new(const char *workload, uint64_t start_real_ns,
		     uint64_t start_mono_ns, double elapsed_s);

/* Prints rec as one JSON document and a newline to stdout and deletes
 * it.  Returns 0, or -ENOMEM when it could not be rendered. */
int lg_record_print(cJSON *rec);

/* Human summary line "  LABEL  mean .. p50 .. p90 .. p99 .. p99.9 ..
 * max .." with unit-scaled values (or "no samples"); label at most 11
 * characters keeps the columns. */
void lg_print_hist(FILE *out, const char *label, const struct hist *h);

/* lg_print_hist() labelled "latency". */
void lg_print_latency(FILE *out, const struct hist *h);

/* Formats ns with a unit (ns, us, ms, s) into buf; returns buf. */
const char *lg_fmt_ns(char *buf, size_t len, double ns);

/* --- options ---------------------------------------------------------
 * Every load generator describes its options in one static table of
 * struct opt (lib/opt.h); the options they share have one spelling
 * (LG_OPT_THREADS ...), each workload giving its own bounds and its own
 * message, then its own help, default and .remote as designators.  off:
 * OPT_AT(its config type, member). */

#define LG_OPT_THREADS(o, hi, msg, ...) { .name = "threads", .key = 't', \
	.kind = OPT_UINT, .off = (o), .min = 1, .max = (hi), .bad = (msg), \
	.arg = "N", __VA_ARGS__ }
#define LG_OPT_CONNS(o, hi, msg, ...) { .name = "connections", \
	.key = 'c', .kind = OPT_UINT, .off = (o), .min = 1, .max = (hi), \
	.bad = (msg), .arg = "N", __VA_ARGS__ }
#define LG_OPT_DURATION(o, msg, ...) { .name = "duration", .key = 'd', \
	.kind = OPT_DUR, .off = (o), .min = 1, .bad = (msg), .arg = "DUR", \
	__VA_ARGS__ }
#define LG_OPT_TIMEOUT(o, lo, msg, ...) { .name = "timeout", \
	.kind = OPT_DUR, .off = (o), .min = (lo), .bad = (msg), \
	.arg = "DUR", __VA_ARGS__ }
#define LG_OPT_WARMUP(o, msg, ...) { .name = "warmup", .kind = OPT_DUR, \
	.off = (o), .bad = (msg), .arg = "DUR", __VA_ARGS__ }
#define LG_OPT_RATE_PER_S(o, msg, ...) { .name = "rate", \
	.kind = OPT_RATE, .off = (o), .max = 100000000, .bad = (msg), \
	.arg = "R", __VA_ARGS__ }
#define LG_OPT_JSON(o, ...) { .name = "json", .kind = OPT_FLAG, \
	.off = (o), .val = 1, __VA_ARGS__ }

/* --- threads -----------------------------------------------------------
 * Per-thread state lives in the caller's array (no sharing on hot paths);
 * the caller merges it after lg_threads_join(). */

struct lg_threads {
	pthread_t *tid;
	unsigned n, started;
};

/* Starts n threads (n >= 1), thread i running fn(states + i * stride).
 * Returns 0 when all run; -ENOMEM or the negated pthread_create() error
 * when not, with lt->started of them running.  Either way
 * lg_threads_join() must follow. */
int lg_threads_start(struct lg_threads *lt, void *states, size_t stride,
		     unsigned n, void *(*fn)(void *));

/* Joins every thread lg_threads_start() started and frees lt's memory. */
void lg_threads_join(struct lg_threads *lt);

/* Adds n uint64_t counters of src to dst: a thread's counters kept as a
 * struct of uint64_t only, merged with
 * lg_sum_u64(&tot, &t, sizeof(tot) / sizeof(uint64_t)). */
void lg_sum_u64(void *dst, const void *src, size_t n);

/* --- the prepare gate (docs/protocol.md, "Prepare, then start") ----
 * An agent runs a step's workloads in two phases: each prepares
 * (connections, tables, statements), says so, and waits for the start
 * the controller gives every client once all are prepared, so the
 * measured window is the same everywhere and no preparation eats it.
 * The agent passes the gate in GATE_ENV (proto/gate.h); run by
 * hand, without it, the gate is open. */

/* 1 when this process was started behind a gate. */
int lg_gate_active(void);

/* How long the workload may prepare (ns), or dflt when not gated. */
uint64_t lg_gate_budget_ns(uint64_t dflt);

/* The prepare phase's connections (http's and smtp's): opens n
 * non-blocking TCP connections (TCP_NODELAY) to addr into fds[] and
 * polls them until each is ready, within timeout_ns and the gate's
 * budget (lg_gate_budget_ns).  A connection is ready once connected when
 * step is NULL; otherwise step(ctx, i, fds[i]) is called whenever fds[i]
 * is readable after that and returns 0 to wait for more, 1 when it is
 * ready, -1 when it failed.  One that failed, or is not ready in time,
 * is closed and its fds[i] is -1 (the workload opens it at the start,
 * counted there as any).  Returns how many are ready; the caller owns
 * their fds. */
unsigned lg_prepare_conns(const struct sockaddr *addr, socklen_t addrlen,
			  int *fds, unsigned n, uint64_t timeout_ns,
			  int (*step)(void *ctx, unsigned i, int fd),
			  void *ctx);

/* Reports the preparation's outcome (ok: prepared; else failed) and,
 * when prepared, waits for the start time and sleeps until it
 * (wake_at(): at real-time priority, back at the caller's own before it
 * returns).
 * Returns 0 to start now (at once when not gated), -ECANCELED when the
 * run is off (not prepared, or the agent closed the gate: the step was
 * aborted), -ETIME when the start had passed by more than 100 ms when
 * the preparation ended (a client that finished too late measures
 * another window), -ERANGE when it is more than LG_GATE_MAX_AHEAD_NS
 * ahead, -EIO on a broken gate, -EPERM when it could not leave real-time
 * priority (the load never runs at it).  Called at most once. */
int lg_gate(int ok);

/* What lg_gate()'s rc means, for the workload's error line ("prepared
 * after the start" for -ETIME, strerror's text for others); static. */
const char *lg_gate_strerror(int rc);

/* How far ahead a start may be (an agent's is under a second ahead). */
#define LG_GATE_MAX_AHEAD_NS 60000000000ll

#endif
