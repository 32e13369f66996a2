/* resultdb/resultdb_index.h: the collector's relational index of its
 * results (docs/collect.md): one transaction per result, idempotent by
 * result id, rebuilt from the files (the JSON files stay the source of
 * truth), each new result checked for regressions as it comes in. */
#ifndef BB_RESULTDB_INDEX_H
#define BB_RESULTDB_INDEX_H

#include <stddef.h>

#include "resultdb/resultdb_conn.h"
#include "resultdb/resultdb_regress.h"

/* Indexes one result document, stored under id (text, len bytes; file
 * names it for the rows and messages), in one transaction, replacing
 * any rows of id (so indexing twice gives the same rows).  A document
 * result_doc_parse() refuses, or whose "id" is not id, gets a runs row
 * whose "error" says why, and no other row.  Then, when window > 0,
 * compares every step's throughput and p99 with the window previous
 * comparable runs (resultdb_judge()) and records what moved in the
 * regressions table and in *ch (may be NULL).  Returns 0; -EINVAL for a
 * refused document (reason in err; indexed as such); -EIO / -EPROTO as
 * resultdb_connect(). */
int resultdb_index(struct resultdb *st, const char *id, const char *text,
		   size_t len, const char *file, int window,
		   double threshold_pct, struct resultdb_changes *ch,
		   char *err, size_t errlen);

/* The ids the index holds, sorted (strcmp), into *ids (caller frees
 * each and the array); their count in *n.  Returns 0 or as
 * resultdb_connect(). */
int resultdb_ids(struct resultdb *st, char ***ids, int *n, char *err,
		 size_t errlen);

/* Deletes every result's rows (not the schema): --reindex's start.
 * Returns 0 or as resultdb_connect(). */
int resultdb_clear(struct resultdb *st, char *err, size_t errlen);

#endif
