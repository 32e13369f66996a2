/* proto/gate.c: the prepare gate's environment variable (proto/gate.h). */
#include <errno.h>
#include <limits.h>
#include <stdio.h>

#include "proto/gate.h"

int gate_env_format(char *buf, size_t len, int go, int ready,
		    uint64_t budget_ms)
{
	int n;

	if (go < 0 || ready < 0 || budget_ms > GATE_BUDGET_MAX_MS)
		return -EINVAL;
	n = snprintf(buf, len, "%d,%d,%llu", go, ready,
		     (unsigned long long)budget_ms);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

/* One decimal number from *p up to the byte end (',' or NUL), at most
 * max; *p moves past end.  Returns 0 or -EINVAL. */
static int gate_number(const char **p, char end, uint64_t max,
		       uint64_t *out)
{
	const char *s = *p;
	uint64_t v = 0;

	if (*s < '0' || *s > '9')
		return -EINVAL;
	for (; *s >= '0' && *s <= '9'; s++) {
		v = v * 10 + (uint64_t)(*s - '0');
		if (v > max)
			return -EINVAL;
	}
	if (*s != end)
		return -EINVAL;
	*p = end ? s + 1 : s;
	*out = v;
	return 0;
}

int gate_env_parse(const char *s, int *go, int *ready, uint64_t *budget_ms)
{
	uint64_t g, r, b;

	if (!s || gate_number(&s, ',', INT_MAX, &g) != 0 ||
	    gate_number(&s, ',', INT_MAX, &r) != 0 ||
	    gate_number(&s, 0, GATE_BUDGET_MAX_MS, &b) != 0)
		return -EINVAL;
	*go = (int)g;
	*ready = (int)r;
	*budget_ms = b;
	return 0;
}
