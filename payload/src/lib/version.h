/* lib/version.h: benchboot's version and the versions of everything pinned
 * into it (generated from image/deps/ at build time). */
#ifndef BB_VERSION_H
#define BB_VERSION_H

#include <stdio.h>

/* benchboot's own version string, e.g. "0.1.0". */
const char *version_string(void);

/* The booted image's identity, "sha256:<64 hex>": the digest of its
 * kernel, initramfs and server overlay that the image build wrote into
 * /etc/benchboot-image (docs/reproducible.md).  NULL when that file is
 * missing or malformed (benchboot run outside an image).  Read once,
 * thread-safe; the string is static. */
const char *version_image_digest(void);

/* Writes "benchboot VERSION (ARCH)", the image digest and one line per
 * pinned input ("name  upstream  (Debian pkg ver)") to out. */
void version_print(FILE *out);

/* The same list as a new JSON object, one member per input: name ->
 * "upstream (Debian package version)"; for result documents.  Caller owns
 * it; NULL when out of memory. */
struct cJSON *version_to_json(void);

#endif
