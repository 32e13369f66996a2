/* cmd.c: the command table and dispatch (cmd.h).  The table is the root
 * of the module graph: it names every subcommand's main, and an agent asks
 * it which workloads this binary has instead of parsing `help`. */
#include <string.h>

#include "agent.h"
#include "cmd.h"
#include "collect.h"
#include "fetch.h"
#include "http.h"
#include "ident.h"
#include "mdns.h"
#include "page.h"
#include "probe.h"
#include "report.h"
#include "sample.h"
#include "smtp.h"
#include "smtpsink.h"
#include "sql.h"
#include "sqlping.h"
#include "version.h"

#define ON_CLIENT CMD_ROLE(ROLE_CLIENT)
#define ON_SERVER CMD_ROLE(ROLE_SERVER)

static int help_main(int argc, char **argv);

const struct cmd cmd_table[] = {
	{ "help", help_main, 0, "list subcommands" },
	{ "version", version_main, 0,
	  "print benchboot's and every pinned input's version" },
	{ "agent", agent_main, 0,
	  "client, server or controller agent: discover, run the suite, merge, upload" },
	{ "collect", collect_main, 0,
	  "results collector: stores uploaded results atomically, once per id" },
	{ "http", http_main, ON_CLIENT,
	  "HTTP/1.1 load generator (wrk-style, open or closed loop)" },
	{ "fetch", fetch_main, 0,
	  "download a URL with libcurl (file, http, https, ftp)" },
	{ "sql-ping", sqlping_main, 0,
	  "connect to a MariaDB/MySQL server and print SELECT VERSION()" },
	{ "probe", probe_main, ON_SERVER,
	  "fairness probe: units of work per second lost to other processes (N&K)" },
	{ "sample", sample_main, ON_SERVER,
	  "the whole system every second (vmstat, network, named processes)" },
	{ "mdns", mdns_main, 0,
	  "publish or browse DNS-SD services over multicast DNS" },
	{ "sql", sql_main, ON_CLIENT,
	  "SQL load generator: ops, mix and point-select workloads on MariaDB/MySQL" },
	{ "smtp", smtp_main, ON_CLIENT,
	  "SMTP load generator: mails/s and latency against a mail server" },
	{ "smtp-sink", smtpsink_main, ON_CLIENT,
	  "fast SMTP sink server: accepts, counts, optionally stores mail" },
	{ "ident", ident_main, 0,
	  "what a server is, seen from the network: HTTP, SQL and SMTP versions, TCP/IP facts" },
	{ "report", page_report_main, 0,
	  "tables, CSV and an HTML page with charts from result documents (or runs selected from a collector's database); compare runs; trends" },
	{ NULL, NULL, 0, NULL },
};

const struct cmd *cmd_find(const char *name)
{
	const struct cmd *c;

	for (c = cmd_table; name && c->name; c++)
		if (strcmp(c->name, name) == 0)
			return c;
	return NULL;
}

int cmd_is_workload(const char *name)
{
	const struct cmd *c = cmd_find(name);

	return c && c->roles != 0;
}

cJSON *cmd_workloads(void)
{
	cJSON *a = cJSON_CreateArray();
	const struct cmd *c;

	for (c = cmd_table; a && c->name; c++) {
		if (!c->roles)
			continue;
		if (!cJSON_AddItemToArray(a, cJSON_CreateString(c->name))) {
			cJSON_Delete(a);
			return NULL;
		}
	}
	return a;
}

int cmd_help(FILE *out)
{
	const struct cmd *c;

	fprintf(out, "usage: benchboot SUBCOMMAND [ARGS...]\n"
		"       benchboot --version\n\nsubcommands:\n");
	for (c = cmd_table; c->name; c++)
		fprintf(out, "  %-12s %s\n", c->name, c->help);
	fprintf(out, "\n`benchboot SUBCOMMAND --help` describes one.\n");
	return 0;
}

static int help_main(int argc, char **argv)
{
	return cmd_help(stdout);
}

int cmd_dispatch(int argc, char **argv)
{
	const char *base = argv[0] ? strrchr(argv[0], '/') : NULL;
	const struct cmd *c;

	base = base ? base + 1 : argv[0];
	if (base && strcmp(base, "benchboot") != 0 && (c = cmd_find(base)))
		return c->main(argc, argv);
	if (argc < 2)
		return cmd_help(stdout) + 2;
	if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "-V") == 0)
		return version_main(argc - 1, argv + 1);
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)
		return cmd_help(stdout);
	c = cmd_find(argv[1]);
	if (!c) {
		fprintf(stderr, "benchboot: unknown subcommand '%s' (see 'benchboot help')\n", argv[1]);
		return 2;
	}
	return c->main(argc - 1, argv + 1);
}
