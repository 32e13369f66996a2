/* changes/changes_edivisive.h: change points of one series by E-Divisive
 * means (Matteson & James 2014) with a significance test: MongoDB's
 * seeded permutation test (Daly et al., ICPE 2020), or Apache Otava's
 * Welch t-test with its merge of weak points (docs/collect.md).  Pure:
 * the same series and options give the same points. */
#ifndef BB_CHANGES_EDIVISIVE_H
#define BB_CHANGES_EDIVISIVE_H

#include <stdint.h>

/* The longest series the detector takes (its cost grows as n^2). */
#define CHANGES_MAX_POINTS 5000

enum changes_test {
	CHANGES_TTEST,	/* Otava: Welch's t-test, weak points merged away */
	CHANGES_PERM,	/* MongoDB: a permutation test of the energy */
};

struct changes_opts {
	enum changes_test test;
	double alpha;		/* a point is kept when its p < alpha */
	int min_seg;		/* points on each side of a change, >= 2 */
	int perms;		/* CHANGES_PERM: permutations, >= 1 */
	uint64_t seed;		/* CHANGES_PERM: the shuffles' seed */
};

/* The defaults docs/collect.md chose from the backtest: the permutation
 * test at 0.01 had the fewest false points (0.8-1.7 per 1000 runs) and
 * reports a step of 5 % or more at noise CV up to 2 % two runs after it. */
#define CHANGES_DEFAULT_OPTS { CHANGES_PERM, 0.01, 3, 199, 1 }

/* One change point: the series is x[..idx) before it and x[idx..) after. */
struct changes_point {
	int idx;		/* the first point of the new level */
	double p;		/* the test's p-value */
	double before, after;	/* means of the segments either side */
	double pct;		/* (after - before) / |before|, in %; 0 when
				 * before is 0 */
};

/* Finds the change points of x[0..n) (finite values).  Top-down: the
 * split that maximizes the energy statistic q^ over every segment is
 * tested (the permutation test: p = (1 + #shuffles with a larger max
 * q^) / (perms + 1); the t-test: Welch's between the two sides, at
 * 10 * alpha) and kept while significant; then, for the t-test, the
 * weakest point is dropped (each tested again against its neighbours)
 * until every p < alpha.  *out gets them in index order (caller frees;
 * NULL when none), *nout their count.  Returns 0, -EINVAL (n over
 * CHANGES_MAX_POINTS, a value not finite, options out of range) or
 * -ENOMEM. */
int changes_edivisive(const double *x, int n, const struct changes_opts *o,
		      struct changes_point **out, int *nout);

/* Welch's two-sided t-test between a[0..na) and b[0..nb) (each >= 2):
 * the p-value; 1 when the means are equal (within 1e-12 of their size),
 * 0 when they differ and neither side has a spread. */
double changes_welch(const double *a, int na, const double *b, int nb);

#endif
