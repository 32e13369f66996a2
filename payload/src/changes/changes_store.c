/* changes/changes_store.c: one upload's change-point pass over the
 * index: only the series the upload touched, each analysed again over
 * its tail and its points replaced, those found before keeping when. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "changes/changes_edivisive.h"
#include "changes/changes_history.h"
#include "changes/changes_store.h"
#include "lib/util.h"
#include "resultdb/resultdb_changes.h"

/* The stored points of one series: which runs, found with what. */
struct changes_old {
	char (*run)[2][129];	/* run id, found_with */
	int n;
};

static int changes_old_row(void *arg, const struct resultdb_cpoint *p)
{
	struct changes_old *o = arg;
	char r[2][129];

	snprintf(r[0], sizeof(r[0]), "%s", p->run);
	snprintf(r[1], sizeof(r[1]), "%s", p->found_with);
	return util_array_push(&o->run, &o->n, r, sizeof(r));
}

/* Series s of h: detected, its points marked old or new, replaced. */
static int changes_store_series(struct changes_hist *h, int s,
				const char *run_id,
				const struct changes_opts *o,
				void (*found)(void *, const struct resultdb_cpoint *),
				void *arg, int *nnew, char *err, size_t errlen)
{
	struct changes_old old = { 0 };
	struct resultdb_cpoint *cp = NULL;
	int n = 0, i, j, rc;

	if (h->s[s].n == 0)
		return 0;
	rc = resultdb_changes_list(h->st, &h->s[s].k, NULL, NULL,
				   changes_old_row, &old, err, errlen);
	if (rc == 0)
		rc = changes_history_detect(h, s, o, &cp, &n, err, errlen);
	for (i = 0; rc == 0 && i < n; i++) {
		snprintf(cp[i].found_with, sizeof(cp[i].found_with), "%s",
			 run_id);
		for (j = 0; j < old.n; j++)
			if (strcmp(old.run[j][0], cp[i].run) == 0)
				snprintf(cp[i].found_with,
					 sizeof(cp[i].found_with), "%s",
					 old.run[j][1]);
	}
	if (rc == 0)
		rc = resultdb_changes_replace(h->st, &h->s[s].k,
					      h->runs[h->s[s].run[0]].id, cp,
					      n, err, errlen);
	for (i = 0; rc == 0 && i < n; i++)
		if (strcmp(cp[i].found_with, run_id) == 0) {
			(*nnew)++;
			if (found)
				found(arg, &cp[i]);
		}
	for (i = 0; i < n; i++)
		free(cp[i].changed);
	free(cp);
	free(old.run);
	return rc;
}

int changes_store_run(struct resultdb *st, const char *run_id,
		      const struct changes_opts *o,
		      void (*found)(void *arg, const struct resultdb_cpoint *p),
		      void *arg, int *nnew, char *err, size_t errlen)
{
	struct changes_hist h = { 0 };
	int i, rc, dummy = 0;

	if (!nnew)
		nnew = &dummy;
	*nnew = 0;
	rc = changes_history_from_db(&h, st, run_id, NULL, NULL, CHANGES_TAIL,
				    err, errlen);
	for (i = 0; rc == 0 && i < h.ns; i++)
		rc = changes_store_series(&h, i, run_id, o, found, arg, nnew,
					  err, errlen);
	changes_history_free(&h);
	return rc;
}
