/* sql.h: `benchboot sql`, the MariaDB/MySQL load generator: workloads
 * ops (Byte.com), mix (N&K) and point-select (sysbench); docs/sql.md. */
#ifndef BB_SQL_H
#define BB_SQL_H

#include <stddef.h>
#include <stdint.h>

/* Error classes, in the order the record lists them. */
enum sql_err {
	SQL_E_CONNECT,		/* connecting or logging in failed */
	SQL_E_QUERY,		/* the server refused a statement (1xxx) */
	SQL_E_LOST,		/* the connection broke (2006, 2013, ...) */
	SQL_E_TIMEOUT,		/* no answer within --timeout */
	SQL_E_CLIENT,		/* any other client-side error (2xxx) */
	SQL_E_N,
};

/* Names of the classes ("connect", "query", "lost", "timeout",
 * "client"). */
extern const char *const sql_err_names[SQL_E_N];

/* Class of the error now set on a connection: errnum is mysql_errno(),
 * elapsed_ns how long the failing call took, timeout_ns the limit. */
int sql_err_class(unsigned errnum, uint64_t elapsed_ns, uint64_t timeout_ns);

/* Where and as whom to connect (from the command line; read-only). */
struct sql_target {
	const char *host, *user, *password, *db, *socket;
	unsigned port;
	unsigned timeout_s;	/* connect, read and write timeouts */
};

struct st_mysql;

/* A new blocking connection with tg's options, or NULL with the reason
 * in err (errlen bytes) and its class in *cls (SQL_E_*). */
struct st_mysql *sql_connect(const struct sql_target *tg, char *err,
			     size_t errlen, int *cls);

/* `benchboot sql --workload=ops|mix|point-select [-t N] [-c N] [-d DUR]
 * [--rate R] [--rows N] [--table NAME] [--seed N] [--keep]
 * [--timeout DUR] [--host H] [--port P] [--socket PATH] [--user U]
 * [--password PW] [--db DB] [--json]`.  Returns 0 when the run
 * completed (errors are counted in the result), 1 when it could not
 * run, 2 on a usage error. */
int sql_main(int argc, char **argv);

#endif
