/* webui_query.h: the request target of the collector's pages (`/ui...`):
 * which page, and its query string decoded into known, bounded fields.
 * Pure: no sockets, no database; the network input fuzz_webui_query
 * feeds. */
#ifndef BB_WEBUI_QUERY_H
#define BB_WEBUI_QUERY_H

#include <stddef.h>

/* The pages (docs/collect.md#pages). */
enum webui_kind {
	WEBUI_INDEX = 1,		/* /ui, /ui/: the runs, filtered */
	WEBUI_RUN,		/* /ui/run?id=ID: one run's report */
	WEBUI_COMPARE,		/* /ui/compare?a=ID&b=ID: two runs */
	WEBUI_TREND,		/* /ui/trend?suite=S&version=V...: charts */
};

/* Longest decoded value, in bytes. */
#define WEBUI_VAL_MAX 128

/* A decoded request: each field "" when absent. */
struct webui_req {
	enum webui_kind kind;
	char host[WEBUI_VAL_MAX + 1];	/* a host id (any role) */
	char suite[WEBUI_VAL_MAX + 1];
	char version[WEBUI_VAL_MAX + 1];
	char digest[WEBUI_VAL_MAX + 1];	/* image digest */
	char server[WEBUI_VAL_MAX + 1];	/* server identity */
	char from[11], to[11];		/* YYYY-MM-DD, UTC, inclusive */
	char id[WEBUI_VAL_MAX + 1];	/* run */
	char a[WEBUI_VAL_MAX + 1], b[WEBUI_VAL_MAX + 1];	/* compare */
};

/* Whether target (a request's path with its query) is a page's: "/ui",
 * or "/ui" followed by '/' or '?'. */
int webui_is_page(const char *target);

/* Parses target into r: the path names the page, the query string
 * (after '?') holds KEY=VALUE pairs split by '&', %XX and '+' decoded.
 * Keys: host, suite, version, digest, server, from, to, id, a, b; an
 * empty value is the same as none.  Returns 0, -ENOENT for a path that
 * is no page, or -EINVAL with the reason in err: an unknown or repeated
 * key, a bad escape, a value over WEBUI_VAL_MAX bytes or with a control
 * character, a date not YYYY-MM-DD, a run id not of [A-Za-z0-9._-], a
 * missing id (run), a or b (compare), or suite and version (trend). */
int webui_parse(const char *target, struct webui_req *r, char *err,
	       size_t errlen);

/* Writes the query string of r's filters (host .. to, in that order,
 * only those set), each value %XX-encoded but for [A-Za-z0-9._-], to out
 * (outlen bytes, always terminated).  Returns the length it needed. */
size_t webui_filter_query(const struct webui_req *r, char *out,
			 size_t outlen);

#endif
