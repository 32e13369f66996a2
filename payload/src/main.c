/* main.c: the multi-call entry point.  `benchboot SUBCOMMAND ...` (or a
 * symlink named after the subcommand) runs that subcommand's *_main(). */
#include <stdio.h>
#include <string.h>

#include "agent.h"
#include "collect.h"
#include "fetch.h"
#include "http.h"
#include "mdns.h"
#include "probe.h"
#include "report.h"
#include "sample.h"
#include "smtp.h"
#include "smtpsink.h"
#include "sql.h"
#include "sqlping.h"
#include "version.h"

struct bb_cmd {
	const char *name;
	int (*main)(int argc, char **argv);
	const char *summary;
};

static int help_main(int argc, char **argv);

static const struct bb_cmd bb_cmds[] = {
	{ "help", help_main, "list subcommands" },
	{ "version", version_main, "print benchboot's and every pinned "
				   "input's version" },
	{ "agent", agent_main, "client, server or controller agent: "
			       "discover, run the suite, merge, upload" },
	{ "collect", collect_main, "results collector: stores uploaded "
				   "results atomically, once per id" },
	{ "http", http_main, "HTTP/1.1 load generator (wrk-style, open or "
			     "closed loop)" },
	{ "fetch", fetch_main, "download a URL with libcurl (file, http, "
			       "https, ftp)" },
	{ "sql-ping", sqlping_main, "connect to a MariaDB/MySQL server and "
				    "print SELECT VERSION()" },
	{ "probe", probe_main, "fairness probe: units of work per second "
			       "lost to other processes (N&K)" },
	{ "sample", sample_main, "the whole system every second "
				 "(vmstat, network, named processes)" },
	{ "mdns", mdns_main, "publish or browse DNS-SD services over "
			     "multicast DNS" },
	{ "sql", sql_main, "SQL load generator: ops, mix and point-select "
			   "workloads on MariaDB/MySQL" },
	{ "smtp", smtp_main, "SMTP load generator: mails/s and latency "
			     "against a mail server" },
	{ "smtp-sink", smtpsink_main, "fast SMTP sink server: accepts, "
				      "counts, optionally stores mail" },
	{ "report", report_main, "tables, CSV and an HTML page with charts "
				 "from result documents; compare runs" },
	{ NULL, NULL, NULL },
};

static int help_main(int argc, char **argv)
{
	const struct bb_cmd *c;

	printf("usage: benchboot SUBCOMMAND [ARGS...]\n"
	       "       benchboot --version\n\nsubcommands:\n");
	for (c = bb_cmds; c->name; c++)
		printf("  %-12s %s\n", c->name, c->summary);
	printf("\n`benchboot SUBCOMMAND --help` describes one.\n");
	return 0;
}

static const struct bb_cmd *cmd_find(const char *name)
{
	const struct bb_cmd *c;

	for (c = bb_cmds; c->name; c++)
		if (strcmp(c->name, name) == 0)
			return c;
	return NULL;
}

int main(int argc, char **argv)
{
	const char *base = argv[0] ? strrchr(argv[0], '/') : NULL;
	const struct bb_cmd *c;

	base = base ? base + 1 : argv[0];
	if (base && strcmp(base, "benchboot") != 0 && (c = cmd_find(base)))
		return c->main(argc, argv);
	if (argc < 2)
		return help_main(argc, argv) + 2;
	if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "-V") == 0)
		return version_main(argc - 1, argv + 1);
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)
		return help_main(argc - 1, argv + 1);
	c = cmd_find(argv[1]);
	if (!c) {
		fprintf(stderr, "benchboot: unknown subcommand '%s' "
			"(see 'benchboot help')\n", argv[1]);
		return 2;
	}
	return c->main(argc - 1, argv + 1);
}
