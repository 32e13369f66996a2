/* sample_os_util.h: what every other system's sample_os.h backend does
 * alike with the followed processes (payload/src/os/): the names into a
 * reading, a slot per matching process, each name's pids sorted. */
#ifndef BB_SAMPLE_OS_UTIL_H
#define BB_SAMPLE_OS_UTIL_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../sample_os.h"

/* What every backend keeps first in its struct sample_os. */
#define SAMPLE_OS_COMMON \
	long hz, pagesize; \
	int nprocs; \
	char procs[SAMPLE_MAX_PROCS][SAMPLE_PROCNAME_LEN]

/* sample_os_hz() and sample_os_pagesize() from those fields. */
#define SAMPLE_OS_ACCESSORS \
	long sample_os_hz(const struct sample_os *os) { return os->hz; } \
	long sample_os_pagesize(const struct sample_os *os) \
	{ return os->pagesize; }

/* A new zeroed state of size bytes for system sys (live only: root must
 * be "/" or NULL) following nprocs names, into *out.  Returns 0, -EINVAL
 * (err says why) or -ENOMEM.  The caller's struct starts with
 * SAMPLE_OS_COMMON, whose procs it fills. */
#define sample_os_new(out, size, sys, root, procs, nprocs, err, errlen) \
	sample_os_alloc((void **)(out), size, sys, root, procs, nprocs, \
			err, errlen)
struct sample_os_head {
	SAMPLE_OS_COMMON;
};
static inline int sample_os_alloc(void **out, size_t size, const char *sys,
				  const char *root,
				  const char *const *procs, int nprocs,
				  char *err, size_t errlen)
{
	struct sample_os_head *h;
	int i;

	if (root && strcmp(root, "/") != 0) {
		snprintf(err, errlen, "--root %s: %s is read live only", root,
			 sys);
		return -EINVAL;
	}
	if (nprocs > SAMPLE_MAX_PROCS) {
		snprintf(err, errlen, "at most %d process names",
			 SAMPLE_MAX_PROCS);
		return -EINVAL;
	}
	h = calloc(1, size);
	if (!h)
		return -ENOMEM;
	for (i = 0; i < nprocs; i++)
		snprintf(h->procs[i], sizeof(h->procs[i]), "%s", procs[i]);
	h->nprocs = nprocs;
	*out = h;
	return 0;
}

/* r's process list: the n names (none matched yet). */
static inline void sample_procs_begin(struct sample_raw *r,
				      const char (*names)[SAMPLE_PROCNAME_LEN],
				      int n)
{
	int i;

	r->nprocs = n;
	for (i = 0; i < n; i++) {
		memset(&r->procs[i], 0, sizeof(r->procs[i]));
		snprintf(r->procs[i].name, SAMPLE_PROCNAME_LEN, "%s",
			 names[i]);
	}
}

/* A zeroed slot for one more process of p, or NULL (p->truncated set)
 * beyond SAMPLE_MAX_PIDS. */
static inline struct sample_pid *sample_procs_add(struct sample_proc *p)
{
	if (p->npids == SAMPLE_MAX_PIDS) {
		p->truncated = 1;
		return NULL;
	}
	memset(&p->pids[p->npids], 0, sizeof(p->pids[0]));
	return &p->pids[p->npids++];
}

static inline int sample_pid_cmp(const void *a, const void *b)
{
	const struct sample_pid *x = a, *y = b;

	return (x->pid > y->pid) - (x->pid < y->pid);
}

/* Each name's pids in order, as sample.c matches them between readings. */
static inline void sample_procs_sort(struct sample_raw *r)
{
	int i;

	for (i = 0; i < r->nprocs; i++)
		qsort(r->procs[i].pids, (size_t)r->procs[i].npids,
		      sizeof(struct sample_pid), sample_pid_cmp);
}

#endif
