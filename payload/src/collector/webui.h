/* collector/webui.h: the collector's browsable pages (docs/collect.md#pages): the
 * runs in the database with filters, a run's report, any two runs
 * compared, trend charts; server-rendered HTML and SVG in the report's
 * style, no script, every string escaped. */
#ifndef BB_WEBUI_H
#define BB_WEBUI_H

#include <stddef.h>

#include "collector/webui_query.h"
#include "resultdb/resultdb.h"

/* Renders the page r asks for, reading runs from st and result files
 * from dir.  Returns the HTTP status: 200 with the page in *body (*len
 * bytes, caller frees); else *body is NULL and err says why (400 a run
 * that cannot be compared or read, 404 no such run, 503 the database
 * is away, 500 out of memory). */
int webui_render(struct resultdb *st, const char *dir, const struct webui_req *r,
		char **body, size_t *len, char *err, size_t errlen);

/* `benchboot report`, with results selected from the collector's
 * database: --db URL [--db-password-file F] --dir DIR (the collector's
 * files) and filters --host, --suite, --version, --digest, --server,
 * --from, --to (YYYY-MM-DD), --limit N (the newest N, default 20); the
 * selection, oldest first, then goes to report_main() with the other
 * options (--html, --csv, --force, --quiet), or with --trend OUT.html
 * the trend page of the selection (suite and version needed) is written
 * instead.  Without --db, report_main() itself.  Exit 0, 1 (the
 * database, a file, an output), 2 (usage). */
int webui_report_main(int argc, char **argv);

#endif
