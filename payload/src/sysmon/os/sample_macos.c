/* sample_macos.c: the sample_os.h backend for macOS (docs/sample.md
 * "Other operating systems"): Mach host_statistics for the CPU and
 * host_statistics64 for memory, sysctl for load and swap, getifaddrs(3)
 * for the interfaces, libproc for the processes.  NOT COMPILED HERE:
 * Debian has no macOS SDK; written against the SDK headers' documented
 * interfaces, untested.  macOS exports no system-wide context switch,
 * interrupt, run-queue or block I/O counter cheaply: those fields are
 * missing (0, their bits set), as the Byte.com author found. */
#include <sys/types.h>
#include <sys/socket.h>
#include <sys/sysctl.h>

#include <errno.h>
#include <libproc.h>
#include <mach/mach.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../sample_os.h"
#include "sample_os_util.h"
#include "sample_bsd_if.h"

struct sample_os {
	SAMPLE_OS_COMMON;
	host_t host;
	pid_t pids[8192];			/* proc_listallpids */
};

int sample_os_open(struct sample_os **out, const char *root,
		   const char *const *procs, int nprocs,
		   char *err, size_t errlen)
{
	struct sample_os *os;
	int rc;

	rc = sample_os_new(&os, sizeof(*os), "macOS", root, procs, nprocs,
			   err, errlen);
	if (rc != 0)
		return rc;
	os->host = mach_host_self();
	os->hz = sysconf(_SC_CLK_TCK);		/* cpu_ticks' unit */
	os->pagesize = (long)vm_page_size;
	*out = os;
	return 0;
}

/* Processes by proc_name; task times (ns) into hz ticks, resident bytes
 * into pages.  Other users' processes need root. */
static void mac_procs(struct sample_os *os, struct sample_raw *r)
{
	struct proc_taskinfo ti;
	struct proc_bsdinfo bi;
	char name[2 * MAXCOMLEN];
	int n, k, i;

	sample_procs_begin(r, os->procs, os->nprocs);
	n = os->nprocs ? proc_listallpids(os->pids, sizeof(os->pids)) : 0;
	for (k = 0; k < n; k++) {
		if (proc_name(os->pids[k], name, sizeof(name)) <= 0)
			continue;
		for (i = 0; i < os->nprocs; i++) {
			struct sample_pid *sp;

			if (strcmp(name, os->procs[i]) != 0 ||
			    proc_pidinfo(os->pids[k], PROC_PIDTASKINFO, 0, &ti,
					 sizeof(ti)) != sizeof(ti) ||
			    !(sp = sample_procs_add(&r->procs[i])))
				continue;
			sp->pid = os->pids[k];
			if (proc_pidinfo(os->pids[k], PROC_PIDTBSDINFO, 0, &bi,
					 sizeof(bi)) == sizeof(bi))
				sp->start = bi.pbi_start_tvsec * 1000000ull +
					    bi.pbi_start_tvusec;
			sp->ticks = (ti.pti_total_user + ti.pti_total_system) *
				    (uint64_t)os->hz / 1000000000ull;
			sp->rss_pages = ti.pti_resident_size /
					(uint64_t)os->pagesize;
		}
	}
	sample_procs_sort(r);
}

int sample_os_read(struct sample_os *os, struct sample_raw *r,
		   char *err, size_t errlen)
{
	host_cpu_load_info_data_t cpu;
	vm_statistics64_data_t vm;
	mach_msg_type_number_t n;
	struct loadavg la;
	struct xsw_usage sw;
	uint64_t memsize;
	size_t len;
	kern_return_t kr;

	n = HOST_CPU_LOAD_INFO_COUNT;
	kr = host_statistics(os->host, HOST_CPU_LOAD_INFO,
			     (host_info_t)&cpu, &n);
	if (kr != KERN_SUCCESS) {
		snprintf(err, errlen, "host_statistics(HOST_CPU_LOAD_INFO): %d", kr);
		return -EIO;
	}
	r->cpu.user = (uint64_t)cpu.cpu_ticks[CPU_STATE_USER] +
		      cpu.cpu_ticks[CPU_STATE_NICE];
	r->cpu.system = cpu.cpu_ticks[CPU_STATE_SYSTEM];
	r->cpu.idle = cpu.cpu_ticks[CPU_STATE_IDLE];
	/* No system-wide ctxt, intr, softirq, run queue or blocked. */
	r->missing |= SAMPLE_MISS_STEAL | SAMPLE_MISS_IOWAIT |
		      SAMPLE_MISS_SOFTIRQ | SAMPLE_MISS_VMSTAT;
	n = HOST_VM_INFO64_COUNT;
	kr = host_statistics64(os->host, HOST_VM_INFO64,
			       (host_info64_t)&vm, &n);
	if (kr != KERN_SUCCESS) {
		snprintf(err, errlen, "host_statistics64(HOST_VM_INFO64): %d", kr);
		return -EIO;
	}
	r->free_pages = vm.free_count;
	r->mem_free_kb = (uint64_t)vm.free_count * os->pagesize / 1024;
	r->mem_cached_kb = (uint64_t)vm.external_page_count *
			   os->pagesize / 1024;
	r->pswpin = vm.swapins;
	r->pswpout = vm.swapouts;
	len = sizeof(memsize);
	if (sysctlbyname("hw.memsize", &memsize, &len, NULL, 0) == 0)
		r->mem_total_kb = memsize / 1024;
	len = sizeof(sw);
	if (sysctlbyname("vm.swapusage", &sw, &len, NULL, 0) == 0) {
		r->swap_total_kb = sw.xsu_total / 1024;
		r->swap_free_kb = sw.xsu_avail / 1024;
	}
	len = sizeof(la);
	if (sysctlbyname("vm.loadavg", &la, &len, NULL, 0) == 0) {
		r->load1 = (double)la.ldavg[0] / la.fscale;
		r->load5 = (double)la.ldavg[1] / la.fscale;
		r->load15 = (double)la.ldavg[2] / la.fscale;
	}
	r->nifaces = 0;
	sample_bsd_ifaces(r);
	mac_procs(os, r);
	return 0;
}

SAMPLE_OS_ACCESSORS

void sample_os_close(struct sample_os *os)
{
	if (!os)
		return;
	mach_port_deallocate(mach_task_self(), os->host);
	free(os);
}
