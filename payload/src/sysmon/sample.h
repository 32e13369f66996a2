/* sysmon/sample.h: `benchboot sample`, the whole system every interval (vmstat,
 * plus network and named processes) as a table or JSON lines, and the
 * arithmetic that turns two sample_os.h readings into one interval. */
#ifndef BB_SAMPLE_H
#define BB_SAMPLE_H

#include <cjson/cJSON.h>

#include "lib/opt.h"
#include "sysmon/sample_os.h"

/* The scalar figures of one interval, in output order.  The JSON name of
 * each is sample_field_name(); docs/sample.md describes every one. */
enum sample_field {
	SAMPLE_F_RUNNING,		/* runnable tasks (gauge) */
	SAMPLE_F_BLOCKED,		/* tasks blocked on I/O (gauge) */
	SAMPLE_F_CPU_USER,		/* % of all CPUs' time, user + nice */
	SAMPLE_F_CPU_SYSTEM,		/* system + irq + softirq */
	SAMPLE_F_CPU_IOWAIT,
	SAMPLE_F_CPU_STEAL,
	SAMPLE_F_CPU_IDLE,
	SAMPLE_F_CTXT,			/* context switches/s */
	SAMPLE_F_INTR,			/* interrupts/s */
	SAMPLE_F_SOFTIRQ,		/* softirqs/s */
	SAMPLE_F_FREE_PAGES,		/* gauge */
	SAMPLE_F_MEM_FREE_KB,
	SAMPLE_F_MEM_BUFFERS_KB,
	SAMPLE_F_MEM_CACHED_KB,
	SAMPLE_F_BLOCKS_IN,		/* 1 KiB blocks/s read from disk */
	SAMPLE_F_BLOCKS_OUT,
	SAMPLE_F_SWAP_IN,		/* pages/s */
	SAMPLE_F_SWAP_OUT,
	SAMPLE_F_SWAP_USED_KB,
	SAMPLE_F_LOAD1,
	SAMPLE_F_LOAD5,
	SAMPLE_F_LOAD15,
	SAMPLE_NFIELDS
};

struct sample_iface_rates {
	char name[SAMPLE_IFNAME_LEN];
	double rx_bytes_ps, rx_packets_ps, tx_bytes_ps, tx_packets_ps;
};

struct sample_proc_rates {
	char name[SAMPLE_PROCNAME_LEN];
	int pids, truncated;
	double rss_kb, cpu_pct;		/* cpu_pct: % of one CPU */
};

/* One interval: from reading a to reading b. */
struct sample_rates {
	uint64_t realtime_ns, monotonic_ns;	/* of the later reading */
	double interval_s;
	double v[SAMPLE_NFIELDS];
	unsigned missing;			/* SAMPLE_MISS_* of b */
	int nifaces;
	struct sample_iface_rates ifaces[SAMPLE_MAX_IFACES];
	int nprocs;
	struct sample_proc_rates procs[SAMPLE_MAX_PROCS];
};

/* The JSON name of field f ("context_switches_ps", ...). */
const char *sample_field_name(enum sample_field f);

/* Derives the interval a -> b (b read after a, same processes followed)
 * with hz clock ticks per second and pagesize bytes per page.  A counter
 * that went backwards (reset, or a wrap) counts as 0; an interface absent
 * from a is reported with zero rates; a process counts only the CPU time
 * it used while followed in both readings (same pid and start time), so a
 * process younger than one interval adds its RSS but not yet its CPU.
 * Returns 0, or -EINVAL when b is not later than a. */
int sample_compute(const struct sample_raw *a, const struct sample_raw *b,
		   long hz, long pagesize, struct sample_rates *out);

/* A new cJSON object for one interval record ("benchboot.sample/1" in
 * docs/sample.md); host may be NULL.  Caller owns it; NULL when out of
 * memory. */
cJSON *sample_rates_to_json(const struct sample_rates *r, const char *host);

/* Entry point: `benchboot sample [--interval D] [--count N] [--proc a,b]
 * [--json] [--root DIR] [--replay DIR]`.  Exit 0; 1 when a reading
 * failed (the others are still reported, the failure counted in the
 * summary's errors.read); 2 on usage errors. */
int sample_main(int argc, char **argv);

/* The options sample_main() parses with, for the agent to resolve a
 * controller's argv by (agent/policy.h); its offsets are into sample.c's
 * own config, so only opt_walk() may use it from outside. */
extern const struct optset sample_optset;

#endif
