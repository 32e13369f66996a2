/* lib/wake.h: sleeping until an absolute instant and waking on time on a
 * busy host: the synchronised start of every workload. */
#ifndef BB_WAKE_H
#define BB_WAKE_H

#include <stdint.h>

/* Sleeps until real_ns (CLOCK_REALTIME, ns since 1970) and stores the
 * clock as it woke in *woke.  It sleeps at the lowest real-time priority
 * where that is allowed (SCHED_FIFO 1 with SCHED_RESET_ON_FORK: root on
 * the image; not in every container, nor under qemu-user) and puts the
 * calling thread back at its own policy as soon as it has read the
 * clock, so that many processes waking at one instant on few CPUs each
 * read it when the timer fires, not behind the others' start-up work;
 * nothing after the wake runs at real-time priority.  Only the calling
 * thread's policy changes, and only when it is SCHED_OTHER.  Returns 0,
 * or -EPERM when it could not leave real-time priority (the caller must
 * not go on). */
int wake_at(int64_t real_ns, int64_t *woke);

#endif
