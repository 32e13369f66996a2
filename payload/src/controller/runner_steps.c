/* controller/runner_steps.c: the controller's steps: every repeat planned
 * (who runs what), launched (prepare, then one absolute start), waited
 * for and collected (records merged, skew, the server's series). */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "controller/runner_result.h"
#include "controller/runner_link.h"
#include "controller/runner_peers.h"
#include "controller/runner_steps.h"
#include "lib/json_int.h"
#include "result/result.h"

/* How long a step's workloads may prepare (connect, create and fill
 * tables) before the start: not scaled with the suite's times, as
 * preparing takes what it takes. */
#define RUNNER_PREPARE_S 120
/* How long the repeat after one that lost clients waits for them. */
#define RUNNER_REJOIN_S 60
/* How long a server agent may take to reset its server between steps. */
#define RUNNER_RESET_S 60
#define RUNNER_PREPARE_STR "120"

/* The server's producers' interval (`benchboot sample`'s default, the
 * probe's second), and how long collecting a repeat waits past the end
 * of its load for them to catch up (runner_series_settle). */
#define RUNNER_SERIES_PERIOD_NS 1000000000ll
#define RUNNER_SERIES_SETTLE_NS 3000000000ll

/* How long a repeat's clients may run past its start, less the 60 s
 * margin: its warm-up and duration, as the suite wrote them when it was
 * time-scaled (a step of fixed work, sql-ops, takes as long scaled). */
static uint64_t runner_limit_ns(const struct suite_step *st)
{
	uint64_t t = st->warmup_ns + st->duration_ns;

	return st->limit_ns > t ? st->limit_ns : t;
}

/* One repeat's planned time, for the status line's estimate. */
static uint64_t runner_planned_ns(const struct suite_step *st)
{
	return st->warmup_ns + st->duration_ns + st->cooldown_ns;
}

/* What a run line's placeholders expand to for one client. */
struct runner_lookup {
	struct runner *r;
	const struct suite_step *st;
	const struct rpeer *client;
	char conc[16], total[16], dur[32], warm[32], cool[32], client_i[16],
	     clients[16], rep[16];
	const char *server;
};

/* The placeholders that are plain strings of struct runner_lookup. */
static const struct {
	const char *name;
	size_t off;
} runner_lookup_fields[] = {
	{ "conc", offsetof(struct runner_lookup, conc) },
	{ "total", offsetof(struct runner_lookup, total) },
	{ "duration", offsetof(struct runner_lookup, dur) },
	{ "warmup", offsetof(struct runner_lookup, warm) },
	{ "cooldown", offsetof(struct runner_lookup, cool) },
	{ "client", offsetof(struct runner_lookup, client_i) },
	{ "clients", offsetof(struct runner_lookup, clients) },
	{ "repeat", offsetof(struct runner_lookup, rep) },
};

static const char *runner_lookup_fn(void *ctx, const char *name)
{
	struct runner_lookup *l = ctx;
	size_t i;

	for (i = 0; i < sizeof(runner_lookup_fields) /
			sizeof(runner_lookup_fields[0]); i++)
		if (strcmp(name, runner_lookup_fields[i].name) == 0)
			return (const char *)l + runner_lookup_fields[i].off;
	if (strcmp(name, "id") == 0)
		return l->client ? l->client->id : "";
	if (strcmp(name, "step") == 0)
		return l->st->name;
	if (strcmp(name, "server") == 0) {
		/* Our own address towards that client when we are the
		 * server, or the server agent's address. */
		if (suite_var(&l->r->suite, "server"))
			return suite_var(&l->r->suite, "server");
		if (l->r->o->local_server && l->client)
			return l->client->local;
		return l->server;
	}
	return suite_var(&l->r->suite, name);
}

static int runner_cmp_peer(const void *a, const void *b)
{
	return strcmp((*(struct rpeer *const *)a)->id,
		      (*(struct rpeer *const *)b)->id);
}

/* Whether a workloads array (an agent's hello) names w. */
static int runner_has_workload(const cJSON *workloads, const char *w)
{
	const cJSON *e;

	cJSON_ArrayForEach(e, workloads)
		if (cJSON_IsString(e) && strcmp(e->valuestring, w) == 0)
			return 1;
	return 0;
}

/* The series records of a load from from to end (controller clock), as
 * {"sample":[...],"probe":[...]}: sampler readings (each stamped at the
 * end of its interval) within [from, end + 1 s], probe seconds (each
 * stamped at its start) within [from, end]. */
static cJSON *runner_series_window(struct runner *r, int64_t from,
				   int64_t end)
{
	cJSON *o = cJSON_CreateObject();
	cJSON *sa = cJSON_AddArrayToObject(o, "sample");
	cJSON *pr = cJSON_AddArrayToObject(o, "probe");
	size_t i;

	for (i = 0; i < r->nseries; i++) {
		struct series_rec *s = &r->series[i];
		int probe = strcmp(s->source, "probe") == 0;

		if (s->t < from ||
		    s->t > end + (probe ? 0 : RUNNER_SERIES_PERIOD_NS))
			continue;
		cJSON_AddItemToArray(probe ? pr : sa,
				     cJSON_Duplicate(s->rec, 1));
	}
	return o;
}

static int runner_workload_known(struct runner *r, const char *w)
{
	int i;

	for (i = 0; i < r->npeers; i++)
		if (r->peers[i].state == RP_READY &&
		    r->peers[i].role == ROLE_CLIENT &&
		    runner_has_workload(r->peers[i].workloads, w))
			return 1;
	return 0;
}

/* One repeat between its phases: plan, launch, wait, collect. */
struct runner_rep {
	const struct suite_step *st;
	unsigned conc, repno;
	cJSON *rep;			/* the repeat's object in the result */
	struct rpeer *cl[RUNNER_MAX_PEERS];	/* ready clients, by id */
	cJSON *procs[RUNNER_MAX_PEERS];	/* each client's argv arrays */
	int ncl;
	int part;			/* clients that were sent a RUN */
	int64_t start, end;		/* controller clock */
	cJSON *clients;			/* rep's "clients" array */
	/* A relay step (`sink PORT`): the client running the smtp-sink (-1:
	 * none), its HOST:PORT, the relay mail the clients sent and the
	 * sink's count of what arrived. */
	int sink_i;
	char sink[96];
	double relay_sent, relay_received;
	int sink_ok;
};

/* Marks the repeat skipped with why (logged by the caller). */
static int runner_skip(struct runner_rep *rr, const char *why)
{
	cJSON_AddStringToObject(rr->rep, "skipped", why);
	return -ENOENT;
}

/* Expands one run line for the client lk->client into a new argv array
 * (plus --json) in *out.  Returns 0, or -ENOENT with the reason in why. */
static int runner_expand_run(struct runner *r, const struct suite_run *run,
			     struct runner_lookup *lk, cJSON **out,
			     char *why, size_t whylen)
{
	cJSON *argv = cJSON_CreateArray();
	char buf[4096], err[256];
	int a, rc;

	for (a = 0; a < run->argc; a++) {
		rc = suite_expand(run->argv[a], buf, sizeof(buf),
				  runner_lookup_fn, lk, err, sizeof(err));
		if (rc != 0) {
			cJSON_Delete(argv);
			return util_fail(why, whylen, -ENOENT, "%s:%d: cannot expand '%s' (%s%s)", r->suite.file, run->line, run->argv[a], rc == -ENOENT ? "no value for " : "", rc == -ENOENT ? err : "too long");
		}
		cJSON_AddItemToArray(argv, cJSON_CreateString(buf));
	}
	if (a > 0)
		cJSON_AddItemToArray(argv, cJSON_CreateString("--json"));
	*out = argv;
	return 0;
}

/* Splits one run line's concurrency across the clients that have its
 * workload (the first total % n get one more) and adds each share's argv
 * to that client's processes.  Returns 0 or -ENOENT (why says). */
static int runner_plan_run(struct runner *r, struct runner_rep *rr,
			   const struct suite_run *run,
			   struct runner_lookup *lk, char *why, size_t whylen)
{
	unsigned total = rr->conc ? rr->conc : 1, share;
	int cap = 0, k = 0, i, rc;
	cJSON *argv = NULL;

	for (i = 0; i < rr->ncl; i++)
		cap += runner_has_workload(rr->cl[i]->workloads, run->argv[0]);
	for (i = 0; i < rr->ncl; i++) {
		if (!runner_has_workload(rr->cl[i]->workloads, run->argv[0]))
			continue;
		share = total / (unsigned)cap +
			((unsigned)k < total % (unsigned)cap);
		k++;
		if (share == 0)
			continue;
		lk->client = rr->cl[i];
		snprintf(lk->conc, sizeof(lk->conc), "%u", share);
		snprintf(lk->client_i, sizeof(lk->client_i), "%d", i);
		rc = runner_expand_run(r, run, lk, &argv, why, whylen);
		if (rc != 0)
			return rc;
		cJSON_AddItemToArray(rr->procs[i], argv);
	}
	return 0;
}

/* Points the server's relay route at sink (HOST:PORT) unless it names it
 * already: a server agent is sent "relay", a controller that is the server
 * runs the route command itself (node.h). */
static void runner_relay_point(struct runner *r, const char *sink,
			       struct rpeer *srv)
{
	cJSON *m;

	if (strcmp(r->relay_to, sink) == 0)
		return;
	snprintf(r->relay_to, sizeof(r->relay_to), "%s", sink);
	if (r->o->local_server)
		node_relay_route(sink);
	m = srv ? control_msg_new(CONTROL_RELAY) : NULL;
	if (m) {
		cJSON_AddStringToObject(m, "sink", sink);
		control_conn_send(&srv->c, m);
		cJSON_Delete(m);
	}
}

/* Before the first step: the route at the first relay step's sink (the
 * client at sink_host, or the first by id), so the MTA's reload, which
 * stalls its SMTP for a moment, falls outside the measured steps. */
void runner_steps_relay_early(struct runner *r)
{
	const char *want = suite_var(&r->suite, "sink_host");
	struct rpeer *first = NULL, *p;
	char sink[96];
	unsigned i;
	int k;

	for (i = 0; i < r->suite.nsteps && !r->suite.steps[i].sink_port; i++)
		;
	if (i == r->suite.nsteps)
		return;
	for (k = 0; k < r->npeers; k++) {
		p = &r->peers[k];
		if (p->state != RP_READY || p->role != ROLE_CLIENT)
			continue;
		if (want && want[0] ? strcmp(p->addr, want) == 0 :
		    !first || strcmp(p->id, first->id) < 0)
			first = p;
	}
	if (!first)
		return;
	snprintf(sink, sizeof(sink), "%s:%u", first->addr,
		 r->suite.steps[i].sink_port);
	runner_relay_point(r, sink, runner_peers_server(r));
}

/* A relay step (`sink PORT`): `benchboot smtp-sink` on the client at the
 * suite's sink_host (the kit's --relay host) or else on the first one, for
 * the step's warmup and duration and then until relayed mail stops coming
 * (2 s without a message); the server's relay route is pointed there
 * (runner_relay_point).  Returns 0, or -ENOENT with the reason in why. */
static int runner_plan_sink(struct runner *r, struct runner_rep *rr,
			    struct rpeer *srv, char *why, size_t whylen)
{
	const char *want = suite_var(&r->suite, "sink_host");
	const char *args[7] = { "smtp-sink", "-d", NULL, "--idle", "2s" };
	char dur[32], listen[24];
	cJSON *argv;
	int i = 0;

	rr->sink_i = -1;
	if (!rr->st->sink_port)
		return 0;
	while (want && want[0] && i < rr->ncl &&
	       strcmp(rr->cl[i]->addr, want) != 0)
		i++;
	if (i == rr->ncl)
		return util_fail(why, whylen, -ENOENT, "sink_host %s: no client has that address", want);
	if (!runner_has_workload(rr->cl[i]->workloads, "smtp-sink"))
		return util_fail(why, whylen, -ENOENT, "client %s has no smtp-sink for the relay", rr->cl[i]->id);
	suite_fmt_duration(rr->st->warmup_ns + rr->st->duration_ns, dur,
			   sizeof(dur));
	snprintf(listen, sizeof(listen), "0.0.0.0:%u", rr->st->sink_port);
	args[2] = dur;
	args[5] = listen;
	args[6] = "--json";
	argv = cJSON_CreateStringArray(args, 7);
	if (!argv)
		return util_fail(why, whylen, -ENOENT, "out of memory");
	cJSON_AddItemToArray(rr->procs[i], argv);
	rr->sink_i = i;
	snprintf(rr->sink, sizeof(rr->sink), "%s:%u", rr->cl[i]->addr,
		 rr->st->sink_port);
	runner_relay_point(r, rr->sink, srv);
	return 0;
}

/* The clients a repeat of st at concurrency conc needs: a share of the
 * concurrency each (one without a sweep: it runs on the first client),
 * at most the run's (--peers or the suite's clients), and at most those
 * the steps began with (a run whose peer wait came up short goes on with
 * what it found, as it always has). */
static int runner_clients_needed(struct runner *r, unsigned conc)
{
	int want = r->o->peers >= 0 ? r->o->peers : (int)r->suite.clients;
	int need = conc ? (int)conc : 1;

	if (need > want)
		need = want;
	return need < r->start_clients ? need : r->start_clients;
}

/* A repeat that cannot run with the clients connected: rr->rep (and its
 * step, runner_note_skip) says why, with "clients_short" {needed,
 * connected}, rather than the step running with fewer, or none. */
static int runner_short(struct runner_rep *rr, int need)
{
	char why[160];
	cJSON *cs = cJSON_AddObjectToObject(rr->rep, "clients_short");

	cJSON_AddNumberToObject(cs, "needed", need);
	cJSON_AddNumberToObject(cs, "connected", rr->ncl);
	snprintf(why, sizeof(why), "not run: %d of the %d client(s) it needs connected (the others were lost)", rr->ncl, need);
	return runner_skip(rr, why);
}

/* Plan: the ready clients, sorted by id, and each one's processes.
 * Returns 0, or -ENOENT when the repeat must be skipped (reason in
 * rr->rep). */
static int runner_plan(struct runner *r, struct runner_rep *rr)
{
	const struct suite_step *st = rr->st;
	struct runner_lookup lk = { .r = r, .st = st };
	struct rpeer *srv = runner_peers_server(r);
	char why[700];
	unsigned j;
	int i;

	for (i = 0; i < r->npeers; i++)
		if (r->peers[i].state == RP_READY &&
		    r->peers[i].role == ROLE_CLIENT)
			rr->cl[rr->ncl++] = &r->peers[i];
	qsort(rr->cl, (size_t)rr->ncl, sizeof(rr->cl[0]), runner_cmp_peer);
	if (runner_link_gone(r))
		return runner_skip(rr, r->link_gone);
	if (rr->ncl < runner_clients_needed(r, rr->conc))
		return runner_short(rr, runner_clients_needed(r, rr->conc));
	if (rr->ncl == 0)
		return runner_skip(rr, "no clients");
	for (j = 0; j < st->nruns; j++)
		if (!runner_workload_known(r, st->runs[j].argv[0])) {
			snprintf(why, sizeof(why), "no client has the '%s' workload", st->runs[j].argv[0]);
			return runner_skip(rr, why);
		}
	snprintf(lk.total, sizeof(lk.total), "%u", rr->conc ? rr->conc : 1);
	suite_fmt_duration(st->duration_ns, lk.dur, sizeof(lk.dur));
	suite_fmt_duration(st->warmup_ns, lk.warm, sizeof(lk.warm));
	suite_fmt_duration(st->cooldown_ns, lk.cool, sizeof(lk.cool));
	snprintf(lk.clients, sizeof(lk.clients), "%d", rr->ncl);
	snprintf(lk.rep, sizeof(lk.rep), "%u", rr->repno);
	lk.server = srv ? srv->addr : NULL;
	for (i = 0; i < rr->ncl; i++)
		rr->procs[i] = cJSON_CreateArray();
	for (j = 0; j < st->nruns; j++)
		if (runner_plan_run(r, rr, &st->runs[j], &lk, why,
				    sizeof(why)) != 0)
			goto skip;
	if (runner_plan_sink(r, rr, srv, why, sizeof(why)) != 0)
		goto skip;
	return 0;
skip:
	for (i = 0; i < rr->ncl; i++)
		cJSON_Delete(rr->procs[i]);
	return runner_skip(rr, why);
}

/* The hosts client c may load in this run (the agent refuses others,
 * policy.h): the run's server as the placeholders name it, and in a keyed
 * lab the suite's own "targets" list (comma-separated). */
static cJSON *runner_targets(struct runner *r, const struct rpeer *c)
{
	struct runner_lookup lk = { .r = r, .client = c };
	struct rpeer *srv = runner_peers_server(r);
	const char *t, *list = suite_var(&r->suite, "targets");
	cJSON *a = cJSON_CreateArray();
	size_t n;

	lk.server = srv ? srv->addr : NULL;
	t = runner_lookup_fn(&lk, "server");
	if (t && t[0])
		cJSON_AddItemToArray(a, cJSON_CreateString(t));
	while (list && *list && r->o->key && r->o->key->len) {
		char one[256];

		n = strcspn(list, ",");
		snprintf(one, sizeof(one), "%.*s", (int)n, list);
		if (one[0])
			cJSON_AddItemToArray(a, cJSON_CreateString(one));
		list += n + (list[n] == ',');
	}
	return a;
}

/* Sends client i its RUN (taking rr->procs[i]) and records it in the
 * repeat's "clients"; a client with nothing to run is marked idle. */
static void runner_launch_one(struct runner *r, struct runner_rep *rr,
			      int i)
{
	const struct suite_step *st = rr->st;
	struct rpeer *c = rr->cl[i];
	cJSON *msg, *ce = cJSON_CreateObject();

	cJSON_AddStringToObject(ce, "id", c->id);
	cJSON_AddItemToArray(rr->clients, ce);
	c->result = NULL;
	c->lost_in_step = 0;
	c->prepared = 0;
	if (cJSON_GetArraySize(rr->procs[i]) == 0) {
		cJSON_AddBoolToObject(ce, "idle", 1);
		cJSON_Delete(rr->procs[i]);
		return;
	}
	/* Prepared: the start comes later, in START (runner_start). */
	msg = control_msg_new(CONTROL_RUN);
	cJSON_AddStringToObject(msg, "step", r->cur_step);
	json_int_add(msg, "start_at", 0);
	cJSON_AddNumberToObject(msg, "prepare_s", RUNNER_PREPARE_S);
	cJSON_AddNumberToObject(msg, "timeout_s",
				(double)runner_limit_ns(st) / 1e9 + 60);
	cJSON_AddItemToObject(ce, "procs", cJSON_Duplicate(rr->procs[i], 1));
	cJSON_AddItemToObject(msg, "procs", rr->procs[i]);
	cJSON_AddItemToObject(msg, "targets", runner_targets(r, c));
	if (control_conn_send(&c->c, msg) == 0) {
		c->in_step = 1;
		rr->part++;
		/* The server under test may be too busy to acknowledge
		 * anything while 64 connections prepare; the agent gives
		 * the same patience (docs/protocol.md, liveness). */
		control_conn_patience(&c->c,
				  RUNNER_PREPARE_S + CONTROL_PATIENCE_MARGIN_S);
	} else {
		runner_peers_drop(r, c, "send failed");
		c->lost_in_step = 1;
	}
	cJSON_Delete(msg);
}

/* Prepare: every client that was sent a RUN prepares its processes
 * (connections, tables, statements) and answers PREPARED; waits for all,
 * a lost agent, or RUNNER_PREPARE_S and a margin.  Each client's entry
 * says how long it took and how many processes were ready and failed,
 * or that it did not answer (it is then told to abort: it would measure
 * another window). */
static void runner_prepare(struct runner *r, struct runner_rep *rr)
{
	int64_t t0 = runner_peers_now(), worst = 0;
	uint64_t deadline = util_mono_ns() +
			    (RUNNER_PREPARE_S + 10) * 1000000000ull;
	int i, waiting;

	for (;;) {
		waiting = 0;
		for (i = 0; i < rr->ncl; i++)
			waiting += rr->cl[i]->in_step &&
				   rr->cl[i]->state == RP_READY &&
				   !rr->cl[i]->prepared;
		if (!waiting || util_mono_ns() > deadline || *r->stop)
			break;
		runner_peers_pump(r, 20);
	}
	for (i = 0; i < rr->ncl; i++) {
		struct rpeer *c = rr->cl[i];
		cJSON *ce = cJSON_GetArrayItem(rr->clients, i), *pr, *ab;

		if (!c->in_step || c->state != RP_READY)
			continue;
		control_conn_patience(&c->c, 0);
		pr = cJSON_AddObjectToObject(ce, "prepare");
		if (c->prepared) {
			cJSON_AddNumberToObject(pr, "s",
						(double)(c->prep_at - t0) / 1e9);
			cJSON_AddNumberToObject(pr, "ready", c->prep_ready);
			cJSON_AddNumberToObject(pr, "failed", c->prep_failed);
			worst = c->prep_at - t0 > worst ? c->prep_at - t0 :
				worst;
			if (c->prep_failed)
				runner_peers_event(r, "prepare_failed", c->id,
						   r->cur_step);
			continue;
		}
		cJSON_AddStringToObject(pr, "error", "not prepared within " RUNNER_PREPARE_STR " s: aborted");
		runner_peers_event(r, "prepare_timeout", c->id, r->cur_step);
		node_log("step %s: %s not prepared within %d s", r->cur_step,
			 c->id, RUNNER_PREPARE_S);
		ab = control_msg_new(CONTROL_ABORT);
		if (ab) {
			cJSON_AddStringToObject(ab, "step", r->cur_step);
			control_conn_send(&c->c, ab);
			cJSON_Delete(ab);
		}
		c->in_step = 0;
		c->lost_in_step = 1;
	}
	cJSON_AddNumberToObject(rr->rep, "prepare_s", (double)worst / 1e9);
}

/* Start: fresh clock offsets (re-estimated before every step so a long
 * run follows drift), then every prepared client's START at one
 * absolute time. */
static void runner_start(struct runner *r, struct runner_rep *rr)
{
	int64_t lead, rtt, off;
	cJSON *msg, *ce;
	int i, n = 0;

	runner_peers_sync(r, 8, 2000);
	lead = 300000000ll + (int64_t)rr->ncl * 3000000ll;
	rr->start = runner_peers_now() + lead;
	r->step_start = rr->start;
	rr->end = rr->start + (int64_t)rr->st->warmup_ns +
		  (int64_t)rr->st->duration_ns;
	json_int_add(rr->rep, "start_ns", rr->start);
	for (i = 0; i < rr->ncl; i++) {
		struct rpeer *c = rr->cl[i];

		if (!c->in_step || c->state != RP_READY)
			continue;
		ce = cJSON_GetArrayItem(rr->clients, i);
		off = runner_peers_offset(c, &rtt);
		json_int_add(ce, "offset_ns", off);
		json_int_add(ce, "rtt_ns", rtt);
		msg = control_msg_new(CONTROL_START);
		if (!msg)
			continue;
		cJSON_AddStringToObject(msg, "step", r->cur_step);
		json_int_add(msg, "start_at", rr->start + off);
		if (control_conn_send(&c->c, msg) == 0) {
			n++;
		} else {
			runner_peers_drop(r, c, "send failed");
			c->lost_in_step = 1;
		}
		cJSON_Delete(msg);
	}
	node_log("step %s: %d client(s) prepared, start in %.0f ms",
		 r->cur_step, n, (double)lead / 1e6);
}

/* Launch: every client's RUN (prepare), then one START for all. */
static void runner_launch(struct runner *r, struct runner_rep *rr)
{
	int i;

	rr->clients = cJSON_AddArrayToObject(rr->rep, "clients");
	for (i = 0; i < rr->ncl; i++)
		runner_launch_one(r, rr, i);
	node_log("step %s: %d client(s) preparing", r->cur_step, rr->part);
	runner_prepare(r, rr);
	runner_start(r, rr);
}

/* Wait: for every result until 60 s past the step's end; an agent that
 * vanishes is recorded by the pump.  Clock probes go on every 5 s so a
 * long step follows drift too.  Whoever still runs is then told to stop,
 * so it is free for the next step. */
static void runner_wait(struct runner *r, struct runner_rep *rr)
{
	/* On the monotonic clock: a wall-clock step during the step must
	 * not move how long we wait. */
	int64_t left = rr->start + (int64_t)runner_limit_ns(rr->st) -
		       runner_peers_now();
	uint64_t deadline = util_mono_ns() + (uint64_t)(left > 0 ? left : 0) +
			    60000000000ull;
	uint64_t next_sync = util_mono_ns() + 5000000000ull;
	int i, waiting;
	cJSON *ab;

	for (;;) {
		waiting = 0;
		for (i = 0; i < rr->ncl; i++)
			waiting += rr->cl[i]->in_step &&
				   rr->cl[i]->state == RP_READY;
		if (!waiting || util_mono_ns() > deadline || *r->stop ||
		    runner_link_gone(r))
			break;
		runner_peers_pump(r, 50);
		if (util_mono_ns() > next_sync) {
			runner_peers_sync(r, 1, 100);
			next_sync = util_mono_ns() + 5000000000ull;
		}
	}
	for (i = 0; i < rr->ncl; i++) {
		if (!rr->cl[i]->in_step || rr->cl[i]->state != RP_READY)
			continue;
		ab = control_msg_new(CONTROL_ABORT);
		if (!ab)
			continue;
		cJSON_AddStringToObject(ab, "step", r->cur_step);
		control_conn_send(&rr->cl[i]->c, ab);
		cJSON_Delete(ab);
	}
}

/* What collecting a repeat's results counted. */
struct runner_tally {
	int lost, failed, lclients;	/* lost: clients with no result */
	int missing[RESULT_MISSING_N];	/* those per cause */
	int64_t lmin, lmax;		/* launch times, controller clock */
	struct result_starts starts;
};

/* One process entry rr of client c's result: copied into recs with its
 * launch lateness, its record merged.  Counts a failure in t. */
static void runner_collect_entry(struct runner_rep *rr, const cJSON *pe,
				 int64_t off, cJSON *recs,
				 struct result_merge *acc,
				 struct runner_tally *t)
{
	const cJSON *rec = cJSON_GetObjectItemCaseSensitive(pe, "record");
	const cJSON *ln = cJSON_GetObjectItemCaseSensitive(pe, "launched_ns");
	const cJSON *e = cJSON_GetObjectItemCaseSensitive(pe, "error");
	const cJSON *w, *mails;
	cJSON *copy = cJSON_Duplicate(pe, 1);
	char err[256];

	cJSON_AddItemToArray(recs, copy);
	if (cJSON_IsNumber(ln) && ln->valuedouble > 0) {
		int64_t l = (int64_t)ln->valuedouble - off;

		json_int_add(copy, "launch_late_ns", l - rr->start);
		t->lmin = l < t->lmin ? l : t->lmin;
		t->lmax = l > t->lmax ? l : t->lmax;
	}
	if (cJSON_IsString(e) || !rec) {
		t->failed++;
		return;
	}
	/* A relay step: what the smtp clients sent, and the sink's count,
	 * which is not load and stays out of the step's figures. */
	w = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(pe, "argv"),
			       0);
	mails = cJSON_GetObjectItemCaseSensitive(
		cJSON_GetObjectItemCaseSensitive(rec, "counters"), "mails");
	if (rr->sink_i >= 0 && cJSON_IsString(w) && cJSON_IsNumber(mails)) {
		if (strcmp(w->valuestring, "smtp") == 0)
			rr->relay_sent += mails->valuedouble;
		if (strcmp(w->valuestring, "smtp-sink") == 0) {
			rr->relay_received += mails->valuedouble;
			rr->sink_ok = 1;
			return;
		}
	}
	result_starts_note(&t->starts, rec, off);
	if (result_merge_record(acc, rec, err, sizeof(err)) != 0) {
		cJSON_AddStringToObject(copy, "merge_error", err);
		t->failed++;
	}
}

/* Client i's result into its "clients" entry ce. */
static void runner_collect_client(struct runner *r, struct runner_rep *rr,
				  int i, cJSON *ce, struct result_merge *acc,
				  struct runner_tally *t)
{
	struct rpeer *c = rr->cl[i];
	const cJSON *res = c->result, *pe, *got;
	int64_t off = runner_peers_offset(c, NULL);
	cJSON *recs;

	if (c->in_step || !res) {
		/* A client still there, in the step, with nothing to say
		 * was cut at the step's time limit (runner_wait): not lost,
		 * and the repeat's reason says which (the 150 run called
		 * such a repeat "1 client(s) lost"). */
		enum result_missing why = result_missing_cause(
			cJSON_GetObjectItemCaseSensitive(
				cJSON_GetObjectItemCaseSensitive(ce,
								 "prepare"),
				"error") != NULL,
			c->lost_in_step || c->state != RP_READY, *r->stop);

		cJSON_AddStringToObject(ce, "error",
					result_missing_label(why));
		runner_peers_event(r, "client_missing", c->id,
				   result_missing_label(why));
		c->in_step = 0;
		t->lost++;
		t->missing[why]++;
		return;
	}
	recs = cJSON_AddArrayToObject(ce, "records");
	t->lclients++;
	/* One record per process it was given, or it did not run what was
	 * asked (a busy agent answers with none). */
	got = cJSON_GetObjectItemCaseSensitive(res, "records");
	if (cJSON_GetArraySize(got) != cJSON_GetArraySize(
		    cJSON_GetObjectItemCaseSensitive(ce, "procs"))) {
		cJSON_AddStringToObject(ce, "error", "fewer records than processes");
		t->failed++;
	}
	cJSON_ArrayForEach(pe, got)
		runner_collect_entry(rr, pe, off, recs, acc, t);
	cJSON_Delete(c->result);
	c->result = NULL;
}

/* A relay step's "relay": where the relayed mail went and how much
 * arrived; what was sent and did not arrive is still queued on the server
 * (or lost).  Nothing when the sink gave no count. */
static void runner_relay_note(struct runner_rep *rr)
{
	cJSON *o;

	if (rr->sink_i < 0)
		return;
	o = cJSON_AddObjectToObject(rr->rep, "relay");
	cJSON_AddStringToObject(o, "sink", rr->sink);
	cJSON_AddStringToObject(o, "client", rr->cl[rr->sink_i]->id);
	cJSON_AddNumberToObject(o, "sent", rr->relay_sent);
	if (!rr->sink_ok) {
		cJSON_AddStringToObject(o, "error", "the sink gave no count");
		return;
	}
	cJSON_AddNumberToObject(o, "received", rr->relay_received);
	cJSON_AddNumberToObject(o, "not_received",
				rr->relay_sent - rr->relay_received);
}

/* Waits (servicing everyone) until the series window of a load that
 * ended at end is whole (runner_series_window): until a sampler reading
 * past end (the one that covers it) and a probe second past end - 1 s
 * (the one it falls in) have come in.  A record arrives after the time
 * it carries (a probe second is sent at its end), and the clients'
 * results, on which collecting waits, come in right at the end, so this
 * is up to about a second.  At most RUNNER_SERIES_SETTLE_NS past end;
 * nothing to wait for from a producer that never sent a record (no
 * agent of ours on the server). */
static void runner_series_settle(struct runner *r, int64_t end)
{
	uint64_t until = util_mono_ns();
	int64_t left = end + RUNNER_SERIES_SETTLE_NS - runner_peers_now();
	int64_t s, p;

	until += left > 0 ? (uint64_t)left : 0;
	while (util_mono_ns() < until && !*r->stop) {
		s = r->series_newest[0];
		p = r->series_newest[1];
		if ((s == 0 || s > end) &&
		    (p == 0 || p > end - RUNNER_SERIES_PERIOD_NS))
			break;
		runner_peers_pump(r, 50);
	}
}

/* Collect: every client's records merged into acc, the skew figures (a
 * skew needs two clients to be one), the server's series of the window,
 * and whether the repeat is complete.  Returns that. */
static int runner_collect(struct runner *r, struct runner_rep *rr,
			  struct result_merge *acc)
{
	struct runner_tally t = { .lmin = INT64_MAX, .lmax = INT64_MIN };
	cJSON *sk;
	int64_t rsk;
	char err[256];
	int i, complete;

	for (i = 0; i < rr->ncl; i++) {
		cJSON *ce = cJSON_GetArrayItem(rr->clients, i);

		if (!cJSON_GetObjectItemCaseSensitive(ce, "idle"))
			runner_collect_client(r, rr, i, ce, acc, &t);
	}
	sk = cJSON_AddObjectToObject(rr->rep, "skew_ns");
	if (t.lclients >= 2 && t.lmax >= t.lmin)
		json_int_add(sk, "launch", t.lmax - t.lmin);
	rsk = result_starts_skew(&t.starts);
	if (t.lclients >= 2 && rsk >= 0)
		json_int_add(sk, "record", rsk);
	runner_series_settle(r, rr->end);
	sk = runner_series_window(r, rr->start, rr->end);
	/* Say it plainly when there are no server-side figures (no agent
	 * of ours on the server, or its producers did not run). */
	if (cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(sk,
								"sample")) +
	    cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(sk,
								"probe")) == 0)
		cJSON_AddStringToObject(rr->rep, "server_figures", "none: no sampler or probe ran on the server (no benchboot agent there)");
	cJSON_AddItemToObject(rr->rep, "series", sk);
	runner_relay_note(rr);
	if (t.lost > 0)
		r->rejoin = rr->ncl;
	complete = t.lost == 0 && t.failed == 0 && rr->part > 0;
	cJSON_AddBoolToObject(rr->rep, "complete", complete);
	if (!complete) {
		result_incomplete_reason(err, sizeof(err), t.missing,
					 t.failed);
		cJSON_AddStringToObject(rr->rep, "incomplete_reason", err);
		runner_peers_event(r, "step_incomplete", NULL, err);
		node_log("step %s incomplete: %s", r->cur_step, err);
	}
	return complete;
}

/* After a repeat that lost clients (an agent whose connection timed out
 * reconnects within seconds; under emulation its handshake can take 20),
 * the next one waits up to RUNNER_REJOIN_S for as many clients as that
 * repeat had, rather than running, or skipping, without them.  Once. */
static void runner_rejoin(struct runner *r)
{
	uint64_t until = util_mono_ns() + RUNNER_REJOIN_S * 1000000000ull;
	int want = r->rejoin;

	r->rejoin = 0;
	if (want <= 0 || runner_peers_count(r, ROLE_CLIENT) >= want)
		return;
	node_log("waiting up to %d s for %d lost client(s) to come back", RUNNER_REJOIN_S, want - runner_peers_count(r, ROLE_CLIENT));
	while (runner_peers_count(r, ROLE_CLIENT) < want &&
	       util_mono_ns() < until && !*r->stop && !runner_link_gone(r))
		runner_peers_pump(r, 50);
	if (runner_peers_count(r, ROLE_CLIENT) < want)
		runner_peers_event(r, "clients_not_back", NULL, r->cur_step);
}

/* Runs one repeat of one step at concurrency conc (0: no sweep) into rep
 * and acc (one accumulator per workload).  Returns 1 when the repeat is
 * complete (it may be averaged in), 0 when not, or -ENOENT when the step
 * had to be skipped (reason in rep). */
static int runner_repeat(struct runner *r, const struct suite_step *st,
			 unsigned conc, unsigned repno, cJSON *rep,
			 struct result_merge *acc)
{
	struct runner_rep *rr = calloc(1, sizeof(*rr));
	int rc;

	if (!rr) {
		cJSON_AddStringToObject(rep, "skipped", "out of memory");
		return -ENOENT;
	}
	rr->st = st;
	rr->conc = conc;
	rr->repno = repno;
	rr->rep = rep;
	runner_rejoin(r);
	r->rep_end = runner_peers_now();
	rc = runner_plan(r, rr);
	if (rc == 0) {
		runner_launch(r, rr);
		runner_wait(r, rr);
		rc = runner_collect(r, rr, acc);
		r->rep_end = rr->end;
	}
	free(rr);
	return rc;
}

/* The step object of st at concurrency conc, added to steps; its name
 * ("STEP/cN" in a sweep) into name. */
static cJSON *runner_step_open(const struct suite_step *st, unsigned conc,
			       cJSON *steps, char *name, size_t namelen)
{
	cJSON *so = cJSON_CreateObject();

	if (conc)
		snprintf(name, namelen, "%s/c%u", st->name, conc);
	else
		snprintf(name, namelen, "%s", st->name);
	cJSON_AddStringToObject(so, "name", name);
	cJSON_AddStringToObject(so, "step", st->name);
	if (conc)
		cJSON_AddNumberToObject(so, "concurrency", conc);
	cJSON_AddNumberToObject(so, "warmup_s", (double)st->warmup_ns / 1e9);
	cJSON_AddNumberToObject(so, "duration_s",
				(double)st->duration_ns / 1e9);
	cJSON_AddNumberToObject(so, "cooldown_s",
				(double)st->cooldown_ns / 1e9);
	cJSON_AddArrayToObject(so, "repeats");
	cJSON_AddItemToArray(steps, so);
	return so;
}

/* What is left of a cool-down of ns after the last repeat's load ended
 * (collecting its results and series took some of it). */
static uint64_t runner_cool_left(const struct runner *r, uint64_t ns)
{
	int64_t left = r->rep_end + (int64_t)ns - runner_peers_now();

	if (left <= 0)
		return 0;
	return (uint64_t)left < ns ? (uint64_t)left : ns;
}

/* Logs and records a skipped repeat in the step object so. */
static void runner_note_skip(struct runner *r, cJSON *so, const cJSON *ro)
{
	const cJSON *why = cJSON_GetObjectItemCaseSensitive(ro, "skipped");
	const char *w = cJSON_IsString(why) ? why->valuestring : NULL;

	node_log("step %s skipped: %s", r->cur_step, w ? w : "?");
	runner_peers_event(r, "step_skipped", NULL, w);
	cJSON_AddStringToObject(so, "skipped", w ? w : "");
}

/* The server back to one state before every step (mail queue and
 * maildirs emptied, leftover tables dropped): a controller on the image's
 * server runs its server-reset itself (node.h); a server agent elsewhere
 * is asked ("reset") and its answer awaited (RUNNER_RESET_S at most).
 * so's "server_reset" keeps what was done, or says why not. */
static void runner_reset(struct runner *r, cJSON *so)
{
	cJSON *rs = cJSON_AddObjectToObject(so, "server_reset"), *m, *x;
	struct rpeer *srv = runner_peers_server(r);
	uint64_t deadline;

	if (r->o->local_server) {
		node_server_reset(rs);
	} else if (!srv) {
		cJSON_AddStringToObject(rs, "not_reset", r->o->target ? "the server under test has no benchboot agent (--target): it could not be reset" : "no server agent");
		return;
	} else {
		cJSON_Delete(srv->reset);
		srv->reset = NULL;
		m = control_msg_new(CONTROL_RESET);
		if (!m)
			return;
		cJSON_AddStringToObject(m, "step", r->cur_step);
		if (control_conn_send(&srv->c, m) == 0) {
			deadline = util_mono_ns() + RUNNER_RESET_S * 1000000000ull;
			while (!srv->reset && srv->state == RP_READY &&
			       util_mono_ns() < deadline && !*r->stop)
				runner_peers_pump(r, 20);
		}
		cJSON_Delete(m);
		if (!srv->reset) {
			cJSON_AddStringToObject(rs, "not_reset", "the server agent did not answer the reset");
			runner_peers_event(r, "server_reset_failed", srv->id,
					   r->cur_step);
			return;
		}
		/* Its "by", "done", "ok" or "not_reset", as it said them. */
		cJSON_ArrayForEach(x, srv->reset)
			if (strcmp(x->string, "by") == 0 ||
			    strcmp(x->string, "done") == 0 ||
			    strcmp(x->string, "ok") == 0 ||
			    strcmp(x->string, "not_reset") == 0)
				cJSON_AddItemToObject(rs, x->string,
						      cJSON_Duplicate(x, 1));
		cJSON_AddStringToObject(rs, "agent", srv->id);
		cJSON_Delete(srv->reset);
		srv->reset = NULL;
	}
	if (cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(rs, "ok")))
		runner_peers_event(r, "server_reset_failed", NULL, r->cur_step);
}

/* One step at one concurrency: R repeats, then statistics over the
 * complete ones. */
static void runner_step(struct runner *r, const struct suite_step *st,
			unsigned conc, cJSON *steps)
{
	struct result_merge all, acc;
	int ncomplete = 0, rc;
	/* Each complete repeat's merged objects, for the statistics. */
	cJSON *per_rep = cJSON_CreateArray(), *so, *reps, *ro, *mo;
	unsigned rep;
	char name[128];

	result_merge_init(&all);
	so = runner_step_open(st, conc, steps, name, sizeof(name));
	snprintf(r->cur_step, sizeof(r->cur_step), "%s", name);
	runner_reset(r, so);
	reps = cJSON_GetObjectItemCaseSensitive(so, "repeats");
	/* Resumed: the checkpoint's finished repeats count as done. */
	rep = 1 + (unsigned)(r->resume ? result_resume_step(r->resume, name,
		reps, &all, per_rep, &ncomplete, r->resumed) : 0);
	r->rep_done += rep - 1;
	for (; rep <= st->repeats && !*r->stop; rep++) {
		snprintf(r->cur_step, sizeof(r->cur_step), "%s/r%u", name, rep);
		node_status("step %s, repeat %u/%u; %d clients; %u/%u done, about %llu s left", name, rep, st->repeats, runner_peers_count(r, ROLE_CLIENT), r->rep_done, r->rep_total, (unsigned long long)(r->left_ns / 1000000000ull));
		ro = cJSON_CreateObject();
		cJSON_AddNumberToObject(ro, "repeat", rep);
		cJSON_AddItemToArray(reps, ro);
		result_merge_init(&acc);
		rc = runner_repeat(r, st, conc, rep, ro, &acc);
		r->rep_done++;
		r->left_ns -= r->left_ns < runner_planned_ns(st) ?
			      r->left_ns : runner_planned_ns(st);
		if (rc == -ENOENT) {
			runner_note_skip(r, so, ro);
			result_merge_free(&acc);
			break;
		}
		/* Too many errors: kept, not averaged (result.h). */
		if (result_repeat_check(&acc, ro, st->max_error_rate) == 0)
			rc = 0;
		if (rc == 1)
			result_merge_hists(&all, &acc);
		mo = result_merge_json(&acc);
		cJSON_AddItemToObject(ro, "merged", mo);
		if (rc == 1) {
			ncomplete++;
			cJSON_AddItemToArray(per_rep, cJSON_Duplicate(mo, 1));
		}
		result_merge_free(&acc);
		runner_result_checkpoint(r);
		runner_peers_serve_for(r, runner_cool_left(r, st->cooldown_ns));
	}
	cJSON_AddNumberToObject(so, "complete_repeats", ncomplete);
	result_step_stats(cJSON_AddObjectToObject(so, "merged"),
			  cJSON_AddObjectToObject(so, "stats"), &all, per_rep);
	result_merge_free(&all);
	cJSON_Delete(per_rep);
	r->cur_step[0] = 0;
}

/* Every step of the suite, each concurrency of a sweep as its own. */
void runner_steps_run(struct runner *r, cJSON *steps)
{
	const struct suite_step *st;
	unsigned si, ci, n;

	for (si = 0; si < r->suite.nsteps; si++) {
		st = &r->suite.steps[si];
		n = st->repeats * (st->nconc ? st->nconc : 1);
		r->rep_total += n;
		r->left_ns += n * runner_planned_ns(st);
	}
	r->start_clients = runner_peers_count(r, ROLE_CLIENT);
	/* A controller whose link is gone ends with what it has
	 * (runner_result_deliver() then marks the result partial). */
	for (si = 0; si < r->suite.nsteps && !*r->stop && !r->link_gone[0];
	     si++) {
		st = &r->suite.steps[si];
		if (st->nconc == 0)
			runner_step(r, st, 0, steps);
		for (ci = 0; ci < st->nconc && !*r->stop && !r->link_gone[0];
		     ci++)
			runner_step(r, st, st->conc[ci], steps);
	}
}
