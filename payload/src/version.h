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

/* `benchboot version`: prints version_print() to stdout; returns 0. */
int version_main(int argc, char **argv);

#endif
