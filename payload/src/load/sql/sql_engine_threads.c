/* load/sql/sql_engine_threads.c: sql_engine.h with blocking connector
 * calls, one thread per connection, where there is no non-blocking API. */
#include <mysql.h>
#include <stdatomic.h>
#include <stdint.h>
#include <time.h>

#include "lib/util.h"
#include "load/loadgen.h"
#include "load/sql/sql_conn.h"
#include "load/sql/sql_engine.h"
#include "load/sql/sql_engine_threads.h"
#include "load/sql/sql_statements.h"

const char sql_engine_name[] = "blocking";

unsigned sql_engine_nthreads(const struct sql_run *run)
{
	return run->conns;
}

/* Nothing beyond sql.c's part: each thread blocks in its own calls. */
int sql_engine_thr_init(struct sql_engine_thr *t)
{
	return 0;
}

void sql_engine_thr_fini(struct sql_engine_thr *t)
{
}


/* Runs one statement; returns 0 or the error class. */
static int sql_threads_query(struct sql_engine_thr *t,
			     struct sql_engine_conn *c)
{
	uint64_t t0 = util_mono_ns();
	MYSQL_RES *res;

	if (mysql_real_query(c->m, c->buf, (unsigned long)c->len) == 0) {
		res = mysql_store_result(c->m);
		if (res || mysql_errno(c->m) == 0) {
			if (res)
				mysql_free_result(res);
			sql_engine_stmt_ok(t, c, util_mono_ns());
			return 0;
		}
	}
	return sql_err_class(mysql_errno(c->m), util_mono_ns() - t0,
			     t->run->timeout_ns);
}

static void sql_threads_sleep_until(uint64_t mono_ns)
{
	uint64_t now = util_mono_ns();
	struct timespec ts;

	if (mono_ns <= now)
		return;
	ts.tv_sec = (time_t)((mono_ns - now) / 1000000000ULL);
	ts.tv_nsec = (long)((mono_ns - now) % 1000000000ULL);
	nanosleep(&ts, NULL);
}

static int sql_threads_stopping(struct sql_engine_thr *t)
{
	return atomic_load(&t->run->go) && util_mono_ns() >= t->run->end_ns;
}

void *sql_engine_thr_main(void *arg)
{
	struct sql_engine_thr *t = arg;
	struct sql_run *run = t->run;
	struct sql_engine_conn *c = &t->conns[0];
	char err[256];
	int cls, rc = 0;

	while (!sql_threads_stopping(t)) {
		if (!c->m) {
			c->m = sql_connect(&run->tg, err, sizeof(err), &cls);
			if (!c->m) {
				t->st.err[cls]++;
				sql_threads_sleep_until(util_mono_ns() +
							SQL_RETRY_NS);
				continue;
			}
			t->st.connects++;
		}
		if (!c->set_up) {
			c->phase = SQL_PHASE_SETUP;
			while ((c->len = run->wl->setup(&run->cfg, &c->wc,
					c->buf, SQL_STMT_BUF)) > 0)
				if ((rc = sql_threads_query(t, c)) != 0)
					break;
			if (c->len != 0) {
				t->st.err[c->len < 0 ? SQL_E_CLIENT : rc]++;
				goto out;
			}
			c->set_up = 1;
			atomic_fetch_add(&run->setup_done, 1);
			while (!atomic_load(&run->go))
				sql_threads_sleep_until(util_mono_ns() +
							1000000ULL);
			lg_pace_init(&t->pace, run->start_ns,
				     run->rate / run->conns);
		}
		c->phase = SQL_PHASE_RUN;
		while (!sql_threads_stopping(t)) {
			uint64_t due = lg_pace_next(&t->pace);

			if (t->pace.interval_ns > 0)
				sql_threads_sleep_until(due);
			c->t_start = lg_pace_take(&t->pace, util_mono_ns());
			c->len = run->wl->next(&run->cfg, &c->wc, c->buf,
					       SQL_STMT_BUF);
			rc = c->len < 0 ? SQL_E_CLIENT :
			     sql_threads_query(t, c);
			if (rc == 0)
				continue;
			t->st.err[rc]++;
			if (rc != SQL_E_QUERY) {
				mysql_close(c->m);
				c->m = NULL;
				break;
			}
		}
	}
	if (c->m && c->wc.step > 0) {
		c->phase = SQL_PHASE_TEARDOWN;
		while ((c->len = run->wl->teardown(&run->cfg, &c->wc, c->buf,
						   SQL_STMT_BUF)) > 0)
			if ((rc = sql_threads_query(t, c)) != 0) {
				t->st.err[rc]++;
				break;
			}
	}
out:
	if (c->m)
		mysql_close(c->m);
	c->m = NULL;
	t->st.end_at = util_mono_ns();
	return NULL;
}
