/* agent/workload.h: the workloads an agent runs on a controller's word
 * and the roles that run each: clients run load generators, servers run
 * series producers beside the stack.  The agent's side of the command
 * table (core/cmd.h), kept here so that the agent never calls up into
 * the table that calls it. */
#ifndef BB_WORKLOAD_H
#define BB_WORKLOAD_H

#include <cjson/cJSON.h>

#include "lib/opt.h"
#include "node/node.h"

/* workload.roles: a bit per role that runs the workload. */
#define WORKLOAD_ROLE(r) (1u << (r))

/* How a workload names what it loads on its command line: what the
 * agent's policy checks against the run's targets (agent/policy.h). */
enum workload_target {
	WORKLOAD_TARGET_NONE,		/* loads nothing remote, takes no
					 * operand: probe, sample */
	WORKLOAD_TARGET_LISTEN,		/* loads nothing remote; its
					 * operand is where it listens:
					 * smtp-sink */
	WORKLOAD_TARGET_URL,		/* every operand an http[s]:// URL */
	WORKLOAD_TARGET_HOST,		/* --host HOST, required; no
					 * operand: sql */
	WORKLOAD_TARGET_HOSTPORT,	/* every operand a HOST:PORT */
};

struct workload {
	const char *name;	/* the subcommand that runs it */
	unsigned roles;		/* WORKLOAD_ROLE() bits */
	/* The option table its command parses with (its header's
	 * NAME_optset): the agent resolves a controller's argv with it. */
	const struct optset *opts;
	enum workload_target target;
	/* Which options a controller may give is each entry's .remote in
	 * opts (lib/opt.h): the ones that only shape the load.  An entry
	 * without it (what reads or writes a local file or socket, any
	 * option added later) is refused. */
};

/* The table, ending with a NULL name. */
extern const struct workload workload_table[];

/* The workload called name, or NULL (name may be NULL). */
const struct workload *workload_find(const char *name);

/* The names of the workloads role runs, in table order, as a new JSON
 * array of strings: what an agent of that role announces in its hello,
 * and so all it will run (a controller's run of another is refused,
 * agent/policy.h).  The caller owns it.  NULL when out of memory. */
cJSON *workload_names(enum role role);

#endif
