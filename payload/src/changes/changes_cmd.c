/* changes/changes_cmd.c: `benchboot changes`: reads a history (result
 * files, so a USB stick's results partition offline, or the collector's
 * index), runs the detector over every series and prints the points. */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cjson/cJSON.h>

#include "changes/changes_cmd.h"
#include "changes/changes_edivisive.h"
#include "changes/changes_history.h"
#include "lib/opt.h"
#include "lib/util.h"
#include "result/result_doc.h"
#include "resultdb/resultdb_changes.h"
#include "resultdb/resultdb_conn.h"

struct changes_cl {
	const char *db, *pass_file, *suite, *version, *test;
	int json;
	unsigned min_seg, perms, limit;
	uint64_t seed;
	double alpha;
	int skipped;		/* files not read */
};

/* --alpha: a significance level in (0, 0.5]. */
static int changes_opt_alpha(void *dst, const char *arg, char *err,
			     size_t errlen)
{
	char *e;
	double a = strtod(arg, &e);

	if (e == arg || *e || !(a > 0 && a <= 0.5))
		return -EINVAL;
	*(double *)dst = a;
	return 0;
}

#define CC(m) OPT_AT(struct changes_cl, m)
static const struct opt changes_opt_tab[] = {
	{ .name = "db", .kind = OPT_STR, .off = CC(db),
	  .arg = "mysql://USER@HOST[:PORT]/DB",
	  .help = "read the history from the collector's database, not from "
		  "files" },
	{ .name = "db-password-file", .kind = OPT_STR, .off = CC(pass_file),
	  .arg = "F", .help = "the database password, the first line of F" },
	{ .name = "suite", .kind = OPT_STR, .off = CC(suite), .arg = "S",
	  .help = "only that suite" },
	{ .name = "version", .kind = OPT_STR, .off = CC(version), .arg = "V",
	  .help = "only that suite version" },
	{ .name = "json", .kind = OPT_FLAG, .off = CC(json), .val = 1,
	  .help = "JSON instead of text" },
	{ .name = "test", .kind = OPT_STR, .off = CC(test), .arg = "T",
	  .help = "the significance test", .values = "permutation|ttest",
	  .def = "permutation" },
	{ .name = "alpha", .kind = OPT_FN, .off = CC(alpha),
	  .fn = changes_opt_alpha,
	  .bad = "--alpha '%s': expected a significance level in (0, 0.5]",
	  .arg = "A", .help = "significance level, (0, 0.5]", .def = "0.01" },
	{ .name = "min-segment", .kind = OPT_UINT, .off = CC(min_seg),
	  .min = 2, .max = 1000,
	  .bad = "--min-segment '%s': expected 2..1000 runs", .arg = "N",
	  .help = "runs each side of a change, 2..1000", .def = "3" },
	{ .name = "permutations", .kind = OPT_UINT, .off = CC(perms),
	  .min = 1, .max = 100000,
	  .bad = "--permutations '%s': expected 1..100000", .arg = "N",
	  .help = "the permutation test's shuffles (with --alpha A at least "
		  "1/A - 1, or no p could be under it)", .def = "199" },
	{ .name = "seed", .kind = OPT_U64, .off = CC(seed), .max = UINT64_MAX,
	  .arg = "N", .help = "the shuffles' seed", .def = "1" },
	{ .name = "limit", .kind = OPT_UINT, .off = CC(limit), .min = 4,
	  .max = CHANGES_MAX_POINTS,
	  .bad = "--limit '%s': expected 4..5000 runs per series", .arg = "N",
	  .help = "with --db: the newest N runs of each series",
	  .def = "every one, up to 5000" },
};

static const struct optset changes_optset = OPTSET("changes",
	changes_opt_tab, "[options] FILE|DIR...\n"
	"       benchboot changes [options] --db URL [--db-password-file F]",
	"The change points of every series (suite, step, workload, figure "
	"and host set)\nof a history: result files (a directory's *.json, "
	"e.g. a USB stick's results\npartition) or the collector's database.  "
	"E-Divisive means with MongoDB's\npermutation test or Otava's t-test; "
	"docs/collect.md says how the defaults\nwere chosen.\n");

/* Loads one document into h; a file that does not validate is said
 * and skipped. */
static int changes_load(struct changes_hist *h, struct changes_cl *cl,
			const char *path)
{
	struct result_doc r;
	char err[400];
	int rc = result_doc_load(path, &r, err, sizeof(err));

	if (rc != 0) {
		fprintf(stderr, "benchboot changes: skipped: %s\n", err);
		cl->skipped++;
		return rc == -ENOMEM ? rc : 0;
	}
	/* --suite and --version narrow files as they narrow the index. */
	if ((!cl->suite || strcmp(cl->suite, r.suite) == 0) &&
	    (!cl->version || strcmp(cl->version, r.suite_version) == 0))
		rc = changes_history_add_doc(h, &r);
	result_doc_free(&r);
	return rc;
}

static int changes_name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every *.json directly in dir, by name. */
static int changes_load_dir(struct changes_hist *h, struct changes_cl *cl,
			    const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char **names = NULL, path[PATH_MAX];
	int n = 0, i, rc = 0;

	if (!d)
		return -errno;
	while (rc == 0 && (e = readdir(d))) {
		size_t l = strlen(e->d_name);
		char *s;

		if (l < 6 || strcmp(e->d_name + l - 5, ".json") != 0 ||
		    e->d_name[0] == '.')
			continue;
		s = strdup(e->d_name);
		rc = s ? util_array_push(&names, &n, &s, sizeof(s)) : -ENOMEM;
		if (rc)
			free(s);
	}
	closedir(d);
	if (n)
		qsort(names, (size_t)n, sizeof(*names), changes_name_cmp);
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		if (rc == 0)
			rc = changes_load(h, cl, path);
		free(names[i]);
	}
	free(names);
	return rc;
}

static int changes_from_files(struct changes_hist *h, struct changes_cl *cl,
			      int argc, char **argv)
{
	int i, rc = 0;

	for (i = 0; rc == 0 && i < argc; i++) {
		struct stat sb;

		if (stat(argv[i], &sb) == 0 && S_ISDIR(sb.st_mode))
			rc = changes_load_dir(h, cl, argv[i]);
		else
			rc = changes_load(h, cl, argv[i]);
		if (rc != 0 && rc != -ENOMEM) {
			fprintf(stderr, "benchboot changes: %s: %s\n", argv[i],
				strerror(-rc));
			rc = 0;
			cl->skipped++;
		}
	}
	changes_history_sort(h);
	return rc;
}

static void changes_text(FILE *f, const struct resultdb_cpoint *p)
{
	const char *c = p->changed ? p->changed : "";

	fprintf(f, "%s v%s %s %s %s [server %s, hosts %s]: run %s (%s): "
		"%.6g -> %.6g (%+.1f %%), p %.2g, %s\n", p->k.suite,
		p->k.version, p->k.step, p->k.wl, strcmp(p->k.figure, "thr") ?
		"p99 ns" : "throughput/s", p->k.server, p->k.hosts_class,
		p->run, p->created, p->before, p->after, p->pct, p->p,
		p->worse ? "REGRESSION" : "improvement");
	while (*c) {
		size_t l = strcspn(c, "\n");

		fprintf(f, "    %.*s\n", (int)l, c);
		c += l + (c[l] == '\n');
	}
}

static cJSON *changes_json(const struct resultdb_cpoint *p)
{
	cJSON *o = cJSON_CreateObject(), *ch = cJSON_CreateArray();
	const char *c = p->changed ? p->changed : "";

	if (!o || !ch) {
		cJSON_Delete(o);
		cJSON_Delete(ch);
		return NULL;
	}
	cJSON_AddStringToObject(o, "suite", p->k.suite);
	cJSON_AddStringToObject(o, "version", p->k.version);
	cJSON_AddStringToObject(o, "server", p->k.server);
	cJSON_AddStringToObject(o, "hosts_class", p->k.hosts_class);
	cJSON_AddStringToObject(o, "step", p->k.step);
	cJSON_AddStringToObject(o, "workload", p->k.wl);
	cJSON_AddStringToObject(o, "figure", p->k.figure);
	cJSON_AddStringToObject(o, "run", p->run);
	cJSON_AddStringToObject(o, "previous_run", p->prev);
	cJSON_AddStringToObject(o, "created", p->created);
	cJSON_AddNumberToObject(o, "p", p->p);
	cJSON_AddNumberToObject(o, "before", p->before);
	cJSON_AddNumberToObject(o, "after", p->after);
	cJSON_AddNumberToObject(o, "change_pct", p->pct);
	cJSON_AddBoolToObject(o, "worse", p->worse);
	if (p->found_with[0])
		cJSON_AddStringToObject(o, "found_with", p->found_with);
	while (*c) {
		size_t l = strcspn(c, "\n");
		char *line = strndup(c, l);

		if (line)
			cJSON_AddItemToArray(ch, cJSON_CreateString(line));
		free(line);
		c += l + (c[l] == '\n');
	}
	cJSON_AddItemToObject(o, "changed", ch);
	return o;
}

/* Runs the detector over every series of h and prints each point. */
static int changes_report(struct changes_hist *h, const struct changes_cl *cl,
			  const struct changes_opts *o)
{
	cJSON *doc = cJSON_CreateObject(), *arr = cJSON_CreateArray();
	char err[300];
	int i, j, rc = 0, total = 0;

	if (!doc || !arr) {
		cJSON_Delete(doc);
		cJSON_Delete(arr);
		return util_err("changes", ENOMEM, "out of memory");
	}
	for (i = 0; rc == 0 && i < h->ns; i++) {
		struct resultdb_cpoint *cp;
		int n;

		rc = changes_history_detect(h, i, o, &cp, &n, err, sizeof(err));
		if (rc != 0) {
			util_err("changes", -rc, "%s", err);
			break;
		}
		for (j = 0; j < n; j++) {
			if (cl->json)
				cJSON_AddItemToArray(arr, changes_json(&cp[j]));
			else
				changes_text(stdout, &cp[j]);
			free(cp[j].changed);
		}
		total += n;
		free(cp);
	}
	if (rc == 0 && cl->json) {
		char *s;

		cJSON_AddStringToObject(doc, "schema", "benchboot.changes/1");
		cJSON_AddStringToObject(doc, "test", o->test == CHANGES_PERM ?
					"permutation" : "ttest");
		cJSON_AddNumberToObject(doc, "alpha", o->alpha);
		cJSON_AddNumberToObject(doc, "min_segment", o->min_seg);
		if (o->test == CHANGES_PERM) {
			cJSON_AddNumberToObject(doc, "permutations", o->perms);
			cJSON_AddNumberToObject(doc, "seed", (double)o->seed);
		}
		cJSON_AddNumberToObject(doc, "runs", h->nruns);
		cJSON_AddNumberToObject(doc, "series", h->ns);
		cJSON_AddNumberToObject(doc, "files_skipped", cl->skipped);
		cJSON_AddItemToObject(doc, "changes", arr);
		arr = NULL;
		s = cJSON_Print(doc);
		if (s)
			printf("%s\n", s);
		free(s);
	} else if (rc == 0) {
		printf("%d change point%s in %d series over %d run%s (%s, alpha %g, min segment %d)%s\n",
		       total, total == 1 ? "" : "s", h->ns, h->nruns,
		       h->nruns == 1 ? "" : "s", o->test == CHANGES_PERM ?
		       "E-Divisive, permutation test" :
		       "E-Divisive, t-test and merge", o->alpha, o->min_seg,
		       cl->skipped ? "; some files skipped (above)" : "");
	}
	cJSON_Delete(arr);
	cJSON_Delete(doc);
	return rc == 0 ? 0 : 1;
}

/* The options into o; 0 or an exit status. */
static int changes_opts_from(struct changes_cl *cl, struct changes_opts *o)
{
	*o = (struct changes_opts)CHANGES_DEFAULT_OPTS;
	if (cl->test && strcmp(cl->test, "ttest") == 0)
		o->test = CHANGES_TTEST;
	else if (cl->test && (strcmp(cl->test, "permutation") == 0 ||
			      strcmp(cl->test, "perm") == 0))
		o->test = CHANGES_PERM;
	else if (cl->test)
	{
		util_err("changes", EINVAL, "--test '%s': expected ttest or permutation", cl->test);
		return 2;
	}
	if (cl->alpha > 0)
		o->alpha = cl->alpha;
	if (cl->min_seg)
		o->min_seg = (int)cl->min_seg;
	if (cl->perms)
		o->perms = (int)cl->perms;
	if (cl->seed)
		o->seed = cl->seed;
	if (o->test == CHANGES_PERM && 1.0 / (o->perms + 1) >= o->alpha)
	{
		/* Its smallest p is 1 / (perms + 1). */
		util_err("changes", EINVAL, "--permutations %d cannot give a p under --alpha %g: give at least %d", o->perms, o->alpha, (int)ceil(1 / o->alpha));
		return 2;
	}
	return 0;
}

/* The history from the index. */
static int changes_from_db(struct changes_hist *h, struct changes_cl *cl,
			   struct resultdb **st)
{
	struct resultdb_url u;
	char err[300];
	int rc;

	if (resultdb_parse_url(cl->db, &u, err, sizeof(err)) != 0 ||
	    (cl->pass_file && resultdb_password_file(&u, cl->pass_file, err,
						     sizeof(err)) != 0)) {
		util_err("changes", EINVAL, "%s", err);
		return 2;
	}
	*st = resultdb_new(&u, 10);
	memset(u.pass, 0, sizeof(u.pass));
	if (!*st) {
		util_err("changes", ENOMEM, "out of memory");
		return 1;
	}
	rc = changes_history_from_db(h, *st, NULL, cl->suite, cl->version,
				    cl->limit ? (int)cl->limit :
				    CHANGES_MAX_POINTS, err, sizeof(err));
	if (rc != 0) {
		util_err("changes", -rc, "%s", err);
		return 1;
	}
	return 0;
}

int changes_main(int argc, char **argv)
{
	struct changes_cl cl = { 0 };
	struct changes_hist h = { 0 };
	struct changes_opts o;
	struct resultdb *st = NULL;
	int argi, rc;

	rc = opt_main(&changes_optset, &cl, argc, argv, &argi);
	if (rc != 0)
		return rc == 1 ? 0 : 2;
	rc = changes_opts_from(&cl, &o);
	if (rc != 0)
		return rc;
	if (!cl.db == (argi == argc)) {
		util_err("changes", EINVAL, "give result files or directories, or --db (not both)");
		opt_usage(&changes_optset, stderr);
		return 2;
	}
	if (cl.db)
		rc = changes_from_db(&h, &cl, &st);
	else if (changes_from_files(&h, &cl, argc - argi, argv + argi) != 0) {
		util_err("changes", ENOMEM, "out of memory");
		rc = 1;
	}
	if (rc == 0 && !cl.db && h.nruns == 0 && cl.skipped) {
		util_err("changes", ENOENT, "no result document could be read");
		rc = 1;
	}
	if (rc == 0)
		rc = changes_report(&h, &cl, &o);
	changes_history_free(&h);
	resultdb_free(st);
	return rc;
}
