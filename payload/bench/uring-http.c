/* uring-http.c: issue 19's io_uring experiment, not part of benchboot: a
 * closed-loop HTTP/1.1 keep-alive client on io_uring (raw syscalls, no
 * liburing), one send and one recv per request, io_uring_enter waiting
 * for MINC completions at once, to set beside the epoll engine's client
 * and server CPU per request (payload/bench/http-wake.sh).  No timeouts,
 * no error classes: a failure ends it.  Build and run:
 *   cc -O2 -o /tmp/uring-http payload/bench/uring-http.c \
 *     payload/bench/uring_ring.c
 *   /tmp/uring-http PORT PATH CONNS SECONDS MINC */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "uring_ring.h"

struct conn { int fd; size_t got, total; char buf[16384]; };
static struct ur_ring R;

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static void queue(int op, int fd, void *buf, unsigned len, uint64_t ud)
{
	struct io_uring_sqe *s = ur_sqe(&R, op, fd, ud);

	s->addr = (uint64_t)(uintptr_t)buf;
	s->len = len;
	if (op == IORING_OP_SEND)
		s->msg_flags = MSG_NOSIGNAL;
}

int main(int argc, char **argv)
{
	int port = atoi(argv[1]), n = atoi(argv[3]), secs = atoi(argv[4]);
	unsigned minc = (unsigned)atoi(argv[5]);
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_port = htons(port) };
	char req[256];
	int rlen, i, one = 1;
	struct conn *c = calloc(n, sizeof(*c));
	uint64_t reqs = 0, t0, end;
	struct rusage ru;

	rlen = snprintf(req, sizeof(req), "GET %s HTTP/1.1\r\nHost: "
			"127.0.0.1:%d\r\n\r\n", argv[2], port);
	a.sin_addr.s_addr = htonl(0x7f000001);
	if (ur_open(&R, 4 * n, 0) != 0) { perror("io_uring_setup"); return 1; }
	for (i = 0; i < n; i++) {
		c[i].fd = socket(AF_INET, SOCK_STREAM, 0);
		setsockopt(c[i].fd, IPPROTO_TCP, TCP_NODELAY, &one, 4);
		if (connect(c[i].fd, (void *)&a, sizeof(a))) {
			perror("connect"); return 1;
		}
		queue(IORING_OP_SEND, c[i].fd, req, rlen, 2 * i);
		queue(IORING_OP_RECV, c[i].fd, c[i].buf, sizeof(c[i].buf),
		      2 * i + 1);
	}
	t0 = now_ns();
	end = t0 + secs * 1000000000ull;
	getrusage(RUSAGE_SELF, &ru);
	double cpu0 = ru.ru_utime.tv_sec + ru.ru_stime.tv_sec +
		      (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
	while (now_ns() < end) {
		unsigned h, tl;
		if (ur_enter(&R, minc) < 0) { perror("enter"); return 1; }
		h = *R.cq_head;
		tl = __atomic_load_n(R.cq_tail, __ATOMIC_ACQUIRE);
		for (; h != tl; h++) {
			struct io_uring_cqe *e = &R.cqes[h & *R.cq_mask];
			struct conn *k = &c[e->user_data / 2];
			char *he, *cl;

			if (e->res <= 0 && (e->user_data & 1)) {
				fprintf(stderr, "recv %d\n", e->res);
				return 1;
			}
			if (!(e->user_data & 1))
				continue;	/* send done */
			k->got += e->res;
			if (!k->total &&
			    (he = memmem(k->buf, k->got, "\r\n\r\n", 4)) &&
			    (cl = memmem(k->buf, he - k->buf,
					 "Content-Length: ", 16)))
				k->total = (he + 4 - k->buf) +
					   strtoul(cl + 16, NULL, 10);
			if (k->total && k->got >= k->total) {
				reqs++;
				k->got = k->total = 0;
				queue(IORING_OP_SEND, k->fd, req, rlen,
				      e->user_data - 1);
				queue(IORING_OP_RECV, k->fd, k->buf,
				      sizeof(k->buf), e->user_data);
			} else {
				queue(IORING_OP_RECV, k->fd, k->buf + k->got,
				      sizeof(k->buf) - k->got, e->user_data);
			}
		}
		__atomic_store_n(R.cq_head, h, __ATOMIC_RELEASE);
	}
	getrusage(RUSAGE_SELF, &ru);
	double cpu1 = ru.ru_utime.tv_sec + ru.ru_stime.tv_sec +
		      (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
	double el = (now_ns() - t0) / 1e9;
	printf("%llu requests in %.2fs, %.0f/s, cpu %.3f us/request\n",
	       (unsigned long long)reqs, el, reqs / el,
	       (cpu1 - cpu0) * 1e6 / reqs);
	return 0;
}
