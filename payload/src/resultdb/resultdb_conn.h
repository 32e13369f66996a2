/* resultdb/resultdb_conn.h: the connection to the collector's result
 * index on MariaDB/MySQL (docs/collect.md): the --db URL, the handle
 * that connects lazily and migrates the versioned schema forward, and the
 * prepared-statement calls the index, regression and listing modules run
 * their SQL through. */
#ifndef BB_RESULTDB_CONN_H
#define BB_RESULTDB_CONN_H

#include <stddef.h>

#include <mysql.h>

/* The schema version this benchboot writes; older ones are migrated. */
#define RESULTDB_SCHEMA_VERSION 3

/* Where the index lives: mysql://USER[:PASS]@HOST[:PORT]/DB. */
struct resultdb_url {
	char user[81];		/* MariaDB's limit is 80 characters */
	char pass[256];
	char host[256];		/* a name, IPv4, or an [IPv6] literal */
	char db[65];		/* [A-Za-z0-9_$], 64 at most */
	unsigned port;		/* 3306 when absent */
};

/* Parses url into u.  Returns 0, or -EINVAL with the reason in err: not
 * mysql:// (mariadb:// is the same), no user, no host, an IPv6 address
 * without brackets, a port outside 1..65535, no database or one with
 * other characters, a part too long.  %XX escapes are decoded in the
 * user and the password. */
int resultdb_parse_url(const char *url, struct resultdb_url *u, char *err,
		       size_t errlen);

/* Reads the password from the first line of path into u->pass (a file
 * keeps it out of ps and shell history).  Returns 0, or -errno / -EINVAL
 * (empty, or longer than the field) with the reason in err. */
int resultdb_password_file(struct resultdb_url *u, const char *path,
			   char *err, size_t errlen);

/* An open index (opaque). */
struct resultdb;

/* A new handle for u (copied): nothing is connected until the first
 * call that needs the database.  timeout_s bounds every connect, read and
 * write.  NULL when out of memory. */
struct resultdb *resultdb_new(const struct resultdb_url *u,
			      unsigned timeout_s);

/* Connects (when not connected) and migrates the schema forward to
 * RESULTDB_SCHEMA_VERSION under a named lock (two collectors on one
 * database migrate once).  Returns 0; -EIO when the database cannot be
 * reached or the connection broke (the handle is then disconnected and
 * the next call reconnects); -EPROTO when the database's schema is newer
 * than this benchboot's; -EINVAL when the server refused a statement.
 * The reason is in err. */
int resultdb_connect(struct resultdb *st, char *err, size_t errlen);

/* Closes the connection (if any) and frees st.  NULL is a no-op. */
void resultdb_free(struct resultdb *st);

/* --- statements (for the resultdb modules) ------------------------------ */

/* A bound value or a fetched column.  The short names keep the modules'
 * tables of values one line per row. */
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

/* The row callback of resultdb_run: 0 to go on, else stop with it. */
typedef int (*resultdb_row_fn)(void *arg, struct resultdb_col *c);

/* Where a handle of resultdb_new_exec() sends each statement: sql and
 * its n values as they would be bound for the server (each string cut to
 * its max bytes as valid UTF-8, in a copy valid for the call; a double
 * that is not finite as SV_NULL); with nc > 0 it may fill c and call row
 * (rarg) per row.  Returns 0 or as resultdb_run(), err filled. */
typedef int (*resultdb_exec_fn)(void *arg, const char *sql,
				const struct resultdb_val *v, int n,
				struct resultdb_col *c, int nc,
				resultdb_row_fn row, void *rarg, char *err,
				size_t errlen);

/* A handle with no server: resultdb_connect() succeeds at once and every
 * statement goes to fn (with arg) instead.  The seam through which a test
 * or fuzz target (fuzz_resultdb) sees every row the index would write;
 * production never makes one.  NULL when out of memory; freed with
 * resultdb_free(). */
struct resultdb *resultdb_new_exec(resultdb_exec_fn fn, void *arg);

/* Prepares sql (a string literal: statements are kept prepared by its
 * address), binds the n values v (each string cut to its max bytes as
 * valid UTF-8), executes it and, with nc > 0, calls row for every row
 * fetched into c.  Does not connect: resultdb_connect() first.  Returns
 * 0, row's non-zero, -ENOMEM, or -EIO (the database is away for now: the
 * connection is dropped) / -EINVAL (the server refused the statement)
 * with the reason in err. */
int resultdb_run(struct resultdb *st, const char *sql,
		 const struct resultdb_val *v, int n, struct resultdb_col *c,
		 int nc, resultdb_row_fn row, void *arg, char *err,
		 size_t errlen);

/* A statement without values or rows: resultdb_run() without rows. */
int resultdb_exec(struct resultdb *st, const char *sql,
		  const struct resultdb_val *v, int n, char *err,
		  size_t errlen);

/* Rolls back the open transaction, when connected. */
void resultdb_rollback(struct resultdb *st);

/* "YYYY-MM-DDTHH:MM:SSZ" (a document's time) as DATETIME text into out
 * (20 bytes), or NULL for anything else. */
const char *resultdb_datetime(const char *s, char *out);

/* Strings of column 0, collected by resultdb_id_row (caller frees each
 * and ids). */
struct resultdb_idlist {
	char **ids;
	int n;
};

/* A row callback appending c[0].s to the struct resultdb_idlist arg.
 * Returns 0 or -ENOMEM. */
int resultdb_id_row(void *arg, struct resultdb_col *c);

#endif
