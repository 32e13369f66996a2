/* load/sql/sql_point_select.c: point-select's engine.  The connector only connects (its
 * non-blocking API where it has one); the prepared SELECT then runs over
 * the socket in the binary protocol: one write of a prebuilt
 * COM_STMT_EXECUTE, reads into the connection's buffer, mysql_wire's
 * parser; edge-triggered epoll, one clock read per batch of events. */
#include <errno.h>
#include <fcntl.h>
#include <mysql.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/timerfd.h>

#include "load/loadgen.h"
#include "load/sql/mysql_wire.h"
#include "load/sql/sql_point_select.h"
#include "lib/util.h"

#define PS_TICK_NS 10000000ULL	/* timeouts, retries, the start */
#define PS_MAXEV 256

enum {
	C_CONNECT,	/* the connector is connecting */
	C_PREPARE,	/* COM_STMT_PREPARE sent */
	C_IDLE,		/* ready; waits for the start or a paced slot */
	C_EXEC,		/* COM_STMT_EXECUTE sent */
	C_RETRY,	/* closed; reconnects at retry_at */
	C_DONE,
};

struct ps_thr;

struct ps_conn {
	struct ps_thr *t;
	MYSQL *m;
	int fd;
	int state;
	int cstatus;		/* C_CONNECT: what the connector waits for */
	int prepared;		/* exec holds a valid statement id */
	int set_up;		/* counted in run->setup_done */
	int queued;		/* in the thread's ready ring */
	MYSQL *cret;
	uint64_t t_start;	/* intended start of the statement */
	uint64_t t_sent;	/* when the request (or connect) went out */
	uint64_t retry_at;
	const uint8_t *wp;	/* unwritten rest of the request */
	uint32_t wleft;
	uint32_t rlen;		/* bytes in rbuf not yet parsed */
	struct sql_stmt_conn wc;	/* the id generator */
	struct mw_parser mp;
	uint8_t exec[MW_EXEC_LEN];
	uint8_t prep[128];
	uint32_t prep_len;
	uint8_t rbuf[SQL_POINT_SELECT_RBUF];
};

struct ps_thr {
	struct sql_run *run;
	struct sql_stats *st;
	int ep, tfd;
	struct ps_conn *conns;
	unsigned n;
	struct ps_conn **ring;	/* open loop: connections waiting, FIFO */
	unsigned rhead, rcount;
	struct lg_pace pace;
	int going, stopping;
	uint64_t now;
	uint64_t rtt_avg;	/* running mean of statement times (ns) */
};

/* Closed-loop batching, as http's (docs/http.md, "Why benchboot drove
 * nginx less hard"): with at least PS_NAP_CONNS connections a thread naps
 * 1/PS_NAP_DIV of the mean statement time before it waits, so that the
 * server's answers arrive while nobody sleeps on them (no wake-up for
 * the server to pay) and are taken in one batch.  Half the mean, not
 * http's quarter: a query's reply is small, so the sleep is a larger
 * share of its cost (docs/sql.md, issue 19). */
#define PS_NAP_CONNS 8
#define PS_NAP_DIV 2
#define PS_NAP_MIN_NS 5000
#define PS_NAP_MAX_NS 1000000

int sql_point_select_statement(const char *table, char *buf, size_t cap)
{
	int n = snprintf(buf, cap, "SELECT c FROM %s WHERE id=?", table);

	return n < 0 || (size_t)n >= cap ? -ENOSPC : n;
}

static void ps_next(struct ps_conn *c);

/* Closes the session (the connector sends its COM_QUIT); the slot
 * reconnects after the back-off unless the run is ending. */
static void ps_close(struct ps_conn *c)
{
	struct ps_thr *t = c->t;

	sql_close_watched(t->ep, &c->fd, &c->m);
	c->prepared = 0;
	c->wleft = 0;
	c->rlen = 0;
	if (t->stopping) {
		c->state = C_DONE;
	} else {
		c->state = C_RETRY;
		c->retry_at = t->now + SQL_RETRY_NS;
	}
}

static void ps_fail(struct ps_conn *c, int cls)
{
	c->t->st->err[cls]++;
	ps_close(c);
}

/* Counts the connection as ready for the start (once per slot, even when
 * it could not be made ready: the start must not wait for it). */
static void ps_ready(struct ps_conn *c)
{
	if (!c->set_up) {
		c->set_up = 1;
		atomic_fetch_add(&c->t->run->setup_done, 1);
	}
}

/* Watches fd (once per socket; edge-triggered, so never modified). */
static void ps_watch(struct ps_conn *c, int fd)
{
	struct epoll_event e = {
		.events = EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET,
		.data.ptr = c,
	};

	c->fd = fd;
	if (fd >= 0)
		epoll_ctl(c->t->ep, EPOLL_CTL_ADD, fd, &e);
}

/* Watches the connector's current socket: a host with several addresses
 * gets a socket per try.  Returns it. */
static int ps_track_fd(struct ps_conn *c)
{
	int fd = (int)mysql_get_socket(c->m);

	if (fd != c->fd) {
		if (c->fd >= 0)
			epoll_ctl(c->t->ep, EPOLL_CTL_DEL, c->fd, NULL);
		ps_watch(c, fd);
	}
	return fd;
}

/* Sends len bytes of buf, the rest when the socket is writable again.
 * Returns 0, or -1 when the connection broke (and was closed). */
static int ps_send(struct ps_conn *c, const uint8_t *buf, uint32_t len)
{
	ssize_t n;

	c->t_sent = c->t->now;
	c->rlen = 0;
	for (;;) {
		n = write(c->fd, buf, len);
		if (n == (ssize_t)len) {
			c->wleft = 0;
			return 0;
		}
		if (n >= 0) {
			buf += n;
			len -= (uint32_t)n;
			continue;
		}
		if (errno == EAGAIN) {
			c->wp = buf;
			c->wleft = len;
			return 0;
		}
		if (errno != EINTR) {
			ps_fail(c, SQL_E_LOST);
			return -1;
		}
	}
}

static void ps_prepare(struct ps_conn *c)
{
	mw_expect(&c->mp, MW_PREPARE);
	c->state = C_PREPARE;
	ps_send(c, c->prep, c->prep_len);
}

/* The connector is done connecting: take the socket over. */
static void ps_connected(struct ps_conn *c)
{
	struct ps_thr *t = c->t;
	uint64_t caps;
	int fd;

	t->st->connects++;
	fd = ps_track_fd(c);
	if (!SQL_NONBLOCK)
		fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	if (sql_wire_caps(c->m, &caps) != 0) {
		t->st->err[SQL_E_CLIENT]++;
		ps_ready(c);
		ps_close(c);
		c->state = C_DONE;
		return;
	}
	mw_init(&c->mp, caps, SQL_POINT_SELECT_RBUF - MW_HDR);
	if (t->stopping) {
		ps_close(c);
		return;
	}
	ps_prepare(c);
}

/* Drives the connector's connect; ready is MYSQL_WAIT_* (0 to start). */
static void ps_connect_step(struct ps_conn *c, int ready)
{
	struct ps_thr *t = c->t;
	int st, cls;

#if SQL_NONBLOCK
	st = ready ? mysql_real_connect_cont(&c->cret, c->m, ready) :
	     mysql_real_connect_start(&c->cret, c->m, t->run->tg.host,
				      t->run->tg.user, t->run->tg.password,
				      t->run->tg.db, t->run->tg.port,
				      t->run->tg.socket, 0);
#else
	st = 0;
	c->cret = mysql_real_connect(c->m, t->run->tg.host, t->run->tg.user,
				     t->run->tg.password, t->run->tg.db,
				     t->run->tg.port, t->run->tg.socket, 0);
#endif
	if (st) {
		ps_track_fd(c);
		c->cstatus = st;
		return;
	}
	if (c->cret) {
		ps_connected(c);
		return;
	}
	cls = sql_err_class(mysql_errno(c->m), util_mono_ns() - c->t_sent,
			    t->run->timeout_ns);
	ps_ready(c);
	ps_fail(c, ready & MYSQL_WAIT_TIMEOUT || cls == SQL_E_TIMEOUT ?
		   SQL_E_TIMEOUT : SQL_E_CONNECT);
}

static void ps_connect(struct ps_conn *c)
{
	struct ps_thr *t = c->t;

	c->fd = -1;
	c->m = mysql_init(NULL);
	if (!c->m) {
		t->st->err[SQL_E_CLIENT]++;
		c->state = C_RETRY;
		c->retry_at = t->now + SQL_RETRY_NS;
		return;
	}
	if (SQL_NONBLOCK)
		mysql_optionsv(c->m, MYSQL_OPT_NONBLOCK, 0);
	dbconn_options(c->m, &t->run->tg);
	c->state = C_CONNECT;
	c->t_sent = t->now;
	ps_connect_step(c, 0);
}

/* A reply ended: rc is MW_DONE or MW_E_SERVER. */
static void ps_reply(struct ps_conn *c, int rc)
{
	struct ps_thr *t = c->t;
	struct sql_stats *st = t->st;

	if (c->state == C_EXEC) {
		if (rc == MW_DONE) {
			st->stmts++;
			st->kinds[0]++;
			hist_record(&st->lat, t->now > c->t_start ?
				    t->now - c->t_start : 0);
			if (t->now > c->t_start)
				t->rtt_avg += ((int64_t)(t->now - c->t_start) -
					       (int64_t)t->rtt_avg) / 16;
		} else {
			st->err[SQL_E_QUERY]++;
		}
		c->state = C_IDLE;
		ps_next(c);
		return;
	}
	/* C_PREPARE */
	if (rc == MW_DONE && c->mp.nparams == 1) {
		mw_execute_req(c->exec, c->mp.stmt_id, 0);
		c->prepared = 1;
	} else {
		/* No such table, say: counted like the statement that
		 * could not run; the next slot tries the prepare again. */
		st->err[rc == MW_DONE ? SQL_E_CLIENT : SQL_E_QUERY]++;
	}
	c->state = C_IDLE;
	ps_ready(c);
	if (t->going)
		ps_next(c);
	else if (t->stopping)
		ps_close(c);
}

/* Readable (or hung up): reads until a short read drained the socket. */
static void ps_readable(struct ps_conn *c)
{
	size_t used;
	ssize_t n;
	size_t room;
	int rc;

	for (;;) {
		room = SQL_POINT_SELECT_RBUF - c->rlen;
		n = read(c->fd, c->rbuf + c->rlen, room);
		if (n > 0) {
			if (c->state != C_EXEC && c->state != C_PREPARE) {
				/* The server speaks unasked only when it
				 * drops the session (shutdown, kill). */
				ps_fail(c, SQL_E_LOST);
				return;
			}
			c->rlen += (uint32_t)n;
			rc = mw_feed(&c->mp, c->rbuf, c->rlen, &used);
			if (rc == MW_MORE) {
				if (used) {
					memmove(c->rbuf, c->rbuf + used,
						c->rlen - used);
					c->rlen -= (uint32_t)used;
				}
				if ((size_t)n < room)
					return;
				continue;
			}
			if (rc < 0 && rc != MW_E_SERVER) {
				ps_fail(c, SQL_E_CLIENT);
				return;
			}
			if (used != c->rlen) {
				/* Nothing may follow a reply unasked. */
				ps_fail(c, SQL_E_CLIENT);
				return;
			}
			c->rlen = 0;
			ps_reply(c, rc);
			return;
		}
		if (n == 0) {
			ps_fail(c, SQL_E_LOST);
			return;
		}
		if (errno == EAGAIN)
			return;
		if (errno != EINTR) {
			ps_fail(c, SQL_E_LOST);
			return;
		}
	}
}

static void ps_event(struct ps_conn *c, uint32_t ev)
{
	int ready = 0;

	if (c->state == C_CONNECT) {
		if (ev & (EPOLLIN | EPOLLHUP | EPOLLERR | EPOLLRDHUP))
			ready |= MYSQL_WAIT_READ;
		if (ev & (EPOLLOUT | EPOLLERR))
			ready |= MYSQL_WAIT_WRITE;
		/* Spurious steps are harmless: the connector retries. */
		ps_connect_step(c, ready ? ready : c->cstatus &
				(MYSQL_WAIT_READ | MYSQL_WAIT_WRITE));
		return;
	}
	if (c->fd < 0 || c->state == C_RETRY || c->state == C_DONE)
		return;
	if (c->wleft && (ev & (EPOLLOUT | EPOLLERR)) &&
	    ps_send(c, c->wp, c->wleft) != 0)
		return;
	if (ev & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR))
		ps_readable(c);
}

static void ps_exec(struct ps_conn *c, uint64_t t0)
{
	struct ps_thr *t = c->t;
	uint64_t rows = t->run->cfg.rows ? t->run->cfg.rows : 1;

	c->t_start = t0;
	if (!c->prepared) {
		ps_prepare(c);
		return;
	}
	mw_execute_arg(c->exec, sql_stmt_rand(&c->wc.rng) % rows + 1);
	mw_expect(&c->mp, MW_EXECUTE);
	c->state = C_EXEC;
	ps_send(c, c->exec, MW_EXEC_LEN);
}

/* The next statement of an idle connection, when it is due. */
static void ps_next(struct ps_conn *c)
{
	struct ps_thr *t = c->t;
	uint64_t t0;

	if (t->stopping) {
		ps_close(c);
		return;
	}
	t0 = t->rcount ? 0 : lg_pace_take(&t->pace, t->now);
	if (t0 == 0) {
		if (!c->queued) {
			c->queued = 1;
			t->ring[(t->rhead + t->rcount++) % t->n] = c;
		}
		return;
	}
	ps_exec(c, t0);
}

/* Open loop: hands due slots to waiting connections, oldest first. */
static void ps_dispatch(struct ps_thr *t)
{
	struct ps_conn *c;
	uint64_t t0;

	while (t->rcount > 0 && !t->stopping) {
		t0 = lg_pace_take(&t->pace, t->now);
		if (t0 == 0)
			return;
		c = t->ring[t->rhead];
		t->rhead = (t->rhead + 1) % t->n;
		t->rcount--;
		c->queued = 0;
		if (c->state == C_IDLE)
			ps_exec(c, t0);
	}
}

static void ps_tick(struct ps_thr *t)
{
	struct sql_run *run = t->run;
	uint64_t tmo = run->timeout_ns;
	unsigned i;

	if (!t->going && !t->stopping && atomic_load(&run->go)) {
		t->going = 1;
		/* This thread's share of the rate: on ppc64le there is a
		 * thread per connection whatever -t says. */
		lg_pace_init(&t->pace, run->start_ns,
			     run->rate * t->n / run->conns);
		for (i = 0; i < t->n; i++)
			if (t->conns[i].state == C_IDLE)
				ps_next(&t->conns[i]);
	}
	for (i = 0; i < t->n; i++) {
		struct ps_conn *c = &t->conns[i];

		switch (c->state) {
		case C_CONNECT:
			if (t->now - c->t_sent >= tmo)
				ps_connect_step(c, MYSQL_WAIT_TIMEOUT);
			break;
		case C_PREPARE:
		case C_EXEC:
			if (t->now - c->t_sent >= tmo) {
				ps_ready(c);
				ps_fail(c, SQL_E_TIMEOUT);
			}
			break;
		case C_RETRY:
			if (t->stopping)
				c->state = C_DONE;
			else if (t->now >= c->retry_at)
				ps_connect(c);
			break;
		case C_IDLE:
			if (t->stopping && !c->queued)
				ps_close(c);
			break;
		}
	}
}

/* The end of the measured interval: nothing new starts. */
static void ps_stop(struct ps_thr *t)
{
	struct ps_conn *c;

	t->stopping = 1;
	while (t->rcount > 0) {
		c = t->ring[t->rhead];
		t->rhead = (t->rhead + 1) % t->n;
		t->rcount--;
		c->queued = 0;
		ps_close(c);
	}
}

/* epoll_wait, after a nap when the closed loop has enough connections
 * busy (PS_NAP_*) and no reply is waiting.  Returns the events' number
 * (or -1). */
static int ps_wait(struct ps_thr *t, struct epoll_event *evs, int wait_ms)
{
	uint64_t nap = t->rtt_avg / PS_NAP_DIV;
	int n;

	if (t->run->rate == 0 && t->going && !t->stopping &&
	    t->n >= PS_NAP_CONNS && nap >= PS_NAP_MIN_NS) {
		struct timespec ts = { 0, (long)(nap < PS_NAP_MAX_NS ?
						 nap : PS_NAP_MAX_NS) };

		/* Replies already waiting (a busy machine kept us off the
		 * CPU): take them now, a nap would only add idle time. */
		n = epoll_wait(t->ep, evs, PS_MAXEV, 0);
		if (n != 0)
			return n;
		nanosleep(&ts, NULL);
		n = epoll_wait(t->ep, evs, PS_MAXEV, 0);
		if (n != 0)
			return n;
	}
	return epoll_wait(t->ep, evs, PS_MAXEV, wait_ms);
}

static void ps_run(struct ps_thr *t)
{
	struct epoll_event evs[PS_MAXEV];
	uint64_t next_tick = 0, hard_end = 0, ticks;
	unsigned i, busy;
	int n, k, wait_ms;

	t->now = util_mono_ns();
	/* Naps to the microsecond, not the default 50 us timer slack. */
	prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0);
	for (i = 0; i < t->n; i++)
		ps_connect(&t->conns[i]);
	for (;;) {
		if (t->now >= next_tick) {
			ps_tick(t);
			next_tick = t->now + PS_TICK_NS;
		}
		if (t->going && t->rcount)
			ps_dispatch(t);
		for (i = 0, busy = 0; i < t->n; i++)
			busy += t->conns[i].state != C_DONE;
		if (!busy)
			break;
		if (t->stopping && t->now > hard_end) {
			/* Abandoned: the connector allows no call during its
			 * connect, and a statement is past its timeout. */
			for (i = 0; i < t->n; i++)
				if (t->conns[i].state != C_DONE) {
					t->st->err[SQL_E_TIMEOUT]++;
					t->conns[i].state = C_DONE;
				}
			break;
		}
		/* The timerfd wakes us for the tick; an open loop's next
		 * slot may come sooner. */
		wait_ms = -1;
		if (t->going && t->rcount)
			wait_ms = lg_pace_wait_ms(&t->pace, t->now,
						  PS_TICK_NS / 1000000);
		n = ps_wait(t, evs, wait_ms);
		/* The one clock read of this batch. */
		t->now = util_mono_ns();
		if (t->going && !t->stopping && t->now >= t->run->end_ns) {
			ps_stop(t);
			hard_end = t->run->end_ns + t->run->timeout_ns +
				   1000000000ULL;
		}
		for (k = 0; k < n; k++) {
			if (evs[k].data.ptr)
				ps_event(evs[k].data.ptr, evs[k].events);
			else if (read(t->tfd, &ticks, sizeof(ticks)) < 0)
				(void)0;	/* cleared either way */
		}
	}
	for (i = 0; i < t->n; i++)
		if (t->conns[i].m && t->conns[i].state != C_CONNECT)
			mysql_close(t->conns[i].m);
}

int sql_point_select_loop(struct sql_run *run, unsigned first, unsigned n,
		struct sql_stats *st)
{
	struct itimerspec it = {
		.it_interval = { 0, (long)PS_TICK_NS },
		.it_value = { 0, (long)PS_TICK_NS },
	};
	struct epoll_event e = { .events = EPOLLIN, .data.ptr = NULL };
	struct ps_thr t;
	char sql[128];
	unsigned i;
	int len, rc = -ENOMEM;

	memset(&t, 0, sizeof(t));
	t.run = run;
	t.st = st;
	t.n = n;
	t.ep = epoll_create1(EPOLL_CLOEXEC);
	t.tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	t.conns = calloc(n, sizeof(*t.conns));
	t.ring = calloc(n, sizeof(*t.ring));
	len = sql_point_select_statement(run->cfg.table, sql, sizeof(sql));
	if (t.ep < 0 || t.tfd < 0 || !t.conns || !t.ring || len < 0)
		goto out;
	if (timerfd_settime(t.tfd, 0, &it, NULL) != 0 ||
	    epoll_ctl(t.ep, EPOLL_CTL_ADD, t.tfd, &e) != 0)
		goto out;
	for (i = 0; i < n; i++) {
		struct ps_conn *c = &t.conns[i];

		c->t = &t;
		c->fd = -1;
		sql_stmt_conn_init(&run->cfg, &c->wc, first + i);
		c->prep_len = (uint32_t)mw_prepare_req(c->prep,
						       sizeof(c->prep), sql,
						       (size_t)len);
	}
	ps_run(&t);
	rc = 0;
out:
	if (rc != 0)
		for (i = 0; i < n; i++)
			atomic_fetch_add(&run->setup_done, 1);
	st->end_at = util_mono_ns();
	free(t.conns);
	free(t.ring);
	if (t.tfd >= 0)
		close(t.tfd);
	if (t.ep >= 0)
		close(t.ep);
	return rc;
}
