/* lib/malloc_cache.h: the contract of malloc_cache.c, a per-thread cache of
 * 8 KB heap blocks that replaces malloc() and free() for the whole binary.
 *
 * Nothing here is called by name: a static musl program that defines
 * malloc and free gets them in place of musl's own, so every allocation of
 * every module and library linked into `benchboot` (and into the unit
 * tests, which link every module) goes through malloc_cache.c.  That is
 * why it is binary-wide and not the sql workload's: the symbol can only be
 * replaced once per program.  The workload that needs it is `benchboot
 * sql` (mariadb-connector-c frees and reallocates two 8160-byte MEM_ROOT
 * blocks per result set, which musl turns into system calls; docs/sql.md).
 *
 * The contract for every caller, which is everyone:
 * - malloc, free, realloc, calloc, malloc_usable_size keep their C and
 *   musl meaning; a cached block is an ordinary musl block, so realloc()
 *   of it, malloc_usable_size() of it and a free() from another thread
 *   are all valid.
 * - A request of MALLOC_CACHE_MIN+1 .. MALLOC_CACHE_MAX bytes may be
 *   served from the calling thread's cache (a block at least that large
 *   that the thread freed earlier); everything else, and every block when
 *   the cache is full, goes to musl unchanged.
 * - Each thread keeps at most MALLOC_CACHE_SLOTS blocks (128 KB) that are
 *   never returned to musl while the thread lives; a thread that exits
 *   leaks its cached blocks (the workloads' threads live as long as the
 *   process).
 * - Built with glibc (the fuzzers, host clang) or with
 *   -DMALLOC_CACHE_OFF (e.g. `make EXTRA_CFLAGS=-DMALLOC_CACHE_OFF`, to
 *   measure without it) the module defines nothing and musl's allocator
 *   is used as is.  The old name of that switch, SQL_NO_ALLOC_CACHE, is
 *   still honoured. */
#ifndef BB_MALLOC_CACHE_H
#define BB_MALLOC_CACHE_H

/* The connector's MEM_ROOT blocks are 8160 bytes; keep a little range
 * so a neighbouring size with the same pattern benefits too. */
#define MALLOC_CACHE_MIN 6144
#define MALLOC_CACHE_MAX 8192
/* Blocks kept per thread at most (16 x 8 KB). */
#define MALLOC_CACHE_SLOTS 16

#endif
