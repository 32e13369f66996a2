/* collector/collect.h: `benchboot collect`, the results collector: a small HTTP
 * server that stores each uploaded result document atomically, once per
 * result id, and lists what it holds (docs/agent.md). */
#ifndef BB_COLLECT_H
#define BB_COLLECT_H

#include <stddef.h>

#include "collector/collect_http.h"

/* `benchboot collect --dir DIR --listen ADDR:PORT [--token T |
 * --token-file F | --no-token] [--max-size N] [--max-conns N]
 * [--max-conns-per-peer N] [--timeout D]` (docs/agent.md).  Returns 0 on SIGTERM/SIGINT, 1 on
 * failure, 2 on a usage error (also: no address in --listen, or beyond
 * loopback without a token or --no-token). */
int collect_main(int argc, char **argv);

/* Beside the results in the store directory: the subdirectory that holds
 * documents set aside (ID.json with ID.reason saying why: one that failed
 * validation at indexing, or one that stopped the collector while it was
 * indexed), and the file that names the document being indexed. */
#define COLLECT_QUARANTINE "quarantine"
#define COLLECT_MARKER ".indexing"

#endif
