/* load/smtp/smtp_sink.h: `benchboot smtp-sink`, a fast SMTP server that accepts and
 * counts mail (optionally storing each message durably): the relay
 * target of the smtp-relay step and the peer of the client's tests. */
#ifndef BB_SMTP_SINK_H
#define BB_SMTP_SINK_H

#include "lib/opt.h"

/* `benchboot smtp-sink [-t THREADS] [--store DIR] [--hostname NAME]
 * [--no-pipelining] [--tempfail-every N] [--reject-every N] [--json]
 * ADDR:PORT`.  Serves until SIGINT or SIGTERM, then prints what it
 * received (summary, or a workload record with --json).  With --store,
 * each message is written to DIR and fsync'ed before the 250 reply.
 * Returns 0 after a clean stop, 1 when it cannot listen or store, 2 on a
 * usage error. */
int smtp_sink_main(int argc, char **argv);

/* The options smtp_sink_main() parses with, for the agent to resolve a
 * controller's argv by (agent/policy.h); its offsets are into
 * smtp_sink.c's own config, so only opt_walk() may use it from outside. */
extern const struct optset smtp_sink_optset;

#endif
