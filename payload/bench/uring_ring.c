/* uring_ring.c: one io_uring on raw syscalls for the bench clients
 * (uring_ring.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "uring_ring.h"

int ur_open(struct ur_ring *r, unsigned entries, unsigned flags)
{
	struct io_uring_params p;
	void *sq, *cq;

	memset(r, 0, sizeof(*r));
	memset(&p, 0, sizeof(p));
	p.flags = flags;
	r->fd = (int)syscall(__NR_io_uring_setup, entries, &p);
	if (r->fd < 0)
		return -errno;
	sq = mmap(0, p.sq_off.array + p.sq_entries * 4, PROT_READ |
		  PROT_WRITE, MAP_SHARED | MAP_POPULATE, r->fd,
		  IORING_OFF_SQ_RING);
	cq = mmap(0, p.cq_off.cqes + p.cq_entries * sizeof(*r->cqes),
		  PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, r->fd,
		  IORING_OFF_CQ_RING);
	r->sqes = mmap(0, p.sq_entries * sizeof(*r->sqes), PROT_READ |
		       PROT_WRITE, MAP_SHARED | MAP_POPULATE, r->fd,
		       IORING_OFF_SQES);
	if (sq == MAP_FAILED || cq == MAP_FAILED || r->sqes == MAP_FAILED)
		return -ENOMEM;
	r->sq_tail = (unsigned *)((char *)sq + p.sq_off.tail);
	r->sq_mask = (unsigned *)((char *)sq + p.sq_off.ring_mask);
	r->sq_array = (unsigned *)((char *)sq + p.sq_off.array);
	r->cq_head = (unsigned *)((char *)cq + p.cq_off.head);
	r->cq_tail = (unsigned *)((char *)cq + p.cq_off.tail);
	r->cq_mask = (unsigned *)((char *)cq + p.cq_off.ring_mask);
	r->cqes = (struct io_uring_cqe *)((char *)cq + p.cq_off.cqes);
	return 0;
}

struct io_uring_sqe *ur_sqe(struct ur_ring *r, int op, int fd, uint64_t ud)
{
	unsigned t = *r->sq_tail, i = t & *r->sq_mask;
	struct io_uring_sqe *s = &r->sqes[i];

	memset(s, 0, sizeof(*s));
	s->opcode = (uint8_t)op;
	s->fd = fd;
	s->user_data = ud;
	r->sq_array[i] = i;
	/* Without SQPOLL the kernel reads entries only in io_uring_enter:
	 * the caller fills in the rest after the tail moved. */
	__atomic_store_n(r->sq_tail, t + 1, __ATOMIC_RELEASE);
	r->pending++;
	return s;
}

int ur_enter(struct ur_ring *r, unsigned min_complete)
{
	long rc = syscall(__NR_io_uring_enter, r->fd, r->pending,
			  min_complete, IORING_ENTER_GETEVENTS, NULL, 0);

	if (rc >= 0)
		r->pending -= (unsigned)rc;
	return (int)rc;
}
