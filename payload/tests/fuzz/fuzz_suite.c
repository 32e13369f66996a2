/* fuzz_suite.c: libFuzzer target for the suite file parser: any bytes
 * parse or fail with a "FILE..." message, and what parses holds together
 * (every step has a run line, counts within their limits). */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/fetch.h"
#include "controller/suite.h"

/* suite_parse never fetches; suite_load's URL path is not fuzzed, so the
 * target links without libcurl. */
int fetch_to_file(const char *url, const char *path, long timeout_s,
		  char *err, size_t errlen)
{
	(void)url;
	(void)path;
	(void)timeout_s;
	(void)err;
	(void)errlen;
	return -ENOSYS;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct suite s;
	char err[512];
	unsigned i;
	int rc;

	err[0] = 0;
	rc = suite_parse((const char *)data, size, "f.suite", &s, err,
			 sizeof(err));
	if (rc != 0) {
		if (rc != -EINVAL && rc != -ENOMEM)
			abort();
		if (rc == -EINVAL && strncmp(err, "f.suite", 7) != 0)
			abort();
		return 0;
	}
	if (!s.name[0] || !s.version[0] || s.nsteps == 0)
		abort();
	for (i = 0; i < s.nsteps; i++)
		if (s.steps[i].nruns == 0 ||
		    s.steps[i].nruns > SUITE_MAX_RUNS ||
		    s.steps[i].nconc > SUITE_MAX_CONC ||
		    s.steps[i].repeats == 0)
			abort();
	suite_free(&s);
	return 0;
}
