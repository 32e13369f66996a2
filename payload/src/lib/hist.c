/* lib/hist.c: the log-linear latency histogram: merging, percentiles and the
 * JSON form that lets records from many clients merge exactly. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "lib/hist.h"
#include "lib/json_int.h"
#include "lib/util.h"

void hist_init(struct hist *h)
{
	memset(h, 0, sizeof(*h));
}

void hist_bucket_range(uint32_t idx, uint64_t *lo, uint64_t *width)
{
	uint32_t raw = idx + HIST_RAW_FIRST;
	unsigned shift = raw / HIST_SUB_BUCKETS - 1;
	uint64_t top = raw % HIST_SUB_BUCKETS + HIST_SUB_BUCKETS;

	/* raw = (e - 7) * 128 + top with top in [128, 256), so
	 * raw / 128 - 1 = e - 7, the bucket's shift. */
	*lo = top << shift;
	*width = 1ULL << shift;
}

void hist_merge(struct hist *dst, const struct hist *src)
{
	uint32_t i;

	if (src->count == 0)
		return;
	for (i = 0; i < HIST_NBUCKETS; i++)
		dst->buckets[i] += src->buckets[i];
	if (dst->count == 0 || src->min < dst->min)
		dst->min = src->min;
	if (src->max > dst->max)
		dst->max = src->max;
	dst->count += src->count;
	dst->sum += src->sum;
}

uint64_t hist_percentile(const struct hist *h, double pct)
{
	uint64_t rank, seen = 0, lo, width, v;
	uint32_t i;

	if (h->count == 0)
		return 0;
	if (!(pct > 0))		/* also NaN */
		return h->min;
	if (pct >= 100)
		return h->max;
	rank = (uint64_t)ceil(pct / 100.0 * (double)h->count);
	if (rank < 1)
		rank = 1;
	for (i = 0; i < HIST_NBUCKETS; i++) {
		seen += h->buckets[i];
		if (seen >= rank)
			break;
	}
	if (i == HIST_NBUCKETS)	/* buckets disagree with count */
		return h->max;
	hist_bucket_range(i, &lo, &width);
	v = lo + width / 2;
	if (v < h->min)
		v = h->min;
	if (v > h->max)
		v = h->max;
	return v;
}

double hist_mean(const struct hist *h)
{
	return h->count ? h->sum / (double)h->count : 0;
}

double hist_stddev(const struct hist *h)
{
	double mean = hist_mean(h), sq = 0, d;
	uint64_t lo, width, v;
	uint32_t i;

	if (h->count < 2)
		return 0;
	for (i = 0; i < HIST_NBUCKETS; i++) {
		if (!h->buckets[i])
			continue;
		hist_bucket_range(i, &lo, &width);
		v = lo + width / 2;
		v = v < h->min ? h->min : v > h->max ? h->max : v;
		d = (double)v - mean;
		sq += d * d * (double)h->buckets[i];
	}
	return sqrt(sq / (double)h->count);
}

/* Counts and nanoseconds as exact integers (json_int.h); percentiles are
 * integral values of a bucket too. */
static int add_num(cJSON *o, const char *name, double v)
{
	return cJSON_AddNumberToObject(o, name, v) ? 0 : -ENOMEM;
}

static int add_int(cJSON *o, const char *name, uint64_t v)
{
	return json_int_add(o, name, (int64_t)v) ? 0 : -ENOMEM;
}

cJSON *hist_to_json(const struct hist *h)
{
	static const struct { const char *name; double pct; } pcts[] = {
		{ "p50", 50 }, { "p90", 90 }, { "p99", 99 }, { "p999", 99.9 },
	};
	cJSON *o = cJSON_CreateObject(), *arr, *pair;
	uint32_t i;
	size_t k;

	if (!o || !cJSON_AddStringToObject(o, "unit", "ns"))
		goto err;
	if (add_num(o, "lowest", HIST_LOWEST_NS) ||
	    add_num(o, "highest", HIST_HIGHEST_NS) ||
	    add_num(o, "sub_buckets", HIST_SUB_BUCKETS) ||
	    add_int(o, "count", h->count) || add_int(o, "min", h->min) ||
	    add_int(o, "max", h->max) || add_num(o, "sum", h->sum))
		goto err;
	arr = cJSON_AddArrayToObject(o, "buckets");
	if (!arr)
		goto err;
	for (i = 0; i < HIST_NBUCKETS; i++) {
		if (!h->buckets[i])
			continue;
		pair = cJSON_CreateArray();
		if (!pair)
			goto err;
		cJSON_AddItemToArray(arr, pair);
		if (!cJSON_AddItemToArray(pair, cJSON_CreateNumber(i)) ||
		    !cJSON_AddItemToArray(pair,
					  json_int_create((int64_t)h->buckets[i])))
			goto err;
	}
	for (k = 0; k < sizeof(pcts) / sizeof(pcts[0]); k++)
		if (add_num(o, pcts[k].name, hist_percentile(h, pcts[k].pct)))
			goto err;
	if (add_num(o, "stddev", floor(hist_stddev(h) + 0.5)))
		goto err;
	return o;
err:
	cJSON_Delete(o);
	return NULL;
}

/* A JSON number that is a non-negative 64-bit integer, read exactly. */
static int get_uint(const cJSON *j, uint64_t *out)
{
	int64_t v;

	if (json_int_get(j, &v) != 0 || v < 0)
		return -EINVAL;
	*out = (uint64_t)v;
	return 0;
}

static int get_field(const cJSON *j, const char *name, uint64_t *out,
		     char *err, size_t errlen)
{
	const cJSON *f = cJSON_GetObjectItemCaseSensitive(j, name);

	if (!f)
		return util_fail(err, errlen, -EINVAL,
				 "histogram: missing field \"%s\"", name);
	if (get_uint(f, out) != 0)
		return util_fail(err, errlen, -EINVAL,
				 "histogram: field \"%s\" is not a non-negative integer",
				 name);
	return 0;
}

int hist_from_json(struct hist *h, const cJSON *j, char *err, size_t errlen)
{
	static const struct { const char *name; uint64_t want; } layout[] = {
		{ "lowest", HIST_LOWEST_NS },
		{ "highest", HIST_HIGHEST_NS },
		{ "sub_buckets", HIST_SUB_BUCKETS },
	};
	const cJSON *f, *pair;
	uint64_t v, idx, n, total = 0;
	long long prev = -1;
	size_t k;
	int rc, pos = 0;

	hist_init(h);
	if (!cJSON_IsObject(j))
		return util_fail(err, errlen, -EINVAL,
				 "histogram: not a JSON object");
	f = cJSON_GetObjectItemCaseSensitive(j, "unit");
	if (!cJSON_IsString(f) || strcmp(f->valuestring, "ns") != 0)
		return util_fail(err, errlen, -EINVAL,
				 "histogram: field \"unit\" must be \"ns\"");
	for (k = 0; k < sizeof(layout) / sizeof(layout[0]); k++) {
		rc = get_field(j, layout[k].name, &v, err, errlen);
		if (rc != 0)
			return rc;
		if (v != layout[k].want)
			return util_fail(err, errlen, -EINVAL,
					 "histogram: field \"%s\" is %llu, this build only reads %llu",
					 layout[k].name, (unsigned long long)v,
					 (unsigned long long)layout[k].want);
	}
	if ((rc = get_field(j, "count", &h->count, err, errlen)) != 0 ||
	    (rc = get_field(j, "min", &h->min, err, errlen)) != 0 ||
	    (rc = get_field(j, "max", &h->max, err, errlen)) != 0)
		return rc;
	f = cJSON_GetObjectItemCaseSensitive(j, "sum");
	if (!cJSON_IsNumber(f) || !(f->valuedouble >= 0) ||
	    !isfinite(f->valuedouble))
		return util_fail(err, errlen, -EINVAL,
				 "histogram: field \"sum\" is missing or not a non-negative number");
	h->sum = f->valuedouble;
	if (h->min > h->max)
		return util_fail(err, errlen, -EINVAL,
				 "histogram: \"min\" %llu is above \"max\" %llu",
				 (unsigned long long)h->min,
				 (unsigned long long)h->max);
	f = cJSON_GetObjectItemCaseSensitive(j, "buckets");
	if (!cJSON_IsArray(f))
		return util_fail(err, errlen, -EINVAL,
				 "histogram: field \"buckets\" is missing or not an array");
	cJSON_ArrayForEach(pair, f) {
		if (!cJSON_IsArray(pair) || cJSON_GetArraySize(pair) != 2 ||
		    get_uint(cJSON_GetArrayItem(pair, 0), &idx) != 0 ||
		    get_uint(cJSON_GetArrayItem(pair, 1), &n) != 0)
			return util_fail(err, errlen, -EINVAL,
					 "histogram: buckets[%d] is not an [index, count] pair of integers",
					 pos);
		if (idx >= HIST_NBUCKETS)
			return util_fail(err, errlen, -EINVAL,
					 "histogram: buckets[%d] index %llu is out of range (0..%u)",
					 pos, (unsigned long long)idx,
					 HIST_NBUCKETS - 1);
		if ((long long)idx <= prev)
			return util_fail(err, errlen, -EINVAL,
					 "histogram: buckets[%d] index %llu is not above the previous one",
					 pos, (unsigned long long)idx);
		prev = (long long)idx;
		h->buckets[idx] = n;
		total += n;
		pos++;
	}
	if (total != h->count)
		return util_fail(err, errlen, -EINVAL,
				 "histogram: bucket counts add up to %llu, field \"count\" says %llu",
				 (unsigned long long)total,
				 (unsigned long long)h->count);
	return 0;
}
