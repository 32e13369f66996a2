/* node/node.h: this machine as an agent sees it: its identity, its host facts
 * for the result, its clock, and the log and status line every agent role
 * writes. */
#ifndef BB_NODE_H
#define BB_NODE_H

#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

/* The role of an agent (docs/agent.md).  ROLE_NONE is "not given". */
enum role {
	ROLE_NONE = 0,
	ROLE_CLIENT,		/* load generator */
	ROLE_SERVER,		/* system under test */
	ROLE_CONTROLLER,	/* runs the suite, merges, uploads */
};

/* The role's name ("client", "server", "controller"; "none"). */
const char *role_name(enum role role);

/* The role named s, or ROLE_NONE for NULL or any other string. */
enum role role_parse(const char *s);

/* The id node_log() prints (set once at start, e.g. to the agent's id). */
extern char node_log_id[64];

/* Logs "HH:MM:SS.mmm benchboot agent ID: message" (UTC) to stderr. */
void node_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Replaces the one-line status (phase, progress, peers) the console
 * shows: written atomically to $BENCHBOOT_STATUS, default
 * /run/benchboot/status when /run/benchboot exists; nothing otherwise. */
void node_status(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Identity: "ROLE-" plus the first NIC's MAC without colons (a NIC with a
 * device behind it first, by name; then any other except lo), so machines
 * booting one image never collide.  Writes into id (idlen bytes).  Returns
 * 0, or -ENODEV when no interface has a MAC (id is then "ROLE-HOSTNAME"). */
int node_identity(const char *role, char *id, size_t idlen);

/* What the image's boot found missing: one line per network controller
 * with no driver or firmware file not found (initramfs nics.sh). */
#define NODE_NICS_MISSING "/run/benchboot/nics-missing"
#define NODE_NICS_MAX 32

/* This host for the result's environment: id, role, arch, cpu model,
 * cpus, mem_kb, kernel, image version, pinned inputs, the server
 * stack's versions when server-start recorded them, and nics_missing
 * when the boot found a NIC it could not drive.  New object, caller
 * owns; NULL on out of memory. */
cJSON *node_hostinfo(const char *id, const char *role);

/* The image server's reset between steps (configs/server/server-reset:
 * mail queue and maildirs emptied, leftover tables dropped), run here:
 * $BENCHBOOT_SERVER_RESET or NODE_SERVER_RESET.  Fills rs with "by",
 * "done" (the lines it printed, at most 16) and "ok" (exit status 0), or
 * "not_reset" with the reason when this host has no such command. */
#define NODE_SERVER_RESET "/usr/lib/benchboot/server-reset"
void node_server_reset(cJSON *rs);

/* Points this host's relay route (relay.test) at sink, "HOST:PORT" (a
 * client's smtp-sink): runs the image's NODE_SERVER_RELAY (or
 * $BENCHBOOT_SERVER_RELAY) detached, so a slow MTA reload stalls
 * nothing.  A host without it keeps its own route (the kit's --relay) and
 * the log says so.  For a server agent told "relay", and a controller that
 * is the server. */
#define NODE_SERVER_RELAY "/usr/lib/benchboot/server-relay"
void node_relay_route(const char *sink);

/* MemTotal in KiB from /proc/meminfo; 0 when unreadable. */
long node_mem_kb(void);

/* Reads a small text file into buf (len bytes, NUL-terminated, trailing
 * newlines and blanks cut).  Returns 0 or a negative errno. */
int node_read_small(const char *path, char *buf, size_t len);

/* Sets the agent clock's deliberate error from $BENCHBOOT_CLOCK_OFFSET_NS
 * (tests on one host, where every namespace shares one clock, check that
 * offsets are estimated and applied).  Call once at start. */
void node_clock_init(void);

/* The agent clock: CLOCK_REALTIME in ns plus that error. */
int64_t node_clock(void);

/* CLOCK_REALTIME ns corresponding to agent-clock time t. */
int64_t node_clock_to_real(int64_t t);

#endif
