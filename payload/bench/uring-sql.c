/* uring-sql.c: issue 19's io_uring experiment for SQL, not part of
 * benchboot (not in the image): the point-select workload of `benchboot
 * sql` (the connector logs in, COM_STMT_PREPARE, then COM_STMT_EXECUTE on
 * the raw socket parsed by payload/src/load/sql/mysql_wire.c) for CONNS connections
 * in one thread, every send and receive submitted through one io_uring
 * (raw syscalls, no liburing), io_uring_enter waiting for MINC
 * completions at once.  Sends post no completion on success
 * (IOSQE_CQE_SKIP_SUCCESS).  -m: one multishot receive per connection
 * with a provided-buffer ring instead of a receive per query; -f: setup
 * flags, a comma list of coop (COOP_TASKRUN), single (SINGLE_ISSUER),
 * defer (DEFER_TASKRUN, implies single).  -b: no io_uring, one
 * connection, a blocking write and read per query (two system calls:
 * the floor of any one-connection design, to set the epoll engine's
 * three beside).  No timeouts, no error classes:
 * a failure ends it (exit 1).  payload/bench/sql-uring.sh builds it with
 * the payload's musl-gcc and static connector:
 *   S=out/x86_64/sysroot; cd payload; $S/bin/musl-gcc -O2 -static -Isrc \
 *     -I$S/include/mariadb -o /tmp/uring-sql bench/uring-sql.c \
 *     bench/uring_ring.c src/mysql_wire.c src/sql_conn.c src/util.c \
 *     $S/lib/libmariadbclient.a -lm
 *   uring-sql [-b] [-m] [-f FLAGS] HOST PORT USER PASSWORD DB ROWS CONNS SECS MINC
 * Prints one line: queries, seconds, queries/s, CPU per query of the
 * measured loop (getrusage) and io_uring_enter calls per query. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <mysql.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "load/sql/mysql_wire.h"
#include "load/sql/sql_conn.h"
#include "load/sql/sql_statements.h"
#include "uring_ring.h"

#define RBUF 16384		/* reply bytes a connection buffers */
#define PBUF 2048		/* bytes of one provided buffer (-m) */
#define UD_SEND 0
#define UD_RECV 1

struct conn {
	MYSQL *m;
	int fd;
	int busy;		/* an EXECUTE is in flight */
	uint32_t rlen;		/* bytes in rbuf not parsed yet */
	uint64_t rng;
	struct mw_parser mp;
	uint8_t exec[MW_EXEC_LEN];
	uint8_t rbuf[RBUF];
};

static struct ur_ring R;
static struct io_uring_buf_ring *br;	/* -m: the provided buffers */
static uint8_t *bufmem;
static unsigned br_mask;
static uint64_t rows;

static void die(const char *what, long v)
{
	fprintf(stderr, "uring-sql: %s (%ld)\n", what, v);
	exit(1);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static double cpu_s(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_utime.tv_sec + ru.ru_stime.tv_sec +
	       (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

/* A receive into the rest of c's buffer (one-shot mode). */
static void queue_recv(struct conn *c, unsigned id)
{
	struct io_uring_sqe *s = ur_sqe(&R, IORING_OP_RECV, c->fd,
					2ull * id + UD_RECV);

	s->addr = (uint64_t)(uintptr_t)(c->rbuf + c->rlen);
	s->len = RBUF - c->rlen;
}

/* -m: the connection's multishot receive from buffer group 0. */
static void queue_recv_multi(struct conn *c, unsigned id)
{
	struct io_uring_sqe *s = ur_sqe(&R, IORING_OP_RECV, c->fd,
					2ull * id + UD_RECV);

	s->ioprio = IORING_RECV_MULTISHOT;
	s->flags = IOSQE_BUFFER_SELECT;
	s->buf_group = 0;
}

/* Gives provided buffer bid back to the kernel. */
static void buf_put(unsigned bid)
{
	unsigned t = br->tail;
	struct io_uring_buf *b = &br->bufs[t & br_mask];

	b->addr = (uint64_t)(uintptr_t)(bufmem + (size_t)bid * PBUF);
	b->len = PBUF;
	b->bid = (uint16_t)bid;
	__atomic_store_n(&br->tail, (uint16_t)(t + 1), __ATOMIC_RELEASE);
}

/* Queues c's next EXECUTE (and, one-shot, its receive). */
static void issue(struct conn *c, unsigned id, int multi)
{
	struct io_uring_sqe *s;

	mw_execute_arg(c->exec, sql_stmt_rand(&c->rng) % rows + 1);
	mw_expect(&c->mp, MW_EXECUTE);
	s = ur_sqe(&R, IORING_OP_SEND, c->fd, 2ull * id + UD_SEND);
	s->addr = (uint64_t)(uintptr_t)c->exec;
	s->len = MW_EXEC_LEN;
	s->msg_flags = MSG_NOSIGNAL;
	s->flags = IOSQE_CQE_SKIP_SUCCESS;
	c->busy = 1;
	if (!multi)
		queue_recv(c, id);
}

/* Connects, logs in and prepares the SELECT with blocking calls. */
static void conn_open(struct conn *c, const struct sql_target *tg,
		      const char *sql, unsigned id)
{
	uint8_t prep[128];
	size_t plen, used;
	uint64_t caps;
	char err[256];
	ssize_t n;
	int rc, cls;

	c->m = sql_connect(tg, err, sizeof(err), &cls);
	if (!c->m) {
		fprintf(stderr, "uring-sql: connect: %s\n", err);
		exit(1);
	}
	c->fd = (int)mysql_get_socket(c->m);
	fcntl(c->fd, F_SETFL, fcntl(c->fd, F_GETFL) & ~O_NONBLOCK);
	if (sql_wire_caps(c->m, &caps) != 0)
		die("server without protocol 4.1, or compressed", 0);
	mw_init(&c->mp, caps, RBUF - MW_HDR);
	mw_expect(&c->mp, MW_PREPARE);
	plen = mw_prepare_req(prep, sizeof(prep), sql, strlen(sql));
	if (write(c->fd, prep, plen) != (ssize_t)plen)
		die("prepare: write", errno);
	for (;;) {
		n = read(c->fd, c->rbuf + c->rlen, RBUF - c->rlen);
		if (n <= 0)
			die("prepare: read", n ? errno : 0);
		c->rlen += (uint32_t)n;
		rc = mw_feed(&c->mp, c->rbuf, c->rlen, &used);
		memmove(c->rbuf, c->rbuf + used, c->rlen - used);
		c->rlen -= (uint32_t)used;
		if (rc != MW_MORE)
			break;
	}
	if (rc != MW_DONE || c->mp.nparams != 1 || c->rlen)
		die("prepare: bad reply", rc);
	mw_execute_req(c->exec, c->mp.stmt_id, 0);
	c->rng = 0x9e3779b97f4a7c15ull * (id + 1) ^ 42;
}

/* Parses what c has buffered.  Returns 1 when the reply ended. */
static int conn_parse(struct conn *c)
{
	size_t used;
	int rc = mw_feed(&c->mp, c->rbuf, c->rlen, &used);

	if (rc == MW_MORE) {
		memmove(c->rbuf, c->rbuf + used, c->rlen - used);
		c->rlen -= (uint32_t)used;
		return 0;
	}
	if (rc != MW_DONE || used != c->rlen)
		die("bad reply or server error", rc);
	c->rlen = 0;
	c->busy = 0;
	return 1;
}

static void ring_open(unsigned entries, unsigned flags, int multi,
		      unsigned n)
{
	unsigned nb = 16, i;
	int rc = ur_open(&R, entries, flags);

	if (rc != 0)
		die("io_uring_setup (-EINVAL: flags not taken by this kernel)",
		    rc);
	if (!multi)
		return;
	/* Four buffers a connection: a reply takes one, rarely two. */
	while (nb < 4 * n)
		nb *= 2;
	br = mmap(0, nb * sizeof(struct io_uring_buf), PROT_READ |
		  PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	bufmem = malloc((size_t)nb * PBUF);
	if (br == MAP_FAILED || !bufmem)
		die("buffer ring memory", errno);
	struct io_uring_buf_reg reg = {
		.ring_addr = (uint64_t)(uintptr_t)br,
		.ring_entries = nb,
		.bgid = 0,
	};
	if (syscall(__NR_io_uring_register, R.fd, IORING_REGISTER_PBUF_RING,
		    &reg, 1) != 0)
		die("IORING_REGISTER_PBUF_RING", errno);
	br_mask = nb - 1;
	for (i = 0; i < nb; i++)
		buf_put(i);
}

static unsigned parse_flags(const char *s)
{
	unsigned f = 0;

	if (strstr(s, "coop"))
		f |= IORING_SETUP_COOP_TASKRUN | IORING_SETUP_TASKRUN_FLAG;
	if (strstr(s, "single"))
		f |= IORING_SETUP_SINGLE_ISSUER;
	if (strstr(s, "defer"))
		f |= IORING_SETUP_DEFER_TASKRUN | IORING_SETUP_SINGLE_ISSUER;
	return f;
}

/* The one output line: queries, seconds, queries/s, CPU per query and
 * kernel entries per query (what, e.g. "enters"). */
static void report(uint64_t queries, double el, double cpu, uint64_t calls,
		   const char *what)
{
	printf("%llu queries in %.2fs, %.0f/s, cpu %.3f us/query, "
	       "%.3f %s/query\n", (unsigned long long)queries, el,
	       queries / el, cpu * 1e6 / queries, (double)calls / queries,
	       what);
}

/* -b: one connection, write then read until the reply ends, SECS
 * long.  Prints the line main() prints, with system calls per query
 * in place of io_uring_enter calls. */
static int run_blocking(struct conn *c, uint64_t secs)
{
	uint64_t queries = 0, calls = 0, t0 = now_ns(), end;
	double cpu0 = cpu_s(), el;
	ssize_t n;

	end = t0 + secs * 1000000000ull;
	while (now_ns() < end) {
		mw_execute_arg(c->exec, sql_stmt_rand(&c->rng) % rows + 1);
		mw_expect(&c->mp, MW_EXECUTE);
		c->busy = 1;
		calls++;
		if (write(c->fd, c->exec, MW_EXEC_LEN) != MW_EXEC_LEN)
			die("write", errno);
		do {
			calls++;
			n = read(c->fd, c->rbuf + c->rlen, RBUF - c->rlen);
			if (n <= 0)
				die("read", n ? errno : 0);
			c->rlen += (uint32_t)n;
		} while (!conn_parse(c));
		queries++;
	}
	el = (now_ns() - t0) / 1e9;
	report(queries, el, cpu_s() - cpu0, calls, "syscalls");
	mysql_close(c->m);
	return 0;
}

int main(int argc, char **argv)
{
	unsigned n, minc, flags = 0, inflight = 0, i;
	uint64_t queries = 0, enters = 0, t0, end;
	int multi = 0, stopping = 0, blocking = 0, opt;
	struct conn *c;
	double cpu0, el = 0;
	struct sql_target tg;
	char sql[64];

	while ((opt = getopt(argc, argv, "bmf:")) != -1) {
		if (opt == 'b')
			blocking = 1;
		else if (opt == 'm')
			multi = 1;
		else if (opt == 'f')
			flags = parse_flags(optarg);
		else
			return 2;
	}
	argv += optind;
	if (argc - optind != 9) {
		fprintf(stderr, "usage: uring-sql [-b] [-m] [-f coop,single,defer]"
			" HOST PORT USER PASSWORD DB ROWS CONNS SECS MINC\n");
		return 2;
	}
	tg = (struct sql_target){ .host = argv[0], .user = argv[2],
		.password = argv[3], .db = argv[4],
		.port = (unsigned)atoi(argv[1]), .timeout_s = 10 };
	rows = strtoull(argv[5], NULL, 10);
	n = (unsigned)atoi(argv[6]);
	minc = (unsigned)atoi(argv[8]);
	if (!rows || !n || !minc)
		die("ROWS, CONNS and MINC must be positive", 0);
	snprintf(sql, sizeof(sql), "SELECT c FROM sbtest1 WHERE id=?");
	c = calloc(n, sizeof(*c));
	if (!c)
		die("out of memory", 0);
	if (blocking && n != 1)
		die("-b takes one connection", n);
	for (i = 0; i < n; i++)
		conn_open(&c[i], &tg, sql, i);
	if (blocking)
		return run_blocking(c, strtoull(argv[7], NULL, 10));
	ring_open(4 * n < 8 ? 8 : 4 * n, flags, multi, n);
	for (i = 0; i < n; i++) {
		if (multi)
			queue_recv_multi(&c[i], i);
		issue(&c[i], i, multi);
		inflight++;
	}
	t0 = now_ns();
	end = t0 + strtoull(argv[7], NULL, 10) * 1000000000ull;
	cpu0 = cpu_s();
	while (inflight > 0) {
		/* Never wait for more completions than can come: each
		 * query in flight brings at least one. */
		unsigned want = minc < inflight ? minc : inflight, h, tl;

		enters += !stopping;
		if (ur_enter(&R, want) < 0 && errno != EINTR)
			die("io_uring_enter", errno);
		h = *R.cq_head;
		tl = __atomic_load_n(R.cq_tail, __ATOMIC_ACQUIRE);
		for (; h != tl; h++) {
			struct io_uring_cqe *e = &R.cqes[h & *R.cq_mask];
			unsigned id = (unsigned)(e->user_data / 2);
			struct conn *k = &c[id];
			int res = e->res;

			if ((e->user_data & 1) == UD_SEND)
				die("send", res);	/* only failures */
			if (res == -ENOBUFS && multi) {
				queue_recv_multi(k, id);
				continue;
			}
			if (res <= 0 || !k->busy)
				die("recv (or data unasked)", res);
			if (multi) {
				unsigned bid = e->flags >>
					       IORING_CQE_BUFFER_SHIFT;

				if ((uint32_t)res > RBUF - k->rlen)
					die("reply too long", res);
				memcpy(k->rbuf + k->rlen,
				       bufmem + (size_t)bid * PBUF, res);
				buf_put(bid);
				if (!(e->flags & IORING_CQE_F_MORE))
					queue_recv_multi(k, id);
			}
			k->rlen += (uint32_t)res;
			if (!conn_parse(k)) {
				if (!multi)
					queue_recv(k, id);
				continue;
			}
			inflight--;
			if (stopping)
				continue;	/* the drain: not counted */
			queries++;
			issue(k, id, multi);
			inflight++;
		}
		__atomic_store_n(R.cq_head, h, __ATOMIC_RELEASE);
		if (!stopping && now_ns() >= end) {
			stopping = 1;
			el = (now_ns() - t0) / 1e9;
			cpu0 = cpu_s() - cpu0;
		}
	}
	report(queries, el, cpu0, enters, "enters");
	close(R.fd);
	for (i = 0; i < n; i++)
		mysql_close(c[i].m);
	return 0;
}
