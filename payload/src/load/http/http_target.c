/* load/http/http_target.c: URL and pattern parsing for `benchboot http`, and the
 * requests built once before the run so the hot path only copies bytes. */
#include <ctype.h>
#include <errno.h>
#include <netdb.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "load/http/http_target.h"
#include "lib/hostport.h"
#include "lib/version.h"
#include "lib/util.h"

#define PATH_MAX_LEN 4096

void http_target_init(struct http_target_set *ts)
{
	memset(ts, 0, sizeof(*ts));
}

void http_target_free(struct http_target_set *ts)
{
	uint32_t i;

	for (i = 0; i < ts->npaths; i++)
		free(ts->paths[i]);
	free(ts->paths);
	free(ts->reqs);
	free(ts->off);
	free(ts->len);
	http_target_init(ts);
}

static int add_path(struct http_target_set *ts, const char *path, size_t n)
{
	char **np;

	if (ts->npaths >= HTTP_TARGET_MAX ||
	    ts->path_bytes + n + 1 > HTTP_TARGET_MAX_BYTES)
		return -E2BIG;
	if (ts->npaths == ts->cap) {
		ts->cap = ts->cap ? ts->cap * 2 : 16;
		np = realloc(ts->paths, ts->cap * sizeof(*np));
		if (!np)
			return -ENOMEM;
		ts->paths = np;
	}
	ts->paths[ts->npaths] = strndup(path, n);
	if (!ts->paths[ts->npaths])
		return -ENOMEM;
	ts->npaths++;
	ts->path_bytes += n + 1;
	return 0;
}

/* Expands the first brace group of rest after the buf[0..blen) prefix,
 * recursively; the URL is only for messages. */
static int expand(struct http_target_set *ts, char *buf, size_t blen,
		  const char *rest, const char *url, char *err,
		  size_t errlen);

/* rest has no brace group left: the path is whole. */
static int expand_leaf(struct http_target_set *ts, char *buf, size_t blen,
		       const char *rest, const char *url, char *err,
		       size_t errlen)
{
	size_t n = strlen(rest);
	int rc;

	if (strchr(rest, '}'))
		return util_fail(err, errlen, -EINVAL,
				 "URL '%s': '}' without '{'", url);
	if (blen + n >= PATH_MAX_LEN)
		return util_fail(err, errlen, -EINVAL,
				 "URL '%s': path longer than %d bytes", url,
				 PATH_MAX_LEN);
	memcpy(buf + blen, rest, n);
	rc = add_path(ts, buf, blen + n);
	if (rc == -E2BIG)
		return util_fail(err, errlen, rc,
				 "URL '%.100s' expands to more than %u paths or %u MiB of them",
				 url, HTTP_TARGET_MAX, HTTP_TARGET_MAX_BYTES >> 20);
	return rc;
}

/* {A..B} (open..close, dots at the ".."): decimal range, either way; a
 * leading zero in A pads every value to A's width. */
static int expand_range(struct http_target_set *ts, char *buf, size_t blen,
			const char *open, const char *dots,
			const char *close, const char *url, char *err,
			size_t errlen)
{
	unsigned long long a, b, v;
	size_t n, width;
	char *end;
	int rc, step;

	errno = 0;
	a = strtoull(open + 1, &end, 10);
	if (end != dots || end == open + 1 || errno)
		goto bad_range;
	width = open[1] == '0' && dots - open - 1 > 1 ?
		(size_t)(dots - open - 1) : 1;
	b = strtoull(dots + 2, &end, 10);
	if (end != close || end == dots + 2 || errno ||
	    !isdigit((unsigned char)open[1]) ||
	    !isdigit((unsigned char)dots[2]))
		goto bad_range;
	step = a <= b ? 1 : -1;
	if ((a <= b ? b - a : a - b) >= HTTP_TARGET_MAX)
		return util_fail(err, errlen, -E2BIG,
				 "URL '%s': range {%llu..%llu} is too large",
				 url, a, b);
	for (v = a;; v += (unsigned long long)(long long)step) {
		n = (size_t)snprintf(buf + blen, PATH_MAX_LEN - blen, "%0*llu",
				     (int)width, v);
		if (blen + n >= PATH_MAX_LEN)
			return util_fail(err, errlen, -EINVAL,
					 "URL '%s': path too long", url);
		rc = expand(ts, buf, blen + n, close + 1, url, err, errlen);
		if (rc != 0)
			return rc;
		if (v == b)
			break;
	}
	return 0;
bad_range:
	return util_fail(err, errlen, -EINVAL,
			 "URL '%s': bad range '%.*s' (want {A..B} with decimal A and B)",
			 url, (int)(close - open + 1), open);
}

/* {a,b,...} (open..close): each item in turn. */
static int expand_list(struct http_target_set *ts, char *buf, size_t blen,
		       const char *open, const char *close, const char *url,
		       char *err, size_t errlen)
{
	const char *item, *comma;
	size_t n;
	int rc;

	if (!memchr(open, ',', (size_t)(close - open)))
		return util_fail(err, errlen, -EINVAL,
				 "URL '%s': brace group '%.*s' is neither {A..B} nor {a,b,...}",
				 url, (int)(close - open + 1), open);
	for (item = open + 1; item <= close; item = comma + 1) {
		comma = memchr(item, ',', (size_t)(close - item));
		if (!comma)
			comma = close;
		n = (size_t)(comma - item);
		if (blen + n >= PATH_MAX_LEN)
			return util_fail(err, errlen, -EINVAL,
					 "URL '%s': path too long", url);
		memcpy(buf + blen, item, n);
		rc = expand(ts, buf, blen + n, close + 1, url, err, errlen);
		if (rc != 0)
			return rc;
	}
	return 0;
}

static int expand(struct http_target_set *ts, char *buf, size_t blen,
		  const char *rest, const char *url, char *err,
		  size_t errlen)
{
	const char *open = strchr(rest, '{'), *close, *dots;
	size_t pre;

	if (!open)
		return expand_leaf(ts, buf, blen, rest, url, err, errlen);
	pre = (size_t)(open - rest);
	if (memchr(rest, '}', pre))
		return util_fail(err, errlen, -EINVAL,
				 "URL '%s': '}' without '{'", url);
	close = strchr(open, '}');
	if (!close)
		return util_fail(err, errlen, -EINVAL,
				 "URL '%s': '{' is never closed", url);
	if (memchr(open + 1, '{', (size_t)(close - open - 1)))
		return util_fail(err, errlen, -EINVAL, "URL '%s': nested '{'",
				 url);
	if (blen + pre >= PATH_MAX_LEN)
		return util_fail(err, errlen, -EINVAL,
				 "URL '%s': path too long", url);
	memcpy(buf + blen, rest, pre);
	blen += pre;
	dots = strstr(open, "..");
	if (dots && dots < close)
		return expand_range(ts, buf, blen, open, dots, close, url, err,
				    errlen);
	return expand_list(ts, buf, blen, open, close, url, err, errlen);
}

static int add_pattern(struct http_target_set *ts, const char *path,
		       const char *url, char *err, size_t errlen)
{
	char buf[PATH_MAX_LEN];
	const char *c;

	for (c = path; *c; c++)
		if ((unsigned char)*c <= 0x20 || *c == 0x7f)
			return util_fail(err, errlen, -EINVAL,
					 "URL '%s': space or control character in the path at offset %zu",
					 url, (size_t)(c - url));
	if (*path == '?') {
		buf[0] = '/';
		return expand(ts, buf, 1, path, url, err, errlen);
	}
	return expand(ts, buf, 0, *path ? path : "/", url, err, errlen);
}

int http_target_add_url(struct http_target_set *ts, const char *url,
			char *err, size_t errlen)
{
	char host[256], port[8], why[HOSTPORT_ERRLEN];
	const char *h, *e, *path, *scheme, *defport;
	struct hostport hp;
	unsigned dport;
	int rc;

	if (strncasecmp(url, "https://", 8) == 0) {
		scheme = "https";
		defport = "443";
		dport = 443;
		h = url + 8;
	} else if (strncasecmp(url, "http://", 7) == 0) {
		scheme = "http";
		defport = "80";
		dport = 80;
		h = url + 7;
	} else {
		return util_fail(err, errlen, -EINVAL,
				 "URL '%s' does not start with http:// or https://",
				 url);
	}
	/* The authority ends at the path or the query. */
	e = h + strcspn(h, "/?");
	rc = hostport_split(h, (size_t)(e - h), HOSTPORT_BRACKETS,
			    dport, &hp, why, sizeof(why));
	if (rc != 0)
		return util_fail(err, errlen, rc, "URL '%s': %s", url, why);
	if (hp.hostlen >= sizeof(host))
		return util_fail(err, errlen, -EINVAL,
				 "URL '%s': too long a host name", url);
	memcpy(host, hp.host, hp.hostlen);
	host[hp.hostlen] = 0;
	snprintf(port, sizeof(port), "%u", hp.port);
	path = e;
	if (ts->host[0] == 0) {
		strcpy(ts->scheme, scheme);
		strcpy(ts->host, host);
		strcpy(ts->port, port);
		snprintf(ts->hosthdr, sizeof(ts->hosthdr), "%s%s%s%s%s",
			 strchr(host, ':') ? "[" : "", host,
			 strchr(host, ':') ? "]" : "",
			 strcmp(port, defport) ? ":" : "",
			 strcmp(port, defport) ? port : "");
	} else if (strcasecmp(ts->host, host) != 0 ||
		   strcmp(ts->port, port) != 0 ||
		   strcmp(ts->scheme, scheme) != 0) {
		return util_fail(err, errlen, -EINVAL,
				 "URL '%s' names another server than the first URL (%s://%s port %s); one run loads one server",
				 url, ts->scheme, ts->host, ts->port);
	}
	return add_pattern(ts, path, url, err, errlen);
}

int http_target_add_file(struct http_target_set *ts, const char *path,
			 char *err, size_t errlen)
{
	char *line = NULL, *s, *e, msg[512];
	size_t cap = 0;
	unsigned lineno = 0;
	FILE *f = fopen(path, "r");
	int rc = 0;

	if (!f)
		return util_fail(err, errlen, -errno, "%s: %s", path,
				 strerror(errno));
	while (getline(&line, &cap, f) >= 0) {
		lineno++;
		for (s = line; isspace((unsigned char)*s); s++)
			;
		e = s + strlen(s);
		while (e > s && isspace((unsigned char)e[-1]))
			*--e = 0;
		if (!*s || *s == '#')
			continue;
		if (*s == '/') {
			if (!ts->host[0]) {
				rc = util_fail(err, errlen, -EINVAL,
					       "%s:%u: a bare path needs a URL before it",
					       path, lineno);
				break;
			}
			rc = add_pattern(ts, s, s, msg, sizeof(msg));
		} else {
			rc = http_target_add_url(ts, s, msg, sizeof(msg));
		}
		if (rc != 0) {
			util_fail(err, errlen, rc, "%s:%u: %s", path, lineno,
				  msg);
			break;
		}
	}
	if (rc == 0 && ferror(f))
		rc = util_fail(err, errlen, -EIO, "%s: read error", path);
	if (rc == 0 && lineno == 0)
		rc = util_fail(err, errlen, -EINVAL, "%s: no URLs", path);
	free(line);
	fclose(f);
	return rc;
}

int http_target_resolve(struct http_target_set *ts, char *err,
			size_t errlen)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *res;
	int rc;

	rc = getaddrinfo(ts->host, ts->port, &hints, &res);
	if (rc != 0)
		return util_fail(err, errlen, -EHOSTUNREACH,
				 "cannot resolve '%s': %s", ts->host,
				 gai_strerror(rc));
	memcpy(&ts->addr, res->ai_addr, res->ai_addrlen);
	ts->addrlen = res->ai_addrlen;
	freeaddrinfo(res);
	return 0;
}

int http_target_build(struct http_target_set *ts, const char *method,
		      int close, char *const *headers, size_t nheaders,
		      char *err, size_t errlen)
{
	size_t fixed, total = 0, i, n, pos = 0;
	char common[8192];
	int len;

	for (i = 0; i < nheaders; i++) {
		const char *colon = strchr(headers[i], ':');

		if (strpbrk(headers[i], "\r\n") || !colon ||
		    colon == headers[i])
			return util_fail(err, errlen, -EINVAL,
					 "header '%s' is not one 'Name: value' line",
					 headers[i]);
	}
	len = snprintf(common, sizeof(common), " HTTP/1.1\r\nHost: %s\r\n"
		       "User-Agent: benchboot/%s\r\n%s", ts->hosthdr,
		       version_string(), close ? "Connection: close\r\n" : "");
	for (i = 0; i < nheaders && len > 0 && (size_t)len < sizeof(common);
	     i++)
		len += snprintf(common + len, sizeof(common) - (size_t)len,
				"%s\r\n", headers[i]);
	if (len < 0 || (size_t)len + 2 >= sizeof(common))
		return util_fail(err, errlen, -EINVAL,
				 "request headers longer than %zu bytes",
				 sizeof(common));
	memcpy(common + len, "\r\n", 3);
	/* "METHOD path" + common + CRLF */
	fixed = strlen(method) + 1 + (size_t)len + 2;
	for (i = 0; i < ts->npaths; i++)
		total += fixed + strlen(ts->paths[i]);
	if (total > HTTP_TARGET_MAX_REQ_BYTES)
		return util_fail(err, errlen, -E2BIG,
				 "%u requests of %zu bytes of headers each take %zu MiB: more than %u MiB (fewer URLs or shorter headers)",
				 ts->npaths, fixed, total >> 20,
				 HTTP_TARGET_MAX_REQ_BYTES >> 20);
	ts->reqs = malloc(total + 1);	/* sprintf's last NUL */
	ts->off = calloc(ts->npaths, sizeof(*ts->off));
	ts->len = calloc(ts->npaths, sizeof(*ts->len));
	if (!ts->reqs || !ts->off || !ts->len || total > UINT32_MAX)
		return util_fail(err, errlen, -ENOMEM,
				 "out of memory for %u requests", ts->npaths);
	ts->maxlen = 0;
	for (i = 0; i < ts->npaths; i++) {
		n = (size_t)sprintf(ts->reqs + pos, "%s %s%s", method,
				    ts->paths[i], common);
		ts->off[i] = (uint32_t)pos;
		ts->len[i] = (uint32_t)n;
		if (n > ts->maxlen)
			ts->maxlen = (uint32_t)n;
		pos += n;
	}
	return 0;
}
