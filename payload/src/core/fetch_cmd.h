/* core/fetch_cmd.h: `benchboot fetch`, the command line of lib/fetch.h:
 * the proof on a booted image that its static libcurl and TLS work. */
#ifndef BB_FETCH_CMD_H
#define BB_FETCH_CMD_H

/* `benchboot fetch [-o FILE] [--timeout SECONDS] URL`: downloads URL to
 * FILE (default: stdout).  Returns 0 on success, 1 on failure, 2 on a
 * usage error. */
int fetch_main(int argc, char **argv);

#endif
