/* test_cmd.c: the command table (cmd.h) and the workload table
 * (agent/workload.h): roles by name, lookup, the workload list an agent
 * announces, help and dispatch of bad names. */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "agent/workload.h"
#include "core/cmd.h"
#include "tap.h"

static void role_cases(void)
{
	static const struct {
		const char *s;
		enum role r;
	} roles[] = {
		{ "client", ROLE_CLIENT }, { "server", ROLE_SERVER },
		{ "controller", ROLE_CONTROLLER }, { "Client", ROLE_NONE },
		{ "", ROLE_NONE }, { "none", ROLE_NONE },
		{ "clientx", ROLE_NONE }, { NULL, ROLE_NONE },
	};
	size_t i;

	for (i = 0; i < sizeof(roles) / sizeof(roles[0]); i++) {
		TAP_EQ_INT(role_parse(roles[i].s), roles[i].r,
			   roles[i].s ? roles[i].s : "(null)");
		if (roles[i].r != ROLE_NONE)
			TAP_EQ_STR(role_name(roles[i].r), roles[i].s,
				   "role_name is role_parse's inverse");
	}
	TAP_EQ_STR(role_name((enum role)42), "none", "role_name out of range");
}

static void table_cases(void)
{
	static const struct {
		const char *name;
		int found, workload;
	} cmds[] = {
		{ "http", 1, 1 }, { "sql", 1, 1 }, { "smtp", 1, 1 },
		{ "probe", 1, 1 }, { "sample", 1, 1 }, { "agent", 1, 0 },
		{ "fetch", 1, 0 }, { "collect", 1, 0 }, { "help", 1, 0 },
		{ "nosuch", 0, 0 }, { "", 0, 0 }, { NULL, 0, 0 },
	};
	const struct cmd *c;
	char *names;
	cJSON *w;
	size_t i;
	int n = 0;

	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		const char *nm = cmds[i].name ? cmds[i].name : "(null)";

		tap_ok(!!cmd_find(cmds[i].name) == cmds[i].found,
		       "cmd_find %s", nm);
		tap_ok(!!workload_find(cmds[i].name) == cmds[i].workload,
		       "workload_find %s", nm);
	}
	for (c = cmd_table; c->name; c++)
		n += c->main && c->help && c->help[0];
	TAP_EQ_INT(n, (int)(c - cmd_table), "every command has a main and help");
	for (i = 0; workload_table[i].name; i++)
		tap_ok(cmd_find(workload_table[i].name) != NULL,
		       "workload %s is a command", workload_table[i].name);
	w = workload_names(ROLE_CLIENT);
	names = cJSON_PrintUnformatted(w);
	TAP_EQ_STR(names, "[\"http\",\"sql\",\"smtp\",\"smtp-sink\"]",
		   "a client's workloads, in table order");
	cJSON_free(names);
	cJSON_Delete(w);
	w = workload_names(ROLE_SERVER);
	names = cJSON_PrintUnformatted(w);
	TAP_EQ_STR(names, "[\"probe\",\"sample\"]",
		   "a server's workloads: no load generator");
	cJSON_free(names);
	cJSON_Delete(w);
}

/* Help goes to stdout: kept off the TAP stream while dispatching. */
static void dispatch_cases(void)
{
	char *bad[] = { "benchboot", "no-such-command", NULL };
	char *none[] = { "benchboot", NULL };
	char *help[] = { "benchboot", "--help", NULL };
	int saved, dn, rc[3];

	fflush(stdout);
	saved = dup(1);
	dn = open("/dev/null", O_WRONLY);
	dup2(dn, 1);
	rc[0] = cmd_dispatch(2, bad);
	rc[1] = cmd_dispatch(1, none);
	rc[2] = cmd_dispatch(2, help);
	fflush(stdout);
	dup2(saved, 1);
	close(saved);
	close(dn);
	TAP_EQ_INT(rc[0], 2, "unknown subcommand: status 2");
	TAP_EQ_INT(rc[1], 2, "no subcommand: status 2");
	TAP_EQ_INT(rc[2], 0, "--help: status 0");
}

int main(void)
{
	role_cases();
	table_cases();
	dispatch_cases();
	return tap_done();
}
