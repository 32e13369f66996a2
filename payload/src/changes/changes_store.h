/* changes/changes_store.h: the collector's incremental pass: after an
 * upload is indexed, the series that run belongs to are analysed again
 * (their last CHANGES_TAIL points) and their change points replaced in
 * bb_change_points (docs/collect.md). */
#ifndef BB_CHANGES_STORE_H
#define BB_CHANGES_STORE_H

#include <stddef.h>

#include "changes/changes_edivisive.h"
#include "resultdb/resultdb_changes.h"
#include "resultdb/resultdb_conn.h"

/* Points per series an upload's pass analyses: the detector costs n^2
 * (times the permutations), and a level older than this is settled. */
#define CHANGES_TAIL 200

/* Analyses every series of run_id (indexed, not partial) with o and
 * replaces each one's points from the tail's first run on; points the
 * index did not have before are new: found (may be NULL) is called
 * with each, and their found_with is run_id (a point found before
 * keeps its own).  *nnew gets how many (may be NULL).  Returns 0,
 * -ENOMEM, or as resultdb_connect() with the reason in err. */
int changes_store_run(struct resultdb *st, const char *run_id,
		      const struct changes_opts *o,
		      void (*found)(void *arg, const struct resultdb_cpoint *p),
		      void *arg, int *nnew, char *err, size_t errlen);

#endif
