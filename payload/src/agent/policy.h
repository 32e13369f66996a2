/* agent/policy.h: what an agent lets a controller start (least
 * authority): only the workloads it announced, only the options each
 * one's table marks .remote (lib/opt.h), and load aimed only at the
 * run's targets.  Pure:
 * checks an argv against tables and lists, so the session can refuse a
 * run before forking. */
#ifndef BB_POLICY_H
#define BB_POLICY_H

#include <stddef.h>

#include <cjson/cJSON.h>

/* Checks one process's argv (an array of strings, argv[0] the workload)
 * against workloads (the agent's own list) and targets (the host names or
 * addresses the run may load, from the controller's run message).  The
 * argv is resolved by opt_walk() with the workload's own option table
 * (workload.opts), exactly as the workload will resolve it: unique
 * prefixes, --opt=value, short letters, bundles and "--" name the option
 * they stand for.  Refused: an option its table does not mark .remote
 * (naming it, and what it touches locally when its table says), an
 * unknown, ambiguous or valueless option, --help, a target that is not
 * one of targets (http's URL operands, smtp's HOST:PORT operands, sql's
 * --host, which sql must have), and an operand of a workload that takes
 * none; an operand is all after "--", never an option.
 * Returns 0, or -EPERM with what was refused and why in err.  Uses
 * getopt's globals: not while another thread parses options. */
int policy_check_argv(const cJSON *argv, const cJSON *workloads,
		      const cJSON *targets, char *err, size_t errlen);

#endif
