/* load/sql/sqlping.c: connect, SELECT VERSION(), print, disconnect. */
#include <errno.h>
#include <getopt.h>
#include <mysql.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "load/sql/sqlping.h"
#include "lib/util.h"

static void sqlping_usage(FILE *out)
{
	fprintf(out,
		"usage: benchboot sql-ping [--host H] [--port P] [--socket PATH] [--user U]\n"
		"                          [--password PW] [--db DB] [--timeout SECONDS]\n"
		"                          [--drop-tables]\n");
}

/* Where and as whom to connect. */
struct sqlping_opts {
	const char *host, *sock, *user, *pw, *db;
	uint64_t port, timeout;
	int drop;		/* --drop-tables */
};

/* Parses argv into o.  Returns -1 to go on, else the exit status. */
static int sqlping_parse_opts(int argc, char **argv, struct sqlping_opts *o)
{
	static const struct option opts[] = {
		{ "host", required_argument, NULL, 'H' },
		{ "port", required_argument, NULL, 'P' },
		{ "socket", required_argument, NULL, 'S' },
		{ "user", required_argument, NULL, 'u' },
		{ "password", required_argument, NULL, 'p' },
		{ "db", required_argument, NULL, 'd' },
		{ "timeout", required_argument, NULL, 't' },
		{ "drop-tables", no_argument, NULL, 'D' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	while ((c = getopt_long(argc, argv, "H:P:S:u:p:d:t:h", opts,
				NULL)) != -1) {
		switch (c) {
		case 'H': o->host = optarg; break;
		case 'S': o->sock = optarg; break;
		case 'u': o->user = optarg; break;
		case 'p': o->pw = optarg; break;
		case 'd': o->db = optarg; break;
		case 'D': o->drop = 1; break;
		case 'P':
			if (util_parse_u64(optarg, 1, 65535, &o->port) != 0) {
				util_err("sql-ping", EINVAL,
					 "--port '%s': want 1..65535", optarg);
				return 2;
			}
			break;
		case 't':
			if (util_parse_u64(optarg, 1, 3600, &o->timeout) != 0) {
				util_err("sql-ping", EINVAL,
					 "--timeout '%s': want seconds 1..3600",
					 optarg);
				return 2;
			}
			break;
		case 'h':
			sqlping_usage(stdout);
			return 0;
		default:
			sqlping_usage(stderr);
			return 2;
		}
	}
	if (optind != argc) {
		sqlping_usage(stderr);
		return 2;
	}
	return -1;
}

/* --drop-tables: drops every table the sql workloads create (bb_*, as
 * bb_mix_TAG_N and bb_addr) in the bench* databases, a server reset
 * between steps; prints "dropped N table(s)" and their names.  Returns
 * the exit status. */
static int sqlping_drop(MYSQL *m)
{
	/* Names on one line the reset's reader keeps whole (512 bytes). */
	char q[600], names[300] = "";
	MYSQL_RES *res;
	MYSQL_ROW row;
	size_t nl = 0;
	int n = 0, rc = 0;

	if (mysql_query(m, "SELECT table_schema, table_name FROM information_schema.tables WHERE table_schema LIKE 'bench%' AND table_name LIKE 'bb\\_%'") != 0 ||
	    !(res = mysql_store_result(m))) {
		util_err("sql-ping", EIO, "listing tables: %s", mysql_error(m));
		return 1;
	}
	while ((row = mysql_fetch_row(res))) {
		if (!row[0] || !row[1])
			continue;
		snprintf(q, sizeof(q), "DROP TABLE IF EXISTS `%s`.`%s`",
			 row[0], row[1]);
		if (mysql_query(m, q) != 0) {
			util_err("sql-ping", EIO, "%s: %s", q, mysql_error(m));
			rc = 1;
			continue;
		}
		n++;
		if (nl < sizeof(names) - 5)
			nl += (size_t)snprintf(names + nl, sizeof(names) - 4 - nl,
					       " %s.%s", row[0], row[1]);
		if (nl >= sizeof(names) - 5)
			strcpy(names + sizeof(names) - 5, " ...");
	}
	mysql_free_result(res);
	printf("dropped %d table(s)%s%s\n", n, n ? ":" : "", names);
	return rc;
}

int sqlping_main(int argc, char **argv)
{
	struct sqlping_opts o = { .user = "root", .timeout = 10 };
	unsigned int to;
	MYSQL_RES *res;
	MYSQL_ROW row;
	MYSQL *m;
	int rc;

	rc = sqlping_parse_opts(argc, argv, &o);
	if (rc >= 0)
		return rc;
	rc = 1;
	m = mysql_init(NULL);
	if (!m) {
		util_err("sql-ping", ENOMEM, "mysql_init failed");
		return 1;
	}
	to = (unsigned int)o.timeout;
	mysql_optionsv(m, MYSQL_OPT_CONNECT_TIMEOUT, &to);
	mysql_optionsv(m, MYSQL_OPT_READ_TIMEOUT, &to);
	if (!mysql_real_connect(m, o.host, o.user, o.pw, o.db,
				(unsigned int)o.port, o.sock, 0)) {
		util_err("sql-ping", EIO, "connect to %s: %s",
			 o.sock ? o.sock : o.host ? o.host : "localhost",
			 mysql_error(m));
		goto out;
	}
	if (o.drop) {
		rc = sqlping_drop(m);
		goto out;
	}
	if (mysql_query(m, "SELECT VERSION()") != 0 ||
	    !(res = mysql_store_result(m))) {
		util_err("sql-ping", EIO, "SELECT VERSION(): %s",
			 mysql_error(m));
		goto out;
	}
	row = mysql_fetch_row(res);
	if (row && row[0]) {
		printf("%s\n", row[0]);
		rc = 0;
	} else {
		util_err("sql-ping", EIO, "SELECT VERSION() returned no row");
	}
	mysql_free_result(res);
out:
	mysql_close(m);
	return rc;
}
