/* version.h: benchboot's version and the versions of everything pinned
 * into it (generated from image/deps/ at build time). */
#ifndef BB_VERSION_H
#define BB_VERSION_H

#include <stdio.h>

/* benchboot's own version string, e.g. "0.1.0". */
const char *version_string(void);

/* Writes one line per pinned input ("name  upstream  (Debian pkg ver)")
 * to out. */
void version_print(FILE *out);

/* The same list as a new JSON object, one member per input: name ->
 * "upstream (Debian package version)"; for result documents.  Caller owns
 * it; NULL when out of memory. */
struct cJSON *version_to_json(void);

/* `benchboot version`: prints version_print() to stdout; returns 0. */
int version_main(int argc, char **argv);

#endif
