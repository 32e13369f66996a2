/* test_loadgen.c: open-loop pacing, shares, the record header, the
 * duration formatting, the prepare gate (and its real-time wake) and
 * the prepare phase's
 * connections (on loopback) the load generators share. */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "load/loadgen.h"
#include "proto/gate.h"
#include "tap.h"
#include "lib/util.h"

static void test_share(void)
{
	static const struct {
		uint64_t total;
		unsigned n;
		uint64_t want[4];
	} cases[] = {
		{ 10, 3, { 4, 3, 3 } },
		{ 2, 4, { 1, 1, 0, 0 } },
		{ 0, 2, { 0, 0 } },
		{ 8, 4, { 2, 2, 2, 2 } },
	};
	size_t i;
	unsigned k;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint64_t sum = 0;
		int ok = 1;

		for (k = 0; k < cases[i].n; k++) {
			uint64_t s = lg_share(cases[i].total, cases[i].n, k);

			ok &= s == cases[i].want[k];
			sum += s;
		}
		tap_ok(ok && sum == cases[i].total, "lg_share(%llu, %u)",
		       (unsigned long long)cases[i].total, cases[i].n);
	}
}

static void test_pace(void)
{
	struct lg_pace p;
	uint64_t t, n = 0, last = 0;
	int in_order = 1;

	lg_pace_init(&p, 1000, 0);
	TAP_EQ_INT(lg_pace_take(&p, 5000), 5000, "closed loop: always due, "
		   "now");
	lg_pace_init(&p, 1000000000ULL, 1000);	/* every 1 ms */
	TAP_EQ_INT(lg_pace_take(&p, 999999999ULL), 0, "open loop: not due "
		   "before the start");
	TAP_EQ_INT(lg_pace_take(&p, 1000000000ULL), 1000000000ULL,
		   "first operation due at the start");
	TAP_EQ_INT(lg_pace_take(&p, 1000500000ULL), 0, "second not due "
		   "half an interval later");
	/* A client 10 ms late owes 10 operations, each with its own
	 * intended time: latency counts from there, not from now. */
	while ((t = lg_pace_take(&p, 1011000000ULL)) != 0) {
		in_order &= t > last;
		last = t;
		n++;
	}
	TAP_EQ_INT(n, 11, "late by 10 ms: the 11 owed operations are due");
	tap_ok(in_order && last == 1011000000ULL, "each at its intended time");
	TAP_EQ_INT(lg_pace_next(&p), 1012000000ULL, "next is 1 ms later");
}

/* http's open loop: slot k of a thread's schedule goes to connection
 * k % nconns, each keeping its own next slot; lg_pace_at() gives every
 * slot's intended time, the same as taking them in turn. */
static void test_pace_at(void)
{
	static const struct {
		double rate;
		uint64_t k, want;
	} cases[] = {
		{ 1000, 0, 5000000000ULL },
		{ 1000, 1, 5001000000ULL },
		{ 1000, 7, 5007000000ULL },
		{ 3, 3, 6000000000ULL },
		{ 0, 9, 5000000000ULL },	/* closed loop: always start */
	};
	struct lg_pace p;
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		lg_pace_init(&p, 5000000000ULL, cases[i].rate);
		TAP_EQ_INT(lg_pace_at(&p, cases[i].k), cases[i].want,
			   "lg_pace_at: slot's intended time");
	}
	lg_pace_init(&p, 5000000000ULL, 1000);
	for (i = 0; i < 5; i++)
		if (lg_pace_take(&p, 6000000000ULL) != lg_pace_at(&p, i))
			break;
	TAP_EQ_INT(i, 5, "taking slots in turn gives lg_pace_at's times");
}

static void test_record(void)
{
	cJSON *r = lg_record_new("smtp", 1764547200000000000ULL, 123, 1.5);
	const cJSON *tool;

	tap_ok(r != NULL, "record created");
	if (!r)
		return;
	TAP_EQ_STR(cJSON_GetStringValue(cJSON_GetObjectItem(r, "schema")),
		   "benchboot.workload/1", "schema");
	TAP_EQ_STR(cJSON_GetStringValue(cJSON_GetObjectItem(r, "workload")),
		   "smtp", "workload");
	tool = cJSON_GetObjectItem(r, "tool");
	TAP_EQ_STR(cJSON_GetStringValue(cJSON_GetObjectItem(tool, "name")),
		   "benchboot", "tool name");
	tap_ok(cJSON_IsString(cJSON_GetObjectItem(r, "host")), "host");
	tap_ok(cJSON_GetObjectItem(r, "elapsed_s")->valuedouble == 1.5,
	       "elapsed_s");
	TAP_EQ_INT(cJSON_GetObjectItem(cJSON_GetObjectItem(r, "start"),
				       "monotonic_ns")->valuedouble, 123,
		   "start.monotonic_ns");
	cJSON_Delete(r);
}

static void test_fmt(void)
{
	static const struct { double ns; const char *want; } cases[] = {
		{ 999, "999ns" }, { 1500, "1.5us" }, { 2500000, "2.50ms" },
		{ 3e9, "3.000s" },
	};
	char buf[32];
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		TAP_EQ_STR(lg_fmt_ns(buf, sizeof(buf), cases[i].ns),
			   cases[i].want, cases[i].want);
}

/* The gated thread's scheduling policy, read by another thread while
 * the gate sleeps (10 ms into its 30 ms). */
struct gate_watch {
	pthread_t gated;
	int policy;
};

static void *gate_watch_main(void *arg)
{
	struct gate_watch *w = arg;
	struct sched_param sp;

	usleep(10000);
	if (pthread_getschedparam(w->gated, &w->policy, &sp) != 0)
		w->policy = -1;
	return NULL;
}

/* Whether this thread may take real-time priority here as wake_at()
 * asks for it (root with real-time time to spend: not every container
 * gives it). */
static int gate_rt_allowed(void)
{
	struct sched_param rt = { .sched_priority = 1 }, other = { 0 };

	if (pthread_setschedparam(pthread_self(),
				  SCHED_FIFO | SCHED_RESET_ON_FORK, &rt) != 0)
		return 0;
	pthread_setschedparam(pthread_self(), SCHED_OTHER, &other);
	return 1;
}

/* The gate's variable as the agent writes it and the workload reads it:
 * what parses, what is refused. */
static void test_gate_env(void)
{
	static const struct {
		const char *s;
		int rc, go, ready;
		uint64_t ms;
	} c[] = {
		{ "3,4,2500", 0, 3, 4, 2500 },
		{ "0,1,0", 0, 0, 1, 0 },
		{ "2147483647,9,86400000", 0, 2147483647, 9, 86400000 },
		{ "3,4,86400001", -EINVAL, 0, 0, 0 },	/* past a day */
		{ "2147483648,4,1", -EINVAL, 0, 0, 0 },	/* past INT_MAX */
		{ "-1,4,1", -EINVAL, 0, 0, 0 },
		{ "3,4", -EINVAL, 0, 0, 0 },
		{ "3,4,1,", -EINVAL, 0, 0, 0 },
		{ "3,4,1x", -EINVAL, 0, 0, 0 },
		{ " 3,4,1", -EINVAL, 0, 0, 0 },
		{ "3,,1", -EINVAL, 0, 0, 0 },
		{ "", -EINVAL, 0, 0, 0 },
		{ "x", -EINVAL, 0, 0, 0 },
		{ "99999999999999999999999,4,1", -EINVAL, 0, 0, 0 },
	};
	size_t i;
	char buf[64], tiny[4];

	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		int go = -7, ready = -7, rc;
		uint64_t ms = 7;

		rc = gate_env_parse(c[i].s, &go, &ready, &ms);
		tap_ok(rc == c[i].rc && (rc != 0 || (go == c[i].go &&
		       ready == c[i].ready && ms == c[i].ms)) &&
		       (rc == 0 || (go == -7 && ready == -7 && ms == 7)),
		       "gate variable '%s': %s", c[i].s,
		       c[i].rc ? "refused, nothing set" : "parsed");
	}
	TAP_EQ_INT(gate_env_parse(NULL, NULL, NULL, NULL), -EINVAL,
		   "gate variable absent: refused");
	tap_ok(gate_env_format(buf, sizeof(buf), 5, 6, 1500) == 0 &&
	       strcmp(buf, "5,6,1500") == 0,
	       "gate variable written as it is read");
	TAP_EQ_INT(gate_env_format(tiny, sizeof(tiny), 5, 6, 1500),
		   -ENAMETOOLONG, "gate variable: too small a buffer");
	TAP_EQ_INT(gate_env_format(buf, sizeof(buf), -1, 6, 1500), -EINVAL,
		   "gate variable: a negative descriptor is refused");
	TAP_EQ_INT(gate_env_format(buf, sizeof(buf), 5, 6,
				   GATE_BUDGET_MAX_MS + 1), -EINVAL,
		   "gate variable: a budget past a day is refused");
}

/* The prepare gate as an agent drives it: two pipes in BENCHBOOT_GATE,
 * the start time written (or not) before the workload reaches it. */
static void test_gate(void)
{
	static const struct {
		const char *name;
		int ok;		/* what the workload reports */
		int go;		/* start: 1 now + 30 ms, -1 1 s ago, 0 EOF,
				 * 2 an hour ahead */
		int want;	/* lg_gate()'s return */
		char st;	/* the byte the agent reads */
	} c[] = {
		{ "prepared, start ahead: sleeps to it", 1, 1, 0, 'R' },
		{ "not prepared: cancelled, says F", 0, 1, -ECANCELED, 'F' },
		{ "start 1 s gone: too late", 1, -1, -ETIME, 'R' },
		{ "gate closed (aborted): cancelled", 1, 0, -ECANCELED, 'R' },
		{ "start an hour ahead: refused", 1, 2, -ERANGE, 'R' },
	};
	size_t i;
	struct gate_watch w;
	pthread_t wt;
	int watching, rt = gate_rt_allowed();

	unsetenv("BENCHBOOT_GATE");
	tap_ok(!lg_gate_active() && lg_gate(1) == 0 &&
	       lg_gate_budget_ns(7) == 7,
	       "gate: run by hand it is open (no wait, default budget)");
	setenv("BENCHBOOT_GATE", "x", 1);
	tap_ok(!lg_gate_active() && lg_gate(1) == 0,
	       "gate: a malformed BENCHBOOT_GATE is no gate");
	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		int go[2], ready[2], rc;
		char env[64], st = 0;
		int64_t at = 0, woke = 0, now;
		uint64_t t0;

		if (pipe(go) != 0 || pipe(ready) != 0) {
			tap_ok(0, "gate: pipes");
			return;
		}
		snprintf(env, sizeof(env), "%d,%d,2500", go[0], ready[1]);
		setenv("BENCHBOOT_GATE", env, 1);
		now = (int64_t)util_real_ns();
		at = c[i].go == 2 ? now + 3600000000000ll :
		     c[i].go > 0 ? now + 30000000 : now - 1000000000;
		if (c[i].go != 0 &&
		    write(go[1], &at, sizeof(at)) != sizeof(at))
			tap_ok(0, "gate: write");
		close(go[1]);
		tap_ok(lg_gate_active() &&
		       lg_gate_budget_ns(0) == 2500000000ull,
		       "gate: %s: active, budget 2.5 s", c[i].name);
		t0 = util_mono_ns();
		w.gated = pthread_self();
		w.policy = -2;
		watching = c[i].go == 1 && c[i].ok &&
			   pthread_create(&wt, NULL, gate_watch_main, &w) == 0;
		rc = lg_gate(c[i].ok);
		if (watching)
			pthread_join(wt, NULL);
		TAP_EQ_INT(rc, c[i].want, c[i].name);
		if (watching) {
			struct sched_param sp;
			int pol = -1;

			pthread_getschedparam(pthread_self(), &pol, &sp);
			if (rt)
				tap_ok(w.policy ==
				       (SCHED_FIFO | SCHED_RESET_ON_FORK),
				       "gate: sleeps at real-time priority, "
				       "not inherited by a child");
			else
				tap_ok(1, "gate: sleeps at real-time "
				       "priority # SKIP not allowed here");
			tap_ok(pol == SCHED_OTHER,
			       "gate: back to its own policy when it wakes");
		}
		tap_ok(read(ready[0], &st, 1) == 1 && st == c[i].st,
		       "gate: %s: the agent reads '%c'", c[i].name, c[i].st);
		if (c[i].want == 0) {
			tap_ok(read(ready[0], &woke, sizeof(woke)) ==
			       sizeof(woke) && woke >= at &&
			       util_mono_ns() - t0 >= 25000000,
			       "gate: woke at the start, said when");
		}
		tap_ok(!lg_gate_active(), "gate: %s: used once", c[i].name);
		close(go[0]);
		close(ready[0]);
		close(ready[1]);
	}
}

/* A prepared connection's step: ready on "y", failed on anything else
 * or EOF, waiting while there is nothing to read. */
static int step_y(void *ctx, unsigned i, int fd)
{
	char b;
	ssize_t n = recv(fd, &b, 1, 0);

	if (n < 0 && errno == EAGAIN)
		return 0;
	return n == 1 && b == 'y' ? 1 : -1;
}

/* A loopback listener's address in *a; returns its fd or -1. */
static int listen_lo(struct sockaddr_in *a)
{
	socklen_t len = sizeof(*a);
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	memset(a, 0, sizeof(*a));
	a->sin_family = AF_INET;
	a->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0 || bind(fd, (struct sockaddr *)a, sizeof(*a)) != 0 ||
	    listen(fd, 8) != 0 ||
	    getsockname(fd, (struct sockaddr *)a, &len) != 0)
		return -1;
	return fd;
}

/* lg_prepare_conns: every connection up, a step that waits for its
 * server's word (one says yes, one no, one nothing until the timeout), a
 * port nobody listens on. */
static void test_prepare_conns(void)
{
	static const char words[3] = { 'y', 'n', 0 };
	struct sockaddr_in a;
	int fds[3], lfd, c, i, up;
	uint64_t t0, took;
	pid_t pid;

	unsetenv("BENCHBOOT_GATE");
	lfd = listen_lo(&a);
	if (!tap_ok(lfd >= 0, "prepare conns: a loopback listener"))
		return;
	TAP_EQ_INT(lg_prepare_conns((struct sockaddr *)&a, sizeof(a), fds, 3,
				    2000000000ull, NULL, NULL), 3,
		   "prepare conns: 3 connected, no step: 3 ready");
	for (i = 0, up = 0; i < 3; i++)
		if (fds[i] >= 0 && close(fds[i]) == 0)
			up++;
	TAP_EQ_INT(up, 3, "prepare conns: the caller has their 3 fds");
	for (i = 0; i < 3; i++)		/* out of the backlog */
		if ((c = accept(lfd, NULL, NULL)) >= 0)
			close(c);
	pid = fork();
	if (pid == 0) {		/* the server: a word to each, in turn */
		for (i = 0; i < 3; i++) {
			c = accept(lfd, NULL, NULL);
			if (c >= 0 && words[i] && send(c, &words[i], 1, 0))
				continue;
		}
		sleep(2);
		_exit(0);
	}
	t0 = util_mono_ns();
	TAP_EQ_INT(lg_prepare_conns((struct sockaddr *)&a, sizeof(a), fds, 3,
				    400000000ull, step_y, NULL), 1,
		   "prepare conns: step: 1 yes, 1 no, 1 silent: 1 ready");
	took = util_mono_ns() - t0;
	for (i = 0, up = 0; i < 3; i++)
		if (fds[i] >= 0 && close(fds[i]) == 0)
			up++;
	tap_ok(up == 1 && took >= 400000000ull && took < 1500000000ull,
	       "prepare conns: the others closed (-1) at the timeout, %.2f s",
	       (double)took / 1e9);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	close(lfd);
	/* The port is free again: nobody listens there. */
	t0 = util_mono_ns();
	TAP_EQ_INT(lg_prepare_conns((struct sockaddr *)&a, sizeof(a), fds, 2,
				    2000000000ull, NULL, NULL), 0,
		   "prepare conns: refused: none ready");
	tap_ok(fds[0] == -1 && fds[1] == -1 &&
	       util_mono_ns() - t0 < 1000000000ull,
	       "prepare conns: refused: both -1 at once");
}

int main(void)
{
	test_gate_env();
	test_gate();
	test_prepare_conns();
	test_share();
	test_pace();
	test_pace_at();
	test_record();
	test_fmt();
	return tap_done();
}
