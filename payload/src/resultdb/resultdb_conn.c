/* resultdb/resultdb_conn.c: the connection to the result index through
 * mariadb-connector-c.  Every statement is a prepared one with bound
 * parameters (no value is ever spliced into SQL text) and every string
 * is cut to its column's length, as valid UTF-8, before it is bound. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mysql.h>

#include "dbconn/dbconn.h"
#include "lib/hostport.h"
#include "lib/util.h"
#include "resultdb/resultdb_conn.h"

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

/* HOST[:PORT] of hp..hp+n into u: lib/hostport with a URL's rule, an
 * IPv6 address only in brackets (a bare one would swallow the port). */
static int resultdb_hostport(const char *hp, size_t n, struct resultdb_url *u,
			     char *err, size_t errlen)
{
	struct hostport h;
	char why[HOSTPORT_ERRLEN];

	if (hostport_split(hp, n, HOSTPORT_BRACKETS, 3306, &h, why,
			   sizeof(why)) != 0)
		return util_fail(err, errlen, -EINVAL, "--db: %s", why);
	if (h.hostlen >= sizeof(u->host))
		return util_fail(err, errlen, -EINVAL,
				 "--db: no host, or one over %zu bytes",
				 sizeof(u->host) - 1);
	memcpy(u->host, h.host, h.hostlen);
	u->host[h.hostlen] = 0;
	u->port = h.port;
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
	resultdb_exec_fn exec;	/* resultdb_new_exec(): no server */
	void *exec_arg;
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
static int resultdb_bind_params(struct resultdb *st,
				const struct resultdb_val *v, int n,
				MYSQL_BIND *b, char **bufs)
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


/* resultdb_run() of a handle with no server: the values bound as for
 * the server, by the same code, handed to st->exec as resultdb_vals. */
static int resultdb_run_exec(struct resultdb *st, const char *sql,
			     const struct resultdb_val *v, int n,
			     struct resultdb_col *c, int nc,
			     resultdb_row_fn row, void *arg, char *err,
			     size_t errlen)
{
	struct resultdb_val bv[24];
	MYSQL_BIND pb[24];
	char *bufs[24] = { 0 };
	int i, rc;

	if (n < 0 || n > 24 || nc > 12)
		return util_fail(err, errlen, -EIO, "database: not connected");
	memset(pb, 0, sizeof(pb));
	rc = resultdb_bind_params(st, v, n, pb, bufs);
	for (i = 0; rc == 0 && i < n; i++) {
		bv[i] = v[i];
		if (pb[i].buffer_type == MYSQL_TYPE_STRING)
			bv[i].s = bufs[i];
		else if (pb[i].buffer_type == MYSQL_TYPE_NULL)
			bv[i] = (struct resultdb_val)VN;
	}
	rc = rc ? util_fail(err, errlen, rc, "out of memory") :
		st->exec(st->exec_arg, sql, bv, n, c, nc, row, arg, err,
			 errlen);
	for (i = 0; i < n; i++)
		free(bufs[i]);
	return rc;
}

/* Prepares sql, binds the n values v, executes it and, with nc > 0,
 * calls row for every row fetched into c.  Returns 0, row's non-zero,
 * or as resultdb_sqlerr(). */
int resultdb_run(struct resultdb *st, const char *sql,
		 const struct resultdb_val *v, int n, struct resultdb_col *c,
		 int nc, resultdb_row_fn row, void *arg, char *err,
		 size_t errlen)
{
	MYSQL_BIND pb[24], cb[12];
	char *bufs[24] = { 0 };
	MYSQL_STMT *s;
	int i, rc = 0, f = 0, kept, failed = 0;

	if (st->exec)
		return resultdb_run_exec(st, sql, v, n, c, nc, row, arg, err,
					 errlen);
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
int resultdb_exec(struct resultdb *st, const char *sql,
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

/* Version 3: the change points of every series (resultdb_changes.c,
 * docs/collect.md), with what changed at each. */
static const char *const resultdb_v3[] = {
	"CREATE TABLE bb_change_points (suite VARCHAR(64) NOT NULL,"
	" suite_version VARCHAR(32) NOT NULL, server VARCHAR(255) NOT NULL,"
	" hosts_class CHAR(16) NOT NULL, step VARCHAR(96) NOT NULL,"
	" workload VARCHAR(48) NOT NULL, figure VARCHAR(8) NOT NULL,"
	" run_id VARCHAR(128) NOT NULL, prev_run VARCHAR(128), p DOUBLE,"
	" before_mean DOUBLE, after_mean DOUBLE, change_pct DOUBLE,"
	" worse TINYINT NOT NULL, found_with VARCHAR(128) NOT NULL,"
	" found DATETIME NOT NULL, changed TEXT,"
	" PRIMARY KEY (suite, suite_version, server, hosts_class, step,"
	" workload, figure, run_id), KEY by_run (run_id)," RESULTDB_RUN_FK ")"
	RESULTDB_TBL,
	NULL,
};

/* Every version's statements, in order: index v - 1 makes version v. */
static const char *const *const resultdb_migrations[RESULTDB_SCHEMA_VERSION] = {
	resultdb_v1, resultdb_v2, resultdb_v3,
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
			rc = resultdb_exec(st, resultdb_migrations[ver][i],
					   NULL, 0, err, errlen);
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

struct resultdb *resultdb_new_exec(resultdb_exec_fn fn, void *arg)
{
	struct resultdb *st = calloc(1, sizeof(*st));

	if (st) {
		st->exec = fn;
		st->exec_arg = arg;
	}
	return st;
}

int resultdb_connect(struct resultdb *st, char *err, size_t errlen)
{
	struct dbconn_target tg = {
		.host = st->url.host, .user = st->url.user,
		.password = st->url.pass, .db = st->url.db,
		.port = st->url.port, .timeout_s = st->timeout_s,
	};
	uint64_t took;
	unsigned errnum;
	int rc;

	if (st->exec)
		return 0;
	if (st->m && mysql_ping(st->m) == 0)
		return 0;
	resultdb_disconnect(st);
	st->m = dbconn_connect(&tg, err, errlen, &errnum, &took);
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

void resultdb_rollback(struct resultdb *st)
{
	if (st->m)
		mysql_rollback(st->m);
}

/* --- helpers of the modules above ---------------------------------------- */

/* "YYYY-MM-DDTHH:MM:SSZ" as DATETIME text into out (20 bytes), or NULL
 * for anything else. */
const char *resultdb_datetime(const char *s, char *out)
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

int resultdb_id_row(void *arg, struct resultdb_col *c)
{
	struct resultdb_idlist *l = arg;
	char **np = realloc(l->ids, (size_t)(l->n + 1) * sizeof(*np));

	if (!np)
		return -ENOMEM;
	l->ids = np;
	l->ids[l->n] = strdup(c[0].s);
	return l->ids[l->n++] ? 0 : -ENOMEM;
}
