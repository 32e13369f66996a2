/* controller/runner_peers.h: the controller's agents: accepting them, the
 * poll loop, waiting for peers and clock sync (on the run's state,
 * controller/runner_state.h). */
#ifndef BB_RUNNER_PEERS_H
#define BB_RUNNER_PEERS_H

#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "controller/runner_state.h"

/* What one agent of role may send over a run of suite s: returns the
 * bytes (beyond them its connection is refused, the run goes on), and
 * the series records it may add into *series unless NULL (beyond them
 * they are dropped, said once).  Sized from the steps, repeats,
 * concurrencies, times and peer wait, at most 256 MiB and 400000
 * records (docs/protocol.md, "Limits"). */
uint64_t runner_peers_budget(const struct suite *s, enum role role,
			     uint64_t *series);

/* The controller's clock: the wall clock in ns, what every time in the
 * result is on. */
int64_t runner_peers_now(void);

/* Adds an event (type, the agent id or address it concerns or NULL,
 * detail or NULL, stamped with the current step) to r->events; past
 * RUNNER_MAX_EVENTS only r->nevents counts it. */
void runner_peers_event(struct runner *r, const char *type, const char *id,
			const char *detail);

/* Closes p's connection for why (logged): a joined agent is marked lost
 * (and lost in its step, if it was in one), a stranger's slot freed. */
void runner_peers_drop(struct runner *r, struct rpeer *p,
		       const char *why);

/* Services every socket for up to ms milliseconds (one poll round): the
 * listener, the local series and every peer; answers the mDNS
 * responder and records wall-clock steps. */
void runner_peers_pump(struct runner *r, int ms);

/* Joined (ready) agents of role. */
int runner_peers_count(struct runner *r, enum role role);

/* NTP-style exchanges with every ready agent until each has answered want
 * times (one request in flight per agent), or timeout_ms, or *r->stop. */
void runner_peers_sync(struct runner *r, unsigned want, int timeout_ms);

/* p's clock offset (its clock minus ours, ns) from its best exchange;
 * its round trip into *rtt unless rtt is NULL.  0 before any. */
int64_t runner_peers_offset(const struct rpeer *p, int64_t *rtt);

/* The first ready server agent, or NULL. */
struct rpeer *runner_peers_server(struct runner *r);

/* Keeps every agent serviced for ns (a cool-down, a back-off), or until
 * *r->stop. */
void runner_peers_serve_for(struct runner *r, uint64_t ns);

/* Waits for the suite's (or --peers') clients and servers, or the wait
 * time; a local server that sees a controller of its lab with a lower id
 * stops waiting with r->yielding set.  Returns the result's "peers"
 * object (the caller owns it; NULL when out of memory). */
cJSON *runner_peers_wait(struct runner *r);

#endif
