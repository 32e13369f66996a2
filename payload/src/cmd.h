/* cmd.h: the command table (BusyBox's applet table idea): every
 * subcommand's name, main, one-line help and the agent roles that may run
 * it as a workload.  `help`, dispatch and the workload list an agent
 * announces all read this one table. */
#ifndef BB_CMD_H
#define BB_CMD_H

#include <stdio.h>

#include <cjson/cJSON.h>

#include "node.h"

/* cmd.roles: a bit per role that runs the command as a workload: clients
 * run load generators on the controller's word, servers run series
 * producers beside the stack. */
#define CMD_ROLE(r) (1u << (r))

struct cmd {
	const char *name;
	int (*main)(int argc, char **argv);
	unsigned roles;		/* CMD_ROLE() bits; 0: not a workload */
	const char *help;	/* one line for `benchboot help` */
};

/* The table, ending with a NULL name. */
extern const struct cmd cmd_table[];

/* The command called name, or NULL. */
const struct cmd *cmd_find(const char *name);

/* Whether name is a command that some role runs as a workload. */
int cmd_is_workload(const char *name);

/* Every workload command's name, in table order, as a new JSON array of
 * strings (what an agent announces in its hello); the caller owns it.
 * NULL when out of memory. */
cJSON *cmd_workloads(void);

/* Prints the usage and one line per command to out.  Returns 0. */
int cmd_help(FILE *out);

/* Runs the command named by argv[0]'s base name (a symlink such as
 * `http`) or by argv[1] (`benchboot http ...`); `--version` and `--help`
 * as the first argument too.  Returns the command's exit status, or 2
 * (with a message on stderr) for an unknown command or none. */
int cmd_dispatch(int argc, char **argv);

#endif
