/* resultdb/resultdb_regress.h: the regression check of a new result
 * against the previous comparable runs in the index (docs/collect.md):
 * what makes runs comparable, and what moved beyond noise. */
#ifndef BB_RESULTDB_REGRESS_H
#define BB_RESULTDB_REGRESS_H

#include <stddef.h>

#include "result/result_doc.h"
#include "resultdb/resultdb_conn.h"

/* One figure of a step that moved beyond noise (resultdb_index()). */
struct resultdb_change {
	char step[96];		/* "http-static/c4" */
	char wl[48];		/* "http" */
	char figure[8];		/* "thr" or "p99" */
	double base, now;	/* the window's mean of means; this run's */
	double pct;		/* (now - base) / base, in % */
	int worse;		/* 1: a regression, 0: an improvement */
	int nbase;		/* comparable runs it was judged against */
};

/* What resultdb_index() found against the previous comparable runs. */
struct resultdb_changes {
	char run[130];		/* the result id */
	int n;			/* changes kept */
	int dropped;		/* those over RESULTDB_MAX_CHANGES */
	struct resultdb_change c[64];
};
#define RESULTDB_MAX_CHANGES 64

/* Whether now moved beyond noise against the n previous figures prev:
 * significant by result_doc_significant() against every one of them, all
 * on the same side, and its mean more than threshold_pct % away from the
 * mean of their means.  Returns +1 (higher), -1 (lower), or 0 (noise,
 * n == 0, or a figure without two repeats); *pct gets the change in %
 * of that mean of means (*base the mean itself) either way. */
int resultdb_judge(const struct result_doc_stat *prev, int n,
		   const struct result_doc_stat *now, double threshold_pct,
		   double *base, double *pct);

/* The comparability keys of a parsed result: server (what it ran
 * against: the server_identity's host and versions, else the id of its
 * host with role "server...") and hosts_class (16 hex digits: a hash of
 * every client's and server's role, arch, CPU model and count, sorted).
 * Either is "" when the result has none. */
void resultdb_keys(const struct result_doc *r, char *server, size_t slen,
		   char *hosts_class, size_t hlen);

/* Compares every step's throughput and p99 of r, just indexed, with the
 * window previous comparable runs (same suite, version and keys, not
 * partial, none unreadable) by resultdb_judge(), and records what moved
 * in bb_regressions and in *ch (may be NULL; its run set either way).
 * Nothing when window <= 0, r is partial or has no time.  Returns 0,
 * -ENOMEM, or as resultdb_run(). */
int resultdb_regress(struct resultdb *st, const struct result_doc *r,
		     int window, double thr, struct resultdb_changes *ch,
		     char *err, size_t errlen);

#endif
