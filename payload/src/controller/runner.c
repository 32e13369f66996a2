/* controller/runner.c: the controller role: a single-threaded poll loop
 * (runner_peers_pump()) that, as straight-line code, sets up, waits for
 * peers, synchronises clocks, runs every step (runner_steps.c) and writes,
 * spools and uploads the result (runner_result.c). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "controller/runner.h"
#include "controller/runner_result.h"
#include "controller/runner_peers.h"
#include "controller/runner_steps.h"
#include "ident/ident.h"
#include "node/peer.h"

/* Loads the suite, applies --set, listens and announces the controller
 * role.  Returns 0, or the exit status (1 or 2) with the message out. */
static int runner_setup(struct runner *r, int *port)
{
	const struct runner_opts *o = r->o;
	char err[512], host[256] = "", k[64];
	const char *eq;
	int rc, i;

	rc = suite_load(o->suite ? o->suite : "smoke", o->suite_dir,
			&r->suite, err, sizeof(err));
	if (rc != 0) {
		util_err("agent", -rc, "%s", err);
		return 1;
	}
	/* A scaled run: every time shrinks, every step stays (the result
	 * and its report say so; docs/suite-format.md). */
	if (o->time_scale > 0 && o->time_scale != 1 &&
	    suite_scale(&r->suite, o->time_scale) != 0) {
		util_err("agent", EINVAL, "--time-scale %g: expected %g to %g", o->time_scale, SUITE_SCALE_MIN, SUITE_SCALE_MAX);
		return 2;
	}
	for (i = 0; i < o->nsets; i++) {
		eq = strchr(o->sets[i], '=');
		snprintf(k, sizeof(k), "%.*s", (int)(eq - o->sets[i]),
			 o->sets[i]);
		if (suite_set_var(&r->suite, k, eq + 1) != 0) {
			util_err("agent", EINVAL, "--set '%s': bad name", o->sets[i]);
			return 2;
		}
	}
	if (o->target && suite_set_var(&r->suite, "server", o->target) != 0) {
		util_err("agent", EINVAL, "--target '%s': not a host name or address", o->target);
		return 2;
	}
	/* ":PORT" alone: every address. */
	if (o->listen && control_parse_hostport(o->listen[0] == ':' ? "0.0.0.0" :
					    o->listen, host, sizeof(host),
					    port, CONTROL_PORT) != 0) {
		util_err("agent", EINVAL, "--listen '%s': expected [ADDR][:PORT]", o->listen);
		return 2;
	}
	if (o->listen && o->listen[0] == ':')
		*port = atoi(o->listen + 1);
	r->lfd = control_listen(host[0] ? host : NULL, *port);
	if (r->lfd < 0) {
		util_err("agent", -r->lfd, "listen on %s:%d: %s", host[0] ? host : "*", *port, strerror(-r->lfd));
		return 1;
	}
	/* A server that became the controller is already announced: only
	 * its TXT changes. */
	if (peer_set_role("controller") == -ENOENT)
		peer_announce(o->id, "controller", r->suite.name, o->lab,
			      *port);
	node_log("controller: suite %s version %s (%s), listening on %s:%d", r->suite.name, r->suite.version, r->suite.file, host[0] ? host : "*", *port);
	if (!o->key || !o->key->len)
		node_log("WARNING: open lab: no lab key, so any host on the LAN can join this run (the result says so; docs/security.md)");
	return 0;
}

/* Results a previous run could not deliver go first, and so does what a
 * controller that died mid-run checkpointed (marked interrupted). */
static void runner_flush_old(struct runner *r)
{
	const struct runner_opts *o = r->o;
	char err[512];
	int left;

	if (o->run_id && spool_checkpoint_load(o->spool, o->run_id, &r->resume, &r->resume_mtime, err, sizeof(err)) == 0)
		node_log("spool %s: run %s has a checkpoint: it resumes if the suite and the clients are the same", o->spool, o->run_id);
	left = spool_recover(o->spool, r->resume ? o->run_id : NULL, "the controller stopped before the run ended (power cut, crash, kill); the repeats done are kept", err, sizeof(err));
	if (left > 0)
		node_log("spool %s: %d interrupted run(s) recovered from their checkpoints, queued as partial results", o->spool, left);
	else if (left < 0)
		node_log("spool %s: checkpoints not recovered: %s", o->spool, err);
	if (!o->upload || spool_pending(o->spool) <= 0)
		return;
	left = spool_flush_to(o->spool, &r->dest, err, sizeof(err));
	node_log("spool %s: %d earlier result(s) pending, %d left after one try%s%s", o->spool, spool_pending(o->spool), left, left ? ": " : "", left ? err : "");
}

/* The suite variable name as a port, or dflt when unset or not one. */
static unsigned runner_port_var(struct runner *r, const char *name,
				unsigned dflt)
{
	const char *v = suite_var(&r->suite, name);
	uint64_t p;

	if (!v || util_parse_u64(v, 1, 65535, &p) != 0)
		return dflt;
	return (unsigned)p;
}

/* A server with no agent of ours (--target, or the suite's "server"):
 * what it is, as seen from the network (ident.h), into the result's
 * "server_identity"; with the suite's ports and SQL account.  Nothing
 * for a run whose server is one of our agents: its host facts say more. */
static void runner_identify(struct runner *r)
{
	const char *host = suite_var(&r->suite, "server");
	struct rpeer *srv = runner_peers_server(r);
	struct ident_target t;
	char err[256];
	cJSON *id;

	/* With our agent on an installed system (not the image's server,
	 * whose host facts carry server_versions), the network's view is
	 * still the one naming its web server, database and MTA. */
	if (!host && srv && !cJSON_GetObjectItemCaseSensitive(srv->host,
							      "server_versions"))
		host = srv->addr;
	if (!host || r->o->local_server)
		return;
	ident_target_init(&t, host);
	t.http_port = runner_port_var(r, "http_port", 80);
	t.sql_port = runner_port_var(r, "sql_port", 3306);
	t.smtp_port = runner_port_var(r, "smtp_port", 25);
	t.sql_user = suite_var(&r->suite, "sql_user");
	t.sql_password = suite_var(&r->suite, "sql_password");
	t.sql_db = suite_var(&r->suite, "sql_db");
	node_status("identifying the server %s", host);
	id = ident_probe(&t, err, sizeof(err));
	if (!id) {
		node_log("server %s not identified: %s", host, err);
		id = cJSON_CreateObject();
		cJSON_AddStringToObject(id, "host", host);
		cJSON_AddStringToObject(id, "error", err);
	}
	cJSON_AddItemToObject(r->doc, "server_identity", id);
}

static void runner_teardown(struct runner *r)
{
	size_t k;
	int i;

	cJSON_Delete(r->resume);
	for (i = 0; i < r->nlocal_series; i++)
		series_stop(&r->local_series[i]);
	for (i = 0; r->peers && i < r->npeers; i++) {
		if (r->peers[i].c.fd > 0)
			control_conn_close(&r->peers[i].c);
		cJSON_Delete(r->peers[i].host);
		cJSON_Delete(r->peers[i].workloads);
		cJSON_Delete(r->peers[i].result);
	}
	for (k = 0; k < r->nseries; k++)
		cJSON_Delete(r->series[k].rec);
	free(r->series);
	free(r->peers);
	cJSON_Delete(r->doc);
	cJSON_Delete(r->events);
	if (r->lfd >= 0)
		close(r->lfd);
	if (r->spare_fd >= 0)
		close(r->spare_fd);
	suite_free(&r->suite);
}

int runner_main(const struct runner_opts *o, volatile sig_atomic_t *stop)
{
	struct runner r = {
		.o = o, .stop = stop, .lfd = -1,
		.spare_fd = open("/dev/null", O_RDONLY | O_CLOEXEC),
		.dest = { .url = o->upload, .token = o->token, .ca = o->ca,
			  .pin = o->pin, .timeout_s = o->upload_timeout_s },
	};
	int port = CONTROL_PORT, status;
	char id[256];
	cJSON *peers;

	status = runner_setup(&r, &port);
	if (status != 0)
		goto out;
	status = 1;
	r.peers = calloc(RUNNER_MAX_PEERS, sizeof(*r.peers));
	r.doc = cJSON_CreateObject();
	r.events = cJSON_CreateArray();
	if (!r.peers || !r.doc || !r.events)
		goto out;
	runner_flush_old(&r);
	if (o->local_server && !o->no_series)
		r.nlocal_series = series_start_server(r.local_series, o->procs);
	peers = runner_peers_wait(&r);
	if (r.yielding) {
		cJSON_Delete(peers);
		status = RUNNER_YIELD;
		goto out;
	}
	runner_identify(&r);
	runner_steps_relay_early(&r);
	/* Initial clock estimate: many exchanges, best one wins. */
	runner_peers_sync(&r, 32, 5000);
	runner_result_resume_id(&r, id, sizeof(id));
	runner_result_head(&r, id);
	runner_result_resume_note(&r);
	cJSON_AddItemToObject(r.doc, "peers", peers);
	runner_steps_run(&r, cJSON_AddArrayToObject(r.doc, "steps"));
	runner_result_tail(&r);
	status = runner_result_deliver(&r, id);
out:
	runner_teardown(&r);
	return status;
}
