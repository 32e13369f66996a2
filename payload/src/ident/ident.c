/* ident/ident.c: a foreign server's identity from the network (ident.h).  One
 * short connection per question, each bounded by the service's deadline
 * and a byte budget; what the server sends goes through ident_parse.c. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <mysql.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <netinet/ip_icmp.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "ident/ident.h"
#include "ident/ident_parse.h"
#include "lib/opt.h"
#include "lib/util.h"

#define IDENT_BODY_MAX 16384	/* /benchboot-kit.json and any body read */

/* Where the target is, resolved once. */
struct ident_addr {
	struct sockaddr_storage ss;
	socklen_t len;
	char text[INET6_ADDRSTRLEN];
};

void ident_target_init(struct ident_target *t, const char *host)
{
	memset(t, 0, sizeof(*t));
	t->host = host;
	t->http_port = 80;
	t->sql_port = 3306;
	t->smtp_port = 25;
	t->timeout_ms = 5000;
}

static uint64_t ident_deadline(const struct ident_target *t)
{
	return util_mono_ns() + (uint64_t)t->timeout_ms * 1000000u;
}

/* Milliseconds left before deadline (0 when past). */
static int ident_left_ms(uint64_t deadline)
{
	uint64_t now = util_mono_ns();

	return now >= deadline ? 0 : (int)((deadline - now) / 1000000u) + 1;
}

/* Waits for events on fd until deadline: 0, or -ETIMEDOUT. */
static int ident_wait(int fd, short events, uint64_t deadline)
{
	struct pollfd p = { .fd = fd, .events = events };
	int rc;

	do {
		rc = poll(&p, 1, ident_left_ms(deadline));
	} while (rc < 0 && errno == EINTR);
	if (rc < 0)
		return -errno;
	return rc == 0 ? -ETIMEDOUT : 0;
}

/* A non-blocking TCP connection to a:port within the deadline. */
static int ident_connect(const struct ident_addr *a, unsigned port,
			 uint64_t deadline, int *fdp)
{
	struct sockaddr_storage ss = a->ss;
	socklen_t sl = sizeof(int);
	int fd, rc, soerr = 0;

	if (ss.ss_family == AF_INET)
		((struct sockaddr_in *)&ss)->sin_port = htons((uint16_t)port);
	else
		((struct sockaddr_in6 *)&ss)->sin6_port = htons((uint16_t)port);
	fd = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
		    0);
	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&ss, a->len) != 0) {
		rc = -errno;
		if (rc != -EINPROGRESS)
			goto err;
		rc = ident_wait(fd, POLLOUT, deadline);
		if (rc != 0)
			goto err;
		getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &sl);
		rc = -soerr;
		if (rc != 0)
			goto err;
	}
	*fdp = fd;
	return 0;
err:
	close(fd);
	return rc;
}

static int ident_send(int fd, const char *buf, size_t len, uint64_t deadline)
{
	ssize_t n;
	int rc;

	while (len > 0) {
		n = send(fd, buf, len, MSG_NOSIGNAL);
		if (n < 0 && errno == EAGAIN) {
			rc = ident_wait(fd, POLLOUT, deadline);
			if (rc != 0)
				return rc;
			continue;
		}
		if (n < 0)
			return -errno;
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Reads what arrives into buf[*have..cap) once: bytes read (0 at the end
 * of the stream), -ENOBUFS when buf is full, or a negative errno. */
static ssize_t ident_recv(int fd, char *buf, size_t cap, size_t *have,
			  uint64_t deadline)
{
	ssize_t n;
	int rc;

	if (*have >= cap)
		return -ENOBUFS;
	for (;;) {
		n = recv(fd, buf + *have, cap - *have, 0);
		if (n >= 0)
			break;
		if (errno != EAGAIN)
			return -errno;
		rc = ident_wait(fd, POLLIN, deadline);
		if (rc != 0)
			return rc;
	}
	*have += (size_t)n;
	return n;
}

/* The negotiated TCP facts of a fresh connection (TCP_INFO): the
 * SYN-ACK's window is snd_wnd before anything else arrived. */
static void ident_tcp_facts(int fd, cJSON *o)
{
	struct tcp_info ti;
	socklen_t l = sizeof(ti);
	int mss = 0;
	socklen_t ml = sizeof(mss);

	memset(&ti, 0, sizeof(ti));
	if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &l) != 0)
		return;
	cJSON_AddNumberToObject(o, "syn_ack_window", ti.tcpi_snd_wnd);
	cJSON_AddNumberToObject(o, "snd_mss", ti.tcpi_snd_mss);
	if (getsockopt(fd, IPPROTO_TCP, TCP_MAXSEG, &mss, &ml) == 0)
		cJSON_AddNumberToObject(o, "maxseg", mss);
	cJSON_AddBoolToObject(o, "window_scaling",
			      !!(ti.tcpi_options & TCPI_OPT_WSCALE));
	if (ti.tcpi_options & TCPI_OPT_WSCALE)
		cJSON_AddNumberToObject(o, "wscale", ti.tcpi_snd_wscale);
	cJSON_AddBoolToObject(o, "timestamps",
			      !!(ti.tcpi_options & TCPI_OPT_TIMESTAMPS));
	cJSON_AddBoolToObject(o, "sack", !!(ti.tcpi_options & TCPI_OPT_SACK));
	cJSON_AddBoolToObject(o, "ecn", !!(ti.tcpi_options & TCPI_OPT_ECN));
	cJSON_AddNumberToObject(o, "rtt_us", ti.tcpi_rtt);
}

/* One GET (HEAD when body is NULL) of path before dl: the head into h
 * and, for a GET, up to IDENT_BODY_MAX bytes of a Content-Length body
 * into body (buf: IDENT_HEAD_MAX + IDENT_BODY_MAX bytes to read into). */
static int ident_http_req(const struct ident_target *t,
			  const struct ident_addr *a, uint64_t dl,
			  const char *path, struct ident_http_head *h,
			  char *buf, char *body, size_t *bodylen, char *err,
			  size_t errlen)
{
	const size_t cap = IDENT_HEAD_MAX + IDENT_BODY_MAX;
	char req[512];
	size_t have = 0;
	ssize_t n;
	int fd, rc;

	rc = ident_connect(a, t->http_port, dl, &fd);
	if (rc != 0)
		return util_fail(err, errlen, rc, "connect: %s", strerror(-rc));
	/* An IPv6 literal goes in brackets (RFC 9110 7.2). */
	snprintf(req, sizeof(req), "%s %s HTTP/1.1\r\nHost: %s%s%s\r\n"
		 "User-Agent: benchboot-ident\r\nConnection: close\r\n\r\n",
		 body ? "GET" : "HEAD", path, strchr(t->host, ':') ? "[" : "",
		 t->host, strchr(t->host, ':') ? "]" : "");
	rc = ident_send(fd, req, strlen(req), dl);
	while (rc == 0) {
		n = ident_recv(fd, buf, cap, &have, dl);
		if (n == 0 && have == 0)
			rc = -ECONNRESET;
		else if (n < 0 && n != -ENOBUFS)
			rc = (int)n;
		if (rc != 0)
			break;
		rc = ident_http_head_parse(buf, have, h, err, errlen);
		if (rc < 0)
			goto out;
		if (rc == 0 && (n == 0 || n == -ENOBUFS)) {
			rc = -EBADMSG;
			break;
		}
		if (rc == 0)
			continue;
		rc = 0;
		if (!body || h->content_length < 0 ||
		    h->content_length > IDENT_BODY_MAX ||
		    have - h->head_len >= (size_t)h->content_length ||
		    n == 0 || n == -ENOBUFS)
			break;
	}
	if (rc != 0) {
		rc = util_fail(err, errlen, rc, "%s", rc == -EBADMSG ?
			       "the answer ended before its head did" :
			       strerror(-rc));
		goto out;
	}
	if (body) {
		*bodylen = have - h->head_len;
		if (h->content_length >= 0 &&
		    *bodylen > (size_t)h->content_length)
			*bodylen = (size_t)h->content_length;
		memcpy(body, buf + h->head_len, *bodylen);
	}
out:
	close(fd);
	return rc;
}

/* The kit's facts as the server sent them, cut to what the kit writes:
 * objects three levels deep (kit.system.cpu.vulnerabilities), strings of
 * IDENT_TEXT_MAX bytes at most, numbers, booleans, and arrays of up to
 * IDENT_KIT_ITEMS such strings or objects (memory.dimms).  A hostile
 * server gets no more into the result than that.  What is cut is left
 * out, never shown empty: an array none of whose items could be kept
 * would say the machine has none.  Returns a new object or NULL. */
#define IDENT_KIT_DEPTH 3
#define IDENT_KIT_ITEMS 32
static cJSON *ident_kit_copy(const cJSON *in, int depth);

/* One kept value of the kit's, or NULL when it is not kept. */
static cJSON *ident_kit_value(const cJSON *f, int depth)
{
	const cJSON *x;
	cJSON *v, *e;

	if (cJSON_IsString(f))
		return strlen(f->valuestring) < IDENT_TEXT_MAX ?
			cJSON_CreateString(f->valuestring) : NULL;
	if (cJSON_IsNumber(f))
		return cJSON_CreateNumber(f->valuedouble);
	if (cJSON_IsBool(f))
		return cJSON_CreateBool(cJSON_IsTrue(f));
	if (cJSON_IsObject(f))
		return depth < IDENT_KIT_DEPTH ? ident_kit_copy(f, depth + 1) :
			NULL;
	if (!cJSON_IsArray(f) || (v = cJSON_CreateArray()) == NULL)
		return NULL;
	cJSON_ArrayForEach(x, f) {
		if (cJSON_GetArraySize(v) >= IDENT_KIT_ITEMS)
			break;
		if (!cJSON_IsString(x) && !cJSON_IsObject(x))
			continue;
		e = ident_kit_value(x, depth);
		if (e)
			cJSON_AddItemToArray(v, e);
	}
	if (cJSON_GetArraySize(v) == 0 && cJSON_GetArraySize(f) > 0) {
		cJSON_Delete(v);
		return NULL;
	}
	return v;
}

static cJSON *ident_kit_copy(const cJSON *in, int depth)
{
	cJSON *o = cJSON_CreateObject(), *v;
	const cJSON *f;

	for (f = in ? in->child : NULL; o && f; f = f->next) {
		if (!f->string || strlen(f->string) > 32)
			continue;
		v = ident_kit_value(f, depth);
		if (v)
			cJSON_AddItemToObject(o, f->string, v);
	}
	return o;
}

/* http: the Server header (HEAD /), the CGI's kind and the kit's facts
 * (into root's "kit"). */
static void ident_http(const struct ident_target *t,
		       const struct ident_addr *a, cJSON *o, cJSON *root)
{
	char *buf = malloc(IDENT_HEAD_MAX + 2 * IDENT_BODY_MAX), *body;
	uint64_t dl = ident_deadline(t);
	struct ident_http_head h;
	size_t bl = 0;
	char err[256];
	cJSON *kit;

	cJSON_AddNumberToObject(o, "port", t->http_port);
	if (!buf) {
		cJSON_AddStringToObject(o, "error", "out of memory");
		return;
	}
	body = buf + IDENT_HEAD_MAX + IDENT_BODY_MAX;
	/* The three requests share the service's one deadline. */
	if (ident_http_req(t, a, dl, "/", &h, buf, NULL, NULL, err,
			   sizeof(err)) != 0) {
		cJSON_AddStringToObject(o, "error", err);
		goto out;
	}
	cJSON_AddNumberToObject(o, "status", h.status);
	if (h.server[0])
		cJSON_AddStringToObject(o, "server", h.server);
	else
		cJSON_AddNullToObject(o, "server");
	if (ident_http_req(t, a, dl, "/cgi-bin/hello", &h, buf, body, &bl,
			   err, sizeof(err)) == 0 && h.status == 200 && h.cgi[0])
		cJSON_AddStringToObject(o, "cgi", h.cgi);
	if (ident_http_req(t, a, dl, "/benchboot-kit.json", &h, buf, body,
			   &bl, err, sizeof(err)) == 0 && h.status == 200 &&
	    (kit = cJSON_ParseWithLength(body, bl)) != NULL) {
		if (cJSON_IsObject(kit))
			cJSON_AddItemToObject(root, "kit",
					      ident_kit_copy(kit, 0));
		cJSON_Delete(kit);
	}
out:
	free(buf);
}

/* tcp: a connection of its own to the first service port that accepts,
 * looked at right after the handshake, all within one deadline.  Returns
 * -ETIMEDOUT when no port answered at all (a host that is down or drops
 * everything: the services are then not asked, each would only wait out
 * its own deadline), else 0. */
static int ident_tcp(const struct ident_target *t,
		     const struct ident_addr *a, cJSON *o)
{
	const unsigned ports[] = { t->http_port, t->smtp_port, t->sql_port };
	uint64_t dl = ident_deadline(t);
	int fd, rc = 0, answered = 0;
	unsigned i;

	for (i = 0; i < 3; i++) {
		if (!ports[i])
			continue;
		rc = ident_connect(a, ports[i], dl, &fd);
		if (rc == 0) {
			cJSON_AddNumberToObject(o, "port", ports[i]);
			ident_tcp_facts(fd, o);
			close(fd);
			return 0;
		}
		answered |= rc != -ETIMEDOUT;
	}
	return answered || rc == 0 ? 0 : -ETIMEDOUT;
}

/* A service not asked because the host did not answer at all. */
static void ident_silent(cJSON *o, unsigned port)
{
	cJSON_AddNumberToObject(o, "port", port);
	cJSON_AddStringToObject(o, "error",
				"not asked: no port of the host answered TCP");
}

/* Reads one SMTP reply into r. */
static int ident_smtp_read(int fd, char *buf, size_t cap, size_t *have,
			   struct ident_smtp_reply *r, uint64_t dl, char *err,
			   size_t errlen)
{
	ssize_t n;
	int rc;

	for (;;) {
		rc = ident_smtp_reply_parse(buf, *have, r, err, errlen);
		if (rc != 0)
			break;
		n = ident_recv(fd, buf, cap, have, dl);
		if (n <= 0)
			return util_fail(err, errlen, n == 0 ? -ECONNRESET :
					 (int)n, "reading a reply: %s",
					 n == 0 ? "connection closed" :
					 strerror((int)-n));
	}
	if (rc < 0)
		return rc;
	memmove(buf, buf + r->len, *have - r->len);
	*have -= r->len;
	return 0;
}

/* smtp: the banner and EHLO's extensions. */
static void ident_smtp(const struct ident_target *t,
		       const struct ident_addr *a, cJSON *o)
{
	static const char ehlo[] = "EHLO ident.benchboot.test\r\n";
	uint64_t dl = ident_deadline(t);
	struct ident_smtp_reply r;
	char buf[IDENT_SMTP_LINE_MAX * 8], err[256];
	size_t have = 0;
	cJSON *ext;
	unsigned i;
	int fd = -1, rc;

	cJSON_AddNumberToObject(o, "port", t->smtp_port);
	rc = ident_connect(a, t->smtp_port, dl, &fd);
	if (rc != 0) {
		util_fail(err, sizeof(err), rc, "connect: %s", strerror(-rc));
		goto out;
	}
	rc = ident_smtp_read(fd, buf, sizeof(buf), &have, &r, dl, err,
			     sizeof(err));
	if (rc != 0)
		goto out;
	cJSON_AddNumberToObject(o, "banner_code", r.code);
	cJSON_AddStringToObject(o, "banner", r.text);
	rc = ident_send(fd, ehlo, sizeof(ehlo) - 1, dl);
	if (rc == 0)
		rc = ident_smtp_read(fd, buf, sizeof(buf), &have, &r, dl, err,
				     sizeof(err));
	if (rc != 0)
		goto out;
	cJSON_AddNumberToObject(o, "ehlo_code", r.code);
	ext = cJSON_AddArrayToObject(o, "ehlo");
	for (i = 0; ext && i < r.n_ext; i++)
		cJSON_AddItemToArray(ext, cJSON_CreateString(r.ext[i]));
	ident_send(fd, "QUIT\r\n", 6, dl);
out:
	if (rc != 0)
		cJSON_AddStringToObject(o, "error", err);
	if (fd >= 0)
		close(fd);
}

/* The version in the server's first packet: no account needed. */
static int ident_sql_hello(const struct ident_target *t,
			   const struct ident_addr *a, char *ver, size_t vlen,
			   char *err, size_t errlen)
{
	uint64_t dl = ident_deadline(t);
	char buf[4100];
	size_t have = 0;
	ssize_t n;
	int fd, rc;

	rc = ident_connect(a, t->sql_port, dl, &fd);
	if (rc != 0)
		return util_fail(err, errlen, rc, "connect: %s", strerror(-rc));
	for (;;) {
		rc = ident_mysql_hello_parse((unsigned char *)buf, have, ver,
					     vlen, err, errlen);
		if (rc != 0)
			break;
		n = ident_recv(fd, buf, sizeof(buf), &have, dl);
		if (n <= 0) {
			rc = util_fail(err, errlen, n == 0 ? -ECONNRESET :
				       (int)n, "handshake: %s", n == 0 ?
				       "connection closed" : strerror((int)-n));
			break;
		}
	}
	close(fd);
	return rc < 0 ? rc : 0;
}

/* SELECT VERSION() and the build's OS and machine, as t's account. */
static void ident_sql_query(const struct ident_target *t,
			    const struct ident_addr *a, cJSON *o)
{
	static const char *const col[] = { "version", "version_compile_os",
					   "version_compile_machine",
					   "version_comment" };
	unsigned int to = (t->timeout_ms + 999) / 1000;
	MYSQL_RES *res = NULL;
	MYSQL_ROW row;
	MYSQL *m = mysql_init(NULL);
	unsigned i;

	if (!m)
		return;
	mysql_optionsv(m, MYSQL_OPT_CONNECT_TIMEOUT, &to);
	mysql_optionsv(m, MYSQL_OPT_READ_TIMEOUT, &to);
	mysql_optionsv(m, MYSQL_OPT_WRITE_TIMEOUT, &to);
	if (!mysql_real_connect(m, a->text, t->sql_user, t->sql_password,
				t->sql_db, t->sql_port, NULL, 0) ||
	    mysql_query(m, "SELECT VERSION(), @@version_compile_os, "
			"@@version_compile_machine, @@version_comment") != 0 ||
	    !(res = mysql_store_result(m))) {
		cJSON_AddStringToObject(o, "query_error", mysql_error(m));
		goto out;
	}
	row = mysql_fetch_row(res);
	for (i = 0; row && i < 4 && i < mysql_num_fields(res); i++)
		if (row[i])
			cJSON_AddStringToObject(o, col[i], row[i]);
out:
	if (res)
		mysql_free_result(res);
	mysql_close(m);
}

static void ident_sql(const struct ident_target *t,
		      const struct ident_addr *a, cJSON *o)
{
	char ver[IDENT_TEXT_MAX], err[256];

	cJSON_AddNumberToObject(o, "port", t->sql_port);
	if (ident_sql_hello(t, a, ver, sizeof(ver), err, sizeof(err)) != 0) {
		cJSON_AddStringToObject(o, "error", err);
		return;
	}
	cJSON_AddStringToObject(o, "handshake_version", ver);
	if (t->sql_user)
		ident_sql_query(t, a, o);
}

static uint16_t ident_cksum(const void *p, size_t n)
{
	const uint8_t *b = p;
	uint32_t s = 0;
	size_t i;

	for (i = 0; i + 1 < n; i += 2)
		s += (uint32_t)b[i] << 8 | b[i + 1];
	if (n & 1)
		s += (uint32_t)b[n - 1] << 8;
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return htons((uint16_t)~s);
}

/* One echo reply's TTL from recvmsg: a ping socket's IP_TTL message, or
 * a raw socket's IP header.  1 when msg is the reply to our echo. */
static int ident_echo_ttl(const uint8_t *b, ssize_t n, struct msghdr *mh,
			  int raw, uint16_t seq, int *ttl)
{
	struct cmsghdr *c;
	size_t ihl = 0;

	if (raw) {
		if (n < 20)
			return 0;
		ihl = (size_t)(b[0] & 15) * 4;
		*ttl = b[8];
	}
	if ((size_t)n < ihl + 8 || b[ihl] != ICMP_ECHOREPLY ||
	    (b[ihl + 6] << 8 | b[ihl + 7]) != seq)
		return 0;
	for (c = CMSG_FIRSTHDR(mh); !raw && c; c = CMSG_NXTHDR(mh, c))
		if (c->cmsg_level == IPPROTO_IP && c->cmsg_type == IP_TTL)
			memcpy(ttl, CMSG_DATA(c), sizeof(*ttl));
	return *ttl > 0;
}

/* The TTL of an ICMP echo reply from a (IPv4 only): a ping socket when
 * net.ipv4.ping_group_range lets us, else a raw one (root). */
static int ident_ttl(const struct ident_addr *a, uint64_t dl, int *ttl)
{
	uint8_t pkt[16] = { ICMP_ECHO }, rb[256];
	char cb[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { rb, sizeof(rb) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	uint16_t seq = (uint16_t)(getpid() ^ util_mono_ns());
	int fd, raw = 0, one = 1, rc;
	ssize_t n;
	uint16_t ck;

	if (a->ss.ss_family != AF_INET)
		return -EAFNOSUPPORT;
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, IPPROTO_ICMP);
	if (fd < 0) {
		raw = 1;
		fd = socket(AF_INET, SOCK_RAW | SOCK_CLOEXEC, IPPROTO_ICMP);
	}
	if (fd < 0)
		return -errno;
	setsockopt(fd, IPPROTO_IP, IP_RECVTTL, &one, sizeof(one));
	pkt[4] = (uint8_t)(getpid() >> 8);
	pkt[5] = (uint8_t)getpid();
	pkt[6] = (uint8_t)(seq >> 8);
	pkt[7] = (uint8_t)seq;
	ck = ident_cksum(pkt, sizeof(pkt));
	memcpy(pkt + 2, &ck, 2);
	*ttl = 0;
	rc = sendto(fd, pkt, sizeof(pkt), 0, (const struct sockaddr *)&a->ss,
		    a->len) < 0 ? -errno : 0;
	while (rc == 0) {
		rc = ident_wait(fd, POLLIN, dl);
		if (rc != 0)
			break;
		mh.msg_control = cb;
		mh.msg_controllen = sizeof(cb);
		n = recvmsg(fd, &mh, MSG_DONTWAIT);
		if (n >= 0 && ident_echo_ttl(rb, n, &mh, raw, seq, ttl))
			break;
	}
	close(fd);
	return rc;
}

/* The MAC of an on-link IPv4 address from the kernel's ARP table (after
 * a connection it is there); "" when routed or unknown. */
static void ident_mac(const struct ident_addr *a, char *mac, size_t len)
{
	char line[256], ip[64], hw[64];
	unsigned type, flags;
	FILE *f;

	mac[0] = '\0';
	f = a->ss.ss_family == AF_INET ? fopen("/proc/net/arp", "re") : NULL;
	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%63s 0x%x 0x%x %63s", ip, &type, &flags,
			   hw) == 4 && strcmp(ip, a->text) == 0 &&
		    (flags & 2) && strlen(hw) < len) {
			strcpy(mac, hw);
			break;
		}
	fclose(f);
}

/* net: the address, the MAC, the echo reply's TTL. */
static void ident_net(const struct ident_target *t,
		      const struct ident_addr *a, cJSON *o)
{
	static const int initial[] = { 32, 64, 128, 255 };
	char mac[32];
	int ttl = 0, rc, i;

	cJSON_AddStringToObject(o, "address", a->text);
	cJSON_AddStringToObject(o, "family",
				a->ss.ss_family == AF_INET ? "ipv4" : "ipv6");
	ident_mac(a, mac, sizeof(mac));
	if (mac[0])
		cJSON_AddStringToObject(o, "mac", mac);
	else
		cJSON_AddNullToObject(o, "mac");
	rc = t->no_icmp ? -ECANCELED :
		ident_ttl(a, util_mono_ns() + 1000000000u, &ttl);
	if (rc != 0) {
		const char *why = rc == -ECANCELED ? "not asked (--no-icmp)" :
			rc == -ETIMEDOUT ?
			"no ICMP echo reply within 1 s (filtered?)" :
			strerror(-rc);

		cJSON_AddNullToObject(o, "ttl");
		cJSON_AddStringToObject(o, "ttl_error", why);
		return;
	}
	cJSON_AddNumberToObject(o, "ttl", ttl);
	/* The sender's initial TTL is the next usual value up: 64 (Linux,
	 * BSD, macOS), 128 (Windows), 255 (Solaris, routers). */
	for (i = 0; i < 3 && initial[i] < ttl; i++)
		;
	cJSON_AddNumberToObject(o, "initial_ttl", initial[i]);
	cJSON_AddNumberToObject(o, "hops", initial[i] - ttl);
}

static int ident_resolve(const char *host, struct ident_addr *a, char *err,
			 size_t errlen)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *ai;
	int rc;

	rc = getaddrinfo(host, NULL, &hints, &ai);
	if (rc != 0)
		return util_fail(err, errlen, -EHOSTUNREACH, "%s: %s", host,
				 gai_strerror(rc));
	memcpy(&a->ss, ai->ai_addr, ai->ai_addrlen);
	a->len = ai->ai_addrlen;
	freeaddrinfo(ai);
	getnameinfo((struct sockaddr *)&a->ss, a->len, a->text,
		    sizeof(a->text), NULL, 0, NI_NUMERICHOST);
	return 0;
}

cJSON *ident_probe(const struct ident_target *t, char *err, size_t errlen)
{
	struct ident_addr a;
	cJSON *o, *tcp, *net;

	if (!t->host || ident_resolve(t->host, &a, err, errlen) != 0) {
		if (!t->host)
			util_fail(err, errlen, -EINVAL, "no host");
		return NULL;
	}
	o = cJSON_CreateObject();
	if (!o || !cJSON_AddStringToObject(o, "host", t->host) ||
	    !cJSON_AddStringToObject(o, "address", a.text))
		goto oom;
	net = cJSON_CreateObject();
	tcp = cJSON_CreateObject();
	if (!net || !tcp) {
		cJSON_Delete(net);
		cJSON_Delete(tcp);
		goto oom;
	}
	if (ident_tcp(t, &a, tcp) != 0) {
		if (t->http_port)
			ident_silent(cJSON_AddObjectToObject(o, "http"),
				     t->http_port);
		if (t->sql_port)
			ident_silent(cJSON_AddObjectToObject(o, "sql"),
				     t->sql_port);
		if (t->smtp_port)
			ident_silent(cJSON_AddObjectToObject(o, "smtp"),
				     t->smtp_port);
		goto net;
	}
	if (t->http_port)
		ident_http(t, &a, cJSON_AddObjectToObject(o, "http"), o);
	if (t->sql_port)
		ident_sql(t, &a, cJSON_AddObjectToObject(o, "sql"));
	if (t->smtp_port)
		ident_smtp(t, &a, cJSON_AddObjectToObject(o, "smtp"));
net:
	/* After the connections: the neighbour table has the MAC now. */
	ident_net(t, &a, net);
	cJSON_AddItemToObject(net, "tcp", tcp);
	cJSON_AddItemToObject(o, "net", net);
	return o;
oom:
	cJSON_Delete(o);
	util_fail(err, errlen, -ENOMEM, "out of memory");
	return NULL;
}

/* --timeout: whole seconds 1..600 into the target's milliseconds. */
static int ident_opt_timeout(void *dst, const char *value, char *err,
			     size_t errlen)
{
	uint64_t v;

	if (util_parse_u64(value, 1, 600, &v) != 0)
		return -EINVAL;
	*(unsigned *)dst = (unsigned)v * 1000;
	return 0;
}

/* Everything the command line sets: the base of ident_opt_tab[]. */
struct ident_cmdline {
	struct ident_target t;
	int json;
};

#define IT(m) OPT_AT(struct ident_cmdline, t.m)

static const struct opt ident_opt_tab[] = {
	{ .name = "http-port", .kind = OPT_UINT, .off = IT(http_port),
	  .max = 65535, .bad = "--http-port '%s': want 0..65535", .arg = "P",
	  .help = "the web server's port (0: not asked)", .def = "80" },
	{ .name = "sql-port", .kind = OPT_UINT, .off = IT(sql_port),
	  .max = 65535, .bad = "--sql-port '%s': want 0..65535", .arg = "P",
	  .help = "the database's port (0: not asked)", .def = "3306" },
	{ .name = "sql-user", .kind = OPT_STR, .off = IT(sql_user),
	  .arg = "U", .help = "log in as U and ask the version and system "
	  "(without it, only the handshake's version is read)" },
	{ .name = "sql-password", .kind = OPT_STR, .off = IT(sql_password),
	  .arg = "PW", .help = "its password" },
	{ .name = "sql-db", .kind = OPT_STR, .off = IT(sql_db), .arg = "DB",
	  .help = "the database to log in to" },
	{ .name = "smtp-port", .kind = OPT_UINT, .off = IT(smtp_port),
	  .max = 65535, .bad = "--smtp-port '%s': want 0..65535", .arg = "P",
	  .help = "the mail server's port (0: not asked)", .def = "25" },
	{ .name = "timeout", .kind = OPT_FN, .off = IT(timeout_ms),
	  .fn = ident_opt_timeout,
	  .bad = "--timeout '%s': want seconds 1..600", .arg = "SECONDS",
	  .help = "each question's time limit", .def = "5" },
	{ .name = "no-icmp", .kind = OPT_FLAG, .off = IT(no_icmp), .val = 1,
	  .help = "no ping for the TTL" },
	{ .name = "json", .kind = OPT_FLAG,
	  .off = OPT_AT(struct ident_cmdline, json), .val = 1,
	  .help = "print the identity as JSON" },
};

/* Parses argv into cl.  Returns -1 to go on, else the exit status. */
static int ident_parse_opts(int argc, char **argv, struct ident_cmdline *cl)
{
	static const struct optset set = OPTSET("ident", ident_opt_tab,
						"HOST [options]", NULL);
	int argi, rc;

	rc = opt_main(&set, cl, argc, argv, &argi);
	if (rc != 0)
		return rc > 0 ? 0 : 2;
	if (argi + 1 != argc) {
		opt_usage(&set, stderr);
		return 2;
	}
	cl->t.host = argv[argi];
	return -1;
}

/* Whether service object s (NULL: not asked) answered. */
static int ident_answered(const cJSON *s)
{
	return s && !cJSON_GetObjectItemCaseSensitive(s, "error");
}

int ident_main(int argc, char **argv)
{
	struct ident_cmdline cl = { 0 };
	struct ident_target *t = &cl.t;
	char err[256], *text;
	int rc;
	cJSON *o;

	ident_target_init(t, NULL);
	rc = ident_parse_opts(argc, argv, &cl);
	if (rc >= 0)
		return rc;
	o = ident_probe(t, err, sizeof(err));
	if (!o) {
		util_err("ident", EHOSTUNREACH, "%s", err);
		return 1;
	}
	text = cl.json ? cJSON_PrintUnformatted(o) : cJSON_Print(o);
	if (text)
		printf("%s\n", text);
	free(text);
	rc = ident_answered(cJSON_GetObjectItemCaseSensitive(o, "http")) ||
	     ident_answered(cJSON_GetObjectItemCaseSensitive(o, "sql")) ||
	     ident_answered(cJSON_GetObjectItemCaseSensitive(o, "smtp")) ?
	     0 : 1;
	if (rc != 0)
		util_err("ident", EHOSTUNREACH, "%s: no service answered",
			 t->host);
	cJSON_Delete(o);
	return rc;
}
