/* load/sql/sql.c: `benchboot sql`: options, the connection engine and the report.
 * The engine drives many connections per thread through the connector's
 * non-blocking API and epoll; where the connector has no non-blocking API
 * (musl on ppc64le: no context switching) the same phases run with
 * blocking calls, one thread per connection.  The choice is made at
 * compile time; both report the same record. */
#include <errno.h>
#include <mysql.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/epoll.h>

#include "lib/hist.h"
#include "load/loadgen.h"
#include "load/sql/sql.h"
#include "load/sql/sql_ops.h"
#include "load/sql/sql_point_select.h"
#include "load/sql/sql_statements.h"
#include "lib/util.h"

#define SQL_TICK_MS 10


/* --- the connector engines: mix, and point-select's old path ------ */

enum { P_CONNECT, P_SETUP, P_WAIT, P_RUN, P_TEARDOWN, P_RETRY, P_DONE };

struct sql_thr;

struct sql_conn {
	struct sql_thr *t;
	MYSQL *m;
	int fd;
	int phase;
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

struct sql_thr {
	struct sql_run *run;
	int ep;
	struct sql_conn *conns;
	struct sql_conn **ready;
	unsigned nconns, nready, first;
	struct lg_pace pace;
	int going, stopping;
	uint64_t now;
	struct sql_stats st;
};

/* Accounts a statement that completed; returns nothing, never fails. */
static void sql_stmt_ok(struct sql_thr *t, struct sql_conn *c, uint64_t now)
{
	switch (c->phase) {
	case P_SETUP:
		t->st.setup_stmts++;
		break;
	case P_TEARDOWN:
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

#if SQL_NONBLOCK
/* --- non-blocking engine ------------------------------------------- */

/* A statement is sent (OP_SEND), then we wait for the answer ourselves
 * (OP_AWAIT) before asking the connector to read it (OP_READ):
 * mysql_real_query_start() would try a read at once, which on a fast
 * path finds nothing and costs a system call per statement. */
enum { OP_NONE, OP_CONNECT, OP_SEND, OP_AWAIT, OP_READ, OP_STORE };

static void a_next(struct sql_conn *c);
static void a_setup_next(struct sql_conn *c);
static void a_teardown_next(struct sql_conn *c);

static void a_wait(struct sql_conn *c, int status)
{
	struct sql_thr *t = c->t;
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
static void a_drop(struct sql_conn *c)
{
	struct sql_thr *t = c->t;

	sql_close_watched(t->ep, &c->fd, &c->m);
	c->events = 0;
	c->op = OP_NONE;
	c->queued = 0;
	if (t->stopping) {
		c->phase = P_DONE;
	} else {
		c->phase = P_RETRY;
		c->retry_at = t->now + SQL_RETRY_NS;
	}
}

static void a_fail(struct sql_conn *c, int cls)
{
	c->t->st.err[cls]++;
	if (cls == SQL_E_QUERY) {
		/* The statement failed, the session lives on. */
		if (c->phase == P_SETUP) {
			a_drop(c);	/* a workload without its table */
			c->phase = P_DONE;
		} else if (c->phase == P_TEARDOWN) {
			a_teardown_next(c);
		} else {
			a_next(c);
		}
		return;
	}
	a_drop(c);
}

static void a_done(struct sql_conn *c)
{
	struct sql_thr *t = c->t;
	uint64_t now;
	int op = c->op;

	c->op = OP_NONE;
	switch (op) {
	case OP_CONNECT:
		if (!c->cret) {
			int cls = sql_err_class(mysql_errno(c->m),
						t->now - c->t_sent,
						t->run->timeout_ns);

			a_fail(c, cls == SQL_E_TIMEOUT ? cls : SQL_E_CONNECT);
			return;
		}
		t->st.connects++;
		if (t->stopping) {
			a_teardown_next(c);	/* too late to measure */
			return;
		}
		if (!c->set_up) {
			c->phase = P_SETUP;
			a_setup_next(c);
		} else {
			c->phase = P_RUN;
			a_next(c);
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
				a_wait(c, st);
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
		sql_stmt_ok(t, c, now);
		if (c->phase == P_SETUP)
			a_setup_next(c);
		else if (c->phase == P_TEARDOWN)
			a_teardown_next(c);
		else
			a_next(c);
		return;
	default:
		return;
	}
	a_fail(c, c->timed_out ? SQL_E_TIMEOUT :
	       sql_err_class(mysql_errno(c->m), t->now - c->t_sent,
			     t->run->timeout_ns));
}

static void a_query(struct sql_conn *c)
{
	int st;

	c->op = OP_SEND;
	c->timed_out = 0;
	c->t_sent = c->t->now;
	st = mysql_send_query_start(&c->qret, c->m, c->buf,
				    (unsigned long)c->len);
	if (st)
		a_wait(c, st);
	else
		a_done(c);
}

static void a_connect(struct sql_conn *c)
{
	const struct sql_target *tg = &c->t->run->tg;
	int st;

	c->m = mysql_init(NULL);
	if (!c->m) {
		c->t->st.err[SQL_E_CLIENT]++;
		c->phase = P_RETRY;
		c->retry_at = c->t->now + SQL_RETRY_NS;
		return;
	}
	mysql_optionsv(c->m, MYSQL_OPT_NONBLOCK, 0);
	sql_target_options(c->m, tg);
	c->phase = P_CONNECT;
	c->op = OP_CONNECT;
	c->fd = -1;
	c->events = 0;
	c->timed_out = 0;
	c->t_sent = c->t->now;
	st = mysql_real_connect_start(&c->cret, c->m, tg->host, tg->user,
				      tg->password, tg->db, tg->port,
				      tg->socket, 0);
	if (st)
		a_wait(c, st);
	else
		a_done(c);
}

static void a_cont(struct sql_conn *c, int ready)
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
			a_fail(c, SQL_E_TIMEOUT);
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
		a_wait(c, st);
	else
		a_done(c);
}

static void a_setup_next(struct sql_conn *c)
{
	struct sql_thr *t = c->t;

	if (t->stopping) {
		a_teardown_next(c);
		return;
	}
	c->len = t->run->wl->setup(&t->run->cfg, &c->wc, c->buf, SQL_STMT_BUF);
	if (c->len > 0) {
		a_query(c);
		return;
	}
	if (c->len < 0) {
		t->st.err[SQL_E_CLIENT]++;
		a_drop(c);
		c->phase = P_DONE;
		return;
	}
	c->set_up = 1;
	atomic_fetch_add(&t->run->setup_done, 1);
	c->phase = P_WAIT;
	if (t->going) {
		c->phase = P_RUN;
		a_next(c);
	}
}

static void a_teardown_next(struct sql_conn *c)
{
	struct sql_thr *t = c->t;

	c->phase = P_TEARDOWN;
	/* A setup cut short leaves a table behind too. */
	c->len = c->wc.step > 0 ? t->run->wl->teardown(&t->run->cfg, &c->wc,
							c->buf, SQL_STMT_BUF) : 0;
	if (c->len > 0) {
		a_query(c);
		return;
	}
	sql_close_watched(t->ep, &c->fd, &c->m);
	c->phase = P_DONE;
}

/* The next measured statement, when it is due. */
static void a_next(struct sql_conn *c)
{
	struct sql_thr *t = c->t;
	uint64_t t0;

	if (t->stopping) {
		a_teardown_next(c);
		return;
	}
	c->phase = P_RUN;
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
		a_drop(c);
		return;
	}
	a_query(c);
}

/* Hands due statements to waiting connections (open loop), oldest
 * waiter first. */
static void a_dispatch(struct sql_thr *t)
{
	while (t->nready > 0 && !t->stopping) {
		struct sql_conn *c = t->ready[0];
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
			a_drop(c);
			continue;
		}
		a_query(c);
	}
}

static void a_tick(struct sql_thr *t)
{
	struct sql_run *run = t->run;
	unsigned i;

	if (!t->going && atomic_load(&run->go)) {
		t->going = 1;
		lg_pace_init(&t->pace, run->start_ns, run->rate / run->threads);
		for (i = 0; i < t->nconns; i++)
			if (t->conns[i].phase == P_WAIT)
				a_next(&t->conns[i]);
	}
	if (t->going && !t->stopping && t->now >= run->end_ns) {
		t->stopping = 1;
		while (t->nready > 0) {
			struct sql_conn *c = t->ready[--t->nready];

			c->queued = 0;
			a_teardown_next(c);
		}
	}
	for (i = 0; i < t->nconns; i++) {
		struct sql_conn *c = &t->conns[i];

		if (c->op != OP_NONE && c->tmo_at && t->now >= c->tmo_at) {
			c->timed_out = 1;
			c->tmo_at = 0;
			a_cont(c, MYSQL_WAIT_TIMEOUT);
		} else if (c->phase == P_RETRY) {
			if (t->stopping)
				c->phase = P_DONE;
			else if (t->now >= c->retry_at)
				a_connect(c);
		} else if (c->phase == P_WAIT && t->stopping) {
			a_teardown_next(c);
		}
	}
}

static void *a_thr_main(void *arg)
{
	struct sql_thr *t = arg;
	struct epoll_event evs[256];
	uint64_t next_tick = 0, hard_end;
	unsigned i, busy;
	int n, k, wait_ms;

	t->now = util_mono_ns();
	for (i = 0; i < t->nconns; i++)
		a_connect(&t->conns[i]);
	for (;;) {
		if (t->now >= next_tick) {
			a_tick(t);
			next_tick = t->now + SQL_TICK_MS * 1000000ULL;
		}
		if (t->going)
			a_dispatch(t);
		busy = 0;
		for (i = 0; i < t->nconns; i++)
			busy += t->conns[i].phase != P_DONE;
		if (!busy)
			break;
		if (t->stopping) {
			/* In-flight statements get one timeout to finish;
			 * after that the handles are abandoned (the connector
			 * allows no other call during an operation). */
			hard_end = t->run->end_ns + t->run->timeout_ns +
				   1000000000ULL;
			if (t->now > hard_end) {
				for (i = 0; i < t->nconns; i++)
					if (t->conns[i].phase != P_DONE) {
						t->st.err[SQL_E_TIMEOUT]++;
						t->conns[i].phase = P_DONE;
					}
				break;
			}
		}
		wait_ms = SQL_TICK_MS;
		if (t->going && t->nready)
			wait_ms = lg_pace_wait_ms(&t->pace, t->now, SQL_TICK_MS);
		n = epoll_wait(t->ep, evs, 256, wait_ms);
		t->now = util_mono_ns();
		for (k = 0; k < n; k++) {
			struct sql_conn *c = evs[k].data.ptr;
			int ready = 0;

			if (c->op == OP_NONE)
				continue;
			if (evs[k].events & (EPOLLIN | EPOLLHUP | EPOLLERR))
				ready |= MYSQL_WAIT_READ;
			if (evs[k].events & (EPOLLOUT | EPOLLERR))
				ready |= MYSQL_WAIT_WRITE;
			if (evs[k].events & EPOLLPRI)
				ready |= MYSQL_WAIT_EXCEPT;
			ready &= c->status | MYSQL_WAIT_READ;
			a_cont(c, ready);
		}
	}
	t->st.end_at = util_mono_ns();
	return NULL;
}

#define sql_thr_main a_thr_main
#define SQL_BACKEND "nonblocking"

#else
/* --- blocking fallback: one thread per connection ------------------ */

/* Runs one statement; returns 0 or the error class. */
static int b_query(struct sql_thr *t, struct sql_conn *c)
{
	uint64_t t0 = util_mono_ns();
	MYSQL_RES *res;

	if (mysql_real_query(c->m, c->buf, (unsigned long)c->len) == 0) {
		res = mysql_store_result(c->m);
		if (res || mysql_errno(c->m) == 0) {
			if (res)
				mysql_free_result(res);
			sql_stmt_ok(t, c, util_mono_ns());
			return 0;
		}
	}
	return sql_err_class(mysql_errno(c->m), util_mono_ns() - t0,
			     t->run->timeout_ns);
}

static void b_sleep_until(uint64_t mono_ns)
{
	uint64_t now = util_mono_ns();
	struct timespec ts;

	if (mono_ns <= now)
		return;
	ts.tv_sec = (time_t)((mono_ns - now) / 1000000000ULL);
	ts.tv_nsec = (long)((mono_ns - now) % 1000000000ULL);
	nanosleep(&ts, NULL);
}

static int b_stopping(struct sql_thr *t)
{
	return atomic_load(&t->run->go) && util_mono_ns() >= t->run->end_ns;
}

static void *b_thr_main(void *arg)
{
	struct sql_thr *t = arg;
	struct sql_run *run = t->run;
	struct sql_conn *c = &t->conns[0];
	char err[256];
	int cls, rc = 0;

	while (!b_stopping(t)) {
		if (!c->m) {
			c->m = sql_connect(&run->tg, err, sizeof(err), &cls);
			if (!c->m) {
				t->st.err[cls]++;
				b_sleep_until(util_mono_ns() + SQL_RETRY_NS);
				continue;
			}
			t->st.connects++;
		}
		if (!c->set_up) {
			c->phase = P_SETUP;
			while ((c->len = run->wl->setup(&run->cfg, &c->wc,
					c->buf, SQL_STMT_BUF)) > 0)
				if ((rc = b_query(t, c)) != 0)
					break;
			if (c->len != 0) {
				t->st.err[c->len < 0 ? SQL_E_CLIENT : rc]++;
				goto out;
			}
			c->set_up = 1;
			atomic_fetch_add(&run->setup_done, 1);
			while (!atomic_load(&run->go))
				b_sleep_until(util_mono_ns() + 1000000ULL);
			lg_pace_init(&t->pace, run->start_ns,
				     run->rate / run->conns);
		}
		c->phase = P_RUN;
		while (!b_stopping(t)) {
			uint64_t due = lg_pace_next(&t->pace);

			if (t->pace.interval_ns > 0)
				b_sleep_until(due);
			c->t_start = lg_pace_take(&t->pace, util_mono_ns());
			c->len = run->wl->next(&run->cfg, &c->wc, c->buf,
					       SQL_STMT_BUF);
			rc = c->len < 0 ? SQL_E_CLIENT : b_query(t, c);
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
		c->phase = P_TEARDOWN;
		while ((c->len = run->wl->teardown(&run->cfg, &c->wc, c->buf,
						   SQL_STMT_BUF)) > 0)
			if ((rc = b_query(t, c)) != 0) {
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

#define sql_thr_main b_thr_main
#define SQL_BACKEND "blocking"
#endif

/* point-select: its own engine (sql_point_select.c) on every architecture. */
static void *ps_thr_main(void *arg)
{
	struct sql_thr *t = arg;

	if (sql_point_select_loop(t->run, t->first, t->nconns, &t->st) != 0)
		t->st.err[SQL_E_CLIENT]++;
	return NULL;
}

static int sql_is_ps(const struct sql_run *run)
{
	return strcmp(run->wl->name, "point-select") == 0;
}

/* --- command line and report --------------------------------------- */

static void sql_usage(FILE *out)
{
	fprintf(out,
"usage: benchboot sql --workload=ops|mix|point-select [options]\n"
"  -t THREADS       event-loop threads (default 1)\n"
"  -c CONNS         connections (default 1; ops uses one)\n"
"  -d DURATION      measured time (default 10s; not for ops)\n"
"  --rate R         open loop at R statements/s (latency from the\n"
"                   intended send time); default closed loop\n"
"  --rows N         table rows (ops: 100000, mix: 1000 per connection,\n"
"                   point-select: detected with MAX(id))\n"
"  --table NAME     point-select table (sbtest1); mix table prefix\n"
"                   (bb_mix); ops table (bb_addr)\n"
"  --seed N         data generator seed (default 1)\n"
"  --keep           keep the tables the workload created\n"
"  --timeout DUR    connect/read/write timeout (default 10s)\n"
"  --host H --port P --socket PATH --user U --password PW --db DB\n"
"  --json           print the workload record (docs/result-schema.md)\n");
}

static void sql_report(struct sql_run *run, struct sql_stats *tot,
		       double elapsed, uint64_t real0, int json)
{
	const struct sql_workload *wl = run->wl;
	unsigned i;

	if (json) {
		cJSON *rec = lg_record_new("sql", real0, run->start_ns,
					   elapsed);
		cJSON *p, *cn, *bk, *er, *lat;

		if (!rec)
			return;
		p = cJSON_AddObjectToObject(rec, "params");
		cJSON_AddStringToObject(p, "sql_workload", wl->name);
		cJSON_AddNumberToObject(p, "threads", run->threads);
		cJSON_AddNumberToObject(p, "connections", run->conns);
		cJSON_AddNumberToObject(p, "duration_s",
					(double)run->duration_ns / 1e9);
		cJSON_AddStringToObject(p, "mode", run->rate > 0 ? "open" :
					"closed");
		cJSON_AddNumberToObject(p, "rate", run->rate);
		cJSON_AddStringToObject(p, "table", run->cfg.table);
		cJSON_AddNumberToObject(p, "rows", (double)run->cfg.rows);
		cJSON_AddNumberToObject(p, "seed", (double)run->cfg.seed);
		cJSON_AddStringToObject(p, "server", run->tg.socket ?
					run->tg.socket : run->tg.host ?
					run->tg.host : "localhost");
		cJSON_AddNumberToObject(p, "port", run->tg.port);
		cJSON_AddStringToObject(p, "engine", sql_is_ps(run) ? "wire" :
					SQL_BACKEND);
		cn = cJSON_AddObjectToObject(rec, "counters");
		cJSON_AddNumberToObject(cn, "statements", (double)tot->stmts);
		bk = cJSON_AddObjectToObject(cn, "by_kind");
		for (i = 0; i < wl->nkinds; i++)
			cJSON_AddNumberToObject(bk, wl->kinds[i],
						(double)tot->kinds[i]);
		cJSON_AddNumberToObject(cn, "setup_statements",
					(double)tot->setup_stmts);
		cJSON_AddNumberToObject(cn, "teardown_statements",
					(double)tot->teardown_stmts);
		cJSON_AddNumberToObject(cn, "connects", (double)tot->connects);
		er = cJSON_AddObjectToObject(rec, "errors");
		for (i = 0; i < SQL_E_N; i++)
			cJSON_AddNumberToObject(er, sql_err_names[i],
						(double)tot->err[i]);
		lat = hist_to_json(&tot->lat);
		if (lat)
			cJSON_AddItemToObject(rec, "latency", lat);
		lg_record_print(rec);
		return;
	}
	printf("sql %s: %u threads, %u connections, %.2f s, %s loop, %s engine\n", wl->name, run->threads, run->conns, elapsed,
	       run->rate > 0 ? "open" : "closed",
	       sql_is_ps(run) ? "wire" : SQL_BACKEND);
	printf("  statements  %llu (%.1f/s)", (unsigned long long)tot->stmts,
	       elapsed > 0 ? (double)tot->stmts / elapsed : 0);
	if (wl->nkinds > 1)
		for (i = 0; i < wl->nkinds; i++)
			printf("%s %s %llu", i ? "," : ":", wl->kinds[i],
			       (unsigned long long)tot->kinds[i]);
	printf("\n  setup       %llu statements, %llu connects\n",
	       (unsigned long long)tot->setup_stmts,
	       (unsigned long long)tot->connects);
	lg_print_latency(stdout, &tot->lat);
	printf("  errors     ");
	for (i = 0; i < SQL_E_N; i++)
		printf(" %s %llu%s", sql_err_names[i],
		       (unsigned long long)tot->err[i],
		       i + 1 < SQL_E_N ? "," : "\n");
}

/* point-select without --rows: the table's MAX(id), as sysbench fills
 * ids 1..table-size. */
static int sql_detect_rows(struct sql_run *run, struct sql_stats *tot)
{
	char err[256], q[160];
	MYSQL_RES *res;
	MYSQL_ROW row;
	MYSQL *m;
	int cls;

	m = sql_connect(&run->tg, err, sizeof(err), &cls);
	if (!m) {
		tot->err[cls]++;
		util_err("sql", EIO, "cannot count the rows of %s (%s); assuming 10000", run->cfg.table, err);
		run->cfg.rows = 10000;
		return 0;
	}
	snprintf(q, sizeof(q), "SELECT MAX(id) FROM %s", run->cfg.table);
	if (mysql_query(m, q) != 0 || !(res = mysql_store_result(m))) {
		util_err("sql", EINVAL, "%s: %s (create it with sysbench oltp_point_select prepare, or give --table)", q,
			 mysql_error(m));
		mysql_close(m);
		return -EINVAL;
	}
	row = mysql_fetch_row(res);
	run->cfg.rows = row && row[0] ? strtoull(row[0], NULL, 10) : 0;
	mysql_free_result(res);
	mysql_close(m);
	if (run->cfg.rows == 0)
		return util_err("sql", EINVAL, "table %s is empty",
				run->cfg.table);
	return 0;
}

static int sql_ident_ok(const char *s)
{
	size_t i, n = strlen(s);

	if (n == 0 || n > 48)
		return 0;
	for (i = 0; i < n; i++)
		if (!(s[i] == '_' || (s[i] >= 'a' && s[i] <= 'z') ||
		      (s[i] >= 'A' && s[i] <= 'Z') ||
		      (s[i] >= '0' && s[i] <= '9')))
			return 0;
	return 1;
}

/* Thread i's state: its share of the connections (the first is number
 * *k of the run, *k advanced past them), each with its statement buffer. */
static int sql_thr_setup(struct sql_run *run, struct sql_thr *t, unsigned i,
			 unsigned nthr, unsigned *k)
{
	unsigned j;

	t->run = run;
	t->ep = -1;
	hist_init(&t->st.lat);
	t->nconns = (unsigned)lg_share(run->conns, nthr, i);
	t->first = *k;
	t->conns = calloc(t->nconns, sizeof(*t->conns));
	t->ready = calloc(t->nconns, sizeof(*t->ready));
	if (!t->conns || !t->ready)
		return -ENOMEM;
	for (j = 0; j < t->nconns; j++, (*k)++) {
		struct sql_conn *c = &t->conns[j];

		c->t = t;
		c->fd = -1;
		c->buf = malloc(SQL_STMT_BUF);
		if (!c->buf)
			return -ENOMEM;
		sql_stmt_conn_init(&run->cfg, &c->wc, *k);
	}
#if SQL_NONBLOCK
	t->ep = epoll_create1(EPOLL_CLOEXEC);
	if (t->ep < 0)
		return -ENOMEM;
#endif
	return 0;
}

/* Starts the measured interval once every connection is set up, or after
 * one timeout (unreachable servers are then counted, not waited for);
 * with failed set, at once and empty.  Started by an agent (loadgen.h's
 * gate), every connection must be set up within the prepare budget and
 * the interval starts at the controller's start, the same on every
 * client; a set-up that does not finish fails the run (*gate_rc).
 * Returns the wall clock then. */
static uint64_t sql_go(struct sql_run *run, int failed, int *gate_rc)
{
	uint64_t deadline = util_mono_ns() +
			    lg_gate_budget_ns(run->timeout_ns), real0;
	unsigned done;

	while (!failed && atomic_load(&run->setup_done) < run->conns &&
	       util_mono_ns() < deadline)
		usleep(2000);
	done = atomic_load(&run->setup_done);
	if (lg_gate_active()) {
		*gate_rc = lg_gate(!failed && done >= run->conns);
		if (*gate_rc == -ECANCELED && !failed)
			util_err("sql", ETIMEDOUT, "prepare: %u of %u connections set up within %.0f s", done, run->conns, (double)lg_gate_budget_ns(0) / 1e9);
		else if (*gate_rc != 0 && !failed)
			util_err("sql", -*gate_rc, "prepare gate: %s", lg_gate_strerror(*gate_rc));
		failed |= *gate_rc != 0;
	}
	real0 = util_real_ns();
	run->start_ns = util_mono_ns();
	run->end_ns = run->start_ns + (failed ? 0 : run->duration_ns);
	atomic_store(&run->go, 1);
	return real0;
}

/* Adds thread t's counts to tot and frees what sql_thr_setup() made. */
static void sql_thr_merge(struct sql_stats *tot, struct sql_thr *t)
{
	unsigned j;

	/* The counters up to end_at are uint64_t only. */
	lg_sum_u64(tot, &t->st, offsetof(struct sql_stats, end_at) /
				sizeof(uint64_t));
	hist_merge(&tot->lat, &t->st.lat);
	if (t->st.end_at > tot->end_at)
		tot->end_at = t->st.end_at;
	for (j = 0; t->conns && j < t->nconns; j++)
		free(t->conns[j].buf);
	free(t->conns);
	free(t->ready);
	if (t->ep >= 0)
		close(t->ep);
}

static int sql_run_conns(struct sql_run *run, int json)
{
	struct lg_threads lt = { 0 };
	struct sql_thr *thr;
	struct sql_stats *tot;
	uint64_t real0;
	unsigned i, k = 0, nthr;
	int rc = 0, gate_rc = 0;

	tot = calloc(1, sizeof(*tot));
	nthr = SQL_NONBLOCK ? run->threads : run->conns;
	thr = calloc(nthr, sizeof(*thr));
	if (!tot || !thr) {
		free(tot);
		free(thr);
		return util_err("sql", ENOMEM, "out of memory");
	}
	hist_init(&tot->lat);
	if (sql_is_ps(run) && run->cfg.rows == 0) {
		rc = sql_detect_rows(run, tot);
		if (rc != 0)
			goto out;
	}
	mysql_library_init(0, NULL, NULL);
	for (i = 0; i < nthr && rc == 0; i++)
		rc = sql_thr_setup(run, &thr[i], i, nthr, &k);
	if (rc == 0)
		rc = lg_threads_start(&lt, thr, sizeof(*thr), nthr,
				      sql_is_ps(run) ? ps_thr_main :
				      sql_thr_main);
	if (rc != 0)
		rc = util_err("sql", ENOMEM, "cannot set up %u connections", run->conns);
	real0 = sql_go(run, rc != 0, &gate_rc);
	lg_threads_join(&lt);
	for (i = 0; i < nthr; i++)
		sql_thr_merge(tot, &thr[i]);
	/* Not prepared: the record says how far it got (setup_statements,
	 * no statement measured) and the exit status that it failed. */
	tot->err[SQL_E_PREPARE] += gate_rc != 0;
	if (rc == 0)
		sql_report(run, tot, tot->end_at > run->start_ns ?
			   (double)(tot->end_at - run->start_ns) / 1e9 : 0,
			   real0, json);
	if (rc == 0 && gate_rc != 0)
		rc = gate_rc;
out:
	free(thr);
	free(tot);
	return rc;
}

/* Options into run; *workload and *json.  Returns 0 to go on, 1 after
 * --help, -EINVAL on a usage error (said on stderr). */
static int sql_parse(int argc, char **argv, struct sql_run *run,
		     const char **workload, uint64_t *timeout, int *json)
{
	int argi, rc;
	const struct lg_opt opts[] = {
		{ .name = "workload", .kind = LG_OPT_STR, .dst = workload },
		LG_OPT_THREADS(&run->threads, 256, "-t '%s': want 1..256"),
		LG_OPT_CONNS(&run->conns, 10000, "-c '%s': want 1..10000"),
		LG_OPT_DURATION(&run->duration_ns, "-d '%s': want a duration like 10s"),
		LG_OPT_RATE_PER_S(&run->rate, "--rate '%s': want statements per second > 0"),
		{ .name = "rows", .kind = LG_OPT_U64, .dst = &run->cfg.rows,
		  .min = 1, .max = 4000000000ULL,
		  .bad = "--rows '%s': want 1..4G" },
		{ .name = "table", .kind = LG_OPT_STR, .dst = &run->cfg.table },
		{ .name = "seed", .kind = LG_OPT_U64, .dst = &run->cfg.seed,
		  .max = UINT64_MAX,
		  .bad = "--seed '%s': want an unsigned number" },
		{ .name = "keep", .kind = LG_OPT_FLAG, .dst = &run->cfg.keep,
		  .val = 1 },
		LG_OPT_TIMEOUT(timeout, 1, "--timeout '%s': want a duration like 10s"),
		{ .name = "host", .kind = LG_OPT_STR, .dst = &run->tg.host },
		{ .name = "port", .kind = LG_OPT_UINT, .dst = &run->tg.port,
		  .min = 1, .max = 65535,
		  .bad = "--port '%s': want 1..65535" },
		{ .name = "socket", .kind = LG_OPT_STR, .dst = &run->tg.socket },
		{ .name = "user", .kind = LG_OPT_STR, .dst = &run->tg.user },
		{ .name = "password", .kind = LG_OPT_STR,
		  .dst = &run->tg.password },
		{ .name = "db", .kind = LG_OPT_STR, .dst = &run->tg.db },
		LG_OPT_JSON(json),
	};
	const struct lg_optset set = LG_OPTSET("sql", opts, sql_usage);

	rc = lg_opt_main(&set, argc, argv, &argi);
	if (rc != 0)
		return rc;
	if (argi != argc || !*workload) {
		util_err("sql", EINVAL, "need --workload=ops|mix|point-select and no other arguments");
		sql_usage(stderr);
		return -EINVAL;
	}
	return 0;
}

/* mix: table names unique per client process, as many clients share one
 * server: a hash of the host name and the pid. */
static void sql_mix_tag(struct sql_run *run)
{
	uint32_t h = 2166136261u;
	char host[64];
	size_t i;

	util_hostname(host, sizeof(host));
	for (i = 0; host[i]; i++)
		h = (h ^ (uint8_t)host[i]) * 16777619u;
	h = (h ^ (uint32_t)getpid()) * 16777619u;
	snprintf(run->cfg.tag, sizeof(run->cfg.tag), "%08x", h);
}

int sql_main(int argc, char **argv)
{
	static struct sql_run run;
	const char *workload = NULL, *table;
	uint64_t timeout = 10000000000ULL;
	int json = 0, ops, rc;

	memset(&run, 0, sizeof(run));
	run.threads = 1;
	run.conns = 1;
	run.duration_ns = 10000000000ULL;
	run.cfg.seed = 1;
	run.tg.user = "root";
	rc = sql_parse(argc, argv, &run, &workload, &timeout, &json);
	if (rc != 0)
		return rc > 0 ? 0 : 2;
	ops = strcmp(workload, "ops") == 0;
	run.wl = sql_stmt_find(workload);
	if (!ops && !run.wl) {
		util_err("sql", EINVAL, "--workload '%s': want ops, mix or point-select", workload);
		return 2;
	}
	table = run.cfg.table;
	if (!table)
		table = ops ? "bb_addr" : strcmp(workload, "mix") == 0 ?
			"bb_mix" : "sbtest1";
	if (!sql_ident_ok(table)) {
		util_err("sql", EINVAL, "--table '%s': want 1..48 of [A-Za-z0-9_]", table);
		return 2;
	}
	run.cfg.table = table;
	run.timeout_ns = timeout;
	run.tg.timeout_s = (unsigned)((timeout + 999999999ULL) / 1000000000ULL);
	if (run.conns < run.threads)
		run.threads = run.conns;
	signal(SIGPIPE, SIG_IGN);
	if (ops)
		return sql_ops_run(&run.tg, table, run.cfg.rows ?
				   run.cfg.rows : 100000, run.cfg.seed,
				   run.cfg.keep, json) == 0 ? 0 : 1;
	if (strcmp(workload, "mix") == 0) {
		if (!run.cfg.rows)
			run.cfg.rows = 1000;
		sql_mix_tag(&run);
	}
	return sql_run_conns(&run, json) == 0 ? 0 : 1;
}
