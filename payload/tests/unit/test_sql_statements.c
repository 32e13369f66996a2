/* test_sql_statements.c: the sql workloads' statement text (exact statements,
 * determinism, key ranges, setup batches), the ops address rows and the
 * error classes. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "load/sql/sql.h"
#include "load/sql/sql_ops.h"
#include "load/sql/sql_statements.h"
#include "tap.h"

static char buf[SQL_STMT_BUF];

static void test_point_select(void)
{
	struct sql_stmt_cfg cfg = { .table = "sbtest1", .rows = 50, .seed = 7 };
	const struct sql_workload *wl = sql_stmt_find("point-select");
	struct sql_stmt_conn c, d;
	int i, n, in_range = 1, same = 1;

	tap_ok(wl != NULL, "point-select workload exists");
	if (!wl)
		return;
	sql_stmt_conn_init(&cfg, &c, 0);
	TAP_EQ_INT(wl->setup(&cfg, &c, buf, sizeof(buf)), 0,
		   "point-select has no setup");
	sql_stmt_conn_init(&cfg, &d, 0);
	for (i = 0; i < 1000; i++) {
		char other[128];
		unsigned long id;

		n = wl->next(&cfg, &c, buf, sizeof(buf));
		wl->next(&cfg, &d, other, sizeof(other));
		same &= strcmp(buf, other) == 0;
		if (n <= 0 || sscanf(buf, "SELECT c FROM sbtest1 WHERE id=%lu",
				     &id) != 1 || id < 1 || id > 50)
			in_range = 0;
	}
	tap_ok(in_range, "statements are sysbench's, ids in 1..rows (%s)",
	       buf);
	tap_ok(same, "same seed and connection, same statements");
	sql_stmt_conn_init(&cfg, &d, 1);
	wl->next(&cfg, &d, buf, sizeof(buf));
	sql_stmt_conn_init(&cfg, &c, 0);
	n = wl->next(&cfg, &c, buf + 200, sizeof(buf) - 200);
	tap_ok(n > 0 && strcmp(buf, buf + 200) != 0,
	       "another connection gets another stream");
	TAP_EQ_INT(wl->next(&cfg, &c, buf, 10), -ENOSPC,
		   "too small a buffer is -ENOSPC");
}

static void test_mix(void)
{
	struct sql_stmt_cfg cfg = { .table = "bb_mix", .rows = 250, .seed = 1 };
	const struct sql_workload *wl = sql_stmt_find("mix");
	static const char *const prefixes[] = {
		"SELECT val,pad FROM bb_mix_t_3 WHERE id=",
		"SELECT id,val FROM bb_mix_t_3 WHERE id BETWEEN ",
		"SELECT COUNT(*),SUM(val) FROM bb_mix_t_3 WHERE id BETWEEN ",
		"UPDATE bb_mix_t_3 SET val=val+1 WHERE id=",
		"INSERT INTO bb_mix_t_3 (id,k,val,pad) VALUES (251,",
	};
	struct sql_stmt_conn c;
	int i, n, inserts = 0, ok = 1;

	strcpy(cfg.tag, "t");
	tap_ok(wl != NULL && wl->nkinds == 5, "mix workload has five kinds");
	if (!wl)
		return;
	sql_stmt_conn_init(&cfg, &c, 3);
	n = wl->setup(&cfg, &c, buf, sizeof(buf));
	TAP_EQ_STR(n > 0 ? buf : "", "DROP TABLE IF EXISTS bb_mix_t_3",
		   "setup 1: drop a leftover table");
	n = wl->setup(&cfg, &c, buf, sizeof(buf));
	tap_ok(n > 0 && strncmp(buf, "CREATE TABLE bb_mix_t_3 (", 25) == 0 &&
	       strstr(buf, "ENGINE=InnoDB"), "setup 2: create an InnoDB table");
	while ((n = wl->setup(&cfg, &c, buf, sizeof(buf))) > 0) {
		inserts++;
		ok &= strncmp(buf, "INSERT INTO bb_mix_t_3 (id,k,val,pad) "
			      "VALUES (", 38) == 0;
	}
	TAP_EQ_INT(inserts, 3, "250 rows in INSERTs of up to 100");
	tap_ok(ok && n == 0, "setup inserts, then ends");
	for (i = 0; i < 5; i++) {
		n = wl->next(&cfg, &c, buf, sizeof(buf));
		tap_ok(n > 0 && c.kind == (unsigned)i &&
		       strncmp(buf, prefixes[i], strlen(prefixes[i])) == 0,
		       "statement %d is %s", i, wl->kinds[i]);
	}
	n = wl->next(&cfg, &c, buf, sizeof(buf));
	TAP_EQ_INT(c.kind, 0, "the five statements repeat in turn");
	TAP_EQ_STR(wl->teardown(&cfg, &c, buf, sizeof(buf)) > 0 ? buf : "",
		   "DROP TABLE IF EXISTS bb_mix_t_3",
		   "teardown drops the table");
	TAP_EQ_INT(wl->teardown(&cfg, &c, buf, sizeof(buf)), 0,
		   "then nothing");
	cfg.keep = 1;
	sql_stmt_conn_init(&cfg, &c, 3);
	TAP_EQ_INT(wl->teardown(&cfg, &c, buf, sizeof(buf)), 0,
		   "--keep: no teardown");
	tap_ok(sql_stmt_find("nope") == NULL, "unknown workload is NULL");
}

static void test_ops_rows(void)
{
	char a[256], b[256];
	int n;

	n = sql_ops_row(1, 42, a, sizeof(a));
	sql_ops_row(1, 42, b, sizeof(b));
	tap_ok(n > 0 && strcmp(a, b) == 0 && strncmp(a, "(42,'", 5) == 0,
	       "address row is deterministic: %s", a);
	sql_ops_row(2, 42, b, sizeof(b));
	tap_ok(strcmp(a, b) != 0, "another seed, another row");
	TAP_EQ_INT(sql_ops_row(1, 42, a, 20), -ENOSPC, "row too long: ENOSPC");
	TAP_EQ_INT(SQL_OPS_N, 12, "twelve operations");
	TAP_EQ_STR(sql_ops_names[5], "create+drop", "seed's operation names");
}

static void test_err_class(void)
{
	static const struct {
		unsigned e;
		uint64_t elapsed, timeout;
		int cls;
	} cases[] = {
		{ 1146, 0, 1000000000, SQL_E_QUERY },	/* no such table */
		{ 1064, 0, 1000000000, SQL_E_QUERY },	/* syntax */
		{ 2013, 1000, 1000000000, SQL_E_LOST },
		{ 2006, 1000, 1000000000, SQL_E_LOST },
		{ 2013, 1000000000, 1000000000, SQL_E_TIMEOUT },
		{ 2003, 1000, 1000000000, SQL_E_CONNECT },
		{ 2002, 1000, 1000000000, SQL_E_CONNECT },
		{ 2014, 1000, 1000000000, SQL_E_CLIENT },	/* sync */
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		TAP_EQ_INT(sql_err_class(cases[i].e, cases[i].elapsed,
					 cases[i].timeout), cases[i].cls,
			   sql_err_names[cases[i].cls]);
}

int main(void)
{
	test_point_select();
	test_mix();
	test_ops_rows();
	test_err_class();
	return tap_done();
}
