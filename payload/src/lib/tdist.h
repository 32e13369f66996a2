/* lib/tdist.h: Student's t distribution for any real degrees of freedom
 * (Welch's test has fractional ones): the two-sided tail probability and
 * its inverse.  The change-point test and the minimum detectable change
 * both need more than repeat_stats_t95()'s one quantile. */
#ifndef BB_TDIST_H
#define BB_TDIST_H

/* The probability that |T| >= |t| for T with df degrees of freedom
 * (df > 0): Welch's two-sided p-value.  1 for t == 0; NaN for df <= 0. */
double tdist_p2(double t, double df);

/* The t for which tdist_p2(t, df) == p (0 < p <= 1, df > 0): the
 * two-sided quantile (p 0.05 gives t_{0.975}; a one-sided t_{1-b} is
 * tdist_q2(2 * b, df)).  Accurate to 1e-9 relative; NaN outside the
 * domain. */
double tdist_q2(double p, double df);

#endif
