/* report/report.h: `benchboot report`: reads benchboot.result/1 documents and
 * renders them as terminal tables, CSV and one self-contained HTML page. */
#ifndef BB_REPORT_H
#define BB_REPORT_H

#include <stddef.h>
#include <stdio.h>

#include <cjson/cJSON.h>

/* The result schema major version this reader understands. */
#define REPORT_SCHEMA_MAJOR 1
#define REPORT_MAX_WL 8		/* workloads in one step (combined) */
#define REPORT_MAX_OPS 32	/* sql ops operations */

/* One figure over a step's complete repeats, as the controller's stats
 * (docs/result-schema.md): n == 0 means absent. */
struct report_stat {
	int n;
	double median, mean;
	double lo, hi;		/* the 95 % CI of the mean */
};

/* The sampler's interval fields averaged per step: the Byte.com
 * "combined" table's columns, in this order. */
enum {
	REPORT_SM_RUNNING, REPORT_SM_IDLE, REPORT_SM_CS, REPORT_SM_FREE,
	REPORT_SM_INTR, REPORT_SM_BO, REPORT_SM_LOAD, REPORT_SM_SWAP,
	REPORT_SM_N
};
/* Field names in benchboot.sample/1 and column headings. */
extern const char *const report_sm_fields[REPORT_SM_N];
extern const char *const report_sm_heads[REPORT_SM_N];

/* One workload of one step. */
struct report_wl {
	char name[32];		/* "http", "sql", "smtp" */
	char metric[40];	/* throughput counter: "requests" */
	struct report_stat thr;	/* METRIC_per_s */
	struct report_stat p50, p99;	/* ns */
	double errors;		/* every error class, complete repeats */
	/* Successes and failures (every error class) over the complete
	 * repeats, invalid ones included (result_error_rate()); has_rate
	 * is 0 for a workload without a success counter. */
	double succ, fail;
	int has_rate;
	/* Response-time standard deviation (ns) of the step's merged
	 * histogram (every complete repeat), hist_stddev()'s estimate;
	 * -1 without a histogram. */
	double sd_ns;
};

/* One step entry (one concurrency value). */
struct report_step {
	const char *name;	/* "http-static/c4"; points into the doc */
	const char *step;	/* "http-static" */
	int conc;		/* 0: no sweep */
	const char *skipped;	/* reason, or NULL */
	int repeats, complete;
	int invalid;		/* repeats over the error threshold */
	const char *invalid_reason;	/* the first one's; into the doc */
	double warmup_s, duration_s;
	int nwl;
	struct report_wl wl[REPORT_MAX_WL];
	int sm_n;		/* sampler intervals averaged */
	double sm[REPORT_SM_N];	/* interval-weighted means */
	int pb_seconds;		/* probe seconds in the step's windows */
	double pb_lost_pct;	/* lost units / ideal units, % */
	/* N&K's figure: sqrt(mean over seconds of ((done-ideal)/ideal)^2) */
	double pb_stddev_pct;
	int nops;		/* sql ops: seconds per operation */
	const char *op_name[REPORT_MAX_OPS];
	struct report_stat op_s[REPORT_MAX_OPS];
	/* sql ops: the whole run's seconds (each record's total_s). */
	struct report_stat ops_total;
};

/* One loaded result document. */
struct report_res {
	char file[256];		/* as given on the command line */
	cJSON *doc;		/* owned */
	const char *id, *created, *controller, *tool_version;
	const char *suite, *suite_version;
	double time_scale;	/* suite.time_scale; 1 for a full-length run */
	double server_offset_ns;	/* server clock minus controller's */
	int nsteps;
	struct report_step *steps;	/* owned */
};

/* Parses and validates one result document from text (len bytes; name
 * labels messages) into r.  Returns 0, or -EINVAL with a message in err
 * naming the file and the field (`steps[2].stats.http.p99_ns.ci95`), for
 * text that is not JSON (with line and column; "truncated" when it ends
 * early), a schema other than benchboot.result/1 (a newer one is named as
 * such), an embedded workload record of another major version, a missing
 * or mistyped field, or a histogram hist_from_json() refuses; -ENOMEM.
 * On failure r holds nothing to free.  Every control character in the
 * document's strings and keys is replaced by '?' first (a result is
 * hostile input; the renderers escape the rest: HTML/SVG entities, CSV
 * quoting and formula prefixes). */
int report_parse(const char *text, size_t len, const char *name,
		 struct report_res *r, char *err, size_t errlen);

/* report_parse() on the contents of path.  Also -errno when it cannot be
 * read (message names the path). */
int report_load(const char *path, struct report_res *r, char *err,
		size_t errlen);

/* Frees what r owns. */
void report_free(struct report_res *r);

/* 0 when b may be compared with a (same suite name and version, same
 * time scale), else -EINVAL with the reason in why. */
int report_comparable(const struct report_res *a, const struct report_res *b,
		      char *why, size_t whylen);

/* Whether b differs from a beyond chance: 1 when both have at least two
 * repeats and their 95 % confidence intervals do not overlap, 0 when they
 * overlap, -1 when it cannot be said (fewer than two repeats). */
int report_significant(const struct report_stat *a,
		       const struct report_stat *b);

/* The step index in r with this name, or -1. */
int report_find_step(const struct report_res *r, const char *name);

/* The workload in s with this name, or NULL. */
const struct report_wl *report_find_wl(const struct report_step *s,
				       const char *wl);

/* w's error rate over the step's complete repeats (failures /
 * attempts), 0 when nothing was attempted, -1 when w has none. */
double report_wl_error_rate(const struct report_wl *w);

/* A step's flag for the tables: "INVALID" when a repeat was over the
 * error threshold, "errors" when any workload had an error, else "". */
const char *report_step_flag(const struct report_step *s);

/* One (step, workload) pair of the results. */
struct report_key {
	const char *step, *wl, *metric;	/* point into the results */
};

/* The (step, workload) pairs of n results in order of first appearance,
 * at most max into k; returns how many. */
int report_keys(struct report_res *rs, int n, struct report_key *k, int max);

/* The concurrency values step (a suite step name) has in any of the n
 * results, ascending, at most max of them into c; returns how many. */
int report_concs(struct report_res *rs, int n, const char *step, int *c,
		 int max);

/* Result r's entry for (step, concurrency), or NULL. */
const struct report_step *report_at(const struct report_res *r,
				    const char *step, int conc);

/* The names of the steps that have sampler readings in any of the n
 * results, in order of first appearance, at most max; returns how
 * many. */
int report_sm_steps(struct report_res *rs, int n, const char **names,
		    int max);

/* Result r's step name when it has sampler readings, else NULL. */
const struct report_step *report_sm_at(const struct report_res *r,
				       const char *name);

/* Terminal tables for n results (the first is the baseline of every
 * ratio).  Returns 0 or -errno of the write. */
int report_text(FILE *out, struct report_res *rs, int n);

/* CSV: a header, then one row per (result, workload, step, concurrency).
 * Returns 0 or -errno. */
int report_csv(FILE *out, struct report_res *rs, int n);

/* One self-contained HTML page (inline SVG and CSS, no script, nothing
 * fetched).  Returns 0 or -errno (report_html.c). */
int report_html(FILE *out, struct report_res *rs, int n);

/* Writes s to f with HTML's markup characters as entities and control
 * characters as U+FFFD: for text and attribute values alike. */
void report_html_esc(FILE *f, const char *s);

/* The report's page head (its CSS, a Content-Security-Policy that runs
 * and fetches nothing; forms: whether GET forms may submit to the page's
 * own origin) up to and including <body>. */
void report_html_head(FILE *f, const char *title, int forms);

/* One figure across runs (report_html_trend). */
struct report_trend {
	int n;
	struct {
		const char *id, *label;	/* the run; its short x label */
		double y, lo, hi;	/* mean; its 95 % CI (lo == hi: none) */
	} *pt;
};

/* A line chart of t's points in order, one per run, with CI bars, as
 * inline SVG in a <figure class="chart trend">. */
void report_html_trend(FILE *f, const char *title, const char *ylabel,
		       const struct report_trend *t);

/* `benchboot report [--html OUT] [--csv OUT] [--force] RESULT.json...`:
 * exit 0, 1 (a file refused, an output not written), 2 (usage). */
int report_main(int argc, char **argv);

#endif
