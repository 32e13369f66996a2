/* changes/changes_history.h: a lab's history as series for the change-
 * point detector, one per suite, step, workload, figure and host set,
 * built from result documents or from the collector's index; the points
 * found in each, with what changed at each one's run. */
#ifndef BB_CHANGES_HISTORY_H
#define BB_CHANGES_HISTORY_H

#include <stddef.h>

#include "changes/changes_edivisive.h"
#include "result/result_doc.h"
#include "resultdb/resultdb_changes.h"
#include "resultdb/resultdb_conn.h"

/* One run of the history. */
struct changes_run {
	char id[129];
	char created[21];	/* YYYY-MM-DDTHH:MM:SSZ */
	char digest[81];	/* the image digest its hosts booted; "" */
	char server[256];	/* the server key (resultdb_keys()) */
	char *hosts;		/* environment.hosts[] as JSON, owned;
				 * NULL: not read yet (from a database) */
};

/* One series: points oldest first. */
struct changes_history {
	struct resultdb_cp_key k;
	int n;
	double *y;
	int *run;		/* indices into the history's runs */
};

struct changes_hist {
	struct changes_run *runs;
	int nruns;
	struct changes_history *s;
	int ns;
	struct resultdb *st;	/* where hosts are read from; NULL: files */
};

/* Adds the run of one parsed result r to h (its figures, thr and p99 of
 * every step and workload with complete repeats, each to its series).
 * A partial result, one without a time, or an id h has already, adds
 * nothing (returns 0).  Returns 0 or -ENOMEM. */
int changes_history_add_doc(struct changes_hist *h, const struct result_doc *r);

/* Orders h's runs by time (then id) and every series' points with
 * them: after the last changes_history_add_doc(). */
void changes_history_sort(struct changes_hist *h);

/* Fills h from the index st (kept in h->st to read hosts from later):
 * every series (suite and version non-empty: of that suite version
 * only; run_id: only those run_id has), the last limit points of each.
 * Returns 0, -ENOMEM, or as resultdb_connect() with the reason in err. */
int changes_history_from_db(struct changes_hist *h, struct resultdb *st,
			   const char *run_id, const char *suite,
			   const char *version, int limit, char *err,
			   size_t errlen);

/* The change points of series s of h by changes_edivisive() with o,
 * as index rows (found_with left empty; changed filled by
 * changes_history_what(); caller frees each changed and *out), n in
 * *nout.  Returns 0, -ENOMEM, -EINVAL (o), or as resultdb_connect()
 * (reading hosts). */
int changes_history_detect(struct changes_hist *h, int s,
			  const struct changes_opts *o,
			  struct resultdb_cpoint **out, int *nout, char *err,
			  size_t errlen);

/* What changed from run a to run b of h, one line per item: b's image
 * digest (and a's when it differs), the server's versions at b, then
 * each row of the hosts' facts (system table, kernel, CPU, versions)
 * that differs, "ROLE.FIELD: OLD -> NEW", at most
 * RESULTDB_CHANGED_MAX bytes.  Returns the text (malloc'd) or NULL when
 * out of memory; hosts are read from h->st when not yet (err says why
 * that failed, and the text says it could not be read). */
char *changes_history_what(struct changes_hist *h, int a, int b, char *err,
			  size_t errlen);

/* Frees what h owns (not h->st). */
void changes_history_free(struct changes_hist *h);

#endif
