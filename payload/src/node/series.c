/* node/series.c: series producers as child processes with a pipe (series.h). */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/json_int.h"
#include "node/node.h"
#include "node/series.h"

int series_start(struct series *s, const char *source, const char *procs)
{
	int pfd[2];
	pid_t pid, parent = getpid();

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
		/* The producer dies with its agent. */
		prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
		if (getppid() != parent)
			_exit(125);
		execv("/proc/self/exe", argv);
		_exit(127);
	}
	close(pfd[1]);
	fcntl(pfd[0], F_SETFL, O_NONBLOCK);
	s->pid = pid;
	s->fd = pfd[0];
	return 0;
}

int series_start_server(struct series *s, const char *procs)
{
	static const char *const srcs[SERIES_MAX] = { "sample", "probe" };
	int i, n = 0;

	for (i = 0; i < SERIES_MAX; i++) {
		if (series_start(&s[n], srcs[i], i == 0 ? procs : NULL) == 0)
			n++;
		else
			node_log("cannot start 'benchboot %s': no %s series", srcs[i], srcs[i]);
	}
	return n;
}

/* Hands every complete line in s->buf to cb; keeps the partial tail. */
static void series_split(struct series *s, series_cb *cb, void *ctx)
{
	char *nl;

	while ((nl = memchr(s->buf, '\n', s->len))) {
		size_t ll = (size_t)(nl - s->buf);
		cJSON *rec = json_int_parse(s->buf, ll, NULL, 0);

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

int series_read(struct series *s, series_cb *cb, void *ctx)
{
	for (;;) {
		ssize_t n;

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
			node_log("'benchboot %s' ended after %llu records: no more %s series", s->source, (unsigned long long)s->lines, s->source);
			return -EPIPE;
		}
		s->len += (size_t)n;
		series_split(s, cb, ctx);
	}
}

void series_discard(void *ctx, const char *source, cJSON *rec)
{
	cJSON_Delete(rec);
}

void series_stop(struct series *s)
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
