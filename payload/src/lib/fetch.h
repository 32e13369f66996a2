/* lib/fetch.h: downloads through libcurl (suites, uploads' sibling, and the
 * proof that the static libcurl + mbedTLS work). */
#ifndef BB_FETCH_H
#define BB_FETCH_H

#include <stddef.h>
#include <stdio.h>

/* Downloads url into path (written to path.part, fsync'd, then renamed,
 * so path is complete or absent).  timeout_s bounds the whole transfer.
 * HTTP status >= 400 is a failure.  On failure writes a message naming
 * the URL and the reason into err (errlen bytes).  Returns 0, -EIO
 * (transfer or status), -ENOMEM, or the negative errno of a file error. */
int fetch_to_file(const char *url, const char *path, long timeout_s,
		  char *err, size_t errlen);

/* Downloads url to out as it arrives (a failure may leave part of it
 * written).  timeout_s bounds the whole transfer; HTTP status >= 400 is
 * a failure.  Returns 0, -EIO or -ENOMEM, with a message in err. */
int fetch_to_stream(const char *url, FILE *out, long timeout_s, char *err,
		    size_t errlen);

#endif
