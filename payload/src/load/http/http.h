/* load/http/http.h: `benchboot http`, the HTTP/1.1 load generator: one
 * edge-triggered epoll loop per thread, keep-alive, pipelining, closed or
 * open (wrk2-style) loop; docs/http.md. */
#ifndef BB_HTTP_H
#define BB_HTTP_H

#include "lib/opt.h"

/* Error classes of a run, in the order the record lists them. */
enum http_err {
	HTTP_E_CONNECT,	/* connect() failed, refused or timed out */
	HTTP_E_READ,	/* read error, reset, or closed mid-response */
	HTTP_E_WRITE,	/* write error */
	HTTP_E_TIMEOUT,	/* a request unanswered after --timeout */
	HTTP_E_4XX,	/* a complete response with status 400..499 */
	HTTP_E_5XX,	/* a complete response with status 500..599 */
	HTTP_E_STATUS,	/* any other status that is not 2xx/3xx */
	HTTP_E_PARSE,	/* a malformed response (http_parse) */
	HTTP_E_N,
};

/* `benchboot http [-t N] [-c N] [-d DUR] [options] URL [URL...]`: loads
 * one HTTP server for --warmup + -d, then prints the summary (or the
 * benchboot.workload/1 record with --json).  Returns 0 when the run
 * completed (failures are counted in the result), 1 when it could not
 * run (unresolvable host, no memory, thread creation), 2 on a usage
 * error. */
int http_main(int argc, char **argv);

/* The options http_main() parses with, for the agent to resolve a
 * controller's argv by (agent/policy.h); its offsets are into http.c's
 * own config, so only opt_walk() may use it from outside. */
extern const struct optset http_optset;

#endif
