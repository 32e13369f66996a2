/* test_http_target.c: URL parsing, brace patterns and URL files of
 * `benchboot http`, and the request bytes built from them. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "load/http/http_target.h"
#include "tap.h"

static const struct {
	const char *url;
	int rc;
	unsigned npaths;
	const char *first, *last, *hosthdr;	/* or the error substring */
} cases[] = {
	{ "http://127.0.0.1:8080/index.html", 0, 1, "/index.html",
	  "/index.html", "127.0.0.1:8080" },
	{ "http://example.com", 0, 1, "/", "/", "example.com" },
	{ "HTTP://example.com:80?q=1", 0, 1, "/?q=1", "/?q=1",
	  "example.com" },
	{ "http://[::1]:81/x", 0, 1, "/x", "/x", "[::1]:81" },
	{ "http://h/d{00..99}/f{0..9}.html", 0, 1000, "/d00/f0.html",
	  "/d99/f9.html", "h" },
	{ "http://h/{a,bb,}x", 0, 3, "/ax", "/x", "h" },
	{ "http://h/{3..1}", 0, 3, "/3", "/1", "h" },
	{ "http://h/{007..010}", 0, 4, "/007", "/010", "h" },
	{ "https://h/", 0, 1, "/", "/", "h" },
	{ "https://h:8443/a", 0, 1, "/a", "/a", "h:8443" },
	{ "ftp://h/", -EINVAL, 0, "http://", NULL, NULL },
	{ "http:///x", -EINVAL, 0, "no host", NULL, NULL },
	{ "http://h:0/", -EINVAL, 0, "bad port", NULL, NULL },
	{ "http://h:65536/", -EINVAL, 0, "bad port", NULL, NULL },
	{ "http://h:80x/", -EINVAL, 0, "bad port", NULL, NULL },
	{ "http://[::1/", -EINVAL, 0, "']'", NULL, NULL },
	{ "http://[::1]x/", -EINVAL, 0, "after ']'", NULL, NULL },
	{ "http://fe80::1/", -EINVAL, 0, "without [ ]", NULL, NULL },
	{ "http://[fe80::1]/", 0, 1, "/", "/", "[fe80::1]" },
	{ "http://h/a b", -EINVAL, 0, "space", NULL, NULL },
	{ "http://h/{1..3", -EINVAL, 0, "never closed", NULL, NULL },
	{ "http://h/1..3}", -EINVAL, 0, "without '{'", NULL, NULL },
	{ "http://h/{x..3}", -EINVAL, 0, "bad range", NULL, NULL },
	{ "http://h/{1..}", -EINVAL, 0, "bad range", NULL, NULL },
	{ "http://h/{abc}", -EINVAL, 0, "neither", NULL, NULL },
	{ "http://h/{{1,2}}", -EINVAL, 0, "nested", NULL, NULL },
	{ "http://h/{0..999}{0..999}{0..9}", -E2BIG, 0, "more than", NULL,
	  NULL },
};

static void test_urls(void)
{
	struct http_target_set ts;
	char err[512];
	size_t i;
	int rc, good;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		http_target_init(&ts);
		err[0] = 0;
		rc = http_target_add_url(&ts, cases[i].url, err, sizeof(err));
		if (cases[i].rc == 0)
			good = rc == 0 && ts.npaths == cases[i].npaths &&
			       strcmp(ts.paths[0], cases[i].first) == 0 &&
			       strcmp(ts.paths[ts.npaths - 1],
				      cases[i].last) == 0 &&
			       strcmp(ts.hosthdr, cases[i].hosthdr) == 0;
		else
			good = rc == cases[i].rc &&
			       strstr(err, cases[i].first) != NULL &&
			       strstr(err, cases[i].url) != NULL;
		if (!tap_ok(good, "url %s", cases[i].url))
			printf("#   rc %d npaths %u first '%s' host '%s' "
			       "err '%s'\n", rc, ts.npaths,
			       ts.npaths ? ts.paths[0] : "", ts.hosthdr, err);
		http_target_free(&ts);
	}
}

static void test_same_server(void)
{
	struct http_target_set ts;
	char err[512];

	http_target_init(&ts);
	TAP_EQ_INT(http_target_add_url(&ts, "http://h:81/a", err, sizeof(err)),
		   0, "first URL");
	TAP_EQ_INT(http_target_add_url(&ts, "http://H:81/b", err, sizeof(err)),
		   0, "same server, host case differs");
	tap_ok(http_target_add_url(&ts, "http://h:82/c", err,
				   sizeof(err)) == -EINVAL &&
	       strstr(err, "another server"), "another port is refused");
	tap_ok(http_target_add_url(&ts, "https://h:81/c", err,
				   sizeof(err)) == -EINVAL &&
	       strstr(err, "another server"), "another scheme is refused");
	http_target_free(&ts);
}

static void test_file(void)
{
	struct http_target_set ts;
	char path[] = "/tmp/test_http_target.XXXXXX", err[512];
	FILE *f;
	int fd, rc;

	fd = mkstemp(path);
	f = fdopen(fd, "w");
	fprintf(f, "# comment\n\nhttp://h:81/a\n  /b{1..2}  \r\n/c\n");
	fclose(f);
	http_target_init(&ts);
	rc = http_target_add_file(&ts, path, err, sizeof(err));
	tap_ok(rc == 0 && ts.npaths == 4 && strcmp(ts.paths[3], "/c") == 0 &&
	       strcmp(ts.paths[2], "/b2") == 0, "URL file: URL, bare "
	       "paths, patterns, comments");
	http_target_free(&ts);

	f = fopen(path, "w");
	fprintf(f, "http://h/a\n\nhttp://h/{1..\n");
	fclose(f);
	http_target_init(&ts);
	rc = http_target_add_file(&ts, path, err, sizeof(err));
	tap_ok(rc == -EINVAL && strstr(err, ":3: ") &&
	       strstr(err, "never closed"), "URL file error names file:line "
	       "(%s)", err);
	http_target_free(&ts);

	f = fopen(path, "w");
	fprintf(f, "/a\n");
	fclose(f);
	http_target_init(&ts);
	rc = http_target_add_file(&ts, path, err, sizeof(err));
	tap_ok(rc == -EINVAL && strstr(err, ":1: a bare path"),
	       "bare path without a server refused");
	http_target_free(&ts);
	unlink(path);

	http_target_init(&ts);
	rc = http_target_add_file(&ts, "/nonexistent/urls", err, sizeof(err));
	tap_ok(rc == -ENOENT && strstr(err, "/nonexistent/urls"),
	       "missing URL file named");
	http_target_free(&ts);
}

static void test_build(void)
{
	static char *hdrs[] = { "X-A: 1", "Accept: */*" };
	static char *bad[] = { "NoColon" };
	struct http_target_set ts;
	char err[512], req[512];
	uint32_t i, total = 0;
	int ok = 1;

	http_target_init(&ts);
	http_target_add_url(&ts, "http://h:81/p{1..20}", err, sizeof(err));
	TAP_EQ_INT(http_target_build(&ts, "GET", 1, hdrs, 2, err,
				     sizeof(err)), 0, "build 20 requests");
	for (i = 0; i < ts.npaths; i++) {
		snprintf(req, sizeof(req), "GET /p%u HTTP/1.1\r\nHost: h:81\r\n"
			 "User-Agent: benchboot/", i + 1);
		if (ts.len[i] < strlen(req) ||
		    memcmp(ts.reqs + ts.off[i], req, strlen(req)) != 0 ||
		    memcmp(ts.reqs + ts.off[i] + ts.len[i] - 42,
			   "Connection: close\r\nX-A: 1\r\nAccept: */*\r\n\r\n",
			   42) != 0 || ts.off[i] != total)
			ok = 0;
		total += ts.len[i];
	}
	tap_ok(ok, "each request is exact and back to back");
	http_target_free(&ts);

	http_target_init(&ts);
	http_target_add_url(&ts, "http://h/", err, sizeof(err));
	tap_ok(http_target_build(&ts, "GET", 0, bad, 1, err,
				 sizeof(err)) == -EINVAL &&
	       strstr(err, "NoColon"), "header without a colon refused");
	http_target_free(&ts);
}

/* The expansion's byte caps: paths past HTTP_TARGET_MAX_BYTES, and the
 * requests built from them past HTTP_TARGET_MAX_REQ_BYTES, are refused
 * with a message before the memory is taken. */
static void test_caps(void)
{
	static char url[2100], hdr[7200];
	char *hdrs[1] = { hdr };
	struct http_target_set ts;
	char err[512];
	int rc;

	/* 10000 paths of 2 KB: 20 MB of paths. */
	memcpy(url, "http://h/", 9);
	memset(url + 9, 'x', 2000);
	strcpy(url + 2009, "{0..9999}");
	http_target_init(&ts);
	err[0] = 0;
	rc = http_target_add_url(&ts, url, err, sizeof(err));
	tap_ok(rc == -E2BIG && strstr(err, "16 MiB"),
	       "caps: 20 MB of paths refused, saying the cap (%s)", err);
	tap_ok(ts.path_bytes <= HTTP_TARGET_MAX_BYTES,
	       "caps: no more than the cap was kept");
	http_target_free(&ts);
	/* 10000 short paths with a 7 KB header: 70 MB of requests. */
	http_target_init(&ts);
	rc = http_target_add_url(&ts, "http://h/{0..9999}", err,
				 sizeof(err));
	memcpy(hdr, "X-Pad: ", 7);
	memset(hdr + 7, 'p', sizeof(hdr) - 8);
	hdr[sizeof(hdr) - 1] = 0;
	err[0] = 0;
	rc = rc ? rc : http_target_build(&ts, "GET", 0, hdrs, 1, err,
					 sizeof(err));
	tap_ok(rc == -E2BIG && strstr(err, "64 MiB") && !ts.reqs,
	       "caps: 70 MB of requests refused before allocating (%s)", err);
	http_target_free(&ts);
}

int main(void)
{
	test_caps();
	test_urls();
	test_same_server();
	test_file();
	test_build();
	return tap_done();
}
