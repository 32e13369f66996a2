/* core/cmd.c: the command table and dispatch (cmd.h).  The table is the root
 * of the module graph: it names every subcommand's main, and an agent asks
 * it which workloads this binary has instead of parsing `help`. */
#include <string.h>

#include "agent/agent.h"
#include "changes/changes_cmd.h"
#include "core/cmd.h"
#include "collector/collect.h"
#include "core/fetch_cmd.h"
#include "load/http/http.h"
#include "ident/ident.h"
#include "mdns/mdns_cmd.h"
#include "sysmon/probe.h"
#include "report/report_cmd.h"
#include "sysmon/sample.h"
#include "load/smtp/smtp.h"
#include "load/smtp/smtp_sink.h"
#include "load/sql/sql.h"
#include "load/sql/sqlping.h"
#include "core/version_cmd.h"

static int help_main(int argc, char **argv);

const struct cmd cmd_table[] = {
	{ "help", help_main, "list subcommands" },
	{ "version", version_main,
	  "print benchboot's and every pinned input's version" },
	{ "agent", agent_main,
	  "client, server or controller agent: discover, run the suite, merge, upload" },
	{ "collect", collect_main,
	  "results collector: stores uploaded results atomically, once per id" },
	{ "http", http_main,
	  "HTTP/1.1 load generator (wrk-style, open or closed loop)" },
	{ "fetch", fetch_main,
	  "download a URL with libcurl (file, http, https, ftp)" },
	{ "sql-ping", sqlping_main,
	  "connect to a MariaDB/MySQL server and print SELECT VERSION()" },
	{ "probe", probe_main,
	  "fairness probe: units of work per second lost to other processes (N&K)" },
	{ "sample", sample_main,
	  "the whole system every second (vmstat, network, named processes)" },
	{ "mdns", mdns_main,
	  "publish or browse DNS-SD services over multicast DNS" },
	{ "sql", sql_main,
	  "SQL load generator: ops, mix and point-select workloads on MariaDB/MySQL" },
	{ "smtp", smtp_main,
	  "SMTP load generator: mails/s and latency against a mail server" },
	{ "smtp-sink", smtp_sink_main,
	  "fast SMTP sink server: accepts, counts, optionally stores mail" },
	{ "ident", ident_main,
	  "what a server is, seen from the network: HTTP, SQL and SMTP versions, TCP/IP facts" },
	{ "report", report_main,
	  "tables, CSV and an HTML page with charts from result documents (or runs selected from a collector's database); compare runs; trends" },
	{ "changes", changes_main,
	  "change points over a lab's history (result files or the collector's database): E-Divisive means" },
	{ NULL, NULL, NULL },
};

const struct cmd *cmd_find(const char *name)
{
	const struct cmd *c;

	for (c = cmd_table; name && c->name; c++)
		if (strcmp(c->name, name) == 0)
			return c;
	return NULL;
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
