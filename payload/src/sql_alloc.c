/* sql_alloc.c: a per-thread cache of 8 KB heap blocks in front of musl's
 * allocator, so that `benchboot sql` does not make system calls for the
 * connector's per-result memory.
 *
 * Why: mariadb-connector-c allocates (and frees) two 8160-byte MEM_ROOT
 * blocks for every result set.  musl's mallocng unmaps a single-slot
 * group when its slot is freed, and madvise()s the pages of a freed slot
 * in a larger group: either way two or three system calls per statement,
 * about a third of the client's CPU per query.  Keeping up to
 * SQL_ALLOC_CACHE such blocks per thread removes them.
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

#if !defined(__GLIBC__) && !defined(SQL_NO_ALLOC_CACHE)

/* musl's internal entry points (hidden, but one static link). */
void *__libc_malloc(size_t n);
void __libc_free(void *p);

/* The connector's MEM_ROOT blocks are 8160 bytes; keep a little range
 * so a neighbouring size with the same pattern benefits too. */
#define SQL_ALLOC_MIN 6144
#define SQL_ALLOC_MAX 8192
#define SQL_ALLOC_CACHE 16

static __thread void *sql_alloc_blocks[SQL_ALLOC_CACHE];
static __thread size_t sql_alloc_sizes[SQL_ALLOC_CACHE];
static __thread unsigned sql_alloc_n;

void *malloc(size_t n)
{
	if (n > SQL_ALLOC_MIN && n <= SQL_ALLOC_MAX && sql_alloc_n &&
	    sql_alloc_sizes[sql_alloc_n - 1] >= n)
		return sql_alloc_blocks[--sql_alloc_n];
	return __libc_malloc(n);
}

void free(void *p)
{
	size_t n;

	if (!p)
		return;
	if (sql_alloc_n < SQL_ALLOC_CACHE) {
		/* musl reports the size that was asked for. */
		n = malloc_usable_size(p);
		if (n > SQL_ALLOC_MIN && n <= SQL_ALLOC_MAX) {
			sql_alloc_sizes[sql_alloc_n] = n;
			sql_alloc_blocks[sql_alloc_n++] = p;
			return;
		}
	}
	__libc_free(p);
}

#endif
