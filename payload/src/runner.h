/* runner.h: the controller: accepts agents, synchronises clocks, runs a
 * suite step by step, merges what the clients measured into one result
 * document (docs/result-schema.md) and hands it to the spool. */
#ifndef BB_RUNNER_H
#define BB_RUNNER_H

#include <signal.h>

#include "agent.h"

/* Runs the controller role for o until the suite is done and its result
 * uploaded (or the upload deadline passed), or *stop becomes non-zero.
 * Returns the exit status: 0 done and uploaded (or no upload asked),
 * 1 failure (suite, listen, spool), 2 usage, 3 result kept in the spool
 * for a later upload. */
int runner_main(struct agent_opts *o, volatile sig_atomic_t *stop);

#endif
