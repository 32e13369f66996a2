/* load/sql/sql_point_select.h: point-select's engine: the connector connects and logs in,
 * then each connection prepares its SELECT and executes it over its own
 * socket in the binary protocol (mysql_wire.h), one epoll loop a thread. */
#ifndef BB_SQL_POINT_SELECT_H
#define BB_SQL_POINT_SELECT_H

#include "load/sql/sql.h"

/* Bytes of reply a connection buffers; the longest packet it accepts is
 * this minus the 4-byte header. */
#define SQL_POINT_SELECT_RBUF 16384

/* The statement prepared on every connection, for table (at most 48
 * characters, checked by the caller): written into buf (cap bytes);
 * returns its length or -ENOSPC. */
int sql_point_select_statement(const char *table, char *buf, size_t cap);

/* Drives connections first..first+n-1 of run on the calling thread:
 * connect, prepare, count itself in run->setup_done, wait for run->go,
 * execute until run->end_ns, let the statements in flight finish (one
 * --timeout at most), close.  Counts into *st (the caller's, zeroed,
 * its histogram initialised) and sets st->end_at.  Returns 0, or
 * -ENOMEM when it could not start (then nothing ran). */
int sql_point_select_loop(struct sql_run *run, unsigned first, unsigned n,
		struct sql_stats *st);

#endif
