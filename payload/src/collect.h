/* collect.h: `benchboot collect`, the results collector: a small HTTP
 * server that stores each uploaded result document atomically, once per
 * result id, and lists what it holds (docs/agent.md). */
#ifndef BB_COLLECT_H
#define BB_COLLECT_H

#include <stddef.h>

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
	char result_id[130];		/* X-Benchboot-Result-Id, or "" */
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

/* `benchboot collect --dir DIR --listen ADDR:PORT [--token T]
 * [--max-size N]`.  Returns 0 on SIGTERM/SIGINT, 1 on failure, 2 on a
 * usage error. */
int collect_main(int argc, char **argv);

#endif
