/* test_clock_offset.c: offset estimation picks the minimum-round-trip sample,
 * follows a clock step within the window, and refuses impossible times;
 * repeat statistics (median, stddev, Student's t CI) on known data. */
#include <errno.h>
#include <math.h>

#include "lib/repeat_stats.h"
#include "tap.h"
#include "proto/clock_offset.h"

int main(void)
{
	struct clock_offset t;
	struct clock_offset_sample b;
	struct repeat_stats s;
	int i;

	clock_offset_init(&t);
	TAP_EQ_INT(clock_offset_best(&t, &b), -ENODATA, "no samples: -ENODATA");
	/* Peer clock 1000 ns ahead.  Symmetric 100 ns legs: exact. */
	TAP_EQ_INT(clock_offset_add(&t, 0, 1100, 1150, 250), 0, "sample accepted");
	clock_offset_best(&t, &b);
	TAP_EQ_INT(b.offset, 1000, "symmetric exchange gives the offset");
	TAP_EQ_INT(b.rtt, 200, "rtt excludes the peer's own time");
	/* A queued exchange (asymmetric, long) must not win. */
	clock_offset_add(&t, 1000, 2100, 2110, 51000);
	clock_offset_best(&t, &b);
	TAP_EQ_INT(b.offset, 1000, "slow sample does not replace the best");
	/* Impossible samples. */
	TAP_EQ_INT(clock_offset_add(&t, 10, 5, 4, 20), -EINVAL, "t3 < t2 refused");
	TAP_EQ_INT(clock_offset_add(&t, 10, 5, 6, 9), -EINVAL, "t4 < t1 refused");
	TAP_EQ_INT(clock_offset_add(&t, 0, 0, 100, 50), -EINVAL, "negative rtt");
	TAP_EQ_INT(t.rejected, 3, "rejections counted");
	/* The clock steps by +5000 ns: after a window of new samples the
	 * estimate follows, even though old samples were faster. */
	for (i = 0; i < CLOCK_OFFSET_WINDOW; i++) {
		int64_t t1 = 100000 + i * 1000;

		clock_offset_add(&t, t1, t1 + 5000 + 150, t1 + 5000 + 160, t1 + 310);
	}
	clock_offset_best(&t, &b);
	TAP_EQ_INT(b.offset, 5000, "estimate follows a step within a window");
	TAP_EQ_INT(clock_offset_count(&t), CLOCK_OFFSET_WINDOW + 2, "samples held");

	{
		double v[] = { 5, 1, 4, 2, 3 };

		TAP_EQ_INT(repeat_stats_compute(v, 5, &s), 0, "stats of 5 values");
		TAP_EQ_INT(s.median * 1000, 3000, "median");
		TAP_EQ_INT(s.mean * 1000, 3000, "mean");
		/* sample stddev of 1..5 = sqrt(2.5) */
		tap_ok(fabs(s.stddev - sqrt(2.5)) < 1e-9, "stddev (n-1)");
		/* t(0.975, 4) = 2.776 */
		tap_ok(fabs(s.ci95_hi - (3 + 2.776 * sqrt(2.5) / sqrt(5))) <
		       1e-9, "95%% CI upper bound uses Student's t");
		TAP_EQ_INT(s.min, 1, "min");
		TAP_EQ_INT(s.max, 5, "max");
	}
	{
		double v[] = { 7, 9 };

		repeat_stats_compute(v, 2, &s);
		TAP_EQ_INT(s.median, 8, "even count: mean of the middle two");
		tap_ok(fabs(s.ci95_hi - (8 + 12.706 * sqrt(2) / sqrt(2))) < 1e-9,
		       "n=2 uses t=12.706");
	}
	{
		double v[] = { 42 };

		repeat_stats_compute(v, 1, &s);
		tap_ok(s.stddev == 0 && s.ci95_lo == 42 && s.ci95_hi == 42,
		       "single repeat: no spread");
	}
	TAP_EQ_INT(repeat_stats_compute(NULL, 0, &s), -EINVAL, "no values refused");
	tap_ok(repeat_stats_t95(1000) == 1.96, "large df: normal quantile");
	return tap_done();
}
