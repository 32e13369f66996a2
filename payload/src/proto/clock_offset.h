/* proto/clock_offset.h: NTP-style clock offset estimation from request/response
 * exchanges; the sample with the smallest round trip wins. */
#ifndef BB_CLOCK_OFFSET_H
#define BB_CLOCK_OFFSET_H

#include <stdint.h>

/* Samples kept per peer: the estimate uses the best of the newest
 * CLOCK_OFFSET_WINDOW, so a re-estimate during a long run follows drift. */
#define CLOCK_OFFSET_KEEP 64
#define CLOCK_OFFSET_WINDOW 32

struct clock_offset_sample {
	int64_t offset;		/* peer clock - our clock, ns */
	int64_t rtt;		/* round trip minus the peer's time, ns */
	int64_t at;		/* our clock when the answer came back */
};

/* Per-peer state; zero-initialise or clock_offset_init(). */
struct clock_offset {
	struct clock_offset_sample s[CLOCK_OFFSET_KEEP];
	unsigned n;		/* samples ever added */
	uint64_t rejected;	/* answers with impossible times */
};

void clock_offset_init(struct clock_offset *t);

/* Adds one exchange: t1 our send time, t2 the peer's receive time, t3 the
 * peer's send time, t4 our receive time (ns; t1/t4 on our clock, t2/t3 on
 * the peer's).  offset = ((t2 - t1) + (t3 - t4)) / 2, rtt = (t4 - t1) -
 * (t3 - t2).  Returns 0, or -EINVAL (sample dropped and counted) when
 * t4 < t1 or t3 < t2 or the rtt is negative. */
int clock_offset_add(struct clock_offset *t, int64_t t1, int64_t t2, int64_t t3,
	      int64_t t4);

/* The current estimate: the minimum-rtt sample among the newest
 * CLOCK_OFFSET_WINDOW.  Returns 0 and fills *best, or -ENODATA with no samples. */
int clock_offset_best(const struct clock_offset *t, struct clock_offset_sample *best);

/* Samples currently held (at most CLOCK_OFFSET_KEEP). */
unsigned clock_offset_count(const struct clock_offset *t);

#endif
