/* controller/runner_peers.c: the controller's agents: accepting them (the
 * lab key handshake, hello, the limits against hostile peers), the poll
 * loop every wait of a run goes round, waiting for peers, clock sync. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "controller/runner_peers.h"
#include "controller/runner_handover.h"
#include "lib/json_int.h"
#include "node/peer.h"

/* A connection must say hello within this, in at most this many bytes
 * (a hello is under 1 KiB; the controller buffers no more than this for
 * it either); and only so many may be waiting to: a slow or silent peer
 * holds one slot for a few seconds and 8 KiB, never the controller. */
#define RUNNER_HELLO_S 5
#define RUNNER_PREHELLO_BYTES (8u << 10)
#define RUNNER_PREHELLO_WHY "over 8 KiB before hello"
#define RUNNER_MAX_NEW 64
/* The ceilings of what one agent may send over a whole run, and of the
 * series records one server may add; each agent's own budget is sized
 * from the suite below them (runner_peers_budget). */
#define RUNNER_PEER_BYTES (256ull << 20)
#define RUNNER_PEER_SERIES 400000
/* For that sizing: a repeat's set-up, result collection and clock sync
 * beyond its planned time; the series records a server sends a second
 * (the sampler and the probe send one or two; ten is room to spare); the
 * bytes one series record takes at most (a sampler record following a
 * few dozen processes is about 2 KiB); what an agent sends besides
 * results and series (hello, clock sync, prepared); and per repeat, one
 * result at the protocol's limit plus the small messages around it. */
#define RUNNER_REPEAT_SLACK_NS 60000000000ull
#define RUNNER_SERIES_HZ 10
#define RUNNER_SERIES_REC_BYTES 8192
#define RUNNER_BASE_BYTES (1ull << 20)
#define RUNNER_REPEAT_BYTES ((uint64_t)CONTROL_MAX_MSG + (64u << 10))

uint64_t runner_peers_budget(const struct suite *s, enum role role,
			     uint64_t *series)
{
	uint64_t run_ns = s->wait_ns, reps = 0, bytes, rec;
	unsigned i;

	for (i = 0; i < s->nsteps; i++) {
		const struct suite_step *st = &s->steps[i];
		uint64_t n = (uint64_t)st->repeats * (st->nconc ? st->nconc : 1);
		uint64_t load = st->warmup_ns + st->duration_ns;

		/* A repeat may run to its time limit (sql-ops does fixed
		 * work), not only its planned time. */
		if (st->limit_ns > load)
			load = st->limit_ns;
		reps += n;
		run_ns += n * (load + st->cooldown_ns + RUNNER_REPEAT_SLACK_NS);
	}
	rec = RUNNER_SERIES_HZ * (run_ns / 1000000000ull) + 1000;
	if (rec > RUNNER_PEER_SERIES)
		rec = RUNNER_PEER_SERIES;
	bytes = RUNNER_BASE_BYTES + reps * RUNNER_REPEAT_BYTES;
	/* Only a server sends series (its sampler and probe). */
	if (role == ROLE_SERVER)
		bytes += rec * RUNNER_SERIES_REC_BYTES;
	if (bytes > RUNNER_PEER_BYTES)
		bytes = RUNNER_PEER_BYTES;
	if (series)
		*series = role == ROLE_SERVER ? rec : 0;
	return bytes;
}

int64_t runner_peers_now(void)
{
	return (int64_t)util_real_ns();
}

void runner_peers_event(struct runner *r, const char *type, const char *id,
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
	json_int_add(e, "t_ns", runner_peers_now());
	cJSON_AddStringToObject(e, "type", type);
	if (id)
		cJSON_AddStringToObject(e, "id", id);
	if (r->cur_step[0])
		cJSON_AddStringToObject(e, "step", r->cur_step);
	if (detail)
		cJSON_AddStringToObject(e, "detail", detail);
	cJSON_AddItemToArray(r->events, e);
}

void runner_peers_drop(struct runner *r, struct rpeer *p,
		       const char *why)
{
	if (p->state == RP_READY) {
		node_log("lost %s %s (%s)", role_name(p->role), p->id, why);
		runner_peers_event(r, "agent_lost", p->id, why);
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
	runner_peers_event(r, "refused", p->addr, why);
	runner_peers_drop(r, p, why);
}

static void runner_series_add(struct runner *r, const char *source,
			      cJSON *rec, struct rpeer *from)
{
	struct clock_offset_sample best = { 0 };
	const cJSON *t = NULL;
	int64_t at = runner_peers_now();
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
	if (from && ++from->nseries > from->series_budget) {
		if (from->nseries == from->series_budget + 1) {
			char why[128];

			snprintf(why, sizeof(why), "over its budget of %llu series records for this run: the rest are dropped", (unsigned long long)from->series_budget);
			node_log("%s: %s", from->id, why);
			runner_peers_event(r, "over_budget", from->id, why);
		}
		goto drop;
	}
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
		runner_peers_event(r, "malformed_message", p->id,
				   "second hello");
		runner_peers_drop(r, p, "second hello on one connection");
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
		runner_peers_event(r, "agent_rejoined", m->id, NULL);
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
	/* Joined: whole messages now, within a budget for the run sized
	 * from the suite and the agent's role. */
	control_conn_limit(&p->c, 0);
	p->byte_budget = runner_peers_budget(&r->suite, p->role,
					     &p->series_budget);
	cJSON_Delete(p->host);
	cJSON_Delete(p->workloads);
	p->host = cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(m->json,
								   "host"), 1);
	w = cJSON_GetObjectItemCaseSensitive(m->json, "workloads");
	p->workloads = w ? cJSON_Duplicate(w, 1) : cJSON_CreateArray();
	p->state = RP_READY;
	p->tq_out = 0;
	if (!old)
		runner_peers_event(r, "agent_joined", p->id,
				   role_name(p->role));
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
	runner_peers_event(r, "malformed_message", p->addr, why);
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
	int64_t t4 = runner_peers_now();

	if (control_msg_parse(line, len, &m, err, sizeof(err)) != 0) {
		r->malformed++;
		node_log("closing connection from %s%s%s: malformed message: %s", p->addr, p->id[0] ? " " : "", p->id, err);
		runner_peers_event(r, "malformed_message",
				   p->id[0] ? p->id : p->addr, err);
		runner_peers_drop(r, p, "malformed message");
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
		p->prep_at = runner_peers_now();
		p->prep_ready = (unsigned)cJSON_GetNumberValue(
			cJSON_GetObjectItemCaseSensitive(m.json, "ready"));
		p->prep_failed = (unsigned)cJSON_GetNumberValue(
			cJSON_GetObjectItemCaseSensitive(m.json, "failed"));
		break;
	case CONTROL_SERIES:
		runner_series_add(r, m.source, cJSON_Duplicate(m.rec, 1), p);
		break;
	case CONTROL_CLOCK:
		runner_peers_event(r, "clock_step", p->id, m.step);
		node_log("%s: its wall clock stepped %s", p->id, m.step);
		break;
	default:
		snprintf(err, sizeof(err), "unexpected %s from an agent",
			 control_type_name(m.type));
		r->malformed++;
		node_log("closing connection from %s: %s", p->id, err);
		runner_peers_event(r, "malformed_message", p->id, err);
		runner_peers_drop(r, p, "unexpected message type");
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

	/* At RUNNER_MAX_NEW the rest wait in the kernel's listen queue (the
	 * listener is not polled meanwhile) until hellos free slots: 256
	 * agents that hear the controller's announcement at once dial at
	 * once, and refusing all but 64 cost them backed-off retries (402
	 * refusals, the last join 8.8 s after the controller's start). */
	while (runner_count_new(r) < RUNNER_MAX_NEW) {
		sl = sizeof(ss);
		ll = sizeof(ls);
		fd = accept4(r->lfd, (struct sockaddr *)&ss, &sl,
			     SOCK_CLOEXEC);
		if (fd < 0 && (errno == EMFILE || errno == ENFILE))
			fd = runner_shed(r);
		if (fd < 0)
			return;
		p = runner_slot(r);
		if (!p) {
			runner_addr_str(&ss, a, sizeof(a));
			node_log("refused %s: no room for another peer", a);
			close(fd);
			continue;
		}
		control_conn_init(&p->c, fd);
		control_conn_limit(&p->c, RUNNER_PREHELLO_BYTES);
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

		if (p->state == RP_READY && p->c.rx_bytes > p->byte_budget) {
			char why[96];

			snprintf(why, sizeof(why), "over its byte budget for this run (%llu KiB)", (unsigned long long)(p->byte_budget >> 10));
			runner_refuse(r, p, why);
		}
		if (p->state != RP_NEW)
			continue;
		if (now - p->since_mono > RUNNER_HELLO_S * 1000000000ull)
			runner_refuse(r, p, "no hello within 5 s");
		else if (p->c.rx_bytes > RUNNER_PREHELLO_BYTES)
			runner_refuse(r, p, RUNNER_PREHELLO_WHY);
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
	runner_peers_event(r, "clock_step", r->o->id, why);
}

/* A message over CONTROL_MAX_MSG ends p's connection: counted, logged. */
static void runner_oversize(struct runner *r, struct rpeer *p)
{
	char why[80];

	snprintf(why, sizeof(why), "message over %u bytes", CONTROL_MAX_MSG);
	r->malformed++;
	node_log("closing connection from %s: %s", p->addr, why);
	runner_peers_event(r, "malformed_message",
			   p->id[0] ? p->id : p->addr, why);
	runner_peers_drop(r, p, why);
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
			runner_peers_drop(r, p, strerror(-rc));
			return;
		}
	}
	if (!(revents & (POLLIN | POLLHUP | POLLERR)))
		return;
	/* A connection without hello has at most RUNNER_PREHELLO_BYTES
	 * (plus one) unread (control_conn_limit): its lines are parsed
	 * first, as an agent may send its first records right behind its
	 * hello and one read can take both; only then does what it sent
	 * without a hello count against the pre-hello budget. */
	rc = control_conn_read(&p->c);
	while (p->c.fd >= 0 && (lr = control_conn_line(&p->c, &line, &len)) != 0) {
		if (lr == -EBADMSG) {
			runner_refuse(r, p, "a line failed its lab key tag (forged, altered or replayed)");
			break;
		}
		if (lr < 0 && p->state == RP_NEW) {
			runner_refuse(r, p, RUNNER_PREHELLO_WHY);
			break;
		}
		if (lr < 0) {
			runner_oversize(r, p);
			break;
		}
		p = runner_handle(r, p, line, len);
	}
	if (p->c.fd >= 0 && p->state == RP_NEW &&
	    p->c.rx_bytes > RUNNER_PREHELLO_BYTES) {
		runner_refuse(r, p, RUNNER_PREHELLO_WHY);
		return;
	}
	if (rc != 0 && p->c.fd >= 0 && p->state == RP_NEW && p->nonce_c[0] &&
	    !p->authed)
		/* An agent whose key differs finds our proof wrong and
		 * leaves without one of its own. */
		runner_refuse(r, p, "left the key handshake: a wrong lab key");
	else if (rc != 0 && p->c.fd >= 0)
		runner_peers_drop(r, p, rc == -EPIPE ? "connection closed" :
				  strerror(-rc));
}

/* Services every socket for up to ms milliseconds (one poll round): the
 * listener (who -1), the local series (who -2 - i) and every peer. */
void runner_peers_pump(struct runner *r, int ms)
{
	struct pollfd *pf;
	int *who, n = 0, i;

	peer_poll();
	runner_watch_clock(r);
	pf = calloc((size_t)r->npeers + 4, sizeof(*pf));
	who = calloc((size_t)r->npeers + 4, sizeof(*who));
	if (!pf || !who)
		goto sleep;
	/* Full of connections waiting for a hello: the listener waits. */
	pf[n].fd = runner_count_new(r) < RUNNER_MAX_NEW ? r->lfd : -1;
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

int runner_peers_count(struct runner *r, enum role role)
{
	int i, n = 0;

	for (i = 0; i < r->npeers; i++)
		if (r->peers[i].state == RP_READY &&
		    r->peers[i].role == role)
			n++;
	return n;
}

/* Exchanges in flight at once.  A controller that asks every agent at
 * once reads the answers one behind the other, so each answer's arrival
 * (t4) carries the queue and no sample is clean: 256 agents on one host,
 * whose true offsets are all 0, were estimated 0-6.6 ms off, and each
 * error is a client starting that much early or late.  A few at a time
 * leaves both ends idle enough for the minimum-rtt sample to be exact.
 * A request unanswered for RUNNER_SYNC_STALL_NS stops holding its place
 * (a stuck agent must not stall the others' sync). */
#define RUNNER_SYNC_INFLIGHT 4
#define RUNNER_SYNC_STALL_NS 100000000ull

/* Asks p for one sample; 0, or -1 when p was dropped. */
static int runner_sync_ask(struct runner *r, struct rpeer *p)
{
	cJSON *q = control_msg_new(CONTROL_TIME_REQ);

	if (!q)
		return 0;
	cJSON_AddNumberToObject(q, "seq", (double)p->ts.n);
	json_int_add(q, "t1", runner_peers_now());
	if (control_conn_send(&p->c, q) == 0) {
		p->tq_out = 1;
		p->tq_sent = util_mono_ns();
	} else {
		runner_peers_drop(r, p, "send failed");
	}
	cJSON_Delete(q);
	return p->state == RP_READY ? 0 : -1;
}

/* NTP-style exchanges with every ready agent until each has answered want
 * times, RUNNER_SYNC_INFLIGHT at a time, in turn, or timeout. */
void runner_peers_sync(struct runner *r, unsigned want, int timeout_ms)
{
	uint64_t end = util_mono_ns() + (uint64_t)timeout_ms * 1000000u;
	uint64_t now;
	int i, k, pending, busy, next = 0;

	for (i = 0; i < r->npeers; i++)
		r->peers[i].tq_got = 0;
	do {
		now = util_mono_ns();
		pending = busy = 0;
		for (i = 0; i < r->npeers; i++) {
			struct rpeer *p = &r->peers[i];

			if (p->state != RP_READY || p->tq_got >= want)
				continue;
			pending++;
			busy += p->tq_out &&
				now - p->tq_sent < RUNNER_SYNC_STALL_NS;
		}
		/* In turn from where the last round stopped: every agent's
		 * samples are spread over the sync, none waits for another's
		 * want to be met. */
		for (k = 0; k < r->npeers && busy < RUNNER_SYNC_INFLIGHT;
		     k++) {
			struct rpeer *p = &r->peers[(next + k) % r->npeers];

			if (p->state != RP_READY || p->tq_got >= want ||
			    p->tq_out)
				continue;
			if (runner_sync_ask(r, p) == 0)
				busy++;
		}
		if (r->npeers)
			next = (next + k) % r->npeers;
		if (pending)
			runner_peers_pump(r, 2);
	} while (pending && util_mono_ns() < end && !*r->stop);
}

int64_t runner_peers_offset(const struct rpeer *p, int64_t *rtt)
{
	struct clock_offset_sample b = { 0 };

	clock_offset_best(&p->ts, &b);
	if (rtt)
		*rtt = b.rtt;
	return b.offset;
}

struct rpeer *runner_peers_server(struct runner *r)
{
	int i;

	for (i = 0; i < r->npeers; i++)
		if (r->peers[i].state == RP_READY &&
		    r->peers[i].role == ROLE_SERVER)
			return &r->peers[i];
	return NULL;
}

/* A cool-down lets the server settle, an upload back-off waits: the
 * agents stay serviced meanwhile. */
void runner_peers_serve_for(struct runner *r, uint64_t ns)
{
	uint64_t until = util_mono_ns() + ns;

	while (util_mono_ns() < until && !*r->stop)
		runner_peers_pump(r, 50);
}

/* A local server watches for another controller of its lab with a lower
 * id; finding one (in a keyed lab: one that proves the key,
 * runner_handover.h), it yields. */
static int runner_should_yield(struct runner *r)
{
	const struct runner_opts *o = r->o;

	if (!r->yielding && o->local_server && o->yield_to &&
	    runner_handover_check(o))
		r->yielding = 1;
	return r->yielding;
}

/* Waits for the suite's (or --peers') clients and servers, or the wait
 * time.  Returns the result's "peers" object. */
cJSON *runner_peers_wait(struct runner *r)
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
		runner_handover_start(o);
	while (!*r->stop && (runner_peers_count(r, ROLE_CLIENT) < want_cl ||
			     runner_peers_count(r, ROLE_SERVER) < want_srv) &&
	       util_mono_ns() - t0 < wait_ns) {
		node_status("waiting for peers: %d/%d clients, %d/%d servers", runner_peers_count(r, ROLE_CLIENT), want_cl, runner_peers_count(r, ROLE_SERVER), want_srv);
		runner_peers_pump(r, 100);
		if (runner_should_yield(r))
			break;
	}
	runner_handover_stop();
	ncl = runner_peers_count(r, ROLE_CLIENT);
	nsrv = runner_peers_count(r, ROLE_SERVER);
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
		runner_peers_event(r, "peer_wait_timeout", NULL, err);
	}
	return peers;
}
