/* controller/runner_handover.h: whether a server that became the controller
 * gives the role up to another controller of its lab: one with a lower
 * id, and in a keyed lab only one that proves the lab key. */
#ifndef BB_RUNNER_HANDOVER_H
#define BB_RUNNER_HANDOVER_H

#include "controller/runner_state.h"

/* How long a controller that failed to prove the key (or did not answer)
 * is not asked again, and how long one check may take. */
#define RUNNER_HANDOVER_RETRY_S 30
#define RUNNER_HANDOVER_CHECK_MS 2000

/* Starts watching the LAN for controllers of o's lab (an open lab:
 * peer.h's watch, as before; a keyed lab: a browser of its own, so that
 * every announced controller is seen, not only the first).  Returns 0
 * or a negative errno (no multicast: nothing is found). */
int runner_handover_start(const struct runner_opts *o);

/* Services the watch (call it at least every 100 ms) and looks for a
 * controller of o->lab with an id below o->id.  In an open lab the first
 * one found leads (announcements are all there is).  In a keyed lab one
 * leads only when it proves the lab key: this controller connects as an
 * agent would, sends "auth" and checks the "challenge"'s proof and lab
 * (proto/auth.h), then closes without joining; one that fails (or does
 * not answer within RUNNER_HANDOVER_CHECK_MS) is logged and not asked again
 * for RUNNER_HANDOVER_RETRY_S.  A check blocks the caller for at most
 * RUNNER_HANDOVER_CHECK_MS.  Writes the leader's "ADDR:PORT" into
 * o->yield_to.  Returns 1 yield to it, else 0. */
int runner_handover_check(const struct runner_opts *o);

/* Stops the watch. */
void runner_handover_stop(void);

#endif
