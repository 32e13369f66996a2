/* core/cmd.h: the command table (BusyBox's applet table idea): every
 * subcommand's name, main and one-line help; `help` and dispatch read it.
 * Which commands an agent runs as workloads is agent/workload.h's. */
#ifndef BB_CMD_H
#define BB_CMD_H

#include <stdio.h>

struct cmd {
	const char *name;
	int (*main)(int argc, char **argv);
	const char *help;	/* one line for `benchboot help` */
};

/* The table, ending with a NULL name. */
extern const struct cmd cmd_table[];

/* The command called name, or NULL. */
const struct cmd *cmd_find(const char *name);

/* Prints the usage and one line per command to out.  Returns 0. */
int cmd_help(FILE *out);

/* Runs the command named by argv[0]'s base name (a symlink such as
 * `http`) or by argv[1] (`benchboot http ...`); `--version` and `--help`
 * as the first argument too.  Returns the command's exit status, or 2
 * (with a message on stderr) for an unknown command or none. */
int cmd_dispatch(int argc, char **argv);

#endif
