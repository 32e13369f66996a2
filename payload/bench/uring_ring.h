/* uring_ring.h: the io_uring plumbing the bench clients uring-http.c and
 * uring-sql.c share (raw syscalls, no liburing): one ring, mapped, its
 * submission entries queued, submitted and waited for. */
#ifndef BB_URING_RING_H
#define BB_URING_RING_H

#include <linux/io_uring.h>
#include <stdint.h>

struct ur_ring {
	int fd;
	unsigned *sq_tail, *sq_mask, *sq_array;
	unsigned *cq_head, *cq_tail, *cq_mask;
	struct io_uring_sqe *sqes;
	struct io_uring_cqe *cqes;
	unsigned pending;	/* queued, not submitted yet */
};

/* Sets up r: a ring of entries submission entries with setup flags
 * (IORING_SETUP_*), its three areas mapped.  Returns 0 or a negative
 * errno (-EINVAL: a flag this kernel does not take). */
int ur_open(struct ur_ring *r, unsigned entries, unsigned flags);

/* Queues a zeroed entry of opcode op on fd with user data ud; returns it
 * for the caller's other fields (valid until the next ur_enter()). */
struct io_uring_sqe *ur_sqe(struct ur_ring *r, int op, int fd, uint64_t ud);

/* Submits what is queued and waits until min_complete completions are
 * in the completion ring.  Returns io_uring_enter's result (the entries
 * submitted) or -1 with errno set. */
int ur_enter(struct ur_ring *r, unsigned min_complete);

#endif
