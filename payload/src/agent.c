/* agent.c: `benchboot agent`: identity, host facts, and the client/server
 * side of the control protocol (connect, time probes, start workloads at
 * an absolute time, ship their records back).  The controller side is in
 * runner.c. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "agent.h"
#include "ctl.h"
#include "mdns.h"
#include "runner.h"
#include "util.h"
#include "version.h"

char agent_log_id[64] = "agent";
static volatile sig_atomic_t agent_stop;

/* This agent's clock: CLOCK_REALTIME plus a deliberate error taken from
 * $BENCHBOOT_CLOCK_OFFSET_NS, so tests on one host (where every namespace
 * shares one clock) can check that offsets are estimated and applied. */
static int64_t agent_clock_err;

static int64_t agent_clock(void)
{
	return (int64_t)util_real_ns() + agent_clock_err;
}

void agent_log(const char *fmt, ...)
{
	char ts[32], msg[1024];
	struct timespec now;
	struct tm tm;
	va_list ap;

	clock_gettime(CLOCK_REALTIME, &now);
	gmtime_r(&now.tv_sec, &tm);
	strftime(ts, sizeof(ts), "%H:%M:%S", &tm);
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fprintf(stderr, "%s.%03ld benchboot agent %s: %s\n", ts,
		now.tv_nsec / 1000000, agent_log_id, msg);
}

void agent_status(const char *fmt, ...)
{
	const char *path = getenv("BENCHBOOT_STATUS");
	char tmp[4200], line[512];
	va_list ap;
	FILE *f;

	if (!path) {
		if (access("/run/benchboot", W_OK) != 0)
			return;
		path = "/run/benchboot/status";
	}
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "w");
	if (!f)
		return;
	fprintf(f, "%s %s\n", agent_log_id, line);
	if (fclose(f) == 0)
		rename(tmp, path);
}

static int agent_read_small(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return -errno;
	n = fread(buf, 1, len - 1, f);
	fclose(f);
	buf[n] = 0;
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = 0;
	return 0;
}

static int agent_cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int agent_identity(const char *role, char *id, size_t idlen)
{
	char *names[256], path[512], mac[64], hex[16];
	struct dirent *de;
	int n = 0, pass, i, rc = -ENODEV;
	DIR *d = opendir("/sys/class/net");

	while (d && (de = readdir(d)) && n < 256)
		if (de->d_name[0] != '.' && strcmp(de->d_name, "lo") != 0)
			names[n++] = strdup(de->d_name);
	if (d)
		closedir(d);
	qsort(names, (size_t)n, sizeof(names[0]), agent_cmp_names);
	/* Pass 0: interfaces backed by a device (real NICs, virtio);
	 * pass 1: anything else with a MAC (veth in namespaces). */
	for (pass = 0; pass < 2 && rc != 0; pass++) {
		for (i = 0; i < n && rc != 0; i++) {
			struct stat st;
			size_t j, k = 0;

			if (!names[i])
				continue;
			snprintf(path, sizeof(path), "/sys/class/net/%s/device",
				 names[i]);
			if ((stat(path, &st) == 0) != (pass == 0))
				continue;
			snprintf(path, sizeof(path),
				 "/sys/class/net/%s/address", names[i]);
			if (agent_read_small(path, mac, sizeof(mac)) != 0)
				continue;
			for (j = 0; mac[j] && k < 12; j++)
				if (mac[j] != ':')
					hex[k++] = mac[j];
			hex[k] = 0;
			if (k != 12 || strcmp(hex, "000000000000") == 0)
				continue;
			snprintf(id, idlen, "%s-%s", role, hex);
			rc = 0;
		}
	}
	for (i = 0; i < n; i++)
		free(names[i]);
	if (rc != 0) {
		char host[64] = "unknown";

		gethostname(host, sizeof(host) - 1);
		snprintf(id, idlen, "%s-%s", role, host);
	}
	return rc;
}

/* The server stack's versions, as server-start wrote them (the image's
 * server role; $BENCHBOOT_SERVER_VERSIONS elsewhere): the whole object as
 * "server_versions", and each service's version string as a scalar
 * "SERVICE_version" too, which the report lists with the host.  A missing
 * or unreadable file adds nothing: not every host runs the stack. */
static void agent_server_versions(cJSON *o)
{
	const char *path = getenv("BENCHBOOT_SERVER_VERSIONS");
	char buf[4096], key[64];
	const cJSON *svc, *v;
	cJSON *j;

	if (!path)
		path = "/run/benchboot/server-versions.json";
	if (agent_read_small(path, buf, sizeof(buf)) != 0)
		return;
	j = cJSON_Parse(buf);
	if (!cJSON_IsObject(j)) {
		agent_log("%s: not a JSON object; versions not recorded", path);
		cJSON_Delete(j);
		return;
	}
	cJSON_ArrayForEach(svc, j) {
		v = cJSON_GetObjectItemCaseSensitive(svc, "version");
		if (!cJSON_IsString(v) || !svc->string)
			continue;
		snprintf(key, sizeof(key), "%s_version", svc->string);
		cJSON_AddStringToObject(o, key, v->valuestring);
	}
	cJSON_AddItemToObject(o, "server_versions", j);
}

cJSON *agent_hostinfo(const char *id, const char *role)
{
	char line[512], cpu[256] = "unknown";
	struct utsname u;
	long memkb = 0;
	cJSON *o = cJSON_CreateObject();
	FILE *f;

	if (!o)
		return NULL;
	uname(&u);
	f = fopen("/proc/cpuinfo", "r");
	while (f && fgets(line, sizeof(line), f)) {
		/* x86 "model name", ppc "cpu", arm "Hardware". */
		if (strncmp(line, "model name", 10) == 0 ||
		    strncmp(line, "cpu\t", 4) == 0) {
			char *c = strchr(line, ':');

			if (c) {
				snprintf(cpu, sizeof(cpu), "%s", c + 2);
				cpu[strcspn(cpu, "\n")] = 0;
				break;
			}
		}
	}
	if (f)
		fclose(f);
	f = fopen("/proc/meminfo", "r");
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "MemTotal: %ld kB", &memkb) == 1)
			break;
	if (f)
		fclose(f);
	snprintf(line, sizeof(line), "%s %s %s", u.sysname, u.release,
		 u.version);
	cJSON_AddStringToObject(o, "id", id);
	cJSON_AddStringToObject(o, "role", role);
	cJSON_AddStringToObject(o, "arch", u.machine);
	cJSON_AddStringToObject(o, "cpu", cpu);
	cJSON_AddNumberToObject(o, "cpus",
				(double)sysconf(_SC_NPROCESSORS_ONLN));
	cJSON_AddNumberToObject(o, "mem_kb", (double)memkb);
	cJSON_AddStringToObject(o, "kernel", line);
	cJSON_AddStringToObject(o, "image", version_string());
	cJSON_AddItemToObject(o, "deps", version_to_json());
	if (agent_read_small("/etc/benchboot-release", line, sizeof(line)) == 0)
		cJSON_AddStringToObject(o, "image_release", line);
	agent_server_versions(o);
	return o;
}

cJSON *agent_workloads(void)
{
	static const char *const known[] = {
		"http", "sql", "smtp", "probe", "sample", NULL,
	};
	cJSON *a = cJSON_CreateArray();
	char line[256];
	FILE *p = NULL;
	int pfd[2], i;
	pid_t pid = -1;

	if (!a)
		return NULL;
	/* Ask our own binary: the command table is main.c's business. */
	if (pipe2(pfd, O_CLOEXEC) == 0) {
		pid = fork();
		if (pid == 0) {
			char *argv[] = { "benchboot", "help", NULL };

			dup2(pfd[1], 1);
			execv("/proc/self/exe", argv);
			_exit(127);
		}
		close(pfd[1]);
		p = fdopen(pfd[0], "r");
		if (!p)
			close(pfd[0]);
	}
	while (p && fgets(line, sizeof(line), p)) {
		char name[64];

		if (sscanf(line, "  %63s", name) != 1 || line[0] != ' ')
			continue;
		for (i = 0; known[i]; i++)
			if (strcmp(known[i], name) == 0)
				cJSON_AddItemToArray(a,
						     cJSON_CreateString(name));
	}
	if (p)
		fclose(p);
	if (pid > 0)
		waitpid(pid, NULL, 0);
	return a;
}

int agent_has_workload(const cJSON *workloads, const char *name)
{
	const cJSON *w;

	cJSON_ArrayForEach(w, workloads)
		if (cJSON_IsString(w) && strcmp(w->valuestring, name) == 0)
			return 1;
	return 0;
}

/* --- discovery (mDNS / DNS-SD) ----------------------------------------- */

static struct mdns_responder *agent_mdns;
static uint64_t agent_mdns_due;
static char agent_txt_buf[8][96];
static const char *agent_txt[9];

static void agent_mdns_log(void *arg, const char *msg)
{
	agent_log("mdns: %s", msg);
}

static void agent_mdns_txt(const char *id, const char *role,
			   const char *suite)
{
	struct utsname u;
	long memkb = 0;
	char line[128];
	FILE *f;
	int i;

	uname(&u);
	f = fopen("/proc/meminfo", "r");
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "MemTotal: %ld kB", &memkb) == 1)
			break;
	if (f)
		fclose(f);
	snprintf(agent_txt_buf[0], 96, "role=%s", role);
	snprintf(agent_txt_buf[1], 96, "id=%s", id);
	snprintf(agent_txt_buf[2], 96, "arch=%s", u.machine);
	snprintf(agent_txt_buf[3], 96, "ver=%s", version_string());
	snprintf(agent_txt_buf[4], 96, "suite=%s", suite ? suite : "");
	snprintf(agent_txt_buf[5], 96, "cpus=%ld",
		 sysconf(_SC_NPROCESSORS_ONLN));
	snprintf(agent_txt_buf[6], 96, "mem=%ld", memkb / 1024);
	for (i = 0; i < 7; i++)
		agent_txt[i] = agent_txt_buf[i];
	agent_txt[7] = NULL;
}

int agent_mdns_publish(const char *id, const char *role, const char *suite,
		       int port)
{
	struct mdns_service svc = { 0 };
	char err[256];

	agent_mdns_txt(id, role, suite);
	svc.instance = id;
	svc.host = id;
	svc.port = (uint16_t)port;
	svc.txt = agent_txt;
	svc.log = agent_mdns_log;
	agent_mdns = mdns_responder_new(&svc, err, sizeof(err));
	if (!agent_mdns) {
		agent_log("not published over mDNS: %s", err);
		return -EIO;
	}
	agent_mdns_due = 0;
	return 0;
}

int agent_mdns_set_role(const char *role)
{
	if (!agent_mdns)
		return -ENOENT;
	snprintf(agent_txt_buf[0], 96, "role=%s", role);
	return mdns_responder_set_txt(agent_mdns, agent_txt);
}

void agent_mdns_poll(void)
{
	uint64_t now;

	if (!agent_mdns)
		return;
	now = util_mono_ns();
	/* Due, or something arrived: handle() reads non-blocking. */
	{
		struct pollfd p = { .fd = mdns_responder_fd(agent_mdns),
				    .events = POLLIN };

		if (now < agent_mdns_due && poll(&p, 1, 0) <= 0)
			return;
	}
	if (mdns_responder_handle(agent_mdns) != 0)
		agent_log("mdns responder socket failed");
	agent_mdns_due = now + (uint64_t)mdns_responder_timeout_ms(agent_mdns) *
			       1000000u;
}

void agent_mdns_stop(void)
{
	mdns_responder_free(agent_mdns);
	agent_mdns = NULL;
}

int agent_discover(uint64_t timeout_ns, char *out, size_t outlen)
{
	uint64_t end = util_mono_ns() + timeout_ns;
	struct mdns_instance *in;
	char err[256];
	int rc = -ENOENT;

	in = calloc(64, sizeof(*in));
	if (!in)
		return -ENOMEM;
	while (rc == -ENOENT && !agent_stop &&
	       util_mono_ns() < end) {
		size_t n = 0, i;
		uint64_t left = end - util_mono_ns();
		int slice = left > 1000000000ull ? 1000 :
			    (int)(left / 1000000u) + 1;
		int e;

		e = mdns_browse(NULL, NULL, slice, in, 64, &n, err,
				sizeof(err));
		agent_mdns_poll();
		if (e != 0) {
			agent_log("mdns browse: %s", err);
			rc = e;
			break;
		}
		for (i = 0; i < n; i++) {
			const char *v;
			int vl = mdns_txt_get(in[i].txt, in[i].txt_len, "role",
					      &v);

			if (vl == 10 && memcmp(v, "controller", 10) == 0) {
				snprintf(out, outlen, "%s:%u", in[i].addr,
					 in[i].port);
				agent_log("discovered controller %s at %s",
					  in[i].name, out);
				rc = 0;
				break;
			}
		}
	}
	free(in);
	return rc;
}

/* --- series producers (server role) ---------------------------------- */

int agent_series_start(struct agent_series *s, const char *source,
		       const char *procs)
{
	int pfd[2];
	pid_t pid;

	memset(s, 0, sizeof(*s));
	s->source = source;
	s->fd = -1;
	if (pipe2(pfd, O_CLOEXEC) != 0)
		return -errno;
	pid = fork();
	if (pid < 0) {
		close(pfd[0]);
		close(pfd[1]);
		return -errno;
	}
	if (pid == 0) {
		char *argv[] = { "benchboot", (char *)source, "--json",
				 procs ? "--proc" : NULL, (char *)procs, NULL };
		int devnull = open("/dev/null", O_RDONLY);

		dup2(pfd[1], 1);
		if (devnull >= 0)
			dup2(devnull, 0);
		setpgid(0, 0);
		execv("/proc/self/exe", argv);
		_exit(127);
	}
	close(pfd[1]);
	fcntl(pfd[0], F_SETFL, O_NONBLOCK);
	s->pid = pid;
	s->fd = pfd[0];
	return 0;
}

int agent_series_read(struct agent_series *s,
		      void (*cb)(void *ctx, const char *source, cJSON *rec),
		      void *ctx)
{
	for (;;) {
		ssize_t n;
		char *nl;

		if (s->fd < 0)
			return -EPIPE;
		if (s->len == sizeof(s->buf)) {
			/* A line longer than the buffer: not a record. */
			s->len = 0;
			s->dropped++;
		}
		n = read(s->fd, s->buf + s->len, sizeof(s->buf) - s->len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return 0;
		if (n <= 0) {
			close(s->fd);
			s->fd = -1;
			agent_log("'benchboot %s' ended after %llu records: no "
				  "more %s series", s->source,
				  (unsigned long long)s->lines, s->source);
			return -EPIPE;
		}
		s->len += (size_t)n;
		while ((nl = memchr(s->buf, '\n', s->len))) {
			size_t ll = (size_t)(nl - s->buf);
			cJSON *rec = cJSON_ParseWithLength(s->buf, ll);

			if (rec && cJSON_IsObject(rec)) {
				s->lines++;
				cb(ctx, s->source, rec);
			} else {
				cJSON_Delete(rec);
				if (ll > 0)
					s->dropped++;
			}
			memmove(s->buf, nl + 1, s->len - ll - 1);
			s->len -= ll + 1;
		}
	}
}

void agent_series_stop(struct agent_series *s)
{
	int i;

	if (s->pid > 0) {
		kill(s->pid, SIGTERM);
		for (i = 0; i < 50; i++) {
			if (waitpid(s->pid, NULL, WNOHANG) == s->pid)
				break;
			usleep(20000);
		}
		if (i == 50) {
			kill(s->pid, SIGKILL);
			waitpid(s->pid, NULL, 0);
		}
	}
	if (s->fd >= 0)
		close(s->fd);
	s->fd = -1;
	s->pid = 0;
}

/* --- client/server side of a session --------------------------------- */

#define AGENT_OUT_MAX (4u << 20)

struct agent_proc {
	pid_t pid;
	int out_fd, wake_fd;
	char *out;
	size_t outlen, outcap;
	int64_t launched_ns;
	int status, exited;
	cJSON *argv;
};

struct agent_run {
	int active;
	char step[201];
	unsigned nprocs;
	struct agent_proc procs[16];
	uint64_t deadline_mono;
};

static void agent_on_signal(int sig)
{
	agent_stop = sig;
}

static void agent_run_kill(struct agent_run *r)
{
	unsigned i;

	for (i = 0; i < r->nprocs; i++) {
		struct agent_proc *p = &r->procs[i];

		if (p->pid > 0 && !p->exited) {
			kill(-p->pid, SIGKILL);
			kill(p->pid, SIGKILL);
			waitpid(p->pid, &p->status, 0);
			p->exited = 1;
		}
	}
}

static void agent_run_free(struct agent_run *r)
{
	unsigned i;

	agent_run_kill(r);
	for (i = 0; i < r->nprocs; i++) {
		struct agent_proc *p = &r->procs[i];

		if (p->out_fd >= 0)
			close(p->out_fd);
		if (p->wake_fd >= 0)
			close(p->wake_fd);
		free(p->out);
		cJSON_Delete(p->argv);
	}
	memset(r, 0, sizeof(*r));
}

/* Forks one process that sleeps until start_at (CLOCK_REALTIME ns) and
 * then execs our binary with argv; its wake-up time comes back through a
 * pipe so the start skew is measured where it happens. */
static int agent_proc_spawn(struct agent_proc *p, const cJSON *argv,
			    int64_t start_at)
{
	int out[2], wake[2];
	char *args[260];
	const cJSON *a;
	int n = 0;

	memset(p, 0, sizeof(*p));
	p->out_fd = p->wake_fd = -1;
	args[n++] = "benchboot";
	cJSON_ArrayForEach(a, argv)
		if (n < 258)
			args[n++] = a->valuestring;
	args[n] = NULL;
	if (pipe2(out, O_CLOEXEC) != 0)
		return -errno;
	if (pipe2(wake, O_CLOEXEC) != 0) {
		close(out[0]);
		close(out[1]);
		return -errno;
	}
	p->pid = fork();
	if (p->pid < 0) {
		int e = errno;

		close(out[0]);
		close(out[1]);
		close(wake[0]);
		close(wake[1]);
		return -e;
	}
	if (p->pid == 0) {
		/* start_at is on the agent's clock (see agent_clock). */
		int64_t real_at = start_at - agent_clock_err;
		struct timespec ts = {
			.tv_sec = real_at / 1000000000,
			.tv_nsec = real_at % 1000000000,
		};
		int64_t now;

		setpgid(0, 0);
		dup2(out[1], 1);
		/* The default 50 us timer slack would be skew of our own. */
		prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
		while (clock_nanosleep(CLOCK_REALTIME, TIMER_ABSTIME, &ts,
				       NULL) == EINTR)
			;
		now = agent_clock();
		if (write(wake[1], &now, sizeof(now)) != sizeof(now))
			_exit(126);
		execv("/proc/self/exe", args);
		_exit(127);
	}
	close(out[1]);
	close(wake[1]);
	fcntl(out[0], F_SETFL, O_NONBLOCK);
	p->out_fd = out[0];
	p->wake_fd = wake[0];
	p->argv = cJSON_Duplicate(argv, 1);
	return 0;
}

static int agent_run_start(struct agent_run *r, const struct ctl_msg *m)
{
	const cJSON *pv;
	int64_t lead;
	int rc;

	memset(r, 0, sizeof(*r));
	snprintf(r->step, sizeof(r->step), "%s", m->step);
	r->active = 1;
	cJSON_ArrayForEach(pv, m->procs) {
		rc = agent_proc_spawn(&r->procs[r->nprocs], pv, m->start_at);
		if (rc != 0)
			return rc;
		r->nprocs++;
	}
	lead = m->start_at - agent_clock();
	{
		const cJSON *to = cJSON_GetObjectItemCaseSensitive(m->json,
								   "timeout_s");
		double t = cJSON_IsNumber(to) && to->valuedouble > 0 ?
			   to->valuedouble : 600;

		r->deadline_mono = util_mono_ns() + (uint64_t)(lead > 0 ?
							       lead : 0) +
				   (uint64_t)(t * 1e9);
	}
	agent_log("step %s: %u process(es), start in %.1f ms", r->step,
		  r->nprocs, (double)lead / 1e6);
	agent_status("running step %s", r->step);
	return 0;
}

/* Reads pending output of run processes; reaps those that ended. */
static void agent_run_poll(struct agent_run *r)
{
	unsigned i;

	for (i = 0; i < r->nprocs; i++) {
		struct agent_proc *p = &r->procs[i];

		if (p->wake_fd >= 0) {
			int64_t t;
			ssize_t n = read(p->wake_fd, &t, sizeof(t));

			if (n == sizeof(t))
				p->launched_ns = t;
			if (n == sizeof(t) || n == 0) {
				close(p->wake_fd);
				p->wake_fd = -1;
			}
		}
		while (p->out_fd >= 0) {
			ssize_t n;

			if (p->outcap - p->outlen < 65536) {
				size_t nc = p->outcap ? p->outcap * 2 : 65536;
				char *nb;

				if (nc > AGENT_OUT_MAX) {
					/* Too chatty for a record: drain. */
					char sink[4096];

					n = read(p->out_fd, sink, sizeof(sink));
					if (n > 0)
						continue;
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
		if (!p->exited && p->pid > 0 &&
		    waitpid(p->pid, &p->status, WNOHANG) == p->pid)
			p->exited = 1;
	}
}

static int agent_run_finished(const struct agent_run *r)
{
	unsigned i;

	for (i = 0; i < r->nprocs; i++)
		if (!r->procs[i].exited || r->procs[i].out_fd >= 0)
			return 0;
	return 1;
}

/* The result message for a finished (or killed) run. */
static cJSON *agent_run_result(struct agent_run *r, const char *why)
{
	cJSON *m = ctl_msg_new(CTL_RESULT), *recs;
	unsigned i;

	if (!m)
		return NULL;
	cJSON_AddStringToObject(m, "step", r->step);
	recs = cJSON_AddArrayToObject(m, "records");
	for (i = 0; i < r->nprocs; i++) {
		struct agent_proc *p = &r->procs[i];
		cJSON *o = cJSON_CreateObject(), *rec = NULL;
		int code = -1;
		char err[256] = "";

		if (WIFEXITED(p->status))
			code = WEXITSTATUS(p->status);
		else if (WIFSIGNALED(p->status))
			code = 128 + WTERMSIG(p->status);
		if (p->out && p->outlen > 0) {
			char *last;

			p->out[p->outlen] = 0;
			rec = cJSON_Parse(p->out);
			/* A workload may print other lines first: take the
			 * last line that is a JSON object. */
			if (!rec) {
				while (p->outlen > 0 &&
				       p->out[p->outlen - 1] == '\n')
					p->out[--p->outlen] = 0;
				last = strrchr(p->out, '\n');
				rec = cJSON_Parse(last ? last + 1 : p->out);
			}
			if (rec && !cJSON_IsObject(rec)) {
				cJSON_Delete(rec);
				rec = NULL;
			}
		}
		if (why)
			snprintf(err, sizeof(err), "%s", why);
		else if (code != 0)
			snprintf(err, sizeof(err), "exit status %d", code);
		else if (!rec)
			snprintf(err, sizeof(err), "no JSON record on stdout");
		cJSON_AddItemToObject(o, "argv", p->argv);
		p->argv = NULL;
		cJSON_AddNumberToObject(o, "rc", code);
		cJSON_AddNumberToObject(o, "launched_ns",
					(double)p->launched_ns);
		if (rec)
			cJSON_AddItemToObject(o, "record", rec);
		if (err[0])
			cJSON_AddStringToObject(o, "error", err);
		cJSON_AddItemToArray(recs, o);
	}
	return m;
}

struct agent_session {
	const struct agent_opts *o;
	struct ctl_conn c;
	struct agent_run run;
	struct agent_series *series;
	int nseries;
	int done;
};

static void agent_series_cb(void *ctx, const char *source, cJSON *rec)
{
	struct agent_session *s = ctx;
	cJSON *m;

	if (!s || s->c.fd < 0) {
		cJSON_Delete(rec);
		return;
	}
	m = ctl_msg_new(CTL_SERIES);
	if (!m) {
		cJSON_Delete(rec);
		return;
	}
	cJSON_AddStringToObject(m, "source", source);
	cJSON_AddItemToObject(m, "rec", rec);
	ctl_conn_send(&s->c, m);
	cJSON_Delete(m);
}

static void agent_series_discard(void *ctx, const char *source, cJSON *rec)
{
	cJSON_Delete(rec);
}

static int agent_handle(struct agent_session *s, const char *line,
			size_t len)
{
	struct ctl_msg m;
	char err[256];
	cJSON *r;
	int rc;

	rc = ctl_msg_parse(line, len, &m, err, sizeof(err));
	if (rc != 0) {
		agent_log("closing control connection: malformed message: %s",
			  err);
		return rc;
	}
	switch (m.type) {
	case CTL_WELCOME:
		agent_log("accepted by controller %s", m.id);
		break;
	case CTL_TIME_REQ: {
		int64_t t2 = agent_clock();

		r = ctl_msg_new(CTL_TIME_RESP);
		if (!r)
			break;
		cJSON_AddNumberToObject(r, "seq", (double)m.seq);
		cJSON_AddNumberToObject(r, "t1", (double)m.t1);
		cJSON_AddNumberToObject(r, "t2", (double)t2);
		cJSON_AddNumberToObject(r, "t3", (double)agent_clock());
		rc = ctl_conn_send(&s->c, r);
		cJSON_Delete(r);
		break;
	}
	case CTL_RUN:
		if (s->run.active) {
			struct agent_run busy = { .active = 1 };

			snprintf(busy.step, sizeof(busy.step), "%s", m.step);
			r = agent_run_result(&busy, "busy with another step");
			agent_log("step %s refused: still running %s", m.step,
				  s->run.step);
		} else {
			rc = agent_run_start(&s->run, &m);
			if (rc == 0)
				break;
			agent_log("step %s: cannot start: %s", m.step,
				  strerror(-rc));
			r = agent_run_result(&s->run, "cannot start processes");
			agent_run_free(&s->run);
		}
		if (r)
			rc = ctl_conn_send(&s->c, r);
		cJSON_Delete(r);
		break;
	case CTL_ABORT:
		if (s->run.active && strcmp(s->run.step, m.step) == 0) {
			agent_log("step %s aborted by the controller", m.step);
			agent_run_kill(&s->run);
			agent_run_free(&s->run);
		}
		break;
	case CTL_DONE:
		agent_log("controller says the suite is done");
		agent_status("suite done");
		s->done = 1;
		break;
	default:
		agent_log("closing control connection: unexpected message "
			  "type %s from the controller",
			  ctl_type_name(m.type));
		rc = -EPROTO;
		break;
	}
	ctl_msg_free(&m);
	return rc;
}

/* A result too big for one message: sent again without the records, each
 * saying why, rather than losing the connection over it. */
static int agent_send_stripped(struct agent_session *s, cJSON *r)
{
	cJSON *e, *recs = cJSON_GetObjectItemCaseSensitive(r, "records");

	cJSON_ArrayForEach(e, recs) {
		cJSON_DeleteItemFromObject(e, "record");
		cJSON_DeleteItemFromObject(e, "error");
		cJSON_AddStringToObject(e, "error", "record over the 1 MiB "
					"message limit");
	}
	agent_log("step %s: records over the message limit, sent without "
		  "them", s->run.step);
	return ctl_conn_send(&s->c, r);
}

/* One connection's life.  Returns 0 when the controller said done, or a
 * negative errno when the connection broke. */
static int agent_session_run(struct agent_session *s, int fd)
{
	const struct agent_opts *o = s->o;
	cJSON *hello;
	int rc, i;

	ctl_conn_init(&s->c, fd);
	hello = ctl_msg_new(CTL_HELLO);
	if (!hello)
		return -ENOMEM;
	cJSON_AddStringToObject(hello, "id", o->id);
	cJSON_AddStringToObject(hello, "role", o->role);
	cJSON_AddStringToObject(hello, "ver", version_string());
	cJSON_AddItemToObject(hello, "host", agent_hostinfo(o->id, o->role));
	cJSON_AddItemToObject(hello, "workloads", agent_workloads());
	rc = ctl_conn_send(&s->c, hello);
	cJSON_Delete(hello);
	s->done = 0;
	while (rc == 0 && !agent_stop && !s->done) {
		struct pollfd pf[2 + 3 * 16 + 4];
		int np = 0;
		unsigned k;

		pf[np].fd = s->c.fd;
		pf[np++].events = POLLIN |
			(ctl_conn_pending(&s->c) ? POLLOUT : 0);
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
		poll(pf, (nfds_t)np, 100);
		agent_mdns_poll();
		if (pf[0].revents & (POLLIN | POLLHUP | POLLERR)) {
			const char *line;
			size_t len;

			rc = ctl_conn_read(&s->c);
			/* Handle what arrived even if the peer then closed. */
			while (!s->done) {
				int lr = ctl_conn_line(&s->c, &line, &len);

				if (lr == 0)
					break;
				if (lr < 0) {
					agent_log("closing control connection:"
						  " message over %u bytes",
						  CTL_MAX_MSG);
					rc = lr;
					break;
				}
				lr = agent_handle(s, line, len);
				if (lr != 0) {
					rc = lr;
					break;
				}
			}
			if (rc == -EPIPE && !s->done)
				agent_log("controller closed the connection");
		}
		if (rc == 0 && ctl_conn_pending(&s->c))
			rc = ctl_conn_flush(&s->c);
		for (i = 0; i < s->nseries; i++)
			if (s->series[i].fd >= 0)
				agent_series_read(&s->series[i],
						  agent_series_cb, s);
		if (s->run.active) {
			agent_run_poll(&s->run);
			if (!agent_run_finished(&s->run) &&
			    util_mono_ns() > s->run.deadline_mono) {
				agent_log("step %s: over its time, killing it",
					  s->run.step);
				agent_run_kill(&s->run);
				agent_run_poll(&s->run);
			}
			if (agent_run_finished(&s->run)) {
				cJSON *r = agent_run_result(&s->run, NULL);

				agent_log("step %s finished", s->run.step);
				if (r && rc == 0)
					rc = ctl_conn_send(&s->c, r);
				if (rc == -EMSGSIZE)
					rc = agent_send_stripped(s, r);
				cJSON_Delete(r);
				agent_run_free(&s->run);
			}
		}
	}
	if (s->run.active)
		agent_run_free(&s->run);
	ctl_conn_drain(&s->c, 1000);
	ctl_conn_close(&s->c);
	if (s->done)
		return 0;
	return rc ? rc : -EINTR;
}

/* Sleeps ms while keeping series pipes drained (nobody to send to). */
static void agent_idle(struct agent_session *s, int ms)
{
	uint64_t until = util_mono_ns() + (uint64_t)ms * 1000000u;
	int i;

	while (!agent_stop && util_mono_ns() < until) {
		usleep(50000);
		agent_mdns_poll();
		for (i = 0; i < s->nseries; i++)
			if (s->series[i].fd >= 0)
				agent_series_read(&s->series[i],
						  agent_series_discard, NULL);
	}
}

static int agent_peer_loop(const struct agent_opts *o)
{
	struct agent_series series[2];
	struct agent_session s = { .o = o, .series = series };
	char host[256], found[300];
	int port, backoff = 100, rc, i, fails = 0;
	const char *ctl = o->controller;

	memset(series, 0, sizeof(series));
	s.c.fd = -1;
	if (!ctl) {
		/* Clients look until a controller shows up. */
		while (!agent_stop && agent_discover(10000000000ull, found,
						     sizeof(found)) != 0)
			agent_log("no controller found over mDNS yet");
		if (agent_stop)
			return 0;
		ctl = found;
	}
	if (ctl_parse_hostport(ctl, host, sizeof(host), &port,
			       CTL_PORT) != 0) {
		util_err("agent", EINVAL, "--controller '%s': expected "
			 "HOST[:PORT]", ctl);
		return 2;
	}
	if (strcmp(o->role, "server") == 0 && !o->no_series) {
		cJSON *w = agent_workloads();
		static const char *const srcs[] = { "sample", "probe" };

		for (i = 0; i < 2; i++) {
			if (!agent_has_workload(w, srcs[i])) {
				agent_log("no '%s' subcommand in this build: "
					  "no %s series", srcs[i], srcs[i]);
				continue;
			}
			if (agent_series_start(&series[s.nseries], srcs[i],
					       i == 0 ? o->procs : NULL) == 0)
				s.nseries++;
		}
		cJSON_Delete(w);
	}
	while (!agent_stop) {
		int fd = ctl_connect(host, port, 3000);

		if (fd < 0) {
			/* Jittered so 64 agents do not reconnect in step. */
			int j = backoff / 2 + rand() % (backoff / 2 + 1);

			agent_log("controller %s:%d: %s; retrying in %d ms",
				  host, port, strerror(-fd), j);
			agent_idle(&s, j);
			backoff = backoff * 2 > 5000 ? 5000 : backoff * 2;
			/* A discovered controller may have moved: look
			 * again after a few failures. */
			if (!o->controller && ++fails >= 5 &&
			    agent_discover(5000000000ull, found,
					   sizeof(found)) == 0 &&
			    ctl_parse_hostport(found, host, sizeof(host),
					       &port, CTL_PORT) == 0)
				fails = 0;
			continue;
		}
		agent_log("connected to controller %s:%d", host, port);
		agent_status("connected to controller %s:%d, waiting for "
			     "steps", host, port);
		backoff = 100;
		fails = 0;
		rc = agent_session_run(&s, fd);
		if (rc == 0 && o->once)
			break;
		if (!agent_stop)
			agent_idle(&s, 200 + rand() % 300);
	}
	for (i = 0; i < s.nseries; i++)
		agent_series_stop(&series[i]);
	return 0;
}

static void agent_usage(FILE *out)
{
	fprintf(out,
"usage: benchboot agent --role=client|server|controller [--id NAME]\n"
"         [--controller HOST[:PORT]] [--listen [ADDR][:PORT]]\n"
"         [--suite NAME|PATH|URL] [--suite-dir DIR] [--set KEY=VALUE]...\n"
"         [--upload URL] [--token T] [--spool DIR] [--upload-deadline S]\n"
"         [--upload-timeout S]\n"
"         [--peers N] [--wait S] [--once] [--no-series] [--procs LIST]\n"
"See docs/agent.md.\n");
}

int agent_main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "role", required_argument, NULL, 'r' },
		{ "id", required_argument, NULL, 'i' },
		{ "controller", required_argument, NULL, 'c' },
		{ "listen", required_argument, NULL, 'l' },
		{ "suite", required_argument, NULL, 's' },
		{ "suite-dir", required_argument, NULL, 'D' },
		{ "set", required_argument, NULL, 'S' },
		{ "upload", required_argument, NULL, 'u' },
		{ "token", required_argument, NULL, 'T' },
		{ "spool", required_argument, NULL, 'p' },
		{ "upload-deadline", required_argument, NULL, 'U' },
		{ "upload-timeout", required_argument, NULL, 'O' },
		{ "peers", required_argument, NULL, 'n' },
		{ "wait", required_argument, NULL, 'w' },
		{ "once", no_argument, NULL, '1' },
		{ "no-series", no_argument, NULL, 'N' },
		{ "procs", required_argument, NULL, 'P' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct agent_opts o = {
		.peers = -1, .wait_ns = -1, .upload_timeout_s = 30,
		.procs = AGENT_SAMPLE_PROCS,
	};
	struct sigaction sa = { .sa_handler = agent_on_signal };
	uint64_t v;
	int c, rc;

	o.spool = getenv("BENCHBOOT_SPOOL") ? getenv("BENCHBOOT_SPOOL") :
		  "/var/lib/benchboot/spool";
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'r':
			o.role = optarg;
			break;
		case 'i':
			if (!*optarg || strlen(optarg) >= sizeof(o.id) ||
			    strspn(optarg, "abcdefghijklmnopqrstuvwxyz"
				   "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-")
			    != strlen(optarg)) {
				util_err("agent", EINVAL, "--id '%s': expected "
					 "1..63 of [A-Za-z0-9._-]", optarg);
				return 2;
			}
			snprintf(o.id, sizeof(o.id), "%s", optarg);
			break;
		case 'c':
			o.controller = optarg;
			break;
		case 'l':
			o.listen = optarg;
			break;
		case 's':
			o.suite = optarg;
			break;
		case 'D':
			o.suite_dir = optarg;
			break;
		case 'S':
			if (!strchr(optarg, '=') || o.nsets == 32) {
				util_err("agent", EINVAL, "--set '%s': expected"
					 " KEY=VALUE (at most 32)", optarg);
				return 2;
			}
			o.sets[o.nsets++] = optarg;
			break;
		case 'u':
			o.upload = optarg;
			break;
		case 'T':
			o.token = optarg;
			break;
		case 'p':
			o.spool = optarg;
			break;
		case 'U':
			if (util_parse_duration(optarg, &v) != 0) {
				util_err("agent", EINVAL, "--upload-deadline "
					 "'%s': expected a duration", optarg);
				return 2;
			}
			o.upload_deadline_ns = (int64_t)v;
			break;
		case 'O':
			if (util_parse_duration(optarg, &v) != 0 ||
			    v < 1000000000ull) {
				util_err("agent", EINVAL, "--upload-timeout "
					 "'%s': expected a duration >= 1s",
					 optarg);
				return 2;
			}
			o.upload_timeout_s = (long)(v / 1000000000ull);
			break;
		case 'n':
			if (util_parse_u64(optarg, 0, 4096, &v) != 0) {
				util_err("agent", EINVAL, "--peers '%s': "
					 "expected 0..4096", optarg);
				return 2;
			}
			o.peers = (int)v;
			break;
		case 'w':
			if (util_parse_duration(optarg, &v) != 0) {
				util_err("agent", EINVAL, "--wait '%s': "
					 "expected a duration", optarg);
				return 2;
			}
			o.wait_ns = (int64_t)v;
			break;
		case '1':
			o.once = 1;
			break;
		case 'N':
			o.no_series = 1;
			break;
		case 'P':
			o.procs = optarg;
			break;
		case 'h':
			agent_usage(stdout);
			return 0;
		default:
			agent_usage(stderr);
			return 2;
		}
	}
	if (optind != argc || !o.role ||
	    (strcmp(o.role, "client") != 0 && strcmp(o.role, "server") != 0 &&
	     strcmp(o.role, "controller") != 0)) {
		if (!o.role)
			util_err("agent", EINVAL, "--role: expected client, "
				 "server or controller");
		agent_usage(stderr);
		return 2;
	}
	if (getenv("BENCHBOOT_CLOCK_OFFSET_NS"))
		agent_clock_err = strtoll(getenv("BENCHBOOT_CLOCK_OFFSET_NS"),
					  NULL, 10);
	if (!o.id[0])
		agent_identity(o.role, o.id, sizeof(o.id));
	snprintf(agent_log_id, sizeof(agent_log_id), "%s", o.id);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	srand((unsigned)(util_mono_ns() ^ (uint64_t)getpid()));
	if (strcmp(o.role, "controller") == 0) {
		rc = runner_main(&o, &agent_stop);
		goto out;
	}
	agent_mdns_publish(o.id, o.role, o.suite, CTL_PORT);
	if (!o.controller && strcmp(o.role, "server") == 0) {
		char found[300];
		uint64_t w = o.wait_ns >= 0 ? (uint64_t)o.wait_ns :
			     10000000000ull;

		/* A server that finds no controller becomes one. */
		agent_log("looking for a controller over mDNS for %.0f s",
			  (double)w / 1e9);
		if (agent_discover(w, found, sizeof(found)) == 0) {
			o.controller = strdup(found);
		} else if (!agent_stop) {
			agent_log("no controller on the LAN: this server "
				  "becomes the controller");
			o.local_server = 1;
			/* Peers may take a while: wait as long as the
			 * suite says, not the discovery time. */
			o.wait_ns = -1;
			rc = runner_main(&o, &agent_stop);
			goto out;
		}
	}
	rc = agent_peer_loop(&o);
out:
	agent_mdns_stop();
	return rc;
}
