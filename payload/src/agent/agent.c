/* agent/agent.c: `benchboot agent`: the options (one table), the agent's id and
 * signals, and the hand-over to the role: session.c for clients and
 * servers, runner.c for the controller. */
#include <errno.h>
#include <getopt.h>
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
#include "node/spool.h"
#include "controller/suite.h"
#include "lib/util.h"

struct agent_opts {
	enum role role;
	char id[64];
	const char *controller;		/* HOST[:PORT]; NULL: discover */
	int once;
	struct auth_key key;		/* --key-file; len 0: open lab */
	char lab[64];			/* --lab; "" the default lab */
	char token[256];		/* --token-file's */
	struct runner_opts r;		/* the controller's (and shared) */
};

static volatile sig_atomic_t agent_stop;

static void agent_on_signal(int sig)
{
	agent_stop = sig;
}

/* --- options ---------------------------------------------------------- */

/* One option: how its argument is checked and where it goes.  A setter
 * returns 0, or -EINVAL and the option's `want` is printed. */
struct agent_optdef {
	const char *name;
	int has_arg;
	int (*set)(struct agent_opts *o, const struct agent_optdef *d,
		   const char *arg);
	size_t off;			/* into struct agent_opts */
	const char *want;		/* "expected ..." on a bad value */
};

#define AO_FIELD(o, d, type) ((type *)((char *)(o) + (d)->off))

static int ao_str(struct agent_opts *o, const struct agent_optdef *d,
		  const char *arg)
{
	*AO_FIELD(o, d, const char *) = arg;
	return 0;
}

static int ao_flag(struct agent_opts *o, const struct agent_optdef *d,
		   const char *arg)
{
	*AO_FIELD(o, d, int) = 1;
	return 0;
}

static int ao_duration(struct agent_opts *o, const struct agent_optdef *d,
		       const char *arg)
{
	uint64_t v;

	if (util_parse_duration(arg, &v) != 0 || v > INT64_MAX)
		return -EINVAL;
	*AO_FIELD(o, d, int64_t) = (int64_t)v;
	return 0;
}

static int ao_role(struct agent_opts *o, const struct agent_optdef *d,
		   const char *arg)
{
	o->role = role_parse(arg);
	return o->role == ROLE_NONE ? -EINVAL : 0;
}

static int ao_ident(char *dst, const char *arg);

static int ao_id(struct agent_opts *o, const struct agent_optdef *d,
		 const char *arg)
{
	return ao_ident(o->id, arg);
}

/* An identifier: 1..63 of [A-Za-z0-9._-] into dst (64 bytes). */
static int ao_ident(char *dst, const char *arg)
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
static int ao_run_id(struct agent_opts *o, const struct agent_optdef *d,
		     const char *arg)
{
	size_t n = strlen(arg);

	if (n == 0 || n > 200 || arg[0] == '.' ||
	    strspn(arg, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
			"0123456789._-") != n)
		return -EINVAL;
	o->r.run_id = arg;
	return 0;
}

static int ao_lab(struct agent_opts *o, const struct agent_optdef *d,
		  const char *arg)
{
	return ao_ident(o->lab, arg);
}

static int ao_key_file(struct agent_opts *o, const struct agent_optdef *d,
		       const char *arg)
{
	char err[256];
	int rc = auth_key_load(&o->key, arg, err, sizeof(err));

	if (rc != 0)
		util_err("agent", -rc, "--key-file: %s", err);
	return rc;
}

/* The upload token from the first line of a file (not on the command
 * line, where every local user can read it). */
static int ao_token_file(struct agent_opts *o, const struct agent_optdef *d,
			 const char *arg)
{
	FILE *f = fopen(arg, "r");
	size_t n;

	if (!f) {
		util_err("agent", errno, "--token-file %s: %s", arg, strerror(errno));
		return -EINVAL;
	}
	if (!fgets(o->token, sizeof(o->token), f))
		o->token[0] = 0;
	fclose(f);
	n = strcspn(o->token, "\r\n");
	o->token[n] = 0;
	if (n == 0) {
		util_err("agent", EINVAL, "--token-file %s: empty first line", arg);
		return -EINVAL;
	}
	o->r.token = o->token;
	return 0;
}

static int ao_set(struct agent_opts *o, const struct agent_optdef *d,
		  const char *arg)
{
	if (!strchr(arg, '=') || o->r.nsets == 32)
		return -EINVAL;
	o->r.sets[o->r.nsets++] = arg;
	return 0;
}

static int ao_upload_timeout(struct agent_opts *o,
			     const struct agent_optdef *d, const char *arg)
{
	uint64_t v;

	if (util_parse_duration(arg, &v) != 0 || v < 1000000000ull)
		return -EINVAL;
	o->r.upload_timeout_s = (long)(v / 1000000000ull);
	return 0;
}

static int ao_peers(struct agent_opts *o, const struct agent_optdef *d,
		    const char *arg)
{
	uint64_t v;

	if (util_parse_u64(arg, 0, 4096, &v) != 0)
		return -EINVAL;
	o->r.peers = (int)v;
	return 0;
}

static int ao_time_scale(struct agent_opts *o, const struct agent_optdef *d,
			 const char *arg)
{
	char err[256];

	if (suite_parse_scale(arg, &o->r.time_scale, err, sizeof(err)) == 0)
		return 0;
	util_err("agent", EINVAL, "--time-scale: %s", err);
	return -EINVAL;
}

#define R(field) offsetof(struct agent_opts, r.field)
static const struct agent_optdef agent_optdefs[] = {
	{ "role", 1, ao_role, 0, "client, server or controller" },
	{ "id", 1, ao_id, 0, "1..63 of [A-Za-z0-9._-]" },
	{ "controller", 1, ao_str, offsetof(struct agent_opts, controller),
	  NULL },
	{ "listen", 1, ao_str, R(listen), NULL },
	{ "suite", 1, ao_str, R(suite), NULL },
	{ "suite-dir", 1, ao_str, R(suite_dir), NULL },
	{ "set", 1, ao_set, 0, "KEY=VALUE (at most 32)" },
	{ "upload", 1, ao_str, R(upload), NULL },
	{ "token", 1, ao_str, R(token), NULL },
	{ "token-file", 1, ao_token_file, 0, NULL },
	{ "ca", 1, ao_str, R(ca), NULL },
	{ "pin", 1, ao_str, R(pin), NULL },
	{ "spool", 1, ao_str, R(spool), NULL },
	{ "run-id", 1, ao_run_id, 0, "1..200 of [A-Za-z0-9._-]" },
	{ "upload-deadline", 1, ao_duration, R(upload_deadline_ns),
	  "a duration" },
	{ "upload-timeout", 1, ao_upload_timeout, 0, "a duration >= 1s" },
	{ "peers", 1, ao_peers, 0, "0..4096" },
	{ "wait", 1, ao_duration, R(wait_ns), "a duration" },
	{ "once", 0, ao_flag, offsetof(struct agent_opts, once), NULL },
	{ "no-series", 0, ao_flag, R(no_series), NULL },
	{ "procs", 1, ao_str, R(procs), NULL },
	{ "key-file", 1, ao_key_file, 0, NULL },
	{ "lab", 1, ao_lab, 0, "1..63 of [A-Za-z0-9._-]" },
	{ "target", 1, ao_str, R(target), NULL },
	{ "time-scale", 1, ao_time_scale, 0, NULL },
};
#undef R
#define AGENT_NOPTS (sizeof(agent_optdefs) / sizeof(agent_optdefs[0]))

static void agent_usage(FILE *out)
{
	fprintf(out,
"usage: benchboot agent --role=client|server|controller [--id NAME]\n"
"         [--controller HOST[:PORT]] [--listen [ADDR][:PORT]]\n"
"         [--suite NAME|PATH|URL] [--suite-dir DIR] [--set KEY=VALUE]...\n"
"         [--upload URL] [--token T] [--spool DIR] [--upload-deadline S]\n"
"         [--upload-timeout S] [--run-id ID]\n"
"         [--peers N] [--wait S] [--once] [--no-series] [--procs LIST]\n"
"         [--key-file FILE] [--lab NAME] [--token-file FILE] [--ca FILE]\n"
"         [--pin sha256//BASE64] [--target HOST] [--time-scale F]\n"
"See docs/agent.md.\n");
}

/* Parses argv into o.  Returns 0, 1 for --help (usage printed), or 2
 * for a usage error (message and usage on stderr). */
static int agent_parse(struct agent_opts *o, int argc, char **argv)
{
	struct option lo[AGENT_NOPTS + 2];
	const struct agent_optdef *d;
	size_t i;
	int c;

	for (i = 0; i < AGENT_NOPTS; i++)
		lo[i] = (struct option){ agent_optdefs[i].name,
					 agent_optdefs[i].has_arg ?
					 required_argument : no_argument,
					 NULL, 256 + (int)i };
	lo[i++] = (struct option){ "help", no_argument, NULL, 'h' };
	lo[i] = (struct option){ NULL, 0, NULL, 0 };
	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		if (c == 'h') {
			agent_usage(stdout);
			return 1;
		}
		if (c < 256) {
			agent_usage(stderr);
			return 2;
		}
		d = &agent_optdefs[c - 256];
		if (d->set(o, d, optarg) != 0) {
			/* A setter without a want said why itself. */
			if (d->want)
				util_err("agent", EINVAL, "--%s '%s': expected %s", d->name, optarg, d->want);
			return 2;
		}
	}
	if (optind == argc && o->role != ROLE_NONE)
		return 0;
	if (o->role == ROLE_NONE)
		util_err("agent", EINVAL, "--role: expected client, server or controller");
	agent_usage(stderr);
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
	return runner_main(&o->r, &agent_stop);
}

static int agent_session(struct agent_opts *o)
{
	struct session_opts so = {
		.id = o->id, .role = o->role, .controller = o->controller,
		.once = o->once, .no_series = o->r.no_series,
		.procs = o->r.procs, .key = &o->key, .lab = o->lab,
	};
	int rc;

	/* The agent is the one module below the command table that reads
	 * it back: the rest are told what they need. */
	so.workloads = workload_names();
	if (!so.workloads)
		return 1;
	rc = session_main(&so, &agent_stop);
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
	if (peer_discover(w, &agent_stop, o->lab, found, sizeof(found)) == 0) {
		o->controller = found;
		return -ENOENT;
	}
	if (agent_stop)
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
	struct sigaction sa = { .sa_handler = agent_on_signal };
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
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
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
