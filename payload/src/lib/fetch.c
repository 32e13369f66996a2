/* lib/fetch.c: libcurl downloads, atomically into a file or to stdout. */
#include <curl/curl.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/fetch.h"
#include "lib/opt.h"
#include "lib/util.h"

static int curl_get(const char *url, FILE *out, long timeout_s, char *err,
		    size_t errlen)
{
	char cerr[CURL_ERROR_SIZE] = "";
	long status = 0;
	CURLcode cc;
	CURL *c;
	int rc = 0;

	c = curl_easy_init();
	if (!c) {
		return util_fail(err, errlen, -ENOMEM,
				 "%s: curl_easy_init failed", url);
	}
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, out);
	curl_easy_setopt(c, CURLOPT_ERRORBUFFER, cerr);
	curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 1L);
	curl_easy_setopt(c, CURLOPT_MAXREDIRS, 5L);
	curl_easy_setopt(c, CURLOPT_TIMEOUT, timeout_s);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_USERAGENT, "benchboot");
	cc = curl_easy_perform(c);
	if (cc != CURLE_OK) {
		snprintf(err, errlen, "%s: %s", url,
			 *cerr ? cerr : curl_easy_strerror(cc));
		rc = -EIO;
		goto out;
	}
	curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
	if (status >= 400) {
		snprintf(err, errlen, "%s: server answered HTTP %ld", url,
			 status);
		rc = -EIO;
	}
out:
	curl_easy_cleanup(c);
	return rc;
}

int fetch_to_file(const char *url, const char *path, long timeout_s,
		  char *err, size_t errlen)
{
	size_t plen = strlen(path) + sizeof(".part");
	char *part = malloc(plen);
	FILE *f = NULL;
	int rc;

	if (!part) {
		return util_fail(err, errlen, -ENOMEM, "%s: out of memory",
				 url);
	}
	snprintf(part, plen, "%s.part", path);
	f = fopen(part, "wb");
	if (!f) {
		rc = -errno;
		snprintf(err, errlen, "%s: %s", part, strerror(errno));
		goto err_free;
	}
	rc = curl_get(url, f, timeout_s, err, errlen);
	if (rc != 0)
		goto err_close;
	if (fflush(f) != 0 || fsync(fileno(f)) != 0) {
		rc = -errno;
		snprintf(err, errlen, "%s: %s", part, strerror(errno));
		goto err_close;
	}
	if (fclose(f) != 0) {
		f = NULL;
		rc = -errno;
		snprintf(err, errlen, "%s: %s", part, strerror(errno));
		goto err_unlink;
	}
	if (rename(part, path) != 0) {
		rc = -errno;
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		goto err_unlink;
	}
	free(part);
	return 0;

err_close:
	fclose(f);
err_unlink:
	unlink(part);
err_free:
	free(part);
	return rc;
}

static void fetch_usage(FILE *out)
{
	fprintf(out,
		"usage: benchboot fetch [-o FILE] [--timeout SECONDS] URL\n");
}

/* What the command line sets. */
struct fetch_cmdline {
	const char *path;	/* -o */
	uint64_t timeout;	/* seconds */
};

static const struct opt fetch_opt_tab[] = {
	{ .name = "output", .key = 'o', .kind = OPT_STR,
	  .off = OPT_AT(struct fetch_cmdline, path) },
	{ .name = "timeout", .key = 't', .kind = OPT_U64,
	  .off = OPT_AT(struct fetch_cmdline, timeout), .min = 1,
	  .max = 86400, .bad = "--timeout '%s': want seconds 1..86400" },
};

int fetch_main(int argc, char **argv)
{
	static const struct optset set = OPTSET("fetch", fetch_opt_tab,
						fetch_usage);
	struct fetch_cmdline cl = { .timeout = 60 };
	const char *path;
	uint64_t timeout;
	char err[512];
	int argi, rc;

	rc = opt_main(&set, &cl, argc, argv, &argi);
	if (rc != 0)
		return rc > 0 ? 0 : 2;
	path = cl.path;
	timeout = cl.timeout;
	if (argi != argc - 1) {
		fetch_usage(stderr);
		return 2;
	}
	curl_global_init(CURL_GLOBAL_DEFAULT);
	if (path)
		rc = fetch_to_file(argv[argi], path, (long)timeout, err,
				   sizeof(err));
	else
		rc = curl_get(argv[argi], stdout, (long)timeout, err,
			      sizeof(err));
	curl_global_cleanup();
	if (rc != 0) {
		util_err("fetch", -rc, "%s", err);
		return 1;
	}
	return 0;
}
