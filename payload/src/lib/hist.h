/* lib/hist.h: log-linear latency histogram (as HdrHistogram) shared by every
 * load generator, the probe and the controller; merges exactly. */
#ifndef BB_HIST_H
#define BB_HIST_H

#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

/* Values are nanoseconds.  Below HIST_LOWEST_NS they land in the first
 * bucket, above HIST_HIGHEST_NS in the last one (still counted, and still
 * in min/max/sum with their true value). */
#define HIST_LOWEST_NS 1000ULL
#define HIST_HIGHEST_NS 60000000000ULL
/* Sub-buckets per power of two: a bucket is at most 1/128 of its lower
 * bound wide, so its midpoint is within 0.4 % of any value in it. */
#define HIST_SUB_BITS 7
#define HIST_SUB_BUCKETS (1u << HIST_SUB_BITS)

/* Raw index of a clamped value v: (floor(log2 v) - HIST_SUB_BITS) * 128
 * plus v's top 8 bits (128..255); the first HIST_RAW_FIRST raw indexes
 * are below HIST_LOWEST_NS and not stored. */
#define HIST_RAW_(v) \
	((uint32_t)((63 - __builtin_clzll(v) - HIST_SUB_BITS) * \
		    HIST_SUB_BUCKETS + \
		    ((v) >> (63 - __builtin_clzll(v) - HIST_SUB_BITS))))
#define HIST_RAW_FIRST HIST_RAW_(HIST_LOWEST_NS)
#define HIST_NBUCKETS (HIST_RAW_(HIST_HIGHEST_NS) - HIST_RAW_FIRST + 1)

/* Plain struct: embed one per thread, no allocation.  min and max are 0
 * while count is 0; sum is the exact sum of the recorded values. */
struct hist {
	uint64_t count, min, max;
	double sum;
	uint64_t buckets[HIST_NBUCKETS];
};

/* Empties h. */
void hist_init(struct hist *h);

/* Bucket index (0 .. HIST_NBUCKETS-1) of a value in ns, after clamping. */
static inline uint32_t hist_index(uint64_t ns)
{
	uint64_t v = ns;

	if (v < HIST_LOWEST_NS)
		v = HIST_LOWEST_NS;
	else if (v > HIST_HIGHEST_NS)
		v = HIST_HIGHEST_NS;
	return HIST_RAW_(v) - HIST_RAW_FIRST;
}

/* Lowest value (ns) that lands in bucket idx and the bucket's width; the
 * first bucket starts at its raw lower bound, just under 1 us. */
void hist_bucket_range(uint32_t idx, uint64_t *lo, uint64_t *width);

/* Records one value.  Hot path: O(1), no allocation, no atomics; h must
 * belong to the calling thread. */
static inline void hist_record(struct hist *h, uint64_t ns)
{
	h->buckets[hist_index(ns)]++;
	if (ns < h->min || h->count == 0)
		h->min = ns;
	if (ns > h->max)
		h->max = ns;
	h->count++;
	h->sum += (double)ns;
}

/* Adds src to dst exactly (buckets, count, min, max, sum). */
void hist_merge(struct hist *dst, const struct hist *src);

/* The value at percentile pct (0..100; clamped) as HdrHistogram counts it:
 * the smallest recorded value such that pct % of the values are <= it,
 * returned as its bucket's midpoint clamped to [min, max], so within 1 %
 * of the true value for values in [HIST_LOWEST_NS, HIST_HIGHEST_NS].
 * pct 0 gives min, pct 100 gives max.  0 when h is empty. */
uint64_t hist_percentile(const struct hist *h, double pct);

/* sum / count, or 0 when h is empty. */
double hist_mean(const struct hist *h);

/* The standard deviation of the recorded values (population: over
 * count), an estimate: each value taken as its bucket's midpoint clamped
 * to [min, max] (within 0.4 % of it), around the exact mean; values
 * clamped into the last bucket (over HIST_HIGHEST_NS) count as its
 * midpoint.  0 when h holds fewer than two values. */
double hist_stddev(const struct hist *h);

/* A new cJSON object in the docs/result-schema.md "Histogram" shape
 * (non-empty buckets only, plus derived p50/p90/p99/p999 and stddev, the
 * estimate above); the caller owns
 * it (cJSON_Delete).  NULL when out of memory. */
cJSON *hist_to_json(const struct hist *h);

/* Fills h from an object in that shape (the pNN fields are ignored).
 * Returns 0, or -EINVAL with a message in err (errlen bytes, may be 0)
 * naming the bad field: a missing or non-numeric field, another unit or
 * bucket layout, a bucket index out of range or out of order, or bucket
 * counts that do not add up to count.  h is undefined after a failure. */
int hist_from_json(struct hist *h, const cJSON *j, char *err, size_t errlen);

#endif
