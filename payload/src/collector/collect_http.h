/* collector/collect_http.h: the collector's request parsers, pure (no I/O):
 * the HTTP request head, the route a head asks for, and the check of an
 * uploaded document before it is stored.  Fuzzed (fuzz_collect_http). */
#ifndef BB_COLLECT_HTTP_H
#define BB_COLLECT_HTTP_H

#include <stddef.h>

#include "proto/upload.h"

/* Largest request head the collector reads. */
#define COLLECT_MAX_HEAD 16384

/* What the collector needs from a request head. */
struct collect_req {
	char method[8];
	char path[256];
	long long content_length;	/* -1 when absent */
	int chunked;			/* Transfer-Encoding: chunked */
	int expect_continue;		/* Expect: 100-continue */
	char auth[300];			/* Authorization value, or "" */
	char result_id[UPLOAD_ID_MAX + 2];	/* UPLOAD_ID_HEADER, or "" */
};

/* Parses an HTTP/1.x request head from buf (len bytes, need not be
 * NUL-terminated).  Returns the head's length including the blank line
 * when complete, 0 when more bytes are needed, -EMSGSIZE when the head
 * exceeds COLLECT_MAX_HEAD or a field its buffer, or -EINVAL for anything
 * malformed (message in err): bad request line, unknown version, header
 * without a colon, control characters, bad or repeated Content-Length. */
int collect_parse_head(const char *buf, size_t len, struct collect_req *req,
		       char *err, size_t errlen);

/* Whether s is a valid result id: 1..128 of [A-Za-z0-9._-], not starting
 * with '.'. */
int collect_id_ok(const char *s);

/* What to do with a parsed request (collect_route). */
enum collect_action {
	COLLECT_LIST = 1,	/* GET / or /results: the listing */
	COLLECT_GET,		/* GET .../ID.json: one stored result */
	COLLECT_UPLOAD,		/* PUT or POST: read Content-Length bytes */
};

/* Decides a request from its head alone, before a byte of body is read:
 * the credentials first, then the method, the length against max_size and
 * a PUT path's id (copied to pid, pidlen bytes; "" for POST).  token
 * (NULL: none required) opens everything as "Authorization: Bearer
 * TOKEN"; view_token (NULL: none) opens GET alone, as the password of
 * HTTP Basic credentials with any user name, which a browser asks for and
 * sends: people who read the pages need not hold the agents' upload
 * token.  Both are compared in constant time.  Returns an enum
 * collect_action, or the HTTP status to answer (401, 405, 411, 413,
 * 400) with the reason in err. */
int collect_route(const struct collect_req *req, const char *token,
		  const char *view_token, long long max_size, char *pid,
		  size_t pidlen, char *err, size_t errlen);

/* Checks an uploaded body (len bytes): a JSON object with "schema"
 * "benchboot.result/..." and a valid "id" that agrees with the PUT
 * path's pid and the request's X-Benchboot-Result-Id (either may be "").
 * Copies the id to id (idlen bytes).  Returns 0, or -EINVAL with the
 * reason in err. */
int collect_check_doc(const char *body, size_t len,
		      const struct collect_req *req, const char *pid,
		      char *id, size_t idlen, char *err, size_t errlen);

#endif
