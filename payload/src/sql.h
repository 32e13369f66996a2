/* sql.h: `benchboot sql`, the MariaDB/MySQL load generator: workloads
 * ops (Byte.com), mix (N&K) and point-select (sysbench); docs/sql.md. */
#ifndef BB_SQL_H
#define BB_SQL_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "hist.h"
#include "sql_wl.h"

/* The connector's non-blocking API needs its context switch, which musl
 * builds only have on these architectures (docs/sql.md). */
#if !defined(SQL_FORCE_BLOCKING) && \
	(defined(__x86_64__) || defined(__i386__) || defined(__aarch64__))
#define SQL_NONBLOCK 1
#else
#define SQL_NONBLOCK 0
#endif

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

/* Sets tg's connect, read and write timeouts on a handle from
 * mysql_init(). */
void sql_target_options(struct st_mysql *m, const struct sql_target *tg);

/* Stops watching *fd in epoll instance ep (if >= 0), closes the session
 * *m (if any; the connector sends COM_QUIT) and sets both to none. */
void sql_close_watched(int ep, int *fd, struct st_mysql **m);

/* Every engine reconnects a broken connection after this back-off. */
#define SQL_RETRY_NS 100000000ULL

/* What one engine thread counted; summed over threads for the record. */
struct sql_stats {
	uint64_t stmts, setup_stmts, teardown_stmts, connects;
	uint64_t kinds[SQL_WL_MAX_KINDS];
	uint64_t err[SQL_E_N];
	uint64_t end_at;	/* when the thread's last connection ended */
	struct hist lat;
};

/* The run, shared read-only by every engine thread but for the start
 * handshake: each connection adds 1 to setup_done once it is ready (or
 * gave up), then the main thread sets start_ns/end_ns and go. */
struct sql_run {
	const struct sql_workload *wl;
	struct sql_wl_cfg cfg;
	struct sql_target tg;
	unsigned threads, conns;
	uint64_t duration_ns, timeout_ns;
	double rate;
	atomic_uint setup_done;
	atomic_int go;		/* the measured interval has started */
	uint64_t start_ns, end_ns;	/* valid once go is set */
};

/* `benchboot sql --workload=ops|mix|point-select [-t N] [-c N] [-d DUR]
 * [--rate R] [--rows N] [--table NAME] [--seed N] [--keep]
 * [--timeout DUR] [--host H] [--port P] [--socket PATH] [--user U]
 * [--password PW] [--db DB] [--json]`.  Returns 0 when the run
 * completed (errors are counted in the result), 1 when it could not
 * run, 2 on a usage error. */
int sql_main(int argc, char **argv);

#endif
