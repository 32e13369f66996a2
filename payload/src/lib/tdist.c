/* lib/tdist.c: Student's t tail and quantile through the regularized
 * incomplete beta function (a continued fraction, Lentz's method), so
 * that fractional degrees of freedom work as well as whole ones. */
#include <math.h>

#include "lib/tdist.h"

/* The continued fraction of I_x(a, b), good for x < (a + 1) / (a + b + 2). */
static double tdist_betacf(double a, double b, double x)
{
	const double tiny = 1e-300;
	double c = 1, d = 1 - (a + b) * x / (a + 1), h;
	int m;

	d = 1 / (fabs(d) < tiny ? tiny : d);
	h = d;
	for (m = 1; m <= 300; m++) {
		double m2 = 2.0 * m, num, del;

		num = m * (b - m) * x / ((a + m2 - 1) * (a + m2));
		d = 1 + num * d;
		c = 1 + num / c;
		d = 1 / (fabs(d) < tiny ? tiny : d);
		c = fabs(c) < tiny ? tiny : c;
		h *= d * c;
		num = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1));
		d = 1 + num * d;
		c = 1 + num / c;
		d = 1 / (fabs(d) < tiny ? tiny : d);
		c = fabs(c) < tiny ? tiny : c;
		del = d * c;
		h *= del;
		if (fabs(del - 1) < 1e-15)
			break;
	}
	return h;
}

/* I_x(a, b), the regularized incomplete beta function. */
static double tdist_ibeta(double a, double b, double x)
{
	double lb;

	if (x <= 0)
		return 0;
	if (x >= 1)
		return 1;
	lb = lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) +
		b * log1p(-x);
	if (x < (a + 1) / (a + b + 2))
		return exp(lb) * tdist_betacf(a, b, x) / a;
	return 1 - exp(lb) * tdist_betacf(b, a, 1 - x) / b;
}

double tdist_p2(double t, double df)
{
	if (!(df > 0) || isnan(t))
		return NAN;
	if (isinf(t))
		return 0;
	return tdist_ibeta(df / 2, 0.5, df / (df + t * t));
}

double tdist_q2(double p, double df)
{
	double lo = 0, hi = 1;
	int i;

	if (!(p > 0 && p <= 1) || !(df > 0))
		return NAN;
	/* p falls as t grows: widen, then bisect. */
	while (tdist_p2(hi, df) > p && hi < 1e12)
		hi *= 2;
	for (i = 0; i < 200 && hi - lo > 1e-10 * hi; i++) {
		double mid = (lo + hi) / 2;

		if (tdist_p2(mid, df) > p)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2;
}
