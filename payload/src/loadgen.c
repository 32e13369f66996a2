/* loadgen.c: pacing, workload record header and summary formatting
 * shared by the sql and smtp load generators. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "bb_pins.h"
#include "loadgen.h"

void lg_pace_init(struct lg_pace *p, uint64_t start_ns, double rate)
{
	p->start_ns = start_ns;
	p->interval_ns = rate > 0 ? 1e9 / rate : 0;
	p->k = 0;
}

uint64_t lg_share(uint64_t total, unsigned n, unsigned i)
{
	return total / n + (i < total % n ? 1 : 0);
}

cJSON *lg_record_new(const char *workload, uint64_t start_real_ns,
		     uint64_t start_mono_ns, double elapsed_s)
{
	cJSON *rec = cJSON_CreateObject(), *tool, *start;
	char host[256] = "unknown";

	if (!rec)
		return NULL;
	gethostname(host, sizeof(host) - 1);
	cJSON_AddStringToObject(rec, "schema", "benchboot.workload/1");
	cJSON_AddStringToObject(rec, "workload", workload);
	tool = cJSON_AddObjectToObject(rec, "tool");
	if (tool) {
		cJSON_AddStringToObject(tool, "name", "benchboot");
		cJSON_AddStringToObject(tool, "version", BB_VERSION);
		cJSON_AddStringToObject(tool, "arch", BB_ARCH);
	}
	cJSON_AddStringToObject(rec, "host", host);
	start = cJSON_AddObjectToObject(rec, "start");
	if (start) {
		/* Doubles hold integers exactly up to 2^53; ns since 1970
		 * exceed that, so the value may be off by a few hundred ns,
		 * which no consumer of a start time cares about. */
		cJSON_AddNumberToObject(start, "realtime_ns",
					(double)start_real_ns);
		cJSON_AddNumberToObject(start, "monotonic_ns",
					(double)start_mono_ns);
	}
	cJSON_AddNumberToObject(rec, "elapsed_s", elapsed_s);
	if (!tool || !start) {
		cJSON_Delete(rec);
		return NULL;
	}
	return rec;
}

int lg_record_print(cJSON *rec)
{
	char *s = cJSON_PrintUnformatted(rec);

	cJSON_Delete(rec);
	if (!s)
		return -ENOMEM;
	printf("%s\n", s);
	fflush(stdout);
	free(s);
	return 0;
}

const char *lg_fmt_ns(char *buf, size_t len, double ns)
{
	if (ns < 1e3)
		snprintf(buf, len, "%.0fns", ns);
	else if (ns < 1e6)
		snprintf(buf, len, "%.1fus", ns / 1e3);
	else if (ns < 1e9)
		snprintf(buf, len, "%.2fms", ns / 1e6);
	else
		snprintf(buf, len, "%.3fs", ns / 1e9);
	return buf;
}

void lg_print_hist(FILE *out, const char *label, const struct hist *h)
{
	char a[32], b[32], c[32], d[32], e[32], f[32];

	if (h->count == 0) {
		fprintf(out, "  %-11s no samples\n", label);
		return;
	}
	fprintf(out, "  %-11s mean %s  p50 %s  p90 %s  p99 %s  "
		"p99.9 %s  max %s\n", label,
		lg_fmt_ns(a, sizeof(a), hist_mean(h)),
		lg_fmt_ns(b, sizeof(b), (double)hist_percentile(h, 50)),
		lg_fmt_ns(c, sizeof(c), (double)hist_percentile(h, 90)),
		lg_fmt_ns(d, sizeof(d), (double)hist_percentile(h, 99)),
		lg_fmt_ns(e, sizeof(e), (double)hist_percentile(h, 99.9)),
		lg_fmt_ns(f, sizeof(f), (double)h->max));
}

void lg_print_latency(FILE *out, const struct hist *h)
{
	lg_print_hist(out, "latency", h);
}
