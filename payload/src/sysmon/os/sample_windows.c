/* sample_windows.c: the sample_os.h backend for Windows (docs/sample.md
 * "Other operating systems"): GetSystemTimes, PDH raw counters,
 * GlobalMemoryStatusEx, GetIfTable2 and the Toolhelp process list.  Built
 * with MinGW-w64 by payload/tests/integration/686_os_backends.sh (compiled
 * and linked, not run: no Windows here).  Not part of the Linux binary. */
/* Windows 7 and later: GetIfTable2, PdhAddEnglishCounter. */
#define _WIN32_WINNT 0x0601
#define WIN32_LEAN_AND_MEAN
#include <winsock2.h>
#include <ws2tcpip.h>
#include <windows.h>
#include <iphlpapi.h>
#include <netioapi.h>
#include <pdh.h>
#include <psapi.h>
#include <tlhelp32.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../sample_os.h"
#include "sample_os_util.h"

/* The PDH counters read raw: their FirstValue is the cumulative count
 * (PERF_COUNTER_COUNTER and _BULK_COUNT), or the gauge itself. */
enum {
	W_QUEUE, W_CSW, W_INTR, W_DPC, W_FREEZERO, W_CACHE, W_DREAD,
	W_DWRITE, W_PGIN, W_PGOUT, W_N
};
static const wchar_t *const w_paths[W_N] = {
	[W_QUEUE] = L"\\System\\Processor Queue Length",
	[W_CSW] = L"\\System\\Context Switches/sec",
	[W_INTR] = L"\\Processor(_Total)\\Interrupts/sec",
	[W_DPC] = L"\\Processor(_Total)\\DPCs Queued/sec",
	[W_FREEZERO] = L"\\Memory\\Free & Zero Page List Bytes",
	[W_CACHE] = L"\\Memory\\Cache Bytes",
	[W_DREAD] = L"\\PhysicalDisk(_Total)\\Disk Read Bytes/sec",
	[W_DWRITE] = L"\\PhysicalDisk(_Total)\\Disk Write Bytes/sec",
	[W_PGIN] = L"\\Memory\\Pages Input/sec",
	[W_PGOUT] = L"\\Memory\\Pages Output/sec",
};

struct sample_os {
	SAMPLE_OS_COMMON;
	PDH_HQUERY q;
	PDH_HCOUNTER c[W_N];
	int have[W_N];			/* the counter exists here */
};

/* A FILETIME (100 ns units) as one number: the CPU "ticks". */
static uint64_t w_ft(FILETIME f)
{
	return ((uint64_t)f.dwHighDateTime << 32) | f.dwLowDateTime;
}

static int w_fail(char *err, size_t errlen, int rc, const char *what,
		  unsigned long code)
{
	snprintf(err, errlen, "%s failed (error %lu)", what, code);
	return rc;
}

int sample_os_open(struct sample_os **out, const char *root,
		   const char *const *procs, int nprocs,
		   char *err, size_t errlen)
{
	struct sample_os *os;
	SYSTEM_INFO si;
	PDH_STATUS st;
	int i, rc;

	rc = sample_os_new(&os, sizeof(*os), "Windows", root, procs, nprocs,
			   err, errlen);
	if (rc != 0)
		return rc;
	GetSystemInfo(&si);
	os->pagesize = (long)si.dwPageSize;
	os->hz = 10000000;		/* FILETIME: 100 ns units */
	st = PdhOpenQueryW(NULL, 0, &os->q);
	if (st != ERROR_SUCCESS) {
		free(os);
		return w_fail(err, errlen, -EIO, "PdhOpenQuery", st);
	}
	/* English names whatever the system's language; a counter this
	 * system lacks is a missing field, not an error. */
	for (i = 0; i < W_N; i++)
		os->have[i] = PdhAddEnglishCounterW(os->q, w_paths[i], 0,
						    &os->c[i]) ==
			      ERROR_SUCCESS;
	*out = os;
	return 0;
}

/* The raw value of counter i, 0 when it is not there. */
static uint64_t w_raw(struct sample_os *os, int i)
{
	PDH_RAW_COUNTER rc;
	DWORD type;

	if (!os->have[i] ||
	    PdhGetRawCounterValue(os->c[i], &type, &rc) != ERROR_SUCCESS)
		return 0;
	return rc.FirstValue < 0 ? 0 : (uint64_t)rc.FirstValue;
}

static void w_ifaces(struct sample_raw *r)
{
	PMIB_IF_TABLE2 t = NULL;
	ULONG i;

	if (GetIfTable2(&t) != NO_ERROR) {
		r->missing |= SAMPLE_MISS_NETDEV;
		return;
	}
	for (i = 0; i < t->NumEntries && r->nifaces < SAMPLE_MAX_IFACES;
	     i++) {
		const MIB_IF_ROW2 *row = &t->Table[i];
		struct sample_iface *f = &r->ifaces[r->nifaces];

		/* Hardware interfaces only: not the filter and loopback
		 * pseudo-interfaces Windows lists for each. */
		if (!row->InterfaceAndOperStatusFlags.HardwareInterface)
			continue;
		WideCharToMultiByte(CP_UTF8, 0, row->Alias, -1, f->name,
				    SAMPLE_IFNAME_LEN, NULL, NULL);
		f->rx_bytes = row->InOctets;
		f->rx_packets = row->InUcastPkts + row->InNUcastPkts;
		f->tx_bytes = row->OutOctets;
		f->tx_packets = row->OutUcastPkts + row->OutNUcastPkts;
		r->nifaces++;
	}
	FreeMibTable(t);
}

/* One matching process: its times (100 ns) and working set, in pages. */
static void w_proc(struct sample_os *os, struct sample_proc *p, DWORD pid)
{
	HANDLE h = OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION, FALSE, pid);
	FILETIME c, e, k, u;
	PROCESS_MEMORY_COUNTERS m;
	struct sample_pid *sp;

	if (!h)
		return;
	sp = sample_procs_add(p);
	if (!sp) {
		CloseHandle(h);
		return;
	}
	sp->pid = (pid_t)pid;
	if (GetProcessTimes(h, &c, &e, &k, &u)) {
		sp->start = w_ft(c);
		sp->ticks = w_ft(k) + w_ft(u);
	}
	if (GetProcessMemoryInfo(h, &m, sizeof(m)))
		sp->rss_pages = (uint64_t)m.WorkingSetSize /
				(uint64_t)os->pagesize;
	CloseHandle(h);
}

/* Processes by image name: "httpd" matches httpd.exe. */
static void w_procs(struct sample_os *os, struct sample_raw *r)
{
	HANDLE snap;
	PROCESSENTRY32 pe = { .dwSize = sizeof(pe) };
	char base[MAX_PATH], *dot;
	int i;

	sample_procs_begin(r, os->procs, os->nprocs);
	snap = CreateToolhelp32Snapshot(TH32CS_SNAPPROCESS, 0);
	if (snap == INVALID_HANDLE_VALUE)
		return;
	for (BOOL ok = Process32First(snap, &pe); ok;
	     ok = Process32Next(snap, &pe)) {
		snprintf(base, sizeof(base), "%s", pe.szExeFile);
		dot = strrchr(base, '.');
		if (dot && _stricmp(dot, ".exe") == 0)
			*dot = 0;
		for (i = 0; i < os->nprocs; i++)
			if (_stricmp(base, os->procs[i]) == 0)
				w_proc(os, &r->procs[i], pe.th32ProcessID);
	}
	CloseHandle(snap);
	sample_procs_sort(r);
}

int sample_os_read(struct sample_os *os, struct sample_raw *r,
		   char *err, size_t errlen)
{
	FILETIME idle, kern, user;
	MEMORYSTATUSEX ms = { .dwLength = sizeof(ms) };
	PDH_STATUS st;

	if (!GetSystemTimes(&idle, &kern, &user))
		return w_fail(err, errlen, -EIO, "GetSystemTimes",
			      GetLastError());
	/* Kernel time includes idle time on Windows. */
	r->cpu.user = w_ft(user);
	r->cpu.idle = w_ft(idle);
	r->cpu.system = w_ft(kern) - w_ft(idle);
	r->missing |= SAMPLE_MISS_STEAL | SAMPLE_MISS_IOWAIT;
	st = PdhCollectQueryData(os->q);
	if (st != ERROR_SUCCESS)
		return w_fail(err, errlen, -EIO, "PdhCollectQueryData", st);
	r->ctxt = w_raw(os, W_CSW);
	r->intr = w_raw(os, W_INTR);
	r->softirq = w_raw(os, W_DPC);		/* DPCs: the nearest thing */
	if (!os->have[W_DPC])
		r->missing |= SAMPLE_MISS_SOFTIRQ;
	r->pgpgin_kb = w_raw(os, W_DREAD) / 1024;
	r->pgpgout_kb = w_raw(os, W_DWRITE) / 1024;
	r->pswpin = w_raw(os, W_PGIN);
	r->pswpout = w_raw(os, W_PGOUT);
	if (!os->have[W_PGIN] || !os->have[W_DREAD])
		r->missing |= SAMPLE_MISS_VMSTAT;
	/* Threads waiting for a CPU: Linux's procs_running also counts the
	 * running ones, Windows has no such count; nor a blocked one. */
	r->running = w_raw(os, W_QUEUE);
	r->blocked = 0;
	if (!GlobalMemoryStatusEx(&ms))
		return w_fail(err, errlen, -EIO, "GlobalMemoryStatusEx",
			      GetLastError());
	r->mem_total_kb = ms.ullTotalPhys / 1024;
	r->mem_free_kb = ms.ullAvailPhys / 1024;
	r->free_pages = w_raw(os, W_FREEZERO) / (uint64_t)os->pagesize;
	r->mem_buffers_kb = 0;
	r->mem_cached_kb = w_raw(os, W_CACHE) / 1024;
	r->swap_total_kb = (ms.ullTotalPageFile - ms.ullTotalPhys) / 1024;
	r->swap_free_kb = ms.ullAvailPageFile > ms.ullAvailPhys ?
			  (ms.ullAvailPageFile - ms.ullAvailPhys) / 1024 : 0;
	if (r->swap_free_kb > r->swap_total_kb)
		r->swap_free_kb = r->swap_total_kb;
	/* No load average on Windows: load1..15 stay 0. */
	r->load1 = r->load5 = r->load15 = 0;
	r->nifaces = 0;
	w_ifaces(r);
	w_procs(os, r);
	return 0;
}

SAMPLE_OS_ACCESSORS

void sample_os_close(struct sample_os *os)
{
	if (!os)
		return;
	PdhCloseQuery(os->q);
	free(os);
}
