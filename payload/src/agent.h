/* agent.h: `benchboot agent`: one process per machine in the client, server
 * or controller role (docs/agent.md).  Clients and servers connect to the
 * controller and start workloads when told; the controller runs the suite
 * (runner.h). */
#ifndef BB_AGENT_H
#define BB_AGENT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <cjson/cJSON.h>

/* Everything `benchboot agent` was asked on its command line. */
struct agent_opts {
	const char *role;		/* client, server or controller */
	char id[64];
	const char *controller;		/* HOST[:PORT]; NULL: discover */
	const char *listen;		/* controller: [ADDR][:PORT] */
	const char *suite;		/* NAME, PATH or URL */
	const char *suite_dir;
	const char *upload;		/* URL or NULL */
	const char *token;		/* upload bearer token */
	const char *spool;		/* spool directory */
	const char *sets[32];		/* KEY=VALUE overrides */
	int nsets;
	int peers;			/* clients to wait for; -1: suite's */
	int64_t wait_ns;		/* peer wait; -1: suite's */
	int64_t upload_deadline_ns;	/* 0: retry uploads forever */
	long upload_timeout_s;		/* one upload attempt: 30 s */
	int once;			/* client/server: exit after done */
	int no_series;			/* server: no probe/sampler */
	const char *procs;		/* server: sampler --proc list */
	int local_server;		/* controller is also the server */
};

/* Identity: "ROLE-" plus the first NIC's MAC without colons (a NIC with a
 * device behind it first, by name; then any other except lo), so machines
 * booting one image never collide.  Writes into id (idlen bytes).  Returns
 * 0, or -ENODEV when no interface has a MAC (id is then "ROLE-HOSTNAME"). */
int agent_identity(const char *role, char *id, size_t idlen);

/* This host for the result's environment: id, role, arch, cpu model,
 * cpus, mem_kb, kernel, image version.  New object, caller owns; NULL on
 * out of memory. */
cJSON *agent_hostinfo(const char *id, const char *role);

/* Workload subcommands this binary has (from `benchboot help`), as a new
 * array of strings; the caller owns it.  NULL when out of memory. */
cJSON *agent_workloads(void);

/* Whether name is in a workloads array. */
int agent_has_workload(const cJSON *workloads, const char *name);

/* Logs "benchboot agent ID: message" with a UTC timestamp to stderr. */
void agent_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Replaces the one-line status (phase, progress, peers) the console
 * shows: written atomically to $BENCHBOOT_STATUS, default
 * /run/benchboot/status when /run/benchboot exists; nothing otherwise. */
void agent_status(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The id agent_log prints (set once at start). */
extern char agent_log_id[64];

/* A long-running series producer (probe, sampler) whose JSON lines are
 * forwarded to the controller. */
struct agent_series {
	const char *source;		/* "probe" or "sample" */
	pid_t pid;
	int fd;				/* its stdout (non-blocking) */
	char buf[65536];
	size_t len;
	uint64_t lines, dropped;
};

/* The services whose RSS and CPU the server's sampler follows by
 * default (the reference stack and the usual alternatives). */
#define AGENT_SAMPLE_PROCS \
	"apache2,httpd,nginx,mariadbd,mysqld,master,smtpd,qmgr"

/* Starts `benchboot SOURCE --json` (plus `--proc PROCS` when procs is
 * not NULL) with stdout piped.  Returns 0 or a negative errno. */
int agent_series_start(struct agent_series *s, const char *source,
		       const char *procs);

/* Reads what the pipe holds and calls cb for each complete line that
 * parses as a JSON object (cb takes ownership of rec).  Returns 0, or
 * -EPIPE when the producer has gone (then fd is -1). */
int agent_series_read(struct agent_series *s,
		      void (*cb)(void *ctx, const char *source, cJSON *rec),
		      void *ctx);

/* Stops the producer (SIGTERM, then SIGKILL) and reaps it. */
void agent_series_stop(struct agent_series *s);

/* Publishes this agent as _benchboot._tcp over mDNS (instance and host
 * label = id; TXT role, id, arch, ver, suite, cpus, mem; port = the
 * controller's control port).  Failure is logged, not fatal: an agent
 * given --controller works without multicast.  Returns 0 or -EIO. */
int agent_mdns_publish(const char *id, const char *role, const char *suite,
		       int port);

/* Changes the published role (a server that became the controller).
 * Returns 0, -ENOENT when nothing is published, or -EINVAL. */
int agent_mdns_set_role(const char *role);

/* Runs the responder's due work; every agent loop calls it at least every
 * 100 ms (answers are delayed 20-120 ms by RFC 6762 anyway). */
void agent_mdns_poll(void);

/* Sends goodbyes and stops publishing. */
void agent_mdns_stop(void);

/* Browses for a controller for up to timeout_ns: writes "ADDR:PORT" of
 * the first instance with TXT role=controller into out.  Returns 0,
 * -ENOENT when none answered in time, or another negative errno. */
int agent_discover(uint64_t timeout_ns, char *out, size_t outlen);

/* `benchboot agent ...`: see docs/agent.md.  Returns the exit status:
 * 0 done, 1 failure, 2 usage, 3 controller ended with a result still in
 * the spool. */
int agent_main(int argc, char **argv);

#endif
