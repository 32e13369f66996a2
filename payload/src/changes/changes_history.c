/* changes/changes_history.c: the history as series (from documents or
 * the index), the detector run over one, and what changed at a point:
 * the image, the server's versions and the hosts' facts that differ. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "changes/changes_edivisive.h"
#include "changes/changes_history.h"
#include "lib/util.h"
#include "result/result_doc.h"
#include "resultdb/resultdb_changes.h"
#include "resultdb/resultdb_regress.h"

/* The series with key k, added when new; -1 when out of memory. */
static int changes_find_series(struct changes_hist *h,
			       const struct resultdb_cp_key *k)
{
	struct changes_history s = { .k = *k };
	int i;

	for (i = h->ns - 1; i >= 0; i--)
		if (memcmp(&h->s[i].k, k, sizeof(*k)) == 0)
			return i;
	return util_array_push(&h->s, &h->ns, &s, sizeof(s)) ? -1 : h->ns - 1;
}

static int changes_add_point(struct changes_hist *h,
			     const struct resultdb_cp_key *k, int run, double y)
{
	int i = changes_find_series(h, k);
	struct changes_history *s;
	void *ny, *nr;

	if (i < 0)
		return -ENOMEM;
	s = &h->s[i];
	ny = realloc(s->y, (size_t)(s->n + 1) * sizeof(*s->y));
	if (ny)
		s->y = ny;
	nr = realloc(s->run, (size_t)(s->n + 1) * sizeof(*s->run));
	if (nr)
		s->run = nr;
	if (!ny || !nr)
		return -ENOMEM;
	s->y[s->n] = y;
	s->run[s->n++] = run;
	return 0;
}

/* The image digest of r's hosts: the server's, else the first one's. */
static void changes_doc_digest(const struct result_doc *r, char *out,
			       size_t len)
{
	const cJSON *env = cJSON_GetObjectItemCaseSensitive(r->doc,
							    "environment");
	const cJSON *h;

	out[0] = 0;
	cJSON_ArrayForEach(h, cJSON_GetObjectItemCaseSensitive(env, "hosts")) {
		const cJSON *d = cJSON_GetObjectItemCaseSensitive(h,
							"image_digest");
		const cJSON *role = cJSON_GetObjectItemCaseSensitive(h, "role");

		if (!cJSON_IsString(d))
			continue;
		if (!out[0] || (cJSON_IsString(role) &&
				strncmp(role->valuestring, "server", 6) == 0))
			snprintf(out, len, "%s", d->valuestring);
	}
}

static int changes_find_run(const struct changes_hist *h, const char *id)
{
	int i;

	for (i = h->nruns - 1; i >= 0; i--)
		if (strcmp(h->runs[i].id, id) == 0)
			return i;
	return -1;
}

int changes_history_add_doc(struct changes_hist *h, const struct result_doc *r)
{
	const cJSON *env = cJSON_GetObjectItemCaseSensitive(r->doc,
							    "environment");
	struct changes_run run = { .hosts = NULL };
	struct resultdb_cp_key k;
	char cls[32];
	int i, j, ri, rc = 0;

	if (!r->created || !r->id || changes_find_run(h, r->id) >= 0 ||
	    cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(r->doc, "partial")))
		return 0;
	snprintf(run.id, sizeof(run.id), "%.128s", r->id);
	snprintf(run.created, sizeof(run.created), "%.20s", r->created);
	changes_doc_digest(r, run.digest, sizeof(run.digest));
	resultdb_keys(r, run.server, sizeof(run.server), cls, sizeof(cls));
	run.hosts = cJSON_PrintUnformatted(
		cJSON_GetObjectItemCaseSensitive(env, "hosts"));
	if (!run.hosts)
		run.hosts = strdup("[]");
	if (!run.hosts || util_array_push(&h->runs, &h->nruns, &run,
					  sizeof(run))) {
		free(run.hosts);
		return -ENOMEM;
	}
	ri = h->nruns - 1;
	memset(&k, 0, sizeof(k));
	snprintf(k.suite, sizeof(k.suite), "%.64s", r->suite);
	snprintf(k.version, sizeof(k.version), "%.32s", r->suite_version);
	snprintf(k.server, sizeof(k.server), "%s", run.server);
	snprintf(k.hosts_class, sizeof(k.hosts_class), "%.16s", cls);
	for (i = 0; rc == 0 && i < r->nsteps; i++)
		for (j = 0; rc == 0 && j < r->steps[i].nwl; j++) {
			const struct result_doc_wl *w = &r->steps[i].wl[j];

			snprintf(k.step, sizeof(k.step), "%.96s",
				 r->steps[i].name);
			snprintf(k.wl, sizeof(k.wl), "%.48s", w->name);
			snprintf(k.figure, sizeof(k.figure), "thr");
			if (w->thr.n > 0)
				rc = changes_add_point(h, &k, ri, w->thr.mean);
			snprintf(k.figure, sizeof(k.figure), "p99");
			if (rc == 0 && w->p99.n > 0)
				rc = changes_add_point(h, &k, ri, w->p99.mean);
		}
	return rc;
}

/* Runs by time, then id; ties cannot be: ids are unique. */
static int changes_run_cmp(const void *a, const void *b)
{
	const struct changes_run *x = a, *y = b;
	int c = strcmp(x->created, y->created);

	return c ? c : strcmp(x->id, y->id);
}

/* qsort's comparison of (rank, y) pairs. */
struct changes_pair {
	int rank;
	double y;
};

static int changes_pair_cmp(const void *a, const void *b)
{
	const struct changes_pair *x = a, *y = b;

	return (x->rank > y->rank) - (x->rank < y->rank);
}

void changes_history_sort(struct changes_hist *h)
{
	int *rank, i, j;
	struct changes_run *old;

	old = malloc((size_t)h->nruns * sizeof(*old) + 1);
	rank = malloc((size_t)h->nruns * sizeof(*rank) + 1);
	if (!old || !rank) {
		/* Points stay in the order the runs came: files named
		 * oldest first (as a results partition lists them) still
		 * give the right series. */
		free(old);
		free(rank);
		return;
	}
	memcpy(old, h->runs, (size_t)h->nruns * sizeof(*old));
	qsort(h->runs, (size_t)h->nruns, sizeof(*h->runs), changes_run_cmp);
	/* rank[old index] = the run's index once sorted. */
	for (i = 0; i < h->nruns; i++)
		rank[i] = changes_find_run(h, old[i].id);
	for (i = 0; i < h->ns; i++) {
		struct changes_history *s = &h->s[i];
		struct changes_pair *p = malloc((size_t)s->n * sizeof(*p) + 1);

		if (!p)
			continue;
		for (j = 0; j < s->n; j++)
			p[j] = (struct changes_pair){ rank[s->run[j]], s->y[j] };
		qsort(p, (size_t)s->n, sizeof(*p), changes_pair_cmp);
		for (j = 0; j < s->n; j++) {
			s->run[j] = p[j].rank;
			s->y[j] = p[j].y;
		}
		free(p);
	}
	free(old);
	free(rank);
}

/* --- from the index ------------------------------------------------------ */

struct changes_db_fill {
	struct changes_hist *h;
	struct resultdb_cp_key *keys;
	int nkeys;
	int cur;		/* the series being read */
};

static int changes_db_key(void *arg, const struct resultdb_cp_key *k)
{
	struct changes_db_fill *f = arg;

	return util_array_push(&f->keys, &f->nkeys, k, sizeof(*k));
}

static int changes_db_point(void *arg, const struct resultdb_cp_run *r)
{
	struct changes_db_fill *f = arg;
	int ri = changes_find_run(f->h, r->id);

	if (ri < 0) {
		struct changes_run run = { .hosts = NULL };

		snprintf(run.id, sizeof(run.id), "%s", r->id);
		snprintf(run.created, sizeof(run.created), "%s", r->created);
		snprintf(run.digest, sizeof(run.digest), "%s", r->digest);
		snprintf(run.server, sizeof(run.server), "%s",
			 f->keys[f->cur].server);
		if (util_array_push(&f->h->runs, &f->h->nruns, &run,
				    sizeof(run)))
			return -ENOMEM;
		ri = f->h->nruns - 1;
	}
	return changes_add_point(f->h, &f->keys[f->cur], ri, r->y);
}

int changes_history_from_db(struct changes_hist *h, struct resultdb *st,
			   const char *run_id, const char *suite,
			   const char *version, int limit, char *err,
			   size_t errlen)
{
	struct changes_db_fill f = { .h = h };
	int rc;

	h->st = st;
	rc = resultdb_changes_keys(st, run_id, suite, version, changes_db_key,
				   &f, err, errlen);
	for (f.cur = 0; rc == 0 && f.cur < f.nkeys; f.cur++)
		rc = resultdb_changes_history(st, &f.keys[f.cur], limit,
					     changes_db_point, &f, err,
					     errlen);
	free(f.keys);
	if (rc == 0)
		changes_history_sort(h);
	return rc == -ENOMEM ? util_fail(err, errlen, rc, "out of memory") : rc;
}

/* --- what changed -------------------------------------------------------- */

/* Facts that differ between any two runs and say nothing of the
 * machine: where it was on the network, its clock, what it ran. */
static int changes_skip(const char *key)
{
	static const char *const skip[] = { "address", "clock", "lost",
					    "workloads" };
	size_t i;

	for (i = 0; i < sizeof(skip) / sizeof(skip[0]); i++)
		if (strcmp(key, skip[i]) == 0)
			return 1;
	return 0;
}

/* One fact: "ROLE.PATH" and its value as text. */
struct changes_fact {
	char key[160];
	char val[200];
};

struct changes_facts {
	struct changes_fact *f;
	int n;
};

/* Every scalar under j as "prefix.key" = value into fs. */
static int changes_flatten(const cJSON *j, const char *prefix,
			   struct changes_facts *fs, int depth)
{
	struct changes_fact f;
	const cJSON *c;
	int i = 0, rc = 0;

	if (depth > 6)
		return 0;
	if (cJSON_IsObject(j) || cJSON_IsArray(j)) {
		cJSON_ArrayForEach(c, j) {
			char key[160];

			if (cJSON_IsObject(j) && depth == 0 &&
			    changes_skip(c->string))
				continue;
			if (cJSON_IsObject(j))
				snprintf(key, sizeof(key), "%s.%s", prefix,
					 c->string);
			else
				snprintf(key, sizeof(key), "%s[%d]", prefix,
					 i++);
			rc = changes_flatten(c, key, fs, depth + 1);
			if (rc)
				return rc;
		}
		return 0;
	}
	snprintf(f.key, sizeof(f.key), "%s", prefix);
	if (cJSON_IsString(j))
		snprintf(f.val, sizeof(f.val), "%s", j->valuestring);
	else if (cJSON_IsNumber(j))
		snprintf(f.val, sizeof(f.val), "%.15g", j->valuedouble);
	else
		snprintf(f.val, sizeof(f.val), "%s", cJSON_IsTrue(j) ? "true" :
			 cJSON_IsFalse(j) ? "false" : "null");
	return util_array_push(&fs->f, &fs->n, &f, sizeof(f));
}

/* The facts of every host but the controller, named by role (clients
 * numbered in their order: client1, client2). */
static int changes_host_facts(const char *hosts, struct changes_facts *fs)
{
	cJSON *a = cJSON_Parse(hosts ? hosts : "[]");
	const cJSON *h;
	int nclient = 0, rc = 0;

	cJSON_ArrayForEach(h, a) {
		const cJSON *role = cJSON_GetObjectItemCaseSensitive(h, "role");
		char name[48];

		if (!cJSON_IsString(role) ||
		    strcmp(role->valuestring, "controller") == 0)
			continue;
		if (strcmp(role->valuestring, "client") == 0)
			snprintf(name, sizeof(name), "client%d", ++nclient);
		else
			snprintf(name, sizeof(name), "%.40s",
				 role->valuestring);
		rc = changes_flatten(h, name, fs, 0);
		if (rc)
			break;
	}
	cJSON_Delete(a);
	return rc;
}

static const char *changes_fact(const struct changes_facts *fs,
				const char *key)
{
	int i;

	for (i = 0; i < fs->n; i++)
		if (strcmp(fs->f[i].key, key) == 0)
			return fs->f[i].val;
	return NULL;
}

/* Appends one line to f while the text stays within the column. */
static void changes_line(FILE *f, size_t *used, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void changes_line(FILE *f, size_t *used, const char *fmt, ...)
{
	char line[600];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (n < 0 || *used + (size_t)n + 1 > RESULTDB_CHANGED_MAX)
		return;
	fprintf(f, "%s%s", *used ? "\n" : "", line);
	*used += (size_t)n + (*used ? 1 : 0);
}

/* Reads the hosts of run i from the index when not yet. */
static int changes_hosts_of(struct changes_hist *h, int i, char *err,
			    size_t errlen)
{
	if (h->runs[i].hosts || !h->st)
		return 0;
	return resultdb_changes_hosts(h->st, h->runs[i].id, &h->runs[i].hosts,
				   err, errlen);
}

/* Over 80 lines on purpose: the text's parts in the order a reader
 * wants them (image, server, then every row that differs) read best in
 * one place. */
char *changes_history_what(struct changes_hist *h, int a, int b, char *err,
			  size_t errlen)
{
	struct changes_facts fa = { 0 }, fb = { 0 };
	char *text = NULL, vers[300] = "";
	size_t len = 0, used = 0;
	const struct changes_run *ra = &h->runs[a], *rb = &h->runs[b];
	FILE *f = open_memstream(&text, &len);
	int i, rc, rows = 0;

	if (!f)
		return NULL;
	if (rb->digest[0] && strcmp(ra->digest, rb->digest) != 0)
		changes_line(f, &used, "image %s (before: %s)", rb->digest,
			     ra->digest[0] ? ra->digest : "none");
	else
		changes_line(f, &used, "image %s (unchanged)",
			     rb->digest[0] ? rb->digest : "none");
	rc = changes_hosts_of(h, a, err, errlen);
	if (rc == 0)
		rc = changes_hosts_of(h, b, err, errlen);
	if (rc == 0)
		rc = changes_host_facts(ra->hosts, &fa);
	if (rc == 0)
		rc = changes_host_facts(rb->hosts, &fb);
	if (rc != 0) {
		changes_line(f, &used, "hosts: not read (%s)", err);
		goto out;
	}
	/* The server's versions at b: what the server stack reports. */
	{
		static const char *const v[] = { "apache_version",
						 "mariadb_version",
						 "postfix_version" };
		size_t k, o = 0;

		for (k = 0; k < sizeof(v) / sizeof(v[0]); k++) {
			char key[64];
			const char *x;

			snprintf(key, sizeof(key), "server.%s", v[k]);
			x = changes_fact(&fb, key);
			if (x && o < sizeof(vers))
				o += (size_t)snprintf(vers + o,
						      sizeof(vers) - o,
						      "%s%.*s %s", o ? ", " : "",
						      (int)strcspn(v[k], "_"),
						      v[k], x);
		}
	}
	changes_line(f, &used, "server %s%s%s", rb->server[0] ? rb->server :
		     "?", vers[0] ? ": " : "", vers);
	for (i = 0; i < fb.n; i++) {
		const char *old = changes_fact(&fa, fb.f[i].key);

		if (old && strcmp(old, fb.f[i].val) == 0)
			continue;
		rows++;
		changes_line(f, &used, "%s: %s -> %s", fb.f[i].key,
			     old ? old : "(none)", fb.f[i].val);
	}
	for (i = 0; i < fa.n; i++)
		if (!changes_fact(&fb, fa.f[i].key)) {
			rows++;
			changes_line(f, &used, "%s: %s -> (none)", fa.f[i].key,
				     fa.f[i].val);
		}
	if (!rows)
		changes_line(f, &used, "hosts: no fact differs from the run before");
out:
	free(fa.f);
	free(fb.f);
	if (fclose(f) != 0) {
		free(text);
		return NULL;
	}
	return text;
}

/* --- detection ----------------------------------------------------------- */

int changes_history_detect(struct changes_hist *h, int si,
			  const struct changes_opts *o,
			  struct resultdb_cpoint **out, int *nout, char *err,
			  size_t errlen)
{
	const struct changes_history *s = &h->s[si];
	struct changes_point *cp = NULL;
	struct resultdb_cpoint *rp = NULL;
	int n = 0, i, rc;

	*out = NULL;
	*nout = 0;
	rc = changes_edivisive(s->y, s->n, o, &cp, &n);
	if (rc != 0)
		return util_fail(err, errlen, rc, "%s %s %s: %s", s->k.step,
				 s->k.wl, s->k.figure, rc == -ENOMEM ?
				 "out of memory" : "the series cannot be analysed");
	if (n) {
		rp = calloc((size_t)n, sizeof(*rp));
		if (!rp) {
			free(cp);
			return util_fail(err, errlen, -ENOMEM, "out of memory");
		}
	}
	for (i = 0; i < n; i++) {
		const struct changes_run *r = &h->runs[s->run[cp[i].idx]];
		const struct changes_run *p = &h->runs[s->run[cp[i].idx - 1]];

		rp[i].k = s->k;
		snprintf(rp[i].run, sizeof(rp[i].run), "%s", r->id);
		snprintf(rp[i].prev, sizeof(rp[i].prev), "%s", p->id);
		snprintf(rp[i].created, sizeof(rp[i].created), "%s",
			 r->created);
		rp[i].p = cp[i].p;
		rp[i].before = cp[i].before;
		rp[i].after = cp[i].after;
		rp[i].pct = cp[i].pct;
		/* Fewer per second, or a longer p99, is the worse way. */
		rp[i].worse = strcmp(s->k.figure, "thr") == 0 ?
			cp[i].after < cp[i].before : cp[i].after > cp[i].before;
		rp[i].changed = changes_history_what(h, s->run[cp[i].idx - 1],
						    s->run[cp[i].idx], err,
						    errlen);
		if (!rp[i].changed) {
			rc = util_fail(err, errlen, -ENOMEM, "out of memory");
			break;
		}
	}
	free(cp);
	if (rc != 0) {
		for (i = 0; i < n; i++)
			free(rp[i].changed);
		free(rp);
		return rc;
	}
	*out = rp;
	*nout = n;
	return 0;
}

void changes_history_free(struct changes_hist *h)
{
	int i;

	for (i = 0; i < h->nruns; i++)
		free(h->runs[i].hosts);
	for (i = 0; i < h->ns; i++) {
		free(h->s[i].y);
		free(h->s[i].run);
	}
	free(h->runs);
	free(h->s);
	h->runs = NULL;
	h->s = NULL;
	h->nruns = h->ns = 0;
}
