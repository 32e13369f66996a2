/* load/sql/sql_conn.h: what every SQL engine shares about a connection: where and
 * as whom to connect, the error classes a record counts, and connecting,
 * timeouts and closing through mariadb-connector-c. */
#ifndef BB_SQL_CONN_H
#define BB_SQL_CONN_H

#include <stddef.h>
#include <stdint.h>

#include "dbconn/dbconn.h"

/* Error classes, in the order the record lists them. */
enum sql_err {
	SQL_E_CONNECT,		/* connecting or logging in failed */
	SQL_E_QUERY,		/* the server refused a statement (1xxx) */
	SQL_E_LOST,		/* the connection broke (2006, 2013, ...) */
	SQL_E_TIMEOUT,		/* no answer within --timeout */
	SQL_E_CLIENT,		/* any other client-side error (2xxx) */
	SQL_E_PREPARE,		/* behind an agent's gate: the process did
				 * not prepare in time (loadgen.h) */
	SQL_E_N,
};

/* Names of the classes ("connect", "query", "lost", "timeout",
 * "client", "prepare"). */
extern const char *const sql_err_names[SQL_E_N];

/* Class of the error now set on a connection: errnum is mysql_errno(),
 * elapsed_ns how long the failing call took, timeout_ns the limit. */
int sql_err_class(unsigned errnum, uint64_t elapsed_ns, uint64_t timeout_ns);

struct st_mysql;

/* dbconn_connect() with the failure's class in *cls (SQL_E_*): any
 * failure to get a session is a connect error, a refused login too,
 * unless it timed out.  Returns the session, or NULL with the reason in
 * err (errlen bytes). */
struct st_mysql *sql_connect(const struct dbconn_target *tg, char *err,
			     size_t errlen, int *cls);

/* The capabilities session m negotiated, as mysql_wire.h's MW_* bits
 * for mw_init() (MariaDB's extended ones in bits 32..63), in *caps.
 * Returns 0, or -EPROTO when the session does not speak the 4.1 wire
 * format mysql_wire parses (a pre-4.1 server, or compression). */
int sql_wire_caps(struct st_mysql *m, uint64_t *caps);

/* Stops watching *fd in epoll instance ep (if >= 0), closes the session
 * *m (if any; the connector sends COM_QUIT) and sets both to none. */
void sql_close_watched(int ep, int *fd, struct st_mysql **m);

/* Every engine reconnects a broken connection after this back-off. */
#define SQL_RETRY_NS 100000000ULL

#endif
