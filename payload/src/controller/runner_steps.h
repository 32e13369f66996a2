/* controller/runner_steps.h: the controller's steps: each repeat of each
 * step planned, launched, waited for and collected into the document. */
#ifndef BB_RUNNER_STEPS_H
#define BB_RUNNER_STEPS_H

#include <cjson/cJSON.h>

#include "controller/runner_peers.h"

/* Before the first step: points the server's relay route at the first
 * relay step's sink (the client at the suite's sink_host, or the first
 * by id), so the MTA's reload falls outside the measured steps.  Nothing
 * when the suite has no relay step or no client. */
void runner_steps_relay_early(struct runner *r);

/* Runs every step of the suite, each concurrency of a sweep as its own,
 * until done or *r->stop: each step's object is added to steps (an
 * array in r->doc), a checkpoint written after every repeat. */
void runner_steps_run(struct runner *r, cJSON *steps);

#endif
