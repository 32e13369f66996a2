/* load/sql/sql_statements.c: statement text of the point-select (sysbench sbtest) and mix
 * (N&K: a private InnoDB table per connection, five statements)
 * workloads.  docs/sql.md lists every statement. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "load/sql/sql_statements.h"

static const char *const ps_kinds[] = { "point_select" };
static const char *const mix_kinds[] = {
	"point_select", "range_select", "aggregate", "update", "insert",
};

void sql_stmt_filler(uint64_t *rng, char *buf, size_t len)
{
	static const char chars[] = "abcdefghijklmnopqrstuvwxyz0123456789-";
	uint64_t r = 0;
	size_t i;

	for (i = 0; i < len; i++) {
		if (i % 8 == 0)
			r = sql_stmt_rand(rng);
		buf[i] = chars[(r & 0xff) % (sizeof(chars) - 1)];
		r >>= 8;
	}
}

void sql_stmt_conn_init(const struct sql_stmt_cfg *cfg, struct sql_stmt_conn *c,
		      unsigned id)
{
	memset(c, 0, sizeof(*c));
	c->id = id;
	c->rng = (cfg->seed ^ 0x9e3779b97f4a7c15ULL * (id + 1)) | 1;
	c->next_id = cfg->rows + 1;
}

/* A key in 1..rows. */
static uint64_t wl_key(const struct sql_stmt_cfg *cfg, struct sql_stmt_conn *c)
{
	return sql_stmt_rand(&c->rng) % (cfg->rows ? cfg->rows : 1) + 1;
}

static int wl_ret(int n, size_t cap)
{
	return n < 0 || (size_t)n >= cap ? -ENOSPC : n;
}

/* --- point-select: sysbench oltp_point_select's statement ---------- */

static int ps_none(const struct sql_stmt_cfg *cfg, struct sql_stmt_conn *c,
		   char *buf, size_t cap)
{
	return 0;
}

static int ps_next(const struct sql_stmt_cfg *cfg, struct sql_stmt_conn *c,
		   char *buf, size_t cap)
{
	c->kind = 0;
	return wl_ret(snprintf(buf, cap, "SELECT c FROM %s WHERE id=%" PRIu64,
			       cfg->table, wl_key(cfg, c)), cap);
}

/* --- mix ----------------------------------------------------------- */

int sql_stmt_mix_table(const struct sql_stmt_cfg *cfg, unsigned id, char *buf,
		     size_t cap)
{
	return wl_ret(snprintf(buf, cap, "%s_%s_%u", cfg->table, cfg->tag,
			       id), cap);
}

/* One row's values "(id,k,val,'pad')". */
static int mix_row(struct sql_stmt_conn *c, uint64_t id, char *buf,
		   size_t cap)
{
	char pad[60];
	uint64_t r = sql_stmt_rand(&c->rng);

	if (cap < 100)
		return -ENOSPC;
	sql_stmt_filler(&c->rng, pad, sizeof(pad));
	return wl_ret(snprintf(buf, cap, "(%" PRIu64 ",%u,%u,'%.*s')", id,
			       (unsigned)(r % 1000000),
			       (unsigned)((r >> 32) % 1000000),
			       (int)sizeof(pad), pad), cap);
}

static int mix_setup(const struct sql_stmt_cfg *cfg, struct sql_stmt_conn *c,
		     char *buf, size_t cap)
{
	char t[128];
	int n, k;
	size_t o;

	if (sql_stmt_mix_table(cfg, c->id, t, sizeof(t)) < 0)
		return -ENOSPC;
	switch (c->step) {
	case 0:
		c->step++;
		return wl_ret(snprintf(buf, cap, "DROP TABLE IF EXISTS %s",
				       t), cap);
	case 1:
		c->step++;
		return wl_ret(snprintf(buf, cap,
			"CREATE TABLE %s (id INT UNSIGNED NOT NULL PRIMARY KEY,"
			" k INT UNSIGNED NOT NULL, val INT NOT NULL,"
			" pad CHAR(60) NOT NULL, KEY k_idx (k))"
			" ENGINE=InnoDB", t), cap);
	default:
		if (c->loaded >= cfg->rows)
			return 0;
		n = snprintf(buf, cap, "INSERT INTO %s (id,k,val,pad) VALUES ",
			     t);
		if (n < 0 || (size_t)n >= cap)
			return -ENOSPC;
		o = (size_t)n;
		for (k = 0; k < SQL_STMT_BATCH && c->loaded < cfg->rows; k++) {
			if (k)
				buf[o++] = ',';
			n = mix_row(c, ++c->loaded, buf + o, cap - o - 1);
			if (n < 0)
				return n;
			o += (size_t)n;
		}
		return (int)o;
	}
}

static int mix_teardown(const struct sql_stmt_cfg *cfg, struct sql_stmt_conn *c,
			char *buf, size_t cap)
{
	char t[128];

	if (cfg->keep || c->step == 1000)
		return 0;
	c->step = 1000;
	if (sql_stmt_mix_table(cfg, c->id, t, sizeof(t)) < 0)
		return -ENOSPC;
	/* IF EXISTS: a setup cut short may not have created it. */
	return wl_ret(snprintf(buf, cap, "DROP TABLE IF EXISTS %s", t), cap);
}

static int mix_next(const struct sql_stmt_cfg *cfg, struct sql_stmt_conn *c,
		    char *buf, size_t cap)
{
	char t[128];
	uint64_t key = wl_key(cfg, c);
	int n;

	if (sql_stmt_mix_table(cfg, c->id, t, sizeof(t)) < 0)
		return -ENOSPC;
	c->kind = c->turn;
	c->turn = (c->turn + 1) % 5;
	switch (c->kind) {
	case 0:
		return wl_ret(snprintf(buf, cap, "SELECT val,pad FROM %s "
				       "WHERE id=%" PRIu64, t, key), cap);
	case 1:
		return wl_ret(snprintf(buf, cap, "SELECT id,val FROM %s "
				       "WHERE id BETWEEN %" PRIu64 " AND %"
				       PRIu64, t, key, key + 9), cap);
	case 2:
		return wl_ret(snprintf(buf, cap, "SELECT COUNT(*),SUM(val) "
				       "FROM %s WHERE id BETWEEN %" PRIu64
				       " AND %" PRIu64, t, key, key + 99), cap);
	case 3:
		return wl_ret(snprintf(buf, cap, "UPDATE %s SET val=val+1 "
				       "WHERE id=%" PRIu64, t, key), cap);
	default:
		n = snprintf(buf, cap, "INSERT INTO %s (id,k,val,pad) VALUES ",
			     t);
		if (n < 0 || (size_t)n >= cap)
			return -ENOSPC;
		{
			int m = mix_row(c, c->next_id++, buf + n,
					cap - (size_t)n);

			return m < 0 ? m : n + m;
		}
	}
}

static const struct sql_workload sql_workloads[] = {
	{ "point-select", 1, ps_kinds, ps_none, ps_none, ps_next },
	{ "mix", 5, mix_kinds, mix_setup, mix_teardown, mix_next },
};

const struct sql_workload *sql_stmt_find(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(sql_workloads) / sizeof(sql_workloads[0]); i++)
		if (strcmp(sql_workloads[i].name, name) == 0)
			return &sql_workloads[i];
	return NULL;
}
