/* controller/runner_result.c: the controller's result document: the run's
 * id, a resumed run's note, the environment, the checkpoint after every
 * repeat, the head and tail, and the spool and upload it ends in. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "controller/runner_result.h"
#include "controller/runner_link.h"
#include "controller/runner_peers.h"
#include "host/host_nic.h"
#include "lib/json_int.h"
#include "lib/version.h"
#include "result/result.h"

static void runner_make_id(struct runner *r, char *id, size_t len)
{
	char ts[32];
	time_t now = time(NULL);
	struct tm tm;

	gmtime_r(&now, &tm);
	strftime(ts, sizeof(ts), "%Y%m%dT%H%M%SZ", &tm);
	snprintf(id, len, "%s-%s-%s-%04x", r->suite.name, ts, r->o->id,
		 (unsigned)(util_mono_ns() ^ (uint64_t)getpid()) & 0xffff);
}

/* The result's "suite" object: what identifies the suite as run (name,
 * version, file, time scale) and every variable with --set applied, the
 * workloads' response timeouts among them (suite-format.md).  A resumed
 * run must match it exactly. */
static void runner_suite_obj(const struct runner *r, cJSON *su)
{
	cJSON *vars;
	unsigned i;

	cJSON_AddStringToObject(su, "name", r->suite.name);
	cJSON_AddStringToObject(su, "version", r->suite.version);
	cJSON_AddStringToObject(su, "file", r->suite.file);
	/* Not comparable with a full-length run: report refuses to. */
	if (r->suite.time_scale != 1)
		cJSON_AddNumberToObject(su, "time_scale", r->suite.time_scale);
	vars = cJSON_AddObjectToObject(su, "vars");
	for (i = 0; vars && i < r->suite.nvars; i++)
		cJSON_AddStringToObject(vars, r->suite.vars[i].name,
					r->suite.vars[i].value);
}

/* The run's id: --run-id's, resuming its checkpoint when the suite and
 * the clients are the same (result_resume_match()); when they are not,
 * the checkpoint is spooled as an interrupted partial result and this
 * run gets an id of its own; without --run-id a new id. */
void runner_result_resume_id(struct runner *r, char *id, size_t len)
{
	const char *ids[RUNNER_MAX_PEERS], *why0 = "the controller stopped before the run ended; not resumed: ";
	char why[300], err[512];
	cJSON *su;
	int i, n = 0;

	if (!r->resume) {
		if (r->o->run_id)
			snprintf(id, len, "%s", r->o->run_id);
		else
			runner_make_id(r, id, len);
		return;
	}
	for (i = 0; i < r->npeers; i++)
		if (r->peers[i].role == ROLE_CLIENT &&
		    r->peers[i].state == RP_READY)
			ids[n++] = r->peers[i].id;
	/* The suite object as runner_result_head() will write it. */
	su = cJSON_CreateObject();
	runner_suite_obj(r, su);
	if (result_resume_match(r->resume, su, ids, n, why, sizeof(why))) {
		snprintf(id, len, "%s", r->o->run_id);
		r->resumed = cJSON_CreateArray();
		cJSON_Delete(su);
		return;
	}
	cJSON_Delete(su);
	node_log("run %s not resumed: %s; its checkpoint goes as an interrupted partial result", r->o->run_id, why);
	snprintf(err, sizeof(err), "%s%s", why0, why);
	cJSON_Delete(r->resume);
	r->resume = NULL;
	if (spool_recover(r->o->spool, NULL, err, why, sizeof(why)) < 0)
		node_log("spool %s: checkpoint not recovered: %s", r->o->spool, why);
	runner_make_id(r, id, len);
}

/* A resumed document says so: when its checkpoint was written, the gap
 * until this start (wall clock) and, filled as the steps run, which
 * repeats came from it. */
void runner_result_resume_note(struct runner *r)
{
	char ts[32], d[64];
	struct tm tm;
	cJSON *o;

	if (!r->resume || !r->resumed)
		return;
	o = cJSON_AddObjectToObject(r->doc, "resumed");
	gmtime_r(&r->resume_mtime, &tm);
	strftime(ts, sizeof(ts), "%Y-%m-%dT%H:%M:%SZ", &tm);
	cJSON_AddStringToObject(o, "checkpoint_written", ts);
	json_int_add(o, "gap_s", (int64_t)(time(NULL) - r->resume_mtime));
	cJSON_AddItemToObject(o, "repeats", r->resumed);
	snprintf(d, sizeof(d), "checkpoint of %s", ts);
	runner_peers_event(r, "resumed", NULL, d);
}

/* Peer p's entry of the environment's hosts. */
static cJSON *runner_peer_host(const struct rpeer *p)
{
	struct clock_offset_sample b;
	cJSON *h, *clk;

	h = p->host ? cJSON_Duplicate(p->host, 1) : cJSON_CreateObject();
	cJSON_DeleteItemFromObject(h, "id");
	cJSON_DeleteItemFromObject(h, "role");
	cJSON_AddStringToObject(h, "id", p->id);
	cJSON_AddStringToObject(h, "role", role_name(p->role));
	cJSON_AddStringToObject(h, "address", p->addr);
	/* Which of its NICs carried the suite: the one holding the address
	 * we see it at (none behind a NAT). */
	host_nic_mark_suite(h, p->addr);
	if (p->state == RP_LOST)
		cJSON_AddBoolToObject(h, "lost", 1);
	cJSON_AddItemToObject(h, "workloads", cJSON_Duplicate(p->workloads, 1));
	clk = cJSON_AddObjectToObject(h, "clock");
	if (clock_offset_best(&p->ts, &b) == 0) {
		json_int_add(clk, "offset_ns", b.offset);
		json_int_add(clk, "rtt_ns", b.rtt);
		cJSON_AddNumberToObject(clk, "samples", (double)p->ts.n);
	}
	return h;
}

static cJSON *runner_environment(struct runner *r)
{
	cJSON *env = cJSON_CreateObject(), *hosts, *me, *clk;
	int i;

	hosts = cJSON_AddArrayToObject(env, "hosts");
	me = node_hostinfo(r->o->id, r->o->local_server ?
			   "server+controller" : "controller");
	clk = cJSON_AddObjectToObject(me, "clock");
	cJSON_AddNumberToObject(clk, "offset_ns", 0);
	cJSON_AddStringToObject(clk, "reference", "self");
	cJSON_AddItemToArray(hosts, me);
	/* Ours: the one holding our address on an agent's connection. */
	for (i = 0; i < r->npeers; i++)
		if (r->peers[i].state == RP_READY &&
		    host_nic_mark_suite(me, r->peers[i].local) == 0)
			break;
	for (i = 0; i < r->npeers; i++)
		if (r->peers[i].state == RP_READY ||
		    r->peers[i].state == RP_LOST)
			cJSON_AddItemToArray(hosts,
					     runner_peer_host(&r->peers[i]));
	return env;
}

/* The result so far, marked partial, written atomically to the spool's
 * partial/ after every repeat: a controller that dies loses at most the
 * repeat in progress (its next start uploads what is there).  A failure
 * is logged, never fatal: the run goes on. */
void runner_result_checkpoint(struct runner *r)
{
	cJSON *cp = cJSON_Duplicate(r->doc, 1), *id;
	char err[512], *text;

	id = cJSON_GetObjectItemCaseSensitive(r->doc, "id");
	if (!cp || !cJSON_IsString(id))
		goto out;
	cJSON_AddBoolToObject(cp, "partial", 1);
	cJSON_AddItemToObject(cp, "environment", runner_environment(r));
	cJSON_AddItemToObject(cp, "events", cJSON_Duplicate(r->events, 1));
	result_skew_summary(cp);
	text = json_int_print(cp, 1);
	if (text && spool_checkpoint(r->o->spool, id->valuestring, text,
				     strlen(text), err, sizeof(err)) != 0)
		node_log("checkpoint not written: %s", err);
	free(text);
out:
	cJSON_Delete(cp);
}

static int runner_upload_loop(struct runner *r)
{
	const struct runner_opts *o = r->o;
	uint64_t start = util_mono_ns(), backoff = 1000000000ull;
	char err[512];
	int left;

	int rejected0 = spool_rejected(o->spool);

	if (!o->upload)
		return 0;
	for (;;) {
		left = spool_flush_to(o->spool, &r->dest, err, sizeof(err));
		if (left >= 0 && spool_rejected(o->spool) > rejected0) {
			node_log("the collector refused a result for good: %s; it is kept in %s/rejected", err, o->spool);
			node_status("ERROR: result refused by the collector (kept in %s/rejected)", o->spool);
			return 5;
		}
		if (left == 0) {
			node_log("spool %s: every result uploaded to %s", o->spool, o->upload);
			return 0;
		}
		if (left < 0) {
			node_log("spool: %s", err);
			return 3;
		}
		node_log("upload: %d result(s) still pending: %s", left, err);
		/* No link, no collector (a collector on loopback had its
		 * try): the next start delivers it, rather than this run
		 * trying for ever. */
		if (runner_link_gone(r)) {
			node_log("upload: %s; result(s) stay in %s/pending for the next start", r->link_gone, o->spool);
			return 3;
		}
		if (*r->stop || (o->upload_deadline_ns > 0 &&
				 util_mono_ns() - start + backoff >
				 (uint64_t)o->upload_deadline_ns)) {
			node_log("upload deadline reached; result(s) stay in %s/pending for the next start", o->spool);
			return 3;
		}
		runner_peers_serve_for(r, backoff);
		backoff = backoff * 2 > 30000000000ull ? 30000000000ull :
			  backoff * 2;
	}
}

/* The document's head: schema, id, created, tool, controller, suite. */
void runner_result_head(struct runner *r, const char *id)
{
	char ts[32];
	time_t now = time(NULL);
	struct tm tm;
	cJSON *su, *tool;

	cJSON_AddStringToObject(r->doc, "schema", "benchboot.result/1");
	cJSON_AddStringToObject(r->doc, "id", id);
	gmtime_r(&now, &tm);
	strftime(ts, sizeof(ts), "%Y-%m-%dT%H:%M:%SZ", &tm);
	cJSON_AddStringToObject(r->doc, "created", ts);
	tool = cJSON_AddObjectToObject(r->doc, "tool");
	cJSON_AddStringToObject(tool, "name", "benchboot");
	cJSON_AddStringToObject(tool, "version", version_string());
	cJSON_AddStringToObject(r->doc, "controller", r->o->id);
	su = cJSON_AddObjectToObject(r->doc, "lab");
	cJSON_AddStringToObject(su, "name", r->o->lab);
	cJSON_AddBoolToObject(su, "keyed", r->o->key && r->o->key->len);
	su = cJSON_AddObjectToObject(r->doc, "suite");
	if (su)
		runner_suite_obj(r, su);
}

/* The document's tail: environment, skew, the controller's own usage and
 * the events. */
void runner_result_tail(struct runner *r)
{
	struct rusage ru;
	cJSON *c;

	cJSON_AddItemToObject(r->doc, "environment", runner_environment(r));
	result_skew_summary(r->doc);
	if (*r->stop)
		runner_peers_event(r, "interrupted", NULL, "signal");
	/* Ended early, its remaining steps not run: what it has. */
	if (r->link_gone[0]) {
		cJSON_AddBoolToObject(r->doc, "partial", 1);
		cJSON_AddStringToObject(r->doc, "link_gone", r->link_gone);
	}
	getrusage(RUSAGE_SELF, &ru);
	c = cJSON_AddObjectToObject(r->doc, "controller_usage");
	cJSON_AddNumberToObject(c, "user_s", (double)ru.ru_utime.tv_sec +
				ru.ru_utime.tv_usec / 1e6);
	cJSON_AddNumberToObject(c, "system_s", (double)ru.ru_stime.tv_sec +
				ru.ru_stime.tv_usec / 1e6);
	cJSON_AddNumberToObject(c, "maxrss_kb", (double)ru.ru_maxrss);
	cJSON_AddNumberToObject(c, "malformed_messages", (double)r->malformed);
	cJSON_AddItemToObject(r->doc, "events", r->events);
	r->events = NULL;
	if (r->nevents > RUNNER_MAX_EVENTS)
		cJSON_AddNumberToObject(r->doc, "events_dropped",
					r->nevents - RUNNER_MAX_EVENTS);
}

/* Writes the result to the spool, tells every agent the suite is over
 * and uploads.  Returns the exit status. */
int runner_result_deliver(struct runner *r, const char *id)
{
	const struct runner_opts *o = r->o;
	char err[512], *text = json_int_print(r->doc, 1);
	int rc, i, status;
	cJSON *d;

	if (!text)
		return 1;
	rc = spool_put(o->spool, id, text, strlen(text), o->upload != NULL,
		       err, sizeof(err));
	free(text);
	if (rc == -ENOSPC || rc == -EDQUOT) {
		node_log("ERROR: the spool is full, the result is not written: %s", err);
		node_status("ERROR: spool %s full: result %s not written", o->spool, id);
		return 4;
	}
	if (rc != 0) {
		node_log("cannot write the result: %s", err);
		return 1;
	}
	spool_checkpoint_done(o->spool, id);
	node_log("result %s written to %s/results/%s.json", id, o->spool, id);
	printf("%s/results/%s.json\n", o->spool, id);
	fflush(stdout);
	for (i = 0; i < r->npeers; i++) {
		if (r->peers[i].state != RP_READY)
			continue;
		d = control_msg_new(CONTROL_DONE);
		cJSON_AddStringToObject(d, "result", id);
		control_conn_send(&r->peers[i].c, d);
		control_conn_drain(&r->peers[i].c, 500);
		cJSON_Delete(d);
	}
	node_status("result %s written; uploading", id);
	status = runner_upload_loop(r);
	node_status("result %s %s", id, status == 0 ? (o->upload ? "uploaded" : "written (no upload asked)") : "kept in the spool: upload failed");
	return status;
}
