/* proto/gate.h: the prepare gate's hand-over from an agent to the
 * workload it execs (docs/protocol.md, "Prepare, then start"): one
 * environment variable naming the gate's two descriptors and how long
 * the workload may prepare, written by the agent (agent/session.c) and
 * read by the workload (load/loadgen.c). */
#ifndef BB_GATE_H
#define BB_GATE_H

#include <stddef.h>
#include <stdint.h>

#define GATE_ENV "BENCHBOOT_GATE"

/* The longest preparation a gate allows, a day: longer than any step
 * prepares, and far from overflowing as nanoseconds. */
#define GATE_BUDGET_MAX_MS 86400000ull

/* The variable's value, "GO_FD,READY_FD,BUDGET_MS", into buf (len
 * bytes).  Returns 0, -EINVAL for a negative descriptor, -ENAMETOOLONG
 * when it does not fit. */
int gate_env_format(char *buf, size_t len, int go, int ready,
		    uint64_t budget_ms);

/* Parses s as gate_env_format() writes it, three decimal numbers and
 * nothing else.  Returns 0 with *go, *ready and *budget_ms set; -EINVAL
 * (nothing set) when s is NULL, malformed, a descriptor is negative or
 * past INT_MAX, or the budget past a day. */
int gate_env_parse(const char *s, int *go, int *ready, uint64_t *budget_ms);

#endif
