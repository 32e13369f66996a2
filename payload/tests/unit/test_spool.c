/* test_spool.c: the result spool: atomic put, pending queue, delivery to
 * a file:// target, a failing target keeps results pending, a repeated
 * delivery stores one copy; suite loading through a file:// URL; the TLS
 * settings checked before any upload.  With arguments it is the uploader
 * 632_collect_tls.sh drives (the agent's options are not ours to test):
 *   test_spool --upload URL FILE ID CA|- PIN|- TOKEN|-
 * exits 0 when delivered, else 1 with the reason on stderr. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <curl/curl.h>

#include "spool/spool.h"
#include "controller/suite.h"
#include "tap.h"

static int file_eq(const char *path, const char *want)
{
	char buf[256];
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return 0;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	return strcmp(buf, want) == 0;
}

/* spool_dest_check's verdicts: 0 or -EINVAL with a word of the reason. */
static void test_dest_check(void)
{
#define PIN "sha256//AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="
	static const struct {
		struct spool_dest d;
		int rc;
		const char *why;
	} cases[] = {
		{ { .url = "https://h/r/", .pin = PIN }, 0, "" },
		{ { .url = "https://h/r/", .pin = PIN ";" PIN }, 0, "" },
		{ { .url = "https://h/r/", .ca = "/etc/hostname" }, 0, "" },
		{ { .url = "http://h/r/", .token = "t" }, 0, "" },
		{ { .url = "http://h/r/", .pin = PIN }, -EINVAL, "https://" },
		{ { .url = "file:///x", .ca = "/etc/hostname" }, -EINVAL,
		  "https://" },
		{ { .url = "https://h/r/", .ca = "/no/such/ca.pem" }, -EINVAL,
		  "/no/such/ca.pem" },
		{ { .url = "https://h/r/", .pin = "sha1//AAAA" }, -EINVAL,
		  "sha256//" },
		{ { .url = "https://h/r/", .pin = "sha256//short" }, -EINVAL,
		  "sha256//" },
		{ { .url = "https://h/r/", .pin = PIN ";junk" }, -EINVAL,
		  "junk" },
		{ { .url = NULL }, -EINVAL, "URL" },
	};
#undef PIN
	char err[256];
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int rc;

		err[0] = 0;
		rc = spool_dest_check(&cases[i].d, err, sizeof(err));
		if (!tap_ok(rc == cases[i].rc && strstr(err, cases[i].why),
			    "dest check %zu: %s", i, cases[i].rc ?
			    cases[i].why : "accepted"))
			printf("#   rc %d, err '%s'\n", rc, err);
	}
}

/* The uploader mode (see the top of the file). */
static int upload_main(char **argv)
{
	struct spool_dest d = { .url = argv[2], .timeout_s = 10 };
	char err[1024];
	int rc;

	d.ca = strcmp(argv[5], "-") ? argv[5] : NULL;
	d.pin = strcmp(argv[6], "-") ? argv[6] : NULL;
	d.token = strcmp(argv[7], "-") ? argv[7] : NULL;
	curl_global_init(CURL_GLOBAL_DEFAULT);
	rc = spool_upload_to(&d, argv[4], argv[3], err, sizeof(err));
	if (rc != 0)
		fprintf(stderr, "upload: %s\n", err);
	return rc ? 1 : 0;
}

int main(int argc, char **argv)
{
	char dir[] = "/tmp/bb-spool-test.XXXXXX", path[512], url[600],
	     err[512];
	const char *top = getenv("TOP");
	struct suite s;
	int rc;

	if (argc == 8 && strcmp(argv[1], "--upload") == 0)
		return upload_main(argv);
	curl_global_init(CURL_GLOBAL_DEFAULT);
	test_dest_check();
	if (!mkdtemp(dir)) {
		tap_ok(0, "mkdtemp");
		return tap_done();
	}
	snprintf(path, sizeof(path), "%s/spool", dir);
	rc = spool_put(path, "r1", "{\"id\":\"r1\"}", 11, 1, err, sizeof(err));
	TAP_EQ_INT(rc, 0, "put r1 (queued)");
	rc = spool_put(path, "r2", "{\"id\":\"r2\"}", 11, 1, err, sizeof(err));
	TAP_EQ_INT(rc, 0, "put r2 (queued)");
	rc = spool_put(path, "r3", "{\"id\":\"r3\"}", 11, 0, err, sizeof(err));
	TAP_EQ_INT(rc, 0, "put r3 (kept, not queued)");
	TAP_EQ_INT(spool_pending(path), 2, "two pending");
	snprintf(url, sizeof(url), "%s/spool/results/r1.json", dir);
	tap_ok(file_eq(url, "{\"id\":\"r1\"}"), "results/r1.json holds it");

	/* A target that cannot be written: nothing leaves pending. */
	rc = spool_flush(path, "file:///proc/no/such/dir", NULL, 5, err,
			 sizeof(err));
	TAP_EQ_INT(rc, 2, "failing target: both still pending");
	tap_ok(strstr(err, "/proc/no/such/dir") != NULL,
	       "failure names the target");
	TAP_EQ_INT(spool_pending(path), 2, "pending untouched");

	snprintf(url, sizeof(url), "file://%s/usb", dir);
	rc = spool_flush(path, url, NULL, 5, err, sizeof(err));
	TAP_EQ_INT(rc, 0, "file:// target: all delivered");
	TAP_EQ_INT(spool_pending(path), 0, "nothing pending");
	snprintf(url, sizeof(url), "%s/usb/r2.json", dir);
	tap_ok(file_eq(url, "{\"id\":\"r2\"}"), "r2 delivered intact");
	snprintf(url, sizeof(url), "%s/usb/r3.json", dir);
	tap_ok(access(url, F_OK) != 0, "unqueued r3 not delivered");
	snprintf(url, sizeof(url), "%s/spool/results/r1.json", dir);
	tap_ok(access(url, F_OK) == 0, "results/ keeps delivered results");

	/* Delivering the same id again replaces it with the same bytes. */
	snprintf(url, sizeof(url), "file://%s/usb", dir);
	snprintf(path, sizeof(path), "%s/spool/results/r1.json", dir);
	rc = spool_upload(url, NULL, "r1", path, 5, err, sizeof(err));
	TAP_EQ_INT(rc, 0, "re-delivery is harmless");
	snprintf(path, sizeof(path), "%s/usb/r1.json", dir);
	tap_ok(file_eq(path, "{\"id\":\"r1\"}"), "one intact copy");

	/* An unreachable HTTP collector: -EIO with the reason. */
	snprintf(path, sizeof(path), "%s/spool/results/r1.json", dir);
	rc = spool_upload("http://127.0.0.1:1/results/", NULL, "r1", path, 5,
			  err, sizeof(err));
	TAP_EQ_INT(rc, -EIO, "refused connection is -EIO");
	tap_ok(strstr(err, "127.0.0.1:1/results/r1.json") != NULL,
	       "error names the URL with the id");

	/* A URL or a token too long to send whole: refused, not cut. */
	{
		static const struct { int url_len, token_len; } big[] = {
			{ 2100, 0 },	/* the URL alone */
			{ 2045, 0 },	/* fits, but not with "r1.json" */
			{ 40, 600 },	/* the token's header */
		};
		char *u, *t;
		size_t i;

		for (i = 0; i < sizeof(big) / sizeof(big[0]); i++) {
			u = malloc(big[i].url_len + 1);
			t = big[i].token_len ? malloc(big[i].token_len + 1)
					     : NULL;
			if (!u || (big[i].token_len && !t))
				abort();
			snprintf(u, big[i].url_len + 1,
				 "http://127.0.0.1:1/%0*d/",
				 big[i].url_len - 20, 0);
			if (t) {
				memset(t, 'k', big[i].token_len);
				t[big[i].token_len] = 0;
			}
			rc = spool_upload(u, t, "r1", path, 5, err,
					  sizeof(err));
			if (!tap_ok(rc == -ENAMETOOLONG,
				    "URL of %d bytes, token of %d: refused",
				    big[i].url_len, big[i].token_len))
				printf("#   rc %d: %s\n", rc, err);
			tap_ok(strstr(err, "too long") != NULL,
			       "the message says it is too long");
			free(u);
			free(t);
		}
	}

	/* Suites through a URL (libcurl, file://). */
	snprintf(url, sizeof(url), "file://%s/configs/suite/smoke.suite",
		 top ? top : getcwd(path, sizeof(path)));
	rc = suite_load(url, NULL, &s, err, sizeof(err));
	if (!tap_ok(rc == 0, "suite loads from a file:// URL"))
		printf("#   %s\n", err);
	if (rc == 0) {
		TAP_EQ_STR(s.name, "smoke", "its name");
		suite_free(&s);
	}
	snprintf(path, sizeof(path), "rm -rf '%s'", dir);
	if (system(path) != 0)
		tap_ok(0, "cleanup");
	return tap_done();
}
