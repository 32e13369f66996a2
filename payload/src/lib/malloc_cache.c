/* lib/malloc_cache.c: a per-thread cache of 8 KB heap blocks in front of musl's
 * allocator, so that `benchboot sql` does not make system calls for the
 * connector's per-result memory.  It replaces malloc() and free() for the
 * whole binary (a program has one malloc); the contract is malloc_cache.h.
 *
 * Why: mariadb-connector-c allocates (and frees) two 8160-byte MEM_ROOT
 * blocks for every result set.  musl's mallocng unmaps a single-slot
 * group when its slot is freed, and madvise()s the pages of a freed slot
 * in a larger group: either way two or three system calls per statement,
 * about a third of the client's CPU per query.  Keeping up to
 * MALLOC_CACHE_SLOTS such blocks per thread removes them.
 *
 * How: musl lets a static program replace malloc and free (its own free
 * is a separate object that is then not linked; its malloc is weak).
 * Everything else goes straight to musl's implementation (__libc_malloc,
 * __libc_free), so the only change for the rest of the binary is one
 * comparison per call.  Cached blocks are ordinary musl blocks: realloc,
 * malloc_usable_size and a free by another thread all stay valid. */
#include <stddef.h>
#include <malloc.h>
#include <stdlib.h>

#include "lib/malloc_cache.h"

/* SQL_NO_ALLOC_CACHE is the switch's name from before the rename. */
#if !defined(__GLIBC__) && !defined(MALLOC_CACHE_OFF) && \
	!defined(SQL_NO_ALLOC_CACHE)

/* musl's internal entry points (hidden, but one static link). */
void *__libc_malloc(size_t n);
void __libc_free(void *p);

static __thread void *malloc_cache_blocks[MALLOC_CACHE_SLOTS];
static __thread size_t malloc_cache_sizes[MALLOC_CACHE_SLOTS];
static __thread unsigned malloc_cache_n;

void *malloc(size_t n)
{
	if (n > MALLOC_CACHE_MIN && n <= MALLOC_CACHE_MAX && malloc_cache_n &&
	    malloc_cache_sizes[malloc_cache_n - 1] >= n)
		return malloc_cache_blocks[--malloc_cache_n];
	return __libc_malloc(n);
}

void free(void *p)
{
	size_t n;

	if (!p)
		return;
	if (malloc_cache_n < MALLOC_CACHE_SLOTS) {
		/* musl reports the size that was asked for. */
		n = malloc_usable_size(p);
		if (n > MALLOC_CACHE_MIN && n <= MALLOC_CACHE_MAX) {
			malloc_cache_sizes[malloc_cache_n] = n;
			malloc_cache_blocks[malloc_cache_n++] = p;
			return;
		}
	}
	__libc_free(p);
}

#endif
