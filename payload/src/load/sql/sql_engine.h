/* load/sql/sql_engine.h: the connector engine that runs ops and mix over
 * mariadb-connector-c, one contract with two implementations. */
#ifndef BB_SQL_ENGINE_H
#define BB_SQL_ENGINE_H

/* sql_engine_epoll.c drives many connections per thread through the
 * connector's non-blocking API and epoll; sql_engine_threads.c runs the
 * same phases with blocking calls, one thread per connection, where the
 * connector has no non-blocking API (musl on ppc64le and ppc: no context
 * switching).  payload.mk links the one SQL_ENGINE names (epoll or
 * threads, set in configs/arch/$(ARCH).mk) and compiles the other without
 * linking it, so both keep building.  Both report the same record. */

#include <mysql.h>
#include <stdint.h>

#include "lib/hist.h"
#include "load/loadgen.h"
#include "load/sql/sql.h"
#include "load/sql/sql_statements.h"

/* Where a connection is in its life. */
enum sql_phase {
	SQL_PHASE_CONNECT, SQL_PHASE_SETUP, SQL_PHASE_WAIT, SQL_PHASE_RUN,
	SQL_PHASE_TEARDOWN, SQL_PHASE_RETRY, SQL_PHASE_DONE
};

struct sql_engine_thr;

/* One connection of an engine thread.  sql.c allocates it, sets t, fd
 * (-1), buf (SQL_STMT_BUF bytes) and wc; the rest is the engine's. */
struct sql_engine_conn {
	struct sql_engine_thr *t;
	MYSQL *m;
	int fd;
	int phase;		/* enum sql_phase */
	int op;
	int set_up;		/* setup finished once (kept on reconnect) */
	int queued;
	int timed_out;
	int status;		/* MYSQL_WAIT_* we wait for */
	uint32_t events;
	uint64_t tmo_at, retry_at, t_start, t_sent;
	MYSQL *cret;
	int qret;
	my_bool bret;
	MYSQL_RES *res;
	struct sql_stmt_conn wc;
	char *buf;
	int len;
};

/* One engine thread: connections first..first+nconns-1 of the run, what
 * it counted in st.  sql.c allocates conns and ready (nconns each) and
 * frees them; ep is the engine's (sql_engine_thr_init/_fini). */
struct sql_engine_thr {
	struct sql_run *run;
	int ep;
	struct sql_engine_conn *conns;
	struct sql_engine_conn **ready;
	unsigned nconns, nready, first;
	struct lg_pace pace;
	int going, stopping;
	uint64_t now;
	struct sql_stats st;
};

/* The engine's name in the record's params.engine and the text report:
 * "nonblocking" (epoll) or "blocking" (threads). */
extern const char sql_engine_name[];

/* How many engine threads run: run->threads (epoll) or run->conns
 * (threads: one a connection, -t is ignored). */
unsigned sql_engine_nthreads(const struct sql_run *run);

/* Sets up what the engine needs in t beyond sql.c's part (epoll: its
 * instance into t->ep, which sql.c set to -1).  Returns 0 or -ENOMEM. */
int sql_engine_thr_init(struct sql_engine_thr *t);

/* Releases what sql_engine_thr_init() set up; t may have failed it. */
void sql_engine_thr_fini(struct sql_engine_thr *t);

/* The thread body (lg_threads_start()'s, arg a struct sql_engine_thr):
 * connects, runs the workload's setup, counts itself in
 * run->setup_done, waits for run->go, runs statements until
 * run->end_ns, tears down and closes; sets st.end_at.  Returns NULL. */
void *sql_engine_thr_main(void *arg);

/* Accounts a statement c completed at now (mono ns) by its phase: for
 * both engines, inline as it is on the hot path. */
static inline void sql_engine_stmt_ok(struct sql_engine_thr *t,
				      struct sql_engine_conn *c, uint64_t now)
{
	switch (c->phase) {
	case SQL_PHASE_SETUP:
		t->st.setup_stmts++;
		break;
	case SQL_PHASE_TEARDOWN:
		t->st.teardown_stmts++;
		break;
	default:
		t->st.stmts++;
		t->st.kinds[c->wc.kind]++;
		hist_record(&t->st.lat, now > c->t_start ? now - c->t_start
							 : 0);
		break;
	}
}

#endif
