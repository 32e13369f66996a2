/* collector/webui.h: the collector's browsable pages (docs/collect.md#pages): the
 * runs in the database with filters, a run's report, any two runs
 * compared, trend charts; server-rendered HTML and SVG in the report's
 * style, no script, every string escaped. */
#ifndef BB_WEBUI_H
#define BB_WEBUI_H

#include <stddef.h>

#include "collector/webui_query.h"
#include "resultdb/resultdb_conn.h"

/* Renders the page r asks for, reading runs from st and result files
 * from dir.  Returns the HTTP status: 200 with the page in *body (*len
 * bytes, caller frees); else *body is NULL and err says why (400 a run
 * that cannot be compared or read, 404 no such run, 503 the database
 * is away, 500 out of memory). */
int webui_render(struct resultdb *st, const char *dir, const struct webui_req *r,
		char **body, size_t *len, char *err, size_t errlen);

#endif
