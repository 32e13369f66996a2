/* fuzz_http_parse.c: libFuzzer target for the response parser.  Byte 0
 * picks HEAD mode and a split size; the stream is parsed whole and in
 * pieces, and both must agree (and never read out of bounds). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "load/http/http_parse.h"

struct out {
	int nresp, rc, status, keepalive;
	uint64_t body;
	const char *err;
};

static void run(const uint8_t *d, size_t len, int head, size_t chunk,
		int eof, struct out *o)
{
	struct http_parse p;
	size_t off = 0, n, used;
	int rc;

	memset(o, 0, sizeof(*o));
	http_parse_init(&p, head);
	while (off < len) {
		n = len - off < chunk ? len - off : chunk;
		rc = http_parse_feed(&p, (const char *)d + off, n, &used);
		if (used > n)
			abort();
		if (rc < 0) {
			o->rc = rc;
			o->err = p.error;
			if (!p.error || http_parse_feed(&p, "H", 1, &used) >= 0)
				abort();	/* errors say what and stick */
			return;
		}
		if (rc == 0 && used != n)
			abort();
		if (rc == 1) {
			if (p.status < 100 || p.status > 599)
				abort();
			o->nresp++;
			o->status = p.status;
			o->keepalive = p.keepalive;
			o->body += p.body_len;
		}
		off += used;
	}
	if (eof) {
		rc = http_parse_eof(&p);
		if (rc < 0) {
			o->rc = rc;
			o->err = p.error;
		} else if (rc == 1) {
			o->nresp++;
			o->body += p.body_len;
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct out a, b;
	int head, eof;
	size_t chunk;

	if (size < 1)
		return 0;
	head = data[0] & 1;
	eof = (data[0] >> 1) & 1;
	chunk = (data[0] >> 2) + 1;
	data++;
	size--;
	run(data, size, head, size ? size : 1, eof, &a);
	run(data, size, head, chunk, eof, &b);
	if (a.nresp != b.nresp || a.rc != b.rc || a.status != b.status ||
	    a.keepalive != b.keepalive || a.body != b.body || a.err != b.err)
		abort();
	return 0;
}
