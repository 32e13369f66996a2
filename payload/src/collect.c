/* collect.c: the results collector.  One request per connection, served
 * in turn (a lab has a handful of controllers); every upload is validated
 * whole before anything touches the directory, and stored by temporary
 * file, fsync and rename, so the directory only ever holds complete
 * results, each id at most once. */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "collect.h"
#include "ctl.h"
#include "util.h"

int collect_id_ok(const char *s)
{
	size_t n;

	if (!s || s[0] == '.')
		return 0;
	for (n = 0; s[n]; n++)
		if (n >= 128 || !((s[n] >= 'a' && s[n] <= 'z') ||
				  (s[n] >= 'A' && s[n] <= 'Z') ||
				  (s[n] >= '0' && s[n] <= '9') ||
				  s[n] == '.' || s[n] == '_' || s[n] == '-'))
			return 0;
	return n > 0;
}

/* Copies a header value (trimmed) into out; -EMSGSIZE if it does not fit. */
static int collect_copy(const char *v, size_t vl, char *out, size_t outlen)
{
	while (vl > 0 && (*v == ' ' || *v == '\t'))
		v++, vl--;
	while (vl > 0 && (v[vl - 1] == ' ' || v[vl - 1] == '\t'))
		vl--;
	if (vl >= outlen)
		return -EMSGSIZE;
	memcpy(out, v, vl);
	out[vl] = 0;
	return 0;
}

/* "METHOD PATH VERSION" from the line p..eol into req. */
static int collect_request_line(const char *p, const char *eol,
				struct collect_req *req, char *err,
				size_t errlen)
{
	const char *sp1, *sp2;
	size_t ml, pl;

	sp1 = memchr(p, ' ', (size_t)(eol - p));
	sp2 = sp1 ? memchr(sp1 + 1, ' ', (size_t)(eol - sp1 - 1)) : NULL;
	if (!sp1 || !sp2)
		return util_fail(err, errlen, -EINVAL,
				 "request line: expected METHOD PATH VERSION");
	ml = (size_t)(sp1 - p);
	pl = (size_t)(sp2 - sp1 - 1);
	if (ml == 0 || ml >= sizeof(req->method))
		return util_fail(err, errlen, -EINVAL,
				 "request line: bad method");
	if (pl == 0 || sp1[1] != '/')
		return util_fail(err, errlen, -EINVAL,
				 "request line: path must start with '/'");
	if (pl >= sizeof(req->path))
		return util_fail(err, errlen, -EMSGSIZE,
				 "request line: path over %zu bytes",
				 sizeof(req->path) - 1);
	if ((size_t)(eol - sp2 - 1) != 8 ||
	    (memcmp(sp2 + 1, "HTTP/1.1", 8) != 0 &&
	     memcmp(sp2 + 1, "HTTP/1.0", 8) != 0))
		return util_fail(err, errlen, -EINVAL,
				 "request line: expected HTTP/1.0 or HTTP/1.1");
	memcpy(req->method, p, ml);
	memcpy(req->path, sp1 + 1, pl);
	return 0;
}

/* A header the collector reads: its value v (vl bytes, untrimmed) into
 * req.  Returns 0, a negative errno with err set, or 1 when the value
 * does not fit (the caller names the header). */
struct collect_hdr {
	const char *name;
	int (*fn)(struct collect_req *req, const char *v, size_t vl,
		  char *err, size_t errlen);
};

static int collect_hdr_length(struct collect_req *req, const char *v,
			      size_t vl, char *err, size_t errlen)
{
	char num[32];
	char *e;

	if (req->content_length >= 0)
		return util_fail(err, errlen, -EINVAL,
				 "repeated Content-Length");
	if (collect_copy(v, vl, num, sizeof(num)) != 0 ||
	    num[0] < '0' || num[0] > '9')
		return util_fail(err, errlen, -EINVAL, "bad Content-Length");
	errno = 0;
	req->content_length = strtoll(num, &e, 10);
	if (errno || *e || req->content_length < 0)
		return util_fail(err, errlen, -EINVAL, "bad Content-Length");
	return 0;
}

static int collect_hdr_te(struct collect_req *req, const char *v, size_t vl,
			  char *err, size_t errlen)
{
	req->chunked = 1;
	return 0;
}

static int collect_hdr_expect(struct collect_req *req, const char *v,
			      size_t vl, char *err, size_t errlen)
{
	char ex[32] = "";

	collect_copy(v, vl, ex, sizeof(ex));
	req->expect_continue = strcasecmp(ex, "100-continue") == 0;
	return 0;
}

static int collect_hdr_auth(struct collect_req *req, const char *v,
			    size_t vl, char *err, size_t errlen)
{
	return collect_copy(v, vl, req->auth, sizeof(req->auth)) ? 1 : 0;
}

static int collect_hdr_id(struct collect_req *req, const char *v, size_t vl,
			  char *err, size_t errlen)
{
	return collect_copy(v, vl, req->result_id,
			    sizeof(req->result_id)) ? 1 : 0;
}

/* The headers the collector reads; the rest are ignored. */
static const struct collect_hdr collect_hdrs[] = {
	{ "Content-Length", collect_hdr_length },
	{ "Transfer-Encoding", collect_hdr_te },
	{ "Expect", collect_hdr_expect },
	{ "Authorization", collect_hdr_auth },
	{ "X-Benchboot-Result-Id", collect_hdr_id },
};

/* One "Name: value" line p..eol into req. */
static int collect_header(const char *p, const char *eol,
			  struct collect_req *req, char *err, size_t errlen)
{
	const char *colon = memchr(p, ':', (size_t)(eol - p));
	size_t nl, i;
	int rc;

	if (!colon || colon == p)
		return util_fail(err, errlen, -EINVAL,
				 "header line without a name and ':'");
	nl = (size_t)(colon - p);
	for (i = 0; i < sizeof(collect_hdrs) / sizeof(collect_hdrs[0]); i++) {
		if (strlen(collect_hdrs[i].name) != nl ||
		    strncasecmp(p, collect_hdrs[i].name, nl) != 0)
			continue;
		rc = collect_hdrs[i].fn(req, colon + 1,
					(size_t)(eol - colon - 1), err,
					errlen);
		if (rc > 0)
			return util_fail(err, errlen, -EMSGSIZE,
					 "header %.*s too long",
					 (int)(nl > 40 ? 40 : nl), p);
		return rc;
	}
	return 0;
}

int collect_parse_head(const char *buf, size_t len, struct collect_req *req,
		       char *err, size_t errlen)
{
	const char *end = NULL, *p, *eol;
	size_t i, hl;
	int first = 1, rc;

	memset(req, 0, sizeof(*req));
	req->content_length = -1;
	for (i = 0; i + 3 < len && i < COLLECT_MAX_HEAD; i++)
		if (buf[i] == '\r' && buf[i + 1] == '\n' &&
		    buf[i + 2] == '\r' && buf[i + 3] == '\n') {
			end = buf + i + 2;
			break;
		}
	if (!end)
		return len >= COLLECT_MAX_HEAD ?
			util_fail(err, errlen, -EMSGSIZE,
				  "request head over %d bytes",
				  COLLECT_MAX_HEAD) : 0;
	hl = (size_t)(end - buf) + 2;
	for (p = buf; p < end; p = eol + 2) {
		eol = memchr(p, '\r', (size_t)(end - p));
		if (!eol || eol[1] != '\n')
			return util_fail(err, errlen, -EINVAL,
					 "bare CR in request head");
		for (i = 0; p + i < eol; i++)
			if ((unsigned char)p[i] < 0x20 && p[i] != '\t')
				return util_fail(err, errlen, -EINVAL,
						 "control character in request head");
		if (first)
			rc = collect_request_line(p, eol, req, err, errlen);
		else
			rc = collect_header(p, eol, req, err, errlen);
		if (rc != 0)
			return rc;
		first = 0;
	}
	if (first)
		return util_fail(err, errlen, -EINVAL, "empty request");
	return (int)hl;
}

/* --- server ---------------------------------------------------------- */

struct collect_srv {
	const char *dir;
	const char *token;
	long long max_size;
	uint64_t stored, duplicates, rejected;
};

static volatile sig_atomic_t collect_stop;

static void collect_on_signal(int sig)
{
	collect_stop = sig;
}

static void collect_log(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));
static void collect_log(const char *fmt, ...)
{
	char ts[32];
	time_t now = time(NULL);
	struct tm tm;
	va_list ap;

	gmtime_r(&now, &tm);
	strftime(ts, sizeof(ts), "%H:%M:%S", &tm);
	fprintf(stderr, "%s benchboot collect: ", ts);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static void collect_reply(int fd, int code, const char *reason,
			  const char *ctype, const char *body, size_t blen)
{
	char head[256];
	int hl;

	hl = snprintf(head, sizeof(head),
		      "HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\nConnection: close\r\n\r\n",
		      code, reason, ctype, blen);
	send(fd, head, (size_t)hl, MSG_NOSIGNAL);
	if (blen)
		send(fd, body, blen, MSG_NOSIGNAL);
}

static void collect_text(int fd, int code, const char *reason,
			 const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void collect_text(int fd, int code, const char *reason,
			 const char *fmt, ...)
{
	char body[600];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(body, sizeof(body) - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		n = 0;
	if ((size_t)n > sizeof(body) - 2)
		n = sizeof(body) - 2;
	body[n++] = '\n';
	collect_reply(fd, code, reason, "text/plain", body, (size_t)n);
}

/* Reads exactly len bytes within the socket's receive timeout. */
static int collect_read_full(int fd, char *buf, size_t len)
{
	size_t off = 0;

	while (off < len) {
		ssize_t n = recv(fd, buf + off, len - off, 0);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n == 0 ? -EPIPE : -errno;
		off += (size_t)n;
	}
	return 0;
}

static int collect_store(const struct collect_srv *s, const char *id,
			 const char *data, size_t len, int *existed)
{
	char dst[PATH_MAX], name[NAME_MAX + 1];
	struct stat st;
	int fd;

	snprintf(dst, sizeof(dst), "%s/%s.json", s->dir, id);
	*existed = 0;
	if (stat(dst, &st) == 0) {
		/* Same id: the same bytes are a retry, others a conflict. */
		char *old = malloc((size_t)st.st_size + 1);
		int same = 0;

		fd = open(dst, O_RDONLY | O_CLOEXEC);
		if (old && fd >= 0 && (size_t)st.st_size == len &&
		    read(fd, old, len) == (ssize_t)len)
			same = memcmp(old, data, len) == 0;
		if (fd >= 0)
			close(fd);
		free(old);
		*existed = 1;
		return same ? 0 : -EEXIST;
	}
	snprintf(name, sizeof(name), "%s.json", id);
	return util_write_atomic(s->dir, name, data, len);
}

static void collect_list(const struct collect_srv *s, int fd)
{
	cJSON *o = cJSON_CreateObject(), *a = cJSON_AddArrayToObject(o,
								    "results");
	struct dirent *de;
	DIR *d = opendir(s->dir);
	char *txt;

	while (d && (de = readdir(d))) {
		size_t l = strlen(de->d_name);
		char path[PATH_MAX], id[256];
		struct stat st;
		cJSON *e;

		if (de->d_name[0] == '.' || l < 6 || l > 200 ||
		    strcmp(de->d_name + l - 5, ".json") != 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s", s->dir, de->d_name);
		if (stat(path, &st) != 0)
			continue;
		snprintf(id, sizeof(id), "%.*s", (int)(l - 5), de->d_name);
		e = cJSON_CreateObject();
		cJSON_AddStringToObject(e, "id", id);
		cJSON_AddNumberToObject(e, "bytes", (double)st.st_size);
		cJSON_AddNumberToObject(e, "mtime", (double)st.st_mtime);
		cJSON_AddItemToArray(a, e);
	}
	if (d)
		closedir(d);
	txt = cJSON_Print(o);
	cJSON_Delete(o);
	if (!txt) {
		collect_text(fd, 500, "Internal Server Error", "out of memory");
		return;
	}
	collect_reply(fd, 200, "OK", "application/json", txt, strlen(txt));
	free(txt);
}

static void collect_get(const struct collect_srv *s, int fd, const char *path)
{
	const char *base = strrchr(path, '/') + 1;
	char id[256], file[PATH_MAX], *buf;
	struct stat st;
	size_t l = strlen(base);
	int f;

	if (l < 6 || strcmp(base + l - 5, ".json") != 0 || l - 5 > 200) {
		collect_text(fd, 404, "Not Found", "%s: not a result", path);
		return;
	}
	snprintf(id, sizeof(id), "%.*s", (int)(l - 5), base);
	if (!collect_id_ok(id)) {
		collect_text(fd, 404, "Not Found", "%s: not a result id",
			     path);
		return;
	}
	snprintf(file, sizeof(file), "%s/%s.json", s->dir, id);
	f = open(file, O_RDONLY | O_CLOEXEC);
	if (f < 0 || fstat(f, &st) != 0) {
		if (f >= 0)
			close(f);
		collect_text(fd, 404, "Not Found", "no result %s", id);
		return;
	}
	buf = malloc((size_t)st.st_size + 1);
	if (!buf || read(f, buf, (size_t)st.st_size) != st.st_size) {
		close(f);
		free(buf);
		collect_text(fd, 500, "Internal Server Error", "read %s",
			     file);
		return;
	}
	close(f);
	collect_reply(fd, 200, "OK", "application/json", buf,
		      (size_t)st.st_size);
	free(buf);
}

/* Reads and parses the request head into head/req.  Returns the head's
 * length (body bytes may follow it in head, have bytes in all), or -1
 * when the request is answered or gone already. */
static int collect_read_head(struct collect_srv *s, int fd, const char *peer,
			     char *head, size_t *have, struct collect_req *req)
{
	char err[256];
	int hl = 0;

	while (hl == 0) {
		ssize_t n = recv(fd, head + *have, COLLECT_MAX_HEAD - *have,
				 0);

		if (n <= 0) {
			if (*have)
				collect_log("%s: connection ended inside the request head; nothing stored",
					    peer);
			return -1;
		}
		*have += (size_t)n;
		hl = collect_parse_head(head, *have, req, err, sizeof(err));
		if (hl == 0 && *have == COLLECT_MAX_HEAD)
			hl = -EMSGSIZE;
	}
	if (hl > 0)
		return hl;
	s->rejected++;
	collect_log("%s: bad request: %s", peer, err);
	if (hl == -EMSGSIZE)
		collect_text(fd, 431, "Request Header Fields Too Large", "%s",
			     err);
	else
		collect_text(fd, 400, "Bad Request", "%s", err);
	return -1;
}

/* Whether the request carries the token (when one is set); answers 401
 * when not. */
static int collect_authorized(struct collect_srv *s, int fd, const char *peer,
			      const struct collect_req *req)
{
	char want[300];

	if (!s->token)
		return 1;
	snprintf(want, sizeof(want), "Bearer %s", s->token);
	if (strcmp(req->auth, want) == 0)
		return 1;
	s->rejected++;
	collect_log("%s: %s %s: missing or wrong token", peer, req->method,
		    req->path);
	collect_text(fd, 401, "Unauthorized",
		     "a valid 'Authorization: Bearer TOKEN' is needed");
	return 0;
}

/* Whether an upload's method, length and (PUT) path are acceptable; the
 * PUT path's id goes to pid (pidlen bytes).  Answers the refusals. */
static int collect_upload_ok(struct collect_srv *s, int fd, const char *peer,
			     const struct collect_req *req, char *pid,
			     size_t pidlen)
{
	const char *base;
	size_t l;

	if (strcmp(req->method, "PUT") != 0 &&
	    strcmp(req->method, "POST") != 0) {
		s->rejected++;
		collect_text(fd, 405, "Method Not Allowed",
			     "%s: use GET, PUT or POST", req->method);
		return 0;
	}
	if (req->chunked || req->content_length < 0) {
		s->rejected++;
		collect_log("%s: upload without Content-Length", peer);
		collect_text(fd, 411, "Length Required",
			     "uploads need a Content-Length (no chunked encoding)");
		return 0;
	}
	if (req->content_length > s->max_size) {
		s->rejected++;
		collect_log("%s: upload of %lld bytes over --max-size %lld",
			    peer, req->content_length, s->max_size);
		collect_text(fd, 413, "Payload Too Large",
			     "%lld bytes; the limit is %lld",
			     req->content_length, s->max_size);
		return 0;
	}
	if (strcmp(req->method, "PUT") != 0)
		return 1;
	base = strrchr(req->path, '/') + 1;
	l = strlen(base);
	if (l < 6 || strcmp(base + l - 5, ".json") != 0 || l - 5 >= pidlen) {
		s->rejected++;
		collect_text(fd, 400, "Bad Request",
			     "PUT path must end in /ID.json");
		return 0;
	}
	snprintf(pid, pidlen, "%.*s", (int)(l - 5), base);
	return 1;
}

/* The id of an uploaded result document, or NULL (answered) when it is
 * not one or its id disagrees with the path's pid or the request's. */
static const char *collect_doc_id(struct collect_srv *s, int fd,
				  const char *peer, const cJSON *doc,
				  const struct collect_req *req,
				  const char *pid)
{
	const cJSON *id, *sch;

	id = cJSON_GetObjectItemCaseSensitive(doc, "id");
	sch = cJSON_GetObjectItemCaseSensitive(doc, "schema");
	if (!cJSON_IsObject(doc) || !cJSON_IsString(sch) ||
	    strncmp(sch->valuestring, "benchboot.result/", 17) != 0 ||
	    !cJSON_IsString(id) || !collect_id_ok(id->valuestring)) {
		s->rejected++;
		collect_log("%s: upload is not a benchboot.result document with a valid id; nothing stored",
			    peer);
		collect_text(fd, 400, "Bad Request",
			     "expected a JSON object with \"schema\": \"benchboot.result/1\" and an \"id\" of [A-Za-z0-9._-]");
		return NULL;
	}
	if ((pid[0] && strcmp(pid, id->valuestring) != 0) ||
	    (req->result_id[0] && strcmp(req->result_id, id->valuestring))) {
		s->rejected++;
		collect_text(fd, 400, "Bad Request",
			     "the id in the path or X-Benchboot-Result-Id differs from the document's \"id\" (%s)",
			     id->valuestring);
		return NULL;
	}
	return id->valuestring;
}

/* Stores the document id (body, len bytes) and answers how that went. */
static void collect_accept(struct collect_srv *s, int fd, const char *peer,
			   const char *id, const char *body, size_t len)
{
	int rc, existed;

	rc = collect_store(s, id, body, len, &existed);
	if (rc == 0 && existed) {
		s->duplicates++;
		collect_log("%s: %s already held (same bytes); not stored again",
			    peer, id);
		collect_text(fd, 200, "OK", "%s already stored", id);
	} else if (rc == 0) {
		s->stored++;
		collect_log("%s: stored %s (%lld bytes)", peer, id,
			    (long long)len);
		collect_text(fd, 201, "Created", "stored %s", id);
	} else if (rc == -EEXIST) {
		s->rejected++;
		collect_log("%s: %s already held with other content; refused",
			    peer, id);
		collect_text(fd, 409, "Conflict",
			     "%s is already stored with other content", id);
	} else {
		collect_log("%s: storing %s: %s", peer, id, strerror(-rc));
		collect_text(fd, 500, "Internal Server Error",
			     "cannot store: %s", strerror(-rc));
	}
}

static void collect_serve(struct collect_srv *s, int fd, const char *peer)
{
	char head[COLLECT_MAX_HEAD + 1], *body = NULL;
	struct collect_req req;
	size_t have = 0, extra, blen;
	int hl, rc;
	cJSON *doc = NULL;
	const char *id;
	char pid[200] = "";

	hl = collect_read_head(s, fd, peer, head, &have, &req);
	if (hl < 0 || !collect_authorized(s, fd, peer, &req))
		return;
	if (strcmp(req.method, "GET") == 0) {
		if (strcmp(req.path, "/") == 0 ||
		    strcmp(req.path, "/results") == 0 ||
		    strcmp(req.path, "/results/") == 0)
			collect_list(s, fd);
		else
			collect_get(s, fd, req.path);
		return;
	}
	if (!collect_upload_ok(s, fd, peer, &req, pid, sizeof(pid)))
		return;
	blen = (size_t)req.content_length;
	body = malloc(blen + 1);
	if (!body) {
		collect_text(fd, 500, "Internal Server Error", "out of memory");
		return;
	}
	if (req.expect_continue)
		send(fd, "HTTP/1.1 100 Continue\r\n\r\n", 25, MSG_NOSIGNAL);
	/* Body bytes that came with the head. */
	extra = have - (size_t)hl;
	if (extra > blen)
		extra = blen;
	memcpy(body, head + hl, extra);
	rc = collect_read_full(fd, body + extra, blen - extra);
	if (rc != 0) {
		s->rejected++;
		collect_log("%s: upload cut short (%s); nothing stored", peer,
			    rc == -EPIPE ? "connection closed" :
			    strerror(-rc));
		collect_text(fd, 400, "Bad Request",
			     "body shorter than Content-Length");
		goto out;
	}
	body[blen] = 0;
	doc = cJSON_ParseWithLength(body, blen);
	id = collect_doc_id(s, fd, peer, doc, &req, pid);
	if (id)
		collect_accept(s, fd, peer, id, body, blen);
out:
	cJSON_Delete(doc);
	free(body);
}

static void collect_usage(FILE *out)
{
	fprintf(out,
		"usage: benchboot collect --dir DIR --listen [ADDR]:PORT [--token T] [--max-size N]\n");
}

/* Serves one connection at a time until SIGINT/SIGTERM. */
static void collect_loop(struct collect_srv *s, int lfd)
{
	while (!collect_stop) {
		struct pollfd p = { .fd = lfd, .events = POLLIN };
		struct sockaddr_storage ss;
		socklen_t sl = sizeof(ss);
		struct timeval tv = { .tv_sec = 10 };
		char peer[64] = "?";
		int fd;

		if (poll(&p, 1, 500) <= 0)
			continue;
		fd = accept4(lfd, (struct sockaddr *)&ss, &sl, SOCK_CLOEXEC);
		if (fd < 0)
			continue;
		if (ss.ss_family == AF_INET)
			inet_ntop(AF_INET,
				  &((struct sockaddr_in *)&ss)->sin_addr,
				  peer, sizeof(peer));
		/* A stalled uploader must not hold the collector forever. */
		setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
		setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
		collect_serve(s, fd, peer);
		close(fd);
	}
}

int collect_main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "dir", required_argument, NULL, 'd' },
		{ "listen", required_argument, NULL, 'l' },
		{ "token", required_argument, NULL, 't' },
		{ "max-size", required_argument, NULL, 'm' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct collect_srv s = { .max_size = 64ll << 20 };
	struct sigaction sa = { .sa_handler = collect_on_signal };
	const char *listen_s = NULL;
	char host[256] = "";
	uint64_t v;
	int c, port = 0, lfd;
	struct stat st;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'd':
			s.dir = optarg;
			break;
		case 'l':
			listen_s = optarg;
			break;
		case 't':
			s.token = optarg;
			break;
		case 'm':
			if (util_parse_u64(optarg, 1, 1ull << 40, &v) != 0) {
				util_err("collect", EINVAL,
					 "--max-size '%s': expected bytes (k/M/G allowed)",
					 optarg);
				return 2;
			}
			s.max_size = (long long)v;
			break;
		case 'h':
			collect_usage(stdout);
			return 0;
		default:
			collect_usage(stderr);
			return 2;
		}
	}
	if (!s.dir || !listen_s || optind != argc) {
		collect_usage(stderr);
		return 2;
	}
	if (listen_s[0] == ':') {
		port = atoi(listen_s + 1);
	} else if (ctl_parse_hostport(listen_s, host, sizeof(host), &port,
				      0) != 0 || port == 0) {
		util_err("collect", EINVAL,
			 "--listen '%s': expected [ADDR]:PORT", listen_s);
		return 2;
	}
	if (stat(s.dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
		util_err("collect", ENOTDIR, "--dir %s: not a directory",
			 s.dir);
		return 1;
	}
	lfd = ctl_listen(host[0] ? host : NULL, port);
	if (lfd < 0) {
		util_err("collect", -lfd, "listen on %s: %s", listen_s,
			 strerror(-lfd));
		return 1;
	}
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	collect_log("storing results in %s, listening on %s%s", s.dir,
		    listen_s, s.token ? " (token required)" : "");
	collect_loop(&s, lfd);
	collect_log("stopping: %llu stored, %llu duplicates, %llu rejected",
		    (unsigned long long)s.stored,
		    (unsigned long long)s.duplicates,
		    (unsigned long long)s.rejected);
	close(lfd);
	return 0;
}
