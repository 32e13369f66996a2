/* proto/clock_offset.c: clock offset from the minimum-round-trip exchange: queueing
 * delay only ever adds to a round trip, so the fastest exchange is the one
 * whose midpoint assumption is closest to the truth. */
#include <errno.h>
#include <string.h>

#include "proto/clock_offset.h"

void clock_offset_init(struct clock_offset *t)
{
	memset(t, 0, sizeof(*t));
}

int clock_offset_add(struct clock_offset *t, int64_t t1, int64_t t2, int64_t t3,
	      int64_t t4)
{
	struct clock_offset_sample *s;
	int64_t rtt;

	if (t4 < t1 || t3 < t2) {
		t->rejected++;
		return -EINVAL;
	}
	rtt = (t4 - t1) - (t3 - t2);
	if (rtt < 0) {
		t->rejected++;
		return -EINVAL;
	}
	s = &t->s[t->n % CLOCK_OFFSET_KEEP];
	/* Halve each difference first: no overflow near 2^63. */
	s->offset = (t2 - t1) / 2 + (t3 - t4) / 2;
	s->rtt = rtt;
	s->at = t4;
	t->n++;
	return 0;
}

unsigned clock_offset_count(const struct clock_offset *t)
{
	return t->n < CLOCK_OFFSET_KEEP ? t->n : CLOCK_OFFSET_KEEP;
}

int clock_offset_best(const struct clock_offset *t, struct clock_offset_sample *best)
{
	unsigned i, n = t->n < CLOCK_OFFSET_WINDOW ? t->n : CLOCK_OFFSET_WINDOW;
	const struct clock_offset_sample *b = NULL;

	for (i = 0; i < n; i++) {
		const struct clock_offset_sample *s =
			&t->s[(t->n - 1 - i) % CLOCK_OFFSET_KEEP];

		if (!b || s->rtt < b->rtt)
			b = s;
	}
	if (!b)
		return -ENODATA;
	*best = *b;
	return 0;
}
