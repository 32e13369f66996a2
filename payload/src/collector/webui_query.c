/* webui_query.c: the collector's page requests, parsed strictly: a known
 * path, known keys each at most once, bounded decoded values. */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "collector/webui_query.h"
#include "lib/util.h"

int webui_is_page(const char *t)
{
	return strncmp(t, "/ui", 3) == 0 &&
		(t[3] == 0 || t[3] == '/' || t[3] == '?');
}

/* The query keys and where each goes. */
static const struct {
	const char *key;
	size_t off, size;
} webui_keys[] = {
#define PK(k) { #k, offsetof(struct webui_req, k), \
		sizeof(((struct webui_req *)0)->k) }
	PK(host), PK(suite), PK(version), PK(digest), PK(server), PK(from),
	PK(to), PK(id), PK(a), PK(b),
#undef PK
};
#define WEBUI_NKEYS (sizeof(webui_keys) / sizeof(webui_keys[0]))
#define WEBUI_NFILTERS 7		/* host .. to */

static int webui_hex(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c |= 0x20;
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* s..s+n decoded (%XX, '+' as space) into out (size bytes). */
static int webui_decode(const char *s, size_t n, char *out, size_t size,
		       const char *key, char *err, size_t errlen)
{
	size_t i, o = 0;

	for (i = 0; i < n; i++) {
		int c = (unsigned char)s[i];

		if (c == '+')
			c = ' ';
		else if (c == '%') {
			if (i + 2 >= n || webui_hex(s[i + 1]) < 0 ||
			    webui_hex(s[i + 2]) < 0)
				return util_fail(err, errlen, -EINVAL,
						 "%s: '%%' without two hex digits",
						 key);
			c = webui_hex(s[i + 1]) * 16 + webui_hex(s[i + 2]);
			i += 2;
		}
		if (c < 0x20 || c == 0x7f)
			return util_fail(err, errlen, -EINVAL,
					 "%s: a control character", key);
		if (o + 1 >= size)
			return util_fail(err, errlen, -EINVAL,
					 "%s: over %zu bytes", key, size - 1);
		out[o++] = (char)c;
	}
	out[o] = 0;
	return 0;
}

/* One KEY=VALUE pair p..p+n into r; seen marks keys already given. */
static int webui_pair(const char *p, size_t n, struct webui_req *r,
		     unsigned *seen, char *err, size_t errlen)
{
	const char *eq = memchr(p, '=', n);
	size_t kl = eq ? (size_t)(eq - p) : n, i;

	for (i = 0; i < WEBUI_NKEYS; i++)
		if (strlen(webui_keys[i].key) == kl &&
		    memcmp(webui_keys[i].key, p, kl) == 0)
			break;
	if (i == WEBUI_NKEYS)
		return util_fail(err, errlen, -EINVAL,
				 "unknown parameter '%.*s'",
				 (int)(kl > 32 ? 32 : kl), p);
	if (*seen & (1u << i))
		return util_fail(err, errlen, -EINVAL,
				 "parameter '%s' given twice",
				 webui_keys[i].key);
	*seen |= 1u << i;
	if (!eq)
		return 0;
	return webui_decode(eq + 1, n - kl - 1, (char *)r + webui_keys[i].off,
			   webui_keys[i].size, webui_keys[i].key, err, errlen);
}

/* Whether s is a result id (as collect_id_ok(): 1..128 of
 * [A-Za-z0-9._-], not starting with '.'). */
static int webui_id_ok(const char *s)
{
	size_t n = strlen(s);

	return n > 0 && n <= 128 && s[0] != '.' &&
		strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
		       "0123456789._-") == n;
}

/* Whether s is "" or YYYY-MM-DD. */
static int webui_date_ok(const char *s)
{
	int i;

	if (!s[0])
		return 1;
	for (i = 0; i < 10; i++)
		if (i == 4 || i == 7 ? s[i] != '-' : s[i] < '0' || s[i] > '9')
			return 0;
	return s[10] == 0;
}

/* What each page needs beyond the keys. */
static int webui_check(struct webui_req *r, char *err, size_t errlen)
{
	const char *ids[] = { r->id, r->a, r->b };
	size_t i;

	if (!webui_date_ok(r->from) || !webui_date_ok(r->to))
		return util_fail(err, errlen, -EINVAL,
				 "from/to: expected YYYY-MM-DD");
	for (i = 0; i < 3; i++)
		if (ids[i][0] && !webui_id_ok(ids[i]))
			return util_fail(err, errlen, -EINVAL,
					 "'%s' is not a result id", ids[i]);
	if (r->kind == WEBUI_RUN && !r->id[0])
		return util_fail(err, errlen, -EINVAL, "which run? (id=)");
	if (r->kind == WEBUI_COMPARE && (!r->a[0] || !r->b[0]))
		return util_fail(err, errlen, -EINVAL,
				 "compare needs two runs (a= and b=)");
	if (r->kind == WEBUI_TREND && (!r->suite[0] || !r->version[0]))
		return util_fail(err, errlen, -EINVAL,
				 "a trend is of one suite and version (suite= and version=)");
	return 0;
}

int webui_parse(const char *target, struct webui_req *r, char *err,
	       size_t errlen)
{
	static const struct {
		const char *path;
		enum webui_kind kind;
	} paths[] = {
		{ "/ui", WEBUI_INDEX }, { "/ui/", WEBUI_INDEX },
		{ "/ui/run", WEBUI_RUN }, { "/ui/compare", WEBUI_COMPARE },
		{ "/ui/trend", WEBUI_TREND },
	};
	const char *q = strchr(target, '?'), *p, *amp;
	size_t pl = q ? (size_t)(q - target) : strlen(target), i;
	unsigned seen = 0;
	int rc;

	memset(r, 0, sizeof(*r));
	for (i = 0; i < sizeof(paths) / sizeof(paths[0]); i++)
		if (strlen(paths[i].path) == pl &&
		    memcmp(paths[i].path, target, pl) == 0)
			r->kind = paths[i].kind;
	if (!r->kind)
		return util_fail(err, errlen, -ENOENT, "no such page");
	for (p = q ? q + 1 : ""; *p; p = *amp ? amp + 1 : amp) {
		amp = strchr(p, '&');
		if (!amp)
			amp = p + strlen(p);
		if (amp == p)
			continue;
		rc = webui_pair(p, (size_t)(amp - p), r, &seen, err, errlen);
		if (rc != 0)
			return rc;
	}
	return webui_check(r, err, errlen);
}

size_t webui_filter_query(const struct webui_req *r, char *out,
			 size_t outlen)
{
	size_t i, n = 0;
	const char *v;

	for (i = 0; i < WEBUI_NFILTERS; i++) {
		v = (const char *)r + webui_keys[i].off;
		if (!v[0])
			continue;
		n += (size_t)snprintf(out + (n < outlen ? n : outlen),
				      n < outlen ? outlen - n : 0, "%s%s=",
				      n ? "&" : "", webui_keys[i].key);
		for (; *v; v++) {
			unsigned char c = (unsigned char)*v;
			int plain = (c >= 'a' && c <= 'z') ||
				(c >= 'A' && c <= 'Z') ||
				(c >= '0' && c <= '9') || c == '.' ||
				c == '_' || c == '-';

			n += (size_t)snprintf(out + (n < outlen ? n : outlen),
					      n < outlen ? outlen - n : 0,
					      plain ? "%c" : "%%%02X", c);
		}
	}
	if (outlen)
		out[n < outlen ? n : outlen - 1] = 0;
	return n;
}
