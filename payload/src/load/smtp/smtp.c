/* load/smtp/smtp.c: `benchboot smtp`, an epoll SMTP client: per-thread event
 * loops, each driving its share of the sessions through a small state
 * machine; envelope commands pipelined when the server offers it. */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/hist.h"
#include "lib/hostport.h"
#include "load/loadgen.h"
#include "load/smtp/smtp.h"
#include "load/smtp/smtp_proto.h"
#include "lib/util.h"

#define SMTP_MAX_RCPT 100
/* Reconnect back-off after a failed connect: a dead server must not turn
 * the client into a SYN flood. */
#define SMTP_RETRY_NS 100000000ULL
#define SMTP_TICK_MS 10

static const char *const smtp_err_names[SMTP_E_N] = {
	"connect", "io", "timeout", "reply_4xx", "reply_5xx", "protocol",
};

enum smtp_cstate {
	C_FREE,		/* no connection */
	C_CONNECTING,
	C_GREETING,
	C_EHLO,
	C_HELO,
	C_IDLE,		/* session ready for a message */
	C_ENVELOPE,	/* MAIL, RCPT..., DATA sent, replies pending */
	C_BODY,		/* message sent, final reply pending */
	C_RSET,
	C_QUIT,
};

/* Set up once, then read-only and shared by every thread. */
struct smtp_run {
	struct sockaddr_storage addr;
	socklen_t addrlen;
	/* "MAIL FROM:<..>\r\nRCPT TO:<..>\r\n...DATA\r\n"; command i is
	 * [env_off[i], env_off[i + 1]). */
	char *env;
	size_t env_off[SMTP_MAX_RCPT + 3];
	unsigned ncmds;
	char *msg;		/* wire form, end marker included */
	size_t msglen;
	char ehlo[300], helo[300];
	size_t ehlolen, helolen;
	unsigned threads, conns;
	uint64_t duration_ns, count, timeout_ns;
	double rate;
	int new_session;
	uint64_t start_ns;
};

struct smtp_thr;

/* A thread's counters: uint64_t only, merged with lg_sum_u64(). */
struct smtp_count {
	uint64_t mails, rcpts, bytes, sessions, attempts;
	uint64_t err[SMTP_E_N];
};

struct smtp_conn {
	struct smtp_thr *t;
	int fd;
	int state;
	uint32_t events;	/* registered with epoll */
	struct smtp_reply rp;
	unsigned ext;		/* EHLO extensions of this session */
	unsigned sent, replied;	/* envelope commands */
	unsigned rcpt_ok;
	int failed;		/* class counted for this message, -1 none */
	int in_msg;		/* a message attempt is under way */
	int queued;		/* on the thread's ready stack */
	int pre;		/* fd greeted in the prepare phase */
	uint64_t t_start;	/* intended (or actual) start of the message */
	uint64_t deadline;	/* timeout while waiting for the server */
	uint64_t retry_at;	/* no reconnect before */
	const char *out;	/* unsent output (static buffers only) */
	size_t outlen;
};

struct smtp_thr {
	const struct smtp_run *run;
	int ep;
	struct smtp_conn *conns;
	struct smtp_conn **ready;	/* sessions awaiting a message */
	unsigned nconns, nready;
	struct lg_pace pace;
	uint64_t budget, started;	/* budget: UINT64_MAX with -d */
	uint64_t end_ns;		/* stop starting messages; 0: -n */
	int stopping;
	uint64_t now;
	struct smtp_count n;		/* results */
	uint64_t end_at;
	struct hist lat;
};

static void conn_start_msg(struct smtp_conn *c);

static void conn_want(struct smtp_conn *c, uint32_t ev)
{
	struct epoll_event e = { .events = ev, .data.ptr = c };

	if (c->events == ev)
		return;
	epoll_ctl(c->t->ep, EPOLL_CTL_MOD, c->fd, &e);
	c->events = ev;
}

static void conn_push_ready(struct smtp_conn *c)
{
	if (!c->queued) {
		c->queued = 1;
		c->t->ready[c->t->nready++] = c;
	}
}

/* Counts one error; a failure that follows a reply already counted for
 * this message (a 421 and the close after it) is the same event. */
static void conn_count(struct smtp_conn *c, int cls)
{
	struct smtp_thr *t = c->t;

	if (c->in_msg && c->failed >= 0)
		return;
	t->n.err[cls]++;
	if (c->in_msg)
		c->failed = cls;
	else if (t->started < t->budget && t->end_ns == 0)
		t->started++;	/* -n: a session lost before its message
				 * is a failed attempt, or a dead server
				 * would keep us here forever */
}

/* Ends the connection, counting error class cls (< 0: none).  The slot
 * is offered a new message (new-session mode) or reconnects (reuse) at
 * the next tick, after a back-off when backoff is set. */
static void conn_drop(struct smtp_conn *c, int cls, int backoff)
{
	if (cls >= 0)
		conn_count(c, cls);
	if (c->fd >= 0) {
		close(c->fd);
		c->fd = -1;
	}
	c->state = C_FREE;
	c->events = 0;
	c->out = NULL;
	c->outlen = 0;
	c->in_msg = 0;
	c->retry_at = c->t->now + (backoff ? SMTP_RETRY_NS : 0);
	if (!backoff && c->t->run->new_session && !c->t->stopping)
		conn_push_ready(c);	/* no tick between sessions */
}

/* Closes after an error of class cls (back-off), or orderly (cls < 0). */
static void conn_close(struct smtp_conn *c, int cls)
{
	conn_drop(c, cls, cls >= 0);
}

static void conn_send(struct smtp_conn *c, const char *buf, size_t len)
{
	ssize_t n = send(c->fd, buf, len, MSG_NOSIGNAL);

	c->deadline = c->t->now + c->t->run->timeout_ns;
	if (n == (ssize_t)len) {
		c->out = NULL;
		c->outlen = 0;
		conn_want(c, EPOLLIN);
		return;
	}
	if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK) {
		conn_close(c, SMTP_E_IO);
		return;
	}
	if (n < 0)
		n = 0;
	c->out = buf + n;
	c->outlen = len - (size_t)n;
	conn_want(c, EPOLLIN | EPOLLOUT);
}

static void conn_open(struct smtp_conn *c)
{
	const struct smtp_run *run = c->t->run;
	struct epoll_event e;
	int one = 1, fd;

	fd = socket(run->addr.ss_family, SOCK_STREAM | SOCK_NONBLOCK |
		    SOCK_CLOEXEC, 0);
	if (fd < 0) {
		conn_drop(c, SMTP_E_CONNECT, 1);
		return;
	}
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	c->fd = fd;
	smtp_reply_init(&c->rp);
	c->deadline = c->t->now + run->timeout_ns;
	if (connect(fd, (const struct sockaddr *)&run->addr,
		    run->addrlen) != 0 && errno != EINPROGRESS) {
		conn_close(c, SMTP_E_CONNECT);
		return;
	}
	c->state = C_CONNECTING;
	c->events = EPOLLOUT;
	e.events = EPOLLOUT;
	e.data.ptr = c;
	if (epoll_ctl(c->t->ep, EPOLL_CTL_ADD, fd, &e) != 0)
		conn_close(c, SMTP_E_CONNECT);
}

/* The message attempt is over (delivered or failed): next message, or
 * end the session (new-session mode, or the run is stopping). */
static void conn_msg_end(struct smtp_conn *c)
{
	struct smtp_thr *t = c->t;

	c->in_msg = 0;
	if (t->run->new_session || t->stopping) {
		c->state = C_QUIT;
		conn_send(c, "QUIT\r\n", 6);
		return;
	}
	c->state = C_IDLE;
	conn_push_ready(c);
}

/* Classifies a failing reply and counts it once per message. */
static void conn_reply_fail(struct smtp_conn *c, int code)
{
	conn_count(c, code >= 500 ? SMTP_E_5XX : code >= 400 ? SMTP_E_4XX :
		   SMTP_E_PROTOCOL);
}

static void conn_session_ready(struct smtp_conn *c, unsigned ext)
{
	c->ext = ext;
	c->state = C_IDLE;
	conn_want(c, EPOLLIN);
	if (c->in_msg)		/* new-session mode: its message waits */
		conn_start_msg(c);
	else
		conn_push_ready(c);
}

static void conn_send_cmd(struct smtp_conn *c, unsigned i, unsigned n)
{
	const struct smtp_run *run = c->t->run;

	conn_send(c, run->env + run->env_off[i],
		  run->env_off[i + n] - run->env_off[i]);
	c->sent = i + n;
}

static void conn_envelope_reply(struct smtp_conn *c, int code)
{
	const struct smtp_run *run = c->t->run;
	unsigned idx = c->replied++;

	if (idx == run->ncmds - 1) {		/* DATA */
		if (code == 354) {
			c->state = C_BODY;
			conn_send(c, run->msg, run->msglen);
			return;
		}
		conn_reply_fail(c, code);
	} else if (code / 100 == 2) {
		if (idx > 0)
			c->rcpt_ok++;
	} else {
		conn_reply_fail(c, code);
		if (idx == 0 && !(c->ext & SMTP_EXT_PIPELINING)) {
			c->replied = run->ncmds;	/* MAIL refused */
		}
	}
	if (c->replied < c->sent)
		return;			/* pipelined replies to come */
	if (c->replied < run->ncmds) {
		/* One command at a time; no DATA without a recipient. */
		if (c->replied == run->ncmds - 1 && c->rcpt_ok == 0) {
			c->replied = run->ncmds;
		} else {
			conn_send_cmd(c, c->replied, 1);
			return;
		}
	}
	/* The transaction failed before the message: reset it. */
	c->state = C_RSET;
	conn_send(c, "RSET\r\n", 6);
}

static void conn_reply(struct smtp_conn *c, int code, unsigned ext)
{
	struct smtp_thr *t = c->t;
	const struct smtp_run *run = t->run;

	if (code == 421 && c->state != C_QUIT) {
		/* Service closing: the server hangs up after this. */
		conn_reply_fail(c, code);
		conn_drop(c, -1, 1);
		return;
	}
	switch (c->state) {
	case C_GREETING:
		if (code != 220) {
			conn_reply_fail(c, code);
			conn_drop(c, -1, 1);
			return;
		}
		c->state = C_EHLO;
		conn_send(c, run->ehlo, run->ehlolen);
		return;
	case C_EHLO:
		if (code == 250) {
			conn_session_ready(c, ext);
		} else if (code >= 500) {
			c->state = C_HELO;	/* an RFC 821 server */
			conn_send(c, run->helo, run->helolen);
		} else {
			conn_reply_fail(c, code);
			conn_drop(c, -1, 1);
		}
		return;
	case C_HELO:
		if (code == 250) {
			conn_session_ready(c, 0);
		} else {
			conn_reply_fail(c, code);
			conn_drop(c, -1, 1);
		}
		return;
	case C_ENVELOPE:
		conn_envelope_reply(c, code);
		return;
	case C_BODY:
		if (code / 100 == 2) {
			uint64_t now = util_mono_ns();

			t->n.mails++;
			t->n.rcpts += c->rcpt_ok;
			t->n.bytes += run->msglen;
			hist_record(&t->lat, now > c->t_start ?
				    now - c->t_start : 0);
		} else {
			conn_reply_fail(c, code);
		}
		conn_msg_end(c);
		return;
	case C_RSET:
		if (code / 100 != 2) {
			conn_reply_fail(c, code);
			conn_drop(c, -1, 1);
			return;
		}
		conn_msg_end(c);
		return;
	case C_QUIT:
		conn_close(c, -1);
		return;
	default:
		/* A reply nobody asked for (C_IDLE). */
		conn_close(c, SMTP_E_PROTOCOL);
		return;
	}
}

static void conn_readable(struct smtp_conn *c)
{
	char buf[4096];
	size_t off = 0, used;
	ssize_t n;
	int rc;

	n = recv(c->fd, buf, sizeof(buf), 0);
	if (n < 0) {
		if (errno != EAGAIN && errno != EWOULDBLOCK)
			conn_close(c, SMTP_E_IO);
		return;
	}
	if (n == 0) {
		/* After QUIT a close is the normal end of the session. */
		conn_close(c, c->state == C_QUIT ? -1 : SMTP_E_IO);
		return;
	}
	c->deadline = c->t->now + c->t->run->timeout_ns;
	while (off < (size_t)n && c->fd >= 0) {
		rc = smtp_reply_feed(&c->rp, buf + off, (size_t)n - off,
				     &used);
		if (rc < 0) {
			conn_close(c, SMTP_E_PROTOCOL);
			return;
		}
		off += used;
		if (rc == 1) {
			int code = c->rp.code;
			unsigned ext = c->rp.ext;

			smtp_reply_init(&c->rp);
			conn_reply(c, code, ext);
		}
	}
}

static void conn_writable(struct smtp_conn *c)
{
	struct smtp_thr *t = c->t;

	if (c->state == C_CONNECTING) {
		int err = 0;
		socklen_t len = sizeof(err);

		getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &err, &len);
		if (err) {
			conn_close(c, SMTP_E_CONNECT);
			return;
		}
		t->n.sessions++;
		c->state = C_GREETING;
		c->deadline = t->now + t->run->timeout_ns;
		conn_want(c, EPOLLIN);
		return;
	}
	if (c->outlen)
		conn_send(c, c->out, c->outlen);
	else
		conn_want(c, EPOLLIN);
}

/* Starts the message this slot was given: the envelope on a ready
 * session, or a new session that sends it once it is ready. */
static void conn_start_msg(struct smtp_conn *c)
{
	const struct smtp_run *run = c->t->run;

	if (c->state == C_FREE) {
		conn_open(c);
		return;
	}
	c->state = C_ENVELOPE;
	c->replied = 0;
	c->rcpt_ok = 0;
	if (c->ext & SMTP_EXT_PIPELINING)
		conn_send_cmd(c, 0, run->ncmds);
	else
		conn_send_cmd(c, 0, 1);
}

/* Hands due messages to ready sessions. */
static void thr_dispatch(struct smtp_thr *t)
{
	while (t->nready > 0 && !t->stopping) {
		struct smtp_conn *c = t->ready[t->nready - 1];
		uint64_t t0;

		if (t->started >= t->budget) {
			t->stopping = 1;
			break;
		}
		t0 = lg_pace_take(&t->pace, t->now);
		if (t0 == 0)
			break;
		t->nready--;
		c->queued = 0;
		t->started++;
		t->n.attempts++;
		c->t_start = t0;
		c->failed = -1;
		c->in_msg = 1;
		conn_start_msg(c);
	}
}

/* Every tick: timeouts, reconnects, and the end of the run. */
static void thr_tick(struct smtp_thr *t)
{
	const struct smtp_run *run = t->run;
	unsigned i;

	if (t->end_ns && t->now >= t->end_ns)
		t->stopping = 1;
	if (t->started >= t->budget)
		t->stopping = 1;
	for (i = 0; i < t->nconns; i++) {
		struct smtp_conn *c = &t->conns[i];

		if (c->state != C_FREE && c->state != C_IDLE &&
		    t->now >= c->deadline) {
			conn_close(c, SMTP_E_TIMEOUT);
		} else if (t->stopping) {
			if (c->state == C_IDLE) {
				c->state = C_QUIT;
				conn_send(c, "QUIT\r\n", 6);
			} else if (!c->in_msg && c->state != C_FREE &&
				   c->state != C_QUIT) {
				conn_close(c, -1);	/* session setup */
			}
		} else if (c->state == C_FREE && t->now >= c->retry_at) {
			if (run->new_session)
				conn_push_ready(c);
			else
				conn_open(c);
		}
	}
}

/* The sessions greeted in the prepare phase (smtp_preopen) go straight
 * to their first message; one the server closed while it waited for the
 * start (a 421, EOF) is closed, uncounted, and its slot opens a new
 * session at the first tick, counted as any.  Sessions are counted when
 * used, so the figure means what it always has. */
static void thr_adopt(struct smtp_thr *t)
{
	struct epoll_event e = { .events = EPOLLIN };
	unsigned i;
	char b;

	for (i = 0; i < t->nconns; i++) {
		struct smtp_conn *c = &t->conns[i];

		if (!c->pre)
			continue;
		c->pre = 0;
		e.data.ptr = c;
		if (recv(c->fd, &b, 1, MSG_PEEK | MSG_DONTWAIT) < 0 &&
		    errno == EAGAIN &&
		    epoll_ctl(t->ep, EPOLL_CTL_ADD, c->fd, &e) == 0) {
			c->events = EPOLLIN;
			c->state = C_IDLE;
			smtp_reply_init(&c->rp);
			t->n.sessions++;
			conn_push_ready(c);
			continue;
		}
		close(c->fd);
		c->fd = -1;
	}
}

static int thr_busy(const struct smtp_thr *t)
{
	unsigned i;

	for (i = 0; i < t->nconns; i++)
		if (t->conns[i].state != C_FREE)
			return 1;
	return 0;
}

static void *thr_main(void *arg)
{
	struct smtp_thr *t = arg;
	struct epoll_event evs[256];
	uint64_t next_tick = 0;
	int n, i, wait_ms;

	t->now = util_mono_ns();
	thr_adopt(t);
	/* Open every session (reuse) or offer every slot (new-session). */
	thr_tick(t);
	for (;;) {
		if (t->now >= next_tick) {
			thr_tick(t);
			next_tick = t->now + SMTP_TICK_MS * 1000000ULL;
		}
		thr_dispatch(t);
		if (t->stopping && !thr_busy(t))
			break;
		wait_ms = SMTP_TICK_MS;
		if (t->nready > 0 && !t->stopping)
			wait_ms = lg_pace_wait_ms(&t->pace, t->now,
						  SMTP_TICK_MS);
		n = epoll_wait(t->ep, evs, 256, wait_ms);
		t->now = util_mono_ns();
		for (i = 0; i < n; i++) {
			struct smtp_conn *c = evs[i].data.ptr;

			if (c->fd < 0)
				continue;	/* closed in this batch */
			if (evs[i].events & (EPOLLOUT | EPOLLERR) &&
			    (c->state == C_CONNECTING || c->outlen)) {
				conn_writable(c);
				if (c->fd < 0)
					continue;
			}
			if (evs[i].events & (EPOLLIN | EPOLLHUP | EPOLLERR))
				conn_readable(c);
		}
		/* Hard stop: in-flight messages get one timeout to finish. */
		if (t->stopping && t->end_ns &&
		    t->now > t->end_ns + t->run->timeout_ns) {
			for (i = 0; i < (int)t->nconns; i++)
				if (t->conns[i].state != C_FREE)
					conn_close(&t->conns[i],
						   t->conns[i].in_msg ?
						   SMTP_E_TIMEOUT : -1);
		}
	}
	t->end_at = util_mono_ns();
	return NULL;
}

/* The envelope, once: MAIL FROM, one RCPT TO per recipient, DATA. */
static int smtp_build_envelope(struct smtp_run *run, const char *from,
			       const char *to)
{
	size_t cap = strlen(from) + 16 + (strlen(to) + 1) * 16 + 16, n;
	const char *p = to;
	char *e = malloc(cap + SMTP_MAX_RCPT * 16);

	if (!e)
		return -ENOMEM;
	run->ncmds = 0;
	run->env_off[run->ncmds++] = 0;
	n = (size_t)sprintf(e, "MAIL FROM:<%s>\r\n", from);
	while (*p) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);

		if (len == 0 || run->ncmds > SMTP_MAX_RCPT ||
		    memchr(p, '<', len) || memchr(p, '>', len) ||
		    memchr(p, ' ', len)) {
			free(e);
			return -EINVAL;
		}
		run->env_off[run->ncmds++] = n;
		n += (size_t)sprintf(e + n, "RCPT TO:<%.*s>\r\n", (int)len, p);
		p += len + (comma ? 1 : 0);
		if (comma && !*p) {
			free(e);
			return -EINVAL;
		}
	}
	if (run->ncmds < 2) {
		free(e);
		return -EINVAL;
	}
	run->env_off[run->ncmds++] = n;
	n += (size_t)sprintf(e + n, "DATA\r\n");
	run->env_off[run->ncmds] = n;
	run->env = e;
	return 0;
}

static int smtp_load_message(struct smtp_run *run, const char *path)
{
	struct stat st;
	char *raw;
	int fd, rc;
	ssize_t n;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return util_err("smtp", errno, "--message %s: %s", path,
				strerror(errno));
	if (fstat(fd, &st) != 0 || st.st_size > 64 * 1024 * 1024) {
		close(fd);
		return util_err("smtp", EFBIG, "--message %s: not a file of at most 64 MB", path);
	}
	raw = malloc((size_t)st.st_size + 1);
	if (!raw) {
		close(fd);
		return -ENOMEM;
	}
	n = read(fd, raw, (size_t)st.st_size);
	close(fd);
	if (n != st.st_size) {
		free(raw);
		return util_err("smtp", EIO, "--message %s: short read",
				path);
	}
	rc = smtp_msg_wire(raw, (size_t)n, &run->msg, &run->msglen);
	free(raw);
	if (rc == -EINVAL)
		return util_err("smtp", EINVAL, "--message %s: NUL byte or bare CR (not valid in SMTP)", path);
	return rc;
}

/* HOST:PORT, [V6]:PORT. */
static int smtp_resolve(struct smtp_run *run, const char *target)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *ai;
	char host[256], ports[8], why[HOSTPORT_ERRLEN];
	unsigned port;
	int rc;

	rc = hostport_parse(target, HOSTPORT_NEED_PORT, 0, host, sizeof(host),
			    &port, why, sizeof(why));
	if (rc != 0)
		return util_err("smtp", EINVAL, "server '%s': %s", target, why);
	snprintf(ports, sizeof(ports), "%u", port);
	rc = getaddrinfo(host, ports, &hints, &ai);
	if (rc != 0)
		return util_err("smtp", EINVAL, "server '%s': %s", target,
				gai_strerror(rc));
	memcpy(&run->addr, ai->ai_addr, ai->ai_addrlen);
	run->addrlen = ai->ai_addrlen;
	freeaddrinfo(ai);
	return 0;
}

/* The command line, as smtp_main() takes it apart. */
struct smtp_args {
	const char *from, *to, *msgfile, *helo, *target;
	int json;
};

static void smtp_report_json(const struct smtp_run *run,
			     const struct smtp_count *tot,
			     const struct hist *h, const struct smtp_args *a,
			     double elapsed, uint64_t real0)
{
	cJSON *rec = lg_record_new("smtp", real0, run->start_ns, elapsed);
	cJSON *p, *cn, *er, *lat;
	unsigned i;

	if (!rec)
		return;
	p = cJSON_AddObjectToObject(rec, "params");
	cJSON_AddNumberToObject(p, "threads", run->threads);
	cJSON_AddNumberToObject(p, "connections", run->conns);
	cJSON_AddNumberToObject(p, "duration_s",
				(double)run->duration_ns / 1e9);
	cJSON_AddNumberToObject(p, "count", (double)run->count);
	cJSON_AddStringToObject(p, "mode", run->rate > 0 ? "open" : "closed");
	cJSON_AddNumberToObject(p, "rate", run->rate);
	cJSON_AddBoolToObject(p, "new_session", run->new_session);
	cJSON_AddStringToObject(p, "server", a->target);
	cJSON_AddStringToObject(p, "from", a->from);
	cJSON_AddStringToObject(p, "to", a->to);
	cJSON_AddNumberToObject(p, "message_bytes", (double)run->msglen);
	cn = cJSON_AddObjectToObject(rec, "counters");
	cJSON_AddNumberToObject(cn, "mails", (double)tot->mails);
	cJSON_AddNumberToObject(cn, "attempts", (double)tot->attempts);
	cJSON_AddNumberToObject(cn, "recipients", (double)tot->rcpts);
	cJSON_AddNumberToObject(cn, "bytes", (double)tot->bytes);
	cJSON_AddNumberToObject(cn, "sessions", (double)tot->sessions);
	er = cJSON_AddObjectToObject(rec, "errors");
	for (i = 0; i < SMTP_E_N; i++)
		cJSON_AddNumberToObject(er, smtp_err_names[i],
					(double)tot->err[i]);
	lat = hist_to_json(h);
	if (lat)
		cJSON_AddItemToObject(rec, "latency", lat);
	lg_record_print(rec);
}

static void smtp_report(const struct smtp_run *run,
			const struct smtp_count *tot, const struct hist *h,
			const struct smtp_args *a, double elapsed,
			uint64_t real0)
{
	unsigned i;

	if (a->json) {
		smtp_report_json(run, tot, h, a, elapsed, real0);
		return;
	}
	printf("smtp %s: %u threads, %u sessions, %.2f s, %s loop, %s\n",
	       a->target, run->threads, run->conns, elapsed,
	       run->rate > 0 ? "open" : "closed",
	       run->new_session ? "new session per message" :
				  "sessions reused");
	printf("  mails       %llu (%.1f/s) of %llu attempts, %llu recipients, %.1f MB, %llu sessions\n",
	       (unsigned long long)tot->mails,
	       elapsed > 0 ? (double)tot->mails / elapsed : 0,
	       (unsigned long long)tot->attempts,
	       (unsigned long long)tot->rcpts, (double)tot->bytes / 1e6,
	       (unsigned long long)tot->sessions);
	lg_print_latency(stdout, h);
	printf("  errors     ");
	for (i = 0; i < SMTP_E_N; i++)
		printf(" %s %llu%s", smtp_err_names[i],
		       (unsigned long long)tot->err[i],
		       i + 1 < SMTP_E_N ? "," : "\n");
}

/* Everything the command line sets: the base of smtp_opts[]. */
struct smtp_cmdline {
	struct smtp_run run;
	struct smtp_args a;
	int have_d;
};

#define SO(m) OPT_AT(struct smtp_cmdline, m)

static const struct opt smtp_opts[] = {
	LG_OPT_THREADS(SO(run.threads), 256, "-t '%s': want a number 1..256",
		       .help = "event-loop threads", .def = "1", .remote = 1),
	LG_OPT_CONNS(SO(run.conns), 100000,
		     "-c '%s': want a number 1..100000", .help = "sessions",
		     .def = "1", .remote = 1),
	{ .name = "duration", .key = 'd', .kind = OPT_DUR,
	  .off = SO(run.duration_ns), .min = 1,
	  .seen = OPT_SEEN(struct smtp_cmdline, have_d),
	  .bad = "-d '%s': want a duration like 10s or 500ms",
	  .arg = "DUR", .help = "run time", .def = "10s", .remote = 1 },
	{ .name = "count", .key = 'n', .kind = OPT_U64,
	  .off = SO(run.count), .min = 1, .max = UINT64_MAX / 2,
	  .bad = "-n '%s': want a message count >= 1", .arg = "COUNT",
	  .help = "send COUNT messages, then stop", .remote = 1 },
	{ .name = "new-session", .kind = OPT_FLAG,
	  .off = SO(run.new_session), .val = 1,
	  .help = "one session per message", .def = "sessions reused",
	  .remote = 1 },
	LG_OPT_RATE_PER_S(SO(run.rate),
			  "--rate '%s': want messages per second > 0",
			  .help = "open loop at R messages/s (latency from the "
				  "intended send time)",
			  .def = "closed loop", .remote = 1),
	{ .name = "message", .kind = OPT_STR, .off = SO(a.msgfile),
	  .local = "reads a local file", .arg = "FILE",
	  .help = "send FILE (LF or CRLF) instead of the benchmark message",
	  .def = "4.9 KB of text and an 8.5 KB base64 attachment" },
	{ .name = "helo", .kind = OPT_STR, .off = SO(a.helo), .arg = "NAME",
	  .help = "the name given in EHLO", .def = "this host's name",
	  .remote = 1 },
	LG_OPT_TIMEOUT(SO(run.timeout_ns), 1,
		       "--timeout '%s': want a duration like 10s or 500ms",
		       .help = "a reply not there this long fails",
		       .def = "10s", .remote = 1),
	{ .name = "from", .kind = OPT_STR, .off = SO(a.from), .arg = "ADDR",
	  .help = "the envelope sender (required)", .remote = 1 },
	{ .name = "to", .kind = OPT_STR, .off = SO(a.to),
	  .arg = "ADDR[,ADDR...]", .help = "the recipients (required)",
	  .remote = 1 },
	LG_OPT_JSON(SO(a.json), .help = "print the benchboot.workload/1 "
		    "record", .remote = 1),
};

const struct optset smtp_optset = OPTSET("smtp", smtp_opts,
	"[-t N] [-c N] [-d DUR | -n COUNT] [options] --from ADDR\n"
	"                      --to ADDR[,ADDR...] HOST:PORT", NULL);

/* Options into cl.  Returns 0 to go on, 1 after --help, -EINVAL on a
 * usage error (said on stderr). */
static int smtp_parse(int argc, char **argv, struct smtp_cmdline *cl)
{
	struct smtp_run *run = &cl->run;
	struct smtp_args *a = &cl->a;
	int argi, rc;

	rc = opt_main(&smtp_optset, cl, argc, argv, &argi);
	if (rc != 0)
		return rc;
	if (argi + 1 != argc || !a->from || !a->to) {
		util_err("smtp", EINVAL, "need --from, --to and one HOST:PORT");
		opt_usage(&smtp_optset, stderr);
		return -EINVAL;
	}
	a->target = argv[argi];
	if (cl->have_d && run->count) {
		util_err("smtp", EINVAL, "-d and -n exclude each other");
		return -EINVAL;
	}
	if (run->conns < run->threads)
		run->threads = run->conns;
	if (run->count)
		run->duration_ns = 0;
	return 0;
}

/* The wire forms: envelope (bad addresses: -EINVAL, a usage error),
 * greetings, message; the server's address.  Returns 0, -EINVAL for a
 * usage error, another negative errno when it cannot run; said on
 * stderr. */
static int smtp_prepare(struct smtp_run *run, const struct smtp_args *a)
{
	const char *helo = a->helo;
	char host[256];
	int rc;

	if (strchr(a->from, '<') || strchr(a->from, '>') ||
	    strchr(a->from, ' '))
		return util_err("smtp", EINVAL, "--from '%s': want a bare address (no <>, no spaces)", a->from);
	if (smtp_build_envelope(run, a->from, a->to) != 0)
		return util_err("smtp", EINVAL, "--to '%s': want 1..%d comma-separated bare addresses", a->to, SMTP_MAX_RCPT);
	if (!helo) {
		/* A host without a name greets with a reserved one. */
		util_hostname(host, sizeof(host));
		if (strcmp(host, "unknown") == 0)
			strcpy(host, "benchboot.invalid");
		helo = host;
	}
	if (strlen(helo) > 255 || strpbrk(helo, " \r\n")) {
		util_err("smtp", EINVAL, "--helo '%s': want one name", helo);
		return -EIO;	/* exit 1, as it always has */
	}
	run->ehlolen = (size_t)sprintf(run->ehlo, "EHLO %s\r\n", helo);
	run->helolen = (size_t)sprintf(run->helo, "HELO %s\r\n", helo);
	if (a->msgfile)
		rc = smtp_load_message(run, a->msgfile);
	else
		rc = smtp_msg_default(a->from, a->to, &run->msg,
				      &run->msglen);
	if (rc == 0)
		rc = smtp_resolve(run, a->target);
	return rc == -EINVAL ? -EIO : rc;
}

/* Thread i's state: its share of the sessions, the count and the rate. */
static int smtp_thr_setup(const struct smtp_run *run, struct smtp_thr *t,
			  unsigned i)
{
	unsigned j;

	t->run = run;
	t->ep = -1;
	hist_init(&t->lat);
	t->nconns = (unsigned)lg_share(run->conns, run->threads, i);
	t->conns = calloc(t->nconns, sizeof(*t->conns));
	t->ready = calloc(t->nconns, sizeof(*t->ready));
	t->ep = epoll_create1(EPOLL_CLOEXEC);
	if (!t->conns || !t->ready || t->ep < 0)
		return util_err("smtp", ENOMEM, "thread %u setup failed", i);
	for (j = 0; j < t->nconns; j++) {
		t->conns[j].t = t;
		t->conns[j].fd = -1;
	}
	lg_pace_init(&t->pace, run->start_ns, run->rate / run->threads);
	t->budget = run->count ? lg_share(run->count, run->threads, i)
			       : UINT64_MAX;
	t->end_ns = run->count ? 0 : run->start_ns + run->duration_ns;
	return 0;
}

/* A session of the prepare phase, once connected: greeted, EHLO'd. */
struct smtp_pre {
	int state;		/* C_GREETING, C_EHLO, C_HELO, then C_IDLE */
	unsigned ext;
	struct smtp_reply rp;
};

/* The sessions of the prepare phase (smtp_preopen). */
struct smtp_pre_set {
	const struct smtp_run *run;
	struct smtp_pre *pre;
	int *fds;		/* [run->conns]; -1: opened at the start */
};

/* The prepare phase's answer to reply code (ext: its EHLO keywords) on
 * session p (socket fd): the next command, or the end.  Returns 0 to wait
 * for the next reply, 1 when the session is ready, -1 when it failed. */
static int smtp_pre_reply(const struct smtp_run *run, struct smtp_pre *p,
			  int fd, int code, unsigned ext)
{
	const char *cmd = run->helo;
	size_t len = run->helolen;

	if (p->state == C_GREETING && code == 220) {
		p->state = C_EHLO;
		cmd = run->ehlo;
		len = run->ehlolen;
	} else if (p->state == C_EHLO && code >= 500) {
		p->state = C_HELO;	/* an RFC 821 server */
	} else if ((p->state == C_EHLO || p->state == C_HELO) &&
		   code == 250) {
		p->ext = p->state == C_EHLO ? ext : 0;
		p->state = C_IDLE;
		return 1;
	} else {
		return -1;		/* 421, a 4xx or 5xx greeting, ... */
	}
	/* A few hundred bytes into a fresh socket's empty buffer. */
	return send(fd, cmd, len, MSG_NOSIGNAL) == (ssize_t)len ? 0 : -1;
}

/* lg_prepare_conns()'s step: session i's replies, as smtp_pre_reply(). */
static int smtp_pre_step(void *ctx, unsigned i, int fd)
{
	struct smtp_pre_set *set = ctx;
	struct smtp_pre *p = &set->pre[i];
	char buf[2048];
	size_t off = 0, used;
	ssize_t n;
	int rc;

	n = recv(fd, buf, sizeof(buf), 0);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return 0;
	if (n <= 0)
		return -1;
	while (off < (size_t)n) {
		rc = smtp_reply_feed(&p->rp, buf + off, (size_t)n - off,
				     &used);
		off += used;
		if (rc <= 0)
			return rc < 0 ? -1 : 0;
		rc = smtp_pre_reply(set->run, p, fd, p->rp.code, p->rp.ext);
		smtp_reply_init(&p->rp);
		/* Ready with bytes nobody asked for: not a session to use. */
		if (rc != 0)
			return rc == 1 && off < (size_t)n ? -1 : rc;
	}
	return 0;
}

/* The prepare phase (started by an agent): opens run->conns sessions
 * into set->fds and takes each through the greeting and EHLO (or HELO)
 * within --timeout and the gate's budget, so the window starts with
 * every client's sessions ready for MAIL (docs/protocol.md).  One that
 * fails or is not ready in time is -1 and is opened at the start
 * instead, counted there as any session; nothing here is counted.
 * Without memory set->fds stays NULL: every session opens at the start,
 * as run by hand. */
static void smtp_preopen(const struct smtp_run *run, struct smtp_pre_set *set)
{
	unsigned i;

	set->run = run;
	set->fds = malloc(run->conns * sizeof(*set->fds));
	set->pre = calloc(run->conns, sizeof(*set->pre));
	if (!set->fds || !set->pre) {
		free(set->fds);
		free(set->pre);
		set->fds = NULL;
		set->pre = NULL;
		return;
	}
	for (i = 0; i < run->conns; i++) {
		set->pre[i].state = C_GREETING;
		smtp_reply_init(&set->pre[i].rp);
	}
	lg_prepare_conns((const struct sockaddr *)&run->addr, run->addrlen,
			 set->fds, run->conns, run->timeout_ns, smtp_pre_step,
			 set);
}

/* Hands the sessions smtp_preopen() readied to the threads' slots, in
 * order (thr_adopt() takes them up), and frees set. */
static void smtp_pre_adopt(const struct smtp_run *run, struct smtp_thr *thr,
			   struct smtp_pre_set *set)
{
	unsigned i, k, n = 0;

	for (i = 0; thr && i < run->threads; i++)
		for (k = 0; k < thr[i].nconns; k++, n++)
			if (set->fds[n] >= 0) {
				thr[i].conns[k].fd = set->fds[n];
				thr[i].conns[k].ext = set->pre[n].ext;
				thr[i].conns[k].pre = 1;
			}
	free(set->fds);
	free(set->pre);
}

/* Runs the threads and prints the result.  Returns 0 or a negative
 * errno (said on stderr). */
static int smtp_run_threads(struct smtp_run *run, const struct smtp_args *a)
{
	static struct hist lat;	/* ~26 KB: not on the stack */
	struct smtp_count tot = { 0 };
	struct lg_threads lt = { 0 };
	struct smtp_thr *thr;
	struct smtp_pre_set pre = { 0 };
	uint64_t real0, end_at = 0;
	unsigned i;
	int rc = 0;

	thr = calloc(run->threads, sizeof(*thr));
	if (!thr)
		return -ENOMEM;
	/* Started by an agent: the sessions are readied now, the start is
	 * the controller's, the same on every client (loadgen.h). */
	if (lg_gate_active())
		smtp_preopen(run, &pre);
	rc = lg_gate(1);
	if (rc != 0) {
		util_err("smtp", -rc, "prepare gate: %s", lg_gate_strerror(rc));
		free(thr);
		free(pre.fds);	/* the process ends: its fds close */
		free(pre.pre);
		return rc;
	}
	real0 = util_real_ns();
	run->start_ns = util_mono_ns();
	for (i = 0; i < run->threads && rc == 0; i++)
		rc = smtp_thr_setup(run, &thr[i], i);
	if (pre.fds)
		smtp_pre_adopt(run, rc == 0 ? thr : NULL, &pre);
	if (rc == 0) {
		rc = lg_threads_start(&lt, thr, sizeof(*thr), run->threads,
				      thr_main);
		if (rc != 0)
			util_err("smtp", -rc, "cannot start thread %u",
				 lt.started);
		lg_threads_join(&lt);
	}
	hist_init(&lat);
	for (i = 0; i < run->threads; i++) {
		struct smtp_thr *t = &thr[i];

		lg_sum_u64(&tot, &t->n, sizeof(tot) / sizeof(uint64_t));
		hist_merge(&lat, &t->lat);
		if (t->end_at > end_at)
			end_at = t->end_at;
		if (t->ep >= 0)
			close(t->ep);
		free(t->conns);
		free(t->ready);
	}
	if (rc == 0)
		smtp_report(run, &tot, &lat, a,
			    (double)(end_at - run->start_ns) / 1e9, real0);
	free(thr);
	return rc;
}

int smtp_main(int argc, char **argv)
{
	struct smtp_cmdline cl = { .run = { .threads = 1, .conns = 1,
				.duration_ns = 10000000000ULL,
				.timeout_ns = 10000000000ULL } };
	int rc;

	rc = smtp_parse(argc, argv, &cl);
	if (rc != 0)
		return rc > 0 ? 0 : 2;
	rc = smtp_prepare(&cl.run, &cl.a);
	if (rc != 0)
		goto out;
	signal(SIGPIPE, SIG_IGN);
	if (smtp_run_threads(&cl.run, &cl.a) != 0)
		rc = -EIO;
out:
	free(cl.run.env);
	free(cl.run.msg);
	return rc == 0 ? 0 : rc == -EINVAL ? 2 : 1;
}
