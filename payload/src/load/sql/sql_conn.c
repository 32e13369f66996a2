/* load/sql/sql_conn.c: connecting, timeouts, error classes and closing for every
 * SQL engine (sql_conn.h). */
#include <errno.h>
#include <stdint.h>
#include <sys/epoll.h>

#include <mysql.h>

#include "load/sql/mysql_wire.h"
#include "load/sql/sql_conn.h"
#include "lib/util.h"

const char *const sql_err_names[SQL_E_N] = {
	"connect", "query", "lost", "timeout", "client", "prepare",
};

int sql_err_class(unsigned errnum, uint64_t elapsed_ns, uint64_t timeout_ns)
{
	if (errnum < 2000)
		return SQL_E_QUERY;
	/* The connector reports a read timeout as a lost connection. */
	if (timeout_ns && elapsed_ns + 50000000ULL >= timeout_ns)
		return SQL_E_TIMEOUT;
	switch (errnum) {
	case 2006:	/* CR_SERVER_GONE_ERROR */
	case 2013:	/* CR_SERVER_LOST */
	case 2055:	/* CR_SERVER_LOST_EXTENDED */
		return SQL_E_LOST;
	case 2002:	/* CR_CONNECTION_ERROR */
	case 2003:	/* CR_CONN_HOST_ERROR */
	case 2005:	/* CR_UNKNOWN_HOST */
		return SQL_E_CONNECT;
	default:
		return SQL_E_CLIENT;
	}
}

struct st_mysql *sql_connect(const struct dbconn_target *tg, char *err,
			     size_t errlen, int *cls)
{
	uint64_t took;
	unsigned errnum;
	MYSQL *m = dbconn_connect(tg, err, errlen, &errnum, &took);

	if (m)
		return m;
	if (!errnum) {
		*cls = SQL_E_CLIENT;	/* no handle: out of memory */
		return NULL;
	}
	*cls = sql_err_class(errnum, took,
			     (uint64_t)tg->timeout_s * 1000000000ULL);
	/* Any failure to get a session is a connect error, even a refused
	 * login (1045) that the server reports as 1xxx. */
	if (*cls != SQL_E_TIMEOUT)
		*cls = SQL_E_CONNECT;
	return NULL;
}

int sql_wire_caps(MYSQL *m, uint64_t *caps)
{
	unsigned long cl = 0, srv = 0, ext = 0;
	uint64_t c;

	mariadb_get_infov(m, MARIADB_CONNECTION_CLIENT_CAPABILITIES, &cl);
	mariadb_get_infov(m, MARIADB_CONNECTION_SERVER_CAPABILITIES, &srv);
	/* The connector asks a MariaDB server (no CLIENT_MYSQL bit) for
	 * every extension it supports that the server offers. */
	c = cl;
	if (!(srv & CLIENT_MYSQL) &&
	    mariadb_get_infov(m,
			      MARIADB_CONNECTION_EXTENDED_SERVER_CAPABILITIES,
			      &ext) == 0)
		c |= ((uint64_t)ext & (MARIADB_CLIENT_SUPPORTED_FLAGS >>
				       32)) << 32;
	if (c & (MARIADB_CLIENT_PROGRESS | CLIENT_PROGRESS))
		c |= MW_CLIENT_PROGRESS;
	*caps = c;
	/* A pre-4.1 server, or compression: not our wire format. */
	return !(c & MW_CLIENT_PROTOCOL_41) || (c & CLIENT_COMPRESS) ?
	       -EPROTO : 0;
}

void sql_close_watched(int ep, int *fd, struct st_mysql **m)
{
	if (*fd >= 0)
		epoll_ctl(ep, EPOLL_CTL_DEL, *fd, NULL);
	if (*m)
		mysql_close(*m);
	*m = NULL;
	*fd = -1;
}
