/* agent/policy.h: what an agent lets a controller start (least authority): only
 * the workloads it announced, none of their options that read a local
 * file, and load aimed only at the run's targets.  Pure: checks an argv
 * against lists, so the session can refuse a run before forking. */
#ifndef BB_POLICY_H
#define BB_POLICY_H

#include <stddef.h>

#include <cjson/cJSON.h>

/* Checks one process's argv (an array of strings, argv[0] the workload)
 * against workloads (the agent's own list) and targets (the host names or
 * addresses the run may load, from the controller's run message).
 * Returns 0, or -EPERM with what was refused and why in err. */
int policy_check_argv(const cJSON *argv, const cJSON *workloads,
		      const cJSON *targets, char *err, size_t errlen);

#endif
