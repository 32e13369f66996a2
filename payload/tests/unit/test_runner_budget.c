/* test_runner_budget.c: the per-agent budgets of a run
 * (runner_peers_budget) are sized from the suite, under their ceilings. */
#include <stdio.h>
#include <string.h>

#include "controller/runner_peers.h"
#include "controller/suite.h"
#include "tap.h"

#define S 1000000000ull
#define MIB (1ull << 20)

int main(void)
{
	struct suite_step steps[2];
	struct suite s;
	uint64_t b, rec;
	char err[256];

	memset(&s, 0, sizeof(s));
	memset(steps, 0, sizeof(steps));
	s.wait_ns = 120 * S;
	s.steps = steps;
	s.nsteps = 1;
	steps[0].repeats = 1;
	steps[0].warmup_ns = 2 * S;
	steps[0].duration_ns = 10 * S;
	steps[0].cooldown_ns = 2 * S;

	/* One short step: 1 MiB + one repeat's result; no series. */
	b = runner_peers_budget(&s, ROLE_CLIENT, &rec);
	tap_ok(b == MIB + MIB + 65536, "a client of one repeat: 2 MiB + 64 KiB");
	tap_ok(rec == 0, "a client adds no series records");
	/* T = 120 + 2 + 10 + 2 + 60 s: 10 x 194 + 1000 records. */
	b = runner_peers_budget(&s, ROLE_SERVER, &rec);
	tap_ok(rec == 2940, "a server: 10 records a second of the run + 1000");
	tap_ok(b == MIB + MIB + 65536 + 2940ull * 8192,
	       "and 8 KiB for each of them");
	tap_ok(b < 32 * MIB, "far below the old fixed 256 MiB");

	/* A time limit beyond warm-up + duration counts (sql-ops). */
	steps[0].limit_ns = 100 * S;
	runner_peers_budget(&s, ROLE_SERVER, &rec);
	tap_ok(rec == 10 * (120 + 100 + 2 + 60) + 1000, "limit_ns counted");

	/* Repeats and concurrencies multiply. */
	steps[0].limit_ns = 0;
	steps[0].repeats = 3;
	steps[0].nconc = 4;
	steps[1] = steps[0];
	s.nsteps = 2;
	b = runner_peers_budget(&s, ROLE_CLIENT, NULL);
	tap_ok(b == MIB + 24 * (MIB + 65536), "2 steps x 3 repeats x 4 "
	       "concurrencies: 24 results");

	/* A huge suite stops at the ceilings. */
	steps[0].repeats = 1000;
	steps[0].duration_ns = 3600 * S;
	b = runner_peers_budget(&s, ROLE_SERVER, &rec);
	tap_ok(b == 256 * MIB, "at most 256 MiB");
	tap_ok(rec == 400000, "at most 400000 records");

	/* The shipped default suite, for docs/protocol.md's figures. */
	memset(&s, 0, sizeof(s));
	if (suite_load("configs/suite/default.suite", NULL, &s, err,
		       sizeof(err)) == 0) {
		uint64_t bc = runner_peers_budget(&s, ROLE_CLIENT, NULL);

		b = runner_peers_budget(&s, ROLE_SERVER, &rec);
		printf("# default suite: client %llu MiB, server %llu MiB and "
		       "%llu records\n", (unsigned long long)(bc / MIB),
		     (unsigned long long)(b / MIB),
		     (unsigned long long)rec);
		tap_ok(bc < b && b <= 256 * MIB, "default suite within bounds");
		suite_free(&s);
	} else {
		printf("# default suite not loaded: %s\n", err);
	}
	return tap_done();
}
