/* resultdb/resultdb.c: the collector's relational index on MariaDB/MySQL through
 * mariadb-connector-c.  Every statement is a prepared one with bound
 * parameters (no value is ever spliced into SQL text) and every string
 * is cut to its column's length, as valid UTF-8, before it is bound. */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mysql.h>

#include <cjson/cJSON.h>

#include "lib/hist.h"
#include "report/report.h"
#include "result/result.h"
#include "load/sql/sql_conn.h"
#include "resultdb/resultdb.h"
#include "lib/util.h"

/* --- the URL ---------------------------------------------------------- */

static int resultdb_hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* s..s+n with %XX decoded into out (outlen bytes).  0, or -1 for a bad
 * escape, a NUL or a result that does not fit. */
static int resultdb_unescape(const char *s, size_t n, char *out, size_t outlen)
{
	size_t i, o = 0;

	for (i = 0; i < n; i++) {
		int c = (unsigned char)s[i];

		if (c == '%') {
			if (i + 2 >= n || resultdb_hexval(s[i + 1]) < 0 ||
			    resultdb_hexval(s[i + 2]) < 0)
				return -1;
			c = resultdb_hexval(s[i + 1]) * 16 +
			    resultdb_hexval(s[i + 2]);
			i += 2;
		}
		if (c == 0 || o + 1 >= outlen)
			return -1;
		out[o++] = (char)c;
	}
	out[o] = 0;
	return 0;
}

/* HOST[:PORT] (HOST may be an [IPv6] literal) of hp..hp+n into u. */
static int resultdb_hostport(const char *hp, size_t n, struct resultdb_url *u,
			  char *err, size_t errlen)
{
	const char *h = hp, *colon;
	size_t hl;
	char num[8], *e;
	unsigned long p;

	if (n && hp[0] == '[') {
		const char *rb = memchr(hp, ']', n);

		if (!rb)
			return util_fail(err, errlen, -EINVAL,
					 "--db: '[' without ']' in the host");
		h = hp + 1;
		hl = (size_t)(rb - h);
		colon = rb + 1 < hp + n ? rb + 1 : NULL;
		if (colon && *colon != ':')
			return util_fail(err, errlen, -EINVAL,
					 "--db: junk after ']' in the host");
	} else {
		colon = memchr(hp, ':', n);
		hl = colon ? (size_t)(colon - hp) : n;
	}
	if (hl == 0 || hl >= sizeof(u->host))
		return util_fail(err, errlen, -EINVAL,
				 "--db: no host, or one over %zu bytes",
				 sizeof(u->host) - 1);
	memcpy(u->host, h, hl);
	u->host[hl] = 0;
	u->port = 3306;
	if (!colon)
		return 0;
	n -= (size_t)(colon + 1 - hp);
	if (n == 0 || n >= sizeof(num))
		return util_fail(err, errlen, -EINVAL, "--db: bad port");
	memcpy(num, colon + 1, n);
	num[n] = 0;
	p = strtoul(num, &e, 10);
	if (*e || num[0] < '0' || num[0] > '9' || p < 1 || p > 65535)
		return util_fail(err, errlen, -EINVAL,
				 "--db: port '%s': expected 1..65535", num);
	u->port = (unsigned)p;
	return 0;
}

int resultdb_parse_url(const char *url, struct resultdb_url *u, char *err,
		    size_t errlen)
{
	const char *p, *at, *colon, *slash;
	size_t i;

	memset(u, 0, sizeof(*u));
	if (strncmp(url, "mysql://", 8) == 0)
		p = url + 8;
	else if (strncmp(url, "mariadb://", 10) == 0)
		p = url + 10;
	else
		return util_fail(err, errlen, -EINVAL, "--db: expected mysql://USER[:PASS]@HOST[:PORT]/DB");
	at = strrchr(p, '@');
	if (!at || at == p)
		return util_fail(err, errlen, -EINVAL,
				 "--db: no USER@ before the host");
	slash = strchr(at, '/');
	if (!slash || !slash[1])
		return util_fail(err, errlen, -EINVAL,
				 "--db: no /DB after the host");
	colon = memchr(p, ':', (size_t)(at - p));
	if (resultdb_unescape(p, (size_t)((colon ? colon : at) - p), u->user,
			   sizeof(u->user)) != 0 || !u->user[0] ||
	    (colon && resultdb_unescape(colon + 1, (size_t)(at - colon - 1),
				     u->pass, sizeof(u->pass)) != 0))
		return util_fail(err, errlen, -EINVAL, "--db: bad user or password (too long, empty, or a bad %%XX escape)");
	for (i = 0; slash[1 + i]; i++)
		if (i >= sizeof(u->db) - 1 ||
		    !((slash[1 + i] >= 'a' && slash[1 + i] <= 'z') ||
		      (slash[1 + i] >= 'A' && slash[1 + i] <= 'Z') ||
		      (slash[1 + i] >= '0' && slash[1 + i] <= '9') ||
		      slash[1 + i] == '_' || slash[1 + i] == '$'))
			return util_fail(err, errlen, -EINVAL, "--db: database name '%.64s': expected 1..64 of [A-Za-z0-9_$]",
					 slash + 1);
	memcpy(u->db, slash + 1, i + 1);
	return resultdb_hostport(at + 1, (size_t)(slash - at - 1), u, err,
			      errlen);
}

int resultdb_password_file(struct resultdb_url *u, const char *path, char *err,
			size_t errlen)
{
	FILE *f = fopen(path, "re");
	char *ok;
	size_t n;

	if (!f)
		return util_fail(err, errlen, -errno, "--db-password-file %s: %s",
				 path, strerror(errno));
	ok = fgets(u->pass, sizeof(u->pass), f);
	fclose(f);
	n = ok ? strcspn(u->pass, "\r\n") : 0;
	if (!n || (u->pass[n] != '\n' && u->pass[n] != '\r' &&
		   n == sizeof(u->pass) - 1)) {
		memset(u->pass, 0, sizeof(u->pass));
		return util_fail(err, errlen, -EINVAL, "--db-password-file %s: no password on its first line, or one over %zu bytes",
				 path, sizeof(u->pass) - 2);
	}
	u->pass[n] = 0;
	return 0;
}

/* --- statements --------------------------------------------------------- */

/* Statements kept prepared on the connection, by their SQL's address
 * (every statement is a literal): an index is a few hundred executions
 * of a dozen statements, and a prepare is a round trip of its own. */
#define RESULTDB_STMTS 24

struct resultdb {
	struct resultdb_url url;
	unsigned timeout_s;
	MYSQL *m;		/* NULL: not connected */
	unsigned long truncated;	/* strings cut to their column */
	struct {
		const char *sql;
		MYSQL_STMT *s;
	} stmt[RESULTDB_STMTS];
};

/* Closes the statements and the connection. */
static void resultdb_disconnect(struct resultdb *st)
{
	int i;

	for (i = 0; i < RESULTDB_STMTS; i++) {
		if (st->stmt[i].s)
			mysql_stmt_close(st->stmt[i].s);
		st->stmt[i].s = NULL;
		st->stmt[i].sql = NULL;
	}
	if (st->m)
		mysql_close(st->m);
	st->m = NULL;
}

/* sql's statement, prepared: the kept one, or a new one (kept in a free
 * slot: *kept says so).  NULL when out of memory; a statement whose
 * prepare failed (its error set) is returned unkept. */
static MYSQL_STMT *resultdb_prepare(struct resultdb *st, const char *sql,
				 int *kept)
{
	MYSQL_STMT *s;
	int i, slot = -1;

	*kept = 1;
	for (i = 0; i < RESULTDB_STMTS; i++) {
		if (st->stmt[i].sql == sql)
			return st->stmt[i].s;
		if (!st->stmt[i].s && slot < 0)
			slot = i;
	}
	*kept = 0;
	s = mysql_stmt_init(st->m);
	if (!s || mysql_stmt_prepare(s, sql, strlen(sql)) != 0 || slot < 0)
		return s;
	st->stmt[slot].sql = sql;
	st->stmt[slot].s = s;
	*kept = 1;
	return s;
}

/* Gives s back: a kept statement stays prepared unless it failed (then
 * it is dropped: the connection may be gone with it). */
static void resultdb_release(struct resultdb *st, MYSQL_STMT *s, int kept,
			  int failed)
{
	int i;

	if (kept && !failed) {
		mysql_stmt_free_result(s);
		return;
	}
	for (i = 0; kept && i < RESULTDB_STMTS; i++)
		if (st->stmt[i].s == s)
			st->stmt[i].s = NULL, st->stmt[i].sql = NULL;
	mysql_stmt_close(s);
}

/* A bound value or a fetched column. */
enum { SV_NULL, SV_STR, SV_INT, SV_DBL };
struct resultdb_val {
	int t;
	const char *s;		/* SV_STR: NULL binds NULL */
	size_t max;		/* SV_STR: the column's length in bytes */
	long long i;
	double d;
};
#define VS(str, mx) { SV_STR, (str), (mx), 0, 0 }
#define VI(x) { SV_INT, NULL, 0, (long long)(x), 0 }
#define VD(x) { SV_DBL, NULL, 0, 0, (double)(x) }
#define VN { SV_NULL, NULL, 0, 0, 0 }

struct resultdb_col {
	int t;			/* SV_STR, SV_INT or SV_DBL */
	char s[256];
	long long i;
	double d;
	my_bool null;
	unsigned long len;
};

/* At most max bytes of s into out (max + 1 bytes) as valid UTF-8: a
 * byte that starts no valid sequence becomes '?', and the cut falls
 * between characters.  Returns 1 when s was cut. */
static int resultdb_utf8(const char *s, size_t max, char *out)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t o = 0, k, n;

	while (*p) {
		n = *p < 0x80 ? 1 : (*p & 0xe0) == 0xc0 && *p >= 0xc2 ? 2 :
			(*p & 0xf0) == 0xe0 ? 3 :
			(*p & 0xf8) == 0xf0 && *p <= 0xf4 ? 4 : 0;
		for (k = 1; k < n; k++)
			if ((p[k] & 0xc0) != 0x80)
				n = 0;
		if (n == 0) {
			n = 1;
			if (o + 1 > max)
				break;
			out[o++] = '?';
			p++;
			continue;
		}
		if (o + n > max)
			break;
		memcpy(out + o, p, n);
		o += n;
		p += n;
	}
	out[o] = 0;
	return *p != 0;
}

/* The handle's error as a return value: a client-side (2xxx) error or
 * one of the server's passing states means the database is not there
 * for now (-EIO, and the connection is dropped so the next call starts
 * afresh); any other server error is a refused statement (-EINVAL). */
static int resultdb_sqlerr(struct resultdb *st, unsigned no, const char *msg,
			const char *what, char *err, size_t errlen)
{
	/* 1040 too many connections, 1053 shutting down, 1205/1213 lock
	 * wait/deadlock, 1290/1836 read-only (a replica, a failover),
	 * 1927 killed, 4031 idle timeout: all for now, not for good. */
	static const unsigned later[] = { 1040, 1053, 1205, 1213, 1290, 1836,
					  1927, 4031 };
	int io = no >= 2000 && no < 3000;
	size_t i;

	for (i = 0; i < sizeof(later) / sizeof(later[0]); i++)
		io |= no == later[i];
	util_fail(err, errlen, 0, "database: %.60s: %s (%u)", what, msg, no);
	if (io)
		resultdb_disconnect(st);
	return io ? -EIO : -EINVAL;
}

/* Binds n values of v to b (the strings copied, cut and checked, into
 * bufs[i], which the caller frees). */
static int resultdb_bind_params(struct resultdb *st, const struct resultdb_val *v,
			     int n, MYSQL_BIND *b, char **bufs)
{
	int i;

	for (i = 0; i < n; i++) {
		b[i].buffer_type = MYSQL_TYPE_NULL;
		if (v[i].t == SV_STR && v[i].s) {
			bufs[i] = malloc(v[i].max + 1);
			if (!bufs[i])
				return -ENOMEM;
			st->truncated += resultdb_utf8(v[i].s, v[i].max,
						    bufs[i]);
			b[i].buffer_type = MYSQL_TYPE_STRING;
			b[i].buffer = bufs[i];
			b[i].buffer_length = strlen(bufs[i]);
		} else if (v[i].t == SV_INT) {
			b[i].buffer_type = MYSQL_TYPE_LONGLONG;
			b[i].buffer = (void *)&v[i].i;
		} else if (v[i].t == SV_DBL && isfinite(v[i].d)) {
			b[i].buffer_type = MYSQL_TYPE_DOUBLE;
			b[i].buffer = (void *)&v[i].d;
		}
	}
	return 0;
}

/* Binds the result columns c[0..nc) to b. */
static void resultdb_bind_cols(struct resultdb_col *c, int nc, MYSQL_BIND *b)
{
	int i;

	for (i = 0; i < nc; i++) {
		b[i].is_null = &c[i].null;
		b[i].length = &c[i].len;
		if (c[i].t == SV_STR) {
			b[i].buffer_type = MYSQL_TYPE_STRING;
			b[i].buffer = c[i].s;
			b[i].buffer_length = sizeof(c[i].s) - 1;
		} else if (c[i].t == SV_INT) {
			b[i].buffer_type = MYSQL_TYPE_LONGLONG;
			b[i].buffer = &c[i].i;
		} else {
			b[i].buffer_type = MYSQL_TYPE_DOUBLE;
			b[i].buffer = &c[i].d;
		}
	}
}

/* The row callback of resultdb_run: 0 to go on, else stop with it. */
typedef int (*resultdb_row_fn)(void *arg, struct resultdb_col *c);

/* Prepares sql, binds the n values v, executes it and, with nc > 0,
 * calls row for every row fetched into c.  Returns 0, row's non-zero,
 * or as resultdb_sqlerr(). */
static int resultdb_run(struct resultdb *st, const char *sql,
		     const struct resultdb_val *v, int n, struct resultdb_col *c,
		     int nc, resultdb_row_fn row, void *arg, char *err,
		     size_t errlen)
{
	MYSQL_BIND pb[24], cb[12];
	char *bufs[24] = { 0 };
	MYSQL_STMT *s;
	int i, rc = 0, f = 0, kept, failed = 0;

	if (!st->m || n > 24 || nc > 12)
		return util_fail(err, errlen, -EIO, "database: not connected");
	memset(pb, 0, sizeof(pb));
	memset(cb, 0, sizeof(cb));
	s = resultdb_prepare(st, sql, &kept);
	if (!s)
		return util_fail(err, errlen, -ENOMEM, "out of memory");
	if (mysql_stmt_errno(s) != 0 ||
	    mysql_stmt_param_count(s) != (unsigned long)n)
		goto fail;
	rc = resultdb_bind_params(st, v, n, pb, bufs);
	if (rc != 0 || (n && mysql_stmt_bind_param(s, pb)) ||
	    mysql_stmt_execute(s) != 0)
		goto fail;
	resultdb_bind_cols(c, nc, cb);
	if (nc && mysql_stmt_bind_result(s, cb) != 0)
		goto fail;
	while (nc && rc == 0 && ((f = mysql_stmt_fetch(s)) == 0 ||
				 f == MYSQL_DATA_TRUNCATED)) {
		for (i = 0; i < nc; i++) {
			size_t l = c[i].null ? 0 : c[i].len;

			if (c[i].t == SV_STR)
				c[i].s[l < sizeof(c[i].s) ? l :
				       sizeof(c[i].s) - 1] = 0;
		}
		rc = row(arg, c);
	}
	if (nc && rc == 0 && f == 1)
		goto fail;
	goto out;
fail:
	failed = 1;
	rc = rc == -ENOMEM ? util_fail(err, errlen, rc, "out of memory") :
		resultdb_sqlerr(st, mysql_stmt_errno(s), mysql_stmt_error(s),
			     sql, err, errlen);
out:
	if (st->m || !kept)
		resultdb_release(st, s, kept, failed);
	for (i = 0; i < n; i++)
		free(bufs[i]);
	return rc;
}

/* A statement without values or rows. */
static int resultdb_exec(struct resultdb *st, const char *sql,
		      const struct resultdb_val *v, int n, char *err,
		      size_t errlen)
{
	return resultdb_run(st, sql, v, n, NULL, 0, NULL, NULL, err, errlen);
}

/* --- the schema ------------------------------------------------------- */

#define RESULTDB_TBL " ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin"
#define RESULTDB_RUN_FK " FOREIGN KEY (run_id) REFERENCES bb_runs (id) ON DELETE CASCADE"

/* Version 1 (docs/collect.md is its documentation: keep them in step). */
static const char *const resultdb_v1[] = {
	"CREATE TABLE bb_runs (id VARCHAR(128) NOT NULL PRIMARY KEY,"
	" created DATETIME NULL, suite VARCHAR(64) NOT NULL,"
	" suite_version VARCHAR(32) NOT NULL, controller VARCHAR(128),"
	" tool_version VARCHAR(32), lab VARCHAR(64), keyed TINYINT,"
	" server VARCHAR(255) NOT NULL, hosts_class CHAR(16) NOT NULL,"
	" image_digest VARCHAR(80), partial TINYINT NOT NULL,"
	" file VARCHAR(255) NOT NULL, bytes BIGINT NOT NULL,"
	" error VARCHAR(255), indexed DATETIME NOT NULL,"
	" KEY comparable (suite, suite_version, server, hosts_class, created),"
	" KEY by_created (created), KEY by_digest (image_digest))" RESULTDB_TBL,
	"CREATE TABLE bb_hosts (run_id VARCHAR(128) NOT NULL, idx INT NOT NULL,"
	" host_id VARCHAR(128), role VARCHAR(32), arch VARCHAR(32),"
	" cpu VARCHAR(128), cpus INT, mem_kb BIGINT, kernel VARCHAR(255),"
	" image VARCHAR(64), image_release VARCHAR(128),"
	" image_digest VARCHAR(80), address VARCHAR(64), facts MEDIUMTEXT,"
	" PRIMARY KEY (run_id, idx), KEY by_host (host_id),"
	" KEY by_digest (image_digest)," RESULTDB_RUN_FK ")" RESULTDB_TBL,
	"CREATE TABLE bb_steps (run_id VARCHAR(128) NOT NULL, idx INT NOT NULL,"
	" name VARCHAR(96) NOT NULL, step VARCHAR(64) NOT NULL,"
	" concurrency INT NOT NULL, repeats INT NOT NULL,"
	" complete INT NOT NULL, invalid INT NOT NULL, skipped VARCHAR(255),"
	" warmup_s DOUBLE, duration_s DOUBLE, sm_intervals INT,"
	" sm_running DOUBLE, sm_idle DOUBLE, sm_cs DOUBLE, sm_free DOUBLE,"
	" sm_intr DOUBLE, sm_bo DOUBLE, sm_load DOUBLE, sm_swap DOUBLE,"
	" probe_seconds INT, probe_lost_pct DOUBLE, probe_stddev_pct DOUBLE,"
	" PRIMARY KEY (run_id, idx), KEY by_name (name)," RESULTDB_RUN_FK ")"
	RESULTDB_TBL,
	"CREATE TABLE bb_workloads (run_id VARCHAR(128) NOT NULL,"
	" step_idx INT NOT NULL, workload VARCHAR(48) NOT NULL,"
	" metric VARCHAR(40) NOT NULL, errors DOUBLE, successes DOUBLE,"
	" failures DOUBLE, error_rate DOUBLE, stddev_ns DOUBLE,"
	" PRIMARY KEY (run_id, step_idx, workload)," RESULTDB_RUN_FK ")"
	RESULTDB_TBL,
	"CREATE TABLE bb_figures (run_id VARCHAR(128) NOT NULL,"
	" step_idx INT NOT NULL, workload VARCHAR(48) NOT NULL,"
	" figure VARCHAR(8) NOT NULL, n INT NOT NULL, mean DOUBLE,"
	" median DOUBLE, ci_lo DOUBLE, ci_hi DOUBLE,"
	" PRIMARY KEY (run_id, step_idx, workload, figure)," RESULTDB_RUN_FK ")"
	RESULTDB_TBL,
	"CREATE TABLE bb_repeats (run_id VARCHAR(128) NOT NULL,"
	" step_idx INT NOT NULL, rep INT NOT NULL,"
	" workload VARCHAR(48) NOT NULL, complete TINYINT NOT NULL,"
	" invalid TINYINT NOT NULL, thr DOUBLE, p50_ns DOUBLE, p99_ns DOUBLE,"
	" failures DOUBLE,"
	" PRIMARY KEY (run_id, step_idx, rep, workload)," RESULTDB_RUN_FK ")"
	RESULTDB_TBL,
	"CREATE TABLE bb_regressions (run_id VARCHAR(128) NOT NULL,"
	" step VARCHAR(96) NOT NULL, workload VARCHAR(48) NOT NULL,"
	" figure VARCHAR(8) NOT NULL, worse TINYINT NOT NULL,"
	" base DOUBLE, now DOUBLE, change_pct DOUBLE, baseline_runs INT,"
	" PRIMARY KEY (run_id, step, workload, figure)," RESULTDB_RUN_FK ")"
	RESULTDB_TBL,
	NULL,
};

/* Version 2: the server_identity object of a run against a server with
 * no agent of ours (docs/result-schema.md), whole, as JSON: what the
 * "server" key sums up. */
static const char *const resultdb_v2[] = {
	"ALTER TABLE bb_runs ADD COLUMN server_identity TEXT NULL"
	" AFTER server",
	NULL,
};

/* Every version's statements, in order: index v - 1 makes version v. */
static const char *const *const resultdb_migrations[RESULTDB_SCHEMA_VERSION] = {
	resultdb_v1, resultdb_v2,
};

static int resultdb_row_int(void *arg, struct resultdb_col *c)
{
	*(long long *)arg = c[0].null ? 0 : c[0].i;
	return 0;
}

/* The schema's version (0: none yet). */
static int resultdb_version(struct resultdb *st, long long *ver, char *err,
			 size_t errlen)
{
	struct resultdb_col c = { .t = SV_INT };

	*ver = 0;
	return resultdb_run(st, "SELECT MAX(version) FROM bb_schema", NULL, 0,
			 &c, 1, resultdb_row_int, ver, err, errlen);
}

/* Applies every version after the database's.  DDL commits implicitly
 * in MySQL, so each version's tables and its bb_schema row go in order:
 * a migration cut short is redone from its first CREATE ... IF NOT
 * EXISTS-free statement by hand (docs/collect.md says how). */
static int resultdb_migrate(struct resultdb *st, char *err, size_t errlen)
{
	long long ver, got = 0;
	struct resultdb_col c = { .t = SV_INT };
	int rc, i;

	rc = resultdb_run(st, "SELECT GET_LOCK('benchboot.store', 30)", NULL, 0,
		       &c, 1, resultdb_row_int, &got, err, errlen);
	if (rc == 0 && got != 1)
		return util_fail(err, errlen, -EIO, "database: another collector holds the migration lock for over 30 s");
	if (rc == 0)
		rc = resultdb_exec(st, "CREATE TABLE IF NOT EXISTS bb_schema"
				" (version INT NOT NULL PRIMARY KEY,"
				" applied DATETIME NOT NULL)" RESULTDB_TBL,
				NULL, 0, err, errlen);
	if (rc == 0)
		rc = resultdb_version(st, &ver, err, errlen);
	if (rc == 0 && ver > RESULTDB_SCHEMA_VERSION)
		rc = util_fail(err, errlen, -EPROTO, "database: schema version %lld is newer than this benchboot's %d: use a newer benchboot",
			       ver, RESULTDB_SCHEMA_VERSION);
	for (; rc == 0 && ver < RESULTDB_SCHEMA_VERSION; ver++) {
		struct resultdb_val v[] = { VI(ver + 1) };

		for (i = 0; rc == 0 && resultdb_migrations[ver][i]; i++)
			rc = resultdb_exec(st, resultdb_migrations[ver][i], NULL, 0,
					err, errlen);
		if (rc == 0)
			rc = resultdb_exec(st, "INSERT INTO bb_schema"
					" VALUES (?, UTC_TIMESTAMP())", v, 1,
					err, errlen);
	}
	if (st->m)
		mysql_query(st->m, "DO RELEASE_LOCK('benchboot.store')");
	return rc;
}

/* --- connection ------------------------------------------------------- */

struct resultdb *resultdb_new(const struct resultdb_url *u, unsigned timeout_s)
{
	struct resultdb *st = calloc(1, sizeof(*st));

	if (st) {
		st->url = *u;
		st->timeout_s = timeout_s;
	}
	return st;
}

int resultdb_connect(struct resultdb *st, char *err, size_t errlen)
{
	struct sql_target tg = {
		.host = st->url.host, .user = st->url.user,
		.password = st->url.pass, .db = st->url.db,
		.port = st->url.port, .timeout_s = st->timeout_s,
	};
	int cls, rc;

	if (st->m && mysql_ping(st->m) == 0)
		return 0;
	resultdb_disconnect(st);
	st->m = sql_connect(&tg, err, errlen, &cls);
	if (!st->m)
		return -EIO;
	/* Strict: a value the schema cannot hold is an error, never a
	 * silent cut; UTC, as the documents' times are. */
	if (mysql_set_character_set(st->m, "utf8mb4") != 0 ||
	    mysql_query(st->m, "SET SESSION sql_mode = 'STRICT_ALL_TABLES,"
			"NO_ZERO_DATE,NO_ENGINE_SUBSTITUTION',"
			" time_zone = '+00:00'") != 0)
		return resultdb_sqlerr(st, mysql_errno(st->m),
				    mysql_error(st->m), "session", err, errlen);
	rc = resultdb_migrate(st, err, errlen);
	if (rc != 0)
		resultdb_disconnect(st);
	return rc;
}

void resultdb_free(struct resultdb *st)
{
	if (!st)
		return;
	resultdb_disconnect(st);
	memset(st->url.pass, 0, sizeof(st->url.pass));
	free(st);
}

/* --- comparability ---------------------------------------------------- */

static const char *resultdb_str(const cJSON *o, const char *k)
{
	const cJSON *j = cJSON_GetObjectItemCaseSensitive(o, k);

	return cJSON_IsString(j) ? j->valuestring : NULL;
}

static int resultdb_strcmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* hosts_class: FNV-1a over the sorted "role|arch|cpu|cpus" lines. */
static void resultdb_class(const cJSON *hosts, char *out, size_t olen)
{
	char *line[64];
	const cJSON *h;
	uint64_t x = 1469598103934665603ull;
	int n = 0, i;

	cJSON_ArrayForEach(h, hosts) {
		const char *role = resultdb_str(h, "role");
		const cJSON *cp = cJSON_GetObjectItemCaseSensitive(h, "cpus");

		if (!role || strcmp(role, "controller") == 0 || n == 64)
			continue;
		if (asprintf(&line[n], "%s|%s|%s|%d", role,
			     resultdb_str(h, "arch") ? resultdb_str(h, "arch") : "",
			     resultdb_str(h, "cpu") ? resultdb_str(h, "cpu") : "",
			     cJSON_IsNumber(cp) ? cp->valueint : 0) < 0)
			continue;
		n++;
	}
	qsort(line, (size_t)n, sizeof(line[0]), resultdb_strcmp);
	for (i = 0; i < n; i++) {
		const unsigned char *p = (const unsigned char *)line[i];

		for (; *p; p++)
			x = (x ^ *p) * 1099511628211ull;
		x = (x ^ '\n') * 1099511628211ull;
		free(line[i]);
	}
	snprintf(out, olen, "%s", "");
	if (n)
		snprintf(out, olen, "%016llx", (unsigned long long)x);
}

void resultdb_keys(const struct report_res *r, char *server, size_t slen,
		char *hosts_class, size_t hlen)
{
	const cJSON *env = cJSON_GetObjectItemCaseSensitive(r->doc,
							    "environment");
	const cJSON *hosts = cJSON_GetObjectItemCaseSensitive(env, "hosts");
	const cJSON *si = cJSON_GetObjectItemCaseSensitive(r->doc,
							   "server_identity");
	const cJSON *h;

	snprintf(server, slen, "%s", "");
	if (cJSON_IsObject(si)) {
		const cJSON *http = cJSON_GetObjectItemCaseSensitive(si,
								     "http");
		const cJSON *sql = cJSON_GetObjectItemCaseSensitive(si, "sql");
		const char *hs = resultdb_str(http, "server"),
			*sv = resultdb_str(sql, "version");

		snprintf(server, slen, "%s%s%s%s%s",
			 resultdb_str(si, "host") ? resultdb_str(si, "host") : "?",
			 hs ? " " : "", hs ? hs : "", sv ? " " : "",
			 sv ? sv : "");
	} else {
		cJSON_ArrayForEach(h, hosts) {
			const char *role = resultdb_str(h, "role");

			if (role && strncmp(role, "server", 6) == 0 &&
			    resultdb_str(h, "id")) {
				snprintf(server, slen, "%s",
					 resultdb_str(h, "id"));
				break;
			}
		}
	}
	resultdb_class(hosts, hosts_class, hlen);
}

/* --- indexing --------------------------------------------------------- */

/* "YYYY-MM-DDTHH:MM:SSZ" as DATETIME text into out (20 bytes), or NULL
 * for anything else. */
static const char *resultdb_datetime(const char *s, char *out)
{
	static const char pat[] = "dddd-dd-ddTdd:dd:ddZ";
	int i;

	if (!s || strlen(s) != sizeof(pat) - 1)
		return NULL;
	for (i = 0; pat[i]; i++)
		if (pat[i] == 'd' ? s[i] < '0' || s[i] > '9' : s[i] != pat[i])
			return NULL;
	snprintf(out, 20, "%.10s %.8s", s, s + 11);
	return out;
}

static double resultdb_num(const cJSON *o, const char *k, double dflt)
{
	const cJSON *j = cJSON_GetObjectItemCaseSensitive(o, k);

	return cJSON_IsNumber(j) ? j->valuedouble : dflt;
}

/* The image digest that stands for the run: its server's, else the
 * first host's that has one. */
static const char *resultdb_run_digest(const cJSON *hosts)
{
	const cJSON *h;
	const char *d = NULL;

	cJSON_ArrayForEach(h, hosts) {
		const char *role = resultdb_str(h, "role");

		if (!resultdb_str(h, "image_digest"))
			continue;
		if (role && strncmp(role, "server", 6) == 0)
			return resultdb_str(h, "image_digest");
		if (!d)
			d = resultdb_str(h, "image_digest");
	}
	return d;
}

/* The bb_runs row of r (error: why it could not be parsed, or NULL). */
static int resultdb_put_run(struct resultdb *st, const struct report_res *r,
			 const char *id, const char *file, size_t bytes,
			 const char *error, char *err, size_t errlen)
{
	const cJSON *doc = r ? r->doc : NULL;
	const cJSON *lab = cJSON_GetObjectItemCaseSensitive(doc, "lab");
	const cJSON *env = cJSON_GetObjectItemCaseSensitive(doc,
							    "environment");
	const cJSON *keyed = cJSON_GetObjectItemCaseSensitive(lab, "keyed");
	char server[256] = "", cls[32] = "", dt[20], *ident;
	struct resultdb_val v[16];
	int rc;

	if (r)
		resultdb_keys(r, server, sizeof(server), cls, sizeof(cls));
	ident = cJSON_PrintUnformatted(cJSON_GetObjectItemCaseSensitive(
		doc, "server_identity"));
	v[0] = (struct resultdb_val)VS(id, 128);
	v[1] = (struct resultdb_val)VS(r ? resultdb_datetime(r->created, dt) : NULL,
				    19);
	v[2] = (struct resultdb_val)VS(r ? r->suite : "", 64);
	v[3] = (struct resultdb_val)VS(r ? r->suite_version : "", 32);
	v[4] = (struct resultdb_val)VS(r ? r->controller : NULL, 128);
	v[5] = (struct resultdb_val)VS(r ? r->tool_version : NULL, 32);
	v[6] = (struct resultdb_val)VS(resultdb_str(lab, "name"), 64);
	v[7] = cJSON_IsBool(keyed) ? (struct resultdb_val)VI(
		cJSON_IsTrue(keyed)) : (struct resultdb_val)VN;
	v[8] = (struct resultdb_val)VS(server, 255);
	v[9] = (struct resultdb_val)VS(cls, 16);
	v[10] = (struct resultdb_val)VS(resultdb_run_digest(
		cJSON_GetObjectItemCaseSensitive(env, "hosts")), 80);
	v[11] = (struct resultdb_val)VI(cJSON_IsTrue(
		cJSON_GetObjectItemCaseSensitive(doc, "partial")));
	v[12] = (struct resultdb_val)VS(file, 255);
	v[13] = (struct resultdb_val)VI(bytes);
	v[14] = (struct resultdb_val)VS(error, 255);
	/* The whole object, or none: cut JSON is no JSON. */
	v[15] = (struct resultdb_val)VS(ident && strlen(ident) < 65535 ? ident :
				     NULL, 65535);
	rc = resultdb_exec(st, "INSERT INTO bb_runs (id, created, suite,"
			" suite_version, controller, tool_version, lab, keyed,"
			" server, hosts_class, image_digest, partial, file,"
			" bytes, error, server_identity, indexed) VALUES (?, ?,"
			" ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?,"
			" UTC_TIMESTAMP())", v, 16, err, errlen);
	free(ident);
	return rc;
}

/* One bb_hosts row per environment.hosts[] entry, the whole entry kept
 * as JSON in facts. */
static int resultdb_put_hosts(struct resultdb *st, const struct report_res *r,
			   char *err, size_t errlen)
{
	const cJSON *env = cJSON_GetObjectItemCaseSensitive(r->doc,
							    "environment");
	const cJSON *h;
	int idx = 0, rc = 0;

	cJSON_ArrayForEach(h, cJSON_GetObjectItemCaseSensitive(env, "hosts")) {
		char *facts = cJSON_PrintUnformatted(h);
		double cpus = resultdb_num(h, "cpus", NAN),
			mem = resultdb_num(h, "mem_kb", NAN);
		struct resultdb_val v[] = {
			VS(r->id, 128), VI(idx), VS(resultdb_str(h, "id"), 128),
			VS(resultdb_str(h, "role"), 32),
			VS(resultdb_str(h, "arch"), 32),
			VS(resultdb_str(h, "cpu"), 128),
			isfinite(cpus) ? (struct resultdb_val)VI(cpus) :
				(struct resultdb_val)VN,
			isfinite(mem) ? (struct resultdb_val)VI(mem) :
				(struct resultdb_val)VN,
			VS(resultdb_str(h, "kernel"), 255),
			VS(resultdb_str(h, "image"), 64),
			VS(resultdb_str(h, "image_release"), 128),
			VS(resultdb_str(h, "image_digest"), 80),
			VS(resultdb_str(h, "address"), 64),
			/* A host longer than the column is not kept cut
			 * (cut JSON is no JSON): NULL, its columns stay. */
			VS(facts && strlen(facts) < 16000000 ? facts : NULL,
			   16000000),
		};

		rc = resultdb_exec(st, "INSERT INTO bb_hosts VALUES (?, ?, ?, ?,"
				" ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", v, 14, err,
				errlen);
		free(facts);
		if (rc != 0)
			return rc;
		idx++;
	}
	return 0;
}

#define VSTAT_OPT(c, x) ((c) ? (struct resultdb_val)VD(x) : (struct resultdb_val)VN)

/* The bb_steps row of step i. */
static int resultdb_put_step(struct resultdb *st, const struct report_res *r,
			  int i, char *err, size_t errlen)
{
	const struct report_step *s = &r->steps[i];
	int sm = s->sm_n > 0, pb = s->pb_seconds > 0;
	struct resultdb_val v[23] = {
		VS(r->id, 128), VI(i), VS(s->name, 96), VS(s->step, 64),
		VI(s->conc), VI(s->repeats), VI(s->complete), VI(s->invalid),
		VS(s->skipped, 255), VD(s->warmup_s), VD(s->duration_s),
		sm ? (struct resultdb_val)VI(s->sm_n) : (struct resultdb_val)VN,
	};
	int k;

	for (k = 0; k < REPORT_SM_N; k++)
		v[12 + k] = VSTAT_OPT(sm, s->sm[k]);
	v[20] = pb ? (struct resultdb_val)VI(s->pb_seconds) : (struct resultdb_val)VN;
	v[21] = VSTAT_OPT(pb, s->pb_lost_pct);
	v[22] = VSTAT_OPT(pb, s->pb_stddev_pct);
	return resultdb_exec(st, "INSERT INTO bb_steps VALUES (?, ?, ?, ?, ?, ?,"
			  " ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
			  v, 23, err, errlen);
}

/* The bb_workloads row and the bb_figures rows of one workload. */
static int resultdb_put_wl(struct resultdb *st, const struct report_res *r,
			int i, const struct report_wl *w, char *err,
			size_t errlen)
{
	static const char *const fig[] = { "thr", "p50", "p99" };
	const struct report_stat *fs[] = { &w->thr, &w->p50, &w->p99 };
	double er = report_wl_error_rate(w);
	struct resultdb_val v[] = {
		VS(r->id, 128), VI(i), VS(w->name, 48), VS(w->metric, 40),
		VD(w->errors), VSTAT_OPT(w->has_rate, w->succ),
		VSTAT_OPT(w->has_rate, w->fail), VSTAT_OPT(er >= 0, er),
		VSTAT_OPT(w->sd_ns >= 0, w->sd_ns),
	};
	int k, rc;

	rc = resultdb_exec(st, "INSERT INTO bb_workloads VALUES (?, ?, ?, ?, ?,"
			" ?, ?, ?, ?)", v, 9, err, errlen);
	for (k = 0; rc == 0 && k < 3; k++) {
		struct resultdb_val f[] = {
			VS(r->id, 128), VI(i), VS(w->name, 48), VS(fig[k], 8),
			VI(fs[k]->n), VD(fs[k]->mean), VD(fs[k]->median),
			VD(fs[k]->lo), VD(fs[k]->hi),
		};

		if (fs[k]->n > 0)
			rc = resultdb_exec(st, "INSERT INTO bb_figures VALUES"
					" (?, ?, ?, ?, ?, ?, ?, ?, ?)", f, 9,
					err, errlen);
	}
	return rc;
}

/* The bb_repeats row of repeat rp (number no) of step i, workload w
 * (a "merged" entry): its throughput (the workload's success counter
 * per second), p50, p99 (h: scratch) and failures. */
static int resultdb_put_rep(struct resultdb *st, const struct report_res *r,
			 int i, int no, const cJSON *rp, const cJSON *w,
			 struct hist *h, char *err, size_t errlen)
{
	const struct report_wl *rw = report_find_wl(&r->steps[i], w->string);
	const char *m = rw ? rw->metric : result_success_counter(w->string);
	const cJSON *lat = cJSON_GetObjectItemCaseSensitive(w, "latency");
	const cJSON *rates = cJSON_GetObjectItemCaseSensitive(w, "rates");
	int hv = lat && hist_from_json(h, lat, NULL, 0) == 0;
	struct resultdb_val v[] = {
		VS(r->id, 128), VI(i), VI(no), VS(w->string, 48),
		VI(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(rp,
								 "complete"))),
		VI(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(rp,
								 "invalid"))),
		VD(m ? resultdb_num(rates, m, NAN) : NAN),
		VSTAT_OPT(hv, hv ? hist_percentile(h, 50) : 0),
		VSTAT_OPT(hv, hv ? hist_percentile(h, 99) : 0),
		VD(resultdb_num(w, "failures", NAN)),
	};

	return resultdb_exec(st, "INSERT INTO bb_repeats VALUES"
			  " (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", v, 10, err,
			  errlen);
}

/* The bb_repeats rows of step i: one per repeat and workload. */
static int resultdb_put_repeats(struct resultdb *st, const struct report_res *r,
			     int i, struct hist *h, char *err, size_t errlen)
{
	const cJSON *so = cJSON_GetArrayItem(
		cJSON_GetObjectItemCaseSensitive(r->doc, "steps"), i);
	const cJSON *rp, *w;
	int j = 0, rc = 0;

	cJSON_ArrayForEach(rp, cJSON_GetObjectItemCaseSensitive(so,
								"repeats")) {
		int no = (int)resultdb_num(rp, "repeat", j + 1);

		j++;
		cJSON_ArrayForEach(w, cJSON_GetObjectItemCaseSensitive(
					   rp, "merged")) {
			rc = resultdb_put_rep(st, r, i, no, rp, w, h, err,
					   errlen);
			if (rc != 0)
				return rc;
		}
	}
	return 0;
}

/* Every row of a parsed result but its run's. */
static int resultdb_put_body(struct resultdb *st, const struct report_res *r,
			  char *err, size_t errlen)
{
	struct hist *h = malloc(sizeof(*h));
	int i, k, rc;

	if (!h)
		return util_fail(err, errlen, -ENOMEM, "out of memory");
	rc = resultdb_put_hosts(st, r, err, errlen);
	for (i = 0; rc == 0 && i < r->nsteps; i++) {
		rc = resultdb_put_step(st, r, i, err, errlen);
		for (k = 0; rc == 0 && k < r->steps[i].nwl; k++)
			rc = resultdb_put_wl(st, r, i, &r->steps[i].wl[k], err,
					  errlen);
		if (rc == 0)
			rc = resultdb_put_repeats(st, r, i, h, err, errlen);
	}
	free(h);
	return rc;
}

/* --- regressions ------------------------------------------------------ */

int resultdb_judge(const struct report_stat *prev, int n,
		const struct report_stat *now, double threshold_pct,
		double *base, double *pct)
{
	double sum = 0;
	int i, m = 0, dir = 0, all = 1;

	for (i = 0; i < n; i++) {
		int side = now->mean > prev[i].mean ? 1 : -1;

		if (prev[i].n < 2)
			continue;
		sum += prev[i].mean;
		m++;
		if (report_significant(&prev[i], now) != 1 ||
		    (dir && side != dir))
			all = 0;
		dir = side;
	}
	*base = m ? sum / m : 0;
	*pct = m && *base != 0 ? (now->mean - *base) / fabs(*base) * 100 : 0;
	if (!m || !all || now->n < 2 || fabs(*pct) <= threshold_pct)
		return 0;
	return dir;
}

struct resultdb_idlist {
	char **ids;
	int n;
};

static int resultdb_id_row(void *arg, struct resultdb_col *c)
{
	struct resultdb_idlist *l = arg;
	char **np = realloc(l->ids, (size_t)(l->n + 1) * sizeof(*np));

	if (!np)
		return -ENOMEM;
	l->ids = np;
	l->ids[l->n] = strdup(c[0].s);
	return l->ids[l->n++] ? 0 : -ENOMEM;
}

/* One figure of one previous run (resultdb_prev_row). */
struct resultdb_prev {
	char step[97], wl[49], fig[9];	/* the columns' lengths */
	struct report_stat s;
};

struct resultdb_prevs {
	struct resultdb_prev *p;
	int n, cap;
	struct resultdb_idlist runs;	/* the window's run ids */
};

static int resultdb_prev_row(void *arg, struct resultdb_col *c)
{
	struct resultdb_prevs *ps = arg;
	struct resultdb_prev *e;

	if (ps->n == ps->cap) {
		void *np = realloc(ps->p, (size_t)(ps->cap * 2 + 64) *
				   sizeof(*ps->p));

		if (!np)
			return -ENOMEM;
		ps->p = np;
		ps->cap = ps->cap * 2 + 64;
	}
	e = &ps->p[ps->n++];
	snprintf(e->step, sizeof(e->step), "%.96s", c[0].s);
	snprintf(e->wl, sizeof(e->wl), "%.48s", c[1].s);
	snprintf(e->fig, sizeof(e->fig), "%.8s", c[2].s);
	e->s = (struct report_stat){ .n = (int)c[3].i, .mean = c[4].d,
				     .median = c[5].d, .lo = c[6].d,
				     .hi = c[7].d };
	return 0;
}

/* The figures (thr, p99) of the window runs before r comparable with
 * it into ps. */
static int resultdb_window(struct resultdb *st, const struct report_res *r,
			int window, struct resultdb_prevs *ps, char *err,
			size_t errlen)
{
	char server[256], cls[32], dt[20];
	struct resultdb_col c[8] = { { .t = SV_STR }, { .t = SV_STR },
				  { .t = SV_STR }, { .t = SV_INT },
				  { .t = SV_DBL }, { .t = SV_DBL },
				  { .t = SV_DBL }, { .t = SV_DBL } };
	int i, rc;

	resultdb_keys(r, server, sizeof(server), cls, sizeof(cls));
	{
		struct resultdb_val v[] = {
			VS(r->suite, 64), VS(r->suite_version, 32),
			VS(server, 255), VS(cls, 16),
			VS(resultdb_datetime(r->created, dt), 19),
			VS(resultdb_datetime(r->created, dt), 19),
			VS(r->id, 128), VI(window),
		};

		rc = resultdb_run(st, "SELECT id FROM bb_runs WHERE suite = ?"
			       " AND suite_version = ? AND server = ?"
			       " AND hosts_class = ? AND error IS NULL"
			       " AND partial = 0 AND (created < ?"
			       " OR (created = ? AND id < ?))"
			       " ORDER BY created DESC, id DESC LIMIT ?",
			       v, 8, c, 1, resultdb_id_row, &ps->runs, err,
			       errlen);
	}
	for (i = 0; rc == 0 && i < ps->runs.n; i++) {
		struct resultdb_val v[] = { VS(ps->runs.ids[i], 128) };

		rc = resultdb_run(st, "SELECT s.name, f.workload, f.figure, f.n,"
			       " f.mean, f.median, f.ci_lo, f.ci_hi"
			       " FROM bb_figures f JOIN bb_steps s"
			       " ON s.run_id = f.run_id AND s.idx = f.step_idx"
			       " WHERE f.run_id = ?"
			       " AND f.figure IN ('thr', 'p99')", v, 1, c, 8,
			       resultdb_prev_row, ps, err, errlen);
	}
	return rc == -ENOMEM ? util_fail(err, errlen, rc, "out of memory") :
		rc;
}

/* Judges one figure of step s, workload w against the window; a change
 * is recorded in ch and bb_regressions. */
static int resultdb_judge_one(struct resultdb *st, const struct report_res *r,
			   const struct report_step *s,
			   const struct report_wl *w, const char *fig,
			   const struct resultdb_prevs *ps, double thr,
			   struct resultdb_changes *ch, char *err,
			   size_t errlen)
{
	const struct report_stat *now = fig[0] == 't' ? &w->thr : &w->p99;
	struct report_stat prev[64];
	struct resultdb_change c = { .now = now->mean };
	int i, n = 0, dir;

	for (i = 0; i < ps->n && n < 64; i++)
		if (strcmp(ps->p[i].step, s->name) == 0 &&
		    strcmp(ps->p[i].wl, w->name) == 0 &&
		    strcmp(ps->p[i].fig, fig) == 0)
			prev[n++] = ps->p[i].s;
	dir = resultdb_judge(prev, n, now, thr, &c.base, &c.pct);
	if (dir == 0)
		return 0;
	/* Fewer per second, or a longer p99, is the worse way. */
	c.worse = fig[0] == 't' ? dir < 0 : dir > 0;
	c.nbase = n;
	snprintf(c.step, sizeof(c.step), "%s", s->name);
	snprintf(c.wl, sizeof(c.wl), "%s", w->name);
	snprintf(c.figure, sizeof(c.figure), "%s", fig);
	if (ch && ch->n < RESULTDB_MAX_CHANGES)
		ch->c[ch->n++] = c;
	else if (ch)
		ch->dropped++;
	{
		struct resultdb_val v[] = {
			VS(r->id, 128), VS(c.step, 96), VS(c.wl, 48),
			VS(c.figure, 8), VI(c.worse), VD(c.base), VD(c.now),
			VD(c.pct), VI(c.nbase),
		};

		return resultdb_exec(st, "INSERT INTO bb_regressions VALUES"
				  " (?, ?, ?, ?, ?, ?, ?, ?, ?)", v, 9, err,
				  errlen);
	}
}

/* Every step's thr and p99 of r against its window. */
static int resultdb_regress(struct resultdb *st, const struct report_res *r,
			 int window, double thr, struct resultdb_changes *ch,
			 char *err, size_t errlen)
{
	struct resultdb_prevs ps = { 0 };
	char dt[20];
	int i, k, rc;

	if (ch)
		snprintf(ch->run, sizeof(ch->run), "%s", r->id);
	if (window <= 0 || !resultdb_datetime(r->created, dt) ||
	    cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(r->doc, "partial")))
		return 0;
	rc = resultdb_window(st, r, window, &ps, err, errlen);
	for (i = 0; rc == 0 && ps.runs.n && i < r->nsteps; i++)
		for (k = 0; rc == 0 && k < r->steps[i].nwl; k++) {
			rc = resultdb_judge_one(st, r, &r->steps[i],
					     &r->steps[i].wl[k], "thr", &ps,
					     thr, ch, err, errlen);
			if (rc == 0)
				rc = resultdb_judge_one(st, r, &r->steps[i],
						     &r->steps[i].wl[k], "p99",
						     &ps, thr, ch, err,
						     errlen);
		}
	for (i = 0; i < ps.runs.n; i++)
		free(ps.runs.ids[i]);
	free(ps.runs.ids);
	free(ps.p);
	return rc;
}

/* --- the entry points ------------------------------------------------- */

/* One transaction: the run's old rows out, its new rows in. */
static int resultdb_txn(struct resultdb *st, const struct report_res *r,
		     const char *id, const char *file, size_t bytes,
		     const char *why, char *err, size_t errlen)
{
	struct resultdb_val v[] = { VS(id, 128) };
	int rc;

	rc = resultdb_exec(st, "START TRANSACTION", NULL, 0, err, errlen);
	if (rc == 0)
		rc = resultdb_exec(st, "DELETE FROM bb_runs WHERE id = ?", v, 1,
				err, errlen);
	if (rc == 0)
		rc = resultdb_put_run(st, r, id, file, bytes, why, err, errlen);
	if (rc == 0 && r)
		rc = resultdb_put_body(st, r, err, errlen);
	if (rc == 0)
		rc = resultdb_exec(st, "COMMIT", NULL, 0, err, errlen);
	if (rc != 0 && st->m)
		mysql_rollback(st->m);
	return rc;
}

int resultdb_index(struct resultdb *st, const char *id, const char *text,
		size_t len, const char *file, int window, double threshold_pct,
		struct resultdb_changes *ch, char *err, size_t errlen)
{
	struct report_res r;
	char why[300];
	int rc;

	if (ch)
		ch->n = ch->dropped = 0, ch->run[0] = 0;
	rc = resultdb_connect(st, err, errlen);
	if (rc != 0)
		return rc;
	rc = report_parse(text, len, file, &r, why, sizeof(why));
	if (rc == 0 && strcmp(r.id, id) != 0) {
		snprintf(why, sizeof(why), "%s: its \"id\" is not its name's",
			 file);
		report_free(&r);
		rc = -EINVAL;
	}
	if (rc != 0) {
		rc = resultdb_txn(st, NULL, id, file, len, why, err, errlen);
		return rc ? rc : util_fail(err, errlen, -EINVAL, "%s", why);
	}
	rc = resultdb_txn(st, &r, id, file, len, NULL, err, errlen);
	if (rc == -EINVAL) {
		/* The server refused a row of it (strict mode: a value the
		 * schema cannot hold): recorded, so it is not retried. */
		snprintf(why, sizeof(why), "%s", err);
		rc = resultdb_txn(st, NULL, id, file, len, why, err, errlen);
		report_free(&r);
		return rc ? rc : util_fail(err, errlen, -EINVAL, "%s", why);
	}
	if (rc == 0)
		rc = resultdb_regress(st, &r, window, threshold_pct, ch, err,
				   errlen);
	report_free(&r);
	return rc;
}

int resultdb_ids(struct resultdb *st, char ***ids, int *n, char *err,
	      size_t errlen)
{
	struct resultdb_col c = { .t = SV_STR };
	struct resultdb_idlist l = { 0 };
	int rc, i;

	rc = resultdb_connect(st, err, errlen);
	if (rc == 0)
		rc = resultdb_run(st, "SELECT id FROM bb_runs", NULL, 0, &c, 1,
			       resultdb_id_row, &l, err, errlen);
	if (rc != 0) {
		for (i = 0; i < l.n; i++)
			free(l.ids[i]);
		free(l.ids);
		return rc == -ENOMEM ?
			util_fail(err, errlen, rc, "out of memory") : rc;
	}
	if (l.n)
		qsort(l.ids, (size_t)l.n, sizeof(*l.ids), resultdb_strcmp);
	*ids = l.ids;
	*n = l.n;
	return 0;
}

int resultdb_clear(struct resultdb *st, char *err, size_t errlen)
{
	int rc = resultdb_connect(st, err, errlen);

	/* The cascades take every other table's rows with their run's. */
	return rc ? rc : resultdb_exec(st, "DELETE FROM bb_runs", NULL, 0, err,
				    errlen);
}

/* --- listings ---------------------------------------------------------- */

/* The filter's SQL: constant text, two parameters per filter (the
 * first says whether it applies), so no value ever becomes SQL. */
#define RESULTDB_FILTER_SQL \
	" (? IS NULL OR EXISTS (SELECT 1 FROM bb_hosts h" \
	" WHERE h.run_id = r.id AND h.host_id = ?))" \
	" AND (? IS NULL OR r.suite = ?)" \
	" AND (? IS NULL OR r.suite_version = ?)" \
	" AND (? IS NULL OR EXISTS (SELECT 1 FROM bb_hosts h" \
	" WHERE h.run_id = r.id AND h.image_digest = ?))" \
	" AND (? IS NULL OR r.server = ?)" \
	" AND (? IS NULL OR r.created >= ?)" \
	" AND (? IS NULL OR r.created < ? + INTERVAL 1 DAY)"
#define RESULTDB_FILTER_N 14

/* f's 14 values into v. */
static void resultdb_filter_vals(const struct resultdb_filter *f,
			      struct resultdb_val *v)
{
	const char *s[] = { f->host, f->suite, f->version, f->digest,
			    f->server, f->from, f->to };
	static const size_t max[] = { 128, 64, 32, 80, 255, 10, 10 };
	int i;

	for (i = 0; i < 7; i++) {
		const char *x = s[i] && s[i][0] ? s[i] : NULL;

		v[2 * i] = (struct resultdb_val)VS(x, max[i]);
		v[2 * i + 1] = (struct resultdb_val)VS(x, max[i]);
	}
}

/* resultdb_run() after resultdb_connect(): what every listing does. */
static int resultdb_query(struct resultdb *st, const char *sql,
		       const struct resultdb_val *v, int n, struct resultdb_col *c,
		       int nc, resultdb_row_fn row, void *arg, char *err,
		       size_t errlen)
{
	int rc = resultdb_connect(st, err, errlen);

	return rc ? rc : resultdb_run(st, sql, v, n, c, nc, row, arg, err,
				   errlen);
}

struct resultdb_cb {
	void *fn;
	void *arg;
};

static int resultdb_runs_row(void *arg, struct resultdb_col *c)
{
	struct resultdb_cb *cb = arg;
	int (*fn)(void *, const struct resultdb_runrow *) = cb->fn;
	struct resultdb_runrow r = { .regressions = (int)c[8].i };

	snprintf(r.id, sizeof(r.id), "%.128s", c[0].s);
	snprintf(r.created, sizeof(r.created), "%.20s", c[1].s);
	snprintf(r.suite, sizeof(r.suite), "%.64s", c[2].s);
	snprintf(r.version, sizeof(r.version), "%.32s", c[3].s);
	snprintf(r.server, sizeof(r.server), "%s", c[4].s);
	snprintf(r.digest, sizeof(r.digest), "%.80s", c[5].s);
	snprintf(r.controller, sizeof(r.controller), "%.128s", c[6].s);
	snprintf(r.error, sizeof(r.error), "%s", c[7].s);
	return fn(cb->arg, &r);
}

int resultdb_runs(struct resultdb *st, const struct resultdb_filter *f, int limit,
	       int (*fn)(void *arg, const struct resultdb_runrow *r), void *arg,
	       char *err, size_t errlen)
{
	struct resultdb_val v[RESULTDB_FILTER_N + 1];
	struct resultdb_col c[9];
	struct resultdb_cb cb = { (void *)fn, arg };
	int i;

	for (i = 0; i < 9; i++)
		c[i] = (struct resultdb_col){ .t = i == 8 ? SV_INT : SV_STR };
	resultdb_filter_vals(f, v);
	v[RESULTDB_FILTER_N] = (struct resultdb_val)VI(limit);
	return resultdb_query(st, "SELECT r.id, DATE_FORMAT(r.created,"
			 " '%Y-%m-%dT%H:%i:%sZ'), r.suite, r.suite_version,"
			 " r.server, r.image_digest, r.controller, r.error,"
			 " (SELECT COUNT(*) FROM bb_regressions g"
			 " WHERE g.run_id = r.id AND g.worse = 1)"
			 " FROM bb_runs r WHERE" RESULTDB_FILTER_SQL
			 " ORDER BY r.created DESC, r.id DESC LIMIT ?",
			 v, RESULTDB_FILTER_N + 1, c, 9, resultdb_runs_row, &cb,
			 err, errlen);
}

static int resultdb_keys_row(void *arg, struct resultdb_col *c)
{
	struct resultdb_cb *cb = arg;
	int (*fn)(void *, const char *, const char *) = cb->fn;

	return fn(cb->arg, c[0].s, c[1].s);
}

int resultdb_trend_keys(struct resultdb *st, const struct resultdb_filter *f,
		     int (*fn)(void *arg, const char *step, const char *wl),
		     void *arg, char *err, size_t errlen)
{
	struct resultdb_val v[RESULTDB_FILTER_N];
	struct resultdb_col c[3] = { { .t = SV_STR }, { .t = SV_STR },
				  { .t = SV_INT } };
	struct resultdb_cb cb = { (void *)fn, arg };

	resultdb_filter_vals(f, v);
	return resultdb_query(st, "SELECT s.name, w.workload, MIN(s.idx)"
			 " FROM bb_runs r JOIN bb_steps s ON s.run_id = r.id"
			 " JOIN bb_workloads w ON w.run_id = r.id"
			 " AND w.step_idx = s.idx WHERE" RESULTDB_FILTER_SQL
			 " GROUP BY s.name, w.workload"
			 " ORDER BY MIN(s.idx), s.name, w.workload LIMIT 200",
			 v, RESULTDB_FILTER_N, c, 3, resultdb_keys_row, &cb, err,
			 errlen);
}

static int resultdb_trend_row(void *arg, struct resultdb_col *c)
{
	struct resultdb_cb *cb = arg;
	int (*fn)(void *, const struct resultdb_trendrow *) = cb->fn;
	struct resultdb_trendrow r = {
		.thr = { .n = c[3].null ? 0 : (int)c[3].i, .mean = c[4].d,
			 .median = c[4].d, .lo = c[5].d, .hi = c[6].d },
		.p99 = { .n = c[7].null ? 0 : (int)c[7].i, .mean = c[8].d,
			 .median = c[8].d, .lo = c[9].d, .hi = c[10].d },
	};

	snprintf(r.id, sizeof(r.id), "%.128s", c[0].s);
	snprintf(r.created, sizeof(r.created), "%.20s", c[1].s);
	snprintf(r.digest, sizeof(r.digest), "%.80s", c[2].s);
	return fn(cb->arg, &r);
}

int resultdb_trend(struct resultdb *st, const struct resultdb_filter *f,
		const char *step, const char *wl, int limit,
		int (*fn)(void *arg, const struct resultdb_trendrow *r),
		void *arg, char *err, size_t errlen)
{
	struct resultdb_val v[RESULTDB_FILTER_N + 4];
	struct resultdb_col c[11];
	struct resultdb_cb cb = { (void *)fn, arg };
	int i;

	for (i = 0; i < 11; i++)
		c[i] = (struct resultdb_col){ .t = i < 3 ? SV_STR :
					   i == 3 || i == 7 ? SV_INT : SV_DBL };
	v[0] = (struct resultdb_val)VS(wl, 48);
	v[1] = (struct resultdb_val)VS(wl, 48);
	v[2] = (struct resultdb_val)VS(step, 96);
	resultdb_filter_vals(f, v + 3);
	v[RESULTDB_FILTER_N + 3] = (struct resultdb_val)VI(limit);
	return resultdb_query(st, "SELECT r.id, DATE_FORMAT(r.created,"
			 " '%Y-%m-%dT%H:%i:%sZ'), r.image_digest,"
			 " t.n, t.mean, t.ci_lo, t.ci_hi,"
			 " p.n, p.mean, p.ci_lo, p.ci_hi"
			 " FROM bb_runs r JOIN bb_steps s ON s.run_id = r.id"
			 " LEFT JOIN bb_figures t ON t.run_id = r.id"
			 " AND t.step_idx = s.idx AND t.workload = ?"
			 " AND t.figure = 'thr'"
			 " LEFT JOIN bb_figures p ON p.run_id = r.id"
			 " AND p.step_idx = s.idx AND p.workload = ?"
			 " AND p.figure = 'p99'"
			 " WHERE s.name = ? AND" RESULTDB_FILTER_SQL
			 " ORDER BY r.created, r.id LIMIT ?",
			 v, RESULTDB_FILTER_N + 4, c, 11, resultdb_trend_row, &cb,
			 err, errlen);
}
