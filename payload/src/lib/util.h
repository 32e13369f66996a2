/* lib/util.h: small helpers every subcommand shares: clocks, option values
 * with units, and error messages that say what and where. */
#ifndef BB_UTIL_H
#define BB_UTIL_H

#include <stddef.h>
#include <stdint.h>

/* CLOCK_MONOTONIC and CLOCK_REALTIME in nanoseconds. */
uint64_t util_mono_ns(void);
uint64_t util_real_ns(void);

/* Parses a duration: a number with an optional unit ns, us, ms, s
 * (default), m or h ("10s", "1.5m", "250ms").  Stores nanoseconds in
 * *out.  Returns 0, or -EINVAL for anything else (empty, junk after the
 * unit, negative, overflow). */
int util_parse_duration(const char *s, uint64_t *out);

/* Parses an unsigned integer with an optional k/M/G suffix (powers of
 * 1000) within [min, max].  Returns 0, -EINVAL or -ERANGE. */
int util_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out);

/* Writes len bytes of data to dir/name atomically: a temporary file in dir
 * (".name.tmp.PID"), fsync, rename over name, fsync of dir; so readers
 * (and a crash) see the old file or the whole new one, never a part.
 * Returns 0 or a negative errno; on failure nothing is left behind. */
int util_write_atomic(const char *dir, const char *name, const void *data,
		      size_t len);

/* fsync()s a directory so a rename or unlink in it is durable; errors are
 * ignored (not every file system supports it). */
void util_fsync_dir(const char *dir);

/* Prints "benchboot CMD: message\n" to stderr.  err is a positive errno
 * (0 means EINVAL); returns its negation, for `return util_err(...)`. */
int util_err(const char *cmd, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Watches CLOCK_REALTIME against CLOCK_MONOTONIC: a step of the wall
 * clock (settimeofday, an NTP step, a VM resumed) moves their difference,
 * which a monotonic deadline never sees but a result's times do. */
struct util_clockwatch {
	int64_t diff;		/* realtime - monotonic at the last look */
	int primed;
};

/* Looks now: returns 1 and the step in *step_ns (positive: the wall clock
 * jumped forward) when the difference moved by more than min_ns since the
 * last look, else 0.  The first look only primes w. */
int util_clock_stepped(struct util_clockwatch *w, int64_t min_ns,
		       int64_t *step_ns);

/* A step as "forward:1.234s" or "back:0.250s" into buf (len bytes): the
 * control protocol's and the result's spelling.  Returns buf. */
char *util_fmt_step(char *buf, size_t len, int64_t step_ns);

/* Formats a message into err (errlen bytes; nothing when err is NULL or
 * errlen 0) and returns rc: the one helper behind every parser's
 * `return util_fail(err, errlen, -EINVAL, "line %d: ...", n);`. */
int util_fail(char *err, size_t errlen, int rc, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* This host's name into buf (len bytes, always NUL-terminated): the
 * kernel's hostname, or "unknown" when it has none or cannot be read.
 * Returns buf. */
char *util_hostname(char *buf, size_t len);

/* Appends the size bytes of item to the array *arr (a pointer to the
 * caller's T *) of *n items, growing it by one.  Returns 0, or -ENOMEM
 * with the array kept as it was. */
int util_array_push(void *arr, int *n, const void *item, size_t size);

#endif
