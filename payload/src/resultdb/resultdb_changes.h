/* resultdb/resultdb_changes.h: the change points in the collector's
 * index (bb_change_points, docs/collect.md): the series the index holds,
 * one per suite, step, workload, figure and host set; each series'
 * points; the points found, with what changed at each. */
#ifndef BB_RESULTDB_CHANGES_H
#define BB_RESULTDB_CHANGES_H

#include <stddef.h>

#include "resultdb/resultdb_conn.h"

/* Longest "what changed" text a point keeps, in bytes. */
#define RESULTDB_CHANGED_MAX 2040

/* A series: a figure ("thr" or "p99") of one step and workload of one
 * suite version, against one server with one host set (resultdb_keys()). */
struct resultdb_cp_key {
	char suite[65], version[33], server[256], hosts_class[17];
	char step[97], wl[49], figure[9];
};

/* One run's point of a series. */
struct resultdb_cp_run {
	char id[129];
	char created[21];	/* YYYY-MM-DDTHH:MM:SSZ */
	char digest[81];	/* bb_runs.image_digest, "" none */
	double y;		/* the figure's mean over complete repeats */
};

/* A change point as the index keeps it. */
struct resultdb_cpoint {
	struct resultdb_cp_key k;
	char run[129];		/* the first run of the new level */
	char prev[129];		/* the run before it in the series */
	char created[21];	/* run's */
	char found_with[129];	/* the upload whose analysis found it */
	double p, before, after, pct;
	int worse;		/* lower throughput, longer p99 */
	char *changed;		/* what changed at run (malloc'd; NULL) */
};

/* Calls fn for every series the index holds, each once (with run_id:
 * only that run's; with suite and version non-empty: only theirs).
 * Runs that are partial or unreadable have none.  Returns 0, fn's
 * non-zero, or as resultdb_connect(). */
int resultdb_changes_keys(struct resultdb *st, const char *run_id,
			  const char *suite, const char *version,
			  int (*fn)(void *arg, const struct resultdb_cp_key *k),
			  void *arg, char *err, size_t errlen);

/* The last limit points of series k, oldest first (by created, then
 * id): fn for each.  Returns as resultdb_changes_keys(). */
int resultdb_changes_history(struct resultdb *st,
			    const struct resultdb_cp_key *k, int limit,
			    int (*fn)(void *arg,
				      const struct resultdb_cp_run *r),
			    void *arg, char *err, size_t errlen);

/* environment.hosts[] of run id again, as a JSON array from bb_hosts'
 * facts, into *json (caller frees; "[]" when none).  Returns 0,
 * -ENOMEM, or as resultdb_connect(). */
int resultdb_changes_hosts(struct resultdb *st, const char *id, char **json,
			   char *err, size_t errlen);

/* The server key (bb_runs.server) of run id into out (256 bytes; ""
 * when none).  Returns as resultdb_changes_hosts(). */
int resultdb_changes_server(struct resultdb *st, const char *id, char *out,
			    char *err, size_t errlen);

/* Calls fn for each stored point (with k: of that series only; else
 * with suite and version non-empty, of theirs; else all), in series
 * order, oldest run first; the point is the caller's for the call only.
 * Returns as resultdb_changes_keys(). */
int resultdb_changes_list(struct resultdb *st, const struct resultdb_cp_key *k,
			  const char *suite, const char *version,
			  int (*fn)(void *arg, const struct resultdb_cpoint *p),
			  void *arg, char *err, size_t errlen);

/* Replaces the stored points of series k whose run is at or after
 * run from (created, then id) by p[0..n), in one transaction: the
 * analysed tail's points, the older ones kept.  Returns 0, or as
 * resultdb_connect(); on failure nothing changed. */
int resultdb_changes_replace(struct resultdb *st,
			     const struct resultdb_cp_key *k,
			     const char *from, const struct resultdb_cpoint *p,
			     int n, char *err, size_t errlen);

#endif
