/* tsync.h: NTP-style clock offset estimation from request/response
 * exchanges; the sample with the smallest round trip wins. */
#ifndef BB_TSYNC_H
#define BB_TSYNC_H

#include <stdint.h>

/* Samples kept per peer: the estimate uses the best of the newest
 * TSYNC_WINDOW, so a re-estimate during a long run follows drift. */
#define TSYNC_KEEP 64
#define TSYNC_WINDOW 32

struct tsync_sample {
	int64_t offset;		/* peer clock - our clock, ns */
	int64_t rtt;		/* round trip minus the peer's time, ns */
	int64_t at;		/* our clock when the answer came back */
};

/* Per-peer state; zero-initialise or tsync_init(). */
struct tsync {
	struct tsync_sample s[TSYNC_KEEP];
	unsigned n;		/* samples ever added */
	uint64_t rejected;	/* answers with impossible times */
};

void tsync_init(struct tsync *t);

/* Adds one exchange: t1 our send time, t2 the peer's receive time, t3 the
 * peer's send time, t4 our receive time (ns; t1/t4 on our clock, t2/t3 on
 * the peer's).  offset = ((t2 - t1) + (t3 - t4)) / 2, rtt = (t4 - t1) -
 * (t3 - t2).  Returns 0, or -EINVAL (sample dropped and counted) when
 * t4 < t1 or t3 < t2 or the rtt is negative. */
int tsync_add(struct tsync *t, int64_t t1, int64_t t2, int64_t t3,
	      int64_t t4);

/* The current estimate: the minimum-rtt sample among the newest
 * TSYNC_WINDOW.  Returns 0 and fills *best, or -ENODATA with no samples. */
int tsync_best(const struct tsync *t, struct tsync_sample *best);

/* Samples currently held (at most TSYNC_KEEP). */
unsigned tsync_count(const struct tsync *t);

#endif
