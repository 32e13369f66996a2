/* report/report_db.h: reports from the collector's database
 * (docs/collect.md): `benchboot report --db` selects runs by their
 * facts, and the trend page of a selection, which the collector's pages
 * serve too. */
#ifndef BB_REPORT_DB_H
#define BB_REPORT_DB_H

#include <stddef.h>
#include <stdio.h>

#include "resultdb/resultdb_conn.h"
#include "resultdb/resultdb_query.h"

/* Longest filter value, in bytes: the collector's pages take as much
 * (WEBUI_VAL_MAX). */
#define REPORT_DB_VAL_MAX 128

/* Whether a `benchboot report` command line has --db. */
int report_db_wanted(int argc, char **argv);

/* The command line report_db_main() leaves to the file mode. */
struct report_db_sel {
	char **argv;	/* argv[0], the options, the files; NULL: done */
	int argc;
	int first;	/* argv[first..argc) are the files (malloc'd) */
};

/* `benchboot report --db URL [--db-password-file F] --dir DIR` (the
 * collector's files) with the filters --host, --suite, --version,
 * --digest, --server, --from, --to (YYYY-MM-DD), --limit N (the newest
 * N, default 20).  With --trend OUT.html, writes the trend page of the
 * selection (suite and version needed) and returns with sel->argv NULL.
 * Otherwise puts in sel the file mode's command line: argv[0], the
 * other options (--html, --csv, --force, --quiet), then the selected
 * runs' files, oldest first.  Returns an exit status: 0, 1 (the
 * database, no run selected, the trend page not written), 2 (usage),
 * each refusal said on stderr.  report_db_free(sel) afterwards, in
 * every case. */
int report_db_main(int argc, char **argv, struct report_db_sel *sel);

/* Frees what report_db_main() put in sel. */
void report_db_free(struct report_db_sel *sel);

/* The filter form of the collector's pages (an HTML GET form to
 * /ui/ACTION: "" the index, "trend"), each field showing flt's value. */
void report_db_form(FILE *f, const struct resultdb_filter *flt,
		    const char *action);

/* The trend page of the runs flt keeps (its suite and version set): a
 * chart of throughput and one of p99 per (step, workload), one point per
 * run, oldest first, written to f.  Returns 0, -ENOMEM, or as
 * resultdb_trend() with the reason in err. */
int report_db_trend(FILE *f, struct resultdb *st,
		    const struct resultdb_filter *flt, char *err,
		    size_t errlen);

#endif
