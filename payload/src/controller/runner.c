/* controller/runner.c: the controller role: a single-threaded poll loop that accepts
 * agents and, written as straight-line code around runner_pump(), waits for
 * peers, synchronises clocks, runs every step at an absolute start time,
 * merges the clients' records and writes, spools and uploads the result. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <netinet/in.h>
#include <poll.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "proto/control.h"
#include "ident/ident.h"
#include "lib/json_int.h"
#include "node/node.h"
#include "node/peer.h"
#include "result/result.h"
#include "controller/runner.h"
#include "node/series.h"
#include "node/spool.h"
#include "controller/suite.h"
#include "proto/clock_offset.h"
#include "lib/util.h"
#include "lib/version.h"

#define RUNNER_MAX_PEERS 4096
/* A connection must say hello within this, in at most this many bytes;
 * and only so many may be waiting to: a slow or silent peer holds one
 * slot for a few seconds, never the controller. */
#define RUNNER_HELLO_S 5
#define RUNNER_PREHELLO_BYTES (64u << 10)
#define RUNNER_MAX_NEW 64
#define RUNNER_MAX_EVENTS 1000
/* What one agent may send over a whole run (a day of sampler and probe
 * records is well under a tenth of it), and the series records one
 * server may add: beyond, its connection is dropped or its records are. */
#define RUNNER_PEER_BYTES (256ull << 20)
#define RUNNER_PEER_SERIES 400000
/* How long a step's workloads may prepare (connect, create and fill
 * tables) before the start: not scaled with the suite's times, as
 * preparing takes what it takes. */
#define RUNNER_PREPARE_S 120
/* How long the repeat after one that lost clients waits for them. */
#define RUNNER_REJOIN_S 60
/* How long a server agent may take to reset its server between steps. */
#define RUNNER_RESET_S 60
#define RUNNER_PREPARE_STR "120"

enum { RP_FREE, RP_NEW, RP_READY, RP_LOST };

struct rpeer {
	int state;
	struct control_conn c;
	char id[64];
	enum role role;
	char addr[64];		/* the agent's address, as we see it */
	char local[64];		/* our address on this connection */
	cJSON *host, *workloads;
	struct clock_offset ts;
	int tq_out;		/* a time request is outstanding */
	unsigned tq_got;	/* answers since the last sync began */
	int in_step;		/* waiting for its result */
	/* The step's prepare phase: answered, how many of its processes
	 * were ready and failed, when it answered (controller clock). */
	int prepared;
	unsigned prep_ready, prep_failed;
	int64_t prep_at;
	cJSON *reset;		/* server: its answer to "reset" */
	cJSON *result;		/* its result for the current step */
	int lost_in_step;
	unsigned idx;		/* client index in the current step */
	uint64_t since_mono;	/* connected at (for the hello deadline) */
	char nonce_a[AUTH_HEX_NONCE + 1];	/* keyed lab: the agent's */
	char nonce_c[AUTH_HEX_NONCE + 1];	/* and ours */
	int authed;		/* keyed lab: the agent proved the key */
	uint64_t nseries;	/* series records it added */
	struct auth_session as;
};

struct series_rec {
	int64_t t;		/* controller clock, ns */
	const char *source;
	cJSON *rec;
};

struct runner {
	const struct runner_opts *o;
	volatile sig_atomic_t *stop;
	struct suite suite;
	int lfd;
	struct rpeer *peers;
	int npeers;		/* slots in use (some may be RP_FREE) */
	cJSON *doc, *events, *errors;
	struct series local_series[SERIES_MAX];
	int nlocal_series;
	struct series_rec *series;
	size_t nseries, capseries;
	/* The newest record's time of each source (sample, probe), 0
	 * before its first: how far the series have come in. */
	int64_t series_newest[SERIES_MAX];
	int64_t rep_end;	/* controller clock the last load ended */
	int64_t step_start;	/* controller clock of the current step */
	char relay_to[96];	/* the sink the relay route was pointed at */
	char cur_step[201];
	uint64_t malformed;
	struct spool_dest dest;	/* where results go, how it is trusted */
	int spare_fd;		/* given up when descriptors run out */
	struct util_clockwatch clock;	/* wall-clock steps, as events */
	int yielding;		/* one was found: give up the role */
	unsigned nevents;	/* including those past RUNNER_MAX_EVENTS */
	/* For the status line: repeats done and planned, and the planned
	 * (warm-up + measured + cool-down) time of those not run yet. */
	unsigned rep_done, rep_total;
	uint64_t left_ns;
	/* Clients a repeat lost: the next one waits for that many. */
	int rejoin;
	/* --run-id's checkpoint while it may be resumed; then the names
	 * of the repeats taken from it (the document's resumed.repeats). */
	cJSON *resume, *resumed;
	time_t resume_mtime;
};

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

static int64_t runner_now(void)
{
	return (int64_t)util_real_ns();
}

static void runner_event(struct runner *r, const char *type, const char *id,
			 const char *detail)
{
	cJSON *e;

	/* A peer refused again and again must not grow the result without
	 * bound: past the cap events are only counted. */
	if (++r->nevents > RUNNER_MAX_EVENTS)
		return;
	e = cJSON_CreateObject();
	if (!e)
		return;
	json_int_add(e, "t_ns", runner_now());
	cJSON_AddStringToObject(e, "type", type);
	if (id)
		cJSON_AddStringToObject(e, "id", id);
	if (r->cur_step[0])
		cJSON_AddStringToObject(e, "step", r->cur_step);
	if (detail)
		cJSON_AddStringToObject(e, "detail", detail);
	cJSON_AddItemToArray(r->events, e);
}

static void runner_peer_drop(struct runner *r, struct rpeer *p,
			     const char *why)
{
	if (p->state == RP_READY) {
		node_log("lost %s %s (%s)", role_name(p->role), p->id, why);
		runner_event(r, "agent_lost", p->id, why);
		if (p->in_step)
			p->lost_in_step = 1;
		p->state = RP_LOST;
	} else {
		node_log("connection from %s closed: %s", p->addr, why);
		p->state = RP_FREE;
	}
	control_conn_close(&p->c);
	p->tq_out = 0;
}

/* Refuses p's connection for why: logged with its address, recorded as a
 * "refused" event, dropped. */
static void runner_refuse(struct runner *r, struct rpeer *p, const char *why)
{
	node_log("refused %s%s%s: %s", p->addr, p->id[0] ? " " : "", p->id, why);
	runner_event(r, "refused", p->addr, why);
	runner_peer_drop(r, p, why);
}

static void runner_series_add(struct runner *r, const char *source,
			      cJSON *rec, struct rpeer *from)
{
	struct clock_offset_sample best = { 0 };
	const cJSON *t = NULL;
	int64_t at = runner_now();
	static const char *const keys[] = { "t", "time", "ts", NULL };
	int i;

	/* Align on the record's own clock when it has one. */
	t = cJSON_GetObjectItemCaseSensitive(rec, "realtime_ns");
	for (i = 0; !cJSON_IsNumber(t) && keys[i]; i++) {
		const cJSON *o = cJSON_GetObjectItemCaseSensitive(rec, keys[i]);

		if (cJSON_IsObject(o))
			t = cJSON_GetObjectItemCaseSensitive(o, "realtime_ns");
	}
	if (cJSON_IsNumber(t)) {
		if (from)
			clock_offset_best(&from->ts, &best);
		if (json_int_get(t, &at) != 0)
			at = (int64_t)t->valuedouble;
		at -= best.offset;
	}
	if (from && ++from->nseries > RUNNER_PEER_SERIES)
		goto drop;
	if (r->nseries == r->capseries) {
		size_t nc = r->capseries ? r->capseries * 2 : 1024;
		struct series_rec *ns;

		if (nc > 2000000)
			goto drop;
		ns = realloc(r->series, nc * sizeof(*ns));
		if (!ns)
			goto drop;
		r->series = ns;
		r->capseries = nc;
	}
	i = strcmp(source, "probe") == 0;
	if (at > r->series_newest[i])
		r->series_newest[i] = at;
	r->series[r->nseries].t = at;
	r->series[r->nseries].source = i ? "probe" : "sample";
	r->series[r->nseries++].rec = rec;
	return;
drop:
	cJSON_Delete(rec);
}

static void runner_local_series_cb(void *ctx, const char *source,
				   cJSON *rec)
{
	runner_series_add(ctx, source, rec, NULL);
}

static struct rpeer *runner_find(struct runner *r, const char *id)
{
	int i;

	for (i = 0; i < r->npeers; i++)
		if ((r->peers[i].state == RP_READY ||
		     r->peers[i].state == RP_LOST) &&
		    strcmp(r->peers[i].id, id) == 0)
			return &r->peers[i];
	return NULL;
}

/* A hello on connection p: the agent becomes ready, taking over an older
 * slot of the same id (a restarted or reconnected agent).  Returns the
 * slot that owns the connection now. */
static struct rpeer *runner_hello(struct runner *r, struct rpeer *p,
				  const struct control_msg *m)
{
	struct rpeer *old = runner_find(r, m->id);
	const cJSON *w;
	cJSON *wel;

	if (p->state != RP_NEW) {
		r->malformed++;
		runner_event(r, "malformed_message", p->id, "second hello");
		runner_peer_drop(r, p, "second hello on one connection");
		return p;
	}
	snprintf(p->id, sizeof(p->id), "%s", m->id);
	if (r->o->key && r->o->key->len && !p->authed) {
		runner_refuse(r, p, "hello without the lab key handshake");
		return p;
	}
	if (strcmp(m->lab, r->o->lab) != 0) {
		char why[128];

		snprintf(why, sizeof(why), "agent of lab '%s', not '%s'", m->lab, r->o->lab);
		runner_refuse(r, p, why);
		return p;
	}
	if (old && old != p && old->state == RP_READY) {
		/* A live agent keeps its id: a newcomer cannot take it over
		 * (a restarted agent gets it once the old connection is
		 * seen to be gone). */
		runner_refuse(r, p, "hello with the id of a connected agent");
		return p;
	}
	if (old && old != p) {
		/* Keep the older slot (clock samples, step bookkeeping). */
		runner_event(r, "agent_rejoined", m->id, NULL);
		/* Whatever it ran before is gone with the old connection:
		 * that step is not waited for (lost_in_step stays set). */
		if (old->in_step)
			old->lost_in_step = 1;
		old->in_step = 0;
		control_conn_close(&old->c);
		old->c = p->c;
		old->authed = p->authed;
		old->as = p->as;
		if (old->authed)
			auth_attach(&old->c, &old->as);
		memcpy(old->addr, p->addr, sizeof(old->addr));
		memcpy(old->local, p->local, sizeof(old->local));
		memset(&p->c, 0, sizeof(p->c));
		p->c.fd = -1;
		p->state = RP_FREE;
		p = old;
	}
	snprintf(p->id, sizeof(p->id), "%s", m->id);
	p->role = role_parse(m->role);
	cJSON_Delete(p->host);
	cJSON_Delete(p->workloads);
	p->host = cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(m->json,
								   "host"), 1);
	w = cJSON_GetObjectItemCaseSensitive(m->json, "workloads");
	p->workloads = w ? cJSON_Duplicate(w, 1) : cJSON_CreateArray();
	p->state = RP_READY;
	p->tq_out = 0;
	if (!old)
		runner_event(r, "agent_joined", p->id, role_name(p->role));
	node_log("%s %s joined from %s", role_name(p->role), p->id,
		 p->addr);
	wel = control_msg_new(CONTROL_WELCOME);
	if (!wel)
		return p;
	cJSON_AddStringToObject(wel, "controller", r->o->id);
	control_conn_send(&p->c, wel);
	cJSON_Delete(wel);
	return p;
}

/* AUTH: our nonce and proof back; an open controller answers without a
 * proof (the keyed agent then refuses it) and closes. */
static void runner_on_auth(struct runner *r, struct rpeer *p,
			   const struct control_msg *m)
{
	const struct auth_key *key = r->o->key;
	char proof[AUTH_HEX_MAC + 1];
	cJSON *c;

	if (p->nonce_c[0] || auth_nonce(p->nonce_c) != 0) {
		runner_refuse(r, p, p->nonce_c[0] ? "a second auth" : "no randomness for a nonce");
		return;
	}
	snprintf(p->nonce_a, sizeof(p->nonce_a), "%s", m->nonce);
	c = control_msg_new(CONTROL_CHALLENGE);
	if (!c)
		return;
	cJSON_AddStringToObject(c, "nonce", p->nonce_c);
	if (r->o->lab[0])
		cJSON_AddStringToObject(c, "lab", r->o->lab);
	if (key && key->len) {
		auth_proof(key, AUTH_LABEL_CONTROLLER, p->nonce_a, p->nonce_c,
			   proof);
		cJSON_AddStringToObject(c, "proof", proof);
	}
	control_conn_send(&p->c, c);
	cJSON_Delete(c);
	if (!key || !key->len) {
		control_conn_drain(&p->c, 200);
		runner_refuse(r, p, "a keyed agent, and this lab is open");
	}
}

/* PROOF: the agent knows the key, or is refused; from here on every line
 * of the connection is authenticated. */
static void runner_on_proof(struct runner *r, struct rpeer *p,
			    const struct control_msg *m)
{
	if (!p->nonce_c[0] || p->authed) {
		runner_refuse(r, p, "proof out of turn");
		return;
	}
	if (!auth_proof_ok(r->o->key, AUTH_LABEL_AGENT, p->nonce_a, p->nonce_c,
			   m->proof)) {
		runner_refuse(r, p, "wrong lab key");
		return;
	}
	auth_session_init(&p->as, r->o->key, p->nonce_a, p->nonce_c, 1);
	auth_attach(&p->c, &p->as);
	p->authed = 1;
}

/* Before hello: a keyed lab takes only its handshake (then hello); an
 * open one only hello, or an auth it answers without a proof.  Returns
 * 1 when m may be handled, 0 when p was refused. */
static int runner_gate(struct runner *r, struct rpeer *p,
		       const struct control_msg *m)
{
	int keyed = r->o->key && r->o->key->len;
	char why[96];

	if (p->state == RP_READY)
		return m->type != CONTROL_AUTH && m->type != CONTROL_PROOF ? 1 :
		       (runner_refuse(r, p, "handshake after hello"), 0);
	if (m->type == CONTROL_HELLO || m->type == CONTROL_AUTH ||
	    (m->type == CONTROL_PROOF && keyed))
		return 1;
	snprintf(why, sizeof(why), "%s before hello", control_type_name(m->type));
	r->malformed++;
	runner_event(r, "malformed_message", p->addr, why);
	runner_refuse(r, p, why);
	return 0;
}

/* Handles one line from p; returns the slot owning p's connection
 * afterwards (another one when a hello took over an older slot). */
static struct rpeer *runner_handle(struct runner *r, struct rpeer *p,
				   const char *line, size_t len)
{
	struct control_msg m;
	char err[256];
	int64_t t4 = runner_now();

	if (control_msg_parse(line, len, &m, err, sizeof(err)) != 0) {
		r->malformed++;
		node_log("closing connection from %s%s%s: malformed message: %s", p->addr, p->id[0] ? " " : "", p->id, err);
		runner_event(r, "malformed_message", p->id[0] ? p->id : p->addr,
			     err);
		runner_peer_drop(r, p, "malformed message");
		return p;
	}
	if (!runner_gate(r, p, &m))
		goto out;
	switch (m.type) {
	case CONTROL_AUTH:
		runner_on_auth(r, p, &m);
		break;
	case CONTROL_PROOF:
		runner_on_proof(r, p, &m);
		break;
	case CONTROL_HELLO:
		p = runner_hello(r, p, &m);
		break;
	case CONTROL_TIME_RESP:
		p->tq_out = 0;
		if (clock_offset_add(&p->ts, m.t1, m.t2, m.t3, t4) == 0)
			p->tq_got++;
		break;
	case CONTROL_RESULT:
		if (!p->in_step || strcmp(m.step, r->cur_step) != 0) {
			node_log("%s: result for step %s ignored (not expected)", p->id, m.step);
			break;
		}
		cJSON_Delete(p->result);
		p->result = m.json;
		m.json = NULL;
		p->in_step = 0;
		break;
	case CONTROL_RESET:
		if (p->role != ROLE_SERVER)
			break;
		cJSON_Delete(p->reset);
		p->reset = m.json;
		m.json = NULL;
		break;
	case CONTROL_PREPARED:
		if (!p->in_step || strcmp(m.step, r->cur_step) != 0) {
			node_log("%s: prepared for step %s ignored (not expected)", p->id, m.step);
			break;
		}
		p->prepared = 1;
		p->prep_at = runner_now();
		p->prep_ready = (unsigned)cJSON_GetNumberValue(
			cJSON_GetObjectItemCaseSensitive(m.json, "ready"));
		p->prep_failed = (unsigned)cJSON_GetNumberValue(
			cJSON_GetObjectItemCaseSensitive(m.json, "failed"));
		break;
	case CONTROL_SERIES:
		runner_series_add(r, m.source, cJSON_Duplicate(m.rec, 1), p);
		break;
	case CONTROL_CLOCK:
		runner_event(r, "clock_step", p->id, m.step);
		node_log("%s: its wall clock stepped %s", p->id, m.step);
		break;
	default:
		snprintf(err, sizeof(err), "unexpected %s from an agent",
			 control_type_name(m.type));
		r->malformed++;
		node_log("closing connection from %s: %s", p->id, err);
		runner_event(r, "malformed_message", p->id, err);
		runner_peer_drop(r, p, "unexpected message type");
		break;
	}
out:
	control_msg_free(&m);
	return p;
}

/* The numeric address of ss into out (len bytes); "" for another
 * family. */
static void runner_addr_str(const struct sockaddr_storage *ss, char *out,
			    size_t len)
{
	out[0] = 0;
	if (ss->ss_family == AF_INET)
		inet_ntop(AF_INET, &((const struct sockaddr_in *)ss)->sin_addr,
			  out, (socklen_t)len);
	else if (ss->ss_family == AF_INET6)
		inet_ntop(AF_INET6,
			  &((const struct sockaddr_in6 *)ss)->sin6_addr, out,
			  (socklen_t)len);
}

/* A free slot (reused or new), or NULL at RUNNER_MAX_PEERS. */
static struct rpeer *runner_slot(struct runner *r)
{
	struct rpeer *p = NULL;
	int i;

	for (i = 0; i < r->npeers && !p; i++)
		if (r->peers[i].state == RP_FREE)
			p = &r->peers[i];
	if (!p && r->npeers < RUNNER_MAX_PEERS) {
		p = &r->peers[r->npeers++];
		memset(p, 0, sizeof(*p));
	}
	if (!p)
		return NULL;
	cJSON_Delete(p->host);
	cJSON_Delete(p->workloads);
	cJSON_Delete(p->result);
	cJSON_Delete(p->reset);
	memset(p, 0, sizeof(*p));
	return p;
}

static int runner_count_new(struct runner *r)
{
	int i, n = 0;

	for (i = 0; i < r->npeers; i++)
		n += r->peers[i].state == RP_NEW;
	return n;
}

/* Out of descriptors: the pending connection would keep the listener
 * readable and the loop spinning.  The spare descriptor kept for this
 * makes room to accept it and close it at once.  Returns -1. */
static int runner_shed(struct runner *r)
{
	int fd;

	if (r->spare_fd < 0)
		return -1;
	close(r->spare_fd);
	fd = accept4(r->lfd, NULL, NULL, SOCK_CLOEXEC);
	if (fd >= 0)
		close(fd);
	r->spare_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	node_log("out of file descriptors: a connection was refused");
	return -1;
}

static void runner_accept(struct runner *r)
{
	struct sockaddr_storage ss, ls;
	socklen_t sl, ll;
	struct rpeer *p;
	char a[64];
	int fd;

	for (;;) {
		sl = sizeof(ss);
		ll = sizeof(ls);
		fd = accept4(r->lfd, (struct sockaddr *)&ss, &sl,
			     SOCK_CLOEXEC);
		if (fd < 0 && (errno == EMFILE || errno == ENFILE))
			fd = runner_shed(r);
		if (fd < 0)
			return;
		p = runner_count_new(r) < RUNNER_MAX_NEW ? runner_slot(r) :
		    NULL;
		if (!p) {
			runner_addr_str(&ss, a, sizeof(a));
			node_log("refused %s: too many connections waiting for a hello", a);
			close(fd);
			continue;
		}
		control_conn_init(&p->c, fd);
		p->state = RP_NEW;
		p->since_mono = util_mono_ns();
		runner_addr_str(&ss, p->addr, sizeof(p->addr));
		if (getsockname(fd, (struct sockaddr *)&ls, &ll) == 0)
			runner_addr_str(&ls, p->local, sizeof(p->local));
	}
}

/* Connections that have not said hello in time, or sent too much
 * without one, are refused. */
static void runner_reap_new(struct runner *r)
{
	uint64_t now = util_mono_ns();
	int i;

	for (i = 0; i < r->npeers; i++) {
		struct rpeer *p = &r->peers[i];

		if (p->state == RP_READY && p->c.rx_bytes > RUNNER_PEER_BYTES)
			runner_refuse(r, p, "over its 256 MiB byte budget for a run");
		if (p->state != RP_NEW)
			continue;
		if (now - p->since_mono > RUNNER_HELLO_S * 1000000000ull)
			runner_refuse(r, p, "no hello within 5 s");
		else if (p->c.rx_bytes > RUNNER_PREHELLO_BYTES)
			runner_refuse(r, p, "over 64 KiB before hello");
	}
}

/* A step of the controller's wall clock during a run is recorded: the
 * result's times are on that clock (agents' deadlines are monotonic). */
static void runner_watch_clock(struct runner *r)
{
	char why[64];
	int64_t step;

	if (!util_clock_stepped(&r->clock, 50000000, &step))
		return;
	util_fmt_step(why, sizeof(why), step);
	node_log("the wall clock stepped %s during the run", why);
	runner_event(r, "clock_step", r->o->id, why);
}

/* A message over CONTROL_MAX_MSG ends p's connection: counted, logged. */
static void runner_oversize(struct runner *r, struct rpeer *p)
{
	char why[80];

	snprintf(why, sizeof(why), "message over %u bytes", CONTROL_MAX_MSG);
	r->malformed++;
	node_log("closing connection from %s: %s", p->addr, why);
	runner_event(r, "malformed_message", p->id[0] ? p->id : p->addr, why);
	runner_peer_drop(r, p, why);
}

/* Services peer p's connection for the poll events in revents: flushes
 * what is queued, reads and handles every whole message. */
static void runner_serve_peer(struct runner *r, struct rpeer *p,
			      short revents)
{
	const char *line;
	size_t len;
	int rc, lr;

	if (revents & POLLOUT) {
		rc = control_conn_flush(&p->c);
		if (rc != 0) {
			runner_peer_drop(r, p, strerror(-rc));
			return;
		}
	}
	if (!(revents & (POLLIN | POLLHUP | POLLERR)))
		return;
	rc = control_conn_read(&p->c);
	if (p->state == RP_NEW && p->c.rx_bytes > RUNNER_PREHELLO_BYTES) {
		/* Checked before any line is parsed: a stranger's bytes
		 * beyond the budget are never looked at. */
		runner_refuse(r, p, "over 64 KiB before hello");
		return;
	}
	while (p->c.fd >= 0 && (lr = control_conn_line(&p->c, &line, &len)) != 0) {
		if (lr == -EBADMSG) {
			runner_refuse(r, p, "a line failed its lab key tag (forged, altered or replayed)");
			break;
		}
		if (lr < 0) {
			runner_oversize(r, p);
			break;
		}
		p = runner_handle(r, p, line, len);
	}
	if (rc != 0 && p->c.fd >= 0 && p->state == RP_NEW && p->nonce_c[0] &&
	    !p->authed)
		/* An agent whose key differs finds our proof wrong and
		 * leaves without one of its own. */
		runner_refuse(r, p, "left the key handshake: a wrong lab key");
	else if (rc != 0 && p->c.fd >= 0)
		runner_peer_drop(r, p, rc == -EPIPE ? "connection closed" :
				 strerror(-rc));
}

/* Services every socket for up to ms milliseconds (one poll round): the
 * listener (who -1), the local series (who -2 - i) and every peer. */
static void runner_pump(struct runner *r, int ms)
{
	struct pollfd *pf;
	int *who, n = 0, i;

	peer_poll();
	runner_watch_clock(r);
	pf = calloc((size_t)r->npeers + 4, sizeof(*pf));
	who = calloc((size_t)r->npeers + 4, sizeof(*who));
	if (!pf || !who)
		goto sleep;
	pf[n].fd = r->lfd;
	pf[n].events = POLLIN;
	who[n++] = -1;
	for (i = 0; i < r->nlocal_series; i++) {
		pf[n].fd = r->local_series[i].fd;
		pf[n].events = POLLIN;
		who[n++] = -2 - i;
	}
	for (i = 0; i < r->npeers; i++) {
		struct rpeer *p = &r->peers[i];

		if ((p->state != RP_NEW && p->state != RP_READY) ||
		    p->c.fd < 0)
			continue;
		pf[n].fd = p->c.fd;
		pf[n].events = POLLIN | (control_conn_pending(&p->c) ? POLLOUT : 0);
		who[n++] = i;
	}
	if (poll(pf, (nfds_t)n, ms) <= 0)
		goto reap;
	for (i = 0; i < n; i++) {
		if (!pf[i].revents)
			continue;
		if (who[i] == -1)
			runner_accept(r);
		else if (who[i] < -1)
			series_read(&r->local_series[-2 - who[i]],
				    runner_local_series_cb, r);
		else
			runner_serve_peer(r, &r->peers[who[i]],
					  pf[i].revents);
	}
reap:
	runner_reap_new(r);
	free(pf);
	free(who);
	return;
sleep:
	free(pf);
	free(who);
	usleep((useconds_t)ms * 1000);
}

static int runner_count(struct runner *r, enum role role)
{
	int i, n = 0;

	for (i = 0; i < r->npeers; i++)
		if (r->peers[i].state == RP_READY &&
		    r->peers[i].role == role)
			n++;
	return n;
}

/* NTP-style exchanges with every ready agent until each has answered want
 * times (one request in flight per agent), or timeout. */
static void runner_sync(struct runner *r, unsigned want, int timeout_ms)
{
	uint64_t end = util_mono_ns() + (uint64_t)timeout_ms * 1000000u;
	int i, pending;

	for (i = 0; i < r->npeers; i++)
		r->peers[i].tq_got = 0;
	do {
		pending = 0;
		for (i = 0; i < r->npeers; i++) {
			struct rpeer *p = &r->peers[i];
			cJSON *q;

			if (p->state != RP_READY || p->tq_got >= want)
				continue;
			pending++;
			if (p->tq_out)
				continue;
			q = control_msg_new(CONTROL_TIME_REQ);
			if (!q)
				continue;
			cJSON_AddNumberToObject(q, "seq", (double)p->ts.n);
			json_int_add(q, "t1", runner_now());
			if (control_conn_send(&p->c, q) == 0)
				p->tq_out = 1;
			else
				runner_peer_drop(r, p, "send failed");
			cJSON_Delete(q);
		}
		if (pending)
			runner_pump(r, 2);
	} while (pending && util_mono_ns() < end && !*r->stop);
}

static int64_t runner_offset(const struct rpeer *p, int64_t *rtt)
{
	struct clock_offset_sample b = { 0 };

	clock_offset_best(&p->ts, &b);
	if (rtt)
		*rtt = b.rtt;
	return b.offset;
}

/* --- steps ----------------------------------------------------------- */

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

static struct rpeer *runner_server(struct runner *r)
{
	int i;

	for (i = 0; i < r->npeers; i++)
		if (r->peers[i].state == RP_READY &&
		    r->peers[i].role == ROLE_SERVER)
			return &r->peers[i];
	return NULL;
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
static void runner_relay_early(struct runner *r)
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
	runner_relay_point(r, sink, runner_server(r));
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

/* Plan: the ready clients, sorted by id, and each one's processes.
 * Returns 0, or -ENOENT when the repeat must be skipped (reason in
 * rr->rep). */
static int runner_plan(struct runner *r, struct runner_rep *rr)
{
	const struct suite_step *st = rr->st;
	struct runner_lookup lk = { .r = r, .st = st };
	struct rpeer *srv = runner_server(r);
	char why[700];
	unsigned j;
	int i;

	for (i = 0; i < r->npeers; i++)
		if (r->peers[i].state == RP_READY &&
		    r->peers[i].role == ROLE_CLIENT)
			rr->cl[rr->ncl++] = &r->peers[i];
	qsort(rr->cl, (size_t)rr->ncl, sizeof(rr->cl[0]), runner_cmp_peer);
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
	struct rpeer *srv = runner_server(r);
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
		runner_peer_drop(r, c, "send failed");
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
	int64_t t0 = runner_now(), worst = 0;
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
		runner_pump(r, 20);
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
				runner_event(r, "prepare_failed", c->id,
					     r->cur_step);
			continue;
		}
		cJSON_AddStringToObject(pr, "error", "not prepared within " RUNNER_PREPARE_STR " s: aborted");
		runner_event(r, "prepare_timeout", c->id, r->cur_step);
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

	runner_sync(r, 8, 2000);
	lead = 300000000ll + (int64_t)rr->ncl * 3000000ll;
	rr->start = runner_now() + lead;
	r->step_start = rr->start;
	rr->end = rr->start + (int64_t)rr->st->warmup_ns +
		  (int64_t)rr->st->duration_ns;
	json_int_add(rr->rep, "start_ns", rr->start);
	for (i = 0; i < rr->ncl; i++) {
		struct rpeer *c = rr->cl[i];

		if (!c->in_step || c->state != RP_READY)
			continue;
		ce = cJSON_GetArrayItem(rr->clients, i);
		off = runner_offset(c, &rtt);
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
			runner_peer_drop(r, c, "send failed");
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
		       runner_now();
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
		if (!waiting || util_mono_ns() > deadline || *r->stop)
			break;
		runner_pump(r, 50);
		if (util_mono_ns() > next_sync) {
			runner_sync(r, 1, 100);
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
	int64_t off = runner_offset(c, NULL);
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
		runner_event(r, "client_missing", c->id,
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
	int64_t left = end + RUNNER_SERIES_SETTLE_NS - runner_now();
	int64_t s, p;

	until += left > 0 ? (uint64_t)left : 0;
	while (util_mono_ns() < until && !*r->stop) {
		s = r->series_newest[0];
		p = r->series_newest[1];
		if ((s == 0 || s > end) &&
		    (p == 0 || p > end - RUNNER_SERIES_PERIOD_NS))
			break;
		runner_pump(r, 50);
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
		runner_event(r, "step_incomplete", NULL, err);
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
	if (want <= 0 || runner_count(r, ROLE_CLIENT) >= want)
		return;
	node_log("waiting up to %d s for %d lost client(s) to come back", RUNNER_REJOIN_S, want - runner_count(r, ROLE_CLIENT));
	while (runner_count(r, ROLE_CLIENT) < want &&
	       util_mono_ns() < until && !*r->stop)
		runner_pump(r, 50);
	if (runner_count(r, ROLE_CLIENT) < want)
		runner_event(r, "clients_not_back", NULL, r->cur_step);
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
	r->rep_end = runner_now();
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

static cJSON *runner_environment(struct runner *r);

/* The result so far, marked partial, written atomically to the spool's
 * partial/ after every repeat: a controller that dies loses at most the
 * repeat in progress (its next start uploads what is there).  A failure
 * is logged, never fatal: the run goes on. */
static void runner_checkpoint(struct runner *r)
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

/* Cool-down: the server settles, agents stay serviced. */
static void runner_cooldown(struct runner *r, uint64_t ns)
{
	uint64_t until = util_mono_ns() + ns;

	while (util_mono_ns() < until && !*r->stop)
		runner_pump(r, 50);
}

/* What is left of a cool-down of ns after the last repeat's load ended
 * (collecting its results and series took some of it). */
static uint64_t runner_cool_left(const struct runner *r, uint64_t ns)
{
	int64_t left = r->rep_end + (int64_t)ns - runner_now();

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
	runner_event(r, "step_skipped", NULL, w);
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
	struct rpeer *srv = runner_server(r);
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
				runner_pump(r, 20);
		}
		cJSON_Delete(m);
		if (!srv->reset) {
			cJSON_AddStringToObject(rs, "not_reset", "the server agent did not answer the reset");
			runner_event(r, "server_reset_failed", srv->id, r->cur_step);
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
		runner_event(r, "server_reset_failed", NULL, r->cur_step);
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
		node_status("step %s, repeat %u/%u; %d clients; %u/%u done, about %llu s left", name, rep, st->repeats, runner_count(r, ROLE_CLIENT), r->rep_done, r->rep_total, (unsigned long long)(r->left_ns / 1000000000ull));
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
		runner_checkpoint(r);
		runner_cooldown(r, runner_cool_left(r, st->cooldown_ns));
	}
	cJSON_AddNumberToObject(so, "complete_repeats", ncomplete);
	result_step_stats(cJSON_AddObjectToObject(so, "merged"),
			  cJSON_AddObjectToObject(so, "stats"), &all, per_rep);
	result_merge_free(&all);
	cJSON_Delete(per_rep);
	r->cur_step[0] = 0;
}

/* --- result document ------------------------------------------------- */

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
static void runner_resume_id(struct runner *r, char *id, size_t len)
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
	/* The suite object as runner_doc_head() will write it. */
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
static void runner_resume_note(struct runner *r)
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
	runner_event(r, "resumed", NULL, d);
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
	for (i = 0; i < r->npeers; i++)
		if (r->peers[i].state == RP_READY ||
		    r->peers[i].state == RP_LOST)
			cJSON_AddItemToArray(hosts,
					     runner_peer_host(&r->peers[i]));
	return env;
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
		if (*r->stop || (o->upload_deadline_ns > 0 &&
				 util_mono_ns() - start + backoff >
				 (uint64_t)o->upload_deadline_ns)) {
			node_log("upload deadline reached; result(s) stay in %s/pending for the next start", o->spool);
			return 3;
		}
		runner_cooldown(r, backoff);
		backoff = backoff * 2 > 30000000000ull ? 30000000000ull :
			  backoff * 2;
	}
}

/* --- the run --------------------------------------------------------- */

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

/* A local server watches for another controller of its lab with a lower
 * id (peer.h); finding one, it yields. */
static int runner_should_yield(struct runner *r)
{
	const struct runner_opts *o = r->o;

	if (!r->yielding && o->local_server && o->yield_to &&
	    peer_watch_lower(o->id, o->lab, o->yield_to, o->yield_len) == 0)
		r->yielding = 1;
	return r->yielding;
}

/* Waits for the suite's (or --peers') clients and servers, or the wait
 * time.  Returns the result's "peers" object. */
static cJSON *runner_wait_peers(struct runner *r)
{
	const struct runner_opts *o = r->o;
	int want_cl = o->peers >= 0 ? o->peers : (int)r->suite.clients;
	int want_srv = o->local_server || suite_var(&r->suite, "server") ?
		       0 : (int)r->suite.servers;
	uint64_t wait_ns = o->wait_ns >= 0 ? (uint64_t)o->wait_ns :
			   r->suite.wait_ns, t0 = util_mono_ns();
	cJSON *peers = cJSON_CreateObject();
	int ncl, nsrv, short_;
	char err[256];

	node_log("waiting up to %.0f s for %d client(s) and %d server(s)", (double)wait_ns / 1e9, want_cl, want_srv);
	if (o->local_server && o->yield_to)
		peer_watch_start();
	while (!*r->stop && (runner_count(r, ROLE_CLIENT) < want_cl ||
			     runner_count(r, ROLE_SERVER) < want_srv) &&
	       util_mono_ns() - t0 < wait_ns) {
		node_status("waiting for peers: %d/%d clients, %d/%d servers", runner_count(r, ROLE_CLIENT), want_cl, runner_count(r, ROLE_SERVER), want_srv);
		runner_pump(r, 100);
		if (runner_should_yield(r))
			break;
	}
	peer_watch_stop();
	ncl = runner_count(r, ROLE_CLIENT);
	nsrv = runner_count(r, ROLE_SERVER);
	short_ = ncl < want_cl || nsrv < want_srv;
	cJSON_AddNumberToObject(peers, "clients_wanted", want_cl);
	cJSON_AddNumberToObject(peers, "clients_found", ncl);
	cJSON_AddNumberToObject(peers, "servers_wanted", want_srv);
	cJSON_AddNumberToObject(peers, "servers_found", nsrv);
	cJSON_AddNumberToObject(peers, "waited_s",
				(double)(util_mono_ns() - t0) / 1e9);
	cJSON_AddBoolToObject(peers, "timed_out", short_);
	if (short_) {
		snprintf(err, sizeof(err), "have %d of %d clients, %d of %d servers", ncl, want_cl, nsrv, want_srv);
		node_log("peer wait timed out: %s; going on", err);
		runner_event(r, "peer_wait_timeout", NULL, err);
	}
	return peers;
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
	struct rpeer *srv = runner_server(r);
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

/* The document's head: schema, id, created, tool, controller, suite. */
static void runner_doc_head(struct runner *r, const char *id)
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

/* Every step of the suite, each concurrency of a sweep as its own. */
static void runner_run_steps(struct runner *r, cJSON *steps)
{
	const struct suite_step *st;
	unsigned si, ci, n;

	for (si = 0; si < r->suite.nsteps; si++) {
		st = &r->suite.steps[si];
		n = st->repeats * (st->nconc ? st->nconc : 1);
		r->rep_total += n;
		r->left_ns += n * runner_planned_ns(st);
	}
	for (si = 0; si < r->suite.nsteps && !*r->stop; si++) {
		st = &r->suite.steps[si];
		if (st->nconc == 0)
			runner_step(r, st, 0, steps);
		for (ci = 0; ci < st->nconc && !*r->stop; ci++)
			runner_step(r, st, st->conc[ci], steps);
	}
}

/* The document's tail: environment, skew, the controller's own usage and
 * the events. */
static void runner_doc_tail(struct runner *r)
{
	struct rusage ru;
	cJSON *c;

	cJSON_AddItemToObject(r->doc, "environment", runner_environment(r));
	result_skew_summary(r->doc);
	if (*r->stop)
		runner_event(r, "interrupted", NULL, "signal");
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
static int runner_deliver(struct runner *r, const char *id)
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
	peers = runner_wait_peers(&r);
	if (r.yielding) {
		cJSON_Delete(peers);
		status = RUNNER_YIELD;
		goto out;
	}
	runner_identify(&r);
	runner_relay_early(&r);
	/* Initial clock estimate: many exchanges, best one wins. */
	runner_sync(&r, 32, 5000);
	runner_resume_id(&r, id, sizeof(id));
	runner_doc_head(&r, id);
	runner_resume_note(&r);
	cJSON_AddItemToObject(r.doc, "peers", peers);
	runner_run_steps(&r, cJSON_AddArrayToObject(r.doc, "steps"));
	runner_doc_tail(&r);
	status = runner_deliver(&r, id);
out:
	runner_teardown(&r);
	return status;
}
