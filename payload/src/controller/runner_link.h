/* controller/runner_link.h: whether the controller's own link is gone, so
 * a run whose network died ends with what it has instead of running its
 * remaining steps with no one and retrying its upload for ever. */
#ifndef BB_RUNNER_LINK_H
#define BB_RUNNER_LINK_H

#include "controller/runner_peers.h"

/* How long every interface towards the agents may stay down while an
 * agent still counts as connected (its connection not timed out yet)
 * before the link counts as gone: a cable plugged back within it loses
 * nothing. */
#define RUNNER_LINK_GRACE_S 15

/* Whether the controller's link is gone: every local address its agents
 * were reached on (struct rpeer's local) is on an interface that is down
 * or has no carrier, or on no interface any more (before any agent
 * joined: every interface but loopback is down or without a carrier),
 * and either no agent is connected or that has lasted
 * RUNNER_LINK_GRACE_S.  Once gone it stays gone: r->link_gone says why
 * (logged once, and an event "link_gone").  Looks at the interfaces at
 * most every 500 ms; never gone when an agent was reached over loopback,
 * nor on a host with loopback alone.  Returns 1 when gone, else 0. */
int runner_link_gone(struct runner *r);

#endif
