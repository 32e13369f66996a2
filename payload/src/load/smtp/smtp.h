/* load/smtp/smtp.h: `benchboot smtp`, the event-driven SMTP load generator
 * (RFC 5321, PIPELINING when offered); docs/smtp.md. */
#ifndef BB_SMTP_H
#define BB_SMTP_H

#include "lib/opt.h"

/* Error classes of a run, in the order the record lists them. */
enum smtp_err {
	SMTP_E_CONNECT,		/* connect() failed or was refused */
	SMTP_E_IO,		/* read/write error or unexpected close */
	SMTP_E_TIMEOUT,		/* no progress within --timeout */
	SMTP_E_4XX,		/* a 4xx reply (one per message) */
	SMTP_E_5XX,		/* a 5xx reply (one per message) */
	SMTP_E_PROTOCOL,	/* malformed reply or unexpected code */
	SMTP_E_N,
};

/* `benchboot smtp [-t N] [-c N] [-d DUR | -n COUNT] [--new-session]
 * [--rate R] [--message FILE] [--helo NAME] [--timeout DUR] [--json]
 * --from ADDR --to ADDR[,ADDR...] HOST:PORT`.  Sends mail until the
 * duration or the count is reached, then prints the summary (or the
 * workload record with --json).  Returns 0 when the run completed
 * (failures are counted in the result), 1 when it could not run (bad
 * address, unreadable message), 2 on a usage error. */
int smtp_main(int argc, char **argv);

/* The options smtp_main() parses with, for the agent to resolve a
 * controller's argv by (agent/policy.h); its offsets are into smtp.c's
 * own config, so only opt_walk() may use it from outside. */
extern const struct optset smtp_optset;

#endif
