/* test_http_parse.c: the response parser against a table of valid and
 * broken responses, each fed whole, byte by byte and in odd splits, which
 * must all agree. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "load/http/http_parse.h"
#include "tap.h"

struct result {
	int nresp, status, keepalive, rc;
	uint64_t body_len, at;
	const char *err;
};

/* Feeds in[0..len) in pieces of at most chunk bytes, counting complete
 * responses; eof: then reports the peer's close. */
static void run(const char *in, size_t len, int head, int eof, size_t chunk,
		struct result *r)
{
	struct http_parse p;
	size_t off = 0, n, used;
	int rc;

	memset(r, 0, sizeof(*r));
	http_parse_init(&p, head);
	while (off < len) {
		n = len - off < chunk ? len - off : chunk;
		rc = http_parse_feed(&p, in + off, n, &used);
		if (rc < 0)
			goto err;
		off += used;
		if (rc == 1) {
			r->nresp++;
			r->status = p.status;
			r->keepalive = p.keepalive;
			r->body_len = p.body_len;
		} else if (used != n) {
			r->rc = -9999;	/* 0 must consume everything */
			return;
		}
	}
	if (!eof)
		return;
	rc = http_parse_eof(&p);
	if (rc < 0)
		goto err;
	if (rc == 1) {
		r->nresp++;
		r->status = p.status;
		r->keepalive = p.keepalive;
		r->body_len = p.body_len;
	}
	return;
err:
	r->rc = rc;
	r->err = p.error;
	r->at = p.error_at;
}

#define OK200 "HTTP/1.1 200 OK\r\n"
#define TE "Transfer-Encoding: chunked\r\n"

static const struct tcase {
	const char *name, *in;
	int head, eof;
	int nresp, status, keepalive;
	long long body_len;
	const char *err;	/* substring of p->error; NULL: no error */
	long long at;		/* error offset, -1: not checked */
} cases[] = {
	{ "content-length", OK200 "Content-Length: 5\r\n\r\nhello",
	  0, 0, 1, 200, 1, 5, NULL, -1 },
	{ "content-length 0", OK200 "Content-Length: 0\r\n\r\n",
	  0, 0, 1, 200, 1, 0, NULL, -1 },
	{ "content-length OWS", OK200 "Content-Length: \t 3 \t\r\n\r\nabc",
	  0, 0, 1, 200, 1, 3, NULL, -1 },
	{ "header names are case-insensitive",
	  OK200 "content-LENGTH: 2\r\nX-Y: z\r\n\r\nab",
	  0, 0, 1, 200, 1, 2, NULL, -1 },
	{ "repeated equal content-length",
	  OK200 "Content-Length: 2\r\nContent-Length: 2\r\n\r\nab",
	  0, 0, 1, 200, 1, 2, NULL, -1 },
	{ "no reason phrase", "HTTP/1.1 200\r\nContent-Length: 0\r\n\r\n",
	  0, 0, 1, 200, 1, 0, NULL, -1 },
	{ "empty reason phrase", "HTTP/1.1 404 \r\nContent-Length: 1\r\n\r\nx",
	  0, 0, 1, 404, 1, 1, NULL, -1 },
	{ "long unknown header name",
	  OK200 "X-A-Very-Long-Header-Name-Indeed-Yes: 1\r\n"
	  "Content-Length: 1\r\n\r\nx", 0, 0, 1, 200, 1, 1, NULL, -1 },
	{ "chunked", OK200 TE "\r\n5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n",
	  0, 0, 1, 200, 1, 11, NULL, -1 },
	{ "chunked: hex upper/lower, extension, trailer",
	  OK200 TE "\r\nA;x=\"y\"\r\n0123456789\r\nf\r\n0123456789abcde"
	  "\r\n0\r\nX-Trailer: t\r\n\r\n", 0, 0, 1, 200, 1, 25, NULL, -1 },
	{ "chunked after gzip", OK200 "Transfer-Encoding: gzip, Chunked\r\n"
	  "\r\n1\r\nx\r\n0\r\n\r\n", 0, 0, 1, 200, 1, 1, NULL, -1 },
	{ "transfer-coding other than chunked last: read until close",
	  OK200 "Transfer-Encoding: chunked, gzip\r\n\r\nabcdef",
	  0, 1, 1, 200, 0, 6, NULL, -1 },
	{ "bad chunk size", OK200 TE "\r\nzz\r\n",
	  0, 0, 0, 0, 0, 0, "bad chunk size", 47 },
	{ "empty chunk size", OK200 TE "\r\n\r\n",
	  0, 0, 0, 0, 0, 0, "bad chunk size", -1 },
	{ "negative chunk size", OK200 TE "\r\n-1\r\n",
	  0, 0, 0, 0, 0, 0, "bad chunk size", -1 },
	{ "chunk size junk", OK200 TE "\r\n5x\r\nhello\r\n",
	  0, 0, 0, 0, 0, 0, "bad chunk size", -1 },
	{ "chunk size overflow", OK200 TE "\r\n10000000000000000\r\n",
	  0, 0, 0, 0, 0, 0, "chunk size too large", -1 },
	{ "chunk longer than its size", OK200 TE "\r\n3\r\nhello\r\n",
	  0, 0, 0, 0, 0, 0, "chunk data longer", -1 },
	{ "chunk without CRLF", OK200 TE "\r\n3\r\nabc0\r\n\r\n",
	  0, 0, 0, 0, 0, 0, "chunk data longer", -1 },
	{ "connection: close", OK200 "Connection: close\r\n"
	  "Content-Length: 1\r\n\r\nx", 0, 0, 1, 200, 0, 1, NULL, -1 },
	{ "connection list with close", OK200 "Connection: Keep-Alive, "
	  "CLOSE\r\nContent-Length: 1\r\n\r\nx", 0, 0, 1, 200, 0, 1, NULL, -1 },
	{ "HTTP/1.0 closes by default", "HTTP/1.0 200 OK\r\n"
	  "Content-Length: 1\r\n\r\nx", 0, 0, 1, 200, 0, 1, NULL, -1 },
	{ "HTTP/1.0 keep-alive", "HTTP/1.0 200 OK\r\nConnection: keep-alive"
	  "\r\nContent-Length: 1\r\n\r\nx", 0, 0, 1, 200, 1, 1, NULL, -1 },
	{ "body until close", OK200 "Server: x\r\n\r\nsome body",
	  0, 1, 1, 200, 0, 9, NULL, -1 },
	{ "body until close, not closed yet", OK200 "\r\nsome body",
	  0, 0, 0, 0, 0, 0, NULL, -1 },
	{ "close in the head", OK200 "Content-Len",
	  0, 1, 0, 0, 0, 0, "closed in the response head", -1 },
	{ "close in the body", OK200 "Content-Length: 10\r\n\r\nabc",
	  0, 1, 0, 0, 0, 0, "before Content-Length", -1 },
	{ "close in a chunk", OK200 TE "\r\n5\r\nab",
	  0, 1, 0, 0, 0, 0, "chunked body", -1 },
	{ "clean close between responses", OK200 "Content-Length: 1\r\n\r\nx",
	  0, 1, 1, 200, 1, 1, NULL, -1 },
	{ "HEAD: no body despite Content-Length",
	  OK200 "Content-Length: 100\r\n\r\n", 1, 0, 1, 200, 1, 0, NULL, -1 },
	{ "204 has no body", "HTTP/1.1 204 No Content\r\n\r\n",
	  0, 0, 1, 204, 1, 0, NULL, -1 },
	{ "304 has no body", "HTTP/1.1 304 Not Modified\r\n"
	  "Content-Length: 50\r\n\r\n", 0, 0, 1, 304, 1, 0, NULL, -1 },
	{ "100 Continue then the response", "HTTP/1.1 100 Continue\r\n\r\n"
	  OK200 "Content-Length: 2\r\n\r\nab", 0, 0, 1, 200, 1, 2, NULL, -1 },
	{ "101 is refused", "HTTP/1.1 101 Switching Protocols\r\n\r\n",
	  0, 0, 0, 0, 0, 0, "101", -1 },
	{ "pipelined responses", OK200 "Content-Length: 1\r\n\r\nx"
	  OK200 TE "\r\n2\r\nab\r\n0\r\n\r\n"
	  "HTTP/1.1 503 Busy\r\nContent-Length: 3\r\n\r\nabc",
	  0, 0, 3, 503, 1, 3, NULL, -1 },
	{ "HTTP/2.0", "HTTP/2.0 200 OK\r\n\r\n",
	  0, 0, 0, 0, 0, 0, "HTTP/1.", 5 },
	{ "HTTP/1.2", "HTTP/1.2 200 OK\r\n\r\n",
	  0, 0, 0, 0, 0, 0, "not 1.0 or 1.1", 7 },
	{ "not HTTP", "ICY 200 OK\r\n\r\n",
	  0, 0, 0, 0, 0, 0, "HTTP/1.", 0 },
	{ "no space after version", "HTTP/1.1\t200 OK\r\n\r\n",
	  0, 0, 0, 0, 0, 0, "no space", 8 },
	{ "two-digit status", "HTTP/1.1 20 OK\r\n\r\n",
	  0, 0, 0, 0, 0, 0, "three digits", 11 },
	{ "four-digit status", "HTTP/1.1 2000 OK\r\n\r\n",
	  0, 0, 0, 0, 0, 0, "three digits", 12 },
	{ "status out of range", "HTTP/1.1 999 OK\r\n\r\n",
	  0, 0, 0, 0, 0, 0, "100..599", -1 },
	{ "bare LF", "HTTP/1.1 200 OK\nContent-Length: 0\n\n",
	  0, 0, 0, 0, 0, 0, "control character", 15 },
	{ "CR without LF", "HTTP/1.1 200 OK\r\rContent-Length: 0\r\n\r\n",
	  0, 0, 0, 0, 0, 0, "CR not followed by LF", 16 },
	{ "space before colon", OK200 "Content-Length : 1\r\n\r\nx",
	  0, 0, 0, 0, 0, 0, "header name", 31 },
	{ "header without colon", OK200 "Content-Length\r\n\r\n",
	  0, 0, 0, 0, 0, 0, "header name", -1 },
	{ "obs-fold", OK200 "X-A: b\r\n c\r\nContent-Length: 0\r\n\r\n",
	  0, 0, 0, 0, 0, 0, "folding", -1 },
	{ "NUL in a value", OK200 "X-A: b\0c\r\n\r\n",
	  0, 0, 0, 0, 0, 0, "control character", -1 },
	{ "content-length junk", OK200 "Content-Length: 5x\r\n\r\nhello",
	  0, 0, 0, 0, 0, 0, "not a number", -1 },
	{ "content-length two numbers", OK200 "Content-Length: 5 5\r\n\r\n",
	  0, 0, 0, 0, 0, 0, "not a number", -1 },
	{ "content-length negative", OK200 "Content-Length: -5\r\n\r\n",
	  0, 0, 0, 0, 0, 0, "not a number", -1 },
	{ "content-length empty", OK200 "Content-Length: \r\n\r\n",
	  0, 0, 0, 0, 0, 0, "empty Content-Length", -1 },
	{ "content-length too large",
	  OK200 "Content-Length: 1234567890123456\r\n\r\n",
	  0, 0, 0, 0, 0, 0, "too large", -1 },
	{ "conflicting content-length",
	  OK200 "Content-Length: 5\r\nContent-Length: 6\r\n\r\nhello",
	  0, 0, 0, 0, 0, 0, "conflicting", -1 },
	{ "content-length with transfer-encoding",
	  OK200 "Content-Length: 5\r\n" TE "\r\n5\r\nhello\r\n0\r\n\r\n",
	  0, 0, 0, 0, 0, 0, "both", -1 },
	{ "bad trailer", OK200 TE "\r\n0\r\nBad Trailer: x\r\n\r\n",
	  0, 0, 0, 0, 0, 0, "trailer name", -1 },
	{ "garbage after the response is the next one's error",
	  OK200 "Content-Length: 1\r\n\r\nxyz",
	  0, 0, 1, 200, 1, 1, "HTTP/1.", 0 },
};

static int same(const struct result *a, const struct result *b)
{
	return a->nresp == b->nresp && a->status == b->status &&
	       a->keepalive == b->keepalive && a->body_len == b->body_len &&
	       a->rc == b->rc && a->at == b->at &&
	       (a->err == b->err ||
		(a->err && b->err && strcmp(a->err, b->err) == 0));
}

static void test_table(void)
{
	static const size_t splits[] = { 1, 2, 3, 7, 64 };
	struct result whole, part;
	size_t i, k, len;
	int good;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct tcase *t = &cases[i];

		/* Inputs with an embedded NUL: strlen would stop there. */
		len = strlen(t->in);
		if (strcmp(t->name, "NUL in a value") == 0)
			len = sizeof(OK200 "X-A: b\0c\r\n\r\n") - 1;
		run(t->in, len, t->head, t->eof, len, &whole);
		good = whole.nresp == t->nresp &&
		       whole.status == t->status &&
		       whole.keepalive == t->keepalive &&
		       (long long)whole.body_len == t->body_len &&
		       (t->err ? whole.rc == -EBADMSG && whole.err &&
				 strstr(whole.err, t->err) &&
				 (t->at < 0 || (long long)whole.at == t->at)
			       : whole.rc == 0);
		if (!tap_ok(good, "%s", t->name))
			printf("#   nresp %d status %d keepalive %d body %llu "
			       "rc %d err \"%s\" at %llu\n", whole.nresp,
			       whole.status, whole.keepalive,
			       (unsigned long long)whole.body_len, whole.rc,
			       whole.err ? whole.err : "",
			       (unsigned long long)whole.at);
		good = 1;
		for (k = 0; k < sizeof(splits) / sizeof(splits[0]); k++) {
			run(t->in, len, t->head, t->eof, splits[k], &part);
			if (!same(&whole, &part)) {
				good = 0;
				printf("#   split %zu differs\n", splits[k]);
			}
		}
		tap_ok(good, "%s: same result fed in pieces", t->name);
	}
}

/* Header sections over the limit are refused, at the limit accepted. */
static void test_huge(void)
{
	static char buf[70000];
	struct result r;
	size_t len;

	len = (size_t)snprintf(buf, sizeof(buf), OK200 "X-Big: ");
	memset(buf + len, 'a', 20000);
	len += 20000;
	len += (size_t)snprintf(buf + len, sizeof(buf) - len,
				"\r\nContent-Length: 0\r\n\r\n");
	run(buf, len, 0, 0, 4096, &r);
	tap_ok(r.rc == -EBADMSG && r.err && strstr(r.err, "too large") &&
	       r.at == HTTP_PARSE_MAX_HEADER, "20 kB header refused at "
	       "the %u-byte limit (at %llu)", HTTP_PARSE_MAX_HEADER,
	       (unsigned long long)r.at);

	/* Exactly max_header bytes of head is fine. */
	len = (size_t)snprintf(buf, sizeof(buf), OK200 "X-Big: ");
	memset(buf + len, 'a', HTTP_PARSE_MAX_HEADER);
	len = HTTP_PARSE_MAX_HEADER - strlen("\r\nContent-Length: 0\r\n\r\n");
	len += (size_t)snprintf(buf + len, sizeof(buf) - len,
				"\r\nContent-Length: 0\r\n\r\n");
	run(buf, len, 0, 0, len, &r);
	tap_ok(r.rc == 0 && r.nresp == 1, "head of exactly the limit "
	       "accepted");

	/* An endless trailer is bounded too. */
	len = (size_t)snprintf(buf, sizeof(buf), OK200 TE "\r\n0\r\nX: ");
	memset(buf + len, 'b', 20000);
	len += 20000;
	run(buf, len, 0, 0, 4096, &r);
	tap_ok(r.rc == -EBADMSG && r.err && strstr(r.err, "too large"),
	       "20 kB trailer refused");

	/* And an endless chunk extension. */
	len = (size_t)snprintf(buf, sizeof(buf), OK200 TE "\r\n5;");
	memset(buf + len, 'e', 2000);
	len += 2000;
	run(buf, len, 0, 0, 4096, &r);
	tap_ok(r.rc == -EBADMSG && r.err && strstr(r.err, "extension"),
	       "2 kB chunk extension refused");
}

/* A failed parser stays failed; init makes it usable again. */
static void test_sticky(void)
{
	struct http_parse p;
	size_t used;
	const char bad[] = "XTTP/1.1 200 OK\r\n", good[] = OK200
		"Content-Length: 0\r\n\r\n";

	http_parse_init(&p, 0);
	TAP_EQ_INT(http_parse_feed(&p, bad, sizeof(bad) - 1, &used), -EBADMSG,
		   "bad start fails");
	TAP_EQ_INT(http_parse_feed(&p, good, sizeof(good) - 1, &used),
		   -EBADMSG, "still failed on good input");
	http_parse_init(&p, 0);
	TAP_EQ_INT(http_parse_feed(&p, good, sizeof(good) - 1, &used), 1,
		   "init resets");
	TAP_EQ_INT(used, sizeof(good) - 1, "used is the whole response");
	TAP_EQ_INT(http_parse_busy(&p), 0, "not busy after a response");
	TAP_EQ_INT(http_parse_feed(&p, good, 4, &used), 0, "partial");
	TAP_EQ_INT(http_parse_busy(&p), 1, "busy in a response");
}

int main(void)
{
	test_table();
	test_huge();
	test_sticky();
	return tap_done();
}
