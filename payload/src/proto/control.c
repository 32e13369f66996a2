/* proto/control.c: control protocol framing and validation (docs/protocol.md).
 * Everything here treats the peer as untrusted: bounded lines, every field
 * checked before anyone uses it. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "proto/control.h"
#include "lib/hostport.h"
#include "lib/json_int.h"
#include "lib/util.h"

static const char *const control_names[] = {
	[CONTROL_HELLO] = "hello", [CONTROL_WELCOME] = "welcome",
	[CONTROL_TIME_REQ] = "time_req", [CONTROL_TIME_RESP] = "time_resp",
	[CONTROL_RUN] = "run", [CONTROL_RESULT] = "result", [CONTROL_SERIES] = "series",
	[CONTROL_ABORT] = "abort", [CONTROL_DONE] = "done", [CONTROL_AUTH] = "auth",
	[CONTROL_CHALLENGE] = "challenge", [CONTROL_PROOF] = "proof",
	[CONTROL_CLOCK] = "clock",
	[CONTROL_PREPARED] = "prepared", [CONTROL_START] = "start",
	[CONTROL_RELAY] = "relay",
	[CONTROL_RESET] = "reset",
};
#define CONTROL_NTYPES (sizeof(control_names) / sizeof(control_names[0]))

/* Limits on what a run may ask an agent to start. */
#define CONTROL_MAX_PROCS 16
#define CONTROL_MAX_ARGS 256

const char *control_type_name(enum control_type t)
{
	if ((size_t)t < CONTROL_NTYPES && control_names[t])
		return control_names[t];
	return "?";
}

/* An identifier-like string: 1..max bytes of [A-Za-z0-9._:-]. */
static int control_ident_ok(const char *s, size_t max)
{
	size_t n = 0;

	for (; s[n]; n++) {
		char ch = s[n];

		if (n >= max)
			return 0;
		if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
		      (ch >= '0' && ch <= '9') || ch == '.' || ch == '_' ||
		      ch == '-' || ch == ':' || ch == '/'))
			return 0;
	}
	return n > 0;
}

static int control_get_str(const cJSON *o, const char *name, const char **out,
		       size_t max, char *err, size_t errlen)
{
	const cJSON *f = cJSON_GetObjectItemCaseSensitive(o, name);

	if (!cJSON_IsString(f) || !f->valuestring)
		return util_fail(err, errlen, -EINVAL,
				 "field \"%s\": missing or not a string", name);
	if (!control_ident_ok(f->valuestring, max))
		return util_fail(err, errlen, -EINVAL,
				 "field \"%s\": want 1..%zu characters of [A-Za-z0-9._:/-]",
				 name, max);
	*out = f->valuestring;
	return 0;
}

/* An integer within +-2^62 (nanosecond times, counters), read exactly:
 * ns times exceed a double's 2^53 (json_int.h).  The bound keeps the sums
 * and differences of two of them from overflowing. */
static int control_get_int(const cJSON *o, const char *name, int64_t *out,
		       char *err, size_t errlen)
{
	const cJSON *f = cJSON_GetObjectItemCaseSensitive(o, name);
	int rc = json_int_field(o, name, out, err, errlen);

	/* An agent built before exact numbers writes ns times as doubles
	 * (1.79615122659021e+18): taken, rounded, as then, so one lab can
	 * mix both. */
	if (rc == -ERANGE && isfinite(f->valuedouble) &&
	    f->valuedouble == floor(f->valuedouble) &&
	    fabs(f->valuedouble) <= 4.6e18) {
		*out = (int64_t)f->valuedouble;
		rc = 0;
	}
	if (rc != 0)
		return -EINVAL;
	if (*out > (INT64_C(1) << 62) || *out < -(INT64_C(1) << 62))
		return util_fail(err, errlen, -EINVAL,
				 "field \"%s\": out of range", name);
	return 0;
}

static int control_check_procs(const cJSON *procs, char *err, size_t errlen)
{
	const cJSON *p, *a;
	int np = 0, na;

	if (!cJSON_IsArray(procs))
		return util_fail(err, errlen, -EINVAL,
				 "field \"procs\": missing or not an array");
	cJSON_ArrayForEach(p, procs) {
		if (++np > CONTROL_MAX_PROCS)
			return util_fail(err, errlen, -EINVAL,
					 "field \"procs\": more than %d processes",
					 CONTROL_MAX_PROCS);
		if (!cJSON_IsArray(p))
			return util_fail(err, errlen, -EINVAL,
					 "procs[%d]: not an array of strings",
					 np - 1);
		na = 0;
		cJSON_ArrayForEach(a, p) {
			if (++na > CONTROL_MAX_ARGS)
				return util_fail(err, errlen, -EINVAL,
						 "procs[%d]: more than %d arguments",
						 np - 1, CONTROL_MAX_ARGS);
			if (!cJSON_IsString(a) || !a->valuestring)
				return util_fail(err, errlen, -EINVAL,
						 "procs[%d][%d]: not a string",
						 np - 1, na - 1);
		}
		if (na == 0)
			return util_fail(err, errlen, -EINVAL,
					 "procs[%d]: empty argv", np - 1);
	}
	return 0;
}

/* An optional "lab": absent is the default lab "". */
static int control_get_lab(struct control_msg *m, char *err, size_t errlen)
{
	if (!cJSON_GetObjectItemCaseSensitive(m->json, "lab")) {
		m->lab = "";
		return 0;
	}
	return control_get_str(m->json, "lab", &m->lab, 64, err, errlen);
}

/* The roles a hello may announce. */
static const char *const control_roles[] = { "client", "server", "controller" };

static int control_check_hello(struct control_msg *m, char *err, size_t errlen)
{
	const cJSON *o = m->json, *f, *w;
	size_t i;
	int rc;

	rc = control_get_str(o, "id", &m->id, 64, err, errlen);
	if (rc == 0)
		rc = control_get_str(o, "role", &m->role, 16, err, errlen);
	if (rc != 0)
		return rc;
	for (i = 0; i < sizeof(control_roles) / sizeof(control_roles[0]); i++)
		if (strcmp(m->role, control_roles[i]) == 0)
			break;
	if (i == sizeof(control_roles) / sizeof(control_roles[0]))
		return util_fail(err, errlen, -EINVAL,
				 "field \"role\": want client, server or controller");
	f = cJSON_GetObjectItemCaseSensitive(o, "workloads");
	if (f && !cJSON_IsArray(f))
		return util_fail(err, errlen, -EINVAL,
				 "field \"workloads\": not an array");
	cJSON_ArrayForEach(w, f)
		if (!cJSON_IsString(w))
			return util_fail(err, errlen, -EINVAL,
					 "field \"workloads\": not all strings");
	f = cJSON_GetObjectItemCaseSensitive(o, "host");
	if (f && !cJSON_IsObject(f))
		return util_fail(err, errlen, -EINVAL,
				 "field \"host\": not an object");
	return control_get_lab(m, err, errlen);
}

/* time_req carries seq and t1; time_resp t2 and t3 as well. */
static int control_check_time(struct control_msg *m, char *err, size_t errlen)
{
	const cJSON *o = m->json;
	int64_t seq;
	int rc;

	rc = control_get_int(o, "seq", &seq, err, errlen);
	if (rc == 0 && seq < 0)
		rc = util_fail(err, errlen, -EINVAL, "field \"seq\": negative");
	m->seq = (uint64_t)seq;
	if (rc == 0)
		rc = control_get_int(o, "t1", &m->t1, err, errlen);
	if (rc == 0 && m->type == CONTROL_TIME_RESP)
		rc = control_get_int(o, "t2", &m->t2, err, errlen);
	if (rc == 0 && m->type == CONTROL_TIME_RESP)
		rc = control_get_int(o, "t3", &m->t3, err, errlen);
	return rc;
}

static int control_check_run(struct control_msg *m, char *err, size_t errlen)
{
	int rc;

	rc = control_get_str(m->json, "step", &m->step, 200, err, errlen);
	if (rc == 0)
		rc = control_get_int(m->json, "start_at", &m->start_at, err,
				 errlen);
	if (rc != 0)
		return rc;
	m->procs = cJSON_GetObjectItemCaseSensitive(m->json, "procs");
	return control_check_procs(m->procs, err, errlen);
}

static int control_check_result(struct control_msg *m, char *err, size_t errlen)
{
	const cJSON *r;
	int rc;

	rc = control_get_str(m->json, "step", &m->step, 200, err, errlen);
	if (rc != 0)
		return rc;
	m->records = cJSON_GetObjectItemCaseSensitive(m->json, "records");
	if (!cJSON_IsArray(m->records))
		return util_fail(err, errlen, -EINVAL,
				 "field \"records\": missing or not an array");
	cJSON_ArrayForEach(r, m->records)
		if (!cJSON_IsObject(r))
			return util_fail(err, errlen, -EINVAL,
					 "field \"records\": not all objects");
	return 0;
}

static int control_check_series(struct control_msg *m, char *err, size_t errlen)
{
	int rc;

	rc = control_get_str(m->json, "source", &m->source, 16, err, errlen);
	if (rc != 0)
		return rc;
	m->rec = cJSON_GetObjectItemCaseSensitive(m->json, "rec");
	if (!cJSON_IsObject(m->rec))
		return util_fail(err, errlen, -EINVAL,
				 "field \"rec\": missing or not an object");
	return 0;
}

/* A field of exactly n lower-case hex digits. */
static int control_get_hex(const cJSON *o, const char *name, const char **out,
		       size_t n, char *err, size_t errlen)
{
	const cJSON *f = cJSON_GetObjectItemCaseSensitive(o, name);

	if (!cJSON_IsString(f) || strlen(f->valuestring) != n ||
	    strspn(f->valuestring, "0123456789abcdef") != n)
		return util_fail(err, errlen, -EINVAL, "field \"%s\": want %zu hex digits", name, n);
	*out = f->valuestring;
	return 0;
}

/* auth: nonce and lab; challenge: nonce, lab and, from a keyed
 * controller, proof; proof: proof. */
static int control_check_auth(struct control_msg *m, char *err, size_t errlen)
{
	int rc = 0;

	if (m->type != CONTROL_PROOF)
		rc = control_get_hex(m->json, "nonce", &m->nonce, 32, err, errlen);
	if (rc == 0 && m->type != CONTROL_PROOF)
		rc = control_get_lab(m, err, errlen);
	if (rc == 0 && (m->type == CONTROL_PROOF ||
			cJSON_GetObjectItemCaseSensitive(m->json, "proof")))
		rc = control_get_hex(m->json, "proof", &m->proof, 64, err, errlen);
	return rc;
}

static int control_validate(struct control_msg *m, char *err, size_t errlen)
{
	int rc;

	switch (m->type) {
	case CONTROL_HELLO:
		return control_check_hello(m, err, errlen);
	case CONTROL_WELCOME:
		return control_get_str(m->json, "controller", &m->id, 64, err,
				   errlen);
	case CONTROL_TIME_REQ:
	case CONTROL_TIME_RESP:
		return control_check_time(m, err, errlen);
	case CONTROL_RUN:
		return control_check_run(m, err, errlen);
	case CONTROL_RESULT:
		return control_check_result(m, err, errlen);
	case CONTROL_SERIES:
		return control_check_series(m, err, errlen);
	case CONTROL_ABORT:
		return control_get_str(m->json, "step", &m->step, 200, err, errlen);
	case CONTROL_DONE:
		return 0;
	case CONTROL_AUTH:
	case CONTROL_CHALLENGE:
	case CONTROL_PROOF:
		return control_check_auth(m, err, errlen);
	case CONTROL_CLOCK:
		return control_get_str(m->json, "step", &m->step, 32, err, errlen);
	case CONTROL_RELAY:
		return control_get_str(m->json, "sink", &m->sink, 64, err, errlen);
	case CONTROL_PREPARED:
	case CONTROL_RESET:
		return control_get_str(m->json, "step", &m->step, 200, err, errlen);
	case CONTROL_START:
		rc = control_get_str(m->json, "step", &m->step, 200, err, errlen);
		return rc ? rc : control_get_int(m->json, "start_at", &m->start_at,
					     err, errlen);
	}
	return util_fail(err, errlen, -EINVAL, "unknown type");
}

int control_msg_parse(const char *line, size_t len, struct control_msg *m,
		  char *err, size_t errlen)
{
	const cJSON *v, *t;
	size_t i;
	int rc;

	memset(m, 0, sizeof(*m));
	if (len > CONTROL_MAX_MSG)
		return util_fail(err, errlen, -EMSGSIZE,
				 "message of %zu bytes exceeds %u", len,
				 CONTROL_MAX_MSG);
	m->json = json_int_parse(line, len, NULL, 0);
	if (!m->json)
		return util_fail(err, errlen, -EINVAL, "not valid JSON");
	if (!cJSON_IsObject(m->json)) {
		rc = util_fail(err, errlen, -EINVAL, "not a JSON object");
		goto err;
	}
	v = cJSON_GetObjectItemCaseSensitive(m->json, "v");
	if (!cJSON_IsNumber(v) || v->valuedouble != CONTROL_VERSION) {
		rc = util_fail(err, errlen, -EINVAL, "field \"v\": want %d",
			       CONTROL_VERSION);
		goto err;
	}
	t = cJSON_GetObjectItemCaseSensitive(m->json, "type");
	if (!cJSON_IsString(t) || !t->valuestring) {
		rc = util_fail(err, errlen, -EINVAL,
			       "field \"type\": missing or not a string");
		goto err;
	}
	for (i = 1; i < CONTROL_NTYPES; i++)
		if (control_names[i] && strcmp(control_names[i], t->valuestring) == 0)
			break;
	if (i == CONTROL_NTYPES) {
		rc = util_fail(err, errlen, -EINVAL,
			       "field \"type\": unknown message type \"%.40s\"",
			       t->valuestring);
		goto err;
	}
	m->type = (enum control_type)i;
	rc = control_validate(m, err, errlen);
	if (rc != 0) {
		/* Name the message type in front of the field problem. */
		if (err && errlen) {
			char tmp[256];

			snprintf(tmp, sizeof(tmp), "%s: %s",
				 control_type_name(m->type), err);
			snprintf(err, errlen, "%s", tmp);
		}
		goto err;
	}
	return 0;
err:
	control_msg_free(m);
	return rc;
}

void control_msg_free(struct control_msg *m)
{
	if (m->json)
		cJSON_Delete(m->json);
	memset(m, 0, sizeof(*m));
}

cJSON *control_msg_new(enum control_type t)
{
	cJSON *o = cJSON_CreateObject();

	if (!o)
		return NULL;
	if (!cJSON_AddNumberToObject(o, "v", CONTROL_VERSION) ||
	    !cJSON_AddStringToObject(o, "type", control_type_name(t))) {
		cJSON_Delete(o);
		return NULL;
	}
	return o;
}

/* Liveness without messages: TCP keepalive probes after CONTROL_KEEPIDLE_S
 * of silence, CONTROL_KEEPCNT of them CONTROL_KEEPINTVL_S apart, and at most
 * CONTROL_USER_TIMEOUT_MS for sent data to be acknowledged.  A peer that
 * vanishes without a FIN (power cut, cable pulled) is noticed within
 * 3 + 3 * 2 = 9 s when the line is silent, and within 6 s of the first
 * unacknowledged message otherwise (the controller probes clocks every
 * 5 s during a step): 12 s at worst (docs/protocol.md).  Not a socket (tests
 * feed pipes): the calls fail and change nothing. */
static void control_liveness(int fd)
{
	int one = 1, idle = CONTROL_KEEPIDLE_S, intvl = CONTROL_KEEPINTVL_S,
	    cnt = CONTROL_KEEPCNT;
	unsigned int uto = CONTROL_USER_TIMEOUT_MS;

	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof(one));
	setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle, sizeof(idle));
	setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &intvl, sizeof(intvl));
	setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &cnt, sizeof(cnt));
	setsockopt(fd, IPPROTO_TCP, TCP_USER_TIMEOUT, &uto, sizeof(uto));
}

void control_conn_init(struct control_conn *c, int fd)
{
	memset(c, 0, sizeof(*c));
	c->fd = fd;
	if (fd >= 0) {
		fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
		control_liveness(fd);
	}
}

int control_conn_patience(struct control_conn *c, unsigned seconds)
{
	unsigned int uto = seconds ? seconds * 1000u : CONTROL_USER_TIMEOUT_MS;

	if (c->fd < 0 || c->patience_s == seconds)
		return 0;
	/* With a user timeout the kernel's keepalive ends the connection
	 * once that long has passed since anything was received and a probe
	 * is out (not after CONTROL_KEEPCNT probes): probes still go every
	 * CONTROL_KEEPINTVL_S, and one answer is enough. */
	if (setsockopt(c->fd, IPPROTO_TCP, TCP_USER_TIMEOUT, &uto,
		       sizeof(uto)) != 0)
		return -errno;
	c->patience_s = seconds;
	return 0;
}

void control_conn_limit(struct control_conn *c, size_t max)
{
	c->rlimit = max > CONTROL_MAX_MSG ? 0 : max;
}

/* The longest line c takes. */
static size_t control_conn_max(const struct control_conn *c)
{
	return c->rlimit ? c->rlimit : CONTROL_MAX_MSG;
}

void control_conn_close(struct control_conn *c)
{
	if (c->fd >= 0)
		close(c->fd);
	free(c->rbuf);
	free(c->wbuf);
	memset(c, 0, sizeof(*c));
	c->fd = -1;
}

/* Makes room for want more bytes after rlen, compacting consumed input. */
static int control_rbuf_reserve(struct control_conn *c, size_t want)
{
	char *nb;
	size_t ncap;

	if (c->rpos > 0) {
		memmove(c->rbuf, c->rbuf + c->rpos, c->rlen - c->rpos);
		c->rlen -= c->rpos;
		c->rpos = 0;
	}
	if (c->rcap - c->rlen >= want)
		return 0;
	/* A limited connection (before hello) starts at its limit. */
	ncap = c->rcap ? c->rcap : c->rlimit && c->rlimit < 16384 ?
	       c->rlimit + 1 : 16384;
	while (ncap - c->rlen < want)
		ncap *= 2;
	/* A whole line plus one read of slack, never more. */
	if (ncap > CONTROL_MAX_MSG + 65536 + 1)
		ncap = CONTROL_MAX_MSG + 65536 + 1;
	if (ncap - c->rlen < want)
		return -EMSGSIZE;
	nb = realloc(c->rbuf, ncap);
	if (!nb)
		return -ENOMEM;
	c->rbuf = nb;
	c->rcap = ncap;
	return 0;
}

int control_conn_feed(struct control_conn *c, const void *data, size_t len)
{
	int rc;

	if (len == 0)
		return 0;
	rc = control_rbuf_reserve(c, len);
	if (rc != 0)
		return rc;
	memcpy(c->rbuf + c->rlen, data, len);
	c->rlen += len;
	return 0;
}

int control_conn_read(struct control_conn *c)
{
	size_t max = control_conn_max(c);

	for (;;) {
		size_t chunk = 65536, held = c->rlen - c->rpos;
		ssize_t n;
		int rc;

		/* Never more than a line's limit (plus one byte, which shows
		 * a line too long) unread: a peer limited to a few KiB is
		 * never given a whole message's buffer. */
		if (held > max)
			return 0;
		if (chunk > max + 1 - held)
			chunk = max + 1 - held;
		rc = control_rbuf_reserve(c, chunk);
		if (rc != 0)
			return rc;
		n = read(c->fd, c->rbuf + c->rlen, chunk);
		if (n > 0) {
			c->rlen += (size_t)n;
			c->rx_bytes += (uint64_t)n;
			/* Let the caller take lines before buffering more. */
			if (c->rlen - c->rpos > max)
				return 0;
			continue;
		}
		if (n == 0)
			return -EPIPE;
		if (errno == EAGAIN || errno == EWOULDBLOCK)
			return 0;
		if (errno == EINTR)
			continue;
		return -errno;
	}
}

int control_conn_line(struct control_conn *c, const char **line, size_t *len)
{
	size_t avail = c->rlen - c->rpos;
	char *start, *nl;

	if (!c->rbuf || avail == 0)
		return 0;
	start = c->rbuf + c->rpos;
	nl = memchr(start, '\n', avail);
	if (!nl)
		return avail > control_conn_max(c) ? -EMSGSIZE : 0;
	if ((size_t)(nl - start) > control_conn_max(c))
		return -EMSGSIZE;
	*line = start;
	*len = (size_t)(nl - start);
	/* Tolerate CRLF from hand-typed sessions (nc, telnet). */
	if (*len > 0 && start[*len - 1] == '\r')
		(*len)--;
	c->rpos += (size_t)(nl - start) + 1;
	c->rx_msgs++;
	if (c->auth) {
		if (c->auth->open(c->auth_ctx, *line, *len) != 0)
			return -EBADMSG;
		*line += c->auth->tag_len;
		*len -= c->auth->tag_len;
	}
	return 1;
}

size_t control_conn_pending(const struct control_conn *c)
{
	return c->wlen - c->wpos;
}

int control_conn_flush(struct control_conn *c)
{
	while (c->wpos < c->wlen) {
		ssize_t n = send(c->fd, c->wbuf + c->wpos, c->wlen - c->wpos,
				 MSG_NOSIGNAL);

		if (n > 0) {
			c->wpos += (size_t)n;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return 0;
		return n < 0 ? -errno : -EPIPE;
	}
	c->wpos = c->wlen = 0;
	return 0;
}

int control_conn_send(struct control_conn *c, const cJSON *msg)
{
	size_t n, tag = c->auth ? c->auth->tag_len : 0;
	char *s;

	if (c->fd < 0)
		return -EPIPE;
	s = json_int_print(msg, 0);
	if (!s)
		return -ENOMEM;
	n = strlen(s);
	if (n > CONTROL_MAX_MSG) {
		free(s);
		return -EMSGSIZE;
	}
	if (c->wpos > 0 && c->wpos == c->wlen)
		c->wpos = c->wlen = 0;
	if (c->wcap - c->wlen < tag + n + 1) {
		size_t ncap = c->wcap ? c->wcap : 16384;
		char *nb;

		while (ncap - c->wlen < tag + n + 1)
			ncap *= 2;
		nb = realloc(c->wbuf, ncap);
		if (!nb) {
			free(s);
			return -ENOMEM;
		}
		c->wbuf = nb;
		c->wcap = ncap;
	}
	if (tag)
		c->auth->seal(c->auth_ctx, s, n, c->wbuf + c->wlen);
	memcpy(c->wbuf + c->wlen + tag, s, n);
	c->wbuf[c->wlen + tag + n] = '\n';
	c->wlen += tag + n + 1;
	free(s);
	c->tx_msgs++;
	return control_conn_flush(c);
}

int control_conn_drain(struct control_conn *c, int timeout_ms)
{
	int waited = 0;

	while (control_conn_pending(c) > 0) {
		struct pollfd p = { .fd = c->fd, .events = POLLOUT };
		int rc;

		if (waited >= timeout_ms)
			return -ETIMEDOUT;
		poll(&p, 1, 50);
		waited += 50;
		rc = control_conn_flush(c);
		if (rc != 0)
			return rc;
	}
	return 0;
}

int control_parse_hostport(const char *s, char *host, size_t hostlen,
		       int *port, int default_port)
{
	unsigned p;
	int rc;

	if (!s)
		return -EINVAL;
	rc = hostport_parse(s, 0, (unsigned)default_port, host, hostlen, &p,
			    NULL, 0);
	if (rc != 0)
		return rc;
	*port = (int)p;
	return 0;
}

int control_connect(const char *host, int port, int timeout_ms)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM };
	struct addrinfo *res = NULL, *ai;
	char ports[16];
	int fd = -1, rc = -EHOSTUNREACH;

	snprintf(ports, sizeof(ports), "%d", port);
	if (getaddrinfo(host, ports, &hints, &res) != 0)
		return -EHOSTUNREACH;
	for (ai = res; ai; ai = ai->ai_next) {
		struct pollfd p;
		socklen_t sl = sizeof(rc);
		int soerr = 0;

		fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC |
			    SOCK_NONBLOCK, 0);
		if (fd < 0) {
			rc = -errno;
			continue;
		}
		if (connect(fd, ai->ai_addr, ai->ai_addrlen) != 0 &&
		    errno != EINPROGRESS) {
			rc = -errno;
			goto next;
		}
		p.fd = fd;
		p.events = POLLOUT;
		if (poll(&p, 1, timeout_ms) != 1) {
			rc = -ETIMEDOUT;
			goto next;
		}
		getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &sl);
		if (soerr) {
			rc = -soerr;
			goto next;
		}
		fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
		freeaddrinfo(res);
		return fd;
next:
		close(fd);
		fd = -1;
	}
	freeaddrinfo(res);
	return rc;
}

int control_listen(const char *addr, int port)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM,
				  .ai_flags = AI_PASSIVE };
	struct addrinfo *res = NULL;
	char ports[16];
	int fd, one = 1, rc;

	snprintf(ports, sizeof(ports), "%d", port);
	if (getaddrinfo(addr && *addr ? addr : NULL, ports, &hints, &res))
		return -EADDRNOTAVAIL;
	fd = socket(res->ai_family, res->ai_socktype | SOCK_CLOEXEC |
		    SOCK_NONBLOCK, 0);
	if (fd < 0) {
		rc = -errno;
		goto out;
	}
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	/* A rack that hears the controller announce itself dials at once,
	 * and the controller takes 64 at a time (runner_peers.c): with 256
	 * queued, the 257th agent's SYN was dropped and it joined 5 s late. */
	if (bind(fd, res->ai_addr, res->ai_addrlen) != 0 ||
	    listen(fd, 1024) != 0) {
		rc = -errno;
		close(fd);
		goto out;
	}
	rc = fd;
out:
	freeaddrinfo(res);
	return rc;
}
