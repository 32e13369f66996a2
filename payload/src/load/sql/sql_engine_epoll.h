/* load/sql/sql_engine_epoll.h: the epoll engine, SQL_ENGINE=epoll (x86_64):
 * its whole contract is sql_engine.h, which it implements. */
#ifndef BB_SQL_ENGINE_EPOLL_H
#define BB_SQL_ENGINE_EPOLL_H

/* Many connections per thread (-t threads), each driven through the
 * connector's non-blocking start and cont calls from one epoll loop;
 * needs the connector's context switch, which musl builds have on
 * x86_64, i386 and aarch64 only (docs/sql.md). */
#include "load/sql/sql_engine.h"

#endif
