/* sample_freebsd.c: the sample_os.h backend for FreeBSD (docs/sample.md
 * "Other operating systems"): sysctl(3) counters, kvm(3) for swap and the
 * process list, getifaddrs(3) for the interfaces.  NOT COMPILED HERE:
 * Debian has no FreeBSD toolchain; written against the FreeBSD 14 man
 * pages and headers, untested (block I/O via devstat(3) is not read yet:
 * pgpgin/pgpgout stay 0 with SAMPLE_MISS_VMSTAT set). */
#include <sys/param.h>
#include <sys/types.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/sysctl.h>
#include <sys/user.h>
#include <sys/vmmeter.h>

#include <errno.h>
#include <fcntl.h>
#include <kvm.h>
#include <limits.h>
#include <paths.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vm/vm_param.h>

#include "../sample_os.h"
#include "sample_os_util.h"
#include "sample_bsd_if.h"

struct sample_os {
	SAMPLE_OS_COMMON;
	kvm_t *kd;
};

/* sysctlbyname of a fixed-size value; 0 or -errno (err says which). */
static int bsd_sysctl(const char *name, void *v, size_t len, char *err,
		      size_t errlen)
{
	size_t got = len;

	if (sysctlbyname(name, v, &got, NULL, 0) != 0) {
		snprintf(err, errlen, "sysctl %s: %s", name, strerror(errno));
		return -errno;
	}
	return 0;
}

/* An unsigned counter of any width the kernel gives (u_int or uint64). */
static uint64_t bsd_u(const char *name)
{
	uint64_t v = 0;
	size_t len = sizeof(v);

	if (sysctlbyname(name, &v, &len, NULL, 0) != 0)
		return 0;
	return len == sizeof(u_int) ? (uint64_t)*(u_int *)&v : v;
}

int sample_os_open(struct sample_os **out, const char *root,
		   const char *const *procs, int nprocs,
		   char *err, size_t errlen)
{
	struct sample_os *os;
	struct clockinfo ci;
	char kerr[_POSIX2_LINE_MAX];
	int rc;

	rc = sample_os_new(&os, sizeof(*os), "FreeBSD", root, procs, nprocs,
			   err, errlen);
	if (rc != 0)
		return rc;
	/* kern.cp_time counts in stathz ticks, not hz. */
	rc = bsd_sysctl("kern.clockrate", &ci, sizeof(ci), err, errlen);
	if (rc != 0) {
		free(os);
		return rc;
	}
	os->hz = ci.stathz ? ci.stathz : ci.hz;
	os->pagesize = getpagesize();
	/* No core file: the live kernel, read through sysctl by kvm. */
	os->kd = kvm_openfiles(NULL, _PATH_DEVNULL, NULL, O_RDONLY, kerr);
	if (!os->kd) {
		snprintf(err, errlen, "kvm_openfiles: %s", kerr);
		free(os);
		return -EIO;
	}
	*out = os;
	return 0;
}


/* Processes by ki_comm; CPU time (ki_runtime, microseconds) in stathz
 * ticks, resident size in pages. */
static void bsd_procs(struct sample_os *os, struct sample_raw *r)
{
	struct kinfo_proc *kp;
	int n = 0, i, k;

	sample_procs_begin(r, os->procs, os->nprocs);
	kp = os->nprocs ? kvm_getprocs(os->kd, KERN_PROC_PROC, 0, &n) : NULL;
	for (k = 0; kp && k < n; k++)
		for (i = 0; i < os->nprocs; i++) {
			struct sample_pid *sp;

			if (strcmp(kp[k].ki_comm, os->procs[i]) != 0 ||
			    !(sp = sample_procs_add(&r->procs[i])))
				continue;
			sp->pid = kp[k].ki_pid;
			sp->start = (uint64_t)kp[k].ki_start.tv_sec * 1000000 +
				    (uint64_t)kp[k].ki_start.tv_usec;
			sp->ticks = kp[k].ki_runtime * (uint64_t)os->hz /
				    1000000;
			sp->rss_pages = (uint64_t)kp[k].ki_rssize;
		}
	sample_procs_sort(r);
}

int sample_os_read(struct sample_os *os, struct sample_raw *r,
		   char *err, size_t errlen)
{
	long cp[CPUSTATES];
	struct vmtotal vt;
	struct loadavg la;
	struct kvm_swap sw;
	unsigned long physmem;
	int rc;

	rc = bsd_sysctl("kern.cp_time", cp, sizeof(cp), err, errlen);
	if (rc != 0)
		return rc;
	r->cpu.user = (uint64_t)(cp[CP_USER] + cp[CP_NICE]);
	r->cpu.system = (uint64_t)(cp[CP_SYS] + cp[CP_INTR]);
	r->cpu.idle = (uint64_t)cp[CP_IDLE];
	r->missing |= SAMPLE_MISS_STEAL | SAMPLE_MISS_IOWAIT;
	r->ctxt = bsd_u("vm.stats.sys.v_swtch");
	r->intr = bsd_u("vm.stats.sys.v_intr");
	r->softirq = bsd_u("vm.stats.sys.v_soft");
	r->pswpin = bsd_u("vm.stats.vm.v_swappgsin");
	r->pswpout = bsd_u("vm.stats.vm.v_swappgsout");
	r->missing |= SAMPLE_MISS_VMSTAT;	/* devstat(3) not read yet */
	rc = bsd_sysctl("vm.vmtotal", &vt, sizeof(vt), err, errlen);
	if (rc != 0)
		return rc;
	r->running = (uint64_t)vt.t_rq;
	r->blocked = (uint64_t)vt.t_dw;
	r->free_pages = bsd_u("vm.stats.vm.v_free_count");
	rc = bsd_sysctl("hw.physmem", &physmem, sizeof(physmem), err, errlen);
	if (rc != 0)
		return rc;
	r->mem_total_kb = physmem / 1024;
	r->mem_free_kb = r->free_pages * (uint64_t)os->pagesize / 1024;
	r->mem_buffers_kb = bsd_u("vfs.bufspace") / 1024;
	r->mem_cached_kb = (bsd_u("vm.stats.vm.v_inactive_count") +
			    bsd_u("vm.stats.vm.v_laundry_count")) *
			   (uint64_t)os->pagesize / 1024;
	/* The total over every swap device: kvm_getswapinfo's last entry
	 * when asked for none per device. */
	if (kvm_getswapinfo(os->kd, &sw, 1, 0) >= 0) {
		r->swap_total_kb = (uint64_t)sw.ksw_total * os->pagesize / 1024;
		r->swap_free_kb = (uint64_t)(sw.ksw_total - sw.ksw_used) *
				  os->pagesize / 1024;
	}
	rc = bsd_sysctl("vm.loadavg", &la, sizeof(la), err, errlen);
	if (rc != 0)
		return rc;
	r->load1 = (double)la.ldavg[0] / la.fscale;
	r->load5 = (double)la.ldavg[1] / la.fscale;
	r->load15 = (double)la.ldavg[2] / la.fscale;
	r->nifaces = 0;
	sample_bsd_ifaces(r);
	bsd_procs(os, r);
	return 0;
}

SAMPLE_OS_ACCESSORS

void sample_os_close(struct sample_os *os)
{
	if (!os)
		return;
	if (os->kd)
		kvm_close(os->kd);
	free(os);
}
