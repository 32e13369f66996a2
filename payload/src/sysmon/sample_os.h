/* sysmon/sample_os.h: the one OS-specific part of `benchboot sample`: read the
 * kernel's cumulative counters and gauges into a struct sample_raw.  Linux
 * (/proc) is sample_linux.c; a FreeBSD or macOS (sysctl) backend would be
 * another file implementing these four functions. */
#ifndef BB_SAMPLE_OS_H
#define BB_SAMPLE_OS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define SAMPLE_MAX_IFACES 32
#define SAMPLE_IFNAME_LEN 32
#define SAMPLE_MAX_PROCS 8		/* names given with --proc */
#define SAMPLE_PROCNAME_LEN 16		/* Linux comm: 15 chars + NUL */
#define SAMPLE_MAX_PIDS 1024		/* per name, per reading */

/* CPU time in clock ticks, summed over all CPUs (the kernel's "cpu" line).
 * user includes nice; system includes irq and softirq (as vmstat). */
struct sample_cpu {
	uint64_t user, system, idle, iowait, steal;
};

struct sample_iface {
	char name[SAMPLE_IFNAME_LEN];
	uint64_t rx_bytes, rx_packets, tx_bytes, tx_packets;
};

/* One process that matched a name: its id, start time (to tell a reused
 * pid), own CPU ticks (utime + stime, all threads) and resident pages. */
struct sample_pid {
	pid_t pid;
	uint64_t start, ticks, rss_pages;
};

/* Every process whose name (comm) is name, sorted by pid.  truncated is
 * set when more than SAMPLE_MAX_PIDS matched (the rest are left out). */
struct sample_proc {
	char name[SAMPLE_PROCNAME_LEN];
	int npids, truncated;
	struct sample_pid pids[SAMPLE_MAX_PIDS];
};

/* One reading.  Counters are cumulative since boot (rates are differences
 * between two readings); gauges are the value at the time of reading.
 * A field the OS does not provide is left 0 and its bit in `missing` set. */
struct sample_raw {
	uint64_t realtime_ns, monotonic_ns;	/* when it was read */
	/* counters */
	struct sample_cpu cpu;
	uint64_t ctxt, intr, softirq;
	uint64_t pgpgin_kb, pgpgout_kb;		/* block I/O, KiB */
	uint64_t pswpin, pswpout;		/* pages */
	/* gauges */
	uint64_t running, blocked;
	uint64_t free_pages;
	uint64_t mem_total_kb, mem_free_kb, mem_buffers_kb, mem_cached_kb;
	uint64_t swap_total_kb, swap_free_kb;
	double load1, load5, load15;
	int nifaces;
	struct sample_iface ifaces[SAMPLE_MAX_IFACES];
	int nprocs;
	struct sample_proc procs[SAMPLE_MAX_PROCS];
	unsigned missing;			/* SAMPLE_MISS_* bits */
};

#define SAMPLE_MISS_STEAL 0x01u
#define SAMPLE_MISS_SOFTIRQ 0x02u
#define SAMPLE_MISS_VMSTAT 0x04u
#define SAMPLE_MISS_NETDEV 0x08u
#define SAMPLE_MISS_IOWAIT 0x10u

/* Backend state: open files or handles, a read buffer, the clock rate. */
struct sample_os;

/* Prepares to read the system rooted at root ("/" for the live system, or
 * a directory holding a snapshot with the same layout, e.g. a test
 * fixture with proc/stat, proc/meminfo ...).  procs lists nprocs process
 * names (at most SAMPLE_MAX_PROCS) to follow.  On success stores a new
 * handle in *out (free with sample_os_close) and returns 0; otherwise
 * returns a negative errno with a message in err (errlen bytes). */
int sample_os_open(struct sample_os **out, const char *root,
		   const char *const *procs, int nprocs,
		   char *err, size_t errlen);

/* Fills r (without touching its clock fields) from the system.  Returns
 * 0, or a negative errno with a message naming the file and line that
 * could not be read or parsed; r is then partly filled. */
int sample_os_read(struct sample_os *os, struct sample_raw *r,
		   char *err, size_t errlen);

/* Clock ticks per second of the CPU counters (USER_HZ on Linux). */
long sample_os_hz(const struct sample_os *os);

/* Bytes per page (free_pages, rss_pages). */
long sample_os_pagesize(const struct sample_os *os);

/* Frees os; NULL is allowed. */
void sample_os_close(struct sample_os *os);

#endif
