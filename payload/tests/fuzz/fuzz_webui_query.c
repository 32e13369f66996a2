/* fuzz_webui_query.c: libFuzzer target for the collector's page requests
 * (the path and query string of GET /ui...): webui_parse on any bytes
 * must either refuse with a reason or give decoded fields within their
 * bounds, without control characters, dates YYYY-MM-DD, ids of
 * [A-Za-z0-9._-]; and webui_filter_query's encoding of those fields must
 * parse back to the same filters. */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "collector/webui_query.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Bounded, no control character. */
static void fuzz_clean(const char *s, size_t size)
{
	size_t n = strnlen(s, size);

	if (n >= size)
		__builtin_trap();
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			__builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char target[600], err[256], q[4096], again[4200];
	struct webui_req r, back;
	int rc;

	if (size >= sizeof(target))
		return 0;
	memcpy(target, data, size);
	target[size] = 0;
	err[0] = 0;
	rc = webui_parse(target, &r, err, sizeof(err));
	if (rc != 0) {
		if ((rc != -EINVAL && rc != -ENOENT) || !err[0])
			__builtin_trap();
		return 0;
	}
	if (!webui_is_page(target))
		__builtin_trap();
	fuzz_clean(r.host, sizeof(r.host));
	fuzz_clean(r.suite, sizeof(r.suite));
	fuzz_clean(r.version, sizeof(r.version));
	fuzz_clean(r.digest, sizeof(r.digest));
	fuzz_clean(r.server, sizeof(r.server));
	fuzz_clean(r.id, sizeof(r.id));
	fuzz_clean(r.a, sizeof(r.a));
	fuzz_clean(r.b, sizeof(r.b));
	if ((r.from[0] && strlen(r.from) != 10) ||
	    (r.to[0] && strlen(r.to) != 10))
		__builtin_trap();
	if (strspn(r.id, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
		   "0123456789._-") != strlen(r.id))
		__builtin_trap();
	/* The filters, encoded, parse back to themselves. */
	if (webui_filter_query(&r, q, sizeof(q)) >= sizeof(q))
		__builtin_trap();
	strcpy(again, "/ui/?");
	strcat(again, q);
	if (webui_parse(again, &back, err, sizeof(err)) != 0 ||
	    strcmp(back.host, r.host) || strcmp(back.suite, r.suite) ||
	    strcmp(back.version, r.version) ||
	    strcmp(back.digest, r.digest) || strcmp(back.server, r.server) ||
	    strcmp(back.from, r.from) || strcmp(back.to, r.to))
		__builtin_trap();
	return 0;
}
