/* fuzz_ident.c: libFuzzer target for ident_parse's parsers of what a
 * foreign server sends (HTTP head, SMTP reply, MySQL handshake).  Checks
 * their invariants, not just crashes: a complete answer lies within the
 * input, kept texts are NUL-terminated within their arrays, a refusal says
 * why, and feeding a prefix never gives a different verdict than the
 * whole once the whole was complete within that prefix. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ident/ident_parse.h"

static void fuzz_http(const char *buf, size_t len, size_t cut)
{
	struct ident_http_head h, p;
	char err[128] = "";
	int rc, prc;

	rc = ident_http_head_parse(buf, len, &h, err, sizeof(err));
	if (rc < 0 && (rc != -EBADMSG || !err[0]))
		abort();
	if (rc == 1 && (h.head_len > len || h.status < 100 ||
			h.status > 599 || memchr(h.server, 0,
			sizeof(h.server)) == NULL || memchr(h.cgi, 0,
			sizeof(h.cgi)) == NULL || h.content_length < -1))
		abort();
	prc = ident_http_head_parse(buf, cut, &p, err, sizeof(err));
	/* A prefix that holds the whole head says the same. */
	if (rc == 1 && cut >= h.head_len &&
	    (prc != 1 || p.head_len != h.head_len || p.status != h.status))
		abort();
	/* A prefix of a good head is never refused. */
	if (rc >= 0 && prc < 0)
		abort();
}

static void fuzz_smtp(const char *buf, size_t len, size_t cut)
{
	struct ident_smtp_reply r, p;
	char err[128] = "";
	unsigned i;
	int rc, prc;

	rc = ident_smtp_reply_parse(buf, len, &r, err, sizeof(err));
	if (rc < 0 && (rc != -EBADMSG || !err[0]))
		abort();
	if (rc == 1) {
		if (r.len == 0 || r.len > len || r.code < 200 ||
		    r.code > 559 || r.n_ext > IDENT_EXT_MAX ||
		    !memchr(r.text, 0, sizeof(r.text)))
			abort();
		for (i = 0; i < r.n_ext; i++)
			if (!memchr(r.ext[i], 0, IDENT_EXT_LEN))
				abort();
	}
	prc = ident_smtp_reply_parse(buf, cut, &p, err, sizeof(err));
	if (rc == 1 && cut >= r.len && (prc != 1 || p.len != r.len))
		abort();
	if (rc >= 0 && prc < 0)
		abort();
}

static void fuzz_mysql(const uint8_t *buf, size_t len)
{
	char v[64], err[128] = "";
	int rc;

	memset(v, 'x', sizeof(v));
	rc = ident_mysql_hello_parse(buf, len, v, sizeof(v), err, sizeof(err));
	if (rc < 0 && ((rc != -EBADMSG && rc != -EPROTO) || !err[0]))
		abort();
	if (rc == 1 && !memchr(v, 0, sizeof(v)))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t cut;

	if (size < 2)
		return 0;
	/* The first byte picks the cut for the prefix checks. */
	cut = size > 1 ? data[0] % size : 0;
	fuzz_http((const char *)data + 1, size - 1, cut);
	fuzz_smtp((const char *)data + 1, size - 1, cut);
	fuzz_mysql(data + 1, size - 1);
	return 0;
}
