/* report/report_system.h: the system table of `benchboot report` and the
 * collector's run and compare pages: one column per host (per result and
 * host when results are compared), one row per fact of the hosts'
 * "system" (firmware, CPU, memory, kernel) and NICs, as the Phoronix Test
 * Suite shows it.  With two or more results the rows where a host's value
 * differs between them come first and are marked.  The renderers
 * (report_text.c, report_html.c) only lay it out. */
#ifndef BB_REPORT_SYSTEM_H
#define BB_REPORT_SYSTEM_H

#include <cjson/cJSON.h>

#include "result/result_doc.h"

#define REPORT_SYS_COLS 64	/* host columns kept */

struct report_sys_col {
	int run;		/* index into the results */
	const cJSON *host;	/* its environment.hosts[] entry (for a
				 * server measured through the kit: its
				 * server_identity.kit, with "system") */
	const char *role;	/* "server", "client", "kit server" */
	const char *id;		/* the host's id (into the document) */
	char slot[40];	/* "server 1", "client 2" or a host's id when it is
			 * in several results: the hosts compared */
};

struct report_sys_row {
	char label[48];
	char *cell[REPORT_SYS_COLS];	/* NULL: the host does not tell */
	int differs;	/* a host's value differs between the results */
	int same;	/* every column has the same value */
};

struct report_sys {
	int ncols, nrows, ndiffer;	/* differing rows come first */
	int compared;			/* two or more results */
	struct report_sys_col col[REPORT_SYS_COLS];
	struct report_sys_row *row;
};

/* Builds t from n results: columns are the hosts of environment.hosts[]
 * (with several results, grouped by slot -- the role and its ordinal --
 * so that the same host of each result stands side by side), rows the
 * facts any host tells (a row no host tells is left out).  Cells are
 * the documents' strings as they are (already free of control
 * characters: result_doc_parse); escaping is the renderer's.  Returns 0
 * or -ENOMEM; report_sys_free() either way. */
int report_sys_build(struct result_doc *rs, int n, struct report_sys *t);

void report_sys_free(struct report_sys *t);

#endif
