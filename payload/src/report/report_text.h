/* report/report_text.h: `benchboot report`'s terminal tables: one result,
 * or several side by side against the first (ratios, significance). */
#ifndef BB_REPORT_TEXT_H
#define BB_REPORT_TEXT_H

#include <stdio.h>

#include "result/result_doc.h"

/* Terminal tables for n results (the first is the baseline of every
 * ratio).  Returns 0 or -errno of the write. */
int report_text(FILE *out, struct result_doc *rs, int n);

#endif
