/* dbconn/dbconn.h: connecting to a MariaDB or MySQL server through
 * mariadb-connector-c, one way for the SQL workloads (load/sql) and for
 * the lab's result database (resultdb): where and as whom, the timeouts,
 * and a blocking connect that says why it failed. */
#ifndef BB_DBCONN_H
#define BB_DBCONN_H

#include <stddef.h>
#include <stdint.h>

/* Where and as whom to connect (the caller's strings, read-only). */
struct dbconn_target {
	const char *host, *user, *password, *db, *socket;
	unsigned port;
	unsigned timeout_s;	/* connect, read and write timeouts */
};

struct st_mysql;

/* Sets tg's connect, read and write timeouts on a handle from
 * mysql_init(). */
void dbconn_options(struct st_mysql *m, const struct dbconn_target *tg);

/* A new blocking session with tg's options, or NULL with the server's or
 * the connector's message in err (errlen bytes), mysql_errno()'s number
 * in *errnum (0 when the handle could not even be made: out of memory)
 * and how long the attempt took in *elapsed_ns.  The caller owns the
 * session (mysql_close()). */
struct st_mysql *dbconn_connect(const struct dbconn_target *tg, char *err,
				size_t errlen, unsigned *errnum,
				uint64_t *elapsed_ns);

#endif
