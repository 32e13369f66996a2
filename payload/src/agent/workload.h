/* agent/workload.h: the workloads an agent runs on a controller's word
 * and the roles that run each: clients run load generators, servers run
 * series producers beside the stack.  The agent's side of the command
 * table (core/cmd.h), kept here so that the agent never calls up into
 * the table that calls it. */
#ifndef BB_WORKLOAD_H
#define BB_WORKLOAD_H

#include <cjson/cJSON.h>

#include "node/node.h"

/* workload.roles: a bit per role that runs the workload. */
#define WORKLOAD_ROLE(r) (1u << (r))

struct workload {
	const char *name;	/* the subcommand that runs it */
	unsigned roles;		/* WORKLOAD_ROLE() bits */
};

/* The table, ending with a NULL name. */
extern const struct workload workload_table[];

/* The workload called name, or NULL (name may be NULL). */
const struct workload *workload_find(const char *name);

/* Every workload's name, in table order, as a new JSON array of strings
 * (what an agent announces in its hello); the caller owns it.  NULL when
 * out of memory. */
cJSON *workload_names(void);

#endif
