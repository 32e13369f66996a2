/* core/version_cmd.h: `benchboot version`, lib/version.h's list on
 * stdout. */
#ifndef BB_VERSION_CMD_H
#define BB_VERSION_CMD_H

/* Prints version_print() to stdout; returns 0. */
int version_main(int argc, char **argv);

#endif
