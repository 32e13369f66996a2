/* agent/session.h: the client and server side of the control protocol
 * (docs/protocol.md): find or dial the controller, say hello, answer clock
 * probes, start a step's workload processes at the agreed absolute time,
 * ship their records back, and forward the server's series. */
#ifndef BB_SESSION_H
#define BB_SESSION_H

#include <signal.h>

#include <cjson/cJSON.h>

#include "proto/auth.h"
#include "node/node.h"

/* What a client or server agent was told on its command line. */
struct session_opts {
	const char *id;
	enum role role;			/* ROLE_CLIENT or ROLE_SERVER */
	const char *controller;		/* HOST[:PORT]; NULL: discover */
	/* The controller was found over mDNS, not given: after it has gone
	 * (five failed dials) the agent looks again. */
	int rediscover;
	/* --target: a host this agent may load though no benchboot server
	 * announces it (an OS measured through the kit); NULL: none. */
	const char *target;
	int once;			/* exit after the controller's done */
	int no_series;			/* server: no probe/sampler */
	const char *procs;		/* server: sampler --proc list */
	const cJSON *workloads;		/* hello: what this binary runs */
	const struct auth_key *key;	/* the lab key; NULL: open lab */
	const char *lab;		/* lab name; "" the default lab */
};

/* With a key, every connection starts with the handshake of auth.h and
 * a controller that cannot prove the key (or has none) is refused and
 * logged; without one, the agent warns on every connection that the lab
 * is open.  A run whose processes policy.h refuses is answered with the
 * reason and nothing is started.
 *
 * Serves controllers until *stop becomes non-zero (or, with once, until a
 * controller says the suite is done): discovers one over mDNS when none is
 * given (and again when a discovered one has gone), reconnects with
 * jittered backoff, closes a connection whose controller sends no welcome
 * within SESSION_WELCOME_S, and runs the server's series
 * producers throughout.  Returns the exit status: 0, or 2 for a
 * controller address that does not parse. */
int session_main(const struct session_opts *o, volatile sig_atomic_t *stop);

#endif
