/* lib/fetch.h: downloads through libcurl (suites, uploads' sibling, and the
 * proof that the static libcurl + mbedTLS work). */
#ifndef BB_FETCH_H
#define BB_FETCH_H

#include <stddef.h>

/* Downloads url into path (written to path.part, fsync'd, then renamed,
 * so path is complete or absent).  timeout_s bounds the whole transfer.
 * HTTP status >= 400 is a failure.  On failure writes a message naming
 * the URL and the reason into err (errlen bytes).  Returns 0, -EIO
 * (transfer or status), -ENOMEM, or the negative errno of a file error. */
int fetch_to_file(const char *url, const char *path, long timeout_s,
		  char *err, size_t errlen);

/* `benchboot fetch [-o FILE] [--timeout SECONDS] URL`: downloads URL to
 * FILE (default: stdout).  Returns 0 on success, 1 on failure, 2 on a
 * usage error. */
int fetch_main(int argc, char **argv);

#endif
