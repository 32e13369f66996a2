/* sample_solaris.c: the sample_os.h backend for Solaris and illumos
 * (docs/sample.md "Other operating systems"): kstat(3KSTAT) for CPU,
 * paging, memory, load and links, swapctl(2) for swap, /proc/PID/psinfo
 * for the processes.  NOT COMPILED HERE: Debian has no Solaris toolchain;
 * written against the illumos man pages, untested.  sysinfo's run queue
 * and waiting counts are cumulative sums per update, so running and
 * blocked are the averages since the previous reading (0 on the first). */
#include <sys/types.h>
#include <sys/loadavg.h>
#include <sys/stat.h>
#include <sys/swap.h>
#include <sys/sysinfo.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <kstat.h>
#include <procfs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../sample_os.h"
#include "sample_os_util.h"

struct sample_os {
	SAMPLE_OS_COMMON;
	kstat_ctl_t *kc;
	uint64_t runque, waiting, updates;	/* sysinfo, last reading */
};

int sample_os_open(struct sample_os **out, const char *root,
		   const char *const *procs, int nprocs,
		   char *err, size_t errlen)
{
	struct sample_os *os;
	int rc;

	rc = sample_os_new(&os, sizeof(*os), "Solaris", root, procs, nprocs,
			   err, errlen);
	if (rc != 0)
		return rc;
	os->kc = kstat_open();
	if (!os->kc) {
		snprintf(err, errlen, "kstat_open: %s", strerror(errno));
		free(os);
		return -EIO;
	}
	os->hz = sysconf(_SC_CLK_TCK);
	os->pagesize = sysconf(_SC_PAGESIZE);
	*out = os;
	return 0;
}

/* A named value of a read kstat as an unsigned number, 0 if absent. */
static uint64_t sol_named(kstat_t *ks, const char *name)
{
	kstat_named_t *kn = kstat_data_lookup(ks, (char *)name);

	if (!kn)
		return 0;
	switch (kn->data_type) {
	case KSTAT_DATA_UINT32: return kn->value.ui32;
	case KSTAT_DATA_INT32: return (uint64_t)kn->value.i32;
	case KSTAT_DATA_UINT64: return kn->value.ui64;
	case KSTAT_DATA_INT64: return (uint64_t)kn->value.i64;
	}
	return 0;
}

/* Every CPU's cpu:N:sys and cpu:N:vm summed. */
static void sol_cpus(struct sample_os *os, struct sample_raw *r)
{
	kstat_t *ks;

	for (ks = os->kc->kc_chain; ks; ks = ks->ks_next) {
		if (strcmp(ks->ks_module, "cpu") != 0 ||
		    kstat_read(os->kc, ks, NULL) < 0)
			continue;
		if (strcmp(ks->ks_name, "sys") == 0) {
			r->cpu.user += sol_named(ks, "cpu_ticks_user");
			r->cpu.system += sol_named(ks, "cpu_ticks_kernel");
			r->cpu.idle += sol_named(ks, "cpu_ticks_idle");
			r->cpu.iowait += sol_named(ks, "cpu_ticks_wait");
			r->ctxt += sol_named(ks, "pswitch");
			r->intr += sol_named(ks, "intr");
		} else if (strcmp(ks->ks_name, "vm") == 0) {
			r->pswpin += sol_named(ks, "pgswapin");
			r->pswpout += sol_named(ks, "pgswapout");
			r->pgpgin_kb += sol_named(ks, "pgpgin") *
					(uint64_t)os->pagesize / 1024;
			r->pgpgout_kb += sol_named(ks, "pgpgout") *
					 (uint64_t)os->pagesize / 1024;
		}
	}
}

static void sol_links(struct sample_os *os, struct sample_raw *r)
{
	kstat_t *ks;

	for (ks = os->kc->kc_chain; ks && r->nifaces < SAMPLE_MAX_IFACES;
	     ks = ks->ks_next) {
		struct sample_iface *f = &r->ifaces[r->nifaces];

		if (strcmp(ks->ks_module, "link") != 0 ||
		    ks->ks_type != KSTAT_TYPE_NAMED ||
		    kstat_read(os->kc, ks, NULL) < 0)
			continue;
		snprintf(f->name, sizeof(f->name), "%s", ks->ks_name);
		f->rx_bytes = sol_named(ks, "rbytes64");
		f->rx_packets = sol_named(ks, "ipackets64");
		f->tx_bytes = sol_named(ks, "obytes64");
		f->tx_packets = sol_named(ks, "opackets64");
		r->nifaces++;
	}
}

/* Processes by psinfo's pr_fname; pr_time into hz ticks, pr_rssize (KiB)
 * into pages. */
static void sol_procs(struct sample_os *os, struct sample_raw *r)
{
	DIR *d;
	struct dirent *de;
	psinfo_t ps;
	char path[64];
	int fd, i;

	sample_procs_begin(r, os->procs, os->nprocs);
	d = os->nprocs ? opendir("/proc") : NULL;
	while (d && (de = readdir(d))) {
		snprintf(path, sizeof(path), "/proc/%s/psinfo", de->d_name);
		fd = open(path, O_RDONLY);
		if (fd < 0)
			continue;
		if (read(fd, &ps, sizeof(ps)) != sizeof(ps)) {
			close(fd);
			continue;
		}
		close(fd);
		for (i = 0; i < os->nprocs; i++) {
			struct sample_pid *sp;

			if (strcmp(ps.pr_fname, os->procs[i]) != 0 ||
			    !(sp = sample_procs_add(&r->procs[i])))
				continue;
			sp->pid = ps.pr_pid;
			sp->start = (uint64_t)ps.pr_start.tv_sec * 1000000 +
				    (uint64_t)ps.pr_start.tv_nsec / 1000;
			sp->ticks = ((uint64_t)ps.pr_time.tv_sec * 1000000000 +
				     (uint64_t)ps.pr_time.tv_nsec) *
				    (uint64_t)os->hz / 1000000000;
			sp->rss_pages = (uint64_t)ps.pr_rssize * 1024 /
					(uint64_t)os->pagesize;
		}
	}
	if (d)
		closedir(d);
	sample_procs_sort(r);
}

int sample_os_read(struct sample_os *os, struct sample_raw *r,
		   char *err, size_t errlen)
{
	kstat_t *ks;
	struct anoninfo ai;
	double la[3];
	uint64_t ru, wt, up;

	/* A configuration change (a CPU or link added) renews the chain. */
	if (kstat_chain_update(os->kc) < 0) {
		snprintf(err, errlen, "kstat_chain_update: %s", strerror(errno));
		return -EIO;
	}
	sol_cpus(os, r);
	r->missing |= SAMPLE_MISS_STEAL | SAMPLE_MISS_SOFTIRQ;
	ks = kstat_lookup(os->kc, "unix", 0, "sysinfo");
	if (ks && kstat_read(os->kc, ks, NULL) >= 0) {
		const sysinfo_t *si = ks->ks_data;

		ru = si->runque, wt = si->waiting, up = si->updates;
		if (os->updates && up > os->updates) {
			r->running = (ru - os->runque) / (up - os->updates);
			r->blocked = (wt - os->waiting) / (up - os->updates);
		}
		os->runque = ru, os->waiting = wt, os->updates = up;
	}
	ks = kstat_lookup(os->kc, "unix", 0, "system_pages");
	if (ks && kstat_read(os->kc, ks, NULL) >= 0) {
		r->free_pages = sol_named(ks, "freemem");
		r->mem_total_kb = sol_named(ks, "physmem") *
				  (uint64_t)os->pagesize / 1024;
		r->mem_free_kb = r->free_pages * (uint64_t)os->pagesize / 1024;
	}
	ks = kstat_lookup(os->kc, "zfs", 0, "arcstats");
	if (ks && kstat_read(os->kc, ks, NULL) >= 0)
		r->mem_cached_kb = sol_named(ks, "size") / 1024;
	if (swapctl(SC_AINFO, &ai) != -1) {
		r->swap_total_kb = (uint64_t)ai.ani_max * os->pagesize / 1024;
		r->swap_free_kb = (uint64_t)(ai.ani_max - ai.ani_resv) *
				  os->pagesize / 1024;
	}
	if (getloadavg(la, 3) == 3) {
		r->load1 = la[0];
		r->load5 = la[1];
		r->load15 = la[2];
	}
	r->nifaces = 0;
	sol_links(os, r);
	sol_procs(os, r);
	return 0;
}

SAMPLE_OS_ACCESSORS

void sample_os_close(struct sample_os *os)
{
	if (!os)
		return;
	kstat_close(os->kc);
	free(os);
}
