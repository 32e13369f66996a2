/* report/report_cmd.h: the `benchboot report` command: result files, or
 * the runs a filter selects from the collector's database, rendered as
 * terminal tables, CSV and HTML (docs/report.md). */
#ifndef BB_REPORT_CMD_H
#define BB_REPORT_CMD_H

/* `benchboot report [--html OUT] [--csv OUT] [--force] [--quiet]
 * RESULT.json...`, or with --db the runs selected from the collector's
 * database (report_db_main(): its options, --trend).  Exit 0, 1 (a file
 * refused, the database, an output not written), 2 (usage). */
int report_main(int argc, char **argv);

#endif
