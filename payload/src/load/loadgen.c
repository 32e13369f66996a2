/* load/loadgen.c: the load generators' shared base: threads, pacing,
 * the workload record header and summary formatting, and the prepare
 * gate between a workload's set-up and its start. */
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "lib/json_int.h"
#include "load/loadgen.h"
#include "proto/gate.h"
#include "proto/workload_record.h"
#include "lib/util.h"
#include "lib/wake.h"

void lg_pace_init(struct lg_pace *p, uint64_t start_ns, double rate)
{
	p->start_ns = start_ns;
	p->interval_ns = rate > 0 ? 1e9 / rate : 0;
	p->k = 0;
}

uint64_t lg_share(uint64_t total, unsigned n, unsigned i)
{
	return total / n + (i < total % n ? 1 : 0);
}

cJSON *lg_record_new(const char *workload, uint64_t start_real_ns,
		     uint64_t start_mono_ns, double elapsed_s)
{
	cJSON *rec = workload_record_new(workload, NULL), *start;

	if (!rec)
		return NULL;
	start = cJSON_AddObjectToObject(rec, "start");
	if (start) {
		/* ns since 1970 exceed a double's 2^53: exact integers. */
		json_int_add(start, "realtime_ns", (int64_t)start_real_ns);
		json_int_add(start, "monotonic_ns", (int64_t)start_mono_ns);
	}
	cJSON_AddNumberToObject(rec, "elapsed_s", elapsed_s);
	if (!start) {
		cJSON_Delete(rec);
		return NULL;
	}
	return rec;
}

int lg_record_print(cJSON *rec)
{
	char *s = json_int_print(rec, 0);

	cJSON_Delete(rec);
	if (!s)
		return -ENOMEM;
	printf("%s\n", s);
	fflush(stdout);
	free(s);
	return 0;
}

const char *lg_fmt_ns(char *buf, size_t len, double ns)
{
	if (ns < 1e3)
		snprintf(buf, len, "%.0fns", ns);
	else if (ns < 1e6)
		snprintf(buf, len, "%.1fus", ns / 1e3);
	else if (ns < 1e9)
		snprintf(buf, len, "%.2fms", ns / 1e6);
	else
		snprintf(buf, len, "%.3fs", ns / 1e9);
	return buf;
}

void lg_print_hist(FILE *out, const char *label, const struct hist *h)
{
	char a[32], b[32], c[32], d[32], e[32], f[32];

	if (h->count == 0) {
		fprintf(out, "  %-11s no samples\n", label);
		return;
	}
	fprintf(out, "  %-11s mean %s  p50 %s  p90 %s  p99 %s  p99.9 %s  max %s\n", label,
		lg_fmt_ns(a, sizeof(a), hist_mean(h)),
		lg_fmt_ns(b, sizeof(b), (double)hist_percentile(h, 50)),
		lg_fmt_ns(c, sizeof(c), (double)hist_percentile(h, 90)),
		lg_fmt_ns(d, sizeof(d), (double)hist_percentile(h, 99)),
		lg_fmt_ns(e, sizeof(e), (double)hist_percentile(h, 99.9)),
		lg_fmt_ns(f, sizeof(f), (double)h->max));
}

void lg_print_latency(FILE *out, const struct hist *h)
{
	lg_print_hist(out, "latency", h);
}

/* --- threads --------------------------------------------------------- */

int lg_threads_start(struct lg_threads *lt, void *states, size_t stride,
		     unsigned n, void *(*fn)(void *))
{
	int rc;

	lt->n = n;
	lt->started = 0;
	lt->tid = calloc(n, sizeof(*lt->tid));
	if (!lt->tid)
		return -ENOMEM;
	for (; lt->started < n; lt->started++) {
		rc = pthread_create(&lt->tid[lt->started], NULL, fn,
				    (char *)states + lt->started * stride);
		if (rc != 0)
			return -rc;
	}
	return 0;
}

void lg_threads_join(struct lg_threads *lt)
{
	unsigned i;

	for (i = 0; i < lt->started; i++)
		pthread_join(lt->tid[i], NULL);
	free(lt->tid);
	lt->tid = NULL;
	lt->started = 0;
}

void lg_sum_u64(void *dst, const void *src, size_t n)
{
	uint64_t *d = dst;
	const uint64_t *s = src;
	size_t i;

	for (i = 0; i < n; i++)
		d[i] += s[i];
}

/* --- the prepare gate -------------------------------------------------- */

static int lg_gate_fds(int *go, int *ready, uint64_t *budget_ms)
{
	return gate_env_parse(getenv(GATE_ENV), go, ready, budget_ms) == 0 ?
	       0 : -ENOENT;
}

int lg_gate_active(void)
{
	int g, r;
	uint64_t b;

	return lg_gate_fds(&g, &r, &b) == 0;
}

uint64_t lg_gate_budget_ns(uint64_t dflt)
{
	int g, r;
	uint64_t b;

	return lg_gate_fds(&g, &r, &b) == 0 ? b * 1000000ull : dflt;
}

/* One poll event of prepared connection i: 0 to wait for more, 1 ready,
 * -1 failed.  *connecting: its connect is still under way. */
static int lg_prepare_event(int fd, short revents, int *connecting,
			    int (*step)(void *ctx, unsigned i, int fd),
			    void *ctx, unsigned i)
{
	socklen_t len = sizeof(int);
	int err = 0;

	if (!*connecting)
		return step(ctx, i, fd);
	getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len);
	if (err || (revents & (POLLERR | POLLHUP)))
		return -1;
	*connecting = 0;
	return step ? 0 : 1;
}

unsigned lg_prepare_conns(const struct sockaddr *addr, socklen_t addrlen,
			  int *fds, unsigned n, uint64_t timeout_ns,
			  int (*step)(void *ctx, unsigned i, int fd),
			  void *ctx)
{
	uint64_t budget = lg_gate_budget_ns(timeout_ns);
	uint64_t end = util_mono_ns() + (budget < timeout_ns ? budget :
					 timeout_ns);
	struct pollfd *pf = calloc(n, sizeof(*pf));
	int *connecting = calloc(n, sizeof(*connecting));
	unsigned i, left = 0, ready = 0;
	int one = 1, rc;

	for (i = 0; i < n; i++) {
		fds[i] = -1;
		if (!pf || !connecting)
			continue;
		pf[i].fd = -1;
		fds[i] = socket(addr->sa_family, SOCK_STREAM | SOCK_NONBLOCK |
				SOCK_CLOEXEC, 0);
		if (fds[i] < 0)
			continue;
		setsockopt(fds[i], IPPROTO_TCP, TCP_NODELAY, &one,
			   sizeof(one));
		if (connect(fds[i], addr, addrlen) != 0 &&
		    errno != EINPROGRESS) {
			close(fds[i]);
			fds[i] = -1;
			continue;
		}
		pf[i].fd = fds[i];
		pf[i].events = POLLOUT;
		connecting[i] = 1;
		left++;
	}
	while (left > 0 && util_mono_ns() < end) {
		if (poll(pf, n, 10) < 0 && errno != EINTR)
			break;
		for (i = 0; i < n; i++) {
			if (pf[i].fd < 0 || !pf[i].revents)
				continue;
			rc = lg_prepare_event(fds[i], pf[i].revents,
					      &connecting[i], step, ctx, i);
			pf[i].events = POLLIN;
			if (rc == 0)
				continue;
			if (rc < 0) {
				close(fds[i]);
				fds[i] = -1;
			} else {
				ready++;
			}
			pf[i].fd = -1;	/* poll skips it from now on */
			left--;
		}
	}
	for (i = 0; pf && connecting && i < n; i++)
		if (pf[i].fd >= 0) {	/* not ready: opened at the start */
			close(fds[i]);
			fds[i] = -1;
		}
	free(pf);
	free(connecting);
	return ready;
}

/* Reads exactly len bytes; 0, or -ECANCELED at end of file. */
static int lg_gate_read(int fd, void *buf, size_t len)
{
	size_t got = 0;
	ssize_t n;

	while (got < len) {
		n = read(fd, (char *)buf + got, len - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n == 0 ? -ECANCELED : -EIO;
		got += (size_t)n;
	}
	return 0;
}

const char *lg_gate_strerror(int rc)
{
	if (rc == -ETIME)
		return "prepared after the start";
	if (rc == -ERANGE)
		return "start time more than 60 s ahead (a broken gate)";
	return strerror(-rc);
}

int lg_gate(int ok)
{
	char st = ok ? 'R' : 'F';
	int go, ready, rc;
	uint64_t b;
	int64_t at, now;

	if (lg_gate_fds(&go, &ready, &b) != 0)
		return 0;
	/* Once: a second call finds the gate gone. */
	unsetenv(GATE_ENV);
	if (write(ready, &st, 1) != 1)
		return -EIO;
	if (!ok)
		return -ECANCELED;
	rc = lg_gate_read(go, &at, sizeof(at));
	close(go);
	if (rc != 0)
		return rc;
	now = (int64_t)util_real_ns();
	if (now > at + 100000000ll)
		return -ETIME;
	/* An agent's start is under a second ahead; one far off is a
	 * broken gate (a wrong byte order), not a reason to sleep on. */
	if (at > now + LG_GATE_MAX_AHEAD_NS)
		return -ERANGE;
	/* When it really woke: the agent reports the launch skew.  Never
	 * the load at real-time priority: one that could not leave it does
	 * not start. */
	rc = wake_at(at, &now);
	if (rc != 0)
		return rc;
	if (write(ready, &now, sizeof(now)) != sizeof(now))
		return -EIO;
	close(ready);
	return 0;
}
