/* spool/spool.c: the result spool and its libcurl uploader.  A result is
 * on disk (fsync'd) before anyone tries to send it, and leaves pending/
 * only after the receiver confirmed it; the receiver deduplicates by id,
 * so a crash between the two re-sends at worst a copy it already holds. */
#include <curl/curl.h>
#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/json_int.h"
#include "spool/spool.h"
#include "lib/util.h"
#include "proto/upload.h"

static int spool_mkdirs(const char *path)
{
	char tmp[PATH_MAX];
	char *p;

	if (snprintf(tmp, sizeof(tmp), "%s", path) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	for (p = tmp + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = 0;
		if (mkdir(tmp, 0755) != 0 && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	if (mkdir(tmp, 0755) != 0 && errno != EEXIST)
		return -errno;
	return 0;
}

int spool_put(const char *dir, const char *id, const char *doc, size_t len,
	      int queue, char *err, size_t errlen)
{
	char res[PATH_MAX], pend[PATH_MAX], name[300], src[PATH_MAX + 320],
	     dst[PATH_MAX + 320];
	int rc;

	snprintf(res, sizeof(res), "%s/results", dir);
	snprintf(pend, sizeof(pend), "%s/pending", dir);
	snprintf(name, sizeof(name), "%s.json", id);
	rc = spool_mkdirs(res);
	if (rc == 0)
		rc = spool_mkdirs(pend);
	if (rc != 0) {
		return util_fail(err, errlen, rc, "spool %s: %s", dir,
				 strerror(-rc));
	}
	rc = util_write_atomic(res, name, doc, len);
	if (rc != 0) {
		return util_fail(err, errlen, rc, "%s/%s: %s", res, name,
				 strerror(-rc));
	}
	if (!queue)
		return 0;
	snprintf(src, sizeof(src), "%s/%s", res, name);
	snprintf(dst, sizeof(dst), "%s/%s", pend, name);
	if (link(src, dst) != 0 && errno != EEXIST) {
		rc = -errno;
		/* FAT (the USB stick's BBRESULTS) has no hard links: a copy,
		 * written the same atomic way. */
		if (rc == -EPERM || rc == -EOPNOTSUPP)
			rc = util_write_atomic(pend, name, doc, len);
		if (rc != 0)
			return util_fail(err, errlen, rc, "%s: %s", dst,
					 strerror(-rc));
	}
	util_fsync_dir(pend);
	return 0;
}

static size_t spool_discard(char *p, size_t sz, size_t n, void *ud)
{
	char *buf = ud;
	size_t have = strlen(buf), take = sz * n;

	/* Keep the start of the answer for the error message. */
	if (have < 200) {
		size_t k = take < 200 - have ? take : 200 - have;

		memcpy(buf + have, p, k);
		buf[have + k] = 0;
	}
	return sz * n;
}

static int spool_read(const char *path, char **data, size_t *len)
{
	struct stat st;
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) != 0) {
		close(fd);
		return -errno;
	}
	*data = malloc((size_t)st.st_size + 1);
	if (!*data) {
		close(fd);
		return -ENOMEM;
	}
	n = read(fd, *data, (size_t)st.st_size);
	close(fd);
	if (n != st.st_size) {
		free(*data);
		return -EIO;
	}
	(*data)[n] = 0;
	*len = (size_t)n;
	return 0;
}

int spool_dest_check(const struct spool_dest *d, char *err, size_t errlen)
{
	const char *p;
	size_t n;

	if (!d->url || !d->url[0])
		return util_fail(err, errlen, -EINVAL, "no upload URL");
	if ((d->ca || d->pin) && strncmp(d->url, "https://", 8) != 0)
		return util_fail(err, errlen, -EINVAL,
				 "%s: a CA file or a key pin needs an https:// URL",
				 d->url);
	if (d->ca && access(d->ca, R_OK) != 0)
		return util_fail(err, errlen, -EINVAL, "CA file %s: %s",
				 d->ca, strerror(errno));
	/* Each pin: sha256// and the 44 base64 characters of 32 bytes. */
	for (p = d->pin; p && *p; p += n + (p[n] == ';')) {
		n = strcspn(p, ";");
		if (n != 52 || strncmp(p, "sha256//", 8) != 0 ||
		    strspn(p + 8, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=") < 44)
			return util_fail(err, errlen, -EINVAL,
					 "key pin '%.60s': expected sha256//BASE64 (44 characters; several joined by ';')",
					 p);
	}
	return 0;
}

/* One request header's room, and the one a token shares it with. */
#define SPOOL_HDR_SIZE 512
#define SPOOL_BEARER UPLOAD_AUTH_HEADER ": " UPLOAD_BEARER

/* The request on c: method and URL for id, the body, headers (into *h,
 * freed by the caller), timeouts, and how the server is trusted.  Returns
 * 0, or -ENAMETOOLONG when the URL or a header does not fit (sent cut
 * short, it would go to another URL or fail its authentication). */
static int spool_curl_setup(CURL *c, const struct spool_dest *d,
			     const char *id, const char *data, size_t len,
			     char *full, size_t fulllen, struct curl_slist **h)
{
	size_t ul = strlen(d->url);
	char hdr[SPOOL_HDR_SIZE];
	int n;

	if (ul > 0 && d->url[ul - 1] == '/') {
		n = snprintf(full, fulllen, "%s%s.json", d->url, id);
		curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, "PUT");
	} else {
		n = snprintf(full, fulllen, "%s", d->url);
	}
	if (n < 0 || (size_t)n >= fulllen)
		return -ENAMETOOLONG;
	curl_easy_setopt(c, CURLOPT_URL, full);
	/* The URL may come from a kernel command line: HTTP(S) only, and
	 * no redirect to anywhere else. */
#if LIBCURL_VERSION_NUM >= 0x075500
	curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
#endif
	curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);
	curl_easy_setopt(c, CURLOPT_POSTFIELDS, data);
	curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)len);
	*h = curl_slist_append(*h, "Content-Type: application/json");
	/* One round trip: no 100-continue pause. */
	*h = curl_slist_append(*h, "Expect:");
	n = snprintf(hdr, sizeof(hdr), UPLOAD_ID_HEADER ": %s", id);
	if (n < 0 || (size_t)n >= sizeof(hdr))
		return -ENAMETOOLONG;
	*h = curl_slist_append(*h, hdr);
	if (d->token) {
		n = snprintf(hdr, sizeof(hdr), SPOOL_BEARER "%s",
			     d->token);
		if (n < 0 || (size_t)n >= sizeof(hdr))
			return -ENAMETOOLONG;
		*h = curl_slist_append(*h, hdr);
	}
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, *h);
	curl_easy_setopt(c, CURLOPT_TIMEOUT,
			 d->timeout_s > 0 ? d->timeout_s : 30L);
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, 10L);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_USERAGENT, "benchboot");
	if (d->ca)
		curl_easy_setopt(c, CURLOPT_CAINFO, d->ca);
	if (d->pin)
		curl_easy_setopt(c, CURLOPT_PINNEDPUBLICKEY, d->pin);
	if (d->pin && !d->ca) {
		/* The pinned key is the whole trust: a self-signed
		 * collector has no CA and may have any name. */
		curl_easy_setopt(c, CURLOPT_SSL_VERIFYPEER, 0L);
		curl_easy_setopt(c, CURLOPT_SSL_VERIFYHOST, 0L);
	}
	return 0;
}

/* Delivers data to a file:// target, atomically. */
static int spool_to_file(const char *url, const char *id, const char *data,
			 size_t len, char *err, size_t errlen)
{
	char name[300];
	int rc;

	snprintf(name, sizeof(name), "%s.json", id);
	rc = spool_mkdirs(url + 7);
	if (rc == 0)
		rc = util_write_atomic(url + 7, name, data, len);
	if (rc != 0)
		snprintf(err, errlen, "%s/%s: %s", url + 7, name,
			 strerror(-rc));
	return rc ? -EIO : 0;
}

/* A refusal that sending again cannot change: 4xx but 408 (the request
 * took too long) and 429 (too many requests). */
static int spool_permanent(long status)
{
	return status >= 400 && status < 500 && status != 408 && status != 429;
}

int spool_upload_to(const struct spool_dest *d, const char *id,
		    const char *path, char *err, size_t errlen)
{
	char cerr[CURL_ERROR_SIZE] = "", full[2048], body[256] = "";
	struct curl_slist *h = NULL;
	size_t len = 0;
	char *data = NULL;
	long status = 0;
	CURLcode cc;
	CURL *c;
	int rc;

	rc = spool_dest_check(d, err, errlen);
	if (rc != 0)
		return rc;
	rc = spool_read(path, &data, &len);
	if (rc != 0) {
		return util_fail(err, errlen, rc, "%s: %s", path,
				 strerror(-rc));
	}
	if (strncmp(d->url, "file://", 7) == 0) {
		rc = spool_to_file(d->url, id, data, len, err, errlen);
		free(data);
		return rc;
	}
	c = curl_easy_init();
	if (!c) {
		free(data);
		return util_fail(err, errlen, -ENOMEM, "curl_easy_init failed");
	}
	rc = spool_curl_setup(c, d, id, data, len, full, sizeof(full), &h);
	if (rc != 0) {
		util_fail(err, errlen, rc, "the upload URL with the id (at "
			  "most %zu bytes) or the token (at most %zu) is too "
			  "long: %.60s...", sizeof(full) - 1,
			  SPOOL_HDR_SIZE - sizeof(SPOOL_BEARER), d->url);
		goto done;
	}
	curl_easy_setopt(c, CURLOPT_ERRORBUFFER, cerr);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, spool_discard);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, body);
	cc = curl_easy_perform(c);
	if (cc != CURLE_OK) {
		snprintf(err, errlen, "%s: %s%s", full,
			 *cerr ? cerr : curl_easy_strerror(cc),
			 cc == CURLE_SSL_PINNEDPUBKEYNOTMATCH ?
			 " (the server's key is not the pinned one)" : "");
		rc = -EIO;
	} else {
		curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
		if (status != 200 && status != 201 && status != 204) {
			body[strcspn(body, "\r\n")] = 0;
			snprintf(err, errlen, "%s: HTTP %ld %s", full, status,
				 body);
			rc = spool_permanent(status) ? -EPERM : -EIO;
		}
	}
done:
	curl_slist_free_all(h);
	curl_easy_cleanup(c);
	free(data);
	return rc;
}

int spool_upload(const char *url, const char *token, const char *id,
		 const char *path, long timeout_s, char *err, size_t errlen)
{
	struct spool_dest d = { .url = url, .token = token,
				.timeout_s = timeout_s };

	return spool_upload_to(&d, id, path, err, errlen);
}

static int spool_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorted ids in pending/ (without .json); caller frees. */
static int spool_list(const char *dir, char ***names)
{
	char pend[PATH_MAX];
	struct dirent *de;
	char **v = NULL;
	int n = 0;
	DIR *d;

	snprintf(pend, sizeof(pend), "%s/pending", dir);
	d = opendir(pend);
	if (!d)
		return errno == ENOENT ? 0 : -errno;
	while ((de = readdir(d))) {
		size_t l = strlen(de->d_name);
		char **nv;

		if (de->d_name[0] == '.' || l < 6 ||
		    strcmp(de->d_name + l - 5, ".json") != 0)
			continue;
		nv = realloc(v, (size_t)(n + 1) * sizeof(*v));
		if (!nv)
			break;
		v = nv;
		v[n] = strndup(de->d_name, l - 5);
		if (v[n])
			n++;
	}
	closedir(d);
	if (n)
		qsort(v, (size_t)n, sizeof(*v), spool_cmp);
	*names = v;
	return n;
}

int spool_pending(const char *dir)
{
	char **names = NULL;
	int n = spool_list(dir, &names), i;

	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return n < 0 ? 0 : n;
}

int spool_flush(const char *dir, const char *url, const char *token,
		long timeout_s, char *err, size_t errlen)
{
	struct spool_dest d = { .url = url, .token = token,
				.timeout_s = timeout_s };

	return spool_flush_to(dir, &d, err, errlen);
}

/* Keeps a refused result in rejected/ with the receiver's answer (why),
 * so it leaves pending/ but is never lost.  Returns 0, or a negative
 * errno (then it stays pending). */
static int spool_reject(const char *dir, const char *id, const char *why)
{
	char rej[PATH_MAX], src[PATH_MAX], dst[PATH_MAX + 320], name[300],
	     *data = NULL;
	size_t len = 0;
	int rc;

	snprintf(rej, sizeof(rej), "%s/rejected", dir);
	rc = spool_mkdirs(rej);
	snprintf(name, sizeof(name), "%s.answer", id);
	if (rc == 0)
		rc = util_write_atomic(rej, name, why, strlen(why));
	snprintf(src, sizeof(src), "%s/pending/%s.json", dir, id);
	snprintf(dst, sizeof(dst), "%s/%s.json", rej, id);
	if (rc == 0 && link(src, dst) != 0 && errno != EEXIST)
		rc = -errno;
	/* No hard links on FAT (the USB stick): a copy. */
	if ((rc == -EPERM || rc == -EOPNOTSUPP) &&
	    (rc = spool_read(src, &data, &len)) == 0) {
		snprintf(name, sizeof(name), "%s.json", id);
		rc = util_write_atomic(rej, name, data, len);
		free(data);
	}
	if (rc == 0)
		util_fsync_dir(rej);
	return rc;
}

int spool_checkpoint(const char *dir, const char *id, const char *doc,
		     size_t len, char *err, size_t errlen)
{
	char part[PATH_MAX], name[300];
	int rc;

	snprintf(part, sizeof(part), "%s/partial", dir);
	snprintf(name, sizeof(name), "%s.json", id);
	rc = spool_mkdirs(part);
	if (rc == 0)
		rc = util_write_atomic(part, name, doc, len);
	if (rc != 0)
		return util_fail(err, errlen, rc, "%s/%s: %s", part, name, strerror(-rc));
	return 0;
}

void spool_checkpoint_done(const char *dir, const char *id)
{
	char path[PATH_MAX + 320];

	snprintf(path, sizeof(path), "%s/partial/%s.json", dir, id);
	if (unlink(path) == 0) {
		snprintf(path, sizeof(path), "%s/partial", dir);
		util_fsync_dir(path);
	}
}

/* One checkpoint: marked interrupted and spooled.  Returns 0 or a
 * negative errno (the checkpoint stays for the next try). */
static int spool_recover_one(const char *dir, const char *name,
			     const char *why, char *err, size_t errlen)
{
	char path[PATH_MAX + 320], id[300], *data = NULL, *text = NULL;
	size_t len = 0;
	cJSON *doc;
	int rc;

	snprintf(path, sizeof(path), "%s/partial/%s", dir, name);
	snprintf(id, sizeof(id), "%.*s", (int)(strlen(name) - 5), name);
	rc = spool_read(path, &data, &len);
	if (rc != 0)
		return util_fail(err, errlen, rc, "%s: %s", path, strerror(-rc));
	doc = json_int_parse(data, len, NULL, 0);
	free(data);
	if (!cJSON_IsObject(doc)) {
		cJSON_Delete(doc);
		return util_fail(err, errlen, -EINVAL, "%s: not a JSON object: left where it is", path);
	}
	cJSON_DeleteItemFromObject(doc, "interrupted");
	cJSON_AddStringToObject(doc, "interrupted", why);
	text = json_int_print(doc, 1);
	cJSON_Delete(doc);
	if (!text)
		return -ENOMEM;
	rc = spool_put(dir, id, text, strlen(text), 1, err, errlen);
	free(text);
	if (rc == 0)
		spool_checkpoint_done(dir, id);
	return rc;
}

int spool_checkpoint_load(const char *dir, const char *id, cJSON **doc,
			  time_t *mtime, char *err, size_t errlen)
{
	char path[PATH_MAX + 320], *data = NULL;
	struct stat st;
	size_t len = 0;
	int rc;

	*doc = NULL;
	snprintf(path, sizeof(path), "%s/partial/%s.json", dir, id);
	if (stat(path, &st) != 0)
		return -errno;
	*mtime = st.st_mtime;
	rc = spool_read(path, &data, &len);
	if (rc != 0)
		return util_fail(err, errlen, rc, "%s: %s", path, strerror(-rc));
	*doc = json_int_parse(data, len, NULL, 0);
	free(data);
	if (!cJSON_IsObject(*doc)) {
		cJSON_Delete(*doc);
		*doc = NULL;
		return util_fail(err, errlen, -EINVAL, "%s: not a JSON object", path);
	}
	return 0;
}

int spool_recover(const char *dir, const char *keep, const char *why,
		  char *err, size_t errlen)
{
	char part[PATH_MAX];
	struct dirent *de;
	int n = 0, rc = 0;
	DIR *d;

	snprintf(part, sizeof(part), "%s/partial", dir);
	d = opendir(part);
	if (!d)
		return errno == ENOENT ? 0 : -errno;
	while ((de = readdir(d))) {
		size_t l = strlen(de->d_name);

		if (de->d_name[0] == '.' || l < 6 ||
		    strcmp(de->d_name + l - 5, ".json") != 0)
			continue;
		if (keep && strlen(keep) == l - 5 &&
		    strncmp(de->d_name, keep, l - 5) == 0)
			continue;
		rc = spool_recover_one(dir, de->d_name, why, err, errlen);
		n += rc == 0;
	}
	closedir(d);
	return n ? n : rc;
}

int spool_rejected(const char *dir)
{
	char rej[PATH_MAX];
	struct dirent *de;
	DIR *d;
	int n = 0;

	snprintf(rej, sizeof(rej), "%s/rejected", dir);
	d = opendir(rej);
	while (d && (de = readdir(d))) {
		size_t l = strlen(de->d_name);

		n += l > 5 && strcmp(de->d_name + l - 5, ".json") == 0;
	}
	if (d)
		closedir(d);
	return n;
}

int spool_flush_to(const char *dir, const struct spool_dest *d, char *err,
		   size_t errlen)
{
	char **names = NULL, path[PATH_MAX];
	int n, i, rc, left = 0;

	i = spool_dest_check(d, err, errlen);
	if (i != 0)
		return i;
	n = spool_list(dir, &names);
	if (n < 0) {
		return util_fail(err, errlen, n, "%s/pending: %s", dir,
				 strerror(-n));
	}
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/pending/%s.json", dir,
			 names[i]);
		rc = spool_upload_to(d, names[i], path, err, errlen);
		if (rc == -EPERM)
			rc = spool_reject(dir, names[i], err);
		if (rc == 0) {
			unlink(path);
			snprintf(path, sizeof(path), "%s/pending", dir);
			util_fsync_dir(path);
		} else {
			left++;
		}
		free(names[i]);
	}
	free(names);
	return left;
}
