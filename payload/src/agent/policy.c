/* agent/policy.c: the agent's least-authority check of a run's argv (policy.h).
 * One table says, per workload, which options are refused and how its
 * load targets are written on its command line. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "agent/policy.h"
#include "lib/hostport.h"
#include "lib/util.h"

/* How a workload names its target. */
enum policy_target {
	PT_NONE,		/* loads nothing remote (probe, sample) */
	PT_URL,			/* http://HOST[:PORT]/... operands */
	PT_OPT_HOST,		/* --host HOST (or --host=HOST) */
	PT_HOSTPORT,		/* a HOST:PORT operand */
};

static const struct policy_rule {
	const char *workload;
	enum policy_target target;
	/* Options refused: each names a local file the workload would read
	 * (and could send to its target) or a local socket. */
	const char *refused[4];
} policy_rules[] = {
	{ "http", PT_URL, { "--urls", NULL } },
	{ "sql", PT_OPT_HOST, { "--socket", NULL } },
	{ "smtp", PT_HOSTPORT, { "--message", NULL } },
	{ "smtp-sink", PT_NONE, { "--store", NULL } },
	{ "probe", PT_NONE, { NULL } },
	{ "sample", PT_NONE, { "--root", "--replay", NULL } },
};

static const struct policy_rule *policy_rule(const char *w)
{
	size_t i;

	for (i = 0; i < sizeof(policy_rules) / sizeof(policy_rules[0]); i++)
		if (strcmp(policy_rules[i].workload, w) == 0)
			return &policy_rules[i];
	return NULL;
}

static int policy_listed(const cJSON *list, const char *s, size_t n)
{
	const cJSON *e;

	cJSON_ArrayForEach(e, list)
		if (cJSON_IsString(e) && strlen(e->valuestring) == n &&
		    memcmp(e->valuestring, s, n) == 0)
			return 1;
	return 0;
}

/* Whether option arg (e.g. "--urls" or "--urls=F") is refused. */
static const char *policy_refused(const struct policy_rule *r,
				  const char *arg)
{
	size_t i, n;

	for (i = 0; i < 4 && r->refused[i]; i++) {
		n = strlen(r->refused[i]);
		if (strncmp(arg, r->refused[i], n) == 0 &&
		    (arg[n] == 0 || arg[n] == '='))
			return r->refused[i];
	}
	return NULL;
}

/* The host of "HOST[:PORT]", "[V6][:PORT]", a bare IPv6 address, or a
 * URL's authority (up to its path, query or fragment) into *h, *hn (no
 * brackets): the parse the workloads themselves make (lib/hostport.h),
 * so what is checked is what they reach.  Returns 0 or -EINVAL. */
static int policy_host(const char *s, const char **h, size_t *hn)
{
	struct hostport hp;
	int rc;

	rc = hostport_split(s, strcspn(s, "/?#"), 0, 0, &hp, NULL, 0);
	if (rc != 0)
		return rc;
	*h = hp.host;
	*hn = hp.hostlen;
	return 0;
}

/* The target named by argument a (and, for --host, the next one b), or
 * NULL when a names none.  *used: arguments it took. */
static const char *policy_target_of(const struct policy_rule *r,
				    const char *a, const char *b, int *used)
{
	*used = 1;
	switch (r->target) {
	case PT_URL:
		if (strncmp(a, "http://", 7) == 0)
			return a + 7;
		if (strncmp(a, "https://", 8) == 0)
			return a + 8;
		return NULL;
	case PT_OPT_HOST:
		if (strncmp(a, "--host=", 7) == 0)
			return a + 7;
		if (strcmp(a, "--host") == 0 && b) {
			*used = 2;
			return b;
		}
		return NULL;
	case PT_HOSTPORT:
		/* An operand with a port: not an option, not an address
		 * (user@domain), not an option's value without a colon. */
		if (a[0] != '-' && strchr(a, ':') && !strchr(a, '@'))
			return a;
		return NULL;
	case PT_NONE:
		break;
	}
	return NULL;
}

int policy_check_argv(const cJSON *argv, const cJSON *workloads,
		      const cJSON *targets, char *err, size_t errlen)
{
	const cJSON *w = cJSON_GetArrayItem(argv, 0), *a;
	const struct policy_rule *r;
	const char *opt, *t, *h;
	size_t hn;
	int used;

	if (!cJSON_IsString(w))
		return util_fail(err, errlen, -EPERM, "no workload named");
	r = policy_rule(w->valuestring);
	if (!r || !policy_listed(workloads, w->valuestring,
				 strlen(w->valuestring)))
		return util_fail(err, errlen, -EPERM, "'%.40s' is not a workload of this agent", w->valuestring);
	for (a = w->next; a; a = a->next) {
		if (!cJSON_IsString(a))
			return util_fail(err, errlen, -EPERM, "%s: an argument is not a string", r->workload);
		opt = policy_refused(r, a->valuestring);
		if (opt)
			return util_fail(err, errlen, -EPERM, "%s: option %s reads a local file: not taken from a controller", r->workload, opt);
		t = policy_target_of(r, a->valuestring,
				     a->next ? a->next->valuestring : NULL,
				     &used);
		if (used == 2)
			a = a->next;
		if (!t)
			continue;
		if (policy_host(t, &h, &hn) != 0 ||
		    !policy_listed(targets, h, hn))
			return util_fail(err, errlen, -EPERM, "%s: target '%.80s' is not a server of this run", r->workload, t);
	}
	return 0;
}
