/* tap.h: the unit tests' tiny TAP producer.  Each test program includes
 * it once, calls tap_ok()/TAP_EQ_*() per case and returns tap_done(). */
#ifndef BB_TAP_H
#define BB_TAP_H

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static int tap_count;
static int tap_failed;

/* Reports one case; returns cond so callers can stop on a failure. */
static inline int __attribute__((format(printf, 2, 3)))
tap_ok(int cond, const char *fmt, ...)
{
	va_list ap;

	tap_count++;
	if (!cond)
		tap_failed++;
	printf("%sok %d - ", cond ? "" : "not ", tap_count);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
	return cond;
}

#define TAP_EQ_INT(got, want, name) do {                                   \
	long long g_ = (long long)(got), w_ = (long long)(want);            \
	if (!tap_ok(g_ == w_, "%s", name))                                  \
		printf("#   got %lld, want %lld\n", g_, w_);                \
} while (0)

#define TAP_EQ_STR(got, want, name) do {                                   \
	const char *g_ = (got), *w_ = (want);                               \
	int eq_ = g_ && w_ ? strcmp(g_, w_) == 0 : g_ == w_;                \
	if (!tap_ok(eq_, "%s", name))                                       \
		printf("#   got \"%s\", want \"%s\"\n", g_ ? g_ : "(null)", \
		       w_ ? w_ : "(null)");                                 \
} while (0)

/* Prints the plan and the summary line; the exit status of main(). */
static inline int tap_done(void)
{
	printf("1..%d\n# %d passed, %d failed\n", tap_count,
	       tap_count - tap_failed, tap_failed);
	return tap_failed ? 1 : 0;
}

#endif
