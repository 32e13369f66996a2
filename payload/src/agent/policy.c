/* agent/policy.c: the agent's least-authority check of a run's argv
 * (policy.h): resolved with the workload's own option table, allowed by
 * each option's .remote in that table (lib/opt.h), aimed at the targets. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "agent/policy.h"
#include "agent/workload.h"
#include "lib/hostport.h"
#include "lib/util.h"

/* Arguments of one argv at most: a run line is a few dozen. */
#define POLICY_MAX_ARGS 256

/* What a walk of one argv needs: the workload and the run's targets;
 * host_given: sql's --host was there. */
struct policy_walk {
	const struct workload *w;
	const cJSON *targets;
	int host_given;
};

static int policy_listed(const cJSON *list, const char *s, size_t n)
{
	const cJSON *e;

	cJSON_ArrayForEach(e, list)
		if (cJSON_IsString(e) && strlen(e->valuestring) == n &&
		    memcmp(e->valuestring, s, n) == 0)
			return 1;
	return 0;
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

/* Refuses target t (a host with or without a port, or a URL's authority
 * on) unless it is one of the run's.  Returns 0 or -EPERM with why. */
static int policy_target(const struct policy_walk *pw, const char *t,
			 char *err, size_t errlen)
{
	const char *h;
	size_t hn;

	if (policy_host(t, &h, &hn) != 0 || !policy_listed(pw->targets, h, hn))
		return util_fail(err, errlen, -EPERM, "%s: target '%.80s' is not a server of this run", pw->w->name, t);
	return 0;
}

/* opt_walk's each: an option the workload resolved from the argv. */
static int policy_option(const struct opt *o, const char *value,
			 const char *arg, void *ctx, char *err,
			 size_t errlen)
{
	struct policy_walk *pw = ctx;

	(void)arg;
	if (!o->remote && o->local)
		return util_fail(err, errlen, -EPERM, "%s: option --%s %s: not taken from a controller", pw->w->name, o->name, o->local);
	if (!o->remote)
		return util_fail(err, errlen, -EPERM, "%s: option --%s is not one a controller may give: not taken from a controller", pw->w->name, o->name);
	if (pw->w->target != WORKLOAD_TARGET_HOST || strcmp(o->name, "host"))
		return 0;
	pw->host_given = 1;
	return policy_target(pw, value, err, errlen);
}

/* An operand (getopt's, so also anything after "--"): a URL or HOST:PORT
 * of the run's targets where the workload loads its operands, smtp-sink's
 * listening address, nothing else. */
static int policy_operand(const struct policy_walk *pw, const char *a,
			  char *err, size_t errlen)
{
	switch (pw->w->target) {
	case WORKLOAD_TARGET_URL:
		if (strncmp(a, "http://", 7) == 0)
			return policy_target(pw, a + 7, err, errlen);
		if (strncmp(a, "https://", 8) == 0)
			return policy_target(pw, a + 8, err, errlen);
		return util_fail(err, errlen, -EPERM, "%s: operand '%.80s' is not a URL of a server of this run", pw->w->name, a);
	case WORKLOAD_TARGET_HOSTPORT:
		return policy_target(pw, a, err, errlen);
	case WORKLOAD_TARGET_LISTEN:
		return 0;
	case WORKLOAD_TARGET_HOST:
	case WORKLOAD_TARGET_NONE:
		break;
	}
	return util_fail(err, errlen, -EPERM, "%s: operand '%.80s': it takes none", pw->w->name, a);
}

/* The argv's strings (argv[0] the workload) into av for getopt, which
 * permutes av, never the strings.  Returns the count, or -EPERM. */
static int policy_args(const cJSON *argv, const char *name, char **av,
		       char *err, size_t errlen)
{
	const cJSON *a;
	int n = 0;

	cJSON_ArrayForEach(a, argv) {
		if (!cJSON_IsString(a))
			return util_fail(err, errlen, -EPERM, "%s: an argument is not a string", name);
		if (n == POLICY_MAX_ARGS)
			return util_fail(err, errlen, -EPERM, "%s: more than %d arguments", name, POLICY_MAX_ARGS);
		av[n++] = a->valuestring;
	}
	av[n] = NULL;
	return n;
}

int policy_check_argv(const cJSON *argv, const cJSON *workloads,
		      const cJSON *targets, char *err, size_t errlen)
{
	const cJSON *w = cJSON_GetArrayItem(argv, 0);
	struct policy_walk pw = { .targets = targets };
	char *av[POLICY_MAX_ARGS + 1], why[256];
	int ac, argi, i, rc;

	if (!cJSON_IsString(w))
		return util_fail(err, errlen, -EPERM, "no workload named");
	pw.w = workload_find(w->valuestring);
	if (!pw.w || !policy_listed(workloads, w->valuestring,
				    strlen(w->valuestring)))
		return util_fail(err, errlen, -EPERM, "'%.40s' is not a workload of this agent", w->valuestring);
	ac = policy_args(argv, pw.w->name, av, err, errlen);
	if (ac < 0)
		return ac;
	/* The workload's own table and parser: what is checked is what
	 * the workload will take (prefixes, --opt=value, bundles, "--"). */
	why[0] = 0;
	rc = opt_walk(pw.w->opts, ac, av, &argi, policy_option, &pw, why,
		      sizeof(why));
	if (rc == -EPERM)
		return util_fail(err, errlen, rc, "%s", why);
	if (rc == 1)
		return util_fail(err, errlen, -EPERM, "%s: option --help: not taken from a controller", pw.w->name);
	if (rc != 0)
		return util_fail(err, errlen, -EPERM, "%s: %s: not taken from a controller", pw.w->name, why);
	for (i = argi; i < ac; i++) {
		rc = policy_operand(&pw, av[i], err, errlen);
		if (rc != 0)
			return rc;
	}
	if (pw.w->target == WORKLOAD_TARGET_HOST && !pw.host_given)
		return util_fail(err, errlen, -EPERM, "%s: no --host: its target must be a server of this run", pw.w->name);
	return 0;
}
