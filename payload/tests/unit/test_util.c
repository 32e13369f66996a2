/* test_util.c: option-value parsing (durations, counts with suffixes). */
#include <errno.h>
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tap.h"
#include "lib/util.h"

static const struct {
	const char *in;
	int rc;
	uint64_t ns;
} durations[] = {
	{ "10", 0, 10000000000ull },     { "10s", 0, 10000000000ull },
	{ "1.5m", 0, 90000000000ull },   { "250ms", 0, 250000000ull },
	{ "3us", 0, 3000ull },           { "7ns", 0, 7ull },
	{ "1h", 0, 3600000000000ull },   { "0", 0, 0 },
	{ "", -EINVAL, 0 },              { "s", -EINVAL, 0 },
	{ "-1s", -EINVAL, 0 },           { "10x", -EINVAL, 0 },
	{ "10 s", -EINVAL, 0 },          { "1e30h", -EINVAL, 0 },
	{ "nan", -EINVAL, 0 },           { "+5", -EINVAL, 0 },
};

static const struct {
	const char *in;
	uint64_t min, max;
	int rc;
	uint64_t v;
} counts[] = {
	{ "42", 0, 100, 0, 42 },         { "2k", 0, 10000, 0, 2000 },
	{ "3M", 0, UINT64_MAX, 0, 3000000 },
	{ "0", 1, 10, -ERANGE, 0 },      { "11", 1, 10, -ERANGE, 0 },
	{ "x", 0, 10, -EINVAL, 0 },      { "-1", 0, 10, -EINVAL, 0 },
	{ "5q", 0, 10, -EINVAL, 0 },     { "", 0, 10, -EINVAL, 0 },
	{ "99999999999999999999", 0, UINT64_MAX, -ERANGE, 0 },
	{ "99999999999999G", 0, UINT64_MAX, -ERANGE, 0 },
};

/* Number of entries in dir besides . and .. (leftover temporary files). */
static int dir_entries(const char *dir)
{
	struct dirent *de;
	DIR *d = opendir(dir);
	int n = 0;

	while (d && (de = readdir(d)))
		n += strcmp(de->d_name, ".") != 0 &&
		     strcmp(de->d_name, "..") != 0;
	if (d)
		closedir(d);
	return n;
}

static void atomic_cases(void)
{
	char dir[] = "/tmp/test_util.XXXXXX", path[64], buf[32] = "";
	FILE *f;

	if (!tap_ok(mkdtemp(dir) != NULL, "mkdtemp"))
		return;
	TAP_EQ_INT(util_write_atomic(dir, "r.json", "first", 5), 0,
		   "write_atomic creates the file");
	TAP_EQ_INT(util_write_atomic(dir, "r.json", "second!", 7), 0,
		   "write_atomic replaces it");
	snprintf(path, sizeof(path), "%s/r.json", dir);
	f = fopen(path, "r");
	if (f) {
		buf[fread(buf, 1, sizeof(buf) - 1, f)] = 0;
		fclose(f);
	}
	TAP_EQ_STR(buf, "second!", "the file holds the whole new content");
	TAP_EQ_INT(dir_entries(dir), 1, "no temporary file is left behind");
	snprintf(path, sizeof(path), "%s/missing", dir);
	TAP_EQ_INT(util_write_atomic(path, "r.json", "x", 1), -ENOENT,
		   "a missing directory gives -ENOENT");
	snprintf(path, sizeof(path), "%s/r.json", dir);
	unlink(path);
	rmdir(dir);
}

/* util_fail formats into err when there is room and always returns rc;
 * util_hostname never leaves buf empty or unterminated. */
static void message_cases(void)
{
	char err[10] = "x", host[4];

	TAP_EQ_INT(util_fail(err, sizeof(err), -ERANGE, "line %d: %s", 7,
			     "too big"), -ERANGE, "util_fail returns rc");
	TAP_EQ_STR(err, "line 7: t", "util_fail truncates to errlen");
	TAP_EQ_INT(util_fail(NULL, 0, -EINVAL, "%s", "no buffer"), -EINVAL,
		   "util_fail without a buffer");
	TAP_EQ_INT(util_fail(err, 0, -EIO, "%s", "zero"), -EIO,
		   "util_fail with errlen 0");
	TAP_EQ_STR(err, "line 7: t", "errlen 0 leaves err alone");
	util_hostname(host, sizeof(host));
	tap_ok(host[0] != '\0' && strlen(host) < sizeof(host),
	       "util_hostname fills and terminates a short buffer");
}

int main(void)
{
	size_t i;

	for (i = 0; i < sizeof(durations) / sizeof(durations[0]); i++) {
		uint64_t ns = 0;
		int rc = util_parse_duration(durations[i].in, &ns);

		tap_ok(rc == durations[i].rc &&
		       (rc != 0 || ns == durations[i].ns),
		       "duration \"%s\" -> rc %d ns %llu", durations[i].in,
		       durations[i].rc, (unsigned long long)durations[i].ns);
	}
	for (i = 0; i < sizeof(counts) / sizeof(counts[0]); i++) {
		uint64_t v = 0;
		int rc = util_parse_u64(counts[i].in, counts[i].min,
					counts[i].max, &v);

		tap_ok(rc == counts[i].rc && (rc != 0 || v == counts[i].v),
		       "count \"%s\" in [%llu,%llu] -> rc %d", counts[i].in,
		       (unsigned long long)counts[i].min,
		       (unsigned long long)counts[i].max, counts[i].rc);
	}
	atomic_cases();
	message_cases();
	return tap_done();
}
