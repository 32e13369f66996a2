/* load/sql/sql_statements.h: the statements of `benchboot sql`'s connection workloads
 * (point-select, mix): what each connection sends to set up, to measure
 * and to clean up.  Pure text generation; the engine in sql.c runs it. */
#ifndef BB_SQL_STATEMENTS_H
#define BB_SQL_STATEMENTS_H

#include <stddef.h>
#include <stdint.h>

/* Statement buffer every connection owns; a setup INSERT batch fits. */
#define SQL_STMT_BUF 32768
/* Rows per setup INSERT statement of the mix workload. */
#define SQL_STMT_BATCH 100
#define SQL_STMT_MAX_KINDS 5

/* What the command line chose; read-only while running. */
struct sql_stmt_cfg {
	const char *table;	/* point-select: table; mix: name prefix */
	char tag[16];		/* mix: per-process part of table names */
	uint64_t rows;		/* rows in the table (point-select: ids
				 * 1..rows are selected; mix: per conn) */
	uint64_t seed;
	int keep;		/* mix: keep the tables at the end */
};

/* Per-connection state of a workload (embedded in the engine's
 * connection; zeroed, then sql_stmt_conn_init()). */
struct sql_stmt_conn {
	unsigned id;		/* connection index, 0.. */
	unsigned step;		/* progress through setup/teardown */
	unsigned kind;		/* kind of the last measured statement */
	unsigned turn;		/* mix: which statement comes next */
	uint64_t rng;
	uint64_t next_id;	/* mix: id of the next INSERT */
	uint64_t loaded;	/* mix: rows inserted by setup so far */
};

struct sql_workload {
	const char *name;
	unsigned nkinds;
	const char *const *kinds;	/* names of statement kinds */
	/* Writes the next setup (or teardown) statement into buf (cap
	 * bytes) and returns its length, 0 when there is none left, or
	 * -ENOSPC.  Setup runs before the measured interval, teardown after
	 * it; neither is counted. */
	int (*setup)(const struct sql_stmt_cfg *cfg, struct sql_stmt_conn *c,
		     char *buf, size_t cap);
	int (*teardown)(const struct sql_stmt_cfg *cfg, struct sql_stmt_conn *c,
			char *buf, size_t cap);
	/* Writes the next measured statement, sets c->kind, returns its
	 * length (> 0) or -ENOSPC. */
	int (*next)(const struct sql_stmt_cfg *cfg, struct sql_stmt_conn *c,
		    char *buf, size_t cap);
};

/* The workload called name ("point-select", "mix"), or NULL. */
const struct sql_workload *sql_stmt_find(const char *name);

/* Seeds c's generator from cfg->seed and the connection index, so each
 * connection's statement stream is reproducible. */
void sql_stmt_conn_init(const struct sql_stmt_cfg *cfg, struct sql_stmt_conn *c,
		      unsigned id);

/* Writes the mix table name of connection id ("PREFIX_TAG_ID"). */
int sql_stmt_mix_table(const struct sql_stmt_cfg *cfg, unsigned id, char *buf,
		     size_t cap);

/* xorshift64*: deterministic, and cheap enough for the hot path. */
static inline uint64_t sql_stmt_rand(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 2685821657736338717ULL;
}

/* Writes a deterministic filler of exactly len characters ([a-z0-9-])
 * from the generator into buf (no NUL). */
void sql_stmt_filler(uint64_t *rng, char *buf, size_t len);

#endif
