/* test_collect.c: the collector's request head parser, table-driven:
 * complete, incomplete, malformed and oversized heads; what it does with
 * a head (collect_route: the token before anything else) and with a body
 * (collect_check_doc). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "collector/collect_http.h"
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

/* collect_route: a head (token "tok", viewer token "view", max-size 100)
 * to its verdict. */
static const struct {
	const char *head;
	int want;
	const char *pid;
} routes[] = {
	{ "GET / HTTP/1.1\r\nAuthorization: Bearer tok\r\n\r\n",
	  COLLECT_LIST, "" },
	{ "GET /results/a.json HTTP/1.1\r\nAuthorization: Bearer tok\r\n"
	  "\r\n", COLLECT_GET, "" },
	{ "PUT /results/r-1.json HTTP/1.1\r\nAuthorization: Bearer tok\r\n"
	  "Content-Length: 100\r\n\r\n", COLLECT_UPLOAD, "r-1" },
	{ "POST /results HTTP/1.1\r\nAuthorization: Bearer tok\r\n"
	  "Content-Length: 1\r\n\r\n", COLLECT_UPLOAD, "" },
	{ "GET / HTTP/1.1\r\n\r\n", 401, "" },
	{ "GET / HTTP/1.1\r\nAuthorization: Bearer to\r\n\r\n", 401, "" },
	{ "GET / HTTP/1.1\r\nAuthorization: Bearer tok2\r\n\r\n", 401, "" },
	{ "GET / HTTP/1.1\r\nAuthorization: bearer tok\r\n\r\n", 401, "" },
	/* The token comes first: a 401 says nothing about the rest. */
	{ "PUT /x HTTP/1.1\r\nContent-Length: 999\r\n\r\n", 401, "" },
	{ "DELETE /a.json HTTP/1.1\r\nAuthorization: Bearer tok\r\n\r\n",
	  405, "" },
	{ "PUT /a.json HTTP/1.1\r\nAuthorization: Bearer tok\r\n\r\n",
	  411, "" },
	{ "PUT /a.json HTTP/1.1\r\nAuthorization: Bearer tok\r\n"
	  "Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n",
	  411, "" },
	{ "PUT /a.json HTTP/1.1\r\nAuthorization: Bearer tok\r\n"
	  "Content-Length: 101\r\n\r\n", 413, "" },
	{ "PUT /a HTTP/1.1\r\nAuthorization: Bearer tok\r\n"
	  "Content-Length: 5\r\n\r\n", 400, "" },
	{ "PUT /.json HTTP/1.1\r\nAuthorization: Bearer tok\r\n"
	  "Content-Length: 5\r\n\r\n", 400, "" },
	/* The viewer's token, as a browser sends it: Basic "x:view". */
	{ "GET /ui/ HTTP/1.1\r\nAuthorization: Basic eDp2aWV3\r\n\r\n",
	  COLLECT_GET, "" },
	{ "GET / HTTP/1.1\r\nAuthorization: basic eDp2aWV3\r\n\r\n",
	  COLLECT_LIST, "" },
	/* ... opens no upload, */
	{ "PUT /r-1.json HTTP/1.1\r\nAuthorization: Basic eDp2aWV3\r\n"
	  "Content-Length: 5\r\n\r\n", 401, "" },
	{ "POST / HTTP/1.1\r\nAuthorization: Basic eDp2aWV3\r\n"
	  "Content-Length: 5\r\n\r\n", 401, "" },
	/* and the upload token is no Basic password, nor a prefix of it, */
	{ "GET / HTTP/1.1\r\nAuthorization: Basic eDp0b2s=\r\n\r\n",
	  401, "" },
	{ "GET / HTTP/1.1\r\nAuthorization: Basic eDp2aWU=\r\n\r\n",
	  401, "" },
	/* nor credentials without a ':' or not base64. */
	{ "GET / HTTP/1.1\r\nAuthorization: Basic dmlldw==\r\n\r\n",
	  401, "" },
	{ "GET / HTTP/1.1\r\nAuthorization: Basic x:view\r\n\r\n",
	  401, "" },
	{ "GET / HTTP/1.1\r\nAuthorization: Bearer view\r\n\r\n",
	  401, "" },
};

/* collect_check_doc: a body (PUT path id "r1") to 0 or -EINVAL. */
static const struct {
	const char *body, *hdr_id;
	int rc;
	const char *why;
} docs[] = {
	{ "{\"schema\":\"benchboot.result/1\",\"id\":\"r1\"}", "", 0, "" },
	{ "{\"schema\":\"benchboot.result/1\",\"id\":\"r1\"}", "r1", 0,
	  "" },
	{ "{\"schema\":\"benchboot.result/1\",\"id\":\"r1\"}", "r2",
	  -EINVAL, "differs" },
	{ "{\"schema\":\"benchboot.result/1\",\"id\":\"r2\"}", "",
	  -EINVAL, "differs" },
	{ "{\"schema\":\"benchboot.result/1\",\"id\":\"../r1\"}", "",
	  -EINVAL, "schema" },
	{ "{\"schema\":\"x/1\",\"id\":\"r1\"}", "", -EINVAL, "schema" },
	{ "{\"schema\":\"benchboot.result/1\",\"id\":1}", "", -EINVAL,
	  "schema" },
	{ "[1]", "", -EINVAL, "schema" },
	{ "{nope", "", -EINVAL, "schema" },
	{ "", "", -EINVAL, "schema" },
};

static void test_route(void)
{
	struct collect_req r;
	char err[300], pid[200], id[130];
	size_t i;
	int rc;

	for (i = 0; i < sizeof(routes) / sizeof(routes[0]); i++) {
		err[0] = 0;
		rc = collect_parse_head(routes[i].head, strlen(routes[i].head),
					&r, err, sizeof(err));
		if (rc > 0)
			rc = collect_route(&r, "tok", "view", 100, pid,
					   sizeof(pid), err, sizeof(err));
		if (!tap_ok(rc == routes[i].want && (rc < 400 || err[0]) &&
			    strcmp(pid, routes[i].pid) == 0,
			    "route %zu: %d", i, routes[i].want))
			printf("#   got %d, pid '%s', err '%s'\n", rc, pid, err);
	}
	collect_parse_head(routes[4].head, strlen(routes[4].head), &r, err,
			   sizeof(err));
	TAP_EQ_INT(collect_route(&r, NULL, NULL, 100, pid, sizeof(pid), err,
				 sizeof(err)), COLLECT_LIST,
		   "no token set: no Authorization needed");
	for (i = 0; i < sizeof(docs) / sizeof(docs[0]); i++) {
		memset(&r, 0, sizeof(r));
		snprintf(r.result_id, sizeof(r.result_id), "%s",
			 docs[i].hdr_id);
		err[0] = 0;
		rc = collect_check_doc(docs[i].body, strlen(docs[i].body), &r,
				       "r1", id, sizeof(id), err, sizeof(err));
		if (!tap_ok(rc == docs[i].rc && strstr(err, docs[i].why) &&
			    (rc || strcmp(id, "r1") == 0), "doc %zu: %s", i,
			    rc ? docs[i].why : "accepted"))
			printf("#   got %d, err '%s'\n", rc, err);
	}
}

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
	test_route();
	return tap_done();
}
