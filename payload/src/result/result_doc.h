/* result/result_doc.h: the reader of benchboot.result/1 documents: loads
 * and validates one into a small model (the figures `benchboot report`
 * renders and the result database indexes), and the look-ups over it. */
#ifndef BB_RESULT_DOC_H
#define BB_RESULT_DOC_H

#include <stddef.h>

#include <cjson/cJSON.h>

/* The result schema major version this reader understands. */
#define RESULT_DOC_SCHEMA_MAJOR 1
#define RESULT_DOC_MAX_WL 8	/* workloads in one step (combined) */
#define RESULT_DOC_MAX_OPS 32	/* sql ops operations */

/* One figure over a step's complete repeats, as the controller's stats
 * (docs/result-schema.md): n == 0 means absent. */
struct result_doc_stat {
	int n;
	double median, mean;
	double lo, hi;		/* the 95 % CI of the mean */
};

/* The sampler's interval fields averaged per step: the Byte.com
 * "combined" table's columns, in this order. */
enum {
	RESULT_DOC_SM_RUNNING, RESULT_DOC_SM_IDLE, RESULT_DOC_SM_CS,
	RESULT_DOC_SM_FREE, RESULT_DOC_SM_INTR, RESULT_DOC_SM_BO,
	RESULT_DOC_SM_LOAD, RESULT_DOC_SM_SWAP, RESULT_DOC_SM_N
};
/* Field names in benchboot.sample/1 and column headings. */
extern const char *const result_doc_sm_fields[RESULT_DOC_SM_N];
extern const char *const result_doc_sm_heads[RESULT_DOC_SM_N];

/* One workload of one step. */
struct result_doc_wl {
	char name[32];		/* "http", "sql", "smtp" */
	char metric[40];	/* throughput counter: "requests" */
	struct result_doc_stat thr;	/* METRIC_per_s */
	struct result_doc_stat p50, p99;	/* ns */
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
struct result_doc_step {
	const char *name;	/* "http-static/c4"; points into the doc */
	const char *step;	/* "http-static" */
	int conc;		/* 0: no sweep */
	const char *skipped;	/* reason, or NULL */
	int repeats, complete;
	int invalid;		/* repeats over the error threshold */
	const char *invalid_reason;	/* the first one's; into the doc */
	double warmup_s, duration_s;
	int nwl;
	struct result_doc_wl wl[RESULT_DOC_MAX_WL];
	int sm_n;		/* sampler intervals averaged */
	double sm[RESULT_DOC_SM_N];	/* interval-weighted means */
	int pb_seconds;		/* probe seconds in the step's windows */
	double pb_lost_pct;	/* lost units / ideal units, % */
	/* N&K's figure: sqrt(mean over seconds of ((done-ideal)/ideal)^2) */
	double pb_stddev_pct;
	int nops;		/* sql ops: seconds per operation */
	const char *op_name[RESULT_DOC_MAX_OPS];
	struct result_doc_stat op_s[RESULT_DOC_MAX_OPS];
	/* sql ops: the whole run's seconds (each record's total_s). */
	struct result_doc_stat ops_total;
};

/* One loaded result document. */
struct result_doc {
	char file[256];		/* as given on the command line */
	cJSON *doc;		/* owned */
	const char *id, *created, *controller, *tool_version;
	const char *suite, *suite_version;
	double time_scale;	/* suite.time_scale; 1 for a full-length run */
	double server_offset_ns;	/* server clock minus controller's */
	int nsteps;
	struct result_doc_step *steps;	/* owned */
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
int result_doc_parse(const char *text, size_t len, const char *name,
		     struct result_doc *r, char *err, size_t errlen);

/* result_doc_parse() on the contents of path.  Also -errno when it cannot be
 * read (message names the path). */
int result_doc_load(const char *path, struct result_doc *r, char *err,
		    size_t errlen);

/* Frees what r owns. */
void result_doc_free(struct result_doc *r);

/* 0 when b may be compared with a (same suite name and version, same
 * time scale), else -EINVAL with the reason in why. */
int result_doc_comparable(const struct result_doc *a,
			  const struct result_doc *b, char *why, size_t whylen);

/* Whether b differs from a beyond chance: 1 when both have at least two
 * repeats and their 95 % confidence intervals do not overlap, 0 when they
 * overlap, -1 when it cannot be said (fewer than two repeats). */
int result_doc_significant(const struct result_doc_stat *a,
			   const struct result_doc_stat *b);

/* The step index in r with this name, or -1. */
int result_doc_find_step(const struct result_doc *r, const char *name);

/* The workload in s with this name, or NULL. */
const struct result_doc_wl *result_doc_find_wl(const struct result_doc_step *s,
					       const char *wl);

/* w's error rate over the step's complete repeats (failures /
 * attempts), 0 when nothing was attempted, -1 when w has none. */
double result_doc_wl_error_rate(const struct result_doc_wl *w);

/* A step's flag for the tables: "INVALID" when a repeat was over the
 * error threshold, "errors" when any workload had an error, else "". */
const char *result_doc_step_flag(const struct result_doc_step *s);

/* One (step, workload) pair of the results. */
struct result_doc_key {
	const char *step, *wl, *metric;	/* point into the results */
};

/* The (step, workload) pairs of n results in order of first appearance,
 * at most max into k; returns how many. */
int result_doc_keys(struct result_doc *rs, int n, struct result_doc_key *k,
		    int max);

/* The concurrency values step (a suite step name) has in any of the n
 * results, ascending, at most max of them into c; returns how many. */
int result_doc_concs(struct result_doc *rs, int n, const char *step, int *c,
		     int max);

/* Result r's entry for (step, concurrency), or NULL. */
const struct result_doc_step *result_doc_at(const struct result_doc *r,
					    const char *step, int conc);

/* The names of the steps that have sampler readings in any of the n
 * results, in order of first appearance, at most max; returns how
 * many. */
int result_doc_sm_steps(struct result_doc *rs, int n, const char **names,
			int max);

/* Result r's step name when it has sampler readings, else NULL. */
const struct result_doc_step *result_doc_sm_at(const struct result_doc *r,
					       const char *name);

/* One result's cell in the sampler comparison of several results (the
 * text and the HTML report draw the same table from it). */
struct result_doc_sm_cell {
	int has;		/* the result sampled the step */
	double v;		/* its average of the field */
	int has_ratio;		/* not the first result, both sampled the
				 * step, the first's average is not 0, and
				 * the ratio is finite */
	double ratio;		/* v over the first result's */
};

/* The comparison of rs[0..n) for the step called name and sampler field
 * k (< RESULT_DOC_SM_N): cells[i] for result i. */
void result_doc_sm_compare(const struct result_doc *rs, int n,
			   const char *name, int k,
			   struct result_doc_sm_cell *cells);

/* The distinct names of the sql ops operations over rs[0..n), in the
 * order they first appear, into names (pointers into rs, at most max).
 * Returns how many. */
int result_doc_op_names(const struct result_doc *rs, int n,
			const char **names, int max);

#endif
