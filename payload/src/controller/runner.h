/* controller/runner.h: the controller: accepts agents, synchronises clocks, runs a
 * suite step by step, has result.h merge what the clients measured into
 * one result document (docs/result-schema.md) and hands it to the spool. */
#ifndef BB_RUNNER_H
#define BB_RUNNER_H

#include <signal.h>

#include "controller/runner_state.h"

/* Agents are admitted only through the handshake of auth.h when o->key
 * is set (an agent without the key, or with another, is refused and
 * logged with its address); in an open lab the result says so.  Limits
 * against hostile peers: a hello within RUNNER_HELLO_S of connecting, at
 * most RUNNER_PREHELLO_BYTES before it, at most RUNNER_MAX_NEW connections
 * waiting for one, and an id that is connected already is refused, not
 * taken over.
 *
 * Runs the controller role for o until the suite is done and its result
 * uploaded (or the upload deadline passed), or *stop becomes non-zero.
 * A local server that sees another controller of its lab with a lower id
 * while it waits for peers yields to it (RUNNER_YIELD, its address in
 * o->yield_to), so two servers that promote themselves together leave
 * one controller.
 *
 * Returns the exit status: 0 done and uploaded (or no upload asked),
 * 1 failure (suite, listen, spool), 2 usage, 3 result kept in the spool
 * for a later upload (the upload deadline passed), 4 the spool is full
 * (the result is not written; nothing spooled before is touched), 5 the
 * collector refused the result for good (kept in the spool's rejected/
 * with its answer), or RUNNER_YIELD (never an exit status). */
#define RUNNER_YIELD 64
int runner_main(const struct runner_opts *o, volatile sig_atomic_t *stop);

#endif
