/* load/smtp/smtp_sink.c: `benchboot smtp-sink`: per-thread epoll loops sharing one
 * listener; commands answered in batches, so pipelining
 * clients get one write per group; DATA scanned with memchr. */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
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
#include "load/smtp/smtp_proto.h"
#include "load/smtp/smtp_sink.h"
#include "lib/util.h"

#define SINK_IN 16384
#define SINK_OUT 4096
#define SINK_MAX_RCPT 1000

struct sink_cfg {
	struct sockaddr_storage addr;
	socklen_t addrlen;
	const char *store;
	char hostname[256];
	int pipelining;
	uint64_t tempfail_every, reject_every;
	unsigned threads;
	/* -d: stop after this long (0: at a signal only); --idle: past it,
	 * go on until this long without a message (counted from the end
	 * at the earliest: a relay's queue draining), at most
	 * SINK_IDLE_MAX_NS more. */
	uint64_t duration_ns, idle_ns;
	int json;	/* --json */
};

#define SINK_IDLE_MAX_NS 60000000000ull

enum { S_CMD, S_DATA, S_CLOSING };

struct sink_conn {
	int fd;
	int state;
	int have_mail;
	unsigned rcpts;
	int store_fd;
	uint64_t msgbytes;
	uint64_t data_start;
	struct smtp_data data;
	size_t inlen, outlen, outoff;
	char path[96];
	char in[SINK_IN];
	char out[SINK_OUT];
};

/* A thread's counters: uint64_t only, merged with lg_sum_u64(). */
struct sink_count {
	uint64_t messages, rcpts, bytes, sessions, tempfailed, rejected;
	uint64_t stored, err_protocol, err_io, err_store;
};

struct sink_thr {
	const struct sink_cfg *cfg;
	unsigned id;
	int ep, lfd;
	uint64_t seq;
	struct sink_count n;	/* results */
	struct hist lat;
	/* Messages so far, read by the main thread for --idle: a word, so
	 * its atomic access is a plain load and store on every ARCH (a
	 * 64-bit one needs libatomic on 32-bit ppc); only its changes
	 * matter, so wrapping is harmless. */
	unsigned long arrived;
};

static volatile int sink_stop;

static void sink_reply(struct sink_conn *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void sink_reply(struct sink_conn *c, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(c->out + c->outlen, SINK_OUT - c->outlen, fmt, ap);
	va_end(ap);
	if (n > 0 && (size_t)n < SINK_OUT - c->outlen)
		c->outlen += (size_t)n;
}

static void sink_close(struct sink_thr *t, struct sink_conn *c)
{
	if (c->store_fd >= 0) {
		close(c->store_fd);
		unlink(c->path);
	}
	close(c->fd);
	free(c);
}

/* Writes pending replies; returns -1 when the connection is gone. */
static int sink_flush(struct sink_thr *t, struct sink_conn *c)
{
	struct epoll_event e = { .data.ptr = c };

	while (c->outoff < c->outlen) {
		ssize_t n = send(c->fd, c->out + c->outoff,
				 c->outlen - c->outoff, MSG_NOSIGNAL);

		if (n < 0) {
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				break;
			t->n.err_io++;
			sink_close(t, c);
			return -1;
		}
		c->outoff += (size_t)n;
	}
	if (c->outoff == c->outlen) {
		c->outoff = c->outlen = 0;
		if (c->state == S_CLOSING) {
			sink_close(t, c);
			return -1;
		}
		e.events = EPOLLIN;
	} else {
		e.events = EPOLLOUT;	/* no reading until written */
	}
	epoll_ctl(t->ep, EPOLL_CTL_MOD, c->fd, &e);
	return 0;
}

static void sink_reset(struct sink_conn *c)
{
	c->have_mail = 0;
	c->rcpts = 0;
}

static void sink_data_begin(struct sink_thr *t, struct sink_conn *c)
{
	c->state = S_DATA;
	c->msgbytes = 0;
	c->data_start = util_mono_ns();
	smtp_data_init(&c->data);
	if (t->cfg->store) {
		snprintf(c->path, sizeof(c->path), "%s/%u.%llu.eml",
			 t->cfg->store, t->id, (unsigned long long)++t->seq);
		c->store_fd = open(c->path, O_WRONLY | O_CREAT | O_TRUNC |
				   O_CLOEXEC, 0644);
		if (c->store_fd < 0)
			t->n.err_store++;
	}
}

static void sink_data_end(struct sink_thr *t, struct sink_conn *c)
{
	int fail = 0;

	c->state = S_CMD;
	t->n.messages++;
	__atomic_store_n(&t->arrived, t->arrived + 1, __ATOMIC_RELAXED);
	if (t->cfg->store) {
		/* Durable before we say so: the 250 is a promise. */
		if (c->store_fd < 0 || fsync(c->store_fd) != 0) {
			fail = 1;
			if (c->store_fd >= 0)
				t->n.err_store++;
		}
		if (c->store_fd >= 0)
			close(c->store_fd);
		c->store_fd = -1;
	}
	if (fail) {
		unlink(c->path);
		t->n.tempfailed++;
		sink_reply(c, "451 4.3.0 cannot store message\r\n");
	} else if (t->cfg->tempfail_every &&
		   t->n.messages % t->cfg->tempfail_every == 0) {
		if (t->cfg->store)
			unlink(c->path);
		t->n.tempfailed++;
		sink_reply(c, "451 4.3.0 temporary failure (as asked)\r\n");
	} else if (t->cfg->reject_every &&
		   t->n.messages % t->cfg->reject_every == 0) {
		if (t->cfg->store)
			unlink(c->path);
		t->n.rejected++;
		sink_reply(c, "554 5.6.0 rejected (as asked)\r\n");
	} else {
		t->n.rcpts += c->rcpts;
		t->n.bytes += c->msgbytes;
		if (t->cfg->store)
			t->n.stored++;
		hist_record(&t->lat, util_mono_ns() - c->data_start);
		sink_reply(c, "250 2.0.0 Ok: queued as %u.%llu\r\n", t->id,
			   (unsigned long long)t->n.messages);
	}
	sink_reset(c);
}

static void sink_command(struct sink_thr *t, struct sink_conn *c,
			 const char *line, size_t len)
{
	const char *arg;
	size_t alen;
	int v = smtp_cmd_parse(line, len, &arg, &alen);

	switch (v) {
	case SMTP_V_EHLO:
		sink_reset(c);
		sink_reply(c, "250-%s\r\n%s250-SIZE 104857600\r\n"
			   "250 8BITMIME\r\n", t->cfg->hostname,
			   t->cfg->pipelining ? "250-PIPELINING\r\n" : "");
		break;
	case SMTP_V_HELO:
		sink_reset(c);
		sink_reply(c, "250 %s\r\n", t->cfg->hostname);
		break;
	case SMTP_V_MAIL:
		if (c->have_mail) {
			sink_reply(c, "503 5.5.1 nested MAIL command\r\n");
			break;
		}
		c->have_mail = 1;
		c->rcpts = 0;
		sink_reply(c, "250 2.1.0 Ok\r\n");
		break;
	case SMTP_V_RCPT:
		if (!c->have_mail) {
			sink_reply(c, "503 5.5.1 need MAIL command\r\n");
		} else if (c->rcpts >= SINK_MAX_RCPT) {
			sink_reply(c, "452 4.5.3 too many recipients\r\n");
		} else {
			c->rcpts++;
			sink_reply(c, "250 2.1.5 Ok\r\n");
		}
		break;
	case SMTP_V_DATA:
		if (!c->have_mail || c->rcpts == 0) {
			sink_reply(c, "503 5.5.1 need RCPT command\r\n");
			break;
		}
		sink_reply(c, "354 End data with <CR><LF>.<CR><LF>\r\n");
		sink_data_begin(t, c);
		break;
	case SMTP_V_RSET:
		sink_reset(c);
		sink_reply(c, "250 2.0.0 Ok\r\n");
		break;
	case SMTP_V_NOOP:
		sink_reply(c, "250 2.0.0 Ok\r\n");
		break;
	case SMTP_V_VRFY:
		sink_reply(c, "252 2.0.0 send some mail, I'll try\r\n");
		break;
	case SMTP_V_QUIT:
		sink_reply(c, "221 2.0.0 Bye\r\n");
		c->state = S_CLOSING;
		break;
	case -EINVAL:
		t->n.err_protocol++;
		sink_reply(c, "501 5.5.4 syntax error\r\n");
		break;
	default:
		t->n.err_protocol++;
		sink_reply(c, "500 5.5.2 command not recognized\r\n");
		break;
	}
}

/* Handles the buffered input: commands (replies batched) and message
 * data.  Stops early when the reply buffer is nearly full; the rest is
 * handled once the replies are written. */
static void sink_process(struct sink_thr *t, struct sink_conn *c)
{
	size_t pos;
	int full;

	do {
		pos = 0;
		full = 0;
		while (pos < c->inlen && c->state != S_CLOSING) {
			if (c->outlen > SINK_OUT - 512) {
				full = 1;
				break;
			}
			if (c->state == S_DATA) {
				size_t out, used;

				used = smtp_data_scan(&c->data, c->in + pos,
						      c->inlen - pos,
						      c->store_fd >= 0, &out);
				if (c->store_fd >= 0 && out > 0 &&
				    write(c->store_fd, c->in + pos, out) !=
				    (ssize_t)out) {
					close(c->store_fd);
					c->store_fd = -1;
					t->n.err_store++;
				}
				c->msgbytes += out;
				pos += used;
				if (c->data.done)
					sink_data_end(t, c);
				else if (used == 0)
					break;	/* undecided dot line */
			} else {
				char *nl = memchr(c->in + pos, '\n',
						  c->inlen - pos);
				size_t len;

				if (!nl) {
					if (c->inlen - pos >= SMTP_LINE_MAX) {
						t->n.err_protocol++;
						sink_reply(c, "500 5.5.2 line too long\r\n");
						c->state = S_CLOSING;
					}
					break;
				}
				len = (size_t)(nl - (c->in + pos));
				if (len > 0 && c->in[pos + len - 1] == '\r')
					len--;
				sink_command(t, c, c->in + pos, len);
				pos = (size_t)(nl - c->in) + 1;
			}
		}
		if (c->state == S_CLOSING)
			pos = c->inlen;
		memmove(c->in, c->in + pos, c->inlen - pos);
		c->inlen -= pos;
		if (c->outlen == 0)
			return;
		if (sink_flush(t, c) != 0)
			return;		/* closed */
	} while (full && c->outlen == 0);
}

static void sink_readable(struct sink_thr *t, struct sink_conn *c)
{
	ssize_t n;

	if (c->inlen < SINK_IN) {
		n = recv(c->fd, c->in + c->inlen, SINK_IN - c->inlen, 0);
		if (n <= 0) {
			if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
				return;
			if (n < 0 || c->state == S_DATA || c->have_mail)
				t->n.err_io++;	/* gone mid-transaction */
			sink_close(t, c);
			return;
		}
		c->inlen += (size_t)n;
	}
	sink_process(t, c);
}

static void sink_accept(struct sink_thr *t)
{
	struct epoll_event e;
	struct sink_conn *c;
	int fd, one = 1;

	while ((fd = accept4(t->lfd, NULL, NULL, SOCK_NONBLOCK |
			     SOCK_CLOEXEC)) >= 0) {
		c = malloc(sizeof(*c));
		if (!c) {
			close(fd);
			continue;
		}
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		memset(c, 0, offsetof(struct sink_conn, in));
		c->fd = fd;
		c->store_fd = -1;
		c->state = S_CMD;
		e.events = EPOLLIN;
		e.data.ptr = c;
		if (epoll_ctl(t->ep, EPOLL_CTL_ADD, fd, &e) != 0) {
			close(fd);
			free(c);
			continue;
		}
		t->n.sessions++;
		sink_reply(c, "220 %s ESMTP benchboot smtp-sink\r\n",
			   t->cfg->hostname);
		sink_flush(t, c);
	}
}

static void *sink_thr_main(void *arg)
{
	struct sink_thr *t = arg;
	struct epoll_event evs[256];
	int n, i;

	while (!sink_stop) {
		n = epoll_wait(t->ep, evs, 256, 100);
		for (i = 0; i < n; i++) {
			struct sink_conn *c = evs[i].data.ptr;

			if (!c) {
				sink_accept(t);
			} else if (evs[i].events & EPOLLOUT) {
				if (sink_flush(t, c) == 0 && c->inlen &&
				    c->outlen == 0)
					sink_process(t, c);
			} else {
				sink_readable(t, c);
			}
		}
	}
	return NULL;
}

/* One listening socket for all threads, in every thread's epoll with
 * EPOLLEXCLUSIVE (one thread woken per connection).  Not SO_REUSEPORT:
 * that would let another process of the same user bind the same port
 * and take part of our connections without an error. */
static int sink_listen(const struct sink_cfg *cfg, int *lfd)
{
	int one = 1;

	*lfd = socket(cfg->addr.ss_family, SOCK_STREAM | SOCK_NONBLOCK |
		      SOCK_CLOEXEC, 0);
	if (*lfd < 0)
		return -errno;
	setsockopt(*lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(*lfd, (const struct sockaddr *)&cfg->addr,
		 cfg->addrlen) != 0 || listen(*lfd, 1024) != 0)
		return -errno;
	return 0;
}

static int sink_thr_init(struct sink_thr *t, int lfd)
{
	struct epoll_event e = { .events = EPOLLIN | EPOLLEXCLUSIVE,
				 .data.ptr = NULL };

	t->lfd = lfd;
	t->ep = epoll_create1(EPOLL_CLOEXEC);
	if (t->ep < 0 || epoll_ctl(t->ep, EPOLL_CTL_ADD, lfd, &e) != 0)
		return -errno;
	return 0;
}

static void sink_report(const struct sink_cfg *cfg,
			const struct sink_count *tot, const struct hist *h,
			const char *listen_on, double elapsed, uint64_t real0,
			uint64_t mono0, int json)
{
	if (json) {
		cJSON *rec = lg_record_new("smtp-sink", real0, mono0, elapsed);
		cJSON *p, *cn, *er, *lat;

		if (!rec)
			return;
		p = cJSON_AddObjectToObject(rec, "params");
		cJSON_AddNumberToObject(p, "threads", cfg->threads);
		cJSON_AddStringToObject(p, "listen", listen_on);
		cJSON_AddBoolToObject(p, "store", cfg->store != NULL);
		cJSON_AddBoolToObject(p, "pipelining", cfg->pipelining);
		cn = cJSON_AddObjectToObject(rec, "counters");
		cJSON_AddNumberToObject(cn, "mails", (double)(tot->messages -
					tot->tempfailed - tot->rejected));
		cJSON_AddNumberToObject(cn, "recipients", (double)tot->rcpts);
		cJSON_AddNumberToObject(cn, "bytes", (double)tot->bytes);
		cJSON_AddNumberToObject(cn, "sessions", (double)tot->sessions);
		cJSON_AddNumberToObject(cn, "tempfailed",
					(double)tot->tempfailed);
		cJSON_AddNumberToObject(cn, "rejected", (double)tot->rejected);
		cJSON_AddNumberToObject(cn, "stored", (double)tot->stored);
		er = cJSON_AddObjectToObject(rec, "errors");
		cJSON_AddNumberToObject(er, "protocol",
					(double)tot->err_protocol);
		cJSON_AddNumberToObject(er, "io", (double)tot->err_io);
		cJSON_AddNumberToObject(er, "store", (double)tot->err_store);
		lat = hist_to_json(h);
		if (lat)
			cJSON_AddItemToObject(rec, "latency", lat);
		lg_record_print(rec);
		return;
	}
	printf("smtp-sink %s: %.2f s, %u threads%s\n", listen_on, elapsed,
	       cfg->threads, cfg->store ? ", storing with fsync" : "");
	printf("  mails       %llu accepted (%llu recipients, %.1f MB), %llu tempfailed, %llu rejected, %llu sessions\n",
	       (unsigned long long)(tot->messages - tot->tempfailed -
				    tot->rejected),
	       (unsigned long long)tot->rcpts, (double)tot->bytes / 1e6,
	       (unsigned long long)tot->tempfailed,
	       (unsigned long long)tot->rejected,
	       (unsigned long long)tot->sessions);
	lg_print_hist(stdout, "data time", h);
	printf("  errors      protocol %llu, io %llu, store %llu\n",
	       (unsigned long long)tot->err_protocol,
	       (unsigned long long)tot->err_io,
	       (unsigned long long)tot->err_store);
}

/* --hostname: one name, no blanks, into the cfg's buffer (dst). */
static int sink_opt_hostname(void *dst, const char *value, char *err,
			     size_t errlen)
{
	struct sink_cfg *cfg = dst;

	if (strlen(value) >= sizeof(cfg->hostname) ||
	    strpbrk(value, " \r\n"))
		return util_fail(err, errlen, -EINVAL, "--hostname '%s': want one name", value);
	strcpy(cfg->hostname, value);
	return 0;
}

#define SC(m) OPT_AT(struct sink_cfg, m)

static const struct opt sink_opts[] = {
	LG_OPT_THREADS(SC(threads), 256, "-t '%s': want 1..256 threads",
		       .help = "event-loop threads", .def = "1", .remote = 1),
	{ .name = "store", .kind = OPT_STR, .off = SC(store),
	  .local = "writes local files", .arg = "DIR",
	  .help = "write each message to DIR, fsync'd before the 250" },
	{ .name = "hostname", .kind = OPT_FN, .off = 0,
	  .fn = sink_opt_hostname, .arg = "NAME",
	  .help = "the name in the greeting and EHLO reply",
	  .def = "benchboot-sink.invalid", .remote = 1 },
	{ .name = "no-pipelining", .kind = OPT_FLAG,
	  .off = SC(pipelining), .val = 0,
	  .help = "do not offer PIPELINING", .remote = 1 },
	{ .name = "tempfail-every", .kind = OPT_U64,
	  .off = SC(tempfail_every), .min = 1, .max = UINT64_MAX,
	  .bad = "--tempfail-every '%s': want a count >= 1", .arg = "N",
	  .help = "answer every Nth message (per thread) with 451",
	  .remote = 1 },
	{ .name = "reject-every", .kind = OPT_U64,
	  .off = SC(reject_every), .min = 1, .max = UINT64_MAX,
	  .bad = "--reject-every '%s': want a count >= 1", .arg = "N",
	  .help = "answer every Nth message (per thread) with 554",
	  .remote = 1 },
	LG_OPT_DURATION(SC(duration_ns),
			"-d '%s': want a duration like 10s or 500ms",
			.help = "accept for this long",
			.def = "until SIGINT or SIGTERM", .remote = 1),
	{ .name = "idle", .kind = OPT_DUR, .off = SC(idle_ns),
	  .min = 1, .bad = "--idle '%s': want a duration like 2s",
	  .arg = "D", .help = "past -d, go on until D passes without a "
	  "message (a relay's queue draining; at most 60 s more)",
	  .remote = 1 },
	LG_OPT_JSON(SC(json), .help = "print the benchboot.workload/1 "
		    "record", .remote = 1),
};

const struct optset smtp_sink_optset = OPTSET("smtp-sink", sink_opts,
	"[-t N] [options] ADDR:PORT",
	"Accepts mail until SIGINT/SIGTERM (or for -d DURATION), then prints\n"
	"what it received.\n");

/* Options into cfg, the listening address into *target.  Returns 0 to go
 * on, 1 after --help, -EINVAL on a usage error (said on stderr). */
static int sink_parse(int argc, char **argv, struct sink_cfg *cfg,
		      const char **target)
{
	int argi, rc;

	rc = opt_main(&smtp_sink_optset, cfg, argc, argv, &argi);
	if (rc != 0)
		return rc;
	if (argi + 1 != argc) {
		opt_usage(&smtp_sink_optset, stderr);
		return -EINVAL;
	}
	*target = argv[argi];
	if (cfg->idle_ns && !cfg->duration_ns)
		return util_err("smtp-sink", EINVAL, "--idle needs -d DURATION");
	return 0;
}

/* ADDR:PORT or [V6]:PORT (ADDR may be empty: every address) into
 * cfg->addr; a store directory that is one.  Returns 0, -EINVAL for a usage error, -ENOTDIR
 * when --store is not a directory; said on stderr. */
static int sink_check(struct sink_cfg *cfg, const char *target)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM,
				  .ai_flags = AI_PASSIVE }, *ai;
	char host[256], ports[8], why[HOSTPORT_ERRLEN];
	struct stat st;
	unsigned port;
	int rc;

	rc = hostport_parse(target, HOSTPORT_NEED_PORT | HOSTPORT_ANY_HOST, 0,
			    host, sizeof(host), &port, why, sizeof(why));
	if (rc != 0)
		return util_err("smtp-sink", EINVAL, "'%s': %s", target, why);
	snprintf(ports, sizeof(ports), "%u", port);
	rc = getaddrinfo(host[0] ? host : NULL, ports, &hints, &ai);
	if (rc != 0)
		return util_err("smtp-sink", EINVAL, "'%s': %s", target,
				gai_strerror(rc));
	memcpy(&cfg->addr, ai->ai_addr, ai->ai_addrlen);
	cfg->addrlen = ai->ai_addrlen;
	freeaddrinfo(ai);
	if (cfg->store && (stat(cfg->store, &st) != 0 ||
			   !S_ISDIR(st.st_mode)))
		return util_err("smtp-sink", ENOTDIR, "--store %s: not a directory", cfg->store);
	if (strlen(cfg->store ? cfg->store : "") > 60)
		return util_err("smtp-sink", EINVAL, "--store %s: path longer than 60 characters", cfg->store);
	return 0;
}

/* Messages received so far over every thread, modulo the word: for
 * telling whether mail still comes. */
static unsigned long sink_arrived(const struct sink_thr *thr, unsigned n)
{
	unsigned long m = 0;
	unsigned i;

	for (i = 0; i < n; i++)
		m += __atomic_load_n(&thr[i].arrived, __ATOMIC_RELAXED);
	return m;
}

/* Waits for SIGINT/SIGTERM (blocked by the caller), or with -d until the
 * duration is over and, with --idle, mail has stopped coming. */
static void sink_wait(const struct sink_cfg *cfg, const struct sink_thr *thr,
		      const sigset_t *set)
{
	uint64_t t0 = util_mono_ns(), end = t0 + cfg->duration_ns;
	/* The quiet time counts from the end at the earliest: a relay's
	 * first mail may leave a slow server's queue only after the
	 * clients' window has closed. */
	uint64_t last_at = end, now;
	unsigned long m, last = 0;
	struct timespec ts = { 0, 100000000 };
	int sig;

	if (!cfg->duration_ns) {
		sigwait(set, &sig);
		return;
	}
	while (sigtimedwait(set, NULL, &ts) < 0) {
		now = util_mono_ns();
		m = sink_arrived(thr, cfg->threads);
		if (m != last) {
			last = m;
			last_at = now > end ? now : end;
		}
		if (now >= end && (!cfg->idle_ns ||
				   now - last_at >= cfg->idle_ns ||
				   now - end >= SINK_IDLE_MAX_NS))
			return;
	}
}

/* Listens, runs the threads until sink_wait() ends, joins them.  Returns 0 after a clean
 * stop, a negative errno otherwise (said on stderr). */
static int sink_serve(const struct sink_cfg *cfg, struct sink_thr *thr,
		      const char *target, const sigset_t *set, int *lfd)
{
	struct lg_threads lt = { 0 };
	unsigned i;
	int rc;

	rc = sink_listen(cfg, lfd);
	if (rc != 0)
		util_err("smtp-sink", -rc, "listen on %s: %s", target,
			 strerror(-rc));
	for (i = 0; i < cfg->threads; i++) {
		thr[i].cfg = cfg;
		thr[i].id = i;
		thr[i].ep = thr[i].lfd = -1;
		hist_init(&thr[i].lat);
		if (rc == 0 && (rc = sink_thr_init(&thr[i], *lfd)) != 0)
			util_err("smtp-sink", -rc, "epoll: %s", strerror(-rc));
	}
	if (rc == 0)
		rc = lg_threads_start(&lt, thr, sizeof(*thr), cfg->threads,
				      sink_thr_main);
	if (rc == 0) {
		fprintf(stderr, "smtp-sink: listening on %s\n", target);
		/* Started by an agent (a relay step's sink): listening while
		 * the clients prepare, so the server's first relayed mail
		 * finds it; -d counts from the start.  A late start still
		 * serves: the sink is not measured load. */
		rc = lg_gate(1);
		if (rc == -ETIME)
			rc = 0;
		if (rc != 0)
			util_err("smtp-sink", -rc, "prepare gate: %s",
				 lg_gate_strerror(rc));
		else
			sink_wait(cfg, thr, set);
	}
	sink_stop = 1;
	lg_threads_join(&lt);
	return rc;
}

int smtp_sink_main(int argc, char **argv)
{
	static struct hist lat;	/* ~26 KB: not on the stack */
	struct sink_cfg cfg = { .threads = 1, .pipelining = 1 };
	struct sink_count tot = { 0 };
	struct sink_thr *thr;
	const char *target;
	uint64_t real0, mono0;
	sigset_t set;
	unsigned i;
	int rc, lfd = -1;

	strcpy(cfg.hostname, "benchboot-sink.invalid");
	rc = sink_parse(argc, argv, &cfg, &target);
	if (rc != 0)
		return rc > 0 ? 0 : 2;
	rc = sink_check(&cfg, target);
	if (rc != 0)
		return rc == -ENOTDIR ? 1 : 2;
	signal(SIGPIPE, SIG_IGN);
	/* Threads inherit the mask; only sigwait() takes them. */
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	thr = calloc(cfg.threads, sizeof(*thr));
	if (!thr)
		return 1;
	real0 = util_real_ns();
	mono0 = util_mono_ns();
	rc = sink_serve(&cfg, thr, target, &set, &lfd);
	hist_init(&lat);
	for (i = 0; i < cfg.threads; i++) {
		lg_sum_u64(&tot, &thr[i].n, sizeof(tot) / sizeof(uint64_t));
		hist_merge(&lat, &thr[i].lat);
		if (thr[i].ep >= 0)
			close(thr[i].ep);
	}
	if (lfd >= 0)
		close(lfd);
	if (rc == 0)
		sink_report(&cfg, &tot, &lat, target,
			    (double)(util_mono_ns() - mono0) / 1e9, real0,
			    mono0, cfg.json);
	free(thr);
	return rc == 0 ? 0 : 1;
}
