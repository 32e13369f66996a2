/* load/http/http.c: `benchboot http`, an HTTP/1.1 load generator in the style of
 * wrk/wrk2: one edge-triggered epoll loop per thread, each socket
 * registered once, the next request written as soon as a response is
 * parsed, one clock read per event batch, no allocation while running. */
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "lib/hist.h"
#include "load/http/http.h"
#include "load/http/http_parse.h"
#include "load/http/http_curl.h"
#include "load/http/http_run.h"
#include "load/http/http_target.h"
#include "load/loadgen.h"
#include "lib/stop.h"
#include "lib/util.h"

#ifndef SYS_epoll_pwait2
#define SYS_epoll_pwait2 441	/* same number on every architecture */
#endif

#define HTTP_RBUF (64 * 1024)	/* per-thread read buffer */
#define HTTP_MAXEV 256		/* events per epoll_wait */
#define HTTP_MAX_PIPELINE 256
#define HTTP_MAX_HEADERS 32
/* Closed-loop batching (thread_nap): with at least HTTP_NAP_CONNS
 * connections a thread naps 1/HTTP_NAP_DIV of the mean response time
 * before each wait, naps shorter than HTTP_NAP_MIN_NS are not taken, and
 * none is longer than HTTP_NAP_MAX_NS. */
#define HTTP_NAP_CONNS 8
#define HTTP_NAP_DIV 4
#define HTTP_NAP_MIN_NS 5000
#define HTTP_NAP_MAX_NS 1000000

/* --- per-connection engine ----------------------------------------- */

static void conn_open(struct http_conn *c, uint64_t now);

static void conn_close(struct http_conn *c)
{
	if (c->fd >= 0)
		close(c->fd);	/* also leaves the epoll set */
	c->fd = -1;
	c->state = C_IDLE;
	c->wlen = c->woff = 0;
}

/* A failure of class cls: counted, the requests in flight dropped, and a
 * new connection opened (after a pause when the server refuses us). */
static void conn_drop(struct http_conn *c, int cls, const char *what,
		      int err, uint64_t now)
{
	struct http_thread *th = c->th;

	if (cls == HTTP_E_TIMEOUT)
		th->st.errors[cls] += c->inflight ? c->inflight : 1;
	else
		th->st.errors[cls]++;
	http_run_note_err(th, cls, what, err);
	conn_close(c);
	c->inflight = c->rhead = 0;
	if (cls == HTTP_E_CONNECT ||
	    (cls == HTTP_E_READ && c->responses == 0)) {
		c->retry_at = now + HTTP_BACKOFF_NS;
		return;
	}
	conn_open(c, now);
}

/* Appends one request, chosen by the connection's PRNG, to the write
 * buffer. */
static void conn_append(struct http_conn *c)
{
	const struct http_target_set *ts = &c->th->cfg->ts;
	uint32_t i = 0, n;

	if (ts->npaths > 1)
		i = http_pick(&c->rng, ts->npaths);
	n = ts->len[i];
	if (c->wlen + n > c->wcap) {
		/* Only unwritten bytes matter; they fit (<= pipeline). */
		memmove(c->wbuf, c->wbuf + c->woff, c->wlen - c->woff);
		c->wlen -= c->woff;
		c->woff = 0;
	}
	memcpy(c->wbuf + c->wlen, ts->reqs + ts->off[i], n);
	c->wlen += n;
}

/* Writes what is pending.  Returns 0 (all written, or the rest waits for
 * EPOLLOUT) or -1 when the connection failed (and was replaced). */
static int conn_flush(struct http_conn *c, uint64_t now)
{
	ssize_t n;

	while (c->woff < c->wlen) {
		n = write(c->fd, c->wbuf + c->woff, c->wlen - c->woff);
		if (n > 0) {
			c->woff += (uint32_t)n;
			continue;
		}
		if (n < 0 && errno == EAGAIN)
			return 0;
		if (n < 0 && errno == EINTR)
			continue;
		conn_drop(c, HTTP_E_WRITE, "write", n < 0 ? errno : EPIPE,
			  now);
		return -1;
	}
	c->wlen = c->woff = 0;
	return 0;
}

/* Queues requests while the pipeline has room (closed loop) or while
 * this connection's slots are due (open loop), then writes them. */
static void conn_issue(struct http_conn *c, uint64_t now)
{
	struct http_thread *th = c->th;
	const struct http_cfg *cfg = th->cfg;
	uint64_t start;

	if (c->state == C_IDLE)
		return;
	/* Closed-loop pipelining refills in batches once half the depth
	 * is answered: one write per pipeline/2 requests instead of one
	 * per response read, while at least half stay in flight. */
	if (th->draining || (!cfg->rate && c->inflight > cfg->refill_at))
		goto flush;
	while (c->inflight < cfg->pipeline) {
		if (cfg->rate) {
			if (c->next_j >= th->pace.k)
				break;
			/* Latency runs from the intended send time. */
			start = http_slot_time(th, c->next_j);
			c->next_j += th->nconns;
		} else {
			start = now;
		}
		if (c->inflight == 0)
			c->busy_since = now;
		c->starts[(c->rhead + c->inflight) % cfg->pipeline] = start;
		c->inflight++;
		th->st.sent++;
		conn_append(c);
	}
flush:
	if (c->state == C_OPEN && c->woff < c->wlen)
		conn_flush(c, now);
}

static void conn_open(struct http_conn *c, uint64_t now)
{
	const struct http_target_set *ts = &c->th->cfg->ts;
	struct epoll_event ev = {
		.events = EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET,
		.data.ptr = c,
	};
	int one = 1, err;
	uint32_t k;

	if (c->th->draining)	/* the run is over: no new connections */
		return;
	/* Opened in the prepare phase: used unless the server closed it
	 * while it waited for the start (nothing to read is the good
	 * case); then a new one, as any reconnection. */
	if (c->pre) {
		char b;

		c->pre = 0;
		if (recv(c->fd, &b, 1, MSG_PEEK | MSG_DONTWAIT) < 0 &&
		    errno == EAGAIN)
			goto opened;
		close(c->fd);
		c->fd = -1;
	}
	c->fd = socket(ts->addr.ss_family,
		       SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (c->fd < 0) {
		conn_drop(c, HTTP_E_CONNECT, "socket", errno, now);
		return;
	}
	setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (connect(c->fd, (const struct sockaddr *)&ts->addr,
		    ts->addrlen) != 0 && errno != EINPROGRESS) {
		err = errno;
		conn_drop(c, HTTP_E_CONNECT, "connect", err, now);
		return;
	}
opened:
	/* Registered once for everything, edge-triggered: no epoll_ctl
	 * per request. */
	if (epoll_ctl(c->th->epfd, EPOLL_CTL_ADD, c->fd, &ev) != 0) {
		err = errno;
		conn_drop(c, HTTP_E_CONNECT, "epoll_ctl", err, now);
		return;
	}
	c->state = C_CONNECTING;
	c->conn_start = now;
	c->responses = 0;
	c->wlen = c->woff = 0;
	http_parse_init(&c->parse, c->th->cfg->head);
	/* Requests a server closed on without answering go again, with
	 * their original start times. */
	for (k = 0; k < c->inflight; k++)
		conn_append(c);
	c->th->st.sent += c->inflight;
	if (c->inflight)
		c->busy_since = now;
	conn_issue(c, now);
}

/* A clean end of a connection (Connection: close, or the server closed
 * between responses): open the next one. */
static void conn_recycle(struct http_conn *c, uint64_t now)
{
	conn_close(c);
	conn_open(c, now);
}

/* One complete response.  Returns 0, or 1 when the connection was
 * replaced (stop reading it). */
static int conn_response(struct http_conn *c, uint64_t now)
{
	struct http_thread *th = c->th;
	const struct http_cfg *cfg = th->cfg;
	uint64_t start;

	if (c->inflight == 0) {
		conn_drop(c, HTTP_E_PARSE, "response without a request", 0,
			  now);
		return 1;
	}
	start = c->starts[c->rhead];
	/* Mean of the last 16 or so: sets the nap (thread_nap). */
	if (now > start)
		th->rtt_avg += ((int64_t)(now - start) -
				(int64_t)th->rtt_avg) / 16;
	c->rhead = c->rhead + 1 == cfg->pipeline ? 0 : c->rhead + 1;
	c->inflight--;
	c->busy_since = now;
	c->responses++;
	/* Answers after -d are awaited (thread_drain), not counted. */
	if (!th->draining) {
		http_run_count_response(th, c->parse.status,
				    now > start ? now - start : 0);
	}
	if (!c->parse.keepalive || !cfg->keepalive) {
		conn_recycle(c, now);
		return 1;
	}
	return 0;
}

static void conn_eof(struct http_conn *c, uint64_t now)
{
	int rc = http_parse_eof(&c->parse);

	if (rc == 1) {
		conn_response(c, now);	/* keepalive is 0: recycles */
		return;
	}
	if (rc < 0) {
		conn_drop(c, HTTP_E_READ, c->parse.error, 0, now);
		return;
	}
	if (c->responses == 0) {
		conn_drop(c, HTTP_E_READ, "server closed the connection before any response", 0, now);
		return;
	}
	conn_recycle(c, now);
}

static void conn_readable(struct http_conn *c, uint32_t ev, uint64_t now)
{
	struct http_thread *th = c->th;
	size_t off, used;
	ssize_t n;
	int rc;

	for (;;) {
		n = read(c->fd, th->rbuf, HTTP_RBUF);
		if (n > 0) {
			th->st.bytes += (uint64_t)n;
			for (off = 0; off < (size_t)n; off += used) {
				rc = http_parse_feed(&c->parse, th->rbuf + off,
						     (size_t)n - off, &used);
				if (rc == 0)
					break;
				if (rc < 0) {
					conn_drop(c, HTTP_E_PARSE,
						  c->parse.error, 0, now);
					return;
				}
				if (conn_response(c, now) != 0)
					return;
			}
			/* A short read drained the socket: edge-triggered
			 * epoll reports the next arrival. */
			if ((size_t)n < HTTP_RBUF &&
			    !(ev & (EPOLLRDHUP | EPOLLHUP | EPOLLERR)))
				break;
			continue;
		}
		if (n == 0) {
			conn_eof(c, now);
			return;
		}
		if (errno == EAGAIN)
			break;
		if (errno == EINTR)
			continue;
		conn_drop(c, HTTP_E_READ, "read", errno, now);
		return;
	}
	conn_issue(c, now);
}

static void conn_event(struct http_conn *c, uint32_t ev, uint64_t now)
{
	int err = 0;
	socklen_t len = sizeof(err);

	if (c->state == C_IDLE)
		return;
	if (c->state == C_CONNECTING) {
		if (ev & (EPOLLERR | EPOLLHUP)) {
			getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &err, &len);
			conn_drop(c, HTTP_E_CONNECT, "connect",
				  err ? err : ECONNREFUSED, now);
			return;
		}
		if (!(ev & EPOLLOUT))
			return;
		c->state = C_OPEN;
		c->th->st.connections++;
		if (conn_flush(c, now) != 0)
			return;
	}
	if (ev & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR)) {
		conn_readable(c, ev, now);
		return;
	}
	if ((ev & EPOLLOUT) && c->woff < c->wlen)
		conn_flush(c, now);
}

/* Every HTTP_SCAN_NS: timeouts and delayed reconnects.  O(connections)
 * but 100 times a second, not per request. */
static void thread_scan(struct http_thread *th, uint64_t now)
{
	uint64_t timeout = th->cfg->timeout;
	struct http_conn *c;
	unsigned i;

	for (i = 0; i < th->nconns; i++) {
		c = &th->conns[i];
		if (c->state == C_IDLE) {
			if (now >= c->retry_at)
				conn_open(c, now);
		} else if (c->state == C_CONNECTING &&
			   now - c->conn_start > timeout) {
			conn_drop(c, HTTP_E_CONNECT, "connect timed out", 0,
				  now);
		} else if (c->inflight && now - c->busy_since > timeout) {
			conn_drop(c, HTTP_E_TIMEOUT, "no response within --timeout", 0, now);
		}
	}
	th->next_scan = now + HTTP_SCAN_NS;
}

/* Waits for events until the absolute time deadline (ns); epoll_pwait2
 * keeps open-loop sends on time, epoll_wait's milliseconds are the
 * fallback on kernels before 5.11. */
static int thread_wait(struct http_thread *th, struct epoll_event *evs,
		       uint64_t now, uint64_t deadline)
{
	static int no_pwait2;
	uint64_t d = deadline > now ? deadline - now : 0;
	struct timespec ts = { (time_t)(d / 1000000000u),
			       (long)(d % 1000000000u) };
	long rc;

	if (!no_pwait2) {
		rc = syscall(SYS_epoll_pwait2, th->epfd, evs, HTTP_MAXEV, &ts,
			     NULL, 0);
		if (rc >= 0 || errno != ENOSYS)
			return (int)rc;
		no_pwait2 = 1;
	}
	return epoll_wait(th->epfd, evs, HTTP_MAXEV,
			  (int)((d + 999999) / 1000000));
}

/* After -d: waits (at most --timeout, and 1 s) for the answers to what was
 * sent, sending nothing new and counting nothing, so that the server has
 * finished every request the record says was sent. */
static void thread_drain(struct http_thread *th, struct epoll_event *evs,
			 uint64_t now)
{
	uint64_t until = now + (th->cfg->timeout < 1000000000ULL ?
				th->cfg->timeout : 1000000000ULL), ticks;
	unsigned i, busy;
	int n;

	th->draining = 1;
	for (;;) {
		for (i = 0, busy = 0; i < th->nconns && !busy; i++)
			busy = th->conns[i].state != C_IDLE &&
			       th->conns[i].inflight;
		if (!busy || now >= until || stop_requested)
			return;
		n = epoll_wait(th->epfd, evs, HTTP_MAXEV,
			       (int)((until - now + 999999) / 1000000));
		now = util_mono_ns();
		for (i = 0; i < (unsigned)(n > 0 ? n : 0); i++) {
			if (evs[i].data.ptr)
				conn_event(evs[i].data.ptr, evs[i].events,
					   now);
			else if (read(th->tfd, &ticks, sizeof(ticks)) < 0)
				(void)0;
		}
	}
}

/* The loop's next wake-up: the end, the next scan, the start of the
 * measured interval or (open loop) the next slot, whichever is first. */
static uint64_t thread_deadline(const struct http_thread *th)
{
	uint64_t deadline = th->end;

	if (th->next_scan < deadline)
		deadline = th->next_scan;
	if (!th->measuring && th->measure_start < deadline)
		deadline = th->measure_start;
	if (th->cfg->rate && lg_pace_next(&th->pace) < deadline)
		deadline = lg_pace_next(&th->pace);
	return deadline;
}

/* How long a closed-loop thread naps before it waits (ns), 0: not at
 * all.  Why: a thread faster than the server sleeps in epoll_wait after
 * almost every answer, and each answer then costs the *server's* CPU a
 * wake-up of the client (on loopback the sender runs the receiver's TCP
 * input and wake-up; an IPI, dear in a VM): nginx spent 7.1 us per
 * request under the old loop, 6.5-6.8 under wrk, whose two epoll_ctl per
 * request let answers pile up.  A nap on the thread's own timer lets a
 * quarter of the connections' answers arrive while nobody is waiting for
 * them (no wake-up at all), then takes them in one batch.  The cost: an
 * answer's latency includes up to a nap (1/HTTP_NAP_DIV of the mean).
 * Only taken when no answer is waiting (thread_poll). */
static uint64_t thread_nap(const struct http_thread *th, uint64_t now,
			   uint64_t deadline)
{
	uint64_t nap = th->rtt_avg / HTTP_NAP_DIV;

	if (th->cfg->nobatch || th->nconns < HTTP_NAP_CONNS ||
	    nap < HTTP_NAP_MIN_NS || th->draining)
		return 0;
	if (nap > HTTP_NAP_MAX_NS)
		nap = HTTP_NAP_MAX_NS;
	return now + nap < deadline ? nap : 0;
}

/* Waits for events until deadline; returns their number (or -1). */
static int thread_poll(struct http_thread *th, struct epoll_event *evs,
		       uint64_t now, uint64_t deadline)
{
	uint64_t nap;
	int n;

	if (th->cfg->rate)
		return thread_wait(th, evs, now, deadline);
	nap = thread_nap(th, now, deadline);
	if (nap) {
		struct timespec ts = { 0, (long)nap };

		/* Answers already waiting (we were slower than the server,
		 * or a busy machine kept us off the CPU): take them now, a
		 * nap would only add idle time to the delay. */
		n = epoll_wait(th->epfd, evs, HTTP_MAXEV, 0);
		if (n != 0)
			return n;
		nanosleep(&ts, NULL);
		th->st.naps++;
		n = epoll_wait(th->epfd, evs, HTTP_MAXEV, 0);
		if (n != 0)
			return n;
	}
	/* A timerfd set once per deadline rather than an epoll timeout: no
	 * hrtimer armed and cancelled on every wait, which is dear in a
	 * VM. */
	if (deadline != th->armed) {
		struct itimerspec it = { .it_value = {
			(time_t)(deadline / 1000000000u),
			(long)(deadline % 1000000000u) } };

		timerfd_settime(th->tfd, TFD_TIMER_ABSTIME, &it, NULL);
		th->armed = deadline;
	}
	return epoll_wait(th->epfd, evs, HTTP_MAXEV, -1);
}

/* After the loop: what was queued on a connection that never opened was
 * not sent; the answers to the rest are awaited, then every socket
 * closed. */
static void thread_finish(struct http_thread *th, struct epoll_event *evs,
			  uint64_t now)
{
	unsigned i;

	th->stopped_at = now;
	getrusage(RUSAGE_THREAD, &th->ru1);
	for (i = 0; i < th->nconns; i++) {
		if (th->conns[i].state == C_CONNECTING) {
			th->st.sent -= th->conns[i].inflight;
			conn_close(&th->conns[i]);
		}
	}
	if (!stop_requested) {
		struct http_stats final = th->st;

		thread_drain(th, evs, now);
		th->st = final;
	}
	for (i = 0; i < th->nconns; i++)
		conn_close(&th->conns[i]);
}

static void *thread_main(void *arg)
{
	struct http_thread *th = arg;
	const struct http_cfg *cfg = th->cfg;
	struct epoll_event evs[HTTP_MAXEV];
	uint64_t now = util_mono_ns(), ticks;
	unsigned i;
	int n;

	/* Naps to the microsecond, not the default 50 us timer slack. */
	prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0);
	if (th->measure_start <= now)
		http_run_begin_measure(th);
	for (i = 0; i < th->nconns; i++)
		conn_open(&th->conns[i], now);
	th->next_scan = now + HTTP_SCAN_NS;
	for (;;) {
		n = thread_poll(th, evs, now, thread_deadline(th));
		/* The one clock read of this batch. */
		now = util_mono_ns();
		if (!th->measuring && now >= th->measure_start)
			http_run_begin_measure(th);
		if (now >= th->end || stop_requested)
			break;
		for (i = 0; i < (unsigned)(n > 0 ? n : 0); i++) {
			if (evs[i].data.ptr)
				conn_event(evs[i].data.ptr, evs[i].events,
					   now);
			else if (read(th->tfd, &ticks, sizeof(ticks)) < 0)
				(void)0;	/* cleared either way */
		}
		if (cfg->rate) {
			while (lg_pace_next(&th->pace) <= now) {
				struct http_conn *c =
					&th->conns[th->pace.k % th->nconns];

				th->pace.k++;
				conn_issue(c, now);
			}
		}
		if (now >= th->next_scan)
			thread_scan(th, now);
	}
	thread_finish(th, evs, now);
	return NULL;
}

/* --- setup and report ----------------------------------------------- */

/* What the command line gives besides cfg. */
struct http_args {
	char *headers[HTTP_MAX_HEADERS];	/* -H lines */
	size_t nheaders;
	const char *urlfile;			/* --urls */
	int argi;				/* first URL operand */
};

/* -H: one more header line (dst: struct http_args). */
static int http_opt_header(void *dst, const char *value, char *err,
			   size_t errlen)
{
	struct http_args *a = dst;

	if (a->nheaders == HTTP_MAX_HEADERS)
		return util_fail(err, errlen, -EINVAL, "more than %d -H options", HTTP_MAX_HEADERS);
	a->headers[a->nheaders++] = (char *)value;
	return 0;
}

/* -m: GET or HEAD (dst: struct http_cfg). */
static int http_opt_method(void *dst, const char *value, char *err,
			   size_t errlen)
{
	struct http_cfg *cfg = dst;

	if (strcmp(value, "GET") && strcmp(value, "HEAD"))
		return util_fail(err, errlen, -EINVAL, "--method '%s': only GET and HEAD", value);
	cfg->method = value;
	cfg->head = strcmp(value, "HEAD") == 0;
	return 0;
}

/* --engine: epoll or curl (dst: cfg->curl); anything else is a bad
 * value. */
static int http_opt_engine(void *dst, const char *value, char *err,
			   size_t errlen)
{
	int *curl = dst;

	if (strcmp(value, "epoll") == 0)
		*curl = 0;
	else if (strcmp(value, "curl") == 0)
		*curl = 1;
	else
		return -EINVAL;
	return 0;
}

/* --label: 1..15 of [A-Za-z0-9_-] (dst: const char *). */
static int http_opt_label(void *dst, const char *value, char *err,
			  size_t errlen)
{
	size_t n = strspn(value, "abcdefghijklmnopqrstuvwxyz"
				 "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-");

	if (n == 0 || n > 15 || value[n])
		return util_fail(err, errlen, -EINVAL, "--label '%s': expected 1 to 15 letters, digits, '-' or '_'", value);
	*(const char **)dst = value;
	return 0;
}

/* The checks between options, once all are read.  Returns 0 or -EINVAL
 * (said on stderr). */
static int http_check_opts(struct http_cfg *cfg, const struct http_args *a,
			   int argc)
{
	if (cfg->conns < cfg->threads)
		return util_err("http", EINVAL, "-c %u is fewer connections than -t %u threads", cfg->conns, cfg->threads);
	cfg->refill_at = cfg->pipeline - 1 - (cfg->pipeline - 1) / 2;
	if (cfg->curl == 1 && cfg->pipeline > 1)
		return util_err("http", EINVAL, "--pipeline needs the epoll engine (libcurl does not pipeline HTTP/1.1)");
	if (!cfg->keepalive && cfg->pipeline > 1)
		return util_err("http", EINVAL, "--pipeline needs keep-alive");
	if (cfg->rate && cfg->rate < cfg->threads)
		return util_err("http", EINVAL, "--rate %llu is below one request/s per thread", (unsigned long long)cfg->rate);
	if (a->argi == argc && !a->urlfile)
		return util_err("http", EINVAL, "no URL (see 'benchboot http --help')");
	return 0;
}

/* Everything the command line sets: the base of http_opts[]. */
struct http_opts {
	struct http_cfg cfg;
	struct http_args a;
};

#define HO(m) OPT_AT(struct http_opts, m)

static const struct opt http_opts[] = {
	LG_OPT_THREADS(HO(cfg.threads), 1024, NULL,
		       .help = "event loops, one thread each", .def = "2",
		       .remote = 1),
	LG_OPT_CONNS(HO(cfg.conns), 1000000, NULL,
		     .help = "connections over all threads", .def = "10",
		     .remote = 1),
	LG_OPT_DURATION(HO(cfg.duration), NULL, .help = "measured interval",
			.def = "10s", .remote = 1),
	{ .name = "header", .key = 'H', .kind = OPT_FN, .off = HO(a),
	  .fn = http_opt_header, .arg = "'N: V'",
	  .help = "add a request header (repeatable)", .remote = 1 },
	{ .name = "method", .key = 'm', .kind = OPT_FN, .off = HO(cfg),
	  .fn = http_opt_method, .arg = "M", .help = "the request method",
	  .values = "GET|HEAD", .def = "GET", .remote = 1 },
	LG_OPT_WARMUP(HO(cfg.warmup), NULL,
		      .help = "load before measuring, not counted",
		      .def = "0", .remote = 1),
	LG_OPT_TIMEOUT(HO(cfg.timeout), 1000000, NULL,
		       .help = "a request unanswered this long fails",
		       .def = "2s", .remote = 1),
	{ .name = "rate", .kind = OPT_U64, .off = HO(cfg.rate),
	  .min = 1, .max = 100000000, .arg = "R",
	  .help = "open loop: R requests/s in total, latency from each "
		  "request's intended send time",
	  .def = "closed loop, as fast as responses come", .remote = 1 },
	{ .name = "pipeline", .kind = OPT_UINT,
	  .off = HO(cfg.pipeline), .min = 1, .max = HTTP_MAX_PIPELINE,
	  .arg = "N", .help = "requests in flight per connection",
	  .def = "1", .remote = 1 },
	{ .name = "no-keepalive", .kind = OPT_FLAG,
	  .off = HO(cfg.keepalive), .val = 0,
	  .help = "a new connection per request", .remote = 1 },
	{ .name = "no-batch", .kind = OPT_FLAG,
	  .off = HO(cfg.nobatch), .val = 1,
	  .help = "closed loop: wait for every answer, no nap between "
		  "batches (latency exact, more CPU)", .remote = 1 },
	{ .name = "urls", .kind = OPT_STR, .off = HO(a.urlfile),
	  .local = "reads a local file", .arg = "FILE",
	  .help = "URLs (or /paths) one per line, added to URL..." },
	{ .name = "seed", .kind = OPT_U64, .off = HO(cfg.seed),
	  .max = UINT64_MAX, .arg = "N",
	  .help = "PRNG seed for choosing among URLs", .def = "1",
	  .remote = 1 },
	LG_OPT_JSON(HO(cfg.json),
		    .help = "print the benchboot.workload/1 record",
		    .remote = 1),
	{ .name = "engine", .kind = OPT_FN, .off = HO(cfg.curl),
	  .fn = http_opt_engine, .arg = "E",
	  .help = "epoll, or curl (libcurl, needed for https://)",
	  .values = "epoll|curl",
	  .def = "epoll for http://, curl for https://", .remote = 1 },
	{ .name = "insecure", .key = 'k', .kind = OPT_FLAG,
	  .off = HO(cfg.insecure), .val = 1,
	  .help = "curl engine: do not verify the TLS peer", .remote = 1 },
	{ .name = "label", .kind = OPT_FN, .off = HO(cfg.label),
	  .fn = http_opt_label, .arg = "NAME",
	  .help = "name this load in the record, so a step's result keeps "
		  "it apart (http:NAME; letters, digits, - _)", .remote = 1 },
};

const struct optset http_optset = { "http", http_opts,
	sizeof(http_opts) / sizeof(http_opts[0]),
	"bad value '%s' in '%s' (see 'benchboot http --help')",
	"[-t N] [-c N] [-d DUR] [options] URL [URL...]",
	"URLs are http://host[:port]/path; a path may hold {A..B} and {a,b}\n"
	"patterns ('http://h/d{00..99}/f{0..9}.html' is 1000 files).  Each\n"
	"request picks one of them uniformly.\n" };

/* Options into ho.  Returns 0 to go on, 1 after --help, -EINVAL on a
 * usage error (said on stderr). */
static int parse_opts(int argc, char **argv, struct http_opts *ho)
{
	int rc;

	rc = opt_main(&http_optset, ho, argc, argv, &ho->a.argi);
	if (rc != 0)
		return rc;
	return http_check_opts(&ho->cfg, &ho->a, argc);
}

static double tv_s(const struct timeval *a, const struct timeval *b)
{
	return (double)(b->tv_sec - a->tv_sec) +
	       (double)(b->tv_usec - a->tv_usec) / 1e6;
}

static const char *fmt_bytes(char *buf, size_t len, double b)
{
	static const char *const units[] = { "B", "KB", "MB", "GB", "TB" };
	unsigned u = 0;

	while (b >= 1000 && u < 4) {
		b /= 1000;
		u++;
	}
	snprintf(buf, len, u ? "%.2f%s" : "%.0f%s", b, units[u]);
	return buf;
}

/* The threads' results summed (st, h), the longest measured interval, the
 * CPU time and the first error. */
struct http_total {
	struct http_stats st;
	struct hist *h;
	double elapsed, user, sys;
	const char *first_err;
};

static void report_merge(const struct http_cfg *cfg,
			 const struct http_thread *ths, struct http_total *tot)
{
	const struct http_thread *th;
	unsigned i;
	double e;

	hist_init(tot->h);
	for (i = 0; i < cfg->threads; i++) {
		th = &ths[i];
		if (!th->measuring)
			continue;
		hist_merge(tot->h, &th->hist);
		lg_sum_u64(&tot->st, &th->st,
			   sizeof(tot->st) / sizeof(uint64_t));
		e = (double)(th->stopped_at - th->measure_start) / 1e9;
		if (e > tot->elapsed)
			tot->elapsed = e;
		tot->user += tv_s(&th->ru0.ru_utime, &th->ru1.ru_utime);
		tot->sys += tv_s(&th->ru0.ru_stime, &th->ru1.ru_stime);
		if (!tot->first_err && th->first_err[0])
			tot->first_err = th->first_err;
	}
}

static void http_report_text(const struct http_cfg *cfg,
			const struct http_total *t)
{
	double elapsed = t->elapsed;
	char b1[32], b2[32];
	unsigned k;

	printf("benchboot http: %.2fs, %u threads, %u connections, %s, %s, pipeline %u\n",
	       elapsed, cfg->threads, cfg->conns,
	       cfg->rate ? "open loop" : "closed loop",
	       cfg->keepalive ? "keep-alive" : "no keep-alive", cfg->pipeline);
	if (cfg->rate)
		printf("  rate        %llu/s asked\n",
		       (unsigned long long)cfg->rate);
	printf("  targets     %u path%s on http://%s\n", cfg->ts.npaths,
	       cfg->ts.npaths == 1 ? "" : "s", cfg->ts.hosthdr);
	lg_print_latency(stdout, t->h);
	printf("  requests    %llu (%.1f/s) correct of %llu responses, %llu sent\n",
	       (unsigned long long)t->st.requests,
	       elapsed > 0 ? (double)t->st.requests / elapsed : 0,
	       (unsigned long long)t->st.responses,
	       (unsigned long long)t->st.sent);
	printf("  read        %s (%s/s)\n",
	       fmt_bytes(b1, sizeof(b1), (double)t->st.bytes),
	       fmt_bytes(b2, sizeof(b2), elapsed > 0 ?
			 (double)t->st.bytes / elapsed : 0));
	printf("  connections %llu opened\n",
	       (unsigned long long)t->st.connections);
	printf("  errors     ");
	for (k = 0; k < HTTP_E_N; k++)
		printf(" %s %llu", http_run_err_names[k],
		       (unsigned long long)t->st.errors[k]);
	printf("\n  cpu         user %.2fs  system %.2fs", t->user, t->sys);
	if (t->st.requests)
		printf("  (%.2f us/request)",
		       (t->user + t->sys) * 1e6 / (double)t->st.requests);
	printf("\n");
	if (t->first_err)
		printf("  first error %s\n", t->first_err);
}

/* The record's params: the run as asked (URL operands argv[argi..]). */
static int report_params(cJSON *rec, const struct http_cfg *cfg,
			 const struct http_args *a, int argc, char **argv)
{
	cJSON *o = cJSON_AddObjectToObject(rec, "params"), *u;
	int ai;

	if (!o)
		return -ENOMEM;
	cJSON_AddNumberToObject(o, "threads", cfg->threads);
	cJSON_AddNumberToObject(o, "connections", cfg->conns);
	cJSON_AddNumberToObject(o, "duration_s", (double)cfg->duration / 1e9);
	cJSON_AddStringToObject(o, "mode", cfg->rate ? "open" : "closed");
	cJSON_AddNumberToObject(o, "rate", (double)cfg->rate);
	u = cJSON_AddArrayToObject(o, "urls");
	for (ai = a->argi; u && ai < argc; ai++)
		cJSON_AddItemToArray(u, cJSON_CreateString(argv[ai]));
	if (a->urlfile)
		cJSON_AddStringToObject(o, "urls_file", a->urlfile);
	cJSON_AddNumberToObject(o, "paths", cfg->ts.npaths);
	cJSON_AddStringToObject(o, "method", cfg->method);
	cJSON_AddStringToObject(o, "engine", cfg->curl ? "curl" : "epoll");
	cJSON_AddBoolToObject(o, "keepalive", cfg->keepalive);
	cJSON_AddBoolToObject(o, "batch", !cfg->nobatch);
	cJSON_AddNumberToObject(o, "pipeline", cfg->pipeline);
	cJSON_AddNumberToObject(o, "warmup_s", (double)cfg->warmup / 1e9);
	cJSON_AddNumberToObject(o, "timeout_s", (double)cfg->timeout / 1e9);
	cJSON_AddNumberToObject(o, "seed", (double)cfg->seed);
	return 0;
}

/* The record's counters, errors, first error and latency. */
static int report_results(cJSON *rec, const struct http_total *t)
{
	cJSON *o = cJSON_AddObjectToObject(rec, "counters");
	unsigned k;

	if (!o)
		return -ENOMEM;
	cJSON_AddNumberToObject(o, "requests", (double)t->st.requests);
	cJSON_AddNumberToObject(o, "responses", (double)t->st.responses);
	cJSON_AddNumberToObject(o, "sent", (double)t->st.sent);
	cJSON_AddNumberToObject(o, "bytes", (double)t->st.bytes);
	cJSON_AddNumberToObject(o, "connections", (double)t->st.connections);
	cJSON_AddNumberToObject(o, "naps", (double)t->st.naps);
	cJSON_AddNumberToObject(o, "cpu_user_s", t->user);
	cJSON_AddNumberToObject(o, "cpu_system_s", t->sys);
	o = cJSON_AddObjectToObject(rec, "errors");
	if (!o)
		return -ENOMEM;
	for (k = 0; k < HTTP_E_N; k++)
		cJSON_AddNumberToObject(o, http_run_err_names[k],
					(double)t->st.errors[k]);
	if (t->first_err)
		cJSON_AddStringToObject(rec, "first_error", t->first_err);
	o = hist_to_json(t->h);
	if (!o)
		return -ENOMEM;
	cJSON_AddItemToObject(rec, "latency", o);
	return 0;
}

static int report(const struct http_cfg *cfg, struct http_thread *ths,
		  const struct http_args *a, int argc, char **argv,
		  uint64_t real0, uint64_t t0)
{
	static struct hist h;	/* ~26 KB: not on the stack */
	struct http_total t = { .h = &h };
	cJSON *rec;

	report_merge(cfg, ths, &t);
	if (!cfg->json) {
		http_report_text(cfg, &t);
		return 0;
	}
	rec = lg_record_new("http", real0 + (ths[0].measure_start - t0),
			    ths[0].measure_start, t.elapsed);
	if (!rec)
		return -ENOMEM;
	if (cfg->label)
		cJSON_AddStringToObject(rec, "label", cfg->label);
	if (report_params(rec, cfg, a, argc, argv) != 0 ||
	    report_results(rec, &t) != 0) {
		cJSON_Delete(rec);
		return -ENOMEM;
	}
	return lg_record_print(rec);
}

/* Thread i's clocks, schedule, epoll and timerfd. */
static int setup_thread(struct http_cfg *cfg, struct http_thread *th,
			unsigned i)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = NULL };

	th->cfg = cfg;
	th->id = i;
	th->nconns = (unsigned)lg_share(cfg->conns, cfg->threads, i);
	th->epfd = epoll_create1(EPOLL_CLOEXEC);
	th->tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (th->epfd >= 0 && th->tfd >= 0 &&
	    epoll_ctl(th->epfd, EPOLL_CTL_ADD, th->tfd, &ev) != 0)
		return -errno;
	th->rbuf = malloc(HTTP_RBUF);
	th->conns = calloc(th->nconns, sizeof(*th->conns));
	if (th->epfd < 0 || th->tfd < 0 || !th->rbuf || !th->conns)
		return -ENOMEM;
	return 0;
}

/* The run's clock, once the start has come (t0): each thread's window
 * and, open loop, its schedule. */
static void time_threads(const struct http_cfg *cfg, struct http_thread *ths,
			 uint64_t t0)
{
	uint64_t rate_t;
	double interval;
	unsigned i;

	for (i = 0; i < cfg->threads; i++) {
		rate_t = cfg->rate ? lg_share(cfg->rate, cfg->threads, i) : 0;
		interval = rate_t ? 1e9 / (double)rate_t : 0;
		ths[i].measure_start = t0 + cfg->warmup;
		ths[i].end = ths[i].measure_start + cfg->duration;
		/* Threads' schedules interleave instead of firing
		 * together. */
		lg_pace_init(&ths[i].pace,
			     t0 + (uint64_t)(interval * i / cfg->threads),
			     (double)rate_t);
	}
}

/* Per-thread and per-connection memory, all allocated before the
 * prepare phase. */
static int setup_threads(struct http_cfg *cfg, struct http_thread *ths)
{
	uint32_t wcap = 2 * cfg->pipeline * cfg->ts.maxlen;
	unsigned i, k, base = 0;
	int rc;

	for (i = 0; i < cfg->threads; i++) {
		struct http_thread *th = &ths[i];

		rc = setup_thread(cfg, th, i);
		if (rc != 0)
			return rc;
		for (k = 0; k < th->nconns; k++) {
			struct http_conn *c = &th->conns[k];

			c->fd = -1;
			c->th = th;
			c->next_j = k;
			c->rng = cfg->seed * 0x9e3779b97f4a7c15ULL +
				 (base + k + 1) * 0xbf58476d1ce4e5b9ULL;
			if (!c->rng)
				c->rng = 1;
			c->wcap = wcap;
			c->wbuf = malloc(wcap);
			c->starts = calloc(cfg->pipeline, sizeof(*c->starts));
			if (!c->wbuf || !c->starts)
				return -ENOMEM;
		}
		base += th->nconns;
	}
	return 0;
}

/* The prepare phase (started by an agent, the socket engine): opens
 * cfg->conns connections into fds[] within the gate's budget and the
 * connect timeout, so the window starts with them open on every client,
 * as sql's (docs/protocol.md).  One that fails or is not up in time is -1
 * and is opened at the start instead, counted there as any connect. */
static void http_preconnect(const struct http_cfg *cfg, int *fds)
{
	lg_prepare_conns((const struct sockaddr *)&cfg->ts.addr,
			 cfg->ts.addrlen, fds, cfg->conns, cfg->timeout, NULL,
			 NULL);
}

/* Hands the prepared fds (http_preconnect) to the connections in order. */
static void http_adopt(struct http_cfg *cfg, struct http_thread *ths,
		       const int *fds)
{
	unsigned i, k, n = 0;

	for (i = 0; i < cfg->threads; i++)
		for (k = 0; k < ths[i].nconns; k++, n++)
			if (fds[n] >= 0) {
				ths[i].conns[k].fd = fds[n];
				ths[i].conns[k].pre = 1;
			}
}

static void free_threads(struct http_cfg *cfg, struct http_thread *ths)
{
	unsigned i, k;

	for (i = 0; i < cfg->threads; i++) {
		struct http_thread *th = &ths[i];

		for (k = 0; th->conns && k < th->nconns; k++) {
			free(th->conns[k].wbuf);
			free(th->conns[k].starts);
		}
		free(th->conns);
		free(th->rbuf);
		if (th->epfd > 0)
			close(th->epfd);
		if (th->tfd > 0)
			close(th->tfd);
		if (cfg->curl)
			http_curl_thread_free(th);
	}
	free(ths);
}

/* The URL operands and --urls into cfg->ts, the requests built, the
 * engine chosen (https is libcurl's).  Returns 0, -EINVAL for a usage
 * error, another negative errno when it cannot run; said on stderr. */
static int http_targets(struct http_cfg *cfg, struct http_args *a,
			int argc, char **argv)
{
	char err[512];
	int i, rc;

	for (i = a->argi; i < argc; i++) {
		rc = http_target_add_url(&cfg->ts, argv[i], err, sizeof(err));
		if (rc != 0)
			return util_err("http", -rc, "%s", err);
	}
	if (a->urlfile) {
		rc = http_target_add_file(&cfg->ts, a->urlfile, err,
					  sizeof(err));
		if (rc != 0) {
			util_err("http", -rc, "--urls %s", err);
			return -EINVAL;
		}
	}
	rc = http_target_build(&cfg->ts, cfg->method, !cfg->keepalive,
			       a->headers, a->nheaders, err, sizeof(err));
	if (rc != 0)
		return util_err("http", -rc, "%s", err);
	/* -1: --engine not given. */
	if (strcmp(cfg->ts.scheme, "https") == 0) {
		if (cfg->curl == 0)
			return util_err("http", EINVAL, "https:// needs --engine=curl");
		cfg->curl = 1;
	}
	if (cfg->curl < 0)
		cfg->curl = 0;
	if (cfg->curl && cfg->pipeline > 1)
		return util_err("http", EINVAL, "--pipeline needs the epoll engine (libcurl does not pipeline HTTP/1.1)");
	cfg->headers = a->headers;
	cfg->nheaders = a->nheaders;
	return 0;
}

/* Sets up, runs and joins the threads, then reports.  Returns 0 or a
 * negative errno (said on stderr). */
static int http_run(struct http_cfg *cfg, const struct http_args *a,
		    int argc, char **argv)
{
	struct lg_threads lt = { 0 };
	struct http_thread *ths;
	uint64_t t0, real0;
	int rc, *pre = NULL;

	signal(SIGPIPE, SIG_IGN);
	stop_on_signals();
	stop_requested = 0;
	ths = calloc(cfg->threads, sizeof(*ths));
	if (!ths)
		return util_err("http", ENOMEM, "no memory for %u threads", cfg->threads);
	rc = setup_threads(cfg, ths);
	if (rc != 0) {
		util_err("http", -rc, "cannot set up %u connections", cfg->conns);
		lg_gate(0);
		goto out;
	}
	/* Started by an agent: the connections open now, the start is the
	 * controller's, the same on every client (loadgen.h).  libcurl's
	 * are opened by a first request each (TLS included); without
	 * keep-alive every request opens its own, so nothing is prepared. */
	if (lg_gate_active() && !cfg->curl) {
		pre = malloc(cfg->conns * sizeof(*pre));
		if (pre)
			http_preconnect(cfg, pre);
	} else if (lg_gate_active() && cfg->keepalive) {
		http_curl_prepare(cfg, ths);
	}
	rc = lg_gate(1);
	if (rc != 0) {
		util_err("http", -rc, "prepare gate: %s", lg_gate_strerror(rc));
		goto out;	/* the process ends: pre's fds close */
	}
	t0 = util_mono_ns();
	real0 = util_real_ns();
	time_threads(cfg, ths, t0);
	if (pre)
		http_adopt(cfg, ths, pre);
	rc = lg_threads_start(&lt, ths, sizeof(*ths), cfg->threads,
			      cfg->curl ? http_curl_thread : thread_main);
	if (rc != 0) {
		util_err("http", -rc, "cannot start thread %u", lt.started);
		stop_requested = 1;
	}
	lg_threads_join(&lt);
	if (rc == 0) {
		rc = report(cfg, ths, a, argc, argv, real0, t0);
		if (rc != 0)
			util_err("http", -rc, "cannot print the result");
	}
out:
	free_threads(cfg, ths);
	free(pre);
	return rc;
}

int http_main(int argc, char **argv)
{
	static struct http_opts ho;
	struct http_cfg *cfg = &ho.cfg;
	struct http_args *a = &ho.a;
	char err[512];
	int rc, ret = 1;

	memset(&ho, 0, sizeof(ho));
	cfg->threads = 2;
	cfg->conns = 10;
	cfg->pipeline = 1;
	cfg->duration = 10000000000ULL;
	cfg->timeout = 2000000000ULL;
	cfg->keepalive = 1;
	cfg->seed = 1;
	cfg->method = "GET";
	cfg->curl = -1;
	http_target_init(&cfg->ts);
	rc = parse_opts(argc, argv, &ho);
	if (rc != 0)
		return rc > 0 ? 0 : 2;
	rc = http_targets(cfg, a, argc, argv);
	if (rc != 0) {
		ret = rc == -EINVAL ? 2 : 1;
		goto out;
	}
	if (cfg->curl && http_curl_setup(cfg) != 0) {
		util_err("http", ENOMEM, "cannot set up libcurl");
		goto out;
	}
	rc = http_target_resolve(&cfg->ts, err, sizeof(err));
	if (rc != 0) {
		util_err("http", -rc, "%s", err);
		goto out;
	}
	if (http_run(cfg, a, argc, argv) == 0)
		ret = 0;
out:
	if (cfg->curl > 0)
		http_curl_cleanup(cfg);
	http_target_free(&cfg->ts);
	return ret;
}
