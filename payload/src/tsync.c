/* tsync.c: clock offset from the minimum-round-trip exchange: queueing
 * delay only ever adds to a round trip, so the fastest exchange is the one
 * whose midpoint assumption is closest to the truth. */
#include <errno.h>
#include <string.h>

#include "tsync.h"

void tsync_init(struct tsync *t)
{
	memset(t, 0, sizeof(*t));
}

int tsync_add(struct tsync *t, int64_t t1, int64_t t2, int64_t t3,
	      int64_t t4)
{
	struct tsync_sample *s;
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
	s = &t->s[t->n % TSYNC_KEEP];
	/* Halve each difference first: no overflow near 2^63. */
	s->offset = (t2 - t1) / 2 + (t3 - t4) / 2;
	s->rtt = rtt;
	s->at = t4;
	t->n++;
	return 0;
}

unsigned tsync_count(const struct tsync *t)
{
	return t->n < TSYNC_KEEP ? t->n : TSYNC_KEEP;
}

int tsync_best(const struct tsync *t, struct tsync_sample *best)
{
	unsigned i, n = t->n < TSYNC_WINDOW ? t->n : TSYNC_WINDOW;
	const struct tsync_sample *b = NULL;

	for (i = 0; i < n; i++) {
		const struct tsync_sample *s =
			&t->s[(t->n - 1 - i) % TSYNC_KEEP];

		if (!b || s->rtt < b->rtt)
			b = s;
	}
	if (!b)
		return -ENODATA;
	*best = *b;
	return 0;
}
