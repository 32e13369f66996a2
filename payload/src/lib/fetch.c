/* lib/fetch.c: libcurl downloads, atomically into a file or to a stream
 * (lib/fetch.h); `benchboot fetch` is core/fetch_cmd.c. */
#include <curl/curl.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/fetch.h"
#include "lib/util.h"

int fetch_to_stream(const char *url, FILE *out, long timeout_s, char *err,
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
	rc = fetch_to_stream(url, f, timeout_s, err, errlen);
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
