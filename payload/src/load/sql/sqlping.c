/* load/sql/sqlping.c: connect, SELECT VERSION(), print, disconnect. */
#include <errno.h>
#include <mysql.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "load/sql/sqlping.h"
#include "lib/opt.h"
#include "lib/util.h"

/* Where and as whom to connect. */
struct sqlping_opts {
	const char *host, *sock, *user, *pw, *db;
	uint64_t port, timeout;
	int drop;		/* --drop-tables */
};

#define SP(m) OPT_AT(struct sqlping_opts, m)

static const struct opt sqlping_opt_tab[] = {
	{ .name = "host", .key = 'H', .kind = OPT_STR, .off = SP(host),
	  .arg = "H", .help = "the server", .def = "localhost" },
	{ .name = "port", .key = 'P', .kind = OPT_U64, .off = SP(port),
	  .min = 1, .max = 65535, .bad = "--port '%s': want 1..65535",
	  .arg = "P", .help = "its port", .def = "3306" },
	{ .name = "socket", .key = 'S', .kind = OPT_STR, .off = SP(sock),
	  .arg = "PATH", .help = "a Unix socket instead of TCP" },
	{ .name = "user", .key = 'u', .kind = OPT_STR, .off = SP(user),
	  .arg = "U", .help = "the account", .def = "root" },
	{ .name = "password", .key = 'p', .kind = OPT_STR, .off = SP(pw),
	  .arg = "PW", .help = "its password" },
	{ .name = "db", .key = 'd', .kind = OPT_STR, .off = SP(db),
	  .arg = "DB", .help = "the database" },
	{ .name = "timeout", .key = 't', .kind = OPT_U64, .off = SP(timeout),
	  .min = 1, .max = 3600, .bad = "--timeout '%s': want seconds 1..3600",
	  .arg = "SECONDS", .help = "connect, read and write timeout",
	  .def = "10" },
	{ .name = "drop-tables", .kind = OPT_FLAG, .off = SP(drop), .val = 1,
	  .help = "drop every table the sql workloads create (bb_*) in the "
		  "bench* databases: the server's reset between steps" },
};

/* Parses argv into o.  Returns -1 to go on, else the exit status. */
static int sqlping_parse_opts(int argc, char **argv, struct sqlping_opts *o)
{
	static const struct optset set = OPTSET("sql-ping", sqlping_opt_tab,
						NULL, NULL);
	int argi, rc;

	rc = opt_main(&set, o, argc, argv, &argi);
	if (rc != 0)
		return rc > 0 ? 0 : 2;
	if (argi != argc) {
		opt_usage(&set, stderr);
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
