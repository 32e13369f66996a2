/* result/result.h: the controller's result model, apart from its orchestration:
 * merging the clients' workload records of one repeat (exact histogram
 * merge, counters and per-client rates summed), statistics over a step's
 * complete repeats, the start-skew figures, and why a repeat lacks a
 * client's result (docs/result-schema.md).
 * Pure functions of JSON in, JSON out: no sockets, no clocks. */
#ifndef BB_RESULT_H
#define BB_RESULT_H

#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "lib/hist.h"

/* Workloads one merge keeps apart (a combined step runs several). */
#define RESULT_MAX_WL 16

/* One workload's accumulator. */
struct result_acc {
	char workload[32];
	struct hist *h;		/* merged latency (heap: it is large) */
	int has_hist;
	cJSON *obj;		/* {"counters":{},"errors":{},"rates":{}} */
	int records;
};

/* The accumulators of one repeat (or of a step's every repeat). */
struct result_merge {
	struct result_acc acc[RESULT_MAX_WL];
	int n;
};

/* An empty merge (no allocation until the first record). */
void result_merge_init(struct result_merge *m);

/* Merges one benchboot.workload/1 record into its workload's accumulator
 * (WORKLOAD, or WORKLOAD:LABEL for a record with a "label", so a step's
 * static and CGI http lines stay apart):
 * histogram merged exactly, counters and errors summed, and each counter
 * divided by the record's elapsed_s added to the rates (rates add per
 * client, each over its own time).  Returns 0; -EINVAL with a reason in
 * err (the record then does not count: nothing of it is added); or
 * -ENOMEM / -ENOSPC (more than RESULT_MAX_WL workloads). */
int result_merge_record(struct result_merge *m, const cJSON *rec, char *err,
			size_t errlen);

/* Adds src's histograms into dst's accumulators of the same workloads,
 * creating one for every workload of src (the step's exact merge across
 * complete repeats; counters and rates are not carried over). */
void result_merge_hists(struct result_merge *dst,
			const struct result_merge *src);

/* Loads the histograms of a repeat's "merged" object (as
 * result_merge_json() wrote it, read back from a checkpoint) into m, one
 * accumulator per workload, so result_merge_hists() can add a resumed
 * repeat into its step.  Returns 0; -EINVAL with a reason in err (a
 * workload's latency is not a histogram of this build: nothing of that
 * workload is loaded); -ENOMEM / -ENOSPC. */
int result_merge_load(struct result_merge *m, const cJSON *merged,
		      char *err, size_t errlen);

/* The "merged" object of a repeat: per workload its counters, errors,
 * rates, records and latency (when it had one).  Moves each
 * accumulator's object into the result, so call it once.  New object,
 * caller owns; NULL when out of memory. */
cJSON *result_merge_json(struct result_merge *m);

/* The counter of workload w's records that counts successes (its
 * throughput): "requests" for http, "statements" for sql, "mails" for
 * smtp (w may be WORKLOAD:LABEL); NULL for a workload with no success
 * counter (probe, sample), which then has no error rate. */
const char *result_success_counter(const char *w);

/* Error rate over one workload's counters and errors objects (a record's
 * or a merge's): *succ the success counter, *fail the sum of every error
 * class.  Returns failures / (successes + failures), 0 when nothing was
 * attempted, or -1 when w has no success counter. */
double result_error_rate(const char *w, const cJSON *counters,
			 const cJSON *errors, double *succ, double *fail);

/* Step validity, before result_merge_json(): adds "successes",
 * "failures" and "error_rate" to each workload of m that has a success
 * counter, and when one's error rate exceeds max_rate marks rep
 * "invalid": true with "invalid_reason" (which workload, how many
 * errors of how many attempts, the threshold), and so it does, whatever
 * max_rate, when one has no success at all.  max_rate < 0 never
 * invalidates on errors alone.  Returns 1 when the repeat is valid, 0 when invalid (it
 * is kept, like an incomplete repeat, but not averaged into the step). */
int result_repeat_check(struct result_merge *m, cJSON *rep,
			double max_rate);

/* Frees every accumulator (m can be initialised again). */
void result_merge_free(struct result_merge *m);

/* Fills a step's "merged" (latency over every complete repeat, from all)
 * and "stats" objects: per workload, the statistics (repeat_stats.h) of every
 * rate of the first complete repeat as KEY_per_s, of p50, p99 and the
 * histogram's stddev as p50_ns, p99_ns and stddev_ns, and of error_rate,
 * one value per repeat in per_rep (an array of the complete, valid
 * repeats' "merged" objects).  Percentiles are summarised per
 * repeat, never averaged across clients. */
void result_step_stats(cJSON *merged, cJSON *stats,
		       const struct result_merge *all, const cJSON *per_rep);

/* Resuming a run from its checkpoint cp (a partial result document).
 * Whether cp may be continued by a run of suite (the new document's
 * "suite" object) with the clients ids[0..n): the same suite (name,
 * version, file, time scale) and the same set of clients as cp's
 * environment.  Returns 1, or 0 with the difference in why. */
int result_resume_match(const cJSON *cp, const cJSON *suite,
			const char *const *ids, int n, char *why,
			size_t whylen);

/* Copies the finished repeats of cp's step named step (1, 2, ... in
 * order, each with its "merged") into reps, each marked "resumed": true,
 * and counts the complete, valid ones as runner_step() does: their
 * histograms into all, their "merged" into per_rep, *ncomplete.  Each
 * repeat's "STEP/rN" goes into names.  Returns how many repeats were
 * copied (the run goes on with the next), 0 when cp has none. */
int result_resume_step(const cJSON *cp, const char *step, cJSON *reps,
		       struct result_merge *all, cJSON *per_rep,
		       int *ncomplete, cJSON *names);

/* The start times of one repeat's records, per workload (a combined step
 * mixes workloads with and without warm-up). */
struct result_starts {
	struct {
		char w[32];
		int64_t mn, mx;
		int n;
	} wl[RESULT_MAX_WL];
	int n;
};

/* Notes rec's start: its start.realtime_ns minus its client's clock
 * offset off.  A record without one is ignored. */
void result_starts_note(struct result_starts *s, const cJSON *rec,
			int64_t off);

/* The largest spread of start times within one workload that at least
 * two records share, in ns; -1 when no workload has two. */
int64_t result_starts_skew(const struct result_starts *s);

/* Why a client of a repeat gave no result (its entry's "error"). */
enum result_missing {
	RESULT_MISSING_LOST,		/* its agent went away */
	RESULT_MISSING_UNPREPARED,	/* no "prepared" in the prepare limit */
	RESULT_MISSING_LATE,		/* the step's time limit reached */
	RESULT_MISSING_STOPPED,		/* the controller was stopped */
	RESULT_MISSING_N
};

/* The cause, from what the controller knows of the client: an error in
 * its prepare entry, its agent lost (connection gone, or replaced by a
 * rejoin) during the step, the controller stopping; otherwise it was
 * there and did not answer within the step's time limit. */
enum result_missing result_missing_cause(int prepare_error, int lost,
					 int stopping);

/* The client entry's "error" for cause m ("agent lost during the step",
 * "no result within the step's time limit", ...); a static string. */
const char *result_missing_label(enum result_missing m);

/* A repeat's "incomplete_reason" into buf (len bytes): the clients with
 * no result per cause (missing[RESULT_MISSING_N]; a cause with none is
 * left out), then the records that failed, e.g. "1 client(s) over the
 * step's time limit, 0 record(s) failed". */
void result_incomplete_reason(char *buf, size_t len, const int *missing,
			      int failed);

/* Adds doc's "skew" object: statistics of every repeat's skew_ns.launch
 * (launch_ns) and skew_ns.record (record_ns) over doc's steps; a figure
 * no repeat has is left out. */
void result_skew_summary(cJSON *doc);

#endif
