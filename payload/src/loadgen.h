/* loadgen.h: what the sql and smtp load generators share: open-loop
 * pacing, the workload record's common fields and the human summary's
 * latency line. */
#ifndef BB_LOADGEN_H
#define BB_LOADGEN_H

#include <stdint.h>
#include <stdio.h>

#include <cjson/cJSON.h>

#include "hist.h"

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

/* Intended time of the next operation (start_ns + k * interval). */
static inline uint64_t lg_pace_next(const struct lg_pace *p)
{
	return p->start_ns + (uint64_t)((double)p->k * p->interval_ns);
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

#endif
