/* changes-backtest.c: issue 32's backtest of change-point detection
 * against today's window test, on synthetic histories with known
 * changes (steps of 2-20 % at noise CV 1-10 %, outliers, a slow slide).
 * Each history is uploaded run by run, as to a collector: after every
 * run the detector (changes_edivisive) looks at the whole history so far
 * and the window test (resultdb_judge, the collector's own code) judges
 * the new run against the window before it.  Prints each method's
 * precision, recall and detection delay side by side.  Deterministic:
 * the seeds are fixed.  Linked against the payload's objects by
 * changes-backtest.sh. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "changes/changes_edivisive.h"
#include "lib/repeat_stats.h"
#include "result/result_doc.h"
#include "resultdb/resultdb_regress.h"

#define N 60		/* runs in a history */
#define REPS 3		/* repeats of a run (the window test needs 2) */
#define TOL 2		/* a point this close to a change is that change */
#define SEEDS 20

static uint64_t rs;

static double unif(void)
{
	uint64_t z = (rs += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return ((z ^ (z >> 31)) >> 11) * 0x1.0p-53;
}

static double gauss(void)
{
	double u = unif(), v = unif();

	return sqrt(-2 * log(u + 1e-300)) * cos(2 * M_PI * v);
}

/* One history: a step of step % at c (0: none), a slide of slide %
 * from c to the end, outliers (a run 25 % slow) with probability pout;
 * noise: half the variance between runs (a boot, a cache), half between
 * repeats, total CV cv % on a run's mean. */
struct hist {
	double x[N];
	struct result_doc_stat st[N];
	int c;			/* the change's index, -1: none */
	int slide;
};

static void make(struct hist *h, double step, double slide, double cv,
		 double pout, int c, uint64_t seed)
{
	double between = cv / 100 / sqrt(2), within = between * sqrt(REPS);
	int i, k;

	rs = seed;
	h->c = step != 0 || slide != 0 ? c : -1;
	h->slide = slide != 0;
	for (i = 0; i < N; i++) {
		double lvl = 1000, v[REPS], run;
		struct repeat_stats s;

		if (step != 0 && i >= c)
			lvl *= 1 + step / 100;
		if (slide != 0 && i >= c)
			lvl *= 1 + slide / 100 * (i - c + 1) / (N - c);
		run = lvl * (1 + between * gauss());
		if (unif() < pout)
			run *= 0.75;
		for (k = 0; k < REPS; k++)
			v[k] = run * (1 + within * gauss());
		repeat_stats_compute(v, REPS, &s);
		h->x[i] = s.mean;
		h->st[i] = (struct result_doc_stat){ REPS, s.median, s.mean,
						     s.ci95_lo, s.ci95_hi };
	}
}

/* What one method did over many histories. */
struct score {
	int changes, found, fp, dup, runs;
	int delay[4096];
	int nd;
};

/* An alert at index idx raised after run k: matched to h's change. */
static void alert(struct score *sc, const struct hist *h, int idx, int k,
		  int *matched)
{
	int hit = h->c >= 0 && (h->slide ? idx >= h->c - TOL :
				abs(idx - h->c) <= TOL);

	if (!hit) {
		sc->fp++;
	} else if (*matched) {
		sc->dup++;
	} else {
		*matched = 1;
		sc->found++;
		if (sc->nd < 4096)
			sc->delay[sc->nd++] = k - h->c;
	}
}

/* The detector online: after each run k, the points of x[0..k]; a
 * point not within TOL of one already raised is a new alert. */
static void run_detector(struct score *sc, const struct hist *h,
			 const struct changes_opts *o)
{
	int raised[N], nr = 0, k, i, j, matched = 0;

	for (k = 2 * o->min_seg - 1; k < N; k++) {
		struct changes_point *cp;
		int n;

		if (changes_edivisive(h->x, k + 1, o, &cp, &n) != 0)
			continue;
		for (i = 0; i < n; i++) {
			int seen = 0;

			for (j = 0; j < nr; j++)
				seen |= abs(raised[j] - cp[i].idx) <= TOL;
			if (seen)
				continue;
			raised[nr++] = cp[i].idx;
			alert(sc, h, cp[i].idx, k, &matched);
		}
		free(cp);
	}
	sc->changes += h->c >= 0;
	sc->runs += N;
}

/* The window test online: each run against the window before it, as
 * resultdb_regress() does (default window 5, threshold 5 %). */
static void run_window(struct score *sc, const struct hist *h, int window,
		       double thr)
{
	int k, matched = 0;

	for (k = window; k < N; k++) {
		double base, pct;

		if (resultdb_judge(&h->st[k - window], window, &h->st[k], thr,
				   &base, &pct) != 0)
			alert(sc, h, k, k, &matched);
	}
	sc->changes += h->c >= 0;
	sc->runs += N;
}

static int icmp(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

/* "recall % / precision % / median delay" of a score. */
static const char *fmt(struct score *sc, char *buf, size_t len)
{
	char d[16] = "-";

	if (sc->nd) {
		qsort(sc->delay, (size_t)sc->nd, sizeof(int), icmp);
		snprintf(d, sizeof(d), "%d", sc->delay[sc->nd / 2]);
	}
	if (sc->changes)
		snprintf(buf, len, "%3.0f %3.0f %2s", 100.0 * sc->found /
			 sc->changes, sc->found + sc->fp ? 100.0 * sc->found /
			 (sc->found + sc->fp) : 100.0, d);
	else
		snprintf(buf, len, "fp/1000 runs %5.1f", 1000.0 * sc->fp /
			 sc->runs);
	return buf;
}

#define NM 7
static const char *const mname[NM] = {
	"t-test a=.001 m=3", "t-test a=.0001 m=3", "t-test a=.001 m=5",
	"perm a=.01 m=3", "perm a=.05 m=3", "perm a=.01 m=5",
	"window 5, 5 %",
};

static void method(int m, struct score *sc, const struct hist *h)
{
	static const struct changes_opts o[NM - 1] = {
		{ CHANGES_TTEST, 0.001, 3, 0, 0 },
		{ CHANGES_TTEST, 0.0001, 3, 0, 0 },
		{ CHANGES_TTEST, 0.001, 5, 0, 0 },
		{ CHANGES_PERM, 0.01, 3, 199, 1 },
		{ CHANGES_PERM, 0.05, 3, 99, 1 },
		{ CHANGES_PERM, 0.01, 5, 199, 1 },
	};

	if (m < NM - 1)
		run_detector(sc, h, &o[m]);
	else
		run_window(sc, h, 5, 5);
}

/* One table row: a scenario over SEEDS histories, every method; the
 * change at run at (-1: 20 to 39 by seed). */
static void row(const char *name, double step, double slide, double cv,
		double pout, struct score *total, int at)
{
	struct score *sc = calloc(NM, sizeof(*sc));
	struct hist h;
	char buf[64];
	int m, s;

	for (s = 0; s < SEEDS; s++) {
		make(&h, step, slide, cv, pout, at >= 0 ? at : 20 + s % 20,
		     (uint64_t)(s + 1) * 1000003 + (uint64_t)(cv * 100) * 7 +
		     (uint64_t)(fabs(step) * 10));
		for (m = 0; m < NM; m++)
			method(m, &sc[m], &h);
	}
	printf("| %s |", name);
	for (m = 0; m < NM; m++) {
		printf(" %s |", fmt(&sc[m], buf, sizeof(buf)));
		if (total) {
			total[m].changes += sc[m].changes;
			total[m].found += sc[m].found;
			total[m].fp += sc[m].fp;
			total[m].dup += sc[m].dup;
			total[m].runs += sc[m].runs;
			memcpy(total[m].delay + total[m].nd, sc[m].delay,
			       (size_t)(total[m].nd + sc[m].nd <= 4096 ?
					sc[m].nd : 0) * sizeof(int));
			total[m].nd += total[m].nd + sc[m].nd <= 4096 ?
				sc[m].nd : 0;
		}
	}
	printf("\n");
	fflush(stdout);
	free(sc);
}

static void head(const char *first)
{
	int m;

	printf("\n| %s |", first);
	for (m = 0; m < NM; m++)
		printf(" %s |", mname[m]);
	printf("\n|---|");
	for (m = 0; m < NM; m++)
		printf("---|");
	printf("\n");
}

int main(void)
{
	static const double steps[] = { -2, -5, -10, -20 };
	static const double cvs[] = { 1, 2, 5, 10 };
	struct score *total = calloc(NM, sizeof(*total));
	char name[64], buf[64];
	size_t i, j;
	int m;

	printf("%d histories of %d runs per row (%d repeats a run, noise "
	       "half between runs, half between repeats), the change at "
	       "run 20-39; each cell: recall %% precision %% median delay "
	       "(runs after the change until it is reported; 0: at once)\n",
	       SEEDS, N, REPS);
	head("step, noise CV");
	for (i = 0; i < sizeof(steps) / sizeof(steps[0]); i++)
		for (j = 0; j < sizeof(cvs) / sizeof(cvs[0]); j++) {
			snprintf(name, sizeof(name), "%+.0f %%, CV %.0f %%",
				 steps[i], cvs[j]);
			row(name, steps[i], 0, cvs[j], 0, total, -1);
		}
	printf("| **all steps** |");
	for (m = 0; m < NM; m++)
		printf(" %s |", fmt(&total[m], buf, sizeof(buf)));
	printf("\n");
	head("with outliers (3 % of runs 25 % slow)");
	for (j = 0; j < sizeof(cvs) / sizeof(cvs[0]); j++) {
		snprintf(name, sizeof(name), "-10 %%, CV %.0f %%", cvs[j]);
		row(name, -10, 0, cvs[j], 0.03, NULL, -1);
	}
	head("a slow slide over the last 20-40 runs");
	for (j = 0; j < sizeof(cvs) / sizeof(cvs[0]); j++) {
		snprintf(name, sizeof(name), "-10 %% slide, CV %.0f %%",
			 cvs[j]);
		row(name, 0, -10, cvs[j], 0, NULL, -1);
	}
	head("issue 32's case: -14 % from run 6 on, a young history");
	for (j = 0; j < sizeof(cvs) / sizeof(cvs[0]); j++) {
		snprintf(name, sizeof(name), "-14 %% at run 6, CV %.0f %%",
			 cvs[j]);
		row(name, -14, 0, cvs[j], 0, NULL, 6);
	}
	head("no change (false positives)");
	for (j = 0; j < sizeof(cvs) / sizeof(cvs[0]); j++) {
		snprintf(name, sizeof(name), "CV %.0f %%", cvs[j]);
		row(name, 0, 0, cvs[j], 0, NULL, -1);
	}
	for (j = 0; j < sizeof(cvs) / sizeof(cvs[0]); j++) {
		snprintf(name, sizeof(name), "CV %.0f %%, outliers 3 %%",
			 cvs[j]);
		row(name, 0, 0, cvs[j], 0.03, NULL, -1);
	}
	free(total);
	return 0;
}
