/* load/sql/sql_engine_threads.h: the thread-per-connection engine,
 * SQL_ENGINE=threads (ppc64le, ppc): its contract is sql_engine.h. */
#ifndef BB_SQL_ENGINE_THREADS_H
#define BB_SQL_ENGINE_THREADS_H

/* One thread per connection (-t is ignored), blocking connector calls:
 * for connectors without the non-blocking API (no context switch in
 * musl on these architectures; docs/sql.md). */
#include "load/sql/sql_engine.h"

#endif
