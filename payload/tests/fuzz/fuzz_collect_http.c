/* fuzz_collect_http.c: libFuzzer target for what the results collector
 * does with the raw bytes a client sends: the request head parser
 * (collect_parse_head, also fed a prefix as the poll loop does, which
 * must agree with the whole), the decision taken from the head alone
 * (collect_route: token, method, length, PUT path id) and the body's
 * check (collect_check_doc) on whatever follows the head. */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <strings.h>

#include "collector/collect_http.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The head's verdict and, for an upload, the body's. */
static void fuzz_route(const char *buf, size_t size, size_t hl,
		       const struct collect_req *r)
{
	char err[300], pid[200], id[130];
	int a;

	err[0] = 0;
	a = collect_route(r, "tok", "view", 4096, pid, sizeof(pid), err,
			  sizeof(err));
	if (a != COLLECT_LIST && a != COLLECT_GET && a != COLLECT_UPLOAD &&
	    (a < 400 || a > 499 || err[0] == 0))
		__builtin_trap();
	if (strlen(pid) >= sizeof(pid))
		__builtin_trap();
	/* No token, no way past 401; the viewer's opens GET alone. */
	if (a != 401 && strcmp(r->auth, "Bearer tok") != 0 &&
	    (strcmp(r->method, "GET") != 0 ||
	     strncasecmp(r->auth, "Basic ", 6) != 0))
		__builtin_trap();
	if (a != COLLECT_UPLOAD)
		return;
	if (collect_check_doc(buf + hl, size - hl, r, pid, id, sizeof(id),
			      err, sizeof(err)) == 0 &&
	    (!collect_id_ok(id) || (pid[0] && strcmp(pid, id) != 0) ||
	     (r->result_id[0] && strcmp(r->result_id, id) != 0)))
		__builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *buf = (const char *)data;
	struct collect_req r, rp;
	char err[256];
	size_t cut;
	int rc, rcp;

	err[0] = 0;
	rc = collect_parse_head(buf, size, &r, err, sizeof(err));
	if (rc > 0 && (size_t)rc > size)
		__builtin_trap();
	if (rc < 0 && err[0] == 0)
		__builtin_trap();
	/* A prefix (as a read may end anywhere): undecided, or the same
	 * verdict as the whole. */
	cut = size ? data[size - 1] % (size + 1) : 0;
	rcp = collect_parse_head(buf, cut, &rp, err, sizeof(err));
	if (rcp != 0 && rcp != rc)
		__builtin_trap();
	if (rc > 0) {
		(void)strlen(r.method);
		(void)strlen(r.path);
		(void)collect_id_ok(r.result_id);
		fuzz_route(buf, size, (size_t)rc, &r);
	}
	return 0;
}
