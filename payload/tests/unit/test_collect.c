/* test_collect.c: the collector's request head parser, table-driven:
 * complete, incomplete, malformed and oversized heads. */
#include <errno.h>
#include <string.h>

#include "collect.h"
#include "tap.h"

static const struct {
	const char *head;
	int rc;			/* >0: length of the whole head */
	const char *method, *path;
	long long clen;
} cases[] = {
	{ "PUT /results/a.json HTTP/1.1\r\nHost: x\r\nContent-Length: 12"
	  "\r\n\r\n", 61, "PUT", "/results/a.json", 12 },
	{ "GET / HTTP/1.0\r\n\r\n", 18, "GET", "/", -1 },
	{ "POST /r HTTP/1.1\r\ncontent-length:  5 \r\n\r\nhello", 41, "POST",
	  "/r", 5 },
	{ "PUT /a HTTP/1.1\r\nContent-Length: 1\r\n", 0, NULL, NULL, 0 },
	{ "PUT /a HTTP/1.1\r\n", 0, NULL, NULL, 0 },
	{ "PUT /a HTTP/2.0\r\n\r\n", -EINVAL, NULL, NULL, 0 },
	{ "PUT a HTTP/1.1\r\n\r\n", -EINVAL, NULL, NULL, 0 },
	{ "PUT\r\n\r\n", -EINVAL, NULL, NULL, 0 },
	{ "PUT /a HTTP/1.1\r\nNoColon\r\n\r\n", -EINVAL, NULL, NULL, 0 },
	{ "PUT /a HTTP/1.1\r\nContent-Length: -1\r\n\r\n", -EINVAL, NULL,
	  NULL, 0 },
	{ "PUT /a HTTP/1.1\r\nContent-Length: 1x\r\n\r\n", -EINVAL, NULL,
	  NULL, 0 },
	{ "PUT /a HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 1\r\n\r\n",
	  -EINVAL, NULL, NULL, 0 },
	{ "PUT /a HTTP/1.1\r\nX: a\x01\r\n\r\n", -EINVAL, NULL, NULL, 0 },
	{ "PUT /a HTTP/1.1\rX: a\r\n\r\n", -EINVAL, NULL, NULL, 0 },
	{ "PUTPUTPUT /a HTTP/1.1\r\n\r\n", -EINVAL, NULL, NULL, 0 },
};

int main(void)
{
	struct collect_req r;
	static char big[COLLECT_MAX_HEAD + 10];
	char err[256];
	size_t i;
	int rc;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		err[0] = 0;
		rc = collect_parse_head(cases[i].head, strlen(cases[i].head),
					&r, err, sizeof(err));
		if (!tap_ok(rc == cases[i].rc, "case %zu", i))
			printf("#   rc %d (want %d) err \"%s\"\n", rc,
			       cases[i].rc, err);
		if (rc > 0 && cases[i].method) {
			TAP_EQ_STR(r.method, cases[i].method, "method");
			TAP_EQ_STR(r.path, cases[i].path, "path");
			TAP_EQ_INT(r.content_length, cases[i].clen,
				   "content length");
		}
		if (rc < 0)
			tap_ok(err[0] != 0, "case %zu has a message", i);
	}
	{
		static const char h[] = "PUT /a HTTP/1.1\r\nAuthorization: "
			"Bearer t\r\nX-Benchboot-Result-Id: r1\r\nExpect: "
			"100-continue\r\nTransfer-Encoding: chunked\r\n\r\n";

		rc = collect_parse_head(h, sizeof(h) - 1, &r, err,
					sizeof(err));
	}
	tap_ok(rc > 0, "headers of interest parse");
	TAP_EQ_STR(r.auth, "Bearer t", "authorization");
	TAP_EQ_STR(r.result_id, "r1", "result id header");
	TAP_EQ_INT(r.expect_continue, 1, "expect 100-continue");
	TAP_EQ_INT(r.chunked, 1, "chunked noticed");
	memset(big, 'a', sizeof(big));
	memcpy(big, "GET /", 5);
	TAP_EQ_INT(collect_parse_head(big, sizeof(big), &r, err, sizeof(err)),
		   -EMSGSIZE, "head over the limit");
	TAP_EQ_INT(collect_id_ok("smoke-20261130T000000Z-c-1a2b"), 1,
		   "id ok");
	TAP_EQ_INT(collect_id_ok("../etc/passwd"), 0, "path in id refused");
	TAP_EQ_INT(collect_id_ok(".hidden"), 0, "leading dot refused");
	TAP_EQ_INT(collect_id_ok(""), 0, "empty refused");
	return tap_done();
}
