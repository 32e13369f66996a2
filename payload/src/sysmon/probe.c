/* sysmon/probe.c: `benchboot probe`: N&K's fairness probe.  Slot k of the run is
 * due at t0 + k/rate; the probe sleeps to each due time (absolute, so
 * lateness never accumulates), does one unit, and skips the slots whose
 * time passed while it waited: those are the lost units. */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "lib/hist.h"
#include "proto/workload_record.h"
#include "sysmon/probe.h"
#include "lib/stop.h"
#include "lib/util.h"

#define PROBE_NS 1000000000ULL

uint64_t probe_deadline(uint64_t t0, uint64_t k, uint64_t rate)
{
	return t0 + (k / rate) * PROBE_NS + (k % rate) * PROBE_NS / rate;
}

uint64_t probe_next_slot(uint64_t t0, uint64_t now, uint64_t rate)
{
	uint64_t el = now - t0;
	uint64_t k = (el / PROBE_NS) * rate + (el % PROBE_NS) * rate / PROBE_NS;

	/* k is the slot due at or before now (integer division rounds the
	 * same way in both directions); step past it */
	while (probe_deadline(t0, k, rate) <= now)
		k++;
	return k;
}

int probe_stats(const uint64_t *done, uint64_t n, uint64_t ideal,
		double *stddev_pct, double *lost_pct, double *worst_pct)
{
	double sq = 0, lost = 0, worst = 0;
	uint64_t i;

	*stddev_pct = *lost_pct = *worst_pct = 0;
	if (ideal == 0)
		return -EINVAL;
	if (n == 0)
		return 0;
	for (i = 0; i < n; i++) {
		double d = ((double)done[i] - (double)ideal) / (double)ideal;

		sq += d * d;
		lost += (double)ideal - (double)done[i];
		if (-d > worst)
			worst = -d;
	}
	*stddev_pct = 100.0 * sqrt(sq / (double)n);
	*lost_pct = 100.0 * lost / ((double)ideal * (double)n);
	*worst_pct = 100.0 * worst;
	return 0;
}

uint64_t probe_work(uint64_t seed, uint64_t iters)
{
	uint64_t x = seed | 1;

	/* xorshift64: each step depends on the last, so the loop can be
	 * neither vectorised nor computed in closed form */
	while (iters--) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
	}
	return x;
}

struct probe_opts {
	uint64_t rate, seconds, work;
	int json;
	char host[256];
};

/* where the work's result goes, so the compiler must compute it */
static volatile uint64_t probe_sink;

/* --duration: whole seconds, at least 1 (dst: o->seconds). */
static int probe_opt_duration(void *dst, const char *value, char *err,
			      size_t errlen)
{
	uint64_t ns;

	if (util_parse_duration(value, &ns) != 0 || ns < PROBE_NS ||
	    ns % PROBE_NS != 0)
		return -EINVAL;
	*(uint64_t *)dst = ns / PROBE_NS;
	return 0;
}

#define PO(m) OPT_AT(struct probe_opts, m)

static const struct opt probe_opt_tab[] = {
	{ .name = "rate", .key = 'r', .kind = OPT_U64, .off = PO(rate),
	  .min = 1, .max = 100000,
	  .bad = "--rate '%s': want 1..100000 units per second", .arg = "N",
	  .help = "work units per second to attempt", .def = "1000",
	  .remote = 1 },
	{ .name = "duration", .key = 'd', .kind = OPT_FN,
	  .off = PO(seconds), .fn = probe_opt_duration,
	  .bad = "--duration '%s': want whole seconds, at least 1s",
	  .arg = "D", .help = "run this long, in whole seconds",
	  .def = "until SIGINT or SIGTERM", .remote = 1 },
	{ .name = "count", .key = 'c', .kind = OPT_U64, .off = PO(seconds),
	  .min = 1, .max = 100000000,
	  .bad = "--count '%s': want seconds, at least 1", .arg = "S",
	  .help = "the same as --duration, in seconds", .remote = 1 },
	{ .name = "work", .key = 'w', .kind = OPT_U64, .off = PO(work),
	  .max = 100000000, .bad = "--work '%s': want 0..100M iterations",
	  .arg = "I", .help = "iterations per unit (1000 is about 1 us)",
	  .def = "1000", .remote = 1 },
	{ .name = "json", .key = 'j', .kind = OPT_FLAG, .off = PO(json),
	  .val = 1, .help = "JSON lines: one record per second, then a "
	  "summary", .remote = 1 },
};

const struct optset probe_optset = OPTSET("probe", probe_opt_tab,
	"[--rate N] [--duration D | --count S] [--work I] [--json]", NULL);

static int probe_parse_opts(int argc, char **argv, struct probe_opts *o)
{
	int argi, rc;

	o->rate = 1000;
	o->work = 1000;
	rc = opt_main(&probe_optset, o, argc, argv, &argi);
	if (rc != 0)
		return rc > 0 ? 0 : 2;
	if (argi != argc) {
		util_err("probe", EINVAL, "unexpected argument '%s'",
			 argv[argi]);
		opt_usage(&probe_optset, stderr);
		return 2;
	}
	util_hostname(o->host, sizeof(o->host));
	return -1;
}

/* One finished second, as a line. */
static void probe_print_second(const struct probe_opts *o, uint64_t sec,
			       uint64_t real, uint64_t mono, uint64_t done,
			       uint64_t late_max)
{
	double dev = 100.0 * ((double)done - (double)o->rate) /
		     (double)o->rate;

	if (o->json)
		printf("{\"schema\":\"benchboot.probe/1\",\"host\":\"%s\",\"t\":{\"realtime_ns\":%llu,\"monotonic_ns\":%llu},\"second\":%llu,\"ideal\":%llu,\"done\":%llu,\"lost\":%llu,\"deviation_pct\":%.3f,\"late_max_ns\":%llu}\n",
		       o->host, (unsigned long long)real,
		       (unsigned long long)mono, (unsigned long long)sec,
		       (unsigned long long)o->rate, (unsigned long long)done,
		       (unsigned long long)(o->rate - done), dev,
		       (unsigned long long)late_max);
	else
		printf("%6llu %8llu %8llu %8.2f %12.1f\n",
		       (unsigned long long)sec, (unsigned long long)done,
		       (unsigned long long)(o->rate - done), dev,
		       (double)late_max / 1000.0);
	fflush(stdout);
}

static int probe_print_summary(const struct probe_opts *o, uint64_t real0,
			       uint64_t t0, const uint64_t *done, uint64_t n,
			       const struct hist *late, uint64_t sleep_errors)
{
	double sd, lost, worst;
	uint64_t i, units = 0;
	cJSON *rec, *x;
	char *txt, num[24];

	probe_stats(done, n, o->rate, &sd, &lost, &worst);
	for (i = 0; i < n; i++)
		units += done[i];
	if (!o->json) {
		printf("%llu s at %llu units/s: stddev from ideal %.2f %%, lost %.2f %%, worst second %.2f %%\n"
		       "wake-up lateness: p50 %.1f us, p99 %.1f us, p99.9 %.1f us, max %.1f us\n",
		       (unsigned long long)n, (unsigned long long)o->rate, sd,
		       lost, worst, hist_percentile(late, 50) / 1e3,
		       hist_percentile(late, 99) / 1e3,
		       hist_percentile(late, 99.9) / 1e3,
		       (double)late->max / 1e3);
		return 0;
	}
	rec = workload_record_new("probe", o->host);
	if (!rec)
		return -ENOMEM;
	x = cJSON_AddObjectToObject(rec, "params");
	cJSON_AddNumberToObject(x, "rate", (double)o->rate);
	cJSON_AddNumberToObject(x, "duration_s", (double)o->seconds);
	cJSON_AddNumberToObject(x, "work", (double)o->work);
	x = cJSON_AddObjectToObject(rec, "start");
	/* integers: nanosecond clocks exceed a double's 53 bits */
	snprintf(num, sizeof(num), "%llu", (unsigned long long)real0);
	cJSON_AddRawToObject(x, "realtime_ns", num);
	snprintf(num, sizeof(num), "%llu", (unsigned long long)t0);
	cJSON_AddRawToObject(x, "monotonic_ns", num);
	cJSON_AddNumberToObject(rec, "elapsed_s", (double)n);
	x = cJSON_AddObjectToObject(rec, "counters");
	cJSON_AddNumberToObject(x, "seconds", (double)n);
	cJSON_AddNumberToObject(x, "ideal_units", (double)(n * o->rate));
	cJSON_AddNumberToObject(x, "units", (double)units);
	cJSON_AddNumberToObject(x, "lost_units", (double)(n * o->rate -
							  units));
	x = cJSON_AddObjectToObject(rec, "errors");
	cJSON_AddNumberToObject(x, "sleep", (double)sleep_errors);
	cJSON_AddItemToObject(rec, "latency", hist_to_json(late));
	x = cJSON_AddObjectToObject(rec, "figures");
	cJSON_AddNumberToObject(x, "stddev_pct", sd);
	cJSON_AddNumberToObject(x, "lost_pct", lost);
	cJSON_AddNumberToObject(x, "worst_second_lost_pct", worst);
	txt = cJSON_PrintUnformatted(rec);
	cJSON_Delete(rec);
	if (!txt)
		return -ENOMEM;
	printf("%s\n", txt);
	fflush(stdout);
	free(txt);
	return 0;
}

/* One probe run: units done per second, and the lateness seen. */
struct probe_run {
	const struct probe_opts *o;
	uint64_t *done;			/* units per second, cap of them */
	uint64_t cap, nsec;		/* nsec: seconds reported */
	uint64_t t0, real0;		/* slot 0, monotonic and real */
	uint64_t late_max;		/* worst lateness this second */
	uint64_t sleep_errors;
	struct hist *late;
};

/* Reports every second before second s (a stall may complete several,
 * the later ones empty), growing done as needed.  Returns 0, 1 when the
 * requested number of seconds is reached, or -ENOMEM. */
static int probe_flush(struct probe_run *r, uint64_t s)
{
	const struct probe_opts *o = r->o;
	uint64_t *nd;

	while (r->nsec < s) {
		probe_print_second(o, r->nsec, r->real0 + r->nsec * PROBE_NS,
				   r->t0 + r->nsec * PROBE_NS,
				   r->done[r->nsec], r->late_max);
		r->late_max = 0;
		r->nsec++;
		if (o->seconds && r->nsec == o->seconds)
			return 1;
		if (r->nsec < r->cap)
			continue;
		nd = realloc(r->done, 2 * r->cap * sizeof(*nd));
		if (!nd)
			return -ENOMEM;
		memset(nd + r->cap, 0, r->cap * sizeof(*nd));
		r->done = nd;
		r->cap *= 2;
	}
	return 0;
}

/* Sleeps to each slot's deadline and does its unit of work, until a
 * signal or the requested number of seconds.  Returns 0 or a negative
 * errno (reported). */
static int probe_loop(struct probe_run *r)
{
	const struct probe_opts *o = r->o;
	uint64_t k = 0, sink = 0;
	int rc;

	while (!stop_requested) {
		uint64_t d = probe_deadline(r->t0, k, o->rate), w, s;
		struct timespec ts;

		ts.tv_sec = (time_t)(d / PROBE_NS);
		ts.tv_nsec = (long)(d % PROBE_NS);
		rc = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts,
				     NULL);
		if (rc == EINTR)
			continue;	/* stop_requested decides */
		if (rc != 0 && ++r->sleep_errors > 10) {
			util_err("probe", rc, "clock_nanosleep: %s",
				 strerror(rc));
			return -rc;
		}
		w = util_mono_ns();
		s = k / o->rate;
		rc = probe_flush(r, s);
		if (rc < 0) {
			util_err("probe", ENOMEM, "out of memory");
			return rc;
		}
		if (rc > 0)
			break;
		hist_record(r->late, w - d);
		if (w - d > r->late_max)
			r->late_max = w - d;
		sink += probe_work(k, o->work);
		r->done[s]++;
		k = probe_next_slot(r->t0, util_mono_ns(), o->rate);
	}
	probe_sink = sink;
	return 0;
}

int probe_main(int argc, char **argv)
{
	struct probe_opts o = { 0 };
	struct probe_run r = { .o = &o, .cap = 64 };
	int rc, ret = 1;

	rc = probe_parse_opts(argc, argv, &o);
	if (rc >= 0)
		return rc;
	if (o.seconds)
		r.cap = o.seconds;
	r.done = calloc(r.cap, sizeof(*r.done));
	r.late = malloc(sizeof(*r.late));
	if (!r.done || !r.late) {
		util_err("probe", ENOMEM, "out of memory");
		goto out;
	}
	hist_init(r.late);
	stop_on_signals();
	if (!o.json)
		printf("second     done     lost  dev_pct  late_max_us\n");

	/* start on the next whole millisecond, a moment from now */
	r.t0 = (util_mono_ns() / 1000000 + 2) * 1000000;
	r.real0 = util_real_ns() + (r.t0 - util_mono_ns());
	rc = probe_loop(&r);
	if (rc != 0)
		goto out;
	/* a partial second is not reported: its ideal is not o.rate */
	if (probe_print_summary(&o, r.real0, r.t0, r.done, r.nsec, r.late,
				r.sleep_errors) != 0) {
		util_err("probe", ENOMEM, "out of memory");
		goto out;
	}
	ret = 0;
out:
	free(r.done);
	free(r.late);
	return ret;
}
