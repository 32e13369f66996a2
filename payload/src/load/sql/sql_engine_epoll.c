/* load/sql/sql_engine_epoll.c: sql_engine.h over the connector's
 * non-blocking API: many connections per thread, one epoll loop each. */
#include <errno.h>
#include <mysql.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "lib/hist.h"
#include "lib/util.h"
#include "load/loadgen.h"
#include "load/sql/sql_conn.h"
#include "load/sql/sql_engine.h"
#include "load/sql/sql_engine_epoll.h"
#include "load/sql/sql_statements.h"

#define SQL_TICK_MS 10

const char sql_engine_name[] = "nonblocking";

unsigned sql_engine_nthreads(const struct sql_run *run)
{
	return run->threads;
}

int sql_engine_thr_init(struct sql_engine_thr *t)
{
	t->ep = epoll_create1(EPOLL_CLOEXEC);
	return t->ep < 0 ? -ENOMEM : 0;
}

void sql_engine_thr_fini(struct sql_engine_thr *t)
{
	if (t->ep >= 0)
		close(t->ep);
	t->ep = -1;
}


/* A statement is sent (OP_SEND), then we wait for the answer ourselves
 * (OP_AWAIT) before asking the connector to read it (OP_READ):
 * mysql_real_query_start() would try a read at once, which on a fast
 * path finds nothing and costs a system call per statement. */
enum { OP_NONE, OP_CONNECT, OP_SEND, OP_AWAIT, OP_READ, OP_STORE };

static void sql_epoll_next(struct sql_engine_conn *c);
static void sql_epoll_setup_next(struct sql_engine_conn *c);
static void sql_epoll_teardown_next(struct sql_engine_conn *c);

static void sql_epoll_wait(struct sql_engine_conn *c, int status)
{
	struct sql_engine_thr *t = c->t;
	struct epoll_event e = { .data.ptr = c };
	uint32_t ev = 0;
	int fd = (int)mysql_get_socket(c->m);

	c->status = status;
	if (status & MYSQL_WAIT_READ)
		ev |= EPOLLIN;
	if (status & MYSQL_WAIT_WRITE)
		ev |= EPOLLOUT;
	if (status & MYSQL_WAIT_EXCEPT)
		ev |= EPOLLPRI;
	e.events = ev;
	if (fd != c->fd) {
		/* A new connection: its socket exists from connect_start
		 * on. */
		c->fd = fd;
		if (fd >= 0)
			epoll_ctl(t->ep, EPOLL_CTL_ADD, fd, &e);
		c->events = ev;
	} else if (ev != c->events) {
		epoll_ctl(t->ep, EPOLL_CTL_MOD, fd, &e);
		c->events = ev;
	}
	c->tmo_at = status & MYSQL_WAIT_TIMEOUT ?
		    t->now + (uint64_t)mysql_get_timeout_value_ms(c->m) *
			     1000000ULL : 0;
}

/* Closes the connection; the slot reconnects after a back-off, or is
 * done when the run is stopping. */
static void sql_epoll_drop(struct sql_engine_conn *c)
{
	struct sql_engine_thr *t = c->t;

	sql_close_watched(t->ep, &c->fd, &c->m);
	c->events = 0;
	c->op = OP_NONE;
	c->queued = 0;
	if (t->stopping) {
		c->phase = SQL_PHASE_DONE;
	} else {
		c->phase = SQL_PHASE_RETRY;
		c->retry_at = t->now + SQL_RETRY_NS;
	}
}

static void sql_epoll_fail(struct sql_engine_conn *c, int cls)
{
	c->t->st.err[cls]++;
	if (cls == SQL_E_QUERY) {
		/* The statement failed, the session lives on. */
		if (c->phase == SQL_PHASE_SETUP) {
			/* a workload without its table */
			sql_epoll_drop(c);
			c->phase = SQL_PHASE_DONE;
		} else if (c->phase == SQL_PHASE_TEARDOWN) {
			sql_epoll_teardown_next(c);
		} else {
			sql_epoll_next(c);
		}
		return;
	}
	sql_epoll_drop(c);
}

/* The connector finished c's operation: on to the next step.
 * Over 80 lines on purpose: one case per operation, in the order a
 * statement goes through them, reads better than five helpers. */
static void sql_epoll_done(struct sql_engine_conn *c)
{
	struct sql_engine_thr *t = c->t;
	uint64_t now;
	int op = c->op;

	c->op = OP_NONE;
	switch (op) {
	case OP_CONNECT:
		if (!c->cret) {
			int cls = sql_err_class(mysql_errno(c->m),
						t->now - c->t_sent,
						t->run->timeout_ns);

			sql_epoll_fail(c, cls == SQL_E_TIMEOUT ? cls :
				       SQL_E_CONNECT);
			return;
		}
		t->st.connects++;
		if (t->stopping) {
			/* too late to measure */
			sql_epoll_teardown_next(c);
			return;
		}
		if (!c->set_up) {
			c->phase = SQL_PHASE_SETUP;
			sql_epoll_setup_next(c);
		} else {
			c->phase = SQL_PHASE_RUN;
			sql_epoll_next(c);
		}
		return;
	case OP_SEND:
		if (c->qret != 0)
			break;
		c->op = OP_AWAIT;
		c->status = MYSQL_WAIT_READ;
		if (c->events != EPOLLIN) {
			struct epoll_event e = { .events = EPOLLIN,
						 .data.ptr = c };

			epoll_ctl(t->ep, EPOLL_CTL_MOD, c->fd, &e);
			c->events = EPOLLIN;
		}
		c->tmo_at = t->now + t->run->timeout_ns;
		return;
	case OP_READ:
		if (c->bret != 0)
			break;
		c->op = OP_STORE;
		{
			int st = mysql_store_result_start(&c->res, c->m);

			if (st) {
				sql_epoll_wait(c, st);
				return;
			}
		}
		/* The result was already in the buffer. */
		/* fall through */
	case OP_STORE:
		c->op = OP_NONE;
		if (!c->res && mysql_errno(c->m))
			break;
		if (c->res)
			mysql_free_result(c->res);
		c->res = NULL;
		now = util_mono_ns();
		sql_engine_stmt_ok(t, c, now);
		if (c->phase == SQL_PHASE_SETUP)
			sql_epoll_setup_next(c);
		else if (c->phase == SQL_PHASE_TEARDOWN)
			sql_epoll_teardown_next(c);
		else
			sql_epoll_next(c);
		return;
	default:
		return;
	}
	sql_epoll_fail(c, c->timed_out ? SQL_E_TIMEOUT :
	       sql_err_class(mysql_errno(c->m), t->now - c->t_sent,
			     t->run->timeout_ns));
}

static void sql_epoll_query(struct sql_engine_conn *c)
{
	int st;

	c->op = OP_SEND;
	c->timed_out = 0;
	c->t_sent = c->t->now;
	st = mysql_send_query_start(&c->qret, c->m, c->buf,
				    (unsigned long)c->len);
	if (st)
		sql_epoll_wait(c, st);
	else
		sql_epoll_done(c);
}

static void sql_epoll_connect(struct sql_engine_conn *c)
{
	const struct dbconn_target *tg = &c->t->run->tg;
	int st;

	c->m = mysql_init(NULL);
	if (!c->m) {
		c->t->st.err[SQL_E_CLIENT]++;
		c->phase = SQL_PHASE_RETRY;
		c->retry_at = c->t->now + SQL_RETRY_NS;
		return;
	}
	mysql_optionsv(c->m, MYSQL_OPT_NONBLOCK, 0);
	dbconn_options(c->m, tg);
	c->phase = SQL_PHASE_CONNECT;
	c->op = OP_CONNECT;
	c->fd = -1;
	c->events = 0;
	c->timed_out = 0;
	c->t_sent = c->t->now;
	st = mysql_real_connect_start(&c->cret, c->m, tg->host, tg->user,
				      tg->password, tg->db, tg->port,
				      tg->socket, 0);
	if (st)
		sql_epoll_wait(c, st);
	else
		sql_epoll_done(c);
}

static void sql_epoll_cont(struct sql_engine_conn *c, int ready)
{
	int st = 0;

	switch (c->op) {
	case OP_CONNECT:
		st = mysql_real_connect_cont(&c->cret, c->m, ready);
		break;
	case OP_SEND:
		st = mysql_send_query_cont(&c->qret, c->m, ready);
		break;
	case OP_AWAIT:
		if (ready & MYSQL_WAIT_TIMEOUT) {
			/* The statement is out, its answer is not: the
			 * session cannot be used again. */
			c->op = OP_NONE;
			sql_epoll_fail(c, SQL_E_TIMEOUT);
			return;
		}
		c->op = OP_READ;
		st = mysql_read_query_result_start(&c->bret, c->m);
		break;
	case OP_READ:
		st = mysql_read_query_result_cont(&c->bret, c->m, ready);
		break;
	case OP_STORE:
		st = mysql_store_result_cont(&c->res, c->m, ready);
		break;
	default:
		return;
	}
	if (st)
		sql_epoll_wait(c, st);
	else
		sql_epoll_done(c);
}

static void sql_epoll_setup_next(struct sql_engine_conn *c)
{
	struct sql_engine_thr *t = c->t;

	if (t->stopping) {
		sql_epoll_teardown_next(c);
		return;
	}
	c->len = t->run->wl->setup(&t->run->cfg, &c->wc, c->buf, SQL_STMT_BUF);
	if (c->len > 0) {
		sql_epoll_query(c);
		return;
	}
	if (c->len < 0) {
		t->st.err[SQL_E_CLIENT]++;
		sql_epoll_drop(c);
		c->phase = SQL_PHASE_DONE;
		return;
	}
	c->set_up = 1;
	atomic_fetch_add(&t->run->setup_done, 1);
	c->phase = SQL_PHASE_WAIT;
	if (t->going) {
		c->phase = SQL_PHASE_RUN;
		sql_epoll_next(c);
	}
}

static void sql_epoll_teardown_next(struct sql_engine_conn *c)
{
	struct sql_engine_thr *t = c->t;

	c->phase = SQL_PHASE_TEARDOWN;
	/* A setup cut short leaves a table behind too. */
	c->len = c->wc.step > 0 ?
		 t->run->wl->teardown(&t->run->cfg, &c->wc, c->buf,
				      SQL_STMT_BUF) : 0;
	if (c->len > 0) {
		sql_epoll_query(c);
		return;
	}
	sql_close_watched(t->ep, &c->fd, &c->m);
	c->phase = SQL_PHASE_DONE;
}

/* The next measured statement, when it is due. */
static void sql_epoll_next(struct sql_engine_conn *c)
{
	struct sql_engine_thr *t = c->t;
	uint64_t t0;

	if (t->stopping) {
		sql_epoll_teardown_next(c);
		return;
	}
	c->phase = SQL_PHASE_RUN;
	t0 = t->nready ? 0 : lg_pace_take(&t->pace, t->now);
	if (t0 == 0) {
		if (!c->queued) {
			c->queued = 1;
			t->ready[t->nready++] = c;
		}
		return;
	}
	c->t_start = t0;
	c->len = t->run->wl->next(&t->run->cfg, &c->wc, c->buf, SQL_STMT_BUF);
	if (c->len < 0) {
		t->st.err[SQL_E_CLIENT]++;
		sql_epoll_drop(c);
		return;
	}
	sql_epoll_query(c);
}

/* Hands due statements to waiting connections (open loop), oldest
 * waiter first. */
static void sql_epoll_dispatch(struct sql_engine_thr *t)
{
	while (t->nready > 0 && !t->stopping) {
		struct sql_engine_conn *c = t->ready[0];
		uint64_t t0 = lg_pace_take(&t->pace, t->now);

		if (t0 == 0)
			return;
		memmove(t->ready, t->ready + 1,
			--t->nready * sizeof(*t->ready));
		c->queued = 0;
		c->t_start = t0;
		c->len = t->run->wl->next(&t->run->cfg, &c->wc, c->buf,
					  SQL_STMT_BUF);
		if (c->len < 0) {
			t->st.err[SQL_E_CLIENT]++;
			sql_epoll_drop(c);
			continue;
		}
		sql_epoll_query(c);
	}
}

static void sql_epoll_tick(struct sql_engine_thr *t)
{
	struct sql_run *run = t->run;
	unsigned i;

	if (!t->going && atomic_load(&run->go)) {
		t->going = 1;
		lg_pace_init(&t->pace, run->start_ns, run->rate / run->threads);
		for (i = 0; i < t->nconns; i++)
			if (t->conns[i].phase == SQL_PHASE_WAIT)
				sql_epoll_next(&t->conns[i]);
	}
	if (t->going && !t->stopping && t->now >= run->end_ns) {
		t->stopping = 1;
		while (t->nready > 0) {
			struct sql_engine_conn *c = t->ready[--t->nready];

			c->queued = 0;
			sql_epoll_teardown_next(c);
		}
	}
	for (i = 0; i < t->nconns; i++) {
		struct sql_engine_conn *c = &t->conns[i];

		if (c->op != OP_NONE && c->tmo_at && t->now >= c->tmo_at) {
			c->timed_out = 1;
			c->tmo_at = 0;
			sql_epoll_cont(c, MYSQL_WAIT_TIMEOUT);
		} else if (c->phase == SQL_PHASE_RETRY) {
			if (t->stopping)
				c->phase = SQL_PHASE_DONE;
			else if (t->now >= c->retry_at)
				sql_epoll_connect(c);
		} else if (c->phase == SQL_PHASE_WAIT && t->stopping) {
			sql_epoll_teardown_next(c);
		}
	}
}

void *sql_engine_thr_main(void *arg)
{
	struct sql_engine_thr *t = arg;
	struct sql_engine_conn *c;
	struct epoll_event evs[256];
	uint64_t next_tick = 0, hard_end;
	unsigned i, busy;
	int n, k, wait_ms;

	t->now = util_mono_ns();
	for (i = 0; i < t->nconns; i++)
		sql_epoll_connect(&t->conns[i]);
	for (;;) {
		if (t->now >= next_tick) {
			sql_epoll_tick(t);
			next_tick = t->now + SQL_TICK_MS * 1000000ULL;
		}
		if (t->going)
			sql_epoll_dispatch(t);
		busy = 0;
		for (i = 0; i < t->nconns; i++)
			busy += t->conns[i].phase != SQL_PHASE_DONE;
		if (!busy)
			break;
		if (t->stopping) {
			/* In-flight statements get one timeout to finish;
			 * after that the handles are abandoned (the connector
			 * allows no other call during an operation). */
			hard_end = t->run->end_ns + t->run->timeout_ns +
				   1000000000ULL;
			if (t->now > hard_end) {
				for (i = 0; i < t->nconns; i++) {
					c = &t->conns[i];
					if (c->phase == SQL_PHASE_DONE)
						continue;
					t->st.err[SQL_E_TIMEOUT]++;
					c->phase = SQL_PHASE_DONE;
				}
				break;
			}
		}
		wait_ms = SQL_TICK_MS;
		if (t->going && t->nready)
			wait_ms = lg_pace_wait_ms(&t->pace, t->now,
						  SQL_TICK_MS);
		n = epoll_wait(t->ep, evs, 256, wait_ms);
		t->now = util_mono_ns();
		for (k = 0; k < n; k++) {
			int ready = 0;

			c = evs[k].data.ptr;
			if (c->op == OP_NONE)
				continue;
			if (evs[k].events & (EPOLLIN | EPOLLHUP | EPOLLERR))
				ready |= MYSQL_WAIT_READ;
			if (evs[k].events & (EPOLLOUT | EPOLLERR))
				ready |= MYSQL_WAIT_WRITE;
			if (evs[k].events & EPOLLPRI)
				ready |= MYSQL_WAIT_EXCEPT;
			ready &= c->status | MYSQL_WAIT_READ;
			sql_epoll_cont(c, ready);
		}
	}
	t->st.end_at = util_mono_ns();
	return NULL;
}
