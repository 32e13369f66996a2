/* resultdb/resultdb.h: the collector's relational index of its results on
 * MariaDB/MySQL (docs/collect.md): a versioned schema migrated forward,
 * one transaction per result, idempotent by result id, rebuilt from the
 * files (the JSON files stay the source of truth), and the regression
 * check of a new result against the previous comparable ones. */
#ifndef BB_RESULTDB_H
#define BB_RESULTDB_H

#include <stddef.h>

#include "report/report.h"

/* The schema version this benchboot writes; older ones are migrated. */
#define RESULTDB_SCHEMA_VERSION 2

/* Where the index lives: mysql://USER[:PASS]@HOST[:PORT]/DB. */
struct resultdb_url {
	char user[81];		/* MariaDB's limit is 80 characters */
	char pass[256];
	char host[256];		/* a name, IPv4, or an [IPv6] literal */
	char db[65];		/* [A-Za-z0-9_$], 64 at most */
	unsigned port;		/* 3306 when absent */
};

/* Parses url into u.  Returns 0, or -EINVAL with the reason in err: not
 * mysql:// (mariadb:// is the same), no user, no host, a port outside
 * 1..65535, no database or one with other characters, a part too long.
 * %XX escapes are decoded in the user and the password. */
int resultdb_parse_url(const char *url, struct resultdb_url *u, char *err,
		    size_t errlen);

/* Reads the password from the first line of path into u->pass (a file
 * keeps it out of ps and shell history).  Returns 0, or -errno / -EINVAL
 * (empty, or longer than the field) with the reason in err. */
int resultdb_password_file(struct resultdb_url *u, const char *path, char *err,
			size_t errlen);

/* An open index (opaque). */
struct resultdb;

/* A new handle for u (copied): nothing is connected until the first
 * call that needs the database.  timeout_s bounds every connect, read and
 * write.  NULL when out of memory. */
struct resultdb *resultdb_new(const struct resultdb_url *u, unsigned timeout_s);

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

/* One figure of a step that moved beyond noise (resultdb_index()). */
struct resultdb_change {
	char step[96];		/* "http-static/c4" */
	char wl[48];		/* "http" */
	char figure[8];		/* "thr" or "p99" */
	double base, now;	/* the window's mean of means; this run's */
	double pct;		/* (now - base) / base, in % */
	int worse;		/* 1: a regression, 0: an improvement */
	int nbase;		/* comparable runs it was judged against */
};

/* What resultdb_index() found against the previous comparable runs. */
struct resultdb_changes {
	char run[130];		/* the result id */
	int n;			/* changes kept */
	int dropped;		/* those over RESULTDB_MAX_CHANGES */
	struct resultdb_change c[64];
};
#define RESULTDB_MAX_CHANGES 64

/* Indexes one result document, stored under id (text, len bytes; file
 * names it for the rows and messages), in one transaction, replacing
 * any rows of id (so indexing twice gives the same rows).  A document
 * report_parse() refuses, or whose "id" is not id, gets a runs row
 * whose "error" says why, and no other row.  Then, when window > 0,
 * compares every step's throughput and p99 with the window previous
 * comparable runs (resultdb_judge()) and records what moved in the
 * regressions table and in *ch (may be NULL).  Returns 0; -EINVAL for a
 * refused document (reason in err; indexed as such); -EIO / -EPROTO as
 * resultdb_connect(). */
int resultdb_index(struct resultdb *st, const char *id, const char *text,
		size_t len, const char *file, int window, double threshold_pct,
		struct resultdb_changes *ch, char *err, size_t errlen);

/* The ids the index holds, sorted (strcmp), into *ids (caller frees
 * each and the array); their count in *n.  Returns 0 or as
 * resultdb_connect(). */
int resultdb_ids(struct resultdb *st, char ***ids, int *n, char *err,
	      size_t errlen);

/* Deletes every result's rows (not the schema): --reindex's start.
 * Returns 0 or as resultdb_connect(). */
int resultdb_clear(struct resultdb *st, char *err, size_t errlen);

/* What a listing keeps (NULL or "": any). */
struct resultdb_filter {
	const char *host;	/* a host id of the run, any role */
	const char *suite, *version;
	const char *digest;	/* an image digest any host of it booted */
	const char *server;	/* bb_runs.server */
	const char *from, *to;	/* YYYY-MM-DD, UTC, both inclusive */
};

/* One run of a listing (strings cut to their columns). */
struct resultdb_runrow {
	char id[129], created[21], suite[65], version[33];
	char server[256], digest[81], controller[129];
	char error[256];	/* "" unless the document was unreadable */
	int regressions;	/* its bb_regressions rows with worse = 1 */
};

/* Calls fn for each run that f keeps, newest first, at most limit;
 * fn returns 0 to go on.  Returns 0, fn's non-zero, or as
 * resultdb_connect(). */
int resultdb_runs(struct resultdb *st, const struct resultdb_filter *f, int limit,
	       int (*fn)(void *arg, const struct resultdb_runrow *r), void *arg,
	       char *err, size_t errlen);

/* One run's point of a trend. */
struct resultdb_trendrow {
	char id[129], created[21], digest[81];
	struct report_stat thr, p99;	/* n == 0: the run has none */
};

/* The (step, workload) pairs the runs f keeps have, in their steps'
 * order: fn(arg, step, workload) for each. */
int resultdb_trend_keys(struct resultdb *st, const struct resultdb_filter *f,
		     int (*fn)(void *arg, const char *step, const char *wl),
		     void *arg, char *err, size_t errlen);

/* Step step's workload wl across the runs f keeps, oldest first (by
 * created, then id), at most limit: fn for each. */
int resultdb_trend(struct resultdb *st, const struct resultdb_filter *f,
		const char *step, const char *wl, int limit,
		int (*fn)(void *arg, const struct resultdb_trendrow *r),
		void *arg, char *err, size_t errlen);

/* Whether now moved beyond noise against the n previous figures prev:
 * significant by report_significant() against every one of them, all on
 * the same side, and its mean more than threshold_pct % away from the
 * mean of their means.  Returns +1 (higher), -1 (lower), or 0 (noise,
 * n == 0, or a figure without two repeats); *pct gets the change in %
 * of that mean of means (*base the mean itself) either way. */
int resultdb_judge(const struct report_stat *prev, int n,
		const struct report_stat *now, double threshold_pct,
		double *base, double *pct);

/* The comparability keys of a parsed result: server (what it ran
 * against: the server_identity's host and versions, else the id of its
 * host with role "server...") and hosts_class (16 hex digits: a hash of
 * every client's and server's role, arch, CPU model and count, sorted).
 * Either is "" when the result has none. */
void resultdb_keys(const struct report_res *r, char *server, size_t slen,
		char *hosts_class, size_t hlen);

#endif
