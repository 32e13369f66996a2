/* controller/runner_state.h: the state of one run of the controller role:
 * what its command line said (struct runner_opts) and what the run holds
 * (struct runner, its agents and their series), which every piece of the
 * controller (runner_*.c) works on. */
#ifndef BB_RUNNER_STATE_H
#define BB_RUNNER_STATE_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "controller/suite.h"
#include "lib/util.h"
#include "node/node.h"
#include "node/series.h"
#include "spool/spool.h"
#include "proto/auth.h"
#include "proto/clock_offset.h"
#include "proto/control.h"

/* What the controller role was told on its command line. */
struct runner_opts {
	const char *id;
	const char *listen;		/* [ADDR][:PORT] */
	const char *suite;		/* NAME, PATH or URL; NULL: smoke */
	const char *suite_dir;
	const char *upload;		/* URL or NULL */
	const char *token;		/* upload bearer token */
	const char *ca;			/* https upload: CA file (spool.h) */
	const char *pin;		/* https upload: sha256//... pin */
	const char *spool;		/* spool directory */
	const char *run_id;		/* NULL: a new id; else this run's id,
					 * resumed from its checkpoint */
	const char *sets[32];		/* KEY=VALUE overrides */
	int nsets;
	int peers;			/* clients to wait for; -1: suite's */
	int64_t wait_ns;		/* peer wait; -1: suite's */
	int64_t upload_deadline_ns;	/* 0: retry transient failures
					 * forever (the agent's default: 1h) */
	long upload_timeout_s;		/* one upload attempt */
	int no_series;			/* local server: no probe/sampler */
	const char *procs;		/* local server: sampler --proc list */
	int local_server;		/* the controller is also the server */
	double time_scale;		/* suite_scale() factor; 0 or 1: none */
	const char *target;		/* the server under test, any host:
					 * no server agent waited for */
	const struct auth_key *key;	/* the lab key; NULL: open lab */
	const char *lab;		/* lab name; "" the default lab (not NULL) */
	char *yield_to;			/* local server: where to go on yield */
	size_t yield_len;
};

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

#endif
