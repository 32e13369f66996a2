/* http.c: `benchboot http`, an HTTP/1.1 load generator in the style of
 * wrk/wrk2: one edge-triggered epoll loop per thread, each socket
 * registered once, the next request written as soon as a response is
 * parsed, one clock read per event batch, no allocation while running. */
#include <errno.h>
#include <getopt.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "hist.h"
#include "http.h"
#include "http_parse.h"
#include "http_int.h"
#include "http_target.h"
#include "loadgen.h"
#include "util.h"

#ifndef SYS_epoll_pwait2
#define SYS_epoll_pwait2 441	/* same number on every architecture */
#endif

#define HTTP_RBUF (64 * 1024)	/* per-thread read buffer */
#define HTTP_MAXEV 256		/* events per epoll_wait */
#define HTTP_MAX_PIPELINE 256
#define HTTP_MAX_HEADERS 32

const char *const http_err_names[HTTP_E_N] = {
	"connect", "read", "write", "timeout", "status", "parse",
};

volatile sig_atomic_t http_stop;

static void http_on_signal(int sig)
{
	(void)sig;
	http_stop = 1;
}

/* --- per-connection engine ----------------------------------------- */

void http_note_err(struct http_thread *th, int cls, const char *what,
		   int err)
{
	if (th->first_err[0])
		return;
	snprintf(th->first_err, sizeof(th->first_err), "%s: %s%s%s",
		 http_err_names[cls], what, err ? ": " : "",
		 err ? strerror(err) : "");
}

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
	http_note_err(th, cls, what, err);
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
			if (c->next_j >= th->j)
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
	c->rhead = c->rhead + 1 == cfg->pipeline ? 0 : c->rhead + 1;
	c->inflight--;
	c->busy_since = now;
	c->responses++;
	/* Answers after -d are awaited (thread_drain), not counted. */
	if (!th->draining) {
		hist_record(&th->hist, now > start ? now - start : 0);
		th->st.requests++;
		if (c->parse.status >= 400) {
			th->st.errors[HTTP_E_STATUS]++;
			if (!th->first_err[0])
				snprintf(th->first_err,
					 sizeof(th->first_err),
					 "status: HTTP %d", c->parse.status);
		}
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
		conn_drop(c, HTTP_E_READ, "server closed the connection "
			  "before any response", 0, now);
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
			conn_drop(c, HTTP_E_TIMEOUT, "no response within "
				  "--timeout", 0, now);
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

void http_begin_measure(struct http_thread *th)
{
	memset(&th->st, 0, sizeof(th->st));
	hist_init(&th->hist);
	th->first_err[0] = 0;
	getrusage(RUSAGE_THREAD, &th->ru0);
	th->measuring = 1;
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
		if (!busy || now >= until || http_stop)
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

static void *thread_main(void *arg)
{
	struct http_thread *th = arg;
	const struct http_cfg *cfg = th->cfg;
	struct epoll_event evs[HTTP_MAXEV];
	uint64_t now = util_mono_ns(), deadline;
	unsigned i;
	int n;

	if (th->measure_start <= now)
		http_begin_measure(th);
	for (i = 0; i < th->nconns; i++)
		conn_open(&th->conns[i], now);
	th->next_scan = now + HTTP_SCAN_NS;
	for (;;) {
		deadline = th->end;
		if (th->next_scan < deadline)
			deadline = th->next_scan;
		if (!th->measuring && th->measure_start < deadline)
			deadline = th->measure_start;
		if (cfg->rate && http_slot_time(th, th->j) < deadline)
			deadline = http_slot_time(th, th->j);
		if (cfg->rate) {
			n = thread_wait(th, evs, now, deadline);
		} else {
			/* A timerfd set once per deadline rather than an
			 * epoll timeout: no hrtimer armed and cancelled on
			 * every wait, which is dear in a VM. */
			if (deadline != th->armed) {
				struct itimerspec it = { .it_value = {
					(time_t)(deadline / 1000000000u),
					(long)(deadline % 1000000000u) } };

				timerfd_settime(th->tfd, TFD_TIMER_ABSTIME,
						&it, NULL);
				th->armed = deadline;
			}
			n = epoll_wait(th->epfd, evs, HTTP_MAXEV, -1);
		}
		/* The one clock read of this batch. */
		now = util_mono_ns();
		if (!th->measuring && now >= th->measure_start)
			http_begin_measure(th);
		if (now >= th->end || http_stop)
			break;
		for (i = 0; i < (unsigned)(n > 0 ? n : 0); i++) {
			if (evs[i].data.ptr) {
				conn_event(evs[i].data.ptr, evs[i].events,
					   now);
			} else {
				uint64_t ticks;

				if (read(th->tfd, &ticks, sizeof(ticks)) < 0)
					(void)0;	/* cleared either way */
			}
		}
		if (cfg->rate) {
			while (http_slot_time(th, th->j) <= now) {
				struct http_conn *c =
					&th->conns[th->j % th->nconns];

				th->j++;
				conn_issue(c, now);
			}
		}
		if (now >= th->next_scan)
			thread_scan(th, now);
	}
	th->stopped_at = now;
	getrusage(RUSAGE_THREAD, &th->ru1);
	for (i = 0; i < th->nconns; i++) {
		/* Queued on a connection that never opened: not sent. */
		if (th->conns[i].state == C_CONNECTING) {
			th->st.sent -= th->conns[i].inflight;
			conn_close(&th->conns[i]);
		}
	}
	if (!http_stop) {
		struct http_stats final = th->st;

		thread_drain(th, evs, now);
		th->st = final;
	}
	for (i = 0; i < th->nconns; i++)
		conn_close(&th->conns[i]);
	return NULL;
}

/* --- setup and report ----------------------------------------------- */

static void usage(FILE *out)
{
	fprintf(out,
"usage: benchboot http [-t N] [-c N] [-d DUR] [options] URL [URL...]\n"
"  -t, --threads N       event loops, one thread each (default 2)\n"
"  -c, --connections N   connections over all threads (default 10)\n"
"  -d, --duration DUR    measured interval (default 10s)\n"
"      --warmup DUR      load before measuring, not counted (default 0)\n"
"      --timeout DUR     a request unanswered this long fails (default 2s)\n"
"      --rate R          open loop: R requests/s in total, latency from\n"
"                        each request's intended send time (default:\n"
"                        closed loop, as fast as responses come)\n"
"      --pipeline N      requests in flight per connection (default 1)\n"
"      --no-keepalive    a new connection per request\n"
"  -H, --header 'N: V'   add a request header (repeatable)\n"
"  -m, --method M        GET (default) or HEAD\n"
"      --urls FILE       URLs (or /paths) one per line, added to URL...\n"
"      --seed N          PRNG seed for choosing among URLs (default 1)\n"
"      --json            print the benchboot.workload/1 record\n"
"      --engine E        epoll (default for http://) or curl (libcurl,\n"
"                        needed for https://, chosen for it by default)\n"
"  -k, --insecure        curl engine: do not verify the TLS peer\n"
"URLs are http://host[:port]/path; a path may hold {A..B} and {a,b}\n"
"patterns ('http://h/d{00..99}/f{0..9}.html' is 1000 files).  Each\n"
"request picks one of them uniformly.\n");
}

static int parse_opts(int argc, char **argv, struct http_cfg *cfg,
		      char **headers, size_t *nheaders, const char **urlfile)
{
	enum { O_WARMUP = 256, O_TIMEOUT, O_RATE, O_PIPELINE, O_NOKA,
	       O_URLS, O_SEED, O_JSON, O_ENGINE };
	static const struct option lopts[] = {
		{ "threads", required_argument, NULL, 't' },
		{ "connections", required_argument, NULL, 'c' },
		{ "duration", required_argument, NULL, 'd' },
		{ "header", required_argument, NULL, 'H' },
		{ "method", required_argument, NULL, 'm' },
		{ "warmup", required_argument, NULL, O_WARMUP },
		{ "timeout", required_argument, NULL, O_TIMEOUT },
		{ "rate", required_argument, NULL, O_RATE },
		{ "pipeline", required_argument, NULL, O_PIPELINE },
		{ "no-keepalive", no_argument, NULL, O_NOKA },
		{ "urls", required_argument, NULL, O_URLS },
		{ "seed", required_argument, NULL, O_SEED },
		{ "json", no_argument, NULL, O_JSON },
		{ "engine", required_argument, NULL, O_ENGINE },
		{ "insecure", no_argument, NULL, 'k' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	uint64_t v;
	int o;

	optind = 1;
	while ((o = getopt_long(argc, argv, "t:c:d:H:m:hk", lopts, NULL)) !=
	       -1) {
		switch (o) {
		case 't':
			if (util_parse_u64(optarg, 1, 1024, &v) != 0)
				goto bad;
			cfg->threads = (unsigned)v;
			break;
		case 'c':
			if (util_parse_u64(optarg, 1, 1000000, &v) != 0)
				goto bad;
			cfg->conns = (unsigned)v;
			break;
		case 'd':
			if (util_parse_duration(optarg, &cfg->duration) != 0 ||
			    cfg->duration == 0)
				goto bad;
			break;
		case O_WARMUP:
			if (util_parse_duration(optarg, &cfg->warmup) != 0)
				goto bad;
			break;
		case O_TIMEOUT:
			if (util_parse_duration(optarg, &cfg->timeout) != 0 ||
			    cfg->timeout < 1000000)
				goto bad;
			break;
		case O_RATE:
			if (util_parse_u64(optarg, 1, 100000000, &cfg->rate))
				goto bad;
			break;
		case O_PIPELINE:
			if (util_parse_u64(optarg, 1, HTTP_MAX_PIPELINE, &v))
				goto bad;
			cfg->pipeline = (unsigned)v;
			break;
		case O_NOKA:
			cfg->keepalive = 0;
			break;
		case 'H':
			if (*nheaders == HTTP_MAX_HEADERS) {
				util_err("http", EINVAL, "more than %d -H "
					 "options", HTTP_MAX_HEADERS);
				return -EINVAL;
			}
			headers[(*nheaders)++] = optarg;
			break;
		case 'm':
			if (strcmp(optarg, "GET") && strcmp(optarg, "HEAD")) {
				util_err("http", EINVAL, "--method '%s': only "
					 "GET and HEAD", optarg);
				return -EINVAL;
			}
			cfg->method = optarg;
			cfg->head = strcmp(optarg, "HEAD") == 0;
			break;
		case O_URLS:
			*urlfile = optarg;
			break;
		case O_SEED:
			if (util_parse_u64(optarg, 0, UINT64_MAX, &cfg->seed))
				goto bad;
			break;
		case O_JSON:
			cfg->json = 1;
			break;
		case O_ENGINE:
			if (strcmp(optarg, "epoll") == 0)
				cfg->curl = 0;
			else if (strcmp(optarg, "curl") == 0)
				cfg->curl = 1;
			else
				goto bad;
			break;
		case 'k':
			cfg->insecure = 1;
			break;
		case 'h':
			usage(stdout);
			return 1;
		default:
			usage(stderr);
			return -EINVAL;
		}
	}
	if (cfg->conns < cfg->threads) {
		util_err("http", EINVAL, "-c %u is fewer connections than -t "
			 "%u threads", cfg->conns, cfg->threads);
		return -EINVAL;
	}
	cfg->refill_at = cfg->pipeline - 1 - (cfg->pipeline - 1) / 2;
	if (cfg->curl == 1 && cfg->pipeline > 1) {
		util_err("http", EINVAL, "--pipeline needs the epoll engine "
			 "(libcurl does not pipeline HTTP/1.1)");
		return -EINVAL;
	}
	if (!cfg->keepalive && cfg->pipeline > 1) {
		util_err("http", EINVAL, "--pipeline needs keep-alive");
		return -EINVAL;
	}
	if (cfg->rate && cfg->rate < cfg->threads) {
		util_err("http", EINVAL, "--rate %llu is below one request/s "
			 "per thread", (unsigned long long)cfg->rate);
		return -EINVAL;
	}
	if (optind == argc && !*urlfile) {
		util_err("http", EINVAL, "no URL (see 'benchboot http "
			 "--help')");
		return -EINVAL;
	}
	return 0;
bad:
	util_err("http", EINVAL, "bad value '%s' in '%s' (see 'benchboot "
		 "http --help')", optarg, argv[optind - 1]);
	return -EINVAL;
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

static int report(const struct http_cfg *cfg, struct http_thread *ths,
		  int argc, char **argv, const char *urlfile,
		  uint64_t real0, uint64_t t0)
{
	static struct hist h;	/* ~26 KB: not on the stack */
	struct http_stats st = { 0 };
	double elapsed = 0, user = 0, sys = 0, e;
	const char *first_err = NULL;
	cJSON *rec, *o, *a;
	char b1[32], b2[32];
	unsigned i, k;
	int ai;

	hist_init(&h);
	for (i = 0; i < cfg->threads; i++) {
		struct http_thread *th = &ths[i];

		if (!th->measuring)
			continue;
		hist_merge(&h, &th->hist);
		st.requests += th->st.requests;
		st.sent += th->st.sent;
		st.bytes += th->st.bytes;
		st.connections += th->st.connections;
		for (k = 0; k < HTTP_E_N; k++)
			st.errors[k] += th->st.errors[k];
		e = (double)(th->stopped_at - th->measure_start) / 1e9;
		if (e > elapsed)
			elapsed = e;
		user += tv_s(&th->ru0.ru_utime, &th->ru1.ru_utime);
		sys += tv_s(&th->ru0.ru_stime, &th->ru1.ru_stime);
		if (!first_err && th->first_err[0])
			first_err = th->first_err;
	}
	if (!cfg->json) {
		printf("benchboot http: %.2fs, %u threads, %u connections, "
		       "%s, %s, pipeline %u\n", elapsed, cfg->threads,
		       cfg->conns, cfg->rate ? "open loop" : "closed loop",
		       cfg->keepalive ? "keep-alive" : "no keep-alive",
		       cfg->pipeline);
		if (cfg->rate)
			printf("  rate        %llu/s asked\n",
			       (unsigned long long)cfg->rate);
		printf("  targets     %u path%s on http://%s\n",
		       cfg->ts.npaths, cfg->ts.npaths == 1 ? "" : "s",
		       cfg->ts.hosthdr);
		lg_print_latency(stdout, &h);
		printf("  requests    %llu (%.1f/s), %llu sent\n",
		       (unsigned long long)st.requests,
		       elapsed > 0 ? (double)st.requests / elapsed : 0,
		       (unsigned long long)st.sent);
		printf("  read        %s (%s/s)\n",
		       fmt_bytes(b1, sizeof(b1), (double)st.bytes),
		       fmt_bytes(b2, sizeof(b2), elapsed > 0 ?
				 (double)st.bytes / elapsed : 0));
		printf("  connections %llu opened\n",
		       (unsigned long long)st.connections);
		printf("  errors     ");
		for (k = 0; k < HTTP_E_N; k++)
			printf(" %s %llu", http_err_names[k],
			       (unsigned long long)st.errors[k]);
		printf("\n  cpu         user %.2fs  system %.2fs", user, sys);
		if (st.requests)
			printf("  (%.2f us/request)",
			       (user + sys) * 1e6 / (double)st.requests);
		printf("\n");
		if (first_err)
			printf("  first error %s\n", first_err);
		return 0;
	}
	rec = lg_record_new("http", real0 + (ths[0].measure_start - t0),
			    ths[0].measure_start, elapsed);
	if (!rec)
		return -ENOMEM;
	o = cJSON_AddObjectToObject(rec, "params");
	if (!o)
		goto nomem;
	cJSON_AddNumberToObject(o, "threads", cfg->threads);
	cJSON_AddNumberToObject(o, "connections", cfg->conns);
	cJSON_AddNumberToObject(o, "duration_s", (double)cfg->duration / 1e9);
	cJSON_AddStringToObject(o, "mode", cfg->rate ? "open" : "closed");
	cJSON_AddNumberToObject(o, "rate", (double)cfg->rate);
	a = cJSON_AddArrayToObject(o, "urls");
	for (ai = optind; a && ai < argc; ai++)
		cJSON_AddItemToArray(a, cJSON_CreateString(argv[ai]));
	if (urlfile)
		cJSON_AddStringToObject(o, "urls_file", urlfile);
	cJSON_AddNumberToObject(o, "paths", cfg->ts.npaths);
	cJSON_AddStringToObject(o, "method", cfg->method);
	cJSON_AddStringToObject(o, "engine", cfg->curl ? "curl" : "epoll");
	cJSON_AddBoolToObject(o, "keepalive", cfg->keepalive);
	cJSON_AddNumberToObject(o, "pipeline", cfg->pipeline);
	cJSON_AddNumberToObject(o, "warmup_s", (double)cfg->warmup / 1e9);
	cJSON_AddNumberToObject(o, "timeout_s", (double)cfg->timeout / 1e9);
	cJSON_AddNumberToObject(o, "seed", (double)cfg->seed);
	o = cJSON_AddObjectToObject(rec, "counters");
	if (!o)
		goto nomem;
	cJSON_AddNumberToObject(o, "requests", (double)st.requests);
	cJSON_AddNumberToObject(o, "sent", (double)st.sent);
	cJSON_AddNumberToObject(o, "bytes", (double)st.bytes);
	cJSON_AddNumberToObject(o, "connections", (double)st.connections);
	cJSON_AddNumberToObject(o, "cpu_user_s", user);
	cJSON_AddNumberToObject(o, "cpu_system_s", sys);
	o = cJSON_AddObjectToObject(rec, "errors");
	if (!o)
		goto nomem;
	for (k = 0; k < HTTP_E_N; k++)
		cJSON_AddNumberToObject(o, http_err_names[k],
					(double)st.errors[k]);
	if (first_err)
		cJSON_AddStringToObject(rec, "first_error", first_err);
	o = hist_to_json(&h);
	if (!o)
		goto nomem;
	cJSON_AddItemToObject(rec, "latency", o);
	return lg_record_print(rec);
nomem:
	cJSON_Delete(rec);
	return -ENOMEM;
}

/* Per-thread and per-connection memory, all allocated before the run. */
static int setup_threads(struct http_cfg *cfg, struct http_thread *ths,
			 uint64_t t0)
{
	uint32_t wcap = 2 * cfg->pipeline * cfg->ts.maxlen;
	uint64_t rate_t;
	unsigned i, k, base = 0;

	for (i = 0; i < cfg->threads; i++) {
		struct http_thread *th = &ths[i];

		th->cfg = cfg;
		th->id = i;
		th->nconns = (unsigned)lg_share(cfg->conns, cfg->threads, i);
		th->t0 = t0;
		th->measure_start = t0 + cfg->warmup;
		th->end = th->measure_start + cfg->duration;
		if (cfg->rate) {
			rate_t = lg_share(cfg->rate, cfg->threads, i);
			th->interval = 1e9 / (double)rate_t;
			/* Threads' schedules interleave instead of
			 * firing together. */
			th->t0 += (uint64_t)(th->interval * i / cfg->threads);
		}
		th->epfd = epoll_create1(EPOLL_CLOEXEC);
		th->tfd = timerfd_create(CLOCK_MONOTONIC,
					 TFD_NONBLOCK | TFD_CLOEXEC);
		if (th->epfd >= 0 && th->tfd >= 0) {
			struct epoll_event ev = { .events = EPOLLIN,
						  .data.ptr = NULL };

			if (epoll_ctl(th->epfd, EPOLL_CTL_ADD, th->tfd,
				      &ev) != 0)
				return -errno;
		}
		th->rbuf = malloc(HTTP_RBUF);
		th->conns = calloc(th->nconns, sizeof(*th->conns));
		if (th->epfd < 0 || th->tfd < 0 || !th->rbuf || !th->conns)
			return -ENOMEM;
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
	}
	free(ths);
}

int http_main(int argc, char **argv)
{
	static struct http_cfg cfg;
	char *headers[HTTP_MAX_HEADERS], err[512];
	const char *urlfile = NULL;
	struct http_thread *ths = NULL;
	struct sigaction sa = { .sa_handler = http_on_signal };
	uint64_t t0, real0;
	size_t nheaders = 0;
	unsigned i, started = 0;
	int rc, ret = 1;

	memset(&cfg, 0, sizeof(cfg));
	cfg.threads = 2;
	cfg.conns = 10;
	cfg.pipeline = 1;
	cfg.duration = 10000000000ULL;
	cfg.timeout = 2000000000ULL;
	cfg.keepalive = 1;
	cfg.seed = 1;
	cfg.method = "GET";
	cfg.curl = -1;
	http_target_init(&cfg.ts);
	rc = parse_opts(argc, argv, &cfg, headers, &nheaders, &urlfile);
	if (rc != 0)
		return rc > 0 ? 0 : 2;
	for (i = (unsigned)optind; i < (unsigned)argc; i++) {
		rc = http_target_add_url(&cfg.ts, argv[i], err, sizeof(err));
		if (rc != 0) {
			util_err("http", -rc, "%s", err);
			ret = rc == -EINVAL ? 2 : 1;
			goto out;
		}
	}
	if (urlfile) {
		rc = http_target_add_file(&cfg.ts, urlfile, err, sizeof(err));
		if (rc != 0) {
			util_err("http", -rc, "--urls %s", err);
			ret = 2;
			goto out;
		}
	}
	rc = http_target_build(&cfg.ts, cfg.method, !cfg.keepalive, headers,
			       nheaders, err, sizeof(err));
	if (rc != 0) {
		util_err("http", -rc, "%s", err);
		ret = rc == -EINVAL ? 2 : 1;
		goto out;
	}
	/* https is libcurl's; -1: --engine not given. */
	if (strcmp(cfg.ts.scheme, "https") == 0) {
		if (cfg.curl == 0) {
			util_err("http", EINVAL,
				 "https:// needs --engine=curl");
			ret = 2;
			goto out;
		}
		cfg.curl = 1;
	}
	if (cfg.curl < 0)
		cfg.curl = 0;
	if (cfg.curl && cfg.pipeline > 1) {
		util_err("http", EINVAL, "--pipeline needs the epoll engine "
			 "(libcurl does not pipeline HTTP/1.1)");
		ret = 2;
		goto out;
	}
	cfg.headers = headers;
	cfg.nheaders = nheaders;
	if (cfg.curl && http_curl_setup(&cfg) != 0) {
		util_err("http", ENOMEM, "cannot set up libcurl");
		goto out;
	}
	rc = http_target_resolve(&cfg.ts, err, sizeof(err));
	if (rc != 0) {
		util_err("http", -rc, "%s", err);
		goto out;
	}
	signal(SIGPIPE, SIG_IGN);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	http_stop = 0;
	ths = calloc(cfg.threads, sizeof(*ths));
	if (!ths) {
		util_err("http", ENOMEM, "no memory for %u threads",
			 cfg.threads);
		goto out;
	}
	t0 = util_mono_ns();
	real0 = util_real_ns();
	rc = setup_threads(&cfg, ths, t0);
	if (rc != 0) {
		util_err("http", -rc, "cannot set up %u connections",
			 cfg.conns);
		goto out;
	}
	for (i = 0; i < cfg.threads; i++) {
		rc = pthread_create(&ths[i].tid, NULL, cfg.curl ?
				    http_curl_thread : thread_main, &ths[i]);
		if (rc != 0) {
			util_err("http", rc, "cannot start thread %u", i);
			http_stop = 1;
			break;
		}
		started++;
	}
	for (i = 0; i < started; i++)
		pthread_join(ths[i].tid, NULL);
	if (started == cfg.threads) {
		rc = report(&cfg, ths, argc, argv, urlfile, real0, t0);
		if (rc != 0)
			util_err("http", -rc, "cannot print the result");
		else
			ret = 0;
	}
out:
	if (ths)
		free_threads(&cfg, ths);
	if (cfg.curl > 0)
		http_curl_cleanup(&cfg);
	http_target_free(&cfg.ts);
	return ret;
}
