/* resultdb/resultdb_query.h: listings of the result index for the
 * collector's pages and `benchboot report --db`: runs by their facts,
 * and one figure's trend across runs. */
#ifndef BB_RESULTDB_QUERY_H
#define BB_RESULTDB_QUERY_H

#include <stddef.h>

#include "result/result_doc.h"
#include "resultdb/resultdb_conn.h"

/* What a listing keeps (NULL or "": any). */
struct resultdb_filter {
	const char *host;	/* a host id of the run, any role */
	const char *suite, *version;
	const char *digest;	/* an image digest any host of it booted */
	const char *server;	/* bb_runs.server */
	const char *from, *to;	/* YYYY-MM-DD, UTC, both inclusive */
};

/* One run of a listing (strings cut to their columns). */
struct resultdb_runrow {
	char id[129], created[21], suite[65], version[33];
	char server[256], digest[81], controller[129];
	char error[256];	/* "" unless the document was unreadable */
	int regressions;	/* its bb_regressions rows with worse = 1 */
};

/* Calls fn for each run that f keeps, newest first, at most limit;
 * fn returns 0 to go on.  Returns 0, fn's non-zero, or as
 * resultdb_connect(). */
int resultdb_runs(struct resultdb *st, const struct resultdb_filter *f,
		  int limit,
		  int (*fn)(void *arg, const struct resultdb_runrow *r),
		  void *arg, char *err, size_t errlen);

/* One run's point of a trend. */
struct resultdb_trendrow {
	char id[129], created[21], digest[81];
	struct result_doc_stat thr, p99;	/* n == 0: the run has none */
};

/* The (step, workload) pairs the runs f keeps have, in their steps'
 * order: fn(arg, step, workload) for each. */
int resultdb_trend_keys(struct resultdb *st, const struct resultdb_filter *f,
			int (*fn)(void *arg, const char *step, const char *wl),
			void *arg, char *err, size_t errlen);

/* Step step's workload wl across the runs f keeps, oldest first (by
 * created, then id), at most limit: fn for each. */
int resultdb_trend(struct resultdb *st, const struct resultdb_filter *f,
		   const char *step, const char *wl, int limit,
		   int (*fn)(void *arg, const struct resultdb_trendrow *r),
		   void *arg, char *err, size_t errlen);

#endif
