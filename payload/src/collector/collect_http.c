/* collector/collect_http.c: what the collector makes of a request before any of
 * it touches the store: the request head parser, the route decided from
 * the head alone (token first) and the uploaded document's check.  Pure
 * functions of bytes (collect.h), apart from the server so that
 * fuzz_collect_http links them alone. */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <cjson/cJSON.h>
#include <mbedtls/base64.h>

#include "collector/collect_http.h"
#include "lib/util.h"

int collect_id_ok(const char *s)
{
	size_t n;

	if (!s || s[0] == '.')
		return 0;
	for (n = 0; s[n]; n++)
		if (n >= UPLOAD_ID_MAX || !((s[n] >= 'a' && s[n] <= 'z') ||
				  (s[n] >= 'A' && s[n] <= 'Z') ||
				  (s[n] >= '0' && s[n] <= '9') ||
				  s[n] == '.' || s[n] == '_' || s[n] == '-'))
			return 0;
	return n > 0;
}

/* Copies a header value (trimmed) into out; -EMSGSIZE if it does not fit. */
static int collect_copy(const char *v, size_t vl, char *out, size_t outlen)
{
	while (vl > 0 && (*v == ' ' || *v == '\t'))
		v++, vl--;
	while (vl > 0 && (v[vl - 1] == ' ' || v[vl - 1] == '\t'))
		vl--;
	if (vl >= outlen)
		return -EMSGSIZE;
	memcpy(out, v, vl);
	out[vl] = 0;
	return 0;
}

/* "METHOD PATH VERSION" from the line p..eol into req. */
static int collect_request_line(const char *p, const char *eol,
				struct collect_req *req, char *err,
				size_t errlen)
{
	const char *sp1, *sp2;
	size_t ml, pl;

	sp1 = memchr(p, ' ', (size_t)(eol - p));
	sp2 = sp1 ? memchr(sp1 + 1, ' ', (size_t)(eol - sp1 - 1)) : NULL;
	if (!sp1 || !sp2)
		return util_fail(err, errlen, -EINVAL,
				 "request line: expected METHOD PATH VERSION");
	ml = (size_t)(sp1 - p);
	pl = (size_t)(sp2 - sp1 - 1);
	if (ml == 0 || ml >= sizeof(req->method))
		return util_fail(err, errlen, -EINVAL,
				 "request line: bad method");
	if (pl == 0 || sp1[1] != '/')
		return util_fail(err, errlen, -EINVAL,
				 "request line: path must start with '/'");
	if (pl >= sizeof(req->path))
		return util_fail(err, errlen, -EMSGSIZE,
				 "request line: path over %zu bytes",
				 sizeof(req->path) - 1);
	if ((size_t)(eol - sp2 - 1) != 8 ||
	    (memcmp(sp2 + 1, "HTTP/1.1", 8) != 0 &&
	     memcmp(sp2 + 1, "HTTP/1.0", 8) != 0))
		return util_fail(err, errlen, -EINVAL,
				 "request line: expected HTTP/1.0 or HTTP/1.1");
	memcpy(req->method, p, ml);
	memcpy(req->path, sp1 + 1, pl);
	return 0;
}

/* A header the collector reads: its value v (vl bytes, untrimmed) into
 * req.  Returns 0, a negative errno with err set, or 1 when the value
 * does not fit (the caller names the header). */
struct collect_hdr {
	const char *name;
	int (*fn)(struct collect_req *req, const char *v, size_t vl,
		  char *err, size_t errlen);
};

static int collect_hdr_length(struct collect_req *req, const char *v,
			      size_t vl, char *err, size_t errlen)
{
	char num[32];
	char *e;

	if (req->content_length >= 0)
		return util_fail(err, errlen, -EINVAL,
				 "repeated Content-Length");
	if (collect_copy(v, vl, num, sizeof(num)) != 0 ||
	    num[0] < '0' || num[0] > '9')
		return util_fail(err, errlen, -EINVAL, "bad Content-Length");
	errno = 0;
	req->content_length = strtoll(num, &e, 10);
	if (errno || *e || req->content_length < 0)
		return util_fail(err, errlen, -EINVAL, "bad Content-Length");
	return 0;
}

static int collect_hdr_te(struct collect_req *req, const char *v, size_t vl,
			  char *err, size_t errlen)
{
	req->chunked = 1;
	return 0;
}

static int collect_hdr_expect(struct collect_req *req, const char *v,
			      size_t vl, char *err, size_t errlen)
{
	char ex[32] = "";

	collect_copy(v, vl, ex, sizeof(ex));
	req->expect_continue = strcasecmp(ex, "100-continue") == 0;
	return 0;
}

static int collect_hdr_auth(struct collect_req *req, const char *v,
			    size_t vl, char *err, size_t errlen)
{
	return collect_copy(v, vl, req->auth, sizeof(req->auth)) ? 1 : 0;
}

static int collect_hdr_id(struct collect_req *req, const char *v, size_t vl,
			  char *err, size_t errlen)
{
	return collect_copy(v, vl, req->result_id,
			    sizeof(req->result_id)) ? 1 : 0;
}

/* The headers the collector reads; the rest are ignored. */
static const struct collect_hdr collect_hdrs[] = {
	{ "Content-Length", collect_hdr_length },
	{ "Transfer-Encoding", collect_hdr_te },
	{ "Expect", collect_hdr_expect },
	{ UPLOAD_AUTH_HEADER, collect_hdr_auth },
	{ UPLOAD_ID_HEADER, collect_hdr_id },
};

/* One "Name: value" line p..eol into req. */
static int collect_header(const char *p, const char *eol,
			  struct collect_req *req, char *err, size_t errlen)
{
	const char *colon = memchr(p, ':', (size_t)(eol - p));
	size_t nl, i;
	int rc;

	if (!colon || colon == p)
		return util_fail(err, errlen, -EINVAL,
				 "header line without a name and ':'");
	nl = (size_t)(colon - p);
	for (i = 0; i < sizeof(collect_hdrs) / sizeof(collect_hdrs[0]); i++) {
		if (strlen(collect_hdrs[i].name) != nl ||
		    strncasecmp(p, collect_hdrs[i].name, nl) != 0)
			continue;
		rc = collect_hdrs[i].fn(req, colon + 1,
					(size_t)(eol - colon - 1), err,
					errlen);
		if (rc > 0)
			return util_fail(err, errlen, -EMSGSIZE,
					 "header %.*s too long",
					 (int)(nl > 40 ? 40 : nl), p);
		return rc;
	}
	return 0;
}

int collect_parse_head(const char *buf, size_t len, struct collect_req *req,
		       char *err, size_t errlen)
{
	const char *end = NULL, *p, *eol;
	size_t i, hl;
	int first = 1, rc;

	memset(req, 0, sizeof(*req));
	req->content_length = -1;
	for (i = 0; i + 3 < len && i < COLLECT_MAX_HEAD; i++)
		if (buf[i] == '\r' && buf[i + 1] == '\n' &&
		    buf[i + 2] == '\r' && buf[i + 3] == '\n') {
			end = buf + i + 2;
			break;
		}
	if (!end)
		return len >= COLLECT_MAX_HEAD ?
			util_fail(err, errlen, -EMSGSIZE,
				  "request head over %d bytes",
				  COLLECT_MAX_HEAD) : 0;
	hl = (size_t)(end - buf) + 2;
	for (p = buf; p < end; p = eol + 2) {
		eol = memchr(p, '\r', (size_t)(end - p));
		if (!eol || eol[1] != '\n')
			return util_fail(err, errlen, -EINVAL,
					 "bare CR in request head");
		for (i = 0; p + i < eol; i++)
			if ((unsigned char)p[i] < 0x20 && p[i] != '\t')
				return util_fail(err, errlen, -EINVAL,
						 "control character in request head");
		if (first)
			rc = collect_request_line(p, eol, req, err, errlen);
		else
			rc = collect_header(p, eol, req, err, errlen);
		if (rc != 0)
			return rc;
		first = 0;
	}
	if (first)
		return util_fail(err, errlen, -EINVAL, "empty request");
	return (int)hl;
}

/* Whether a and b are equal, in time that does not depend on where they
 * differ (a token compared byte by byte leaks its prefix to a timer). */
static int collect_secure_eq(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), i;
	unsigned char d = la != lb;

	for (i = 0; i < lb; i++)
		d |= (unsigned char)(a[i < la ? i : 0] ^ b[i]);
	return d == 0;
}

/* The id in a PUT path ".../ID.json" into pid; 0 or -EINVAL. */
static int collect_path_id(const char *path, char *pid, size_t pidlen)
{
	const char *base = strrchr(path, '/');
	size_t l;

	base = base ? base + 1 : path;
	l = strlen(base);
	if (l < 6 || strcmp(base + l - 5, ".json") != 0 || l - 5 >= pidlen)
		return -EINVAL;
	snprintf(pid, pidlen, "%.*s", (int)(l - 5), base);
	return 0;
}

/* Whether auth is "Basic B64" whose "user:password" has the password
 * want.  A password with a NUL in it never matches (strlen would cut it
 * short). */
static int collect_basic_ok(const char *auth, const char *want)
{
	unsigned char dec[sizeof(((struct collect_req *)0)->auth)];
	const unsigned char *colon;
	size_t n = 0;

	if (strncasecmp(auth, "Basic ", 6) != 0 ||
	    mbedtls_base64_decode(dec, sizeof(dec) - 1, &n,
				  (const unsigned char *)auth + 6,
				  strlen(auth + 6)) != 0 ||
	    memchr(dec, 0, n))
		return 0;
	dec[n] = 0;
	colon = memchr(dec, ':', n);
	return colon && collect_secure_eq((const char *)colon + 1, want);
}

int collect_route(const struct collect_req *req, const char *token,
		  const char *view_token, long long max_size, char *pid,
		  size_t pidlen, char *err, size_t errlen)
{
	int get = strcmp(req->method, "GET") == 0;
	char want[300];

	pid[0] = 0;
	snprintf(want, sizeof(want), UPLOAD_BEARER "%s", token ? token : "");
	if (token && !collect_secure_eq(req->auth, want) &&
	    !(get && view_token && collect_basic_ok(req->auth, view_token)))
		return util_fail(err, errlen, 401, view_token && get ?
				 "a valid 'Authorization: Bearer TOKEN', or the viewer token as the password of Basic credentials, is needed" :
				 "a valid 'Authorization: Bearer TOKEN' is needed");
	if (get)
		return strcmp(req->path, "/") == 0 ||
			strcmp(req->path, "/results") == 0 ||
			strcmp(req->path, "/results/") == 0 ?
			COLLECT_LIST : COLLECT_GET;
	if (strcmp(req->method, "PUT") != 0 &&
	    strcmp(req->method, "POST") != 0)
		return util_fail(err, errlen, 405, "%s: use GET, PUT or POST",
				 req->method);
	if (req->chunked || req->content_length < 0)
		return util_fail(err, errlen, 411, "uploads need a Content-Length (no chunked encoding)");
	if (req->content_length > max_size)
		return util_fail(err, errlen, 413,
				 "%lld bytes; the limit is %lld",
				 req->content_length, max_size);
	if (strcmp(req->method, "PUT") == 0 &&
	    collect_path_id(req->path, pid, pidlen) != 0)
		return util_fail(err, errlen, 400,
				 "PUT path must end in /ID.json");
	return COLLECT_UPLOAD;
}

int collect_check_doc(const char *body, size_t len,
		      const struct collect_req *req, const char *pid,
		      char *id, size_t idlen, char *err, size_t errlen)
{
	cJSON *doc = cJSON_ParseWithLength(body, len);
	const cJSON *jid, *sch;
	int rc = -EINVAL;

	jid = cJSON_GetObjectItemCaseSensitive(doc, "id");
	sch = cJSON_GetObjectItemCaseSensitive(doc, "schema");
	if (!cJSON_IsObject(doc) || !cJSON_IsString(sch) ||
	    strncmp(sch->valuestring, "benchboot.result/", 17) != 0 ||
	    !cJSON_IsString(jid) || !collect_id_ok(jid->valuestring))
		util_fail(err, errlen, rc, "expected a JSON object with \"schema\": \"benchboot.result/1\" and an \"id\" of [A-Za-z0-9._-]");
	else if ((pid[0] && strcmp(pid, jid->valuestring) != 0) ||
		 (req->result_id[0] &&
		  strcmp(req->result_id, jid->valuestring) != 0))
		util_fail(err, errlen, rc, "the id in the path or X-Benchboot-Result-Id differs from the document's \"id\" (%s)",
			  jid->valuestring);
	else if (strlen(jid->valuestring) >= idlen)
		util_fail(err, errlen, rc, "id too long");
	else
		rc = 0;
	if (rc == 0)
		snprintf(id, idlen, "%s", jid->valuestring);
	cJSON_Delete(doc);
	return rc;
}
