/* agent/agent.c: `benchboot agent`: the options (one table), the agent's id and
 * signals, and the hand-over to the role: session.c for clients and
 * servers, runner.c for the controller. */
#include <errno.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent/agent.h"
#include "agent/workload.h"
#include "proto/auth.h"
#include "proto/control.h"
#include "node/node.h"
#include "node/peer.h"
#include "controller/runner.h"
#include "node/series.h"
#include "agent/session.h"
#include "spool/spool.h"
#include "controller/suite.h"
#include "lib/opt.h"
#include "lib/stop.h"
#include "lib/util.h"

struct agent_opts {
	enum role role;
	char id[64];
	const char *controller;		/* HOST[:PORT]; NULL: discover */
	int discovered;			/* controller found over mDNS */
	int once;
	struct auth_key key;		/* --key-file; len 0: open lab */
	char lab[64];			/* --lab; "" the default lab */
	char token[256];		/* --token-file's */
	struct runner_opts r;		/* the controller's (and shared) */
};

/* --- options ---------------------------------------------------------- */

/* The options' setters (lib/opt.h's fn): dst is the option's place in
 * struct agent_opts (the whole of it for off 0).  0, or -EINVAL with
 * the option's bad-value message (or a message of their own in err). */

static int ao_role(void *dst, const char *arg, char *err, size_t errlen)
{
	struct agent_opts *o = dst;

	o->role = role_parse(arg);
	return o->role == ROLE_NONE ? -EINVAL : 0;
}

/* An identifier: 1..63 of [A-Za-z0-9._-] into dst (64 bytes). */
static int ao_ident(void *dst, const char *arg, char *err, size_t errlen)
{
	static const char ok[] = "abcdefghijklmnopqrstuvwxyz"
				 "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-";
	size_t n = strlen(arg);

	if (n == 0 || n >= 64 || strspn(arg, ok) != n)
		return -EINVAL;
	memcpy(dst, arg, n + 1);
	return 0;
}

/* A run id names a file in the spool and the collector: 1..200 of
 * [A-Za-z0-9._-], not starting with a dot. */
static int ao_run_id(void *dst, const char *arg, char *err, size_t errlen)
{
	size_t n = strlen(arg);

	if (n == 0 || n > 200 || arg[0] == '.' ||
	    strspn(arg, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
			"0123456789._-") != n)
		return -EINVAL;
	*(const char **)dst = arg;
	return 0;
}

static int ao_key_file(void *dst, const char *arg, char *err,
		       size_t errlen)
{
	char why[256];
	int rc = auth_key_load(dst, arg, why, sizeof(why));

	/* -EINVAL whatever the cause: a bad value, not an unknown option
	 * (which would add the usage). */
	if (rc != 0)
		return util_fail(err, errlen, -EINVAL, "--key-file: %s", why);
	return 0;
}

/* The upload token from the first line of a file (not on the command
 * line, where every local user can read it). */
static int ao_token_file(void *dst, const char *arg, char *err,
			 size_t errlen)
{
	struct agent_opts *o = dst;
	FILE *f = fopen(arg, "r");
	size_t n;

	if (!f)
		return util_fail(err, errlen, -EINVAL, "--token-file %s: %s", arg, strerror(errno));
	if (!fgets(o->token, sizeof(o->token), f))
		o->token[0] = 0;
	fclose(f);
	n = strcspn(o->token, "\r\n");
	o->token[n] = 0;
	if (n == 0)
		return util_fail(err, errlen, -EINVAL, "--token-file %s: empty first line", arg);
	o->r.token = o->token;
	return 0;
}

static int ao_set(void *dst, const char *arg, char *err, size_t errlen)
{
	struct runner_opts *r = dst;

	if (!strchr(arg, '=') || r->nsets == 32)
		return -EINVAL;
	r->sets[r->nsets++] = arg;
	return 0;
}

static int ao_upload_timeout(void *dst, const char *arg, char *err,
			     size_t errlen)
{
	uint64_t v;

	if (util_parse_duration(arg, &v) != 0 || v < 1000000000ull)
		return -EINVAL;
	*(long *)dst = (long)(v / 1000000000ull);
	return 0;
}

static int ao_peers(void *dst, const char *arg, char *err, size_t errlen)
{
	uint64_t v;

	if (util_parse_u64(arg, 0, 4096, &v) != 0)
		return -EINVAL;
	*(int *)dst = (int)v;
	return 0;
}

static int ao_time_scale(void *dst, const char *arg, char *err,
			 size_t errlen)
{
	char why[256];

	if (suite_parse_scale(arg, dst, why, sizeof(why)) == 0)
		return 0;
	return util_fail(err, errlen, -EINVAL, "--time-scale: %s", why);
}

/* A duration in ns into an int64_t. */
static int ao_duration(void *dst, const char *arg, char *err, size_t errlen)
{
	uint64_t v;

	if (util_parse_duration(arg, &v) != 0 || v > INT64_MAX)
		return -EINVAL;
	*(int64_t *)dst = (int64_t)v;
	return 0;
}

#define AO(m) OPT_AT(struct agent_opts, m)
#define AO_STR(n, m, ...) { .name = (n), .kind = OPT_STR, .off = AO(m), \
	__VA_ARGS__ }
#define AO_FN(n, m, f, msg, ...) { .name = (n), .kind = OPT_FN, \
	.off = AO(m), .fn = (f), .bad = (msg), __VA_ARGS__ }

static const struct opt agent_opt_tab[] = {
	{ .name = "role", .kind = OPT_FN, .fn = ao_role,
	  .bad = "--role '%s': expected client, server or controller",
	  .arg = "ROLE", .help = "what this machine is (required)",
	  .values = "client|server|controller" },
	AO_FN("id", id, ao_ident, "--id '%s': expected 1..63 of [A-Za-z0-9._-]",
	      .arg = "NAME", .help = "this agent's identity",
	      .def = "ROLE-MAC, the first NIC's MAC"),
	AO_STR("controller", controller, .arg = "HOST[:PORT]",
	       .help = "skip discovery: the controller is there",
	       .def = "found over mDNS; port 7407"),
	AO_STR("listen", r.listen, .arg = "[ADDR][:PORT]",
	       .help = "controller: where to accept agents",
	       .def = "every address, 7407"),
	AO_STR("suite", r.suite, .arg = "NAME|PATH|URL",
	       .help = "controller: the suite", .def = "smoke"),
	AO_STR("suite-dir", r.suite_dir, .arg = "DIR",
	       .help = "controller: where suites named by NAME are"),
	AO_FN("set", r, ao_set, "--set '%s': expected KEY=VALUE (at most 32)",
	      .arg = "KEY=VALUE",
	      .help = "controller: override a suite variable (repeatable)"),
	AO_STR("upload", r.upload, .arg = "URL",
	       .help = "controller: where results go (http(s)://, file:///)"),
	AO_STR("token", r.token, .arg = "T",
	       .help = "the collector's bearer token"),
	{ .name = "token-file", .kind = OPT_FN, .fn = ao_token_file,
	  .arg = "FILE",
	  .help = "the collector's token from a file (kept out of ps)" },
	AO_STR("ca", r.ca, .arg = "FILE",
	       .help = "https upload: the CA certificates (PEM) the "
		       "collector's must chain to"),
	AO_STR("pin", r.pin, .arg = "sha256//BASE64",
	       .help = "https upload: the collector's public key pin"),
	AO_STR("spool", r.spool, .arg = "DIR",
	       .help = "controller: the result spool",
	       .def = "$BENCHBOOT_SPOOL or /var/lib/benchboot/spool"),
	AO_FN("run-id", r.run_id, ao_run_id,
	      "--run-id '%s': expected 1..200 of [A-Za-z0-9._-]",
	      .arg = "ID", .help = "controller: the run's id; a spooled "
	      "checkpoint of it is resumed", .def = "a new one"),
	AO_FN("upload-deadline", r.upload_deadline_ns, ao_duration,
	      "--upload-deadline '%s': expected a duration", .arg = "D",
	      .help = "give up retrying transient failures after D and exit 3 "
		      "(0: forever)", .def = "1h"),
	AO_FN("upload-timeout", r.upload_timeout_s, ao_upload_timeout,
	      "--upload-timeout '%s': expected a duration >= 1s", .arg = "D",
	      .help = "one upload attempt", .def = "30s"),
	AO_FN("peers", r.peers, ao_peers, "--peers '%s': expected 0..4096",
	      .arg = "N", .help = "controller: clients to wait for",
	      .def = "the suite's clients"),
	AO_FN("wait", r.wait_ns, ao_duration,
	      "--wait '%s': expected a duration", .arg = "D",
	      .help = "controller: how long to wait for peers; server: how "
		      "long to look for a controller before becoming one",
	      .def = "the suite's; 10s"),
	{ .name = "once", .kind = OPT_FLAG, .off = AO(once), .val = 1,
	  .help = "client or server: exit after the controller's done",
	  .def = "wait for the next controller" },
	{ .name = "no-series", .kind = OPT_FLAG, .off = AO(r.no_series),
	  .val = 1, .help = "server: no probe and no sampler" },
	AO_STR("procs", r.procs, .arg = "LIST",
	       .help = "server: the processes whose RSS and CPU the sampler "
		       "follows (at most 8 names)", .def = SERIES_SAMPLE_PROCS),
	AO_FN("key-file", key, ao_key_file, NULL, .arg = "FILE",
	      .help = "the lab key, the file's first line: every control "
		      "connection is authenticated", .def = "an open lab"),
	AO_FN("lab", lab, ao_ident,
	      "--lab '%s': expected 1..63 of [A-Za-z0-9._-]", .arg = "NAME",
	      .help = "the lab's name: an agent finds only its own lab's "
		      "controller"),
	AO_STR("target", r.target, .arg = "HOST",
	       .help = "controller: the server under test is HOST, any host "
		       "on the LAN (no server agent waited for)"),
	AO_FN("time-scale", r.time_scale, ao_time_scale, NULL, .arg = "F",
	      .help = "controller: every time of the suite times F "
		      "(0.01-10)"),
};

static const struct optset agent_optset = OPTSET("agent", agent_opt_tab,
	"--role=client|server|controller [options]",
	"See docs/agent.md.\n");

/* Parses argv into o.  Returns 0, 1 for --help (usage printed), or 2
 * for a usage error (message and usage on stderr). */
static int agent_parse(struct agent_opts *o, int argc, char **argv)
{
	int argi, rc;

	rc = opt_main(&agent_optset, o, argc, argv, &argi);
	if (rc != 0)
		return rc > 0 ? 1 : 2;
	if (argi == argc && o->role != ROLE_NONE)
		return 0;
	if (o->role == ROLE_NONE)
		util_err("agent", EINVAL, "--role: expected client, server or controller");
	opt_usage(&agent_optset, stderr);
	return 2;
}

/* A CA or pin that cannot work is a usage error now, not a failed upload
 * at the end of a run.  Returns 0 or 2. */
static int agent_check_upload(const struct agent_opts *o)
{
	struct spool_dest d = { .url = o->r.upload, .token = o->r.token,
				.ca = o->r.ca, .pin = o->r.pin };
	char err[256];

	if (!o->r.upload || spool_dest_check(&d, err, sizeof(err)) == 0)
		return 0;
	util_err("agent", EINVAL, "%s", err);
	return 2;
}

/* --- roles ------------------------------------------------------------ */

static int agent_controller(struct agent_opts *o)
{
	o->r.id = o->id;
	o->r.key = &o->key;
	o->r.lab = o->lab;
	return runner_main(&o->r, &stop_requested);
}

static int agent_session(struct agent_opts *o)
{
	struct session_opts so = {
		.id = o->id, .role = o->role, .controller = o->controller,
		.once = o->once, .no_series = o->r.no_series,
		.procs = o->r.procs, .key = &o->key, .lab = o->lab,
		.rediscover = o->discovered, .target = o->r.target,
	};
	int rc;

	/* The agent is the one module below the command table that reads
	 * it back: the rest are told what they need. */
	so.workloads = workload_names(o->role);
	if (!so.workloads)
		return 1;
	rc = session_main(&so, &stop_requested);
	cJSON_Delete((cJSON *)so.workloads);
	return rc;
}

/* A server with no --controller looks for one; finding none, it becomes
 * the controller itself.  Returns the exit status, or -ENOENT when a
 * controller was found (o->controller then names it). */
static int agent_server_or_controller(struct agent_opts *o)
{
	static char found[300];
	uint64_t w = o->r.wait_ns >= 0 ? (uint64_t)o->r.wait_ns :
		     10000000000ull;
	int rc;

	node_log("looking for a controller over mDNS for %.0f s",
		 (double)w / 1e9);
	if (peer_discover(w, &stop_requested, o->lab, found,
			  sizeof(found)) == 0) {
		o->controller = found;
		o->discovered = 1;
		return -ENOENT;
	}
	if (stop_requested)
		return -ENOENT;
	node_log("no controller on the LAN: this server becomes the controller");
	o->r.local_server = 1;
	/* Peers may take a while: wait as long as the suite says, not the
	 * discovery time. */
	o->r.wait_ns = -1;
	o->r.yield_to = found;
	o->r.yield_len = sizeof(found);
	rc = agent_controller(o);
	if (rc != RUNNER_YIELD)
		return rc;
	/* Another server leads: serve it as a server. */
	peer_set_role("server");
	o->r.local_server = 0;
	o->controller = found;
	o->discovered = 1;
	return -ENOENT;
}

int agent_main(int argc, char **argv)
{
	struct agent_opts o = {
		/* Transient upload failures are retried for an hour, then
		 * the result waits in the spool for the next start. */
		.r = { .peers = -1, .wait_ns = -1, .upload_timeout_s = 30,
		       .upload_deadline_ns = 3600000000000ll,
		       .procs = SERIES_SAMPLE_PROCS },
	};
	int rc;

	o.r.spool = getenv("BENCHBOOT_SPOOL") ? getenv("BENCHBOOT_SPOOL") :
		    "/var/lib/benchboot/spool";
	rc = agent_parse(&o, argc, argv);
	if (rc != 0)
		return rc == 1 ? 0 : rc;
	rc = agent_check_upload(&o);
	if (rc != 0)
		return rc;
	node_clock_init();
	if (!o.id[0])
		node_identity(role_name(o.role), o.id, sizeof(o.id));
	snprintf(node_log_id, sizeof(node_log_id), "%s", o.id);
	stop_on_signals();
	signal(SIGPIPE, SIG_IGN);
	srand((unsigned)(util_mono_ns() ^ (uint64_t)getpid()));
	if (o.role == ROLE_CONTROLLER) {
		rc = agent_controller(&o);
		goto out;
	}
	peer_announce(o.id, role_name(o.role), o.r.suite, o.lab, CONTROL_PORT);
	if (!o.controller && o.role == ROLE_SERVER) {
		rc = agent_server_or_controller(&o);
		if (rc != -ENOENT)
			goto out;
	}
	rc = agent_session(&o);
out:
	peer_withdraw();
	return rc;
}
