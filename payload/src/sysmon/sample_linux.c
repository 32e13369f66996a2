/* sysmon/sample_linux.c: the Linux backend of sample_os.h, reading /proc under a
 * root directory so tests can point it at snapshots of real kernels. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sysmon/sample_os.h"
#include "lib/util.h"

struct sample_os {
	char root[512];
	char *buf;		/* whole-file read buffer, grown as needed */
	size_t cap;
	long hz, pagesize;
	int nprocs;
	char procs[SAMPLE_MAX_PROCS][SAMPLE_PROCNAME_LEN];
};

/* Reads root/rel whole into os->buf (NUL-terminated); stores its length.
 * /proc files report size 0, so read until EOF, growing the buffer (once:
 * the size of /proc/stat does not change while the system runs). */
static int os_slurp(struct sample_os *os, const char *rel, size_t *len,
		    char *err, size_t errlen)
{
	char path[640];
	size_t n = 0;
	ssize_t r;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", os->root, rel);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return util_fail(err, errlen, -errno, "%s: %s", path,
				 strerror(errno));
	for (;;) {
		if (n + 1 >= os->cap) {
			char *nb = realloc(os->buf, os->cap * 2);

			if (!nb) {
				close(fd);
				return util_fail(err, errlen, -ENOMEM,
						 "%s: out of memory", path);
			}
			os->buf = nb;
			os->cap *= 2;
		}
		r = read(fd, os->buf + n, os->cap - 1 - n);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			r = -errno;
			close(fd);
			return util_fail(err, errlen, (int)r, "%s: %s", path,
					 strerror((int)-r));
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	os->buf[n] = '\0';
	*len = n;
	return 0;
}

/* Parses the unsigned decimal at *p, skipping leading blanks; advances *p.
 * Returns 0, or -EINVAL when there is no digit. */
static int os_u64(const char **p, uint64_t *out)
{
	const char *s = *p;
	uint64_t v = 0;

	while (*s == ' ' || *s == '\t')
		s++;
	if (*s < '0' || *s > '9')
		return -EINVAL;
	while (*s >= '0' && *s <= '9')
		v = v * 10 + (uint64_t)(*s++ - '0');
	*p = s;
	*out = v;
	return 0;
}

static const char *os_next_line(const char *p)
{
	p = strchr(p, '\n');
	return p ? p + 1 : NULL;
}

static int os_lineno(const char *buf, const char *p)
{
	int n = 1;

	for (; buf < p; buf++)
		n += *buf == '\n';
	return n;
}

/* proc/stat: the aggregate cpu line, ctxt, intr, softirq, procs_*. */
static int os_read_stat(struct sample_os *os, struct sample_raw *r,
			char *err, size_t errlen)
{
	unsigned seen = 0;
	const char *p;
	size_t len;
	int rc;

	rc = os_slurp(os, "proc/stat", &len, err, errlen);
	if (rc != 0)
		return rc;
	r->missing |= SAMPLE_MISS_SOFTIRQ;
	for (p = os->buf; p && *p; p = os_next_line(p)) {
		const char *q = p;
		uint64_t v[10] = { 0 };
		int n = 0;

		if (strncmp(p, "cpu ", 4) == 0) {
			q += 4;
			while (n < 10 && os_u64(&q, &v[n]) == 0)
				n++;
			/* user nice system idle, then iowait (2.5.41),
			 * irq softirq (2.6.0), steal (2.6.11) */
			if (n < 4)
				goto bad;
			r->cpu.user = v[0] + v[1];
			r->cpu.system = v[2] + v[5] + v[6];
			r->cpu.idle = v[3];
			r->cpu.iowait = v[4];
			r->cpu.steal = v[7];
			if (n < 5)
				r->missing |= SAMPLE_MISS_IOWAIT;
			if (n < 8)
				r->missing |= SAMPLE_MISS_STEAL;
			seen |= 1;
		} else if (strncmp(p, "ctxt ", 5) == 0) {
			q += 5;
			if (os_u64(&q, &r->ctxt) != 0)
				goto bad;
			seen |= 2;
		} else if (strncmp(p, "intr ", 5) == 0) {
			q += 5;
			if (os_u64(&q, &r->intr) != 0)
				goto bad;
			seen |= 4;
		} else if (strncmp(p, "softirq ", 8) == 0) {
			q += 8;
			if (os_u64(&q, &r->softirq) != 0)
				goto bad;
			r->missing &= ~SAMPLE_MISS_SOFTIRQ;
		} else if (strncmp(p, "procs_running ", 14) == 0) {
			q += 14;
			if (os_u64(&q, &r->running) != 0)
				goto bad;
			seen |= 8;
		} else if (strncmp(p, "procs_blocked ", 14) == 0) {
			q += 14;
			if (os_u64(&q, &r->blocked) != 0)
				goto bad;
			seen |= 16;
		}
		continue;
bad:
		return util_fail(err, errlen, -EINVAL,
				 "%s/proc/stat line %d: cannot parse '%.40s'",
				 os->root, os_lineno(os->buf, p), p);
	}
	if (seen != 31)
		return util_fail(err, errlen, -EINVAL,
				 "%s/proc/stat: no %s line", os->root,
				 !(seen & 1) ? "cpu" :
				 !(seen & 2) ? "ctxt" : !(seen & 4) ? "intr" :
				 !(seen & 8) ? "procs_running" :
				 "procs_blocked");
	return 0;
}

/* A "key value" line of a /proc file and the sample_raw field it fills. */
struct os_key {
	const char *key;
	size_t off;
};

/* Fills r's fields from the lines of os->buf (the file path, for messages)
 * that start with one of keys[0..n-1]; every key must be present.  Returns
 * 0 or -EINVAL with a message naming the file and the line or key. */
static int os_parse_keyed(struct sample_os *os, const char *path,
			  const struct os_key *keys, size_t n,
			  struct sample_raw *r, char *err, size_t errlen)
{
	unsigned seen = 0;
	const char *p;
	size_t i;

	for (p = os->buf; p && *p; p = os_next_line(p)) {
		for (i = 0; i < n; i++) {
			size_t kl = strlen(keys[i].key);
			const char *q = p + kl;

			if (strncmp(p, keys[i].key, kl) != 0)
				continue;
			if (os_u64(&q, (uint64_t *)((char *)r +
						    keys[i].off)) != 0)
				return util_fail(err, errlen, -EINVAL,
						 "%s/%s line %d: cannot parse '%.40s'",
						 os->root, path,
						 os_lineno(os->buf, p), p);
			seen |= 1u << i;
		}
	}
	if (seen != (1u << n) - 1) {
		for (i = 0; seen & (1u << i); i++)
			;
		return util_fail(err, errlen, -EINVAL, "%s/%s: no '%s' line",
				 os->root, path, keys[i].key);
	}
	return 0;
}

/* proc/meminfo: "Key:   value kB" lines. */
static int os_read_meminfo(struct sample_os *os, struct sample_raw *r,
			   char *err, size_t errlen)
{
	static const struct os_key keys[] = {
		{ "MemTotal:", offsetof(struct sample_raw, mem_total_kb) },
		{ "MemFree:", offsetof(struct sample_raw, mem_free_kb) },
		{ "Buffers:", offsetof(struct sample_raw, mem_buffers_kb) },
		{ "Cached:", offsetof(struct sample_raw, mem_cached_kb) },
		{ "SwapTotal:", offsetof(struct sample_raw, swap_total_kb) },
		{ "SwapFree:", offsetof(struct sample_raw, swap_free_kb) },
	};
	size_t len;
	int rc;

	rc = os_slurp(os, "proc/meminfo", &len, err, errlen);
	if (rc != 0)
		return rc;
	return os_parse_keyed(os, "proc/meminfo", keys,
			      sizeof(keys) / sizeof(keys[0]), r, err, errlen);
}

/* proc/vmstat (2.6+): "name value" lines. */
static int os_read_vmstat(struct sample_os *os, struct sample_raw *r,
			  char *err, size_t errlen)
{
	static const struct os_key keys[] = {
		{ "nr_free_pages ", offsetof(struct sample_raw, free_pages) },
		{ "pgpgin ", offsetof(struct sample_raw, pgpgin_kb) },
		{ "pgpgout ", offsetof(struct sample_raw, pgpgout_kb) },
		{ "pswpin ", offsetof(struct sample_raw, pswpin) },
		{ "pswpout ", offsetof(struct sample_raw, pswpout) },
	};
	size_t len;
	int rc;

	rc = os_slurp(os, "proc/vmstat", &len, err, errlen);
	if (rc == -ENOENT) {
		r->missing |= SAMPLE_MISS_VMSTAT;
		return 0;
	}
	if (rc != 0)
		return rc;
	return os_parse_keyed(os, "proc/vmstat", keys,
			      sizeof(keys) / sizeof(keys[0]), r, err, errlen);
}

/* proc/loadavg: "0.63 0.71 0.35 1/92 22252". */
static int os_read_loadavg(struct sample_os *os, struct sample_raw *r,
			   char *err, size_t errlen)
{
	size_t len;
	int rc;

	rc = os_slurp(os, "proc/loadavg", &len, err, errlen);
	if (rc != 0)
		return rc;
	if (sscanf(os->buf, "%lf %lf %lf", &r->load1, &r->load5,
		   &r->load15) != 3)
		return util_fail(err, errlen, -EINVAL,
				 "%s/proc/loadavg: cannot parse '%.40s'",
				 os->root, os->buf);
	return 0;
}

/* proc/net/dev: two header lines, then "  name: rxbytes rxpackets errs
 * drop fifo frame compressed multicast txbytes txpackets ...". */
static int os_read_netdev(struct sample_os *os, struct sample_raw *r,
			  char *err, size_t errlen)
{
	const char *p;
	size_t len;
	int rc, line = 0;

	r->nifaces = 0;
	rc = os_slurp(os, "proc/net/dev", &len, err, errlen);
	if (rc == -ENOENT) {
		r->missing |= SAMPLE_MISS_NETDEV;
		return 0;
	}
	if (rc != 0)
		return rc;
	for (p = os->buf; p && *p; p = os_next_line(p)) {
		struct sample_iface *f;
		const char *colon, *q, *name;
		uint64_t v[10];
		size_t nl;
		int i;

		if (++line <= 2)
			continue;
		colon = strchr(p, ':');
		if (!colon || (os_next_line(p) && colon > os_next_line(p)))
			goto bad;
		for (name = p; *name == ' '; name++)
			;
		nl = (size_t)(colon - name);
		if (nl == 0 || nl >= SAMPLE_IFNAME_LEN)
			goto bad;
		q = colon + 1;
		for (i = 0; i < 10; i++)
			if (os_u64(&q, &v[i]) != 0)
				goto bad;
		if (r->nifaces == SAMPLE_MAX_IFACES)
			continue;	/* documented limit; keep the first */
		f = &r->ifaces[r->nifaces++];
		memcpy(f->name, name, nl);
		f->name[nl] = '\0';
		f->rx_bytes = v[0];
		f->rx_packets = v[1];
		f->tx_bytes = v[8];
		f->tx_packets = v[9];
		continue;
bad:
		return util_fail(err, errlen, -EINVAL,
				 "%s/proc/net/dev line %d: cannot parse '%.40s'",
				 os->root, line, p);
	}
	return 0;
}

/* Parses one proc/PID/stat into comm and fields; 0 or -EINVAL. */
static int os_parse_pid_stat(const char *s, char *comm, size_t commlen,
			     struct sample_pid *out)
{
	const char *open = strchr(s, '('), *close = strrchr(s, ')');
	const char *q;
	uint64_t v, utime = 0, stime = 0;
	size_t n;
	int field;

	if (!open || !close || close < open)
		return -EINVAL;
	n = (size_t)(close - open - 1);
	if (n >= commlen)
		n = commlen - 1;
	memcpy(comm, open + 1, n);
	comm[n] = '\0';
	q = close + 1;
	while (*q == ' ')
		q++;
	if (!isalpha((unsigned char)*q))	/* state */
		return -EINVAL;
	q++;
	for (field = 4; field <= 24; field++) {
		/* nice and some others may be negative: skip the sign */
		while (*q == ' ')
			q++;
		if (*q == '-')
			q++;
		if (os_u64(&q, &v) != 0)
			return -EINVAL;
		if (field == 14)
			utime = v;
		else if (field == 15)
			stime = v;
		else if (field == 22)
			out->start = v;
		else if (field == 24)
			out->rss_pages = v;
	}
	out->ticks = utime + stime;
	return 0;
}

static int os_pid_cmp(const void *a, const void *b)
{
	const struct sample_pid *x = a, *y = b;

	return (x->pid > y->pid) - (x->pid < y->pid);
}

/* Scans proc/[0-9]* for the processes named in os->procs.  A process that
 * exits between readdir and open is simply not there. */
static int os_read_procs(struct sample_os *os, struct sample_raw *r,
			 char *err, size_t errlen)
{
	char path[640], comm[SAMPLE_PROCNAME_LEN];
	struct dirent *de;
	DIR *d;
	int i;

	r->nprocs = os->nprocs;
	for (i = 0; i < os->nprocs; i++) {
		memcpy(r->procs[i].name, os->procs[i], SAMPLE_PROCNAME_LEN);
		r->procs[i].npids = 0;
		r->procs[i].truncated = 0;
	}
	if (os->nprocs == 0)
		return 0;
	snprintf(path, sizeof(path), "%s/proc", os->root);
	d = opendir(path);
	if (!d)
		return util_fail(err, errlen, -errno, "%s: %s", path,
				 strerror(errno));
	while ((de = readdir(d))) {
		struct sample_pid pid;
		char rel[64];
		size_t len;
		char *end;
		long id;

		if (de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		id = strtol(de->d_name, &end, 10);
		if (*end)
			continue;
		snprintf(rel, sizeof(rel), "proc/%ld/stat", id);
		if (os_slurp(os, rel, &len, NULL, 0) != 0)
			continue;
		if (os_parse_pid_stat(os->buf, comm, sizeof(comm),
				      &pid) != 0) {
			closedir(d);
			return util_fail(err, errlen, -EINVAL,
					 "%s/%s: cannot parse '%.60s'",
					 os->root, rel, os->buf);
		}
		pid.pid = (pid_t)id;
		for (i = 0; i < os->nprocs; i++) {
			struct sample_proc *sp = &r->procs[i];

			if (strcmp(comm, os->procs[i]) != 0)
				continue;
			if (sp->npids == SAMPLE_MAX_PIDS)
				sp->truncated = 1;
			else
				sp->pids[sp->npids++] = pid;
		}
	}
	closedir(d);
	for (i = 0; i < os->nprocs; i++)
		qsort(r->procs[i].pids, (size_t)r->procs[i].npids,
		      sizeof(r->procs[i].pids[0]), os_pid_cmp);
	return 0;
}

int sample_os_open(struct sample_os **out, const char *root,
		   const char *const *procs, int nprocs,
		   char *err, size_t errlen)
{
	struct sample_os *os;
	size_t rl = strlen(root);
	int i;

	if (nprocs > SAMPLE_MAX_PROCS)
		return util_fail(err, errlen, -E2BIG,
				 "at most %d process names", SAMPLE_MAX_PROCS);
	if (rl >= sizeof(os->root))
		return util_fail(err, errlen, -ENAMETOOLONG,
				 "root '%.40s...': too long", root);
	os = calloc(1, sizeof(*os));
	if (!os)
		return util_fail(err, errlen, -ENOMEM, "out of memory");
	while (rl > 1 && root[rl - 1] == '/')
		rl--;
	/* "/" becomes "", so paths read "/proc/stat" */
	memcpy(os->root, root, rl);
	os->root[rl == 1 && root[0] == '/' ? 0 : rl] = '\0';
	os->cap = 16384;
	os->buf = malloc(os->cap);
	if (!os->buf) {
		free(os);
		return util_fail(err, errlen, -ENOMEM, "out of memory");
	}
	os->hz = sysconf(_SC_CLK_TCK);
	if (os->hz <= 0)
		os->hz = 100;
	os->pagesize = sysconf(_SC_PAGESIZE);
	if (os->pagesize <= 0)
		os->pagesize = 4096;
	for (i = 0; i < nprocs; i++) {
		if (!procs[i][0] || strlen(procs[i]) >= SAMPLE_PROCNAME_LEN) {
			sample_os_close(os);
			return util_fail(err, errlen, -EINVAL,
					 "process name '%s': want 1..%d characters (the kernel's comm)",
					 procs[i], SAMPLE_PROCNAME_LEN - 1);
		}
		strcpy(os->procs[i], procs[i]);
	}
	os->nprocs = nprocs;
	*out = os;
	return 0;
}

int sample_os_read(struct sample_os *os, struct sample_raw *r,
		   char *err, size_t errlen)
{
	int rc;

	r->missing = 0;
	rc = os_read_stat(os, r, err, errlen);
	if (rc == 0)
		rc = os_read_meminfo(os, r, err, errlen);
	if (rc == 0)
		rc = os_read_vmstat(os, r, err, errlen);
	if (rc == 0)
		rc = os_read_loadavg(os, r, err, errlen);
	if (rc == 0)
		rc = os_read_netdev(os, r, err, errlen);
	if (rc == 0)
		rc = os_read_procs(os, r, err, errlen);
	return rc;
}

long sample_os_hz(const struct sample_os *os)
{
	return os->hz;
}

long sample_os_pagesize(const struct sample_os *os)
{
	return os->pagesize;
}

void sample_os_close(struct sample_os *os)
{
	if (!os)
		return;
	free(os->buf);
	free(os);
}
