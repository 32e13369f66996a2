/* fuzz_resultdb.c: libFuzzer target for the collector's result index
 * (resultdb_index.c): a document's text, as anyone may upload it, through
 * validation, the rows of its run, hosts, steps, workloads, figures and
 * repeats, and the regression check, to the values bound for MariaDB.  No
 * server: the handle of resultdb_new_exec() hands every statement to a
 * recorder that checks what would be sent, so a value the server would
 * be given wrong traps here (corpus: the fixtures and 636's documents). */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "resultdb/resultdb_conn.h"
#include "resultdb/resultdb_index.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Whether s is valid UTF-8 (what the binding promises the server). */
static int fuzz_utf8(const unsigned char *s)
{
	size_t n, k;

	for (; *s; s += n) {
		n = *s < 0x80 ? 1 : (*s & 0xe0) == 0xc0 && *s >= 0xc2 ? 2 :
			(*s & 0xf0) == 0xe0 ? 3 :
			(*s & 0xf8) == 0xf0 && *s <= 0xf4 ? 4 : 0;
		if (n == 0)
			return 0;
		for (k = 1; k < n; k++)
			if ((s[k] & 0xc0) != 0x80)
				return 0;
	}
	return 1;
}

/* The recorder: every statement's placeholders each get a value; every
 * string is NUL-terminated (strlen under ASan), within its declared
 * length and valid UTF-8; every number finite, else NULL.  No rows come
 * back: the regression check sees no earlier runs. */
static int fuzz_exec(void *arg, const char *sql, const struct resultdb_val *v,
		     int n, struct resultdb_col *c, int nc,
		     resultdb_row_fn row, void *rarg, char *err, size_t errlen)
{
	unsigned long *stmts = arg;
	const char *p;
	int i, q = 0;

	(*stmts)++;
	for (p = sql; *p; p++)
		q += *p == '?';
	if (q != n || (n > 0 && !v))
		__builtin_trap();
	for (i = 0; i < n; i++) {
		switch (v[i].t) {
		case SV_NULL:
			break;
		case SV_STR:
			if (!v[i].s || v[i].max == 0 ||
			    strlen(v[i].s) > v[i].max ||
			    !fuzz_utf8((const unsigned char *)v[i].s))
				__builtin_trap();
			break;
		case SV_INT:
			break;
		case SV_DBL:
			if (!isfinite(v[i].d))
				__builtin_trap();
			break;
		default:
			__builtin_trap();
		}
	}
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned long stmts = 0;
	struct resultdb *st = resultdb_new_exec(fuzz_exec, &stmts);
	struct resultdb_changes ch;
	cJSON *doc = cJSON_ParseWithLength((const char *)data, size);
	const cJSON *idj = cJSON_GetObjectItemCaseSensitive(doc, "id");
	char id[200] = "fuzz", err[512] = "";
	int rc;

	if (!st)
		return 0;
	/* Its own id, so that a document gets past the name check. */
	if (cJSON_IsString(idj) && strlen(idj->valuestring) < sizeof(id))
		strcpy(id, idj->valuestring);
	cJSON_Delete(doc);
	rc = resultdb_index(st, id, (const char *)data, size, "fuzz.json", 5,
			    5, &ch, err, sizeof(err));
	/* Indexed, or refused with a reason, and the run's row written. */
	if ((rc != 0 && rc != -EINVAL) || stmts < 3 ||
	    memchr(err, 0, sizeof(err)) == NULL)
		__builtin_trap();
	resultdb_free(st);
	return 0;
}
