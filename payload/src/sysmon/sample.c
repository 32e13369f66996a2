/* sysmon/sample.c: `benchboot sample`: read the system every interval through
 * sample_os.h, print each interval (table or JSON lines) and, at the end,
 * a summary in the docs/result-schema.md workload record shape. */
#include <errno.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "lib/hist.h"
#include "proto/workload_record.h"
#include "sysmon/sample.h"
#include "lib/stop.h"
#include "lib/util.h"

static const char *const sample_names[SAMPLE_NFIELDS] = {
	[SAMPLE_F_RUNNING] = "running",
	[SAMPLE_F_BLOCKED] = "blocked",
	[SAMPLE_F_CPU_USER] = "cpu_user_pct",
	[SAMPLE_F_CPU_SYSTEM] = "cpu_system_pct",
	[SAMPLE_F_CPU_IOWAIT] = "cpu_iowait_pct",
	[SAMPLE_F_CPU_STEAL] = "cpu_steal_pct",
	[SAMPLE_F_CPU_IDLE] = "cpu_idle_pct",
	[SAMPLE_F_CTXT] = "context_switches_ps",
	[SAMPLE_F_INTR] = "interrupts_ps",
	[SAMPLE_F_SOFTIRQ] = "softirqs_ps",
	[SAMPLE_F_FREE_PAGES] = "free_pages",
	[SAMPLE_F_MEM_FREE_KB] = "mem_free_kb",
	[SAMPLE_F_MEM_BUFFERS_KB] = "mem_buffers_kb",
	[SAMPLE_F_MEM_CACHED_KB] = "mem_cached_kb",
	[SAMPLE_F_BLOCKS_IN] = "blocks_in_ps",
	[SAMPLE_F_BLOCKS_OUT] = "blocks_out_ps",
	[SAMPLE_F_SWAP_IN] = "pages_swapped_in_ps",
	[SAMPLE_F_SWAP_OUT] = "pages_swapped_out_ps",
	[SAMPLE_F_SWAP_USED_KB] = "swap_used_kb",
	[SAMPLE_F_LOAD1] = "load1",
	[SAMPLE_F_LOAD5] = "load5",
	[SAMPLE_F_LOAD15] = "load15",
};

const char *sample_field_name(enum sample_field f)
{
	return (unsigned)f < SAMPLE_NFIELDS ? sample_names[f] : "?";
}

static uint64_t sample_delta(uint64_t a, uint64_t b)
{
	return b >= a ? b - a : 0;
}

static const struct sample_iface *sample_find_iface(const struct sample_raw *r,
						    const char *name)
{
	int i;

	for (i = 0; i < r->nifaces; i++)
		if (strcmp(r->ifaces[i].name, name) == 0)
			return &r->ifaces[i];
	return NULL;
}

/* CPU ticks of b's processes that were also in a (same pid and start);
 * both lists are sorted by pid. */
static uint64_t sample_proc_ticks(const struct sample_proc *a,
				  const struct sample_proc *b)
{
	uint64_t t = 0;
	int i = 0, j = 0;

	while (i < a->npids && j < b->npids) {
		const struct sample_pid *x = &a->pids[i], *y = &b->pids[j];

		if (x->pid < y->pid) {
			i++;
		} else if (x->pid > y->pid) {
			j++;
		} else {
			if (x->start == y->start)
				t += sample_delta(x->ticks, y->ticks);
			i++, j++;
		}
	}
	return t;
}

/* Per-interface rates over dt seconds; an interface new in b counts
 * from zero. */
static void sample_compute_ifaces(const struct sample_raw *a,
				  const struct sample_raw *b, double dt,
				  struct sample_rates *out)
{
	int i;

	out->nifaces = b->nifaces;
	for (i = 0; i < b->nifaces; i++) {
		const struct sample_iface *y = &b->ifaces[i];
		const struct sample_iface *x = sample_find_iface(a, y->name);
		struct sample_iface_rates *o = &out->ifaces[i];

		memcpy(o->name, y->name, sizeof(o->name));
		if (!x)
			x = y;
		o->rx_bytes_ps = (double)sample_delta(x->rx_bytes,
						      y->rx_bytes) / dt;
		o->rx_packets_ps = (double)sample_delta(x->rx_packets,
							y->rx_packets) / dt;
		o->tx_bytes_ps = (double)sample_delta(x->tx_bytes,
						      y->tx_bytes) / dt;
		o->tx_packets_ps = (double)sample_delta(x->tx_packets,
							y->tx_packets) / dt;
	}
}

/* Per-process-name CPU share and resident memory. */
static void sample_compute_procs(const struct sample_raw *a,
				 const struct sample_raw *b, long hz,
				 long pagesize, double dt,
				 struct sample_rates *out)
{
	int i;

	out->nprocs = b->nprocs;
	for (i = 0; i < b->nprocs; i++) {
		const struct sample_proc *y = &b->procs[i];
		struct sample_proc_rates *o = &out->procs[i];
		uint64_t rss = 0;
		int j;

		memcpy(o->name, y->name, sizeof(o->name));
		o->pids = y->npids;
		o->truncated = y->truncated;
		for (j = 0; j < y->npids; j++)
			rss += y->pids[j].rss_pages;
		o->rss_kb = (double)rss * (double)pagesize / 1024.0;
		o->cpu_pct = 0;
		if (i < a->nprocs && strcmp(a->procs[i].name, y->name) == 0)
			o->cpu_pct = 100.0 * (double)sample_proc_ticks(
					&a->procs[i], y) / (double)hz / dt;
	}
}

int sample_compute(const struct sample_raw *a, const struct sample_raw *b,
		   long hz, long pagesize, struct sample_rates *out)
{
	uint64_t cu, cs, ci, cw, cst, ctot;
	double dt, *v = out->v;

	if (b->monotonic_ns <= a->monotonic_ns)
		return -EINVAL;
	dt = (double)(b->monotonic_ns - a->monotonic_ns) / 1e9;
	out->realtime_ns = b->realtime_ns;
	out->monotonic_ns = b->monotonic_ns;
	out->interval_s = dt;
	out->missing = b->missing;

	v[SAMPLE_F_RUNNING] = (double)b->running;
	v[SAMPLE_F_BLOCKED] = (double)b->blocked;
	cu = sample_delta(a->cpu.user, b->cpu.user);
	cs = sample_delta(a->cpu.system, b->cpu.system);
	ci = sample_delta(a->cpu.idle, b->cpu.idle);
	cw = sample_delta(a->cpu.iowait, b->cpu.iowait);
	cst = sample_delta(a->cpu.steal, b->cpu.steal);
	ctot = cu + cs + ci + cw + cst;
	if (ctot == 0)
		ctot = 1;	/* no tick elapsed: report 0 %, not NaN */
	v[SAMPLE_F_CPU_USER] = 100.0 * (double)cu / (double)ctot;
	v[SAMPLE_F_CPU_SYSTEM] = 100.0 * (double)cs / (double)ctot;
	v[SAMPLE_F_CPU_IOWAIT] = 100.0 * (double)cw / (double)ctot;
	v[SAMPLE_F_CPU_STEAL] = 100.0 * (double)cst / (double)ctot;
	v[SAMPLE_F_CPU_IDLE] = 100.0 * (double)ci / (double)ctot;
	v[SAMPLE_F_CTXT] = (double)sample_delta(a->ctxt, b->ctxt) / dt;
	v[SAMPLE_F_INTR] = (double)sample_delta(a->intr, b->intr) / dt;
	v[SAMPLE_F_SOFTIRQ] = (double)sample_delta(a->softirq, b->softirq) /
			      dt;
	v[SAMPLE_F_FREE_PAGES] = (double)b->free_pages;
	v[SAMPLE_F_MEM_FREE_KB] = (double)b->mem_free_kb;
	v[SAMPLE_F_MEM_BUFFERS_KB] = (double)b->mem_buffers_kb;
	v[SAMPLE_F_MEM_CACHED_KB] = (double)b->mem_cached_kb;
	v[SAMPLE_F_BLOCKS_IN] = (double)sample_delta(a->pgpgin_kb,
						     b->pgpgin_kb) / dt;
	v[SAMPLE_F_BLOCKS_OUT] = (double)sample_delta(a->pgpgout_kb,
						      b->pgpgout_kb) / dt;
	v[SAMPLE_F_SWAP_IN] = (double)sample_delta(a->pswpin, b->pswpin) / dt;
	v[SAMPLE_F_SWAP_OUT] = (double)sample_delta(a->pswpout, b->pswpout) /
			       dt;
	v[SAMPLE_F_SWAP_USED_KB] = (double)sample_delta(b->swap_free_kb,
							b->swap_total_kb);
	v[SAMPLE_F_LOAD1] = b->load1;
	v[SAMPLE_F_LOAD5] = b->load5;
	v[SAMPLE_F_LOAD15] = b->load15;

	sample_compute_ifaces(a, b, dt, out);
	sample_compute_procs(a, b, hz, pagesize, dt, out);
	return 0;
}

/* Nanosecond clocks exceed a double's 53 bits: print them as integers. */
static void sample_add_u64(cJSON *o, const char *name, uint64_t v)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)v);
	cJSON_AddRawToObject(o, name, buf);
}

static cJSON *sample_clock_json(uint64_t real, uint64_t mono)
{
	cJSON *t = cJSON_CreateObject();

	if (!t)
		return NULL;
	sample_add_u64(t, "realtime_ns", real);
	sample_add_u64(t, "monotonic_ns", mono);
	return t;
}

/* Adds "net" and "procs" objects from the given rates to o. */
static void sample_add_net_procs(cJSON *o, const struct sample_rates *r)
{
	cJSON *net = cJSON_AddObjectToObject(o, "net");
	cJSON *procs = cJSON_AddObjectToObject(o, "procs");
	int i;

	for (i = 0; net && i < r->nifaces; i++) {
		const struct sample_iface_rates *f = &r->ifaces[i];
		cJSON *j = cJSON_AddObjectToObject(net, f->name);

		if (!j)
			continue;
		cJSON_AddNumberToObject(j, "rx_bytes_ps", f->rx_bytes_ps);
		cJSON_AddNumberToObject(j, "rx_packets_ps", f->rx_packets_ps);
		cJSON_AddNumberToObject(j, "tx_bytes_ps", f->tx_bytes_ps);
		cJSON_AddNumberToObject(j, "tx_packets_ps", f->tx_packets_ps);
	}
	for (i = 0; procs && i < r->nprocs; i++) {
		const struct sample_proc_rates *p = &r->procs[i];
		cJSON *j = cJSON_AddObjectToObject(procs, p->name);

		if (!j)
			continue;
		cJSON_AddNumberToObject(j, "pids", p->pids);
		cJSON_AddNumberToObject(j, "rss_kb", p->rss_kb);
		cJSON_AddNumberToObject(j, "cpu_pct", p->cpu_pct);
		if (p->truncated)
			cJSON_AddTrueToObject(j, "truncated");
	}
}

static void sample_add_missing(cJSON *o, unsigned missing)
{
	static const struct { unsigned bit; const char *name; } m[] = {
		{ SAMPLE_MISS_STEAL, "cpu_steal_pct" },
		{ SAMPLE_MISS_IOWAIT, "cpu_iowait_pct" },
		{ SAMPLE_MISS_SOFTIRQ, "softirqs_ps" },
		{ SAMPLE_MISS_VMSTAT, "free_pages,blocks,swapping" },
		{ SAMPLE_MISS_NETDEV, "net" },
	};
	cJSON *a;
	size_t i;

	if (!missing)
		return;
	a = cJSON_AddArrayToObject(o, "missing");
	for (i = 0; a && i < sizeof(m) / sizeof(m[0]); i++)
		if (missing & m[i].bit)
			cJSON_AddItemToArray(a, cJSON_CreateString(m[i].name));
}

cJSON *sample_rates_to_json(const struct sample_rates *r, const char *host)
{
	cJSON *o = cJSON_CreateObject();
	int f;

	if (!o)
		return NULL;
	cJSON_AddStringToObject(o, "schema", "benchboot.sample/1");
	if (host)
		cJSON_AddStringToObject(o, "host", host);
	cJSON_AddItemToObject(o, "t", sample_clock_json(r->realtime_ns,
							r->monotonic_ns));
	cJSON_AddNumberToObject(o, "interval_s", r->interval_s);
	for (f = 0; f < SAMPLE_NFIELDS; f++)
		cJSON_AddNumberToObject(o, sample_names[f], r->v[f]);
	sample_add_net_procs(o, r);
	sample_add_missing(o, r->missing);
	return o;
}

/* --- the subcommand ------------------------------------------------- */

/* Time-weighted sums of every interval, for the summary. */
struct sample_sum {
	int n;
	double secs;
	struct sample_rates w;		/* each figure times interval_s */
	unsigned missing;
};

static void sample_sum_add(struct sample_sum *s, const struct sample_rates *r)
{
	double d = r->interval_s;
	int i, j;

	s->n++;
	s->secs += d;
	s->missing |= r->missing;
	for (i = 0; i < SAMPLE_NFIELDS; i++)
		s->w.v[i] += r->v[i] * d;
	for (i = 0; i < r->nifaces; i++) {
		const struct sample_iface_rates *f = &r->ifaces[i];
		struct sample_iface_rates *g = NULL;

		for (j = 0; j < s->w.nifaces; j++)
			if (strcmp(s->w.ifaces[j].name, f->name) == 0)
				g = &s->w.ifaces[j];
		if (!g) {
			if (s->w.nifaces == SAMPLE_MAX_IFACES)
				continue;
			g = &s->w.ifaces[s->w.nifaces++];
			memcpy(g->name, f->name, sizeof(g->name));
		}
		g->rx_bytes_ps += f->rx_bytes_ps * d;
		g->rx_packets_ps += f->rx_packets_ps * d;
		g->tx_bytes_ps += f->tx_bytes_ps * d;
		g->tx_packets_ps += f->tx_packets_ps * d;
	}
	s->w.nprocs = r->nprocs;
	for (i = 0; i < r->nprocs; i++) {
		struct sample_proc_rates *g = &s->w.procs[i];

		memcpy(g->name, r->procs[i].name, sizeof(g->name));
		g->pids += r->procs[i].pids;	/* max, below */
		g->rss_kb += r->procs[i].rss_kb * d;
		g->cpu_pct += r->procs[i].cpu_pct * d;
		g->truncated |= r->procs[i].truncated;
	}
}

/* The means: the sums divided by the seconds covered. */
static void sample_sum_mean(const struct sample_sum *s,
			    struct sample_rates *m)
{
	double k = s->secs > 0 ? 1.0 / s->secs : 0;
	int i;

	*m = s->w;
	m->interval_s = s->n ? s->secs / s->n : 0;
	for (i = 0; i < SAMPLE_NFIELDS; i++)
		m->v[i] *= k;
	for (i = 0; i < m->nifaces; i++) {
		m->ifaces[i].rx_bytes_ps *= k;
		m->ifaces[i].rx_packets_ps *= k;
		m->ifaces[i].tx_bytes_ps *= k;
		m->ifaces[i].tx_packets_ps *= k;
	}
	for (i = 0; i < m->nprocs; i++) {
		m->procs[i].rss_kb *= k;
		m->procs[i].cpu_pct *= k;
		m->procs[i].pids = s->n ? (m->procs[i].pids + s->n / 2) /
					  s->n : 0;
	}
	m->missing = s->missing;
}

struct sample_opts {
	uint64_t interval_ns, count;
	const char *procs[SAMPLE_MAX_PROCS];
	int nprocs;
	char *proclist;
	const char *root, *replay;
	int json;
	char host[256];
};

static void sample_print_header(const struct sample_opts *o)
{
	int i;

	printf("  r   b  us  sy  wa  st  id     cs/s     in/s   sirq/s   free_pg  cache_kB  swpd_kB   bi/s   bo/s  si/s  so/s  load1 net_rx_kB/s net_tx_kB/s");
	for (i = 0; i < o->nprocs; i++)
		printf(" %s:cpu%%/rss_MB", o->procs[i]);
	putchar('\n');
}

static void sample_print_row(const struct sample_rates *r)
{
	const double *v = r->v;
	double rx = 0, tx = 0;
	int i;

	for (i = 0; i < r->nifaces; i++) {
		if (strcmp(r->ifaces[i].name, "lo") == 0)
			continue;
		rx += r->ifaces[i].rx_bytes_ps / 1024;
		tx += r->ifaces[i].tx_bytes_ps / 1024;
	}
	printf("%3.0f %3.0f %3.0f %3.0f %3.0f %3.0f %3.0f %8.0f %8.0f %8.0f %9.0f %9.0f %8.0f %6.0f %6.0f %5.0f %5.0f %6.2f %11.1f %11.1f",
	       v[SAMPLE_F_RUNNING], v[SAMPLE_F_BLOCKED], v[SAMPLE_F_CPU_USER],
	       v[SAMPLE_F_CPU_SYSTEM], v[SAMPLE_F_CPU_IOWAIT],
	       v[SAMPLE_F_CPU_STEAL], v[SAMPLE_F_CPU_IDLE], v[SAMPLE_F_CTXT],
	       v[SAMPLE_F_INTR], v[SAMPLE_F_SOFTIRQ], v[SAMPLE_F_FREE_PAGES],
	       v[SAMPLE_F_MEM_CACHED_KB] + v[SAMPLE_F_MEM_BUFFERS_KB],
	       v[SAMPLE_F_SWAP_USED_KB], v[SAMPLE_F_BLOCKS_IN],
	       v[SAMPLE_F_BLOCKS_OUT], v[SAMPLE_F_SWAP_IN],
	       v[SAMPLE_F_SWAP_OUT], v[SAMPLE_F_LOAD1], rx, tx);
	for (i = 0; i < r->nprocs; i++)
		printf(" %*.1f/%.1f", (int)strlen(r->procs[i].name) + 1,
		       r->procs[i].cpu_pct, r->procs[i].rss_kb / 1024);
	putchar('\n');
	fflush(stdout);
}

/* Prints j as one line and deletes it.  Returns 0 or -ENOMEM. */
static int sample_print_json(cJSON *j)
{
	char *txt = cJSON_PrintUnformatted(j);

	cJSON_Delete(j);
	if (!txt)
		return -ENOMEM;
	printf("%s\n", txt);
	fflush(stdout);
	free(txt);
	return 0;
}

/* The summary's counters: totals over the run, as their JSON names. */
static const struct {
	const char *name;
	size_t off;		/* a uint64_t in struct sample_raw */
} sample_counters[] = {
	{ "context_switches", offsetof(struct sample_raw, ctxt) },
	{ "interrupts", offsetof(struct sample_raw, intr) },
	{ "softirqs", offsetof(struct sample_raw, softirq) },
	{ "blocks_in", offsetof(struct sample_raw, pgpgin_kb) },
	{ "blocks_out", offsetof(struct sample_raw, pgpgout_kb) },
	{ "pages_swapped_in", offsetof(struct sample_raw, pswpin) },
	{ "pages_swapped_out", offsetof(struct sample_raw, pswpout) },
};

static void sample_add_counters(cJSON *x, const struct sample_raw *first,
				const struct sample_raw *last)
{
	size_t i;

	for (i = 0; i < sizeof(sample_counters) / sizeof(sample_counters[0]);
	     i++) {
		uint64_t a, b;

		memcpy(&a, (const char *)first + sample_counters[i].off,
		       sizeof(a));
		memcpy(&b, (const char *)last + sample_counters[i].off,
		       sizeof(b));
		cJSON_AddNumberToObject(x, sample_counters[i].name,
					(double)sample_delta(a, b));
	}
}

/* Prints the summary workload record (JSON) or the means (table). */
static int sample_print_summary(const struct sample_opts *o,
				const struct sample_raw *first,
				const struct sample_raw *last,
				const struct sample_sum *s,
				const struct hist *late, uint64_t errors)
{
	struct sample_rates *m = malloc(sizeof(*m));
	cJSON *rec, *x, *a;
	int i;

	if (!m)
		return -ENOMEM;
	sample_sum_mean(s, m);
	if (!o->json) {
		if (s->n > 0) {
			printf("mean over %d intervals (%.1f s):\n", s->n,
			       s->secs);
			sample_print_row(m);
		}
		free(m);
		return 0;
	}
	rec = workload_record_new("sample", o->host);
	if (!rec) {
		free(m);
		return -ENOMEM;
	}
	x = cJSON_AddObjectToObject(rec, "params");
	cJSON_AddNumberToObject(x, "interval_s", (double)o->interval_ns / 1e9);
	cJSON_AddNumberToObject(x, "count", (double)o->count);
	a = cJSON_AddArrayToObject(x, "procs");
	for (i = 0; i < o->nprocs; i++)
		cJSON_AddItemToArray(a, cJSON_CreateString(o->procs[i]));
	if (o->replay)
		cJSON_AddStringToObject(x, "replay", o->replay);
	cJSON_AddItemToObject(rec, "start",
			      sample_clock_json(first->realtime_ns,
						first->monotonic_ns));
	cJSON_AddNumberToObject(rec, "elapsed_s", s->secs);
	x = cJSON_AddObjectToObject(rec, "counters");
	cJSON_AddNumberToObject(x, "intervals", s->n);
	sample_add_counters(x, first, last);
	x = cJSON_AddObjectToObject(rec, "errors");
	cJSON_AddNumberToObject(x, "read", (double)errors);
	cJSON_AddItemToObject(rec, "latency", hist_to_json(late));
	x = cJSON_AddObjectToObject(rec, "means");
	for (i = 0; x && i < SAMPLE_NFIELDS; i++)
		cJSON_AddNumberToObject(x, sample_names[i], m->v[i]);
	if (x) {
		sample_add_net_procs(x, m);
		sample_add_missing(x, m->missing);
	}
	free(m);
	return sample_print_json(rec);
}

/* --proc NAME[,NAME...]: the processes to follow (dst: the opts). */
static int sample_opt_proc(void *dst, const char *value, char *err,
			   size_t errlen)
{
	struct sample_opts *o = dst;
	char *tok, *save;

	free(o->proclist);
	o->proclist = strdup(value);
	o->nprocs = 0;
	if (!o->proclist)
		return util_fail(err, errlen, -ENOMEM, "out of memory");
	for (tok = strtok_r(o->proclist, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (o->nprocs == SAMPLE_MAX_PROCS)
			return util_fail(err, errlen, -E2BIG, "--proc: at most %d names", SAMPLE_MAX_PROCS);
		if (strlen(tok) >= SAMPLE_PROCNAME_LEN)
			return util_fail(err, errlen, -EINVAL, "--proc '%s': a process name (comm) has at most %d characters", tok, SAMPLE_PROCNAME_LEN - 1);
		o->procs[o->nprocs++] = tok;
	}
	return 0;
}

#define SO(m) OPT_AT(struct sample_opts, m)

static const struct opt sample_opt_tab[] = {
	{ .name = "interval", .key = 'i', .kind = OPT_DUR,
	  .off = SO(interval_ns), .min = 10000000ULL,
	  .max = 3600000000000ULL,
	  .bad = "--interval '%s': want a duration 10ms..1h", .arg = "D",
	  .help = "time between readings (units ms, s, m)", .def = "1s",
	  .remote = 1 },
	{ .name = "count", .key = 'c', .kind = OPT_U64, .off = SO(count),
	  .max = 100000000,
	  .bad = "--count '%s': want 0 (until stopped) or more", .arg = "N",
	  .help = "intervals to report", .def = "0: until SIGINT or SIGTERM",
	  .remote = 1 },
	{ .name = "proc", .key = 'p', .kind = OPT_FN, .off = 0,
	  .fn = sample_opt_proc, .arg = "NAME,...",
	  .help = "follow the RSS and CPU of the processes with these names "
		  "(comm)", .remote = 1 },
	{ .name = "json", .key = 'j', .kind = OPT_FLAG, .off = SO(json),
	  .val = 1, .help = "JSON lines: one record per interval, then a "
	  "summary", .remote = 1 },
	{ .name = "root", .key = 'r', .kind = OPT_STR, .off = SO(root),
	  .local = "reads local files", .arg = "DIR",
	  .help = "read DIR/proc instead of /proc" },
	{ .name = "replay", .key = 'R', .kind = OPT_STR, .off = SO(replay),
	  .local = "reads local files", .arg = "DIR",
	  .help = "read snapshots DIR/0, DIR/1, ... (each a root with a "
		  "'clock' file: realtime_ns monotonic_ns) instead of the live "
		  "system; for tests and offline analysis" },
};

const struct optset sample_optset = OPTSET("sample", sample_opt_tab,
	"[--interval D] [--count N] [--proc NAME,...] [--json]\n"
	"                        [--root DIR] [--replay DIR]", NULL);

static int sample_parse_opts(int argc, char **argv, struct sample_opts *o)
{
	int argi, rc;

	o->interval_ns = 1000000000ULL;
	o->root = "/";
	rc = opt_main(&sample_optset, o, argc, argv, &argi);
	if (rc != 0)
		return rc > 0 ? 0 : 2;
	if (argi != argc) {
		util_err("sample", EINVAL, "unexpected argument '%s'",
			 argv[argi]);
		opt_usage(&sample_optset, stderr);
		return 2;
	}
	util_hostname(o->host, sizeof(o->host));
	return -1;
}

/* Replay: the clock of snapshot dir (its 'clock' file). */
static int sample_replay_clock(const char *dir, struct sample_raw *r,
			       char *err, size_t errlen)
{
	char path[600];
	unsigned long long re, mo;
	FILE *f;
	int n;

	snprintf(path, sizeof(path), "%s/clock", dir);
	f = fopen(path, "r");
	if (!f) {
		snprintf(err, errlen, "%.400s: %s", path, strerror(errno));
		return -errno;
	}
	n = fscanf(f, "%llu %llu", &re, &mo);
	fclose(f);
	if (n != 2) {
		snprintf(err, errlen, "%.400s: want 'realtime_ns monotonic_ns'",
			 path);
		return -EINVAL;
	}
	r->realtime_ns = re;
	r->monotonic_ns = mo;
	return 0;
}

/* Takes reading number i: live (root) or snapshot o->replay/i.  Returns
 * 0, 1 at the end of a replay (no snapshot i), or a negative errno. */
static int sample_take(const struct sample_opts *o, struct sample_os *live,
		       uint64_t i, struct sample_raw *r, long *hz,
		       long *pagesize, char *err, size_t errlen)
{
	struct sample_os *os;
	char dir[512];
	int rc;

	if (!o->replay) {
		r->realtime_ns = util_real_ns();
		r->monotonic_ns = util_mono_ns();
		return sample_os_read(live, r, err, errlen);
	}
	snprintf(dir, sizeof(dir), "%s/%llu", o->replay,
		 (unsigned long long)i);
	if (access(dir, F_OK) != 0)
		return 1;
	rc = sample_replay_clock(dir, r, err, errlen);
	if (rc != 0)
		return rc;
	rc = sample_os_open(&os, dir, o->procs, o->nprocs, err, errlen);
	if (rc != 0)
		return rc;
	rc = sample_os_read(os, r, err, errlen);
	*hz = sample_os_hz(os);
	*pagesize = sample_os_pagesize(os);
	sample_os_close(os);
	return rc;
}

/* One sampling run: the two readings it alternates between and what it
 * accumulates. */
struct sample_run {
	const struct sample_opts *o;
	struct sample_os *live;		/* NULL when replaying */
	struct sample_raw *prev, *cur;
	struct sample_rates *rates;
	struct sample_sum *sum;
	struct hist *late;		/* wake-up lateness */
	long hz, pagesize;
	uint64_t deadline, errors;
	char err[512];
};

/* One interval's rates, as a line of text or JSON.  Returns 0 or
 * -ENOMEM. */
static int sample_emit(const struct sample_opts *o,
		       const struct sample_rates *rates)
{
	cJSON *j;

	if (!o->json) {
		sample_print_row(rates);
		return 0;
	}
	j = sample_rates_to_json(rates, o->host);
	if (!j)
		return -ENOMEM;
	return sample_print_json(j);
}

/* Sleeps until the next deadline (live runs only).  Returns 1 when the
 * run is to stop. */
static int sample_wait(struct sample_run *r)
{
	struct timespec ts;
	int rc;

	if (r->o->replay)
		return 0;
	r->deadline += r->o->interval_ns;
	ts.tv_sec = (time_t)(r->deadline / 1000000000ULL);
	ts.tv_nsec = (long)(r->deadline % 1000000000ULL);
	rc = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
	return rc == EINTR || stop_requested;
}

/* Takes reading i and reports the interval since the previous one.
 * Returns 0, 1 at the end of a replay, or -ENOMEM (fatal); a reading
 * that fails is counted and reported, and the run goes on: a sampler
 * must outlive a hiccup of the system. */
static int sample_step(struct sample_run *r, uint64_t i)
{
	const struct sample_opts *o = r->o;
	struct sample_raw *t;
	uint64_t now;
	int rc;

	rc = sample_take(o, r->live, i, r->cur, &r->hz, &r->pagesize, r->err,
			 sizeof(r->err));
	if (rc > 0)
		return 1;
	if (rc != 0) {
		r->errors++;
		util_err("sample", -rc, "%s", r->err);
		return 0;
	}
	if (!o->replay) {
		now = util_mono_ns();
		hist_record(r->late, now - r->deadline);
		/* fell more than an interval behind: skip ahead rather than
		 * sample in a burst */
		while (r->deadline + o->interval_ns < now)
			r->deadline += o->interval_ns;
	}
	if (sample_compute(r->prev, r->cur, r->hz, r->pagesize,
			   r->rates) != 0) {
		r->errors++;
		util_err("sample", EINVAL,
			 "reading %llu is not later than the one before",
			 (unsigned long long)i);
		return 0;
	}
	sample_sum_add(r->sum, r->rates);
	rc = sample_emit(o, r->rates);
	if (rc != 0) {
		util_err("sample", ENOMEM, "out of memory");
		return rc;
	}
	t = r->prev;
	r->prev = r->cur;
	r->cur = t;
	return 0;
}

/* The first reading, then one per interval until the count, a signal or
 * the replay's end; then the summary.  Returns the exit status. */
static int sample_loop(struct sample_run *r, struct sample_raw *first)
{
	const struct sample_opts *o = r->o;
	uint64_t i;
	int rc;

	rc = sample_take(o, r->live, 0, r->prev, &r->hz, &r->pagesize,
			 r->err, sizeof(r->err));
	if (rc != 0) {
		if (rc > 0)
			util_err("sample", ENOENT, "replay: no %s/0",
				 o->replay);
		else
			util_err("sample", -rc, "%s", r->err);
		return 1;
	}
	*first = *r->prev;
	if (!o->json)
		sample_print_header(o);
	r->deadline = r->prev->monotonic_ns;
	for (i = 1; !stop_requested && (o->count == 0 || i <= o->count); i++) {
		if (sample_wait(r))
			break;
		rc = sample_step(r, i);
		if (rc < 0)
			return 1;
		if (rc > 0)
			break;
	}
	rc = sample_print_summary(o, first, r->prev, r->sum, r->late,
				  r->errors);
	if (rc != 0) {
		util_err("sample", -rc, "summary: out of memory");
		return 1;
	}
	/* every interval that could be read was reported; a reading that
	 * failed still fails the run, so no caller mistakes a gap for data */
	return r->errors ? 1 : 0;
}

int sample_main(int argc, char **argv)
{
	struct sample_opts o = { 0 };
	struct sample_run r = { .o = &o, .hz = 100, .pagesize = 4096 };
	struct sample_raw *raw = NULL, *first = NULL;
	int rc, ret = 1;

	rc = sample_parse_opts(argc, argv, &o);
	if (rc >= 0) {
		free(o.proclist);
		return rc;
	}
	raw = calloc(2, sizeof(*raw));
	first = malloc(sizeof(*first));
	r.rates = calloc(1, sizeof(*r.rates));
	r.sum = calloc(1, sizeof(*r.sum));
	r.late = malloc(sizeof(*r.late));
	if (!raw || !first || !r.rates || !r.sum || !r.late) {
		util_err("sample", ENOMEM, "out of memory");
		goto out;
	}
	hist_init(r.late);
	if (!o.replay) {
		rc = sample_os_open(&r.live, o.root, o.procs, o.nprocs, r.err,
				    sizeof(r.err));
		if (rc != 0) {
			util_err("sample", -rc, "%s", r.err);
			goto out;
		}
		r.hz = sample_os_hz(r.live);
		r.pagesize = sample_os_pagesize(r.live);
	}
	stop_on_signals();
	r.prev = &raw[0];
	r.cur = &raw[1];
	ret = sample_loop(&r, first);
out:
	sample_os_close(r.live);
	free(raw);
	free(first);
	free(r.rates);
	free(r.sum);
	free(r.late);
	free(o.proclist);
	return ret;
}
