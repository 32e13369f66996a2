/* load/sql/sql.h: `benchboot sql`, the MariaDB/MySQL load generator: workloads
 * ops (Byte.com), mix (N&K) and point-select (sysbench); docs/sql.md. */
#ifndef BB_SQL_H
#define BB_SQL_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/hist.h"
#include "load/sql/sql_conn.h"
#include "load/sql/sql_statements.h"

/* The connector's non-blocking API needs its context switch, which musl
 * builds only have on these architectures (docs/sql.md). */
#if !defined(SQL_FORCE_BLOCKING) && \
	(defined(__x86_64__) || defined(__i386__) || defined(__aarch64__))
#define SQL_NONBLOCK 1
#else
#define SQL_NONBLOCK 0
#endif

/* What one engine thread counted; summed over threads for the record. */
struct sql_stats {
	uint64_t stmts, setup_stmts, teardown_stmts, connects;
	uint64_t kinds[SQL_STMT_MAX_KINDS];
	uint64_t err[SQL_E_N];
	uint64_t end_at;	/* when the thread's last connection ended */
	struct hist lat;
};

/* The run, shared read-only by every engine thread but for the start
 * handshake: each connection adds 1 to setup_done once it is ready (or
 * gave up), then the main thread sets start_ns/end_ns and go. */
struct sql_run {
	const struct sql_workload *wl;
	struct sql_stmt_cfg cfg;
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
