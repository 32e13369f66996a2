/* controller/runner_peers.h: the controller's agents: the state one run
 * shares (struct runner, every piece of runner.c works on it), accepting
 * agents, the poll loop, waiting for peers and clock sync. */
#ifndef BB_RUNNER_PEERS_H
#define BB_RUNNER_PEERS_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "controller/suite.h"
#include "lib/util.h"
#include "node/node.h"
#include "node/series.h"
#include "node/spool.h"
#include "proto/auth.h"
#include "proto/clock_offset.h"
#include "proto/control.h"

struct runner_opts;

/* Agents one run takes at most (slots, connected or lost). */
#define RUNNER_MAX_PEERS 4096
/* Events the result keeps; beyond, they are only counted. */
#define RUNNER_MAX_EVENTS 1000

/* A slot's state: unused, connected without hello, joined, gone. */
enum { RP_FREE, RP_NEW, RP_READY, RP_LOST };

struct rpeer {
	int state;
	struct control_conn c;
	char id[64];
	enum role role;
	char addr[64];		/* the agent's address, as we see it */
	char local[64];		/* our address on this connection */
	cJSON *host, *workloads;
	struct clock_offset ts;
	int tq_out;		/* a time request is outstanding */
	uint64_t tq_sent;	/* since when (monotonic ns) */
	unsigned tq_got;	/* answers since the last sync began */
	int in_step;		/* waiting for its result */
	/* The step's prepare phase: answered, how many of its processes
	 * were ready and failed, when it answered (controller clock). */
	int prepared;
	unsigned prep_ready, prep_failed;
	int64_t prep_at;
	cJSON *reset;		/* server: its answer to "reset" */
	cJSON *result;		/* its result for the current step */
	int lost_in_step;
	unsigned idx;		/* client index in the current step */
	uint64_t since_mono;	/* connected at (for the hello deadline) */
	char nonce_a[AUTH_HEX_NONCE + 1];	/* keyed lab: the agent's */
	char nonce_c[AUTH_HEX_NONCE + 1];	/* and ours */
	int authed;		/* keyed lab: the agent proved the key */
	uint64_t nseries;	/* series records it added */
	/* Its budgets for the run (runner_peers_budget), set at hello. */
	uint64_t byte_budget, series_budget;
	struct auth_session as;
};

struct series_rec {
	int64_t t;		/* controller clock, ns */
	const char *source;
	cJSON *rec;
};

/* One run of the controller role: runner_main() owns it and frees what
 * it holds (runner.c's teardown). */
struct runner {
	const struct runner_opts *o;
	volatile sig_atomic_t *stop;
	struct suite suite;
	int lfd;
	struct rpeer *peers;
	int npeers;		/* slots in use (some may be RP_FREE) */
	cJSON *doc, *events, *errors;
	struct series local_series[SERIES_MAX];
	int nlocal_series;
	struct series_rec *series;
	size_t nseries, capseries;
	/* The newest record's time of each source (sample, probe), 0
	 * before its first: how far the series have come in. */
	int64_t series_newest[SERIES_MAX];
	int64_t rep_end;	/* controller clock the last load ended */
	int64_t step_start;	/* controller clock of the current step */
	char relay_to[96];	/* the sink the relay route was pointed at */
	char cur_step[201];
	uint64_t malformed;
	struct spool_dest dest;	/* where results go, how it is trusted */
	int spare_fd;		/* given up when descriptors run out */
	struct util_clockwatch clock;	/* wall-clock steps, as events */
	int yielding;		/* one was found: give up the role */
	unsigned nevents;	/* including those past RUNNER_MAX_EVENTS */
	/* For the status line: repeats done and planned, and the planned
	 * (warm-up + measured + cool-down) time of those not run yet. */
	unsigned rep_done, rep_total;
	uint64_t left_ns;
	/* Clients a repeat lost: the next one waits for that many. */
	int rejoin;
	/* Clients joined when the steps began: no step runs with fewer
	 * than it needs of them (runner_steps.c). */
	int start_clients;
	/* The controller's own link (runner_link.h): down since (monotonic
	 * ns, 0 while up), when it was last looked at, and once it is
	 * gone for good, why (the run then ends with what it has). */
	uint64_t link_down_since, link_checked;
	char link_gone[200];
	/* --run-id's checkpoint while it may be resumed; then the names
	 * of the repeats taken from it (the document's resumed.repeats). */
	cJSON *resume, *resumed;
	time_t resume_mtime;
};

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
