/* agent/session.c: a client's or server's life with its controller (session.h):
 * one connection at a time, a single-threaded poll loop over the control
 * socket, the current step's workload processes and the series pipes. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "proto/control.h"
#include "proto/gate.h"
#include "lib/json_int.h"
#include "node/node.h"
#include "node/peer.h"
#include "agent/policy.h"
#include "node/series.h"
#include "agent/session.h"
#include "lib/util.h"
#include "lib/version.h"
#include "lib/wake.h"

/* A workload's stdout beyond this is drained, not kept: a record is far
 * smaller, and the agent's memory is the lab's. */
#define SESSION_OUT_MAX (4u << 20)
#define SESSION_MAX_PROCS 16
/* The cap of the back-off while no browse can start, and how often the
 * agent says it is still looking. */
#define SESSION_FIND_MAX_MS 2000
/* From connecting to the controller's welcome (through the key handshake
 * in a keyed lab): a controller that accepts and then says nothing must
 * not hold the agent. */
#define SESSION_WELCOME_S 20
/* Open lab: how long a run target is looked for among the announced
 * servers (the search ends as soon as it is seen: only a host that is
 * not announced costs the whole time; 1.5 s refused the server on 49 of
 * 256 busy clients, docs/discovery.md), and how many verified ones are
 * remembered. */
#define SESSION_SEEN_MS 5000
#define SESSION_SEEN_MAX 8
#define SESSION_FIND_LOG_NS 60000000000ull

struct session_proc {
	pid_t pid;
	/* wake_fd: the wake-up time; behind a gate, the ready byte first
	 * (lg_gate); go_fd: where the start time goes (gated only). */
	int out_fd, wake_fd, go_fd;
	int gated;
	int gstate;		/* gated: 0 preparing, 1 ready, -1 failed */
	char *out;
	size_t outlen, outcap;
	int64_t launched_ns;
	int status, exited;
	cJSON *argv;
};

/* The processes of the step being run. */
/* The image server's relay-route command (configs/server/server-relay). */

struct session_step {
	int active;
	char step[201];
	unsigned nprocs;
	struct session_proc procs[SESSION_MAX_PROCS];
	uint64_t deadline_mono;
	/* A prepared run (RUN with prepare_s): the gated processes run at
	 * once and prepare; the others (later) are forked on START. */
	int prepare, prepared_sent, started;
	unsigned prepare_s;		/* the prepare phase's limit */
	cJSON *later;
	double timeout_s;
};

struct session {
	const struct session_opts *o;
	volatile sig_atomic_t *stop;
	struct control_conn c;
	struct session_step run;
	struct series series[SERIES_MAX];
	int nseries;
	int done;
	char where[300];		/* the controller, for the log */
	char nonce[AUTH_HEX_NONCE + 1];	/* ours, this connection */
	int authed;			/* keyed lab: handshake done */
	int welcomed;			/* the controller accepted our hello */
	const char *ctl_host;		/* the controller's host, as dialled */
	/* The first hello's host facts, gathered while the controller is
	 * searched for (NULL once sent): 256 agents that found it at once
	 * each spent 3-13 ms of CPU on them after connecting, and sharing
	 * two cores fairly, none said hello for 3 s. */
	cJSON *hello_host;
	/* Open lab: run targets verified as announced servers. */
	char seen[SESSION_SEEN_MAX][64];
	int nseen;
	struct util_clockwatch clock;	/* wall-clock steps, reported */
	struct auth_session as;
};

static void session_step_kill(struct session_step *r)
{
	unsigned i;

	for (i = 0; i < r->nprocs; i++) {
		struct session_proc *p = &r->procs[i];

		if (p->pid > 0 && !p->exited) {
			kill(-p->pid, SIGKILL);
			kill(p->pid, SIGKILL);
			waitpid(p->pid, &p->status, 0);
			p->exited = 1;
		}
	}
}

static void session_step_free(struct session_step *r)
{
	unsigned i;

	session_step_kill(r);
	for (i = 0; i < r->nprocs; i++) {
		struct session_proc *p = &r->procs[i];

		if (p->out_fd >= 0)
			close(p->out_fd);
		if (p->wake_fd >= 0)
			close(p->wake_fd);
		if (p->go_fd >= 0)
			close(p->go_fd);
		free(p->out);
		cJSON_Delete(p->argv);
	}
	cJSON_Delete(r->later);
	memset(r, 0, sizeof(*r));
}

/* Workloads that prepare behind the gate (loadgen.h lg_gate); the rest
 * start at the start time as they always did. */
static int session_prepares(const cJSON *argv)
{
	static const char *const w[] = { "http", "sql", "smtp", "smtp-sink" };
	const cJSON *a = cJSON_GetArrayItem(argv, 0);
	size_t i;

	for (i = 0; cJSON_IsString(a) && i < sizeof(w) / sizeof(w[0]); i++)
		if (strcmp(a->valuestring, w[i]) == 0)
			return 1;
	return 0;
}

/* In the child of a gated process: the gate's two pipe ends on
 * descriptors that survive exec, named in BENCHBOOT_GATE. */
static void session_gate_env(int go, int ready, uint64_t budget_ms)
{
	char v[64];
	int g = fcntl(go, F_DUPFD, 3), r = fcntl(ready, F_DUPFD, 3);

	if (g < 0 || r < 0 || gate_env_format(v, sizeof(v), g, r,
					      budget_ms) != 0)
		_exit(124);
	setenv(GATE_ENV, v, 1);
}

/* In the child: sleeps until start_at (agent clock), reports the wake-up
 * time through wake_fd, then execs our binary with args; gated (go >= 0),
 * execs at once and the workload waits at its gate.  Never returns. */
static void session_proc_child(int64_t start_at, int out_fd, int wake_fd,
			       int go, uint64_t budget_ms, char **args,
			       pid_t parent)
{
	int64_t woke, now;

	setpgid(0, 0);
	/* A workload dies with its agent, whatever kills the agent; and if
	 * it is gone already, the workload never starts. */
	prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
	if (getppid() != parent)
		_exit(125);
	dup2(out_fd, 1);
	/* The default 50 us timer slack would be skew of our own. */
	prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
	if (go >= 0) {
		session_gate_env(go, wake_fd, budget_ms);
		execv("/proc/self/exe", args);
		_exit(127);
	}
	if (wake_at(node_clock_to_real(start_at), &woke) != 0)
		_exit(126);
	now = woke + node_clock() - (int64_t)util_real_ns();
	if (write(wake_fd, &now, sizeof(now)) != sizeof(now))
		_exit(126);
	execv("/proc/self/exe", args);
	_exit(127);
}

/* Forks one process that sleeps until start_at and then execs our binary
 * with argv; its wake-up time comes back through a pipe so the start skew
 * is measured where it happens.  With budget_ms, a gated one instead:
 * exec at once, prepare within budget_ms, wait at the gate.  Returns 0 or
 * a negative errno. */
static int session_proc_spawn(struct session_proc *p, const cJSON *argv,
			      int64_t start_at, uint64_t budget_ms)
{
	int out[2], wake[2], go[2] = { -1, -1 }, rc;
	pid_t parent = getpid();
	char *args[260];
	const cJSON *a;
	int n = 0;

	memset(p, 0, sizeof(*p));
	p->out_fd = p->wake_fd = p->go_fd = -1;
	p->gated = budget_ms > 0;
	args[n++] = "benchboot";
	cJSON_ArrayForEach(a, argv)
		if (n < 258)
			args[n++] = a->valuestring;
	args[n] = NULL;
	if (pipe2(out, O_CLOEXEC) != 0)
		return -errno;
	if (pipe2(wake, O_CLOEXEC) != 0) {
		rc = -errno;
		goto err_out;
	}
	if (p->gated && pipe2(go, O_CLOEXEC) != 0) {
		rc = -errno;
		goto err_wake;
	}
	p->pid = fork();
	if (p->pid < 0) {
		rc = -errno;
		goto err_go;
	}
	if (p->pid == 0)
		session_proc_child(start_at, out[1], wake[1], go[0], budget_ms,
				   args, parent);
	close(out[1]);
	close(wake[1]);
	if (p->gated) {
		close(go[0]);
		p->go_fd = go[1];
	}
	fcntl(out[0], F_SETFL, O_NONBLOCK);
	fcntl(wake[0], F_SETFL, O_NONBLOCK);
	p->out_fd = out[0];
	p->wake_fd = wake[0];
	p->argv = cJSON_Duplicate(argv, 1);
	return 0;
err_go:
	if (p->gated) {
		close(go[0]);
		close(go[1]);
	}
err_wake:
	close(wake[0]);
	close(wake[1]);
err_out:
	close(out[0]);
	close(out[1]);
	return rc;
}

/* How a step's process is started: session_proc_spawn.  The one seam of
 * fuzz_session (which includes this file): it puts a stand-in here that
 * checks what would be forked and exec'd, and forks nothing. */
static int (*session_spawn)(struct session_proc *p, const cJSON *argv,
			    int64_t start_at, uint64_t budget_ms) =
	session_proc_spawn;

/* The longest step timeout a controller may give, in seconds (a day). */
#define SESSION_STEP_TIMEOUT_MAX_S 86400.0

/* The step's deadline: its timeout past start_at (agent clock). */
static void session_step_deadline(struct session_step *r, int64_t start_at)
{
	int64_t lead = start_at - node_clock();

	r->deadline_mono = util_mono_ns() + (uint64_t)(lead > 0 ? lead : 0) +
			   (uint64_t)(r->timeout_s * 1e9);
}

static int session_step_start(struct session_step *r, const struct control_msg *m)
{
	const cJSON *pv, *to, *ps;
	uint64_t budget_ms = 0;
	int rc;

	memset(r, 0, sizeof(*r));
	snprintf(r->step, sizeof(r->step), "%s", m->step);
	r->active = 1;
	to = cJSON_GetObjectItemCaseSensitive(m->json, "timeout_s");
	r->timeout_s = cJSON_IsNumber(to) && to->valuedouble > 0 ?
		       to->valuedouble : 600;
	/* The controller's number becomes nanoseconds: held to a day
	 * first (1e26 s has no integer; fuzz_session found it). */
	if (r->timeout_s > SESSION_STEP_TIMEOUT_MAX_S)
		r->timeout_s = SESSION_STEP_TIMEOUT_MAX_S;
	/* Prepared: the gated processes now, the others on START. */
	ps = cJSON_GetObjectItemCaseSensitive(m->json, "prepare_s");
	if (cJSON_IsNumber(ps) && ps->valuedouble > 0) {
		r->prepare = 1;
		/* The controller's number: within the gate's range before
		 * it becomes an integer (a huge double has none). */
		budget_ms = ps->valuedouble * 1e3 >= GATE_BUDGET_MAX_MS ?
			    GATE_BUDGET_MAX_MS :
			    (uint64_t)(ps->valuedouble * 1000);
		r->prepare_s = (unsigned)(budget_ms / 1000) + 1;
		r->later = cJSON_CreateArray();
		if (!r->later)
			return -ENOMEM;
	}
	cJSON_ArrayForEach(pv, m->procs) {
		if (r->prepare && !session_prepares(pv)) {
			cJSON_AddItemToArray(r->later,
					     cJSON_Duplicate(pv, 1));
			continue;
		}
		rc = session_spawn(&r->procs[r->nprocs], pv, m->start_at,
				   budget_ms);
		if (rc != 0)
			return rc;
		r->nprocs++;
	}
	if (r->prepare) {
		r->deadline_mono = util_mono_ns() + budget_ms * 1000000ull +
				   (uint64_t)(r->timeout_s * 1e9);
		node_log("step %s: %u process(es) preparing (%.0f s at most)",
			 r->step, r->nprocs, (double)budget_ms / 1e3);
		node_status("preparing step %s", r->step);
		return 0;
	}
	r->started = 1;
	session_step_deadline(r, m->start_at);
	node_log("step %s: %u process(es), start in %.1f ms", r->step,
		 r->nprocs, (double)(m->start_at - node_clock()) / 1e6);
	node_status("running step %s", r->step);
	return 0;
}

/* START of a prepared step: the start time through every gate, and the
 * processes that do not prepare forked to sleep until it.  Returns 0 or
 * a negative errno (the step is then answered as failed). */
static int session_step_go(struct session_step *r, int64_t start_at)
{
	int64_t real = node_clock_to_real(start_at);
	const cJSON *pv;
	unsigned i;
	int rc;

	r->started = 1;
	for (i = 0; i < r->nprocs; i++) {
		struct session_proc *p = &r->procs[i];

		if (p->go_fd < 0)
			continue;
		/* 8 bytes fit a pipe's buffer: never blocks.  A gate that
		 * failed or exited has gone away: nothing to tell it. */
		if (p->gstate == 1 &&
		    write(p->go_fd, &real, sizeof(real)) != sizeof(real))
			node_log("step %s: process %u did not take the start", r->step, i);
		close(p->go_fd);
		p->go_fd = -1;
	}
	cJSON_ArrayForEach(pv, r->later) {
		if (r->nprocs == SESSION_MAX_PROCS)
			return -E2BIG;
		rc = session_spawn(&r->procs[r->nprocs], pv, start_at, 0);
		if (rc != 0)
			return rc;
		r->nprocs++;
	}
	session_step_deadline(r, start_at);
	node_log("step %s: prepared, start in %.1f ms", r->step,
		 (double)(start_at - node_clock()) / 1e6);
	node_status("running step %s", r->step);
	return 0;
}

/* Reads what p's stdout holds, growing its buffer up to SESSION_OUT_MAX
 * and draining beyond; closes the pipe at end of file. */
static void session_proc_read(struct session_proc *p)
{
	while (p->out_fd >= 0) {
		ssize_t n;

		if (p->outcap - p->outlen < 65536) {
			size_t nc = p->outcap ? p->outcap * 2 : 65536;
			char *nb;

			if (nc > SESSION_OUT_MAX) {
				/* Too chatty for a record: drain. */
				char sink[4096];

				n = read(p->out_fd, sink, sizeof(sink));
				if (n > 0)
					continue;
				if (n < 0 && (errno == EAGAIN ||
					      errno == EINTR))
					break;
				goto eof;
			}
			nb = realloc(p->out, nc);
			if (!nb)
				break;
			p->out = nb;
			p->outcap = nc;
		}
		n = read(p->out_fd, p->out + p->outlen,
			 p->outcap - p->outlen - 1);
		if (n > 0) {
			p->outlen += (size_t)n;
			continue;
		}
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			break;
eof:
		close(p->out_fd);
		p->out_fd = -1;
	}
}

/* Reads pending output of the step's processes; reaps those that ended. */
static void session_step_poll(struct session_step *r)
{
	unsigned i;

	for (i = 0; i < r->nprocs; i++) {
		struct session_proc *p = &r->procs[i];

		if (p->wake_fd >= 0 && p->gated && p->gstate == 0) {
			char st;
			ssize_t n = read(p->wake_fd, &st, 1);

			if (n == 1 || n == 0)
				p->gstate = n == 1 && st == 'R' ? 1 : -1;
			if (n == 0) {
				close(p->wake_fd);
				p->wake_fd = -1;
			}
		}
		if (p->wake_fd >= 0 && (!p->gated || p->gstate == 1)) {
			int64_t t;
			ssize_t n = read(p->wake_fd, &t, sizeof(t));

			/* A gated workload reports its real time. */
			if (n == sizeof(t))
				p->launched_ns = p->gated ? t + node_clock() -
						 (int64_t)util_real_ns() : t;
			if (n == sizeof(t) || n == 0) {
				close(p->wake_fd);
				p->wake_fd = -1;
			}
		}
		session_proc_read(p);
		if (!p->exited && p->pid > 0 &&
		    waitpid(p->pid, &p->status, WNOHANG) == p->pid)
			p->exited = 1;
	}
}

static int session_step_finished(const struct session_step *r)
{
	unsigned i;

	if (!r->started)
		return 0;
	for (i = 0; i < r->nprocs; i++)
		if (!r->procs[i].exited || r->procs[i].out_fd >= 0)
			return 0;
	return 1;
}

/* The workload's record: its whole stdout as one JSON object, or else the
 * last line that is one (a workload may print other lines first).  New
 * object or NULL. */
static cJSON *session_proc_record(struct session_proc *p)
{
	cJSON *rec;
	char *last;

	if (!p->out || p->outlen == 0)
		return NULL;
	p->out[p->outlen] = 0;
	rec = json_int_parse(p->out, p->outlen + 1, NULL, 0);
	if (!rec) {
		while (p->outlen > 0 && p->out[p->outlen - 1] == '\n')
			p->out[--p->outlen] = 0;
		last = strrchr(p->out, '\n');
		last = last ? last + 1 : p->out;
		rec = json_int_parse(last, strlen(last) + 1, NULL, 0);
	}
	if (rec && !cJSON_IsObject(rec)) {
		cJSON_Delete(rec);
		rec = NULL;
	}
	return rec;
}

/* One process's entry of a result message (takes p->argv). */
static cJSON *session_proc_entry(struct session_proc *p, const char *why)
{
	cJSON *o = cJSON_CreateObject(), *rec;
	char err[256] = "";
	int code = -1;

	if (!o)
		return NULL;
	if (WIFEXITED(p->status))
		code = WEXITSTATUS(p->status);
	else if (WIFSIGNALED(p->status))
		code = 128 + WTERMSIG(p->status);
	rec = session_proc_record(p);
	if (why)
		snprintf(err, sizeof(err), "%s", why);
	else if (code != 0)
		snprintf(err, sizeof(err), "exit status %d", code);
	else if (!rec)
		snprintf(err, sizeof(err), "no JSON record on stdout");
	cJSON_AddItemToObject(o, "argv", p->argv);
	p->argv = NULL;
	cJSON_AddNumberToObject(o, "rc", code);
	json_int_add(o, "launched_ns", (int64_t)p->launched_ns);
	if (rec)
		cJSON_AddItemToObject(o, "record", rec);
	if (err[0])
		cJSON_AddStringToObject(o, "error", err);
	return o;
}

/* The result message for a finished (or killed) step. */
static cJSON *session_step_result(struct session_step *r, const char *why)
{
	cJSON *m = control_msg_new(CONTROL_RESULT), *recs;
	unsigned i;

	if (!m)
		return NULL;
	cJSON_AddStringToObject(m, "step", r->step);
	recs = cJSON_AddArrayToObject(m, "records");
	for (i = 0; i < r->nprocs; i++)
		cJSON_AddItemToArray(recs, session_proc_entry(&r->procs[i],
							      why));
	return m;
}

static void session_series_cb(void *ctx, const char *source, cJSON *rec)
{
	struct session *s = ctx;
	cJSON *m;

	if (!s || s->c.fd < 0) {
		cJSON_Delete(rec);
		return;
	}
	m = control_msg_new(CONTROL_SERIES);
	if (!m) {
		cJSON_Delete(rec);
		return;
	}
	cJSON_AddStringToObject(m, "source", source);
	cJSON_AddItemToObject(m, "rec", rec);
	control_conn_send(&s->c, m);
	cJSON_Delete(m);
}

static int session_time_resp(struct session *s, const struct control_msg *m)
{
	int64_t t2 = node_clock();
	cJSON *r = control_msg_new(CONTROL_TIME_RESP);
	int rc;

	if (!r)
		return 0;
	cJSON_AddNumberToObject(r, "seq", (double)m->seq);
	json_int_add(r, "t1", (int64_t)m->t1);
	json_int_add(r, "t2", (int64_t)t2);
	json_int_add(r, "t3", (int64_t)node_clock());
	rc = control_conn_send(&s->c, r);
	cJSON_Delete(r);
	return rc;
}

/* Fills a refused run's result with one entry per process it asked for,
 * each with its argv and the reason (so the controller counts them). */
static int session_refusal_entries(cJSON *r, const struct control_msg *m,
				   const char *why)
{
	cJSON *recs = cJSON_GetObjectItemCaseSensitive(r, "records"), *o;
	const cJSON *pv;

	cJSON_ArrayForEach(pv, m->procs) {
		o = cJSON_CreateObject();
		if (!o)
			return -ENOMEM;
		cJSON_AddItemToObject(o, "argv", cJSON_Duplicate(pv, 1));
		cJSON_AddNumberToObject(o, "rc", -1);
		cJSON_AddNumberToObject(o, "launched_ns", 0);
		cJSON_AddStringToObject(o, "error", why);
		cJSON_AddItemToArray(recs, o);
	}
	return 0;
}

/* Whether list (an array of strings) holds s. */
static int session_listed(const cJSON *list, const char *str)
{
	const cJSON *e;

	cJSON_ArrayForEach(e, list)
		if (cJSON_IsString(e) && strcmp(e->valuestring, str) == 0)
			return 1;
	return 0;
}

/* The hosts a run may load, decided here, not by the controller: the host
 * given on this agent's command line (--target), the controller it dialled
 * (a server that became the controller), and of the run's "targets" only
 * those this agent verifies itself: in a keyed lab every one (the key
 * authenticates the suite that names them), in an open lab one that
 * announces itself over mDNS as a server of this lab.  A forged target
 * therefore changes nothing.  Returns a new array (caller frees), or
 * NULL when out of memory. */
static cJSON *session_targets(struct session *s, const struct control_msg *m)
{
	const cJSON *asked = cJSON_GetObjectItemCaseSensitive(m->json,
							       "targets");
	int keyed = s->o->key && s->o->key->len, i;
	cJSON *a = cJSON_CreateArray();
	const cJSON *t;

	if (!a)
		return NULL;
	if (s->o->target && s->o->target[0])
		cJSON_AddItemToArray(a, cJSON_CreateString(s->o->target));
	if (s->ctl_host && s->ctl_host[0])
		cJSON_AddItemToArray(a, cJSON_CreateString(s->ctl_host));
	cJSON_ArrayForEach(t, asked) {
		if (!cJSON_IsString(t) || session_listed(a, t->valuestring))
			continue;
		for (i = 0; i < s->nseen; i++)
			if (strcmp(s->seen[i], t->valuestring) == 0)
				break;
		if (!keyed && i == s->nseen) {
			int rc = peer_server_announced(t->valuestring,
						       s->o->lab,
						       SESSION_SEEN_MS);

			if (rc == -EADDRNOTAVAIL) {
				node_log("run target %.80s: loopback, unspecified, multicast or this agent's own address: never loaded, whatever announces it", t->valuestring);
				continue;
			}
			if (rc != 0) {
				node_log("run target %.80s: not announced as a server of this lab: not loaded (an open lab loads only the servers its agents find themselves)", t->valuestring);
				continue;
			}
			if (s->nseen < SESSION_SEEN_MAX)
				snprintf(s->seen[s->nseen++], sizeof(s->seen[0]),
					 "%s", t->valuestring);
		}
		cJSON_AddItemToArray(a, cJSON_CreateString(t->valuestring));
	}
	return a;
}

/* Checks every process of a run against the agent's policy.  Returns 0,
 * or -EPERM with the first refusal in why. */
static int session_run_allowed(struct session *s, const struct control_msg *m,
			       char *why, size_t whylen)
{
	cJSON *targets = session_targets(s, m);
	const cJSON *pv;
	int rc = targets ? 0 : -ENOMEM;

	cJSON_ArrayForEach(pv, m->procs) {
		if (rc != 0)
			break;
		rc = policy_check_argv(pv, s->o->workloads, targets, why,
				       whylen);
	}
	cJSON_Delete(targets);
	return rc;
}

/* RUN: starts the step, or answers at once why it cannot. */
static int session_on_run(struct session *s, const struct control_msg *m)
{
	char why[256];
	cJSON *r;
	int rc;

	if (session_run_allowed(s, m, why, sizeof(why)) != 0) {
		struct session_step refused = { .active = 1 };

		node_log("step %s refused: %s", m->step, why);
		snprintf(refused.step, sizeof(refused.step), "%s", m->step);
		r = session_step_result(&refused, why);
		/* One entry per process asked for, each saying why. */
		rc = r ? session_refusal_entries(r, m, why) : 0;
		rc = r && rc == 0 ? control_conn_send(&s->c, r) : rc;
		cJSON_Delete(r);
		return rc;
	}
	if (s->run.active) {
		struct session_step busy = { .active = 1 };

		snprintf(busy.step, sizeof(busy.step), "%s", m->step);
		r = session_step_result(&busy, "busy with another step");
		node_log("step %s refused: still running %s", m->step,
			 s->run.step);
	} else {
		rc = session_step_start(&s->run, m);
		if (rc == 0)
			return 0;
		node_log("step %s: cannot start: %s", m->step, strerror(-rc));
		r = session_step_result(&s->run, "cannot start processes");
		session_step_free(&s->run);
	}
	rc = r ? control_conn_send(&s->c, r) : 0;
	cJSON_Delete(r);
	return rc;
}

static int session_hello(struct session *s);

/* CHALLENGE: the controller's proof checked, ours sent, and from then on
 * every line authenticated.  Returns 0, or -EACCES: an open controller, a
 * wrong key, another lab. */
static int session_on_challenge(struct session *s, const struct control_msg *m)
{
	const struct auth_key *key = s->o->key;
	char proof[AUTH_HEX_MAC + 1];
	cJSON *p;
	int rc;

	if (!m->proof) {
		node_log("controller %s has no lab key: refused (this agent is keyed)", s->where);
		return -EACCES;
	}
	if (!auth_proof_ok(key, AUTH_LABEL_CONTROLLER, s->nonce, m->nonce,
			   m->proof)) {
		node_log("controller %s failed the lab key proof (another key?): refused", s->where);
		return -EACCES;
	}
	if (strcmp(m->lab, s->o->lab) != 0) {
		node_log("controller %s is of lab '%s', not '%s': refused", s->where, m->lab, s->o->lab);
		return -EACCES;
	}
	auth_proof(key, AUTH_LABEL_AGENT, s->nonce, m->nonce, proof);
	p = control_msg_new(CONTROL_PROOF);
	if (!p)
		return -ENOMEM;
	cJSON_AddStringToObject(p, "proof", proof);
	rc = control_conn_send(&s->c, p);
	cJSON_Delete(p);
	if (rc != 0)
		return rc;
	auth_session_init(&s->as, key, s->nonce, m->nonce, 0);
	auth_attach(&s->c, &s->as);
	s->authed = 1;
	node_log("controller %s proved the lab key", s->where);
	return session_hello(s);
}

/* Before a keyed handshake ends only its challenge may come; an open
 * agent never takes one. */
static int session_gate(struct session *s, const struct control_msg *m)
{
	int keyed = s->o->key && s->o->key->len;

	if (m->type == CONTROL_CHALLENGE && keyed && !s->authed)
		return session_on_challenge(s, m);
	if (m->type == CONTROL_CHALLENGE) {
		node_log("controller %s asks for a lab key this agent %s: closing", s->where, keyed ? "already proved" : "does not have");
		return -EACCES;
	}
	if (keyed && !s->authed) {
		node_log("controller %s sent %s before the key handshake: closing", s->where, control_type_name(m->type));
		return -EACCES;
	}
	return 1;
}

/* RESET (server role): the server's reset between steps, run here, and
 * what it did sent back (node.h).  Returns 0 or the send's error. */
static int session_on_reset(struct session *s, const struct control_msg *m)
{
	cJSON *r = control_msg_new(CONTROL_RESET);
	int rc;

	if (!r)
		return 0;
	cJSON_AddStringToObject(r, "step", m->step);
	if (s->o->role == ROLE_SERVER)
		node_server_reset(r);
	else
		cJSON_AddStringToObject(r, "not_reset", "not a server agent");
	node_log("reset before step %s: %s", m->step,
		 cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(r, "ok")) ?
		 "done" : "not done");
	rc = control_conn_send(&s->c, r);
	cJSON_Delete(r);
	return rc;
}

static int session_handle(struct session *s, const char *line, size_t len)
{
	struct control_msg m;
	char err[256];
	int rc;

	rc = control_msg_parse(line, len, &m, err, sizeof(err));
	if (rc != 0) {
		node_log("closing control connection: malformed message: %s", err);
		return rc;
	}
	rc = session_gate(s, &m);
	if (rc != 1) {
		control_msg_free(&m);
		return rc;
	}
	rc = 0;
	switch (m.type) {
	case CONTROL_WELCOME:
		node_log("accepted by controller %s", m.id);
		s->welcomed = 1;
		break;
	case CONTROL_TIME_REQ:
		rc = session_time_resp(s, &m);
		break;
	case CONTROL_RUN:
		rc = session_on_run(s, &m);
		break;
	case CONTROL_RESET:
		rc = session_on_reset(s, &m);
		break;
	case CONTROL_START:
		if (!s->run.active || strcmp(s->run.step, m.step) != 0 ||
		    !s->run.prepare || s->run.started) {
			node_log("start of step %s ignored (not prepared here)", m.step);
			break;
		}
		if (session_step_go(&s->run, m.start_at) != 0) {
			node_log("step %s: cannot start the others: killing it", m.step);
			session_step_kill(&s->run);
		}
		break;
	case CONTROL_ABORT:
		if (s->run.active && strcmp(s->run.step, m.step) == 0) {
			node_log("step %s aborted by the controller", m.step);
			session_step_free(&s->run);
		}
		break;
	case CONTROL_RELAY:
		if (s->o->role == ROLE_SERVER)
			node_relay_route(m.sink);
		else
			node_log("relay %s: not a server, ignored", m.sink);
		break;
	case CONTROL_DONE:
		node_log("controller says the suite is done");
		node_status("suite done");
		s->done = 1;
		break;
	default:
		node_log("closing control connection: unexpected message type %s from the controller", control_type_name(m.type));
		rc = -EPROTO;
		break;
	}
	control_msg_free(&m);
	return rc;
}

/* A result too big for one message: sent again without the records, each
 * saying why, rather than losing the connection over it. */
static int session_send_stripped(struct session *s, cJSON *r)
{
	cJSON *e, *recs = cJSON_GetObjectItemCaseSensitive(r, "records");

	cJSON_ArrayForEach(e, recs) {
		cJSON_DeleteItemFromObject(e, "record");
		cJSON_DeleteItemFromObject(e, "error");
		cJSON_AddStringToObject(e, "error", "record over the 1 MiB message limit");
	}
	node_log("step %s: records over the message limit, sent without them", s->run.step);
	return control_conn_send(&s->c, r);
}

static int session_hello(struct session *s)
{
	const struct session_opts *o = s->o;
	cJSON *hello = control_msg_new(CONTROL_HELLO);
	int rc;

	if (!hello)
		return -ENOMEM;
	cJSON_AddStringToObject(hello, "id", o->id);
	cJSON_AddStringToObject(hello, "role", role_name(o->role));
	cJSON_AddStringToObject(hello, "ver", version_string());
	if (o->lab && o->lab[0])
		cJSON_AddStringToObject(hello, "lab", o->lab);
	cJSON_AddItemToObject(hello, "host", s->hello_host ? s->hello_host :
			      node_hostinfo(o->id, role_name(o->role)));
	s->hello_host = NULL;
	cJSON_AddItemToObject(hello, "workloads",
			      cJSON_Duplicate(o->workloads, 1));
	rc = control_conn_send(&s->c, hello);
	cJSON_Delete(hello);
	return rc;
}

/* Opens a connection: the keyed handshake's first message, or the hello
 * of an open lab (with the warning every console shows). */
static int session_open(struct session *s)
{
	cJSON *a;
	int rc;

	s->authed = 0;
	if (!s->o->key || !s->o->key->len) {
		node_log("WARNING: open lab: no lab key, so any host on the LAN can drive this agent (docs/security.md)");
		return session_hello(s);
	}
	rc = auth_nonce(s->nonce);
	if (rc != 0)
		return rc;
	a = control_msg_new(CONTROL_AUTH);
	if (!a)
		return -ENOMEM;
	cJSON_AddStringToObject(a, "nonce", s->nonce);
	if (s->o->lab && s->o->lab[0])
		cJSON_AddStringToObject(a, "lab", s->o->lab);
	rc = control_conn_send(&s->c, a);
	cJSON_Delete(a);
	return rc;
}

/* Fills pf with the control socket (first), the step's pipes and the
 * series pipes.  Returns how many. */
static nfds_t session_pollfds(struct session *s, struct pollfd *pf)
{
	nfds_t np = 0;
	unsigned k;
	int i;

	pf[np].fd = s->c.fd;
	pf[np++].events = POLLIN | (control_conn_pending(&s->c) ? POLLOUT : 0);
	for (k = 0; s->run.active && k < s->run.nprocs; k++) {
		if (s->run.procs[k].out_fd >= 0) {
			pf[np].fd = s->run.procs[k].out_fd;
			pf[np++].events = POLLIN;
		}
		if (s->run.procs[k].wake_fd >= 0) {
			pf[np].fd = s->run.procs[k].wake_fd;
			pf[np++].events = POLLIN;
		}
	}
	for (i = 0; i < s->nseries; i++)
		if (s->series[i].fd >= 0) {
			pf[np].fd = s->series[i].fd;
			pf[np++].events = POLLIN;
		}
	return np;
}

/* Reads the control socket and handles every whole message, even those
 * that arrived just before the peer closed.  Returns 0 or a negative
 * errno that ends the connection. */
static int session_read_ctl(struct session *s)
{
	const char *line;
	size_t len;
	int rc = control_conn_read(&s->c), lr;

	while (!s->done) {
		lr = control_conn_line(&s->c, &line, &len);
		if (lr == 0)
			break;
		if (lr == -EBADMSG) {
			node_log("controller %s: a line failed its lab key tag (forged, altered or replayed): closing", s->where);
			return lr;
		}
		if (lr < 0) {
			node_log("closing control connection: message over %u bytes", CONTROL_MAX_MSG);
			return lr;
		}
		lr = session_handle(s, line, len);
		if (lr != 0)
			return lr;
	}
	if (rc == -EPIPE && !s->done)
		node_log("controller closed the connection");
	return rc;
}

/* A prepared step whose every gated process said ready or failed (or
 * ended) tells the controller once, with how many of each.  Returns 0 or
 * the send's error. */
static int session_check_prepared(struct session *s)
{
	struct session_step *r = &s->run;
	unsigned i, ready = 0, failed = 0;
	cJSON *m;
	int rc;

	if (!r->prepare || r->prepared_sent || r->started)
		return 0;
	for (i = 0; i < r->nprocs; i++) {
		const struct session_proc *p = &r->procs[i];

		if (p->gstate == 0 && !p->exited)
			return 0;
		ready += p->gstate == 1 && !p->exited;
		failed += p->gstate != 1 || p->exited;
	}
	r->prepared_sent = 1;
	node_log("step %s: prepared: %u ready, %u failed", r->step, ready,
		 failed);
	m = control_msg_new(CONTROL_PREPARED);
	if (!m)
		return 0;
	cJSON_AddStringToObject(m, "step", r->step);
	cJSON_AddNumberToObject(m, "ready", ready);
	cJSON_AddNumberToObject(m, "failed", failed);
	rc = control_conn_send(&s->c, m);
	cJSON_Delete(m);
	return rc;
}

/* Kills a step over its time; sends the result of a finished one.
 * Returns rc, or the send's error. */
static int session_check_step(struct session *s, int rc)
{
	cJSON *r;

	session_step_poll(&s->run);
	if (rc == 0)
		rc = session_check_prepared(s);
	if (!session_step_finished(&s->run) &&
	    util_mono_ns() > s->run.deadline_mono) {
		node_log("step %s: over its time, killing it", s->run.step);
		session_step_kill(&s->run);
		session_step_poll(&s->run);
		s->run.started = 1;
	}
	if (!session_step_finished(&s->run))
		return rc;
	r = session_step_result(&s->run, NULL);
	node_log("step %s finished", s->run.step);
	if (r && rc == 0)
		rc = control_conn_send(&s->c, r);
	if (rc == -EMSGSIZE)
		rc = session_send_stripped(s, r);
	cJSON_Delete(r);
	session_step_free(&s->run);
	return rc;
}

/* A step of this machine's wall clock is logged and told to the
 * controller (the run's start instants are on that clock; deadlines here
 * are monotonic).  Returns 0 or the send's error. */
static int session_watch_clock(struct session *s)
{
	char step[32];
	int64_t ns;
	cJSON *m;
	int rc;

	if (!util_clock_stepped(&s->clock, 50000000, &ns))
		return 0;
	util_fmt_step(step, sizeof(step), ns);
	node_log("the wall clock stepped %s", step);
	if (s->o->key && s->o->key->len && !s->authed)
		return 0;
	m = control_msg_new(CONTROL_CLOCK);
	if (!m)
		return 0;
	cJSON_AddStringToObject(m, "step", step);
	rc = control_conn_send(&s->c, m);
	cJSON_Delete(m);
	return rc;
}

/* One connection's life.  Returns 0 when the controller said done, or a
 * negative errno when the connection broke. */
static int session_run(struct session *s, int fd)
{
	struct pollfd pf[2 + 2 * SESSION_MAX_PROCS + SERIES_MAX];
	uint64_t welcome_by;
	int rc, i;

	control_conn_init(&s->c, fd);
	s->done = 0;
	s->welcomed = 0;
	welcome_by = util_mono_ns() + SESSION_WELCOME_S * 1000000000ull;
	/* Open lab: the servers announced while we wait count when a run
	 * names its target (session_targets), however late the answers to
	 * a check made by every client of a step at once would be.  Started
	 * in session_main already unless there was no link then. */
	if (!(s->o->key && s->o->key->len))
		peer_servers_watch(s->o->lab);
	rc = session_open(s);
	while (rc == 0 && !*s->stop && !s->done) {
		if (!s->welcomed && util_mono_ns() > welcome_by) {
			node_log("controller %s: no %s within %d s: closing", s->where, s->o->key && s->o->key->len && !s->authed ? "challenge" : "welcome", SESSION_WELCOME_S);
			rc = -ETIMEDOUT;
			break;
		}
		poll(pf, session_pollfds(s, pf), 100);
		peer_poll();
		if (pf[0].revents & (POLLIN | POLLHUP | POLLERR))
			rc = session_read_ctl(s);
		if (rc == 0 && control_conn_pending(&s->c))
			rc = control_conn_flush(&s->c);
		for (i = 0; i < s->nseries; i++)
			if (s->series[i].fd >= 0)
				series_read(&s->series[i], session_series_cb,
					    s);
		if (s->run.active)
			rc = session_check_step(s, rc);
		if (rc == 0)
			rc = session_watch_clock(s);
		/* Until START, the controller (the server under test, perhaps)
		 * may be too busy to answer: as patient as it is with us. */
		control_conn_patience(&s->c, s->run.active && s->run.prepare &&
				  !s->run.started ? s->run.prepare_s +
				  CONTROL_PATIENCE_MARGIN_S : 0);
	}
	if (s->run.active)
		session_step_free(&s->run);
	control_conn_drain(&s->c, 1000);
	control_conn_close(&s->c);
	if (s->done)
		return 0;
	return rc ? rc : -EINTR;
}

/* Sleeps ms while keeping series pipes drained (nobody to send to). */
static void session_idle(struct session *s, int ms)
{
	uint64_t until = util_mono_ns() + (uint64_t)ms * 1000000u;
	int i;

	while (!*s->stop && util_mono_ns() < until) {
		usleep(50000);
		peer_poll();
		for (i = 0; i < s->nseries; i++)
			if (s->series[i].fd >= 0)
				series_read(&s->series[i], series_discard,
					    NULL);
	}
}

/* After a failed dial: waits a jittered backoff (so 64 agents do not
 * reconnect in step) and, for a discovered controller, looks again after
 * a few failures, since it may have moved. */
static void session_retry(struct session *s, int err, char *host,
			  size_t hostlen, int *port, int *backoff, int *fails)
{
	int j = *backoff / 2 + rand() % (*backoff / 2 + 1);
	char found[300];

	node_log("controller %s:%d: %s; retrying in %d ms", host, *port,
		 strerror(-err), j);
	session_idle(s, j);
	*backoff = *backoff * 2 > 5000 ? 5000 : *backoff * 2;
	if ((!s->o->controller || s->o->rediscover) && ++*fails >= 5 &&
	    peer_discover(5000000000ull, s->stop, s->o->lab, found,
			  sizeof(found)) == 0 &&
	    control_parse_hostport(found, host, hostlen, port, CONTROL_PORT) == 0)
		*fails = 0;
}

/* Clients look until a controller shows up.  A browse that cannot start
 * (no link yet, a NIC with no driver) fails at once: retried after a
 * capped back-off, so the agent neither spins nor floods the console
 * (one line a minute), and goes on within SESSION_FIND_MAX_MS of a link
 * coming up.  Returns 0 with "ADDR:PORT" in out, or -EINTR when stopped. */
static int session_find_controller(struct session *s, char *out,
				   size_t outlen)
{
	uint64_t said = 0, now;
	int wait = 250, rc;

	while (!*s->stop) {
		/* One browser a minute: its queries back off (0, 1, 3, 7, 15,
		 * 31 s) and a controller that starts is heard announcing;
		 * 256 clients each restarting a search every 10 s asked 128
		 * times a second, every query woke every agent. */
		/* Fresh for each search (a link that came up since). */
		cJSON_Delete(s->hello_host);
		s->hello_host = node_hostinfo(s->o->id, role_name(s->o->role));
		rc = peer_discover(60000000000ull, s->stop, s->o->lab, out,
				   outlen);
		if (rc == 0)
			return 0;
		now = util_mono_ns();
		if (!said || now - said >= SESSION_FIND_LOG_NS) {
			node_log("no controller found over mDNS yet");
			said = now;
		}
		if (rc == -ENOENT) {
			wait = 250;
			continue;	/* a whole browse: no need to wait */
		}
		session_idle(s, wait);
		wait = wait * 2 > SESSION_FIND_MAX_MS ? SESSION_FIND_MAX_MS :
		       wait * 2;
	}
	return -EINTR;
}

int session_main(const struct session_opts *o, volatile sig_atomic_t *stop)
{
	struct session s = { .o = o, .stop = stop };
	char host[256], found[300];
	int port, backoff = 100, rc, i, fails = 0;
	const char *ctl = o->controller;

	s.c.fd = -1;
	/* From the start, not when the controller answers: 256 clients that
	 * all found it at once each asked the LAN for its servers at once,
	 * and on one bridge those 256 x 259 copies overflowed the kernel's
	 * backlog (the server's SYN to the controller was dropped). */
	if (!(o->key && o->key->len))
		peer_servers_watch(o->lab);
	if (!ctl) {
		if (session_find_controller(&s, found, sizeof(found)) != 0) {
			cJSON_Delete(s.hello_host);
			return 0;
		}
		ctl = found;
	}
	if (control_parse_hostport(ctl, host, sizeof(host), &port, CONTROL_PORT) !=
	    0) {
		util_err("agent", EINVAL, "--controller '%s': expected HOST[:PORT]", ctl);
		cJSON_Delete(s.hello_host);
		return 2;
	}
	s.ctl_host = host;
	if (o->role == ROLE_SERVER && !o->no_series)
		s.nseries = series_start_server(s.series, o->procs);
	while (!*stop) {
		int fd = control_connect(host, port, 3000);

		if (fd < 0) {
			session_retry(&s, fd, host, sizeof(host), &port,
				      &backoff, &fails);
			continue;
		}
		snprintf(s.where, sizeof(s.where), "%s:%d", host, port);
		node_log("connected to controller %s:%d", host, port);
		node_status("connected to controller %s:%d, waiting for steps", host, port);
		backoff = 100;
		fails = 0;
		rc = session_run(&s, fd);
		if (rc == 0 && o->once)
			break;
		if (rc == -EACCES) {
			/* Refused (or refusing): back off as after a failed
			 * dial, not hammer the controller. */
			session_retry(&s, rc, host, sizeof(host), &port,
				      &backoff, &fails);
			continue;
		}
		if (!*stop)
			session_idle(&s, 200 + rand() % 300);
	}
	for (i = 0; i < s.nseries; i++)
		series_stop(&s.series[i]);
	cJSON_Delete(s.hello_host);
	return 0;
}
