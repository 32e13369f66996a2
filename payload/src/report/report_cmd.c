/* report/report_cmd.c: `benchboot report`: loads the result files (or
 * the runs report_db selects), refuses to compare what is not comparable
 * unless forced, and writes the tables, the HTML page and the CSV. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/opt.h"
#include "report/report_cmd.h"
#include "report/report_csv.h"
#include "report/report_db.h"
#include "report/report_html.h"
#include "report/report_text.h"
#include "result/result_doc.h"

/* Writes OUT through a temporary file, so a failed run leaves no half
 * page behind. */
static int report_write(const char *path, struct result_doc *rs, int n,
			int (*fn)(FILE *, struct result_doc *, int))
{
	char tmp[4096];
	FILE *f;
	int rc;

	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "w");
	if (!f)
		return -errno;
	rc = fn(f, rs, n);
	if (fclose(f) != 0 && rc == 0)
		rc = -errno;
	if (rc == 0 && rename(tmp, path) != 0)
		rc = -errno;
	if (rc != 0)
		unlink(tmp);
	return rc;
}

/* What the file mode's command line sets. */
struct report_cmdline {
	const char *html, *csv;
	int force, quiet;
};

#define RC(m) OPT_AT(struct report_cmdline, m)

static const struct opt report_opt_tab[] = {
	{ .name = "html", .kind = OPT_STR, .off = RC(html), .arg = "OUT",
	  .help = "one self-contained HTML page with charts" },
	{ .name = "csv", .kind = OPT_STR, .off = RC(csv), .arg = "OUT",
	  .help = "one row per (result, workload, step, concurrency)" },
	{ .name = "force", .key = 'f', .kind = OPT_FLAG, .off = RC(force),
	  .val = 1,
	  .help = "compare results of different suites or suite versions" },
	{ .name = "quiet", .key = 'q', .kind = OPT_FLAG, .off = RC(quiet),
	  .val = 1, .help = "no terminal tables (only the files asked for)" },
};

static const struct optset report_optset = OPTSET("report", report_opt_tab,
	"[--html OUT.html] [--csv OUT.csv] [--force] [--quiet]\n"
	"                        RESULT.json...\n"
	"       benchboot report --db URL --dir DIR [options] (docs/collect.md)",
	"The hosts' system table, then one result's steps in one table, or\n"
	"several results side by side (the first is the baseline: ratio and\n"
	"significance per figure; system rows that differ listed first).\n");

/* The file mode: the result files argv names, with the options. */
static int report_files(int argc, char **argv)
{
	struct report_cmdline cl = { 0 };
	const char *html, *csv;
	struct result_doc *rs = NULL;
	int force, quiet, c, i, n = 0, rc = 1, argi;
	char err[512];

	rc = opt_main(&report_optset, &cl, argc, argv, &argi);
	if (rc != 0)
		return rc > 0 ? 0 : 2;
	rc = 1;
	html = cl.html;
	csv = cl.csv;
	force = cl.force;
	quiet = cl.quiet;
	if (argi >= argc) {
		fprintf(stderr, "benchboot report: no result file given\n");
		opt_usage(&report_optset, stderr);
		return 2;
	}
	rs = calloc(argc - argi, sizeof(*rs));
	if (!rs)
		return 1;
	for (i = argi; i < argc; i++) {
		if (result_doc_load(argv[i], &rs[n], err, sizeof(err)) != 0) {
			fprintf(stderr, "benchboot report: %s\n", err);
			goto out;
		}
		n++;
	}
	for (i = 1; i < n; i++) {
		if (result_doc_comparable(&rs[0], &rs[i], err,
					  sizeof(err)) == 0)
			continue;
		if (!force) {
			fprintf(stderr,
				"benchboot report: refusing to compare: %s; --force compares anyway\n",
				err);
			goto out;
		}
		fprintf(stderr, "benchboot report: warning: %s (--force)\n",
			err);
	}
	if (!quiet && report_text(stdout, rs, n) != 0)
		goto out;
	if (html && (c = report_write(html, rs, n, report_html)) != 0) {
		fprintf(stderr, "benchboot report: %s: %s\n", html,
			strerror(-c));
		goto out;
	}
	if (csv && (c = report_write(csv, rs, n, report_csv)) != 0) {
		fprintf(stderr, "benchboot report: %s: %s\n", csv,
			strerror(-c));
		goto out;
	}
	rc = 0;
out:
	for (i = 0; i < n; i++)
		result_doc_free(&rs[i]);
	free(rs);
	return rc;
}

int report_main(int argc, char **argv)
{
	struct report_db_sel sel = { 0 };
	int rc;

	if (!report_db_wanted(argc, argv))
		return report_files(argc, argv);
	rc = report_db_main(argc, argv, &sel);
	if (rc == 0 && sel.argv)
		rc = report_files(sel.argc, sel.argv);
	report_db_free(&sel);
	return rc;
}
