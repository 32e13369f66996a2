/* fuzz_changes.c: libFuzzer target for the change-point reader: a result
 * file on a USB stick or an upload is anything anyone hands it.  Input
 * starting with '{' is a result document: what result_doc_parse()
 * accepts is added to a history twice (the second copy another run, a
 * day later, its hosts' first string fact changed), and what changed
 * between them is worked out from the hosts of any shape; it must be
 * NUL-terminated text within the column's size.  Other input is a series
 * of doubles for the detector, both tests: the points must be in order,
 * min_seg from either end, with a p in [0, 1] (0: beyond a double). */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "changes/changes_edivisive.h"
#include "changes/changes_history.h"
#include "result/result_doc.h"
#include "resultdb/resultdb_changes.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fuzz_series(const uint8_t *data, size_t size)
{
	double x[96];
	int n = 0, t, i;

	for (; size >= 8 && n < 96; data += 8, size -= 8) {
		memcpy(&x[n], data, 8);
		if (isfinite(x[n]) && fabs(x[n]) < 1e150)
			n++;
	}
	for (t = 0; t < 2; t++) {
		struct changes_opts o = { t ? CHANGES_PERM : CHANGES_TTEST, 0.1,
					  2 + (int)(size % 3), 19, 1 };
		struct changes_point *cp;
		int np;

		if (changes_edivisive(x, n, &o, &cp, &np) != 0)
			abort();
		for (i = 0; i < np; i++)
			if (cp[i].idx < o.min_seg || cp[i].idx > n - o.min_seg ||
			    (i && cp[i].idx <= cp[i - 1].idx) ||
			    !(cp[i].p >= 0 && cp[i].p <= 1))
				abort();
		free(cp);
	}
}

/* The second run: another id and day, a host fact changed. */
static void fuzz_twin(struct result_doc *r)
{
	cJSON *env = cJSON_GetObjectItemCaseSensitive(r->doc, "environment");
	cJSON *h = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(env,
							"hosts"), 1);
	cJSON *c;

	r->id = "fuzz-twin";
	r->created = "2099-01-01T00:00:00Z";
	cJSON_ArrayForEach(c, h)
		if (cJSON_IsString(c)) {
			cJSON_SetValuestring(c, "changed <b>");
			break;
		}
}

static void fuzz_doc(const uint8_t *data, size_t size)
{
	struct changes_hist h = { 0 };
	struct result_doc r;
	char err[300];
	char *w;
	int i;

	if (result_doc_parse((const char *)data, size, "fuzz", &r, err,
			     sizeof(err)) != 0)
		return;
	if (changes_history_add_doc(&h, &r) == 0 && h.nruns == 1) {
		fuzz_twin(&r);
		changes_history_add_doc(&h, &r);
	}
	changes_history_sort(&h);
	if (h.nruns == 2) {
		w = changes_history_what(&h, 0, 1, err, sizeof(err));
		if (w && strlen(w) > RESULTDB_CHANGED_MAX)
			abort();
		free(w);
	}
	for (i = 0; i < h.ns; i++) {
		struct resultdb_cpoint *cp;
		struct changes_opts o = CHANGES_DEFAULT_OPTS;
		int n, k;

		o.perms = 19;
		o.alpha = 0.1;
		if (changes_history_detect(&h, i, &o, &cp, &n, err,
					  sizeof(err)) != 0)
			continue;
		for (k = 0; k < n; k++)
			free(cp[k].changed);
		free(cp);
	}
	changes_history_free(&h);
	result_doc_free(&r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size && data[0] == '{')
		fuzz_doc(data, size);
	else
		fuzz_series(data, size);
	return 0;
}
