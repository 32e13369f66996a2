/* changes/changes_edivisive.c: E-Divisive means over one series: the
 * energy statistic's best split, tested (a seeded permutation test or
 * Welch's t-test), recursively; Otava's merge of weak points after. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "changes/changes_edivisive.h"
#include "lib/tdist.h"

/* A segment [s, e) of the series and its best split, once computed. */
struct changes_seg {
	int s, e;
	int tau;		/* -1: no split possible (too short) */
	double q;
};

/* The split of y[0..len) that maximizes q^ (Matteson & James, alpha 1,
 * the whole segment as kappa, as signal-processing-algorithms does),
 * with at least min points each side: its index into *tau (-1 when len
 * < 2 * min) and q^ returned.  Point tau moving from the right to the
 * left changes the within-left, within-right and cross sums of
 * distances by its distances to either side: O(len^2) in all. */
static double changes_best(const double *y, int len, int min, int *tau)
{
	double wl = 0, wr = 0, b = 0, best = -INFINITY;
	int i, j, t;

	*tau = -1;
	if (len < 2 * min)
		return best;
	for (i = 0; i < len; i++)
		for (j = i + 1; j < len; j++)
			wr += fabs(y[i] - y[j]);
	for (t = 1; t <= len - min; t++) {
		double rl = 0, rr = 0, m = t, n = len - t, q;

		/* Point t - 1 moves to the left side. */
		for (i = 0; i < t - 1; i++)
			rl += fabs(y[i] - y[t - 1]);
		for (j = t; j < len; j++)
			rr += fabs(y[t - 1] - y[j]);
		wl += rl;
		wr -= rr;
		b += rr - rl;
		if (t < min)
			continue;
		q = m * n / (m + n) * (2 * b / (m * n) -
				      2 * wl / (m * (m - 1)) -
				      2 * wr / (n * (n - 1)));
		if (q > best) {
			best = q;
			*tau = t;
		}
	}
	return best;
}

/* splitmix64: the permutations' generator (a seed gives one sequence on
 * every machine). */
static uint64_t changes_rand(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* The permutation test of a split with statistic q of y[0..len): how
 * often a shuffle of the segment splits as well or better. */
static double changes_perm_p(const double *y, int len, int min, double q,
			     int perms, uint64_t *rng, double *tmp)
{
	int k, i, t, ge = 0;

	memcpy(tmp, y, (size_t)len * sizeof(*tmp));
	for (k = 0; k < perms; k++) {
		for (i = len - 1; i > 0; i--) {
			int j = (int)(changes_rand(rng) % (uint64_t)(i + 1));
			double v = tmp[i];

			tmp[i] = tmp[j];
			tmp[j] = v;
		}
		if (changes_best(tmp, len, min, &t) >= q)
			ge++;
	}
	return (1.0 + ge) / (perms + 1.0);
}

static void changes_meanvar(const double *a, int n, double *mean, double *var)
{
	double s = 0, ss = 0;
	int i;

	for (i = 0; i < n; i++)
		s += a[i];
	*mean = s / n;
	for (i = 0; i < n; i++)
		ss += (a[i] - *mean) * (a[i] - *mean);
	*var = n > 1 ? ss / (n - 1) : 0;
}

double changes_welch(const double *a, int na, const double *b, int nb)
{
	double ma, va, mb, vb, sa, sb, t, df, p;

	changes_meanvar(a, na, &ma, &va);
	changes_meanvar(b, nb, &mb, &vb);
	sa = va / na;
	sb = vb / nb;
	/* Means a rounding apart (the same figure summed in another
	 * order) are equal: no spread would make that infinitely
	 * significant. */
	if (fabs(ma - mb) <= 1e-12 * fmax(fabs(ma), fabs(mb)))
		return 1;
	if (sa + sb <= 0)
		return 0;
	t = (ma - mb) / sqrt(sa + sb);
	/* Welch-Satterthwaite; a side with no spread gives the other's
	 * n - 1. */
	df = (sa + sb) * (sa + sb) /
		(sa * sa / (na - 1) + sb * sb / (nb - 1));
	/* Spreads of denormal size underflow to 0/0 there (fuzz_changes
	 * found it): the pooled degrees of freedom instead, never fewer
	 * than one, never past a million (the normal curve by then). */
	if (!(df >= 1))
		df = fmax(1, na + nb - 2);
	if (!(df <= 1e6))
		df = 1e6;
	p = tdist_p2(t, df);
	return p >= 0 && p <= 1 ? p : 1;
}

static int changes_cmp_idx(const void *a, const void *b)
{
	const struct changes_point *x = a, *y = b;

	return (x->idx > y->idx) - (x->idx < y->idx);
}

/* Otava's merge: each point tested again between its neighbours, the
 * weakest dropped, until every p < alpha. */
static void changes_merge(const double *x, int n, double alpha,
			  struct changes_point *cp, int *ncp)
{
	while (*ncp > 0) {
		int i, weak = 0;

		for (i = 0; i < *ncp; i++) {
			int s = i ? cp[i - 1].idx : 0;
			int e = i + 1 < *ncp ? cp[i + 1].idx : n;

			cp[i].p = changes_welch(x + s, cp[i].idx - s,
						x + cp[i].idx, e - cp[i].idx);
			if (cp[i].p > cp[weak].p)
				weak = i;
		}
		if (cp[weak].p < alpha)
			break;
		memmove(&cp[weak], &cp[weak + 1],
			(size_t)(*ncp - weak - 1) * sizeof(*cp));
		(*ncp)--;
	}
}

/* The means either side of every point, between its neighbours. */
static void changes_levels(const double *x, int n, struct changes_point *cp,
			   int ncp)
{
	int i, k;

	for (i = 0; i < ncp; i++) {
		int s = i ? cp[i - 1].idx : 0;
		int e = i + 1 < ncp ? cp[i + 1].idx : n;
		double a = 0, b = 0;

		for (k = s; k < cp[i].idx; k++)
			a += x[k];
		for (k = cp[i].idx; k < e; k++)
			b += x[k];
		cp[i].before = a / (cp[i].idx - s);
		cp[i].after = b / (e - cp[i].idx);
		cp[i].pct = cp[i].before != 0 ? (cp[i].after - cp[i].before) /
			fabs(cp[i].before) * 100 : 0;
	}
}

static int changes_check(const double *x, int n, const struct changes_opts *o)
{
	int i;

	if (n < 0 || n > CHANGES_MAX_POINTS || (n && !x) || o->min_seg < 2 ||
	    !(o->alpha > 0 && o->alpha < 1) ||
	    (o->test != CHANGES_TTEST && o->test != CHANGES_PERM) ||
	    (o->test == CHANGES_PERM && (o->perms < 1 || o->perms > 100000)))
		return -EINVAL;
	for (i = 0; i < n; i++)
		if (!isfinite(x[i]))
			return -EINVAL;
	return 0;
}

int changes_edivisive(const double *x, int n, const struct changes_opts *o,
		      struct changes_point **out, int *nout)
{
	/* Every split adds one segment: at most n / min_seg of them. */
	struct changes_seg *seg = NULL;
	struct changes_point *cp = NULL;
	double *tmp = NULL;
	uint64_t rng = o->seed;
	int nseg = 1, ncp = 0, rc;
	double alpha = o->test == CHANGES_TTEST ? fmin(o->alpha * 10, 0.5) :
		o->alpha;

	*out = NULL;
	*nout = 0;
	rc = changes_check(x, n, o);
	if (rc != 0 || n < 2 * o->min_seg)
		return rc;
	seg = calloc((size_t)n, sizeof(*seg));
	cp = calloc((size_t)n, sizeof(*cp));
	tmp = malloc((size_t)n * sizeof(*tmp));
	if (!seg || !cp || !tmp) {
		rc = -ENOMEM;
		goto out;
	}
	seg[0] = (struct changes_seg){ 0, n, -2, 0 };
	for (;;) {
		int i, best = -1, s, e;
		double p;

		for (i = 0; i < nseg; i++) {
			if (seg[i].tau == -2)
				seg[i].q = changes_best(x + seg[i].s,
							seg[i].e - seg[i].s,
							o->min_seg,
							&seg[i].tau);
			if (seg[i].tau >= 0 &&
			    (best < 0 || seg[i].q > seg[best].q))
				best = i;
		}
		if (best < 0)
			break;
		s = seg[best].s;
		e = seg[best].e;
		if (o->test == CHANGES_PERM)
			p = changes_perm_p(x + s, e - s, o->min_seg,
					   seg[best].q, o->perms, &rng, tmp);
		else
			p = changes_welch(x + s, seg[best].tau, x + s +
					  seg[best].tau, e - s - seg[best].tau);
		/* As E-Divisive: the strongest split not significant ends
		 * the search. */
		if (!(p < alpha))
			break;
		cp[ncp++] = (struct changes_point){ .idx = s + seg[best].tau,
						    .p = p };
		seg[nseg++] = (struct changes_seg){ s + seg[best].tau, e, -2,
						    0 };
		seg[best] = (struct changes_seg){ s, s + seg[best].tau, -2,
						  0 };
	}
	qsort(cp, (size_t)ncp, sizeof(*cp), changes_cmp_idx);
	if (o->test == CHANGES_TTEST)
		changes_merge(x, n, o->alpha, cp, &ncp);
	changes_levels(x, n, cp, ncp);
	if (ncp) {
		*out = cp;
		*nout = ncp;
		cp = NULL;
	}
out:
	free(seg);
	free(cp);
	free(tmp);
	return rc;
}
