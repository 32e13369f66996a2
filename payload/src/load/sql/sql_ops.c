/* load/sql/sql_ops.c: the Byte.com seed's SQL operations (names from its results
 * table), timed one by one on one blocking connection: they are long
 * statements, so an event loop would buy nothing here. */
#include <errno.h>
#include <inttypes.h>
#include <mysql.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/hist.h"
#include "load/loadgen.h"
#include "load/sql/sql_conn.h"
#include "load/sql/sql_ops.h"
#include "load/sql/sql_statements.h"
#include "lib/util.h"

const char *const sql_ops_names[SQL_OPS_N] = {
	"alter_table_add", "alter_table_drop", "connect", "count",
	"count_on_key", "create+drop", "create_index", "insert", "order_by",
	"order_by_key", "select_distinct", "update_with_key",
};

enum {
	OP_ALTER_ADD, OP_ALTER_DROP, OP_CONNECT, OP_COUNT, OP_COUNT_KEY,
	OP_CREATE_DROP, OP_CREATE_INDEX, OP_INSERT, OP_ORDER_BY,
	OP_ORDER_BY_KEY, OP_DISTINCT, OP_UPDATE_KEY,
};

/* Repetitions (documented in docs/sql.md). */
#define OPS_CONNECTS 100
#define OPS_CREATE_DROPS 100
#define OPS_INSERT_BATCH 1000
#define OPS_COUNTS 10
#define OPS_COUNT_KEYS 500
#define OPS_DISTINCTS 10
#define OPS_ORDER_BYS 3
#define OPS_BUF (OPS_INSERT_BATCH * 200 + 256)

static const char *const ops_first[] = {
	"James", "Mary", "John", "Patricia", "Robert", "Jennifer", "Michael",
	"Linda", "William", "Elizabeth", "David", "Barbara", "Richard",
	"Susan", "Joseph", "Jessica", "Thomas", "Sarah", "Charles", "Karen",
	"Anna", "Erik", "Lars", "Karin", "Moshe", "Ingrid", "Sven", "Maria",
	"Nils", "Eva", "Per", "Kerstin",
};
static const char *const ops_last[] = {
	"Smith", "Johnson", "Williams", "Brown", "Jones", "Garcia", "Miller",
	"Davis", "Rodriguez", "Martinez", "Hernandez", "Lopez", "Gonzalez",
	"Wilson", "Anderson", "Thomas", "Taylor", "Moore", "Jackson",
	"Martin", "Lee", "Perez", "Thompson", "White", "Harris", "Sanchez",
	"Clark", "Ramirez", "Lewis", "Robinson", "Walker", "Young", "Allen",
	"King", "Wright", "Scott", "Torres", "Nguyen", "Hill", "Flores",
	"Green", "Adams", "Nelson", "Baker", "Hall", "Rivera", "Campbell",
	"Mitchell", "Carter", "Roberts", "Johansson", "Karlsson", "Nilsson",
	"Eriksson", "Larsson", "Olsson", "Persson", "Svensson", "Gustafsson",
	"Pettersson", "Jonsson", "Jansson", "Hansson", "Bengtsson",
};
static const char *const ops_street[] = {
	"Main St", "Oak Ave", "Pine Rd", "Maple Dr", "Cedar Ln", "Elm St",
	"Park Ave", "Lake Rd", "Hill St", "Sunset Blvd", "River Rd",
	"Church St", "Mill Rd", "Storgatan", "Kungsgatan", "Drottninggatan",
};
static const char *const ops_city[] = {
	"Springfield", "Riverside", "Franklin", "Greenville", "Bristol",
	"Clinton", "Fairview", "Salem", "Madison", "Georgetown", "Arlington",
	"Ashland", "Dover", "Oxford", "Jackson", "Burlington", "Manchester",
	"Milton", "Newport", "Auburn", "Stockholm", "Goteborg", "Malmo",
	"Uppsala", "Lund", "Umea", "Boston", "Austin", "Denver", "Portland",
	"Seattle", "Tel Aviv",
};
static const char *const ops_state[] = {
	"CA", "TX", "NY", "FL", "IL", "PA", "OH", "GA", "NC", "MI", "NJ",
	"VA", "WA", "AZ", "MA", "TN",
};

#define N_(a) (sizeof(a) / sizeof((a)[0]))

int sql_ops_row(uint64_t seed, uint64_t id, char *buf, size_t cap)
{
	/* Row id's own generator: rows can be made in any order. */
	uint64_t s = (seed * 0x9e3779b97f4a7c15ULL) ^
		     (id * 0xbf58476d1ce4e5b9ULL);
	uint64_t a, b;
	int n;

	s |= 1;
	a = sql_stmt_rand(&s);
	b = sql_stmt_rand(&s);
	n = snprintf(buf, cap, "(%" PRIu64 ",'%s','%s','%u %s','%s','%s',"
		     "'%05u','%03u-%03u-%04u')", id,
		     ops_first[a % N_(ops_first)],
		     ops_last[(a >> 8) % N_(ops_last)],
		     (unsigned)((a >> 16) % 9999 + 1),
		     ops_street[(a >> 32) % N_(ops_street)],
		     ops_city[(a >> 40) % N_(ops_city)],
		     ops_state[(a >> 48) % N_(ops_state)],
		     (unsigned)(b % 100000), (unsigned)((b >> 20) % 1000),
		     (unsigned)((b >> 30) % 1000),
		     (unsigned)((b >> 40) % 10000));
	return n < 0 || (size_t)n >= cap ? -ENOSPC : n;
}

struct ops_ctx {
	const struct dbconn_target *tg;
	const char *table;
	uint64_t rows, seed;
	MYSQL *m;
	char *buf;
	uint64_t stmts;
	uint64_t err[SQL_E_N];
	uint64_t timeout_ns;
	struct hist lat;
	struct {
		double seconds;
		uint64_t statements;
		int failed;
	} op[SQL_OPS_N];
};

static int ops_connect(struct ops_ctx *x)
{
	char err[256];
	int cls;

	if (x->m)
		return 0;
	x->m = sql_connect(x->tg, err, sizeof(err), &cls);
	if (!x->m) {
		x->err[cls]++;
		util_err("sql", EIO, "connect: %s", err);
		return -EIO;
	}
	return 0;
}

/* Runs one statement for operation opi (-1: setup/teardown), reading
 * and discarding any result (streamed when large).  Returns 0, or -EIO
 * after counting the error (and dropping a broken connection). */
static int ops_exec(struct ops_ctx *x, int opi, const char *q, int stream)
{
	MYSQL_RES *res;
	uint64_t t0;
	int rc = 0;

	if (ops_connect(x) != 0)
		goto fail;
	t0 = util_mono_ns();
	x->stmts++;
	if (opi >= 0)
		x->op[opi].statements++;
	if (mysql_query(x->m, q) != 0) {
		rc = -EIO;
	} else {
		res = stream ? mysql_use_result(x->m) :
			       mysql_store_result(x->m);
		if (res) {
			while (mysql_fetch_row(res))
				;
			mysql_free_result(res);
		}
		if (mysql_errno(x->m))
			rc = -EIO;
	}
	if (rc == 0) {
		hist_record(&x->lat, util_mono_ns() - t0);
		return 0;
	}
	{
		int cls = sql_err_class(mysql_errno(x->m),
					util_mono_ns() - t0, x->timeout_ns);

		x->err[cls]++;
		util_err("sql", EIO, "%s: %.60s%s: %s", opi >= 0 ?
			 sql_ops_names[opi] : "setup", q,
			 strlen(q) > 60 ? "..." : "", mysql_error(x->m));
		if (cls != SQL_E_QUERY) {
			mysql_close(x->m);
			x->m = NULL;
		}
	}
fail:
	if (opi >= 0)
		x->op[opi].failed = 1;
	return -EIO;
}

static int ops_connects(struct ops_ctx *x)
{
	char err[256];
	MYSQL *m;
	int i, cls;

	for (i = 0; i < OPS_CONNECTS; i++) {
		x->op[OP_CONNECT].statements++;
		m = sql_connect(x->tg, err, sizeof(err), &cls);
		if (!m) {
			x->err[cls]++;
			x->op[OP_CONNECT].failed = 1;
			util_err("sql", EIO, "connect: %s", err);
			return -EIO;
		}
		mysql_close(m);
	}
	return 0;
}

static int ops_create_drop(struct ops_ctx *x)
{
	char q[256];
	int i;

	for (i = 0; i < OPS_CREATE_DROPS; i++) {
		snprintf(q, sizeof(q), "CREATE TABLE %s_tmp (id INT NOT NULL "
			 "PRIMARY KEY, v VARCHAR(20)) ENGINE=InnoDB",
			 x->table);
		if (ops_exec(x, OP_CREATE_DROP, q, 0) != 0)
			return -EIO;
		snprintf(q, sizeof(q), "DROP TABLE %s_tmp", x->table);
		if (ops_exec(x, OP_CREATE_DROP, q, 0) != 0)
			return -EIO;
	}
	return 0;
}

static int ops_insert(struct ops_ctx *x)
{
	uint64_t id = 1;
	size_t o;
	int n, k;

	while (id <= x->rows) {
		n = snprintf(x->buf, OPS_BUF, "INSERT INTO %s VALUES ",
			     x->table);
		o = (size_t)n;
		for (k = 0; k < OPS_INSERT_BATCH && id <= x->rows; k++) {
			if (k)
				x->buf[o++] = ',';
			n = sql_ops_row(x->seed, id++, x->buf + o,
					OPS_BUF - o - 1);
			if (n < 0)
				return -ENOSPC;
			o += (size_t)n;
		}
		x->buf[o] = 0;
		if (ops_exec(x, OP_INSERT, x->buf, 0) != 0)
			return -EIO;
	}
	return 0;
}

/* Runs statement fmt (one %s: the table, one optional %s: arg) times
 * times, taking args from list in turn. */
static int ops_repeat(struct ops_ctx *x, int opi, int times, const char *fmt,
		      const char *const *list, size_t nlist, int stream)
{
	char q[512];
	int i;

	for (i = 0; i < times; i++) {
		snprintf(q, sizeof(q), fmt, x->table,
			 list ? list[(size_t)i % nlist] : "");
		if (ops_exec(x, opi, q, stream) != 0)
			return -EIO;
	}
	return 0;
}

static int ops_update(struct ops_ctx *x)
{
	uint64_t n = x->rows / 10 ? x->rows / 10 : 1, i;
	uint64_t s = x->seed ^ 0x5555555555555555ULL;
	char q[256];

	s |= 1;
	for (i = 0; i < n; i++) {
		uint64_t r = sql_stmt_rand(&s);

		snprintf(q, sizeof(q), "UPDATE %s SET phone='%03u-%03u-%04u' "
			 "WHERE id=%" PRIu64, x->table,
			 (unsigned)(r % 1000), (unsigned)((r >> 10) % 1000),
			 (unsigned)((r >> 20) % 10000),
			 (r >> 32) % x->rows + 1);
		if (ops_exec(x, OP_UPDATE_KEY, q, 0) != 0)
			return -EIO;
	}
	return 0;
}

static int ops_timed(struct ops_ctx *x, int opi)
{
	uint64_t t0 = util_mono_ns();
	int rc;

	switch (opi) {
	case OP_CONNECT:
		rc = ops_connects(x);
		break;
	case OP_CREATE_DROP:
		rc = ops_create_drop(x);
		break;
	case OP_INSERT:
		rc = ops_insert(x);
		break;
	case OP_COUNT:
		rc = ops_repeat(x, opi, OPS_COUNTS, "SELECT COUNT(*) FROM %s "
				"WHERE city='%s'", ops_city, N_(ops_city), 0);
		break;
	case OP_DISTINCT:
		rc = ops_repeat(x, opi, OPS_DISTINCTS, "SELECT DISTINCT city "
				"FROM %s%s", NULL, 0, 0);
		break;
	case OP_ORDER_BY:
		rc = ops_repeat(x, opi, OPS_ORDER_BYS, "SELECT id,last_name,"
				"city FROM %s ORDER BY city,street%s", NULL, 0,
				1);
		break;
	case OP_CREATE_INDEX:
		rc = ops_repeat(x, opi, 1, "CREATE INDEX last_idx ON %s "
				"(last_name)%s", NULL, 0, 0);
		if (rc == 0)
			rc = ops_repeat(x, opi, 1, "CREATE INDEX zip_idx ON "
					"%s (zip)%s", NULL, 0, 0);
		break;
	case OP_COUNT_KEY:
		rc = ops_repeat(x, opi, OPS_COUNT_KEYS, "SELECT COUNT(*) FROM "
				"%s WHERE last_name='%s'", ops_last,
				N_(ops_last), 0);
		break;
	case OP_ORDER_BY_KEY:
		rc = ops_repeat(x, opi, OPS_ORDER_BYS, "SELECT last_name,id "
				"FROM %s ORDER BY last_name%s", NULL, 0, 1);
		break;
	case OP_UPDATE_KEY:
		rc = ops_update(x);
		break;
	case OP_ALTER_ADD:
		/* COPY: what the seed's MySQL did; an INSTANT add would
		 * measure nothing. */
		rc = ops_repeat(x, opi, 1, "ALTER TABLE %s ADD COLUMN note "
				"VARCHAR(32) NOT NULL DEFAULT ''%s, "
				"ALGORITHM=COPY", NULL, 0, 0);
		break;
	default:
		rc = ops_repeat(x, opi, 1, "ALTER TABLE %s DROP COLUMN "
				"note%s, ALGORITHM=COPY", NULL, 0, 0);
		break;
	}
	x->op[opi].seconds = (double)(util_mono_ns() - t0) / 1e9;
	if (rc != 0)
		x->op[opi].failed = 1;
	return rc;
}

static void ops_report(struct ops_ctx *x, double elapsed, uint64_t real0,
		       uint64_t mono0, int keep, int json)
{
	double total = 0;
	int i;

	for (i = 0; i < SQL_OPS_N; i++)
		total += x->op[i].seconds;
	if (json) {
		cJSON *rec = lg_record_new("sql", real0, mono0, elapsed);
		cJSON *p, *cn, *ops, *o, *er, *lat;

		if (!rec)
			return;
		p = cJSON_AddObjectToObject(rec, "params");
		cJSON_AddStringToObject(p, "sql_workload", "ops");
		cJSON_AddNumberToObject(p, "threads", 1);
		cJSON_AddNumberToObject(p, "connections", 1);
		cJSON_AddStringToObject(p, "mode", "closed");
		cJSON_AddNumberToObject(p, "rate", 0);
		cJSON_AddStringToObject(p, "table", x->table);
		cJSON_AddNumberToObject(p, "rows", (double)x->rows);
		cJSON_AddNumberToObject(p, "seed", (double)x->seed);
		cJSON_AddBoolToObject(p, "keep", keep);
		cn = cJSON_AddObjectToObject(rec, "counters");
		cJSON_AddNumberToObject(cn, "statements", (double)x->stmts);
		cJSON_AddNumberToObject(cn, "total_s", total);
		ops = cJSON_AddObjectToObject(cn, "ops");
		for (i = 0; i < SQL_OPS_N; i++) {
			o = cJSON_AddObjectToObject(ops, sql_ops_names[i]);
			cJSON_AddNumberToObject(o, "seconds",
						x->op[i].seconds);
			cJSON_AddNumberToObject(o, "statements",
						(double)x->op[i].statements);
			cJSON_AddBoolToObject(o, "ok", !x->op[i].failed);
		}
		er = cJSON_AddObjectToObject(rec, "errors");
		for (i = 0; i < SQL_E_N; i++)
			cJSON_AddNumberToObject(er, sql_err_names[i],
						(double)x->err[i]);
		lat = hist_to_json(&x->lat);
		if (lat)
			cJSON_AddItemToObject(rec, "latency", lat);
		lg_record_print(rec);
		return;
	}
	printf("sql ops: %s, %llu rows, seed %llu, %.2f s\n", x->table,
	       (unsigned long long)x->rows, (unsigned long long)x->seed,
	       elapsed);
	printf("  %-18s %10s %10s\n", "operation", "seconds", "statements");
	for (i = 0; i < SQL_OPS_N; i++)
		printf("  %-18s %10.3f %10llu%s\n", sql_ops_names[i],
		       x->op[i].seconds,
		       (unsigned long long)x->op[i].statements,
		       x->op[i].failed ? "  FAILED" : "");
	printf("  %-18s %10.3f %10llu\n", "total", total,
	       (unsigned long long)x->stmts);
	printf("  errors     ");
	for (i = 0; i < SQL_E_N; i++)
		printf(" %s %llu%s", sql_err_names[i],
		       (unsigned long long)x->err[i],
		       i + 1 < SQL_E_N ? "," : "\n");
}

int sql_ops_run(const struct dbconn_target *tg, const char *table,
		uint64_t rows, uint64_t seed, int keep, int json)
{
	/* Run order: the table must exist before it is filled, filled
	 * before it is read, indexed before the keyed operations. */
	static const int order[SQL_OPS_N] = {
		OP_CONNECT, OP_CREATE_DROP, OP_INSERT, OP_COUNT, OP_DISTINCT,
		OP_ORDER_BY, OP_CREATE_INDEX, OP_COUNT_KEY, OP_ORDER_BY_KEY,
		OP_UPDATE_KEY, OP_ALTER_ADD, OP_ALTER_DROP,
	};
	struct ops_ctx *x = calloc(1, sizeof(*x));
	uint64_t real0, mono0;
	char q[1024];
	int i, rc = 0, gate;

	if (!x || !(x->buf = malloc(OPS_BUF))) {
		free(x);
		return util_err("sql", ENOMEM, "out of memory");
	}
	x->tg = tg;
	x->table = table;
	x->rows = rows;
	x->seed = seed;
	x->timeout_ns = (uint64_t)tg->timeout_s * 1000000000ULL;
	hist_init(&x->lat);
	mysql_library_init(0, NULL, NULL);
	/* Without a server every operation fails fast and the report
	 * says so; the exit status too. */
	if (ops_connect(x) != 0)
		rc = -EIO;
	snprintf(q, sizeof(q), "DROP TABLE IF EXISTS %s_tmp", table);
	ops_exec(x, -1, q, 0);
	snprintf(q, sizeof(q), "DROP TABLE IF EXISTS %s", table);
	ops_exec(x, -1, q, 0);
	snprintf(q, sizeof(q), "CREATE TABLE %s (id INT UNSIGNED NOT NULL "
		 "PRIMARY KEY, first_name VARCHAR(20) NOT NULL, last_name "
		 "VARCHAR(20) NOT NULL, street VARCHAR(40) NOT NULL, city "
		 "VARCHAR(20) NOT NULL, state CHAR(2) NOT NULL, zip CHAR(5) "
		 "NOT NULL, phone CHAR(12) NOT NULL) ENGINE=InnoDB", table);
	ops_exec(x, -1, q, 0);
	/* Connected and the table made: the start, at the controller's
	 * time when an agent runs us (loadgen.h). */
	gate = lg_gate(rc == 0);
	if (gate != 0 && rc == 0) {
		util_err("sql", -gate, "prepare gate: %s", lg_gate_strerror(gate));
		x->err[SQL_E_PREPARE]++;
		rc = gate;
	}
	real0 = util_real_ns();
	mono0 = util_mono_ns();
	for (i = 0; i < SQL_OPS_N && (gate == 0 || rc == -EIO); i++)
		ops_timed(x, order[i]);
	if (!keep) {
		snprintf(q, sizeof(q), "DROP TABLE IF EXISTS %s", table);
		ops_exec(x, -1, q, 0);
	}
	ops_report(x, (double)(util_mono_ns() - mono0) / 1e9, real0, mono0,
		   keep, json);
	if (x->m)
		mysql_close(x->m);
	free(x->buf);
	free(x);
	return rc;
}
