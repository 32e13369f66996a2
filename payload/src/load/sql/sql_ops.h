/* load/sql/sql_ops.h: `benchboot sql --workload=ops`: the Byte.com seed's timed
 * operations, one after another on one connection, each reported in
 * seconds, on a generated address table (docs/sql.md lists them). */
#ifndef BB_SQL_OPS_H
#define BB_SQL_OPS_H

#include <stddef.h>
#include <stdint.h>

#include "load/sql/sql.h"

/* Number of operations and their names in report order (the seed's). */
#define SQL_OPS_N 12
extern const char *const sql_ops_names[SQL_OPS_N];

/* Writes the VALUES tuple of address row id (1-based) for seed into buf:
 * "(id,'first','last','street','city','st','zip','phone')".  The same
 * (seed, id) always gives the same row.  Returns the length or -ENOSPC. */
int sql_ops_row(uint64_t seed, uint64_t id, char *buf, size_t cap);

/* Runs the operations against table (created, filled with rows rows,
 * dropped unless keep) and prints the summary or, with json, the
 * workload record.  Returns 0 when every operation ran (failures are
 * counted and reported), -EIO when no connection could be made. */
int sql_ops_run(const struct dbconn_target *tg, const char *table,
		uint64_t rows, uint64_t seed, int keep, int json);

#endif
