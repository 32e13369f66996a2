/* load/http/http_target.h: what `benchboot http` requests: URLs, brace patterns for
 * file trees, URL list files, and the request bytes built once from them. */
#ifndef BB_HTTP_TARGET_H
#define BB_HTTP_TARGET_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

/* Expanding patterns stops here: a typo (or a controller's hostile
 * pattern) must not eat the memory.  Paths at most, their bytes at most,
 * and the requests built from them at most. */
#define HTTP_TARGET_MAX 1000000u
#define HTTP_TARGET_MAX_BYTES (16u << 20)
#define HTTP_TARGET_MAX_REQ_BYTES (64u << 20)

struct http_target_set {
	/* The server every URL names (one run loads one server). */
	char scheme[8];		/* "http" or "https" */
	char host[256];		/* without IPv6 brackets */
	char port[8];
	char hosthdr[300];	/* Host: header value */
	struct sockaddr_storage addr;	/* after http_target_resolve() */
	socklen_t addrlen;

	/* Paths (with query), owned, and their bytes (NULs included). */
	char **paths;
	uint32_t npaths, cap;
	size_t path_bytes;

	/* After http_target_build(): request i is reqs[off[i]..+len[i]). */
	char *reqs;
	uint32_t *off, *len;
	uint32_t maxlen;
};

/* Zeroes ts. */
void http_target_init(struct http_target_set *ts);

/* Adds one URL "http[s]://host[:port][/path]" (https only serves the curl
 * engine), where the path may hold brace
 * ranges "{A..B}" (decimal; "{00..99}" pads to the width of A) and lists
 * "{a,b,c}", expanded as a shell would ("/d{0..99}/f{0..9}.html" is 1000
 * paths).  Every URL must name the same server as the first one.
 * Returns 0, -EINVAL (err says what and where: bad scheme, host, port,
 * brace, another server), -ENOMEM, or -E2BIG (over HTTP_TARGET_MAX
 * paths or HTTP_TARGET_MAX_BYTES of them). */
int http_target_add_url(struct http_target_set *ts, const char *url,
			char *err, size_t errlen);

/* Adds every URL of a file, one per line (blank lines and lines starting
 * with '#' skipped); a line that is just "/path" takes the first URL's
 * server.  Returns 0 or a negative errno with err naming file:line. */
int http_target_add_file(struct http_target_set *ts, const char *path,
			 char *err, size_t errlen);

/* Resolves the server's address (first result of getaddrinfo) into
 * ts->addr.  Returns 0 or -EHOSTUNREACH with err set. */
int http_target_resolve(struct http_target_set *ts, char *err,
			size_t errlen);

/* Builds every request once: "METHOD path HTTP/1.1", Host, User-Agent,
 * "Connection: close" when close is set, then the extra header lines
 * (each "Name: value", no CRLF; may be NULL/0).  Returns 0, -EINVAL (a
 * header with CR/LF or no colon, err says which), -E2BIG (the requests
 * would take more than HTTP_TARGET_MAX_REQ_BYTES) or -ENOMEM. */
int http_target_build(struct http_target_set *ts, const char *method,
		      int close, char *const *headers, size_t nheaders,
		      char *err, size_t errlen);

/* Frees everything ts owns; ts can be reused after http_target_init(). */
void http_target_free(struct http_target_set *ts);

#endif
