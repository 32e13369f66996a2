/* test_sample.c: sample_compute's arithmetic and edge cases (counter
 * reset, an interface that appears, a reused pid, time not moving) on
 * hand-made readings; real kernels' files are 070_sample_fixtures.sh. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sysmon/sample.h"
#include "tap.h"

static int near(double a, double b)
{
	return fabs(a - b) <= 1e-9 * (fabs(b) + 1);
}

static const struct {
	enum sample_field f;
	double want;
} wants[] = {
	{ SAMPLE_F_RUNNING, 3 },
	{ SAMPLE_F_BLOCKED, 1 },
	/* cpu deltas: user 50, system 25, idle 100, iowait 25, steal 0 */
	{ SAMPLE_F_CPU_USER, 25 },
	{ SAMPLE_F_CPU_SYSTEM, 12.5 },
	{ SAMPLE_F_CPU_IDLE, 50 },
	{ SAMPLE_F_CPU_IOWAIT, 12.5 },
	{ SAMPLE_F_CPU_STEAL, 0 },
	{ SAMPLE_F_CTXT, 1000 },		/* 2000 in 2 s */
	{ SAMPLE_F_INTR, 250 },
	{ SAMPLE_F_SOFTIRQ, 0 },		/* went backwards */
	{ SAMPLE_F_FREE_PAGES, 4242 },
	{ SAMPLE_F_MEM_CACHED_KB, 777 },
	{ SAMPLE_F_BLOCKS_IN, 5 },
	{ SAMPLE_F_BLOCKS_OUT, 50 },
	{ SAMPLE_F_SWAP_IN, 1 },
	{ SAMPLE_F_SWAP_OUT, 2 },
	{ SAMPLE_F_SWAP_USED_KB, 300 },
	{ SAMPLE_F_LOAD1, 1.5 },
	{ SAMPLE_F_LOAD15, 0.25 },
};

int main(void)
{
	struct sample_raw *a = calloc(2, sizeof(*a)), *b = a + 1;
	struct sample_rates *r = calloc(1, sizeof(*r));
	struct sample_proc *pa, *pb;
	cJSON *j;
	char *txt;
	size_t i;

	a->monotonic_ns = 10000000000ull;
	b->monotonic_ns = 12000000000ull;
	b->realtime_ns = 1796081708308850673ull;
	a->cpu = (struct sample_cpu){ 100, 50, 800, 0, 0 };
	b->cpu = (struct sample_cpu){ 150, 75, 900, 25, 0 };
	a->ctxt = 1000, b->ctxt = 3000;
	a->intr = 500, b->intr = 1000;
	a->softirq = 500, b->softirq = 100;
	b->running = 3, b->blocked = 1, b->free_pages = 4242;
	b->mem_cached_kb = 777;
	a->pgpgin_kb = 10, b->pgpgin_kb = 20;
	a->pgpgout_kb = 0, b->pgpgout_kb = 100;
	a->pswpin = 0, b->pswpin = 2;
	a->pswpout = 6, b->pswpout = 10;
	b->swap_total_kb = 1000, b->swap_free_kb = 700;
	b->load1 = 1.5, b->load15 = 0.25;
	a->nifaces = 1;
	a->ifaces[0] = (struct sample_iface){ "eth0", 1000, 10, 2000, 20 };
	b->nifaces = 2;
	b->ifaces[0] = (struct sample_iface){ "new0", 500, 5, 500, 5 };
	b->ifaces[1] = (struct sample_iface){ "eth0", 5000, 30, 2000, 24 };
	a->nprocs = b->nprocs = 1;
	pa = &a->procs[0], pb = &b->procs[0];
	strcpy(pa->name, "x"), strcpy(pb->name, "x");
	pa->npids = 2;
	pa->pids[0] = (struct sample_pid){ 10, 5, 100, 1 };
	pa->pids[1] = (struct sample_pid){ 20, 7, 50, 1 };
	pb->npids = 3;
	pb->pids[0] = (struct sample_pid){ 10, 5, 300, 10 };
	pb->pids[1] = (struct sample_pid){ 20, 9, 60, 5 };	/* reused */
	pb->pids[2] = (struct sample_pid){ 30, 11, 40, 1 };	/* new */

	TAP_EQ_INT(sample_compute(a, b, 100, 4096, r), 0, "compute: rc 0");
	tap_ok(near(r->interval_s, 2), "interval_s %g", r->interval_s);
	for (i = 0; i < sizeof(wants) / sizeof(wants[0]); i++)
		tap_ok(near(r->v[wants[i].f], wants[i].want), "%s: %g, want "
		       "%g", sample_field_name(wants[i].f),
		       r->v[wants[i].f], wants[i].want);
	TAP_EQ_INT(r->nifaces, 2, "both interfaces reported");
	tap_ok(r->ifaces[0].rx_bytes_ps == 0 && r->ifaces[0].tx_packets_ps == 0,
	       "an interface absent before has zero rates");
	tap_ok(near(r->ifaces[1].rx_bytes_ps, 2000) &&
	       near(r->ifaces[1].rx_packets_ps, 10) &&
	       near(r->ifaces[1].tx_bytes_ps, 0) &&
	       near(r->ifaces[1].tx_packets_ps, 2), "eth0 rates");
	TAP_EQ_INT(r->procs[0].pids, 3, "process x: 3 pids");
	/* only pid 10 was followed in both: 200 ticks / 100 Hz / 2 s */
	tap_ok(near(r->procs[0].cpu_pct, 100), "process x: cpu %g %%, want "
	       "100 (reused and new pids add none)", r->procs[0].cpu_pct);
	tap_ok(near(r->procs[0].rss_kb, 16 * 4), "process x: rss %g kB",
	       r->procs[0].rss_kb);

	j = sample_rates_to_json(r, "h1");
	txt = j ? cJSON_PrintUnformatted(j) : NULL;
	tap_ok(txt && strstr(txt, "\"realtime_ns\":1796081708308850673"),
	       "realtime_ns printed as an exact integer");
	tap_ok(txt && strstr(txt, "\"schema\":\"benchboot.sample/1\"") &&
	       strstr(txt, "\"host\":\"h1\""), "schema and host");
	free(txt);
	cJSON_Delete(j);

	b->monotonic_ns = a->monotonic_ns;
	TAP_EQ_INT(sample_compute(a, b, 100, 4096, r), -EINVAL,
		   "no time between readings: -EINVAL");
	free(a);
	free(r);
	return tap_done();
}
