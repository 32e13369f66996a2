/* test_probe.c: the probe's slot arithmetic, N&K's figures and the work
 * unit, against values worked out by hand. */
#include <errno.h>
#include <math.h>
#include <stdint.h>

#include "sysmon/probe.h"
#include "tap.h"

static const struct {
	uint64_t t0, k, rate, want;
} deadlines[] = {
	{ 0, 0, 1000, 0 },
	{ 0, 1, 1000, 1000000 },
	{ 5, 1000, 1000, 1000000005 },
	{ 0, 1, 3, 333333333 },
	{ 0, 2, 3, 666666666 },
	{ 0, 3, 3, 1000000000 },
	/* a year at 1000/s: no drift, no overflow */
	{ 7, 31536000000ull, 1000, 31536000000000007ull },
	{ 0, 100001, 100000, 1000010000 },
};

static const struct {
	uint64_t t0, now, rate, want;
} nexts[] = {
	{ 0, 0, 1000, 1 },		/* slot 0 is due at now: next is 1 */
	{ 0, 999999, 1000, 1 },
	{ 0, 1000000, 1000, 2 },
	{ 0, 1000001, 1000, 2 },
	{ 0, 333333332, 3, 1 },
	{ 0, 333333333, 3, 2 },
	{ 100, 2500000100ull, 1000, 2501 },
};

static const struct {
	uint64_t done[4], n, ideal;
	int rc;
	double sd, lost, worst;
} stats[] = {
	{ { 1000, 1000 }, 2, 1000, 0, 0, 0, 0 },
	/* (-0.1^2 + 0) / 2 = 0.005, sqrt = 0.0707 */
	{ { 900, 1000 }, 2, 1000, 0, 7.0710678118654755, 5, 10 },
	{ { 0 }, 1, 1000, 0, 100, 100, 100 },
	{ { 500, 500, 500, 500 }, 4, 1000, 0, 50, 50, 50 },
	{ { 0 }, 0, 1000, 0, 0, 0, 0 },
	{ { 1 }, 1, 0, -EINVAL, 0, 0, 0 },
};

static int near(double a, double b)
{
	return fabs(a - b) <= 1e-9 * (fabs(b) + 1);
}

int main(void)
{
	size_t i;

	for (i = 0; i < sizeof(deadlines) / sizeof(deadlines[0]); i++)
		TAP_EQ_INT(probe_deadline(deadlines[i].t0, deadlines[i].k,
					  deadlines[i].rate) -
			   deadlines[i].want, 0, "probe_deadline case");
	for (i = 0; i < sizeof(nexts) / sizeof(nexts[0]); i++)
		TAP_EQ_INT(probe_next_slot(nexts[i].t0, nexts[i].now,
					   nexts[i].rate), nexts[i].want,
			   "probe_next_slot case");
	for (i = 0; i < sizeof(stats) / sizeof(stats[0]); i++) {
		double sd, lost, worst;
		int rc = probe_stats(stats[i].done, stats[i].n,
				     stats[i].ideal, &sd, &lost, &worst);

		tap_ok(rc == stats[i].rc && near(sd, stats[i].sd) &&
		       near(lost, stats[i].lost) &&
		       near(worst, stats[i].worst),
		       "probe_stats case %zu: rc %d sd %g lost %g worst %g",
		       i, rc, sd, lost, worst);
	}
	/* xorshift64 of 1, one step: 1 ^ 1<<13 = 8193; ^ 8193>>7 (64) =
	 * 8257; ^ 8257<<17 = 8257 + 8257 * 131072 (no common bits) */
	TAP_EQ_INT(probe_work(1, 1), 1082269761ull, "probe_work one step");
	TAP_EQ_INT(probe_work(1, 0), 1, "probe_work zero iterations");
	tap_ok(probe_work(2, 1000) == probe_work(2, 1000),
	       "probe_work is deterministic");
	return tap_done();
}
