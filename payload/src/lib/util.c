/* lib/util.c: clocks, unit-aware option parsing and error messages. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "lib/util.h"

static uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint64_t util_mono_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

uint64_t util_real_ns(void)
{
	return clock_ns(CLOCK_REALTIME);
}

int util_parse_duration(const char *s, uint64_t *out)
{
	static const struct { const char *unit; double ns; } units[] = {
		{ "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 },
		{ "m", 60e9 }, { "h", 3600e9 }, { "", 1e9 },
	};
	char *end;
	double v;
	size_t i;

	if (!s || !*s || *s == '-' || *s == '+')
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || !isfinite(v))
		return -EINVAL;
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcmp(end, units[i].unit) == 0) {
			double ns = v * units[i].ns;

			if (ns >= 1.8e19)
				return -EINVAL;
			*out = (uint64_t)(ns + 0.5);
			return 0;
		}
	}
	return -EINVAL;
}

int util_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	unsigned long long v;
	uint64_t mul = 1;
	char *end;

	if (!s || *s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno)
		return -ERANGE;
	if (*end == 'k' || *end == 'K')
		mul = 1000, end++;
	else if (*end == 'M')
		mul = 1000000, end++;
	else if (*end == 'G')
		mul = 1000000000, end++;
	if (*end)
		return -EINVAL;
	if (v > UINT64_MAX / mul)
		return -ERANGE;
	v *= mul;
	if (v < min || v > max)
		return -ERANGE;
	*out = v;
	return 0;
}

int util_err(const char *cmd, int err, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "benchboot %s: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return err ? -err : -EINVAL;
}

int util_clock_stepped(struct util_clockwatch *w, int64_t min_ns,
		       int64_t *step_ns)
{
	int64_t d = (int64_t)(util_real_ns() - util_mono_ns()), s;

	if (!w->primed) {
		w->primed = 1;
		w->diff = d;
		return 0;
	}
	s = d - w->diff;
	w->diff = d;
	if (s > -min_ns && s < min_ns)
		return 0;
	*step_ns = s;
	return 1;
}

char *util_fmt_step(char *buf, size_t len, int64_t step_ns)
{
	snprintf(buf, len, "%s:%.3fs", step_ns >= 0 ? "forward" : "back",
		 (double)(step_ns >= 0 ? step_ns : -step_ns) / 1e9);
	return buf;
}

int util_fail(char *err, size_t errlen, int rc, const char *fmt, ...)
{
	va_list ap;

	if (err && errlen) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return rc;
}

char *util_hostname(char *buf, size_t len)
{
	if (!len)
		return buf;
	if (gethostname(buf, len) != 0 || !buf[0])
		snprintf(buf, len, "unknown");
	buf[len - 1] = '\0';
	return buf;
}

void util_fsync_dir(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
}

int util_write_atomic(const char *dir, const char *name, const void *data,
		      size_t len)
{
	char tmp[PATH_MAX], dst[PATH_MAX];
	const char *p = data;
	size_t off = 0;
	int fd, rc = 0;

	if ((size_t)snprintf(tmp, sizeof(tmp), "%s/.%s.tmp.%d", dir, name,
			     (int)getpid()) >= sizeof(tmp) ||
	    (size_t)snprintf(dst, sizeof(dst), "%s/%s", dir, name) >=
		    sizeof(dst))
		return -ENAMETOOLONG;
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	while (off < len) {
		ssize_t n = write(fd, p + off, len - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			rc = n < 0 ? -errno : -EIO;
			break;
		}
		off += (size_t)n;
	}
	if (rc == 0 && fsync(fd) != 0)
		rc = -errno;
	if (close(fd) != 0 && rc == 0)
		rc = -errno;
	if (rc == 0 && rename(tmp, dst) != 0)
		rc = -errno;
	if (rc != 0) {
		unlink(tmp);
		return rc;
	}
	/* The file again under its new name: on vfat (a USB stick's
	 * BBRESULTS) the renamed entry gets its size and first cluster only
	 * when the inode is written, and a power cut right after the
	 * rename left just the temporary name (qemu-tests/long/
	 * 170_power_cut). */
	fd = open(dst, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
	util_fsync_dir(dir);
	return 0;
}

int util_array_push(void *arr, int *n, const void *item, size_t size)
{
	void **a = arr, *np = realloc(*a, (size_t)(*n + 1) * size);

	if (!np)
		return -ENOMEM;
	*a = np;
	memcpy((char *)np + (size_t)*n * size, item, size);
	(*n)++;
	return 0;
}
