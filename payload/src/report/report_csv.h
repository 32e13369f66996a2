/* report/report_csv.h: `benchboot report --csv`: the figures of any
 * number of results as one CSV table, safe to open in a spreadsheet. */
#ifndef BB_REPORT_CSV_H
#define BB_REPORT_CSV_H

#include <stdio.h>

#include "result/result_doc.h"

/* CSV: a header, then one row per (result, workload, step, concurrency).
 * Returns 0 or -errno. */
int report_csv(FILE *out, struct result_doc *rs, int n);

#endif
