/* sysmon/probe.h: `benchboot probe`, N&K's fairness probe: a normal-priority
 * process that tries to do a fixed number of small work units per second,
 * sleeping to absolute deadlines between them, and reports how many it
 * could not do (the share of the CPU the OS failed to give it in time). */
#ifndef BB_PROBE_H
#define BB_PROBE_H

#include <stdint.h>

#include "lib/opt.h"

/* Deadline of slot k (ns on CLOCK_MONOTONIC) for a probe started at t0
 * doing rate units per second: t0 + k * 1e9 / rate, exact (no drift over
 * any run length, no overflow for k < 2^63 / 1e9 * rate). */
uint64_t probe_deadline(uint64_t t0, uint64_t k, uint64_t rate);

/* The first slot whose deadline is after now (now >= t0). */
uint64_t probe_next_slot(uint64_t t0, uint64_t now, uint64_t rate);

/* N&K's figures from n complete seconds: done[i] units done in second i
 * out of ideal each.  *stddev_pct is the standard deviation from the ideal
 * in percent: sqrt(mean((done - ideal)^2)) / ideal * 100 (taken about the
 * ideal, not about the mean, as N&K's "standardavvikelse i procent från
 * idealvärdet"); *lost_pct is the lost units in percent of all ideal
 * units; *worst_pct the largest loss of one second, in percent.  All 0
 * when n is 0.  Returns 0, or -EINVAL when ideal is 0. */
int probe_stats(const uint64_t *done, uint64_t n, uint64_t ideal,
		double *stddev_pct, double *lost_pct, double *worst_pct);

/* One work unit: iters iterations of a dependent integer recurrence the
 * compiler cannot fold, so its cost is constant and only CPU; returns the
 * result so the caller can keep it live. */
uint64_t probe_work(uint64_t seed, uint64_t iters);

/* Entry point: `benchboot probe [--rate N] [--duration D | --count S]
 * [--work ITERS] [--json]`.  Exit 0, 1 on failure, 2 on usage errors. */
int probe_main(int argc, char **argv);

/* The options probe_main() parses with, for the agent to resolve a
 * controller's argv by (agent/policy.h); its offsets are into probe.c's
 * own config, so only opt_walk() may use it from outside. */
extern const struct optset probe_optset;

#endif
