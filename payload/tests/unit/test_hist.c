/* test_hist.c: the histogram's bucket bounds, percentile error bound,
 * exact merge and JSON round trip, checked against brute force. */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/hist.h"
#include "tap.h"

/* Static: struct hist is ~26 KB, too big to scatter over the stack. */
static struct hist ha, hb, hc, hd;
static uint64_t vals[200000];

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The exact percentile, HdrHistogram's definition, from sorted values. */
static uint64_t exact_pct(const uint64_t *sorted, size_t n, double pct)
{
	size_t rank;

	if (pct <= 0)
		return sorted[0];
	rank = (size_t)ceil(pct / 100.0 * (double)n);
	if (rank < 1)
		rank = 1;
	if (rank > n)
		rank = n;
	return sorted[rank - 1];
}

static uint64_t xs_state = 0x9e3779b97f4a7c15ULL;
static uint64_t xs(void)
{
	xs_state ^= xs_state << 13;
	xs_state ^= xs_state >> 7;
	xs_state ^= xs_state << 17;
	return xs_state;
}

/* A log-uniform value in [1 us, 60 s]. */
static uint64_t logrand(void)
{
	double u = (double)(xs() >> 11) / 9007199254740992.0;

	return (uint64_t)exp(log(1e3) + u * (log(60e9) - log(1e3)));
}

static double relerr(uint64_t got, uint64_t want)
{
	return fabs((double)got - (double)want) / (double)want;
}

static void test_buckets(void)
{
	uint64_t v, lo, w, prev_end = 0;
	uint32_t i, bad = 0, gaps = 0;
	double worst = 0;

	/* Every value 1 us .. 60 s (stepping ~0.1 %) lands in a bucket
	 * that contains it and is at most 1/128 of it wide. */
	for (v = HIST_LOWEST_NS; v <= HIST_HIGHEST_NS; v += v / 1024 + 1) {
		hist_bucket_range(hist_index(v), &lo, &w);
		if (v < lo || v >= lo + w)
			bad++;
		if ((double)w / (double)lo > worst)
			worst = (double)w / (double)lo;
	}
	TAP_EQ_INT(bad, 0, "sweep 1us..60s: each value inside its bucket");
	tap_ok(worst <= 1.0 / 128 + 1e-12, "bucket width <= 1/128 of its "
	       "lower bound (worst %.5f)", worst);
	/* Buckets tile the range without gaps or overlap. */
	for (i = 0; i < HIST_NBUCKETS; i++) {
		hist_bucket_range(i, &lo, &w);
		if (i && lo != prev_end)
			gaps++;
		prev_end = lo + w;
	}
	TAP_EQ_INT(gaps, 0, "buckets are contiguous");
	TAP_EQ_INT(hist_index(0), 0, "0 ns clamps into the first bucket");
	TAP_EQ_INT(hist_index(999), 0, "999 ns clamps into the first bucket");
	TAP_EQ_INT(hist_index(HIST_LOWEST_NS), 0, "1 us is the first bucket");
	TAP_EQ_INT(hist_index(HIST_HIGHEST_NS), HIST_NBUCKETS - 1,
		   "60 s is the last bucket");
	TAP_EQ_INT(hist_index(UINT64_MAX), HIST_NBUCKETS - 1,
		   "huge values clamp into the last bucket");
}

static void test_record_basic(void)
{
	hist_init(&ha);
	TAP_EQ_INT(hist_percentile(&ha, 50), 0, "empty: p50 is 0");
	tap_ok(hist_mean(&ha) == 0, "empty: mean is 0");
	hist_record(&ha, 5000);
	hist_record(&ha, 7000);
	hist_record(&ha, 120000000000ULL);	/* 120 s: above range */
	hist_record(&ha, 10);			/* below range */
	TAP_EQ_INT(ha.count, 4, "record: count");
	TAP_EQ_INT(ha.min, 10, "record: min keeps the true value");
	TAP_EQ_INT(ha.max, 120000000000ULL, "record: max keeps the true value");
	tap_ok(ha.sum == 10 + 5000 + 7000 + 120e9, "record: exact sum");
	TAP_EQ_INT(ha.buckets[HIST_NBUCKETS - 1], 1,
		   "record: 120 s counted in the last bucket");
	TAP_EQ_INT(ha.buckets[0], 1, "record: 10 ns counted in the first");
	TAP_EQ_INT(hist_percentile(&ha, 0), 10, "p0 is min");
	TAP_EQ_INT(hist_percentile(&ha, 100), 120000000000ULL, "p100 is max");
	tap_ok(hist_mean(&ha) == (10 + 5000 + 7000 + 120e9) / 4, "mean");
}

/* Random log-uniform data: every percentile within 1 % of brute force. */
static void test_percentiles(void)
{
	static const double pcts[] = { 0.1, 1, 10, 25, 50, 75, 90, 99, 99.9,
				       99.99, 100 };
	size_t n = sizeof(vals) / sizeof(vals[0]), i;
	double worst = 0;
	uint64_t got, want;

	hist_init(&ha);
	for (i = 0; i < n; i++) {
		vals[i] = logrand();
		hist_record(&ha, vals[i]);
	}
	qsort(vals, n, sizeof(vals[0]), cmp_u64);
	for (i = 0; i < sizeof(pcts) / sizeof(pcts[0]); i++) {
		got = hist_percentile(&ha, pcts[i]);
		want = exact_pct(vals, n, pcts[i]);
		if (relerr(got, want) > worst)
			worst = relerr(got, want);
		if (!tap_ok(relerr(got, want) <= 0.01, "p%g within 1%% "
			    "(got %llu, exact %llu)", pcts[i],
			    (unsigned long long)got, (unsigned long long)want))
			continue;
	}
	tap_ok(worst <= 1.0 / 256 + 1e-9, "worst percentile error %.5f <= "
	       "half a bucket (1/256)", worst);
	/* Single values swept over the whole range: p50 of a histogram
	 * holding one value v is within 1 % of v. */
	{
		uint64_t v, bad = 0, worstv = 0;
		double w1 = 0;

		for (v = HIST_LOWEST_NS; v <= HIST_HIGHEST_NS;
		     v += v / 97 + 1) {
			hist_init(&hb);
			hist_record(&hb, v);
			hist_record(&hb, v);
			hist_record(&hb, HIST_HIGHEST_NS);
			got = hist_percentile(&hb, 50);
			if (relerr(got, v) > w1) {
				w1 = relerr(got, v);
				worstv = v;
			}
			if (relerr(got, v) > 0.01)
				bad++;
		}
		tap_ok(bad == 0, "sweep 1us..60s: p50 within 1%% (worst "
		       "%.5f at %llu ns)", w1, (unsigned long long)worstv);
	}
}

static int hist_equal(const struct hist *a, const struct hist *b)
{
	return a->count == b->count && a->min == b->min &&
	       a->max == b->max && a->sum == b->sum &&
	       memcmp(a->buckets, b->buckets, sizeof(a->buckets)) == 0;
}

static void test_merge(void)
{
	size_t i;

	/* Integer-valued sums stay exact in a double below 2^53. */
	hist_init(&ha);
	hist_init(&hb);
	hist_init(&hc);
	for (i = 0; i < 50000; i++) {
		uint64_t v = logrand() / 1000;

		hist_record(i % 3 ? &ha : &hb, v);
		hist_record(&hc, v);
	}
	hd = ha;
	hist_merge(&hd, &hb);
	tap_ok(hist_equal(&hd, &hc), "merge(a, b) equals recording all "
	       "into one");
	hist_init(&hd);
	hist_merge(&hd, &hb);
	hist_merge(&hd, &ha);
	tap_ok(hist_equal(&hd, &hc), "merge into empty, other order, equal");
	hist_init(&hb);
	hd = ha;
	hist_merge(&hd, &hb);
	tap_ok(hist_equal(&hd, &ha), "merging an empty histogram is a no-op");
	hist_init(&hd);
	hist_record(&hb, 3);
	hist_merge(&hd, &hb);
	TAP_EQ_INT(hd.min, 3, "merge into empty takes src's min");
}

static void test_json(void)
{
	char err[200], *txt;
	cJSON *j, *back;
	size_t i;
	int rc;

	hist_init(&ha);
	for (i = 0; i < 20000; i++)
		hist_record(&ha, logrand());
	hist_record(&ha, 1);
	hist_record(&ha, 100000000000ULL);
	j = hist_to_json(&ha);
	if (!tap_ok(j != NULL, "to_json"))
		return;
	TAP_EQ_STR(cJSON_GetObjectItem(j, "unit")->valuestring, "ns", "unit");
	TAP_EQ_INT(cJSON_GetObjectItem(j, "p50")->valuedouble,
		   hist_percentile(&ha, 50), "p50 field");
	txt = cJSON_PrintUnformatted(j);
	back = cJSON_Parse(txt);
	rc = hist_from_json(&hb, back, err, sizeof(err));
	TAP_EQ_INT(rc, 0, "from_json of to_json text");
	tap_ok(hist_equal(&ha, &hb), "round trip through text is exact");
	free(txt);
	cJSON_Delete(back);
	cJSON_Delete(j);

	hist_init(&ha);
	j = hist_to_json(&ha);
	rc = hist_from_json(&hb, j, err, sizeof(err));
	tap_ok(rc == 0 && hb.count == 0, "empty histogram round trip");
	cJSON_Delete(j);
}

/* Malformed histograms: each rejected with a message naming the field. */
static void test_json_bad(void)
{
	static const struct { const char *json, *needle; } cases[] = {
		{ "[]", "not a JSON object" },
		{ "{\"unit\":\"us\"}", "\"unit\"" },
		{ "{\"unit\":\"ns\",\"lowest\":1,\"highest\":60000000000,"
		  "\"sub_buckets\":128}", "\"lowest\"" },
		{ "{\"unit\":\"ns\",\"lowest\":1000,\"highest\":60000000000,"
		  "\"sub_buckets\":64}", "\"sub_buckets\"" },
		{ "{\"unit\":\"ns\",\"lowest\":1000,\"highest\":60000000000,"
		  "\"sub_buckets\":128,\"min\":1,\"max\":2,\"sum\":3,"
		  "\"buckets\":[]}", "\"count\"" },
		{ "{\"unit\":\"ns\",\"lowest\":1000,\"highest\":60000000000,"
		  "\"sub_buckets\":128,\"count\":-1,\"min\":1,\"max\":2,"
		  "\"sum\":3,\"buckets\":[]}", "\"count\"" },
		{ "{\"unit\":\"ns\",\"lowest\":1000,\"highest\":60000000000,"
		  "\"sub_buckets\":128,\"count\":1,\"min\":1,\"max\":2,"
		  "\"buckets\":[[0,1]]}", "\"sum\"" },
		{ "{\"unit\":\"ns\",\"lowest\":1000,\"highest\":60000000000,"
		  "\"sub_buckets\":128,\"count\":1,\"min\":1,\"max\":2,"
		  "\"sum\":3,\"buckets\":[[99999,1]]}", "out of range" },
		{ "{\"unit\":\"ns\",\"lowest\":1000,\"highest\":60000000000,"
		  "\"sub_buckets\":128,\"count\":2,\"min\":1,\"max\":2,"
		  "\"sum\":3,\"buckets\":[[5,1],[5,1]]}", "buckets[1]" },
		{ "{\"unit\":\"ns\",\"lowest\":1000,\"highest\":60000000000,"
		  "\"sub_buckets\":128,\"count\":2,\"min\":1,\"max\":2,"
		  "\"sum\":3,\"buckets\":[[5,1],[6]]}", "buckets[1]" },
		{ "{\"unit\":\"ns\",\"lowest\":1000,\"highest\":60000000000,"
		  "\"sub_buckets\":128,\"count\":3,\"min\":1,\"max\":2,"
		  "\"sum\":3,\"buckets\":[[5,1]]}", "add up" },
		{ "{\"unit\":\"ns\",\"lowest\":1000,\"highest\":60000000000,"
		  "\"sub_buckets\":128,\"count\":1,\"min\":5,\"max\":2,"
		  "\"sum\":3,\"buckets\":[[5,1]]}", "\"min\"" },
	};
	char err[200];
	size_t i;
	cJSON *j;
	int rc;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		err[0] = 0;
		j = cJSON_Parse(cases[i].json);
		rc = hist_from_json(&ha, j, err, sizeof(err));
		if (!tap_ok(rc == -EINVAL && strstr(err, cases[i].needle),
			    "bad histogram %zu rejected naming %s", i,
			    cases[i].needle))
			printf("#   rc %d, err \"%s\"\n", rc, err);
		cJSON_Delete(j);
	}
}

/* hist_stddev: an estimate within 1 % of the exact standard deviation
 * for spreads well above a bucket's width; 0 for fewer than two values. */
static void test_stddev(void)
{
	static const struct {
		const char *name;
		uint64_t lo, step;	/* values lo, lo + step, ... */
		int n;
	} c[] = {
		{ "uniform 1..2 ms", 1000000, 1000, 1001 },
		{ "uniform 10 us..10 ms", 10000, 10000, 1000 },
		{ "two values 1 ms and 3 ms", 1000000, 2000000, 2 },
		{ "wide: 5 us..50 s", 5000, 50000000, 1000 },
	};
	struct hist h;
	size_t i;
	int k;

	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		double mean = 0, sq = 0, want, got;

		hist_init(&h);
		for (k = 0; k < c[i].n; k++) {
			hist_record(&h, c[i].lo + (uint64_t)k * c[i].step);
			mean += (double)(c[i].lo + (uint64_t)k * c[i].step);
		}
		mean /= c[i].n;
		for (k = 0; k < c[i].n; k++) {
			double d = (double)(c[i].lo + (uint64_t)k * c[i].step) -
				   mean;

			sq += d * d;
		}
		want = sqrt(sq / c[i].n);
		got = hist_stddev(&h);
		tap_ok(fabs(got - want) <= want * 0.01,
		       "stddev: %s: %.0f ns within 1 %% of %.0f", c[i].name,
		       got, want);
	}
	hist_init(&h);
	tap_ok(hist_stddev(&h) == 0, "stddev: empty is 0");
	hist_record(&h, 5000);
	tap_ok(hist_stddev(&h) == 0, "stddev: one value is 0");
	hist_record(&h, 5000);
	tap_ok(hist_stddev(&h) == 0, "stddev: equal values are 0");
}

int main(void)
{
	test_buckets();
	test_stddev();
	test_record_basic();
	test_percentiles();
	test_merge();
	test_json();
	test_json_bad();
	return tap_done();
}
