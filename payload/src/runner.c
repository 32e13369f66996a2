/* runner.c: the controller role: a single-threaded poll loop that accepts
 * agents and, written as straight-line code around runner_pump(), waits for
 * peers, synchronises clocks, runs every step at an absolute start time,
 * merges the clients' records and writes, spools and uploads the result. */
#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "agent.h"
#include "ctl.h"
#include "hist.h"
#include "rstats.h"
#include "runner.h"
#include "spool.h"
#include "suite.h"
#include "tsync.h"
#include "util.h"
#include "version.h"

#define RUNNER_MAX_PEERS 4096

enum { RP_FREE, RP_NEW, RP_READY, RP_LOST };

struct rpeer {
	int state;
	struct ctl_conn c;
	char id[64], role[16];
	char addr[64];		/* the agent's address, as we see it */
	char local[64];		/* our address on this connection */
	cJSON *host, *workloads;
	struct tsync ts;
	int tq_out;		/* a time request is outstanding */
	unsigned tq_got;	/* answers since the last sync began */
	int in_step;		/* waiting for its result */
	cJSON *result;		/* its result for the current step */
	int lost_in_step;
	unsigned idx;		/* client index in the current step */
};

struct series_rec {
	int64_t t;		/* controller clock, ns */
	const char *source;
	cJSON *rec;
};

struct runner {
	struct agent_opts *o;
	volatile sig_atomic_t *stop;
	struct suite suite;
	int lfd;
	struct rpeer *peers;
	int npeers;		/* slots in use (some may be RP_FREE) */
	cJSON *doc, *events, *errors;
	struct agent_series local_series[2];
	int nlocal_series;
	struct series_rec *series;
	size_t nseries, capseries;
	int64_t step_start;	/* controller clock of the current step */
	char cur_step[201];
	uint64_t malformed;
	/* For the status line: repeats done and planned, and the planned
	 * (warm-up + measured + cool-down) time of those not run yet. */
	unsigned rep_done, rep_total;
	uint64_t left_ns;
};

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
	cJSON *e = cJSON_CreateObject();

	if (!e)
		return;
	cJSON_AddNumberToObject(e, "t_ns", (double)runner_now());
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
		agent_log("lost %s %s (%s)", p->role, p->id, why);
		runner_event(r, "agent_lost", p->id, why);
		if (p->in_step)
			p->lost_in_step = 1;
		p->state = RP_LOST;
	} else {
		agent_log("connection from %s closed: %s", p->addr, why);
		p->state = RP_FREE;
	}
	ctl_conn_close(&p->c);
	p->tq_out = 0;
}

static void runner_series_add(struct runner *r, const char *source,
			      cJSON *rec, const struct rpeer *from)
{
	struct tsync_sample best = { 0 };
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
			tsync_best(&from->ts, &best);
		at = (int64_t)t->valuedouble - best.offset;
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
	r->series[r->nseries].t = at;
	r->series[r->nseries].source = strcmp(source, "probe") == 0 ?
				       "probe" : "sample";
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
				  const struct ctl_msg *m)
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
	if (old && old != p) {
		/* Keep the older slot (clock samples, step bookkeeping). */
		if (old->state == RP_READY)
			runner_peer_drop(r, old, "replaced by a new connection"
					 " with the same id");
		runner_event(r, "agent_rejoined", m->id, NULL);
		/* Whatever it ran before is gone with the old connection:
		 * that step is not waited for (lost_in_step stays set). */
		if (old->in_step)
			old->lost_in_step = 1;
		old->in_step = 0;
		ctl_conn_close(&old->c);
		old->c = p->c;
		memcpy(old->addr, p->addr, sizeof(old->addr));
		memcpy(old->local, p->local, sizeof(old->local));
		memset(&p->c, 0, sizeof(p->c));
		p->c.fd = -1;
		p->state = RP_FREE;
		p = old;
	}
	snprintf(p->id, sizeof(p->id), "%s", m->id);
	snprintf(p->role, sizeof(p->role), "%s", m->role);
	cJSON_Delete(p->host);
	cJSON_Delete(p->workloads);
	p->host = cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(m->json,
								   "host"), 1);
	w = cJSON_GetObjectItemCaseSensitive(m->json, "workloads");
	p->workloads = w ? cJSON_Duplicate(w, 1) : cJSON_CreateArray();
	p->state = RP_READY;
	p->tq_out = 0;
	if (!old)
		runner_event(r, "agent_joined", p->id, p->role);
	agent_log("%s %s joined from %s", p->role, p->id, p->addr);
	wel = ctl_msg_new(CTL_WELCOME);
	if (!wel)
		return p;
	cJSON_AddStringToObject(wel, "controller", r->o->id);
	ctl_conn_send(&p->c, wel);
	cJSON_Delete(wel);
	return p;
}

/* Handles one line from p; returns the slot owning p's connection
 * afterwards (another one when a hello took over an older slot). */
static struct rpeer *runner_handle(struct runner *r, struct rpeer *p,
				   const char *line, size_t len)
{
	struct ctl_msg m;
	char err[256];
	int64_t t4 = runner_now();

	if (ctl_msg_parse(line, len, &m, err, sizeof(err)) != 0) {
		r->malformed++;
		agent_log("closing connection from %s%s%s: malformed message:"
			  " %s", p->addr, p->id[0] ? " " : "", p->id, err);
		runner_event(r, "malformed_message", p->id[0] ? p->id : p->addr,
			     err);
		runner_peer_drop(r, p, "malformed message");
		return p;
	}
	if (m.type != CTL_HELLO && p->state != RP_READY) {
		snprintf(err, sizeof(err), "%s before hello",
			 ctl_type_name(m.type));
		r->malformed++;
		agent_log("closing connection from %s: %s", p->addr, err);
		runner_event(r, "malformed_message", p->addr, err);
		runner_peer_drop(r, p, "message before hello");
		goto out;
	}
	switch (m.type) {
	case CTL_HELLO:
		p = runner_hello(r, p, &m);
		break;
	case CTL_TIME_RESP:
		p->tq_out = 0;
		if (tsync_add(&p->ts, m.t1, m.t2, m.t3, t4) == 0)
			p->tq_got++;
		break;
	case CTL_RESULT:
		if (!p->in_step || strcmp(m.step, r->cur_step) != 0) {
			agent_log("%s: result for step %s ignored (not "
				  "expected)", p->id, m.step);
			break;
		}
		cJSON_Delete(p->result);
		p->result = m.json;
		m.json = NULL;
		p->in_step = 0;
		break;
	case CTL_SERIES:
		runner_series_add(r, m.source, cJSON_Duplicate(m.rec, 1), p);
		break;
	default:
		snprintf(err, sizeof(err), "unexpected %s from an agent",
			 ctl_type_name(m.type));
		r->malformed++;
		agent_log("closing connection from %s: %s", p->id, err);
		runner_event(r, "malformed_message", p->id, err);
		runner_peer_drop(r, p, "unexpected message type");
		break;
	}
out:
	ctl_msg_free(&m);
	return p;
}

static void runner_accept(struct runner *r)
{
	for (;;) {
		struct sockaddr_storage ss, ls;
		socklen_t sl = sizeof(ss), ll = sizeof(ls);
		struct rpeer *p = NULL;
		char a[64];
		int fd, i, port = 0;

		fd = accept4(r->lfd, (struct sockaddr *)&ss, &sl,
			     SOCK_CLOEXEC);
		if (fd < 0)
			return;
		for (i = 0; i < r->npeers; i++)
			if (r->peers[i].state == RP_FREE) {
				p = &r->peers[i];
				break;
			}
		if (!p && r->npeers < RUNNER_MAX_PEERS) {
			p = &r->peers[r->npeers++];
			memset(p, 0, sizeof(*p));
		}
		if (!p) {
			close(fd);
			continue;
		}
		cJSON_Delete(p->host);
		cJSON_Delete(p->workloads);
		cJSON_Delete(p->result);
		memset(p, 0, sizeof(*p));
		ctl_conn_init(&p->c, fd);
		p->state = RP_NEW;
		a[0] = 0;
		if (ss.ss_family == AF_INET) {
			struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;

			inet_ntop(AF_INET, &s4->sin_addr, a, sizeof(a));
			port = ntohs(s4->sin_port);
		} else if (ss.ss_family == AF_INET6) {
			struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;

			inet_ntop(AF_INET6, &s6->sin6_addr, a, sizeof(a));
			port = ntohs(s6->sin6_port);
		}
		snprintf(p->addr, sizeof(p->addr), "%s", a);
		(void)port;
		if (getsockname(fd, (struct sockaddr *)&ls, &ll) == 0) {
			if (ls.ss_family == AF_INET)
				inet_ntop(AF_INET, &((struct sockaddr_in *)
						     &ls)->sin_addr, p->local,
					  sizeof(p->local));
			else if (ls.ss_family == AF_INET6)
				inet_ntop(AF_INET6, &((struct sockaddr_in6 *)
						      &ls)->sin6_addr,
					  p->local, sizeof(p->local));
		}
	}
}

/* Services every socket for up to ms milliseconds (one poll round). */
static void runner_pump(struct runner *r, int ms)
{
	struct pollfd *pf;
	int *who, n = 0, i;

	agent_mdns_poll();
	pf = calloc((size_t)r->npeers + 4, sizeof(*pf));
	who = calloc((size_t)r->npeers + 4, sizeof(*who));
	if (!pf || !who) {
		free(pf);
		free(who);
		usleep((useconds_t)ms * 1000);
		return;
	}
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
		pf[n].events = POLLIN | (ctl_conn_pending(&p->c) ? POLLOUT : 0);
		who[n++] = i;
	}
	if (poll(pf, (nfds_t)n, ms) > 0) {
		for (i = 0; i < n; i++) {
			struct rpeer *p;
			const char *line;
			size_t len;
			int rc, lr;

			if (!pf[i].revents)
				continue;
			if (who[i] == -1) {
				runner_accept(r);
				continue;
			}
			if (who[i] < -1) {
				agent_series_read(&r->local_series[-2 - who[i]],
						  runner_local_series_cb, r);
				continue;
			}
			p = &r->peers[who[i]];
			if (pf[i].revents & POLLOUT) {
				rc = ctl_conn_flush(&p->c);
				if (rc != 0) {
					runner_peer_drop(r, p, strerror(-rc));
					continue;
				}
			}
			if (!(pf[i].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			rc = ctl_conn_read(&p->c);
			while (p->c.fd >= 0 &&
			       (lr = ctl_conn_line(&p->c, &line, &len)) != 0) {
				if (lr < 0) {
					char why[80];

					snprintf(why, sizeof(why), "message "
						 "over %u bytes", CTL_MAX_MSG);
					r->malformed++;
					agent_log("closing connection from %s:"
						  " %s", p->addr, why);
					runner_event(r, "malformed_message",
						     p->id[0] ? p->id :
						     p->addr, why);
					runner_peer_drop(r, p, why);
					break;
				}
				p = runner_handle(r, p, line, len);
			}
			if (rc != 0 && p->c.fd >= 0)
				runner_peer_drop(r, p, rc == -EPIPE ?
						 "connection closed" :
						 strerror(-rc));
		}
	}
	free(pf);
	free(who);
}

static int runner_count(struct runner *r, const char *role)
{
	int i, n = 0;

	for (i = 0; i < r->npeers; i++)
		if (r->peers[i].state == RP_READY &&
		    strcmp(r->peers[i].role, role) == 0)
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
			q = ctl_msg_new(CTL_TIME_REQ);
			if (!q)
				continue;
			cJSON_AddNumberToObject(q, "seq", (double)p->ts.n);
			cJSON_AddNumberToObject(q, "t1", (double)runner_now());
			if (ctl_conn_send(&p->c, q) == 0)
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
	struct tsync_sample b = { 0 };

	tsync_best(&p->ts, &b);
	if (rtt)
		*rtt = b.rtt;
	return b.offset;
}

/* --- steps ----------------------------------------------------------- */

struct runner_lookup {
	struct runner *r;
	const struct suite_step *st;
	const struct rpeer *client;
	char conc[16], total[16], dur[32], warm[32], cool[32], client_i[16],
	     clients[16], rep[16];
	const char *server;
};

static const char *runner_lookup_fn(void *ctx, const char *name)
{
	struct runner_lookup *l = ctx;

	if (strcmp(name, "conc") == 0)
		return l->conc;
	if (strcmp(name, "total") == 0)
		return l->total;
	if (strcmp(name, "duration") == 0)
		return l->dur;
	if (strcmp(name, "warmup") == 0)
		return l->warm;
	if (strcmp(name, "cooldown") == 0)
		return l->cool;
	if (strcmp(name, "client") == 0)
		return l->client_i;
	if (strcmp(name, "clients") == 0)
		return l->clients;
	if (strcmp(name, "repeat") == 0)
		return l->rep;
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
		    strcmp(r->peers[i].role, "server") == 0)
			return &r->peers[i];
	return NULL;
}

static int runner_cmp_peer(const void *a, const void *b)
{
	return strcmp((*(struct rpeer *const *)a)->id,
		      (*(struct rpeer *const *)b)->id);
}

/* Adds the numbers of src's object field into dst's (created). */
static void runner_sum_obj(cJSON *dst_parent, const char *name,
			   const cJSON *src)
{
	cJSON *dst = cJSON_GetObjectItemCaseSensitive(dst_parent, name);
	const cJSON *f;

	if (!cJSON_IsObject(src))
		return;
	if (!dst)
		dst = cJSON_AddObjectToObject(dst_parent, name);
	cJSON_ArrayForEach(f, src) {
		cJSON *d;

		if (!cJSON_IsNumber(f) || !f->string)
			continue;
		d = cJSON_GetObjectItemCaseSensitive(dst, f->string);
		if (d)
			cJSON_SetNumberValue(d, d->valuedouble +
					     f->valuedouble);
		else
			cJSON_AddNumberToObject(dst, f->string,
						f->valuedouble);
	}
}

/* Per-workload accumulation while merging one repeat. */
struct runner_merge {
	char workload[32];
	struct hist *h;
	int has_hist;
	cJSON *obj;		/* {"counters":{},"errors":{},"rates":{}} */
	int records;
};

static struct runner_merge *runner_merge_get(struct runner_merge *m, int *n,
					     const char *w)
{
	int i;

	for (i = 0; i < *n; i++)
		if (strcmp(m[i].workload, w) == 0)
			return &m[i];
	if (*n == SUITE_MAX_RUNS * 2)
		return NULL;
	m = &m[(*n)++];
	memset(m, 0, sizeof(*m));
	snprintf(m->workload, sizeof(m->workload), "%s", w);
	m->h = malloc(sizeof(*m->h));
	if (m->h)
		hist_init(m->h);
	m->obj = cJSON_CreateObject();
	cJSON_AddObjectToObject(m->obj, "counters");
	cJSON_AddObjectToObject(m->obj, "errors");
	cJSON_AddObjectToObject(m->obj, "rates");
	return m;
}

/* Merges one workload record into its workload's accumulator.  Returns 0
 * or -EINVAL with a reason (the record then does not count). */
static int runner_merge_record(struct runner_merge *acc, int *nacc,
			       const cJSON *rec, char *err, size_t errlen)
{
	const cJSON *w = cJSON_GetObjectItemCaseSensitive(rec, "workload");
	const cJSON *sch = cJSON_GetObjectItemCaseSensitive(rec, "schema");
	const cJSON *el = cJSON_GetObjectItemCaseSensitive(rec, "elapsed_s");
	const cJSON *ctr = cJSON_GetObjectItemCaseSensitive(rec, "counters");
	const cJSON *lat = cJSON_GetObjectItemCaseSensitive(rec, "latency");
	const cJSON *f;
	struct runner_merge *m;
	cJSON *rates;

	if (!cJSON_IsString(sch) ||
	    strncmp(sch->valuestring, "benchboot.workload/1", 20) != 0) {
		snprintf(err, errlen, "record: field \"schema\": want "
			 "benchboot.workload/1");
		return -EINVAL;
	}
	if (!cJSON_IsString(w)) {
		snprintf(err, errlen, "record: field \"workload\" missing");
		return -EINVAL;
	}
	m = runner_merge_get(acc, nacc, w->valuestring);
	if (!m || !m->h)
		return -ENOMEM;
	if (lat) {
		struct hist *h = malloc(sizeof(*h));
		int rc;

		if (!h)
			return -ENOMEM;
		rc = hist_from_json(h, lat, err, errlen);
		if (rc == 0) {
			hist_merge(m->h, h);
			m->has_hist = 1;
		}
		free(h);
		if (rc != 0)
			return rc;
	}
	runner_sum_obj(m->obj, "counters", ctr);
	runner_sum_obj(m->obj, "errors",
		       cJSON_GetObjectItemCaseSensitive(rec, "errors"));
	/* Rates add per client (each over its own elapsed time). */
	rates = cJSON_GetObjectItemCaseSensitive(m->obj, "rates");
	if (cJSON_IsNumber(el) && el->valuedouble > 0 && cJSON_IsObject(ctr)) {
		cJSON_ArrayForEach(f, ctr) {
			cJSON *d;
			double v;

			if (!cJSON_IsNumber(f) || !f->string)
				continue;
			v = f->valuedouble / el->valuedouble;
			d = cJSON_GetObjectItemCaseSensitive(rates, f->string);
			if (d)
				cJSON_SetNumberValue(d, d->valuedouble + v);
			else
				cJSON_AddNumberToObject(rates, f->string, v);
		}
	}
	m->records++;
	return 0;
}

/* The series records inside [from, to] (controller clock), as
 * {"sample":[...],"probe":[...]}. */
static cJSON *runner_series_window(struct runner *r, int64_t from,
				   int64_t to)
{
	cJSON *o = cJSON_CreateObject();
	cJSON *sa = cJSON_AddArrayToObject(o, "sample");
	cJSON *pr = cJSON_AddArrayToObject(o, "probe");
	size_t i;

	for (i = 0; i < r->nseries; i++) {
		struct series_rec *s = &r->series[i];

		if (s->t < from || s->t > to)
			continue;
		cJSON_AddItemToArray(strcmp(s->source, "probe") == 0 ? pr : sa,
				     cJSON_Duplicate(s->rec, 1));
	}
	return o;
}

static int runner_workload_known(struct runner *r, const char *w)
{
	int i;

	for (i = 0; i < r->npeers; i++)
		if (r->peers[i].state == RP_READY &&
		    strcmp(r->peers[i].role, "client") == 0 &&
		    agent_has_workload(r->peers[i].workloads, w))
			return 1;
	return 0;
}

/* Workload start spread, kept per workload: a combined step mixes
 * workloads with and without warm-up. */
#define RUNNER_MAX_WL 16
struct runner_start {
	char w[32];
	int64_t mn, mx;
	int n;
};

/* Notes a record's start (its realtime_ns minus its client's offset). */
static void runner_note_start(struct runner_start *rs, int *nrs,
			      const cJSON *rec, int64_t off)
{
	const cJSON *st = cJSON_GetObjectItemCaseSensitive(rec, "start");
	const cJSON *rt = cJSON_GetObjectItemCaseSensitive(st, "realtime_ns");
	const cJSON *wn = cJSON_GetObjectItemCaseSensitive(rec, "workload");
	int64_t t;
	int k;

	if (!cJSON_IsNumber(rt) || !cJSON_IsString(wn))
		return;
	t = (int64_t)rt->valuedouble - off;
	for (k = 0; k < *nrs; k++)
		if (strcmp(rs[k].w, wn->valuestring) == 0)
			break;
	if (k == RUNNER_MAX_WL)
		return;
	if (k == *nrs) {
		snprintf(rs[k].w, sizeof(rs[k].w), "%s", wn->valuestring);
		rs[k].mn = rs[k].mx = t;
		rs[k].n = 0;
		(*nrs)++;
	}
	rs[k].mn = t < rs[k].mn ? t : rs[k].mn;
	rs[k].mx = t > rs[k].mx ? t : rs[k].mx;
	rs[k].n++;
}

/* Runs one repeat of one step at concurrency conc (0: no sweep).  Fills
 * rep with what happened; *complete says whether it may be averaged in;
 * merged[] gets one accumulator per workload.  Returns 0, or -ENOENT when
 * the step had to be skipped (reason in rep). */
static int runner_repeat(struct runner *r, const struct suite_step *st,
			 unsigned conc, unsigned repno, cJSON *rep,
			 int *complete, struct runner_merge *acc, int *nacc)
{
	struct rpeer *cl[RUNNER_MAX_PEERS], *srv = runner_server(r);
	struct runner_lookup lk = { .r = r, .st = st };
	int ncl = 0, i, part = 0, lost = 0, failed = 0;
	cJSON *clients, *procs[RUNNER_MAX_PEERS];
	int64_t start, lead, end, deadline_wait;
	int64_t lmin = INT64_MAX, lmax = INT64_MIN;
	struct runner_start rs[RUNNER_MAX_WL];
	int nrs = 0, lclients = 0;
	unsigned j;
	char err[256];

	*complete = 0;
	for (i = 0; i < r->npeers; i++)
		if (r->peers[i].state == RP_READY &&
		    strcmp(r->peers[i].role, "client") == 0)
			cl[ncl++] = &r->peers[i];
	qsort(cl, (size_t)ncl, sizeof(cl[0]), runner_cmp_peer);
	if (ncl == 0) {
		cJSON_AddStringToObject(rep, "skipped", "no clients");
		return -ENOENT;
	}
	for (j = 0; j < st->nruns; j++)
		if (!runner_workload_known(r, st->runs[j].argv[0])) {
			snprintf(err, sizeof(err), "no client has the '%s' "
				 "workload", st->runs[j].argv[0]);
			cJSON_AddStringToObject(rep, "skipped", err);
			return -ENOENT;
		}
	snprintf(lk.total, sizeof(lk.total), "%u", conc ? conc : 1);
	suite_fmt_duration(st->duration_ns, lk.dur, sizeof(lk.dur));
	suite_fmt_duration(st->warmup_ns, lk.warm, sizeof(lk.warm));
	suite_fmt_duration(st->cooldown_ns, lk.cool, sizeof(lk.cool));
	snprintf(lk.clients, sizeof(lk.clients), "%d", ncl);
	snprintf(lk.rep, sizeof(lk.rep), "%u", repno);
	lk.server = srv ? srv->addr : NULL;
	/* Build each client's processes: every run line's concurrency is
	 * split across the clients that have its workload. */
	for (i = 0; i < ncl; i++)
		procs[i] = cJSON_CreateArray();
	for (j = 0; j < st->nruns; j++) {
		const struct suite_run *run = &st->runs[j];
		int cap = 0, k = 0;
		unsigned total = conc ? conc : 1;

		for (i = 0; i < ncl; i++)
			cap += agent_has_workload(cl[i]->workloads,
						  run->argv[0]);
		for (i = 0; i < ncl; i++) {
			unsigned share;
			cJSON *argv;
			int a;

			if (!agent_has_workload(cl[i]->workloads,
						run->argv[0]))
				continue;
			share = total / (unsigned)cap +
				((unsigned)k < total % (unsigned)cap);
			k++;
			if (share == 0)
				continue;
			lk.client = cl[i];
			snprintf(lk.conc, sizeof(lk.conc), "%u", share);
			snprintf(lk.client_i, sizeof(lk.client_i), "%d", i);
			argv = cJSON_CreateArray();
			for (a = 0; a < run->argc; a++) {
				char buf[4096];
				int rc = suite_expand(run->argv[a], buf,
						      sizeof(buf),
						      runner_lookup_fn, &lk,
						      err, sizeof(err));

				if (rc != 0) {
					char why[700];

					snprintf(why, sizeof(why), "%s:%d: "
						 "cannot expand '%s' (%s%s)",
						 r->suite.file, run->line,
						 run->argv[a], rc == -ENOENT ?
						 "no value for " : "",
						 rc == -ENOENT ? err :
						 "too long");
					cJSON_Delete(argv);
					for (i = 0; i < ncl; i++)
						cJSON_Delete(procs[i]);
					cJSON_AddStringToObject(rep, "skipped",
								why);
					return -ENOENT;
				}
				cJSON_AddItemToArray(argv,
						     cJSON_CreateString(buf));
			}
			if (a > 0)
				cJSON_AddItemToArray(
					argv, cJSON_CreateString("--json"));
			cJSON_AddItemToArray(procs[i], argv);
		}
	}
	/* Clocks first: offsets are re-estimated before every step so a
	 * long run follows drift. */
	runner_sync(r, 8, 2000);
	lead = 300000000ll + (int64_t)ncl * 3000000ll;
	start = runner_now() + lead;
	r->step_start = start;
	end = start + (int64_t)st->warmup_ns + (int64_t)st->duration_ns;
	cJSON_AddNumberToObject(rep, "start_ns", (double)start);
	clients = cJSON_AddArrayToObject(rep, "clients");
	for (i = 0; i < ncl; i++) {
		cJSON *msg, *ce;
		int64_t rtt, off;

		ce = cJSON_CreateObject();
		cJSON_AddStringToObject(ce, "id", cl[i]->id);
		cl[i]->result = NULL;
		cl[i]->lost_in_step = 0;
		if (cJSON_GetArraySize(procs[i]) == 0) {
			cJSON_AddBoolToObject(ce, "idle", 1);
			cJSON_AddItemToArray(clients, ce);
			cJSON_Delete(procs[i]);
			continue;
		}
		off = runner_offset(cl[i], &rtt);
		cJSON_AddNumberToObject(ce, "offset_ns", (double)off);
		cJSON_AddNumberToObject(ce, "rtt_ns", (double)rtt);
		cJSON_AddItemToArray(clients, ce);
		msg = ctl_msg_new(CTL_RUN);
		cJSON_AddStringToObject(msg, "step", r->cur_step);
		cJSON_AddNumberToObject(msg, "start_at", (double)(start + off));
		cJSON_AddNumberToObject(msg, "timeout_s",
					(double)(st->warmup_ns +
						 st->duration_ns) / 1e9 + 60);
		cJSON_AddItemToObject(ce, "procs", cJSON_Duplicate(procs[i],
								   1));
		cJSON_AddItemToObject(msg, "procs", procs[i]);
		if (ctl_conn_send(&cl[i]->c, msg) == 0) {
			cl[i]->in_step = 1;
			part++;
		} else {
			runner_peer_drop(r, cl[i], "send failed");
			cl[i]->lost_in_step = 1;
		}
		cJSON_Delete(msg);
	}
	agent_log("step %s: %d client(s), starts in %.0f ms", r->cur_step,
		  part, (double)lead / 1e6);
	/* Wait for every result; an agent that vanishes is recorded.  Clock
	 * probes continue every 5 s so a long step follows drift too. */
	deadline_wait = end + 60000000000ll;
	{
		uint64_t next_sync = util_mono_ns() + 5000000000ull;

		for (;;) {
			int waiting = 0;

			for (i = 0; i < ncl; i++)
				if (cl[i]->in_step && cl[i]->state == RP_READY)
					waiting++;
			if (!waiting || runner_now() > deadline_wait ||
			    *r->stop)
				break;
			runner_pump(r, 50);
			if (util_mono_ns() > next_sync) {
				runner_sync(r, 1, 100);
				next_sync = util_mono_ns() + 5000000000ull;
			}
		}
	}
	/* Whoever is still running past the deadline is told to stop, so
	 * it is free for the next step. */
	for (i = 0; i < ncl; i++) {
		cJSON *ab;

		if (!cl[i]->in_step || cl[i]->state != RP_READY)
			continue;
		ab = ctl_msg_new(CTL_ABORT);
		if (!ab)
			continue;
		cJSON_AddStringToObject(ab, "step", r->cur_step);
		ctl_conn_send(&cl[i]->c, ab);
		cJSON_Delete(ab);
	}
	/* Collect. */
	for (i = 0; i < ncl; i++) {
		cJSON *ce = cJSON_GetArrayItem(clients, i), *recs;
		const cJSON *rr, *res = cl[i]->result;
		int64_t off = runner_offset(cl[i], NULL);

		if (cJSON_GetObjectItemCaseSensitive(ce, "idle"))
			continue;
		if (cl[i]->in_step || !res) {
			const char *why = cl[i]->lost_in_step ||
				cl[i]->state != RP_READY ?
				"agent lost during the step" :
				"no result before the deadline";

			cJSON_AddStringToObject(ce, "error", why);
			runner_event(r, "client_missing", cl[i]->id, why);
			cl[i]->in_step = 0;
			lost++;
			continue;
		}
		recs = cJSON_AddArrayToObject(ce, "records");
		lclients++;
		/* One record per process it was given, or it did not run
		 * what was asked (a busy agent answers with none). */
		if (cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(
			    res, "records")) != cJSON_GetArraySize(
			    cJSON_GetObjectItemCaseSensitive(ce, "procs"))) {
			cJSON_AddStringToObject(ce, "error", "fewer records "
						"than processes");
			failed++;
		}
		cJSON_ArrayForEach(rr, cJSON_GetObjectItemCaseSensitive(res,
								"records")) {
			const cJSON *rec = cJSON_GetObjectItemCaseSensitive(
				rr, "record");
			const cJSON *ln = cJSON_GetObjectItemCaseSensitive(
				rr, "launched_ns");
			const cJSON *e = cJSON_GetObjectItemCaseSensitive(
				rr, "error");
			cJSON *copy = cJSON_Duplicate(rr, 1);

			cJSON_AddItemToArray(recs, copy);
			if (cJSON_IsNumber(ln) && ln->valuedouble > 0) {
				int64_t l = (int64_t)ln->valuedouble - off;

				cJSON_AddNumberToObject(copy, "launch_late_ns",
							(double)(l - start));
				lmin = l < lmin ? l : lmin;
				lmax = l > lmax ? l : lmax;
			}
			if (cJSON_IsString(e) || !rec) {
				failed++;
				continue;
			}
			runner_note_start(rs, &nrs, rec, off);
			if (runner_merge_record(acc, nacc, rec, err,
						sizeof(err)) != 0) {
				cJSON_AddStringToObject(copy, "merge_error",
							err);
				failed++;
			}
		}
		cJSON_Delete(cl[i]->result);
		cl[i]->result = NULL;
	}
	{
		cJSON *sk = cJSON_AddObjectToObject(rep, "skew_ns");

		int64_t rsk = -1;
		int k;

		/* A skew needs two clients to be one. */
		if (lclients >= 2 && lmax >= lmin)
			cJSON_AddNumberToObject(sk, "launch",
						(double)(lmax - lmin));
		for (k = 0; k < nrs; k++)
			if (rs[k].n >= 2 && rs[k].mx - rs[k].mn > rsk)
				rsk = rs[k].mx - rs[k].mn;
		if (lclients >= 2 && rsk >= 0)
			cJSON_AddNumberToObject(sk, "record", (double)rsk);
	}
	cJSON_AddItemToObject(rep, "series", runner_series_window(
				      r, start, end + 1000000000ll));
	*complete = lost == 0 && failed == 0 && part > 0;
	cJSON_AddBoolToObject(rep, "complete", *complete);
	if (!*complete) {
		snprintf(err, sizeof(err), "%d client(s) lost, %d record(s) "
			 "failed", lost, failed);
		cJSON_AddStringToObject(rep, "incomplete_reason", err);
		runner_event(r, "step_incomplete", NULL, err);
		agent_log("step %s incomplete: %s", r->cur_step, err);
	}
	(void)srv;
	return 0;
}

static void runner_merge_free(struct runner_merge *m, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		free(m[i].h);
		cJSON_Delete(m[i].obj);
	}
}

/* Adds to dst, under key, the statistics of per_rep[*].WORKLOAD.OBJ.FIELD
 * (one value per complete repeat); nothing when no repeat has it. */
static void runner_stat(cJSON *dst, const char *key, const cJSON *per_rep,
			const char *workload, const char *obj,
			const char *field)
{
	double v[1000];
	const cJSON *pr;
	struct rstats s;
	int n = 0;

	cJSON_ArrayForEach(pr, per_rep) {
		const cJSON *w = cJSON_GetObjectItemCaseSensitive(pr, workload);
		const cJSON *o = cJSON_GetObjectItemCaseSensitive(w, obj);
		const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, field);

		if (cJSON_IsNumber(x) && n < 1000)
			v[n++] = x->valuedouble;
	}
	if (rstats_compute(v, n, &s) == 0)
		cJSON_AddItemToObject(dst, key, rstats_json(&s));
}

/* One step at one concurrency: R repeats, then statistics over the
 * complete ones. */
static void runner_step(struct runner *r, const struct suite_step *st,
			unsigned conc, cJSON *steps)
{
	struct runner_merge all[SUITE_MAX_RUNS * 2];
	int nall = 0, ncomplete = 0, k;
	cJSON *so = cJSON_CreateObject(), *reps, *merged, *stats;
	/* Each complete repeat's merged objects, for the statistics. */
	cJSON *per_rep = cJSON_CreateArray();
	unsigned rep;
	char name[128];

	if (conc)
		snprintf(name, sizeof(name), "%s/c%u", st->name, conc);
	else
		snprintf(name, sizeof(name), "%s", st->name);
	cJSON_AddStringToObject(so, "name", name);
	cJSON_AddStringToObject(so, "step", st->name);
	if (conc)
		cJSON_AddNumberToObject(so, "concurrency", conc);
	cJSON_AddNumberToObject(so, "warmup_s", (double)st->warmup_ns / 1e9);
	cJSON_AddNumberToObject(so, "duration_s",
				(double)st->duration_ns / 1e9);
	cJSON_AddNumberToObject(so, "cooldown_s",
				(double)st->cooldown_ns / 1e9);
	reps = cJSON_AddArrayToObject(so, "repeats");
	cJSON_AddItemToArray(steps, so);

	for (rep = 1; rep <= st->repeats && !*r->stop; rep++) {
		struct runner_merge acc[SUITE_MAX_RUNS * 2];
		int nacc = 0, complete, rc, i;
		cJSON *ro = cJSON_CreateObject(), *mo;

		snprintf(r->cur_step, sizeof(r->cur_step), "%s/r%u", name, rep);
		agent_status("step %s, repeat %u/%u; %d clients; "
			     "%u/%u done, about %llu s left", name, rep,
			     st->repeats, runner_count(r, "client"),
			     r->rep_done, r->rep_total,
			     (unsigned long long)(r->left_ns / 1000000000ull));
		cJSON_AddNumberToObject(ro, "repeat", rep);
		cJSON_AddItemToArray(reps, ro);
		rc = runner_repeat(r, st, conc, rep, ro, &complete, acc, &nacc);
		r->rep_done++;
		r->left_ns -= r->left_ns < runner_planned_ns(st) ?
			      r->left_ns : runner_planned_ns(st);
		if (rc == -ENOENT) {
			const cJSON *why = cJSON_GetObjectItemCaseSensitive(
				ro, "skipped");

			agent_log("step %s skipped: %s", r->cur_step,
				  why ? why->valuestring : "?");
			runner_event(r, "step_skipped", NULL,
				     why ? why->valuestring : NULL);
			cJSON_AddStringToObject(so, "skipped",
						why ? why->valuestring : "");
			runner_merge_free(acc, nacc);
			break;
		}
		mo = cJSON_AddObjectToObject(ro, "merged");
		for (i = 0; i < nacc; i++) {
			cJSON *w = acc[i].obj;
			struct runner_merge *tot;

			acc[i].obj = NULL;
			cJSON_AddNumberToObject(w, "records", acc[i].records);
			if (acc[i].has_hist)
				cJSON_AddItemToObject(w, "latency",
						      hist_to_json(acc[i].h));
			cJSON_AddItemToObject(mo, acc[i].workload, w);
			if (!complete)
				continue;
			/* Exact merge across repeats too. */
			tot = runner_merge_get(all, &nall, acc[i].workload);
			if (tot && tot->h && acc[i].has_hist) {
				hist_merge(tot->h, acc[i].h);
				tot->has_hist = 1;
			}
		}
		if (complete) {
			ncomplete++;
			cJSON_AddItemToArray(per_rep, cJSON_Duplicate(mo, 1));
		}
		runner_merge_free(acc, nacc);
		/* Cool-down: the server settles, agents stay serviced. */
		{
			uint64_t until = util_mono_ns() + st->cooldown_ns;

			while (util_mono_ns() < until && !*r->stop)
				runner_pump(r, 50);
		}
	}
	cJSON_AddNumberToObject(so, "complete_repeats", ncomplete);
	merged = cJSON_AddObjectToObject(so, "merged");
	stats = cJSON_AddObjectToObject(so, "stats");
	for (k = 0; k < nall; k++) {
		cJSON *wo = cJSON_AddObjectToObject(merged, all[k].workload);
		cJSON *wst = cJSON_AddObjectToObject(stats, all[k].workload);
		const cJSON *first = NULL, *f;

		if (all[k].has_hist)
			cJSON_AddItemToObject(wo, "latency",
					      hist_to_json(all[k].h));
		/* Rates over repeats: every rate key of the first repeat;
		 * percentiles per repeat (each from that repeat's merged
		 * histogram), summarised: never averaged across clients. */
		first = cJSON_GetObjectItemCaseSensitive(
			cJSON_GetObjectItemCaseSensitive(
				cJSON_GetArrayItem(per_rep, 0),
				all[k].workload), "rates");
		cJSON_ArrayForEach(f, first) {
			char key[80];

			snprintf(key, sizeof(key), "%s_per_s", f->string);
			runner_stat(wst, key, per_rep, all[k].workload,
				    "rates", f->string);
		}
		runner_stat(wst, "p50_ns", per_rep, all[k].workload,
			    "latency", "p50");
		runner_stat(wst, "p99_ns", per_rep, all[k].workload,
			    "latency", "p99");
	}
	runner_merge_free(all, nall);
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

static cJSON *runner_environment(struct runner *r)
{
	cJSON *env = cJSON_CreateObject(), *hosts;
	int i;

	hosts = cJSON_AddArrayToObject(env, "hosts");
	{
		cJSON *me = agent_hostinfo(r->o->id, r->o->local_server ?
					   "server+controller" : "controller");
		cJSON *clk = cJSON_AddObjectToObject(me, "clock");

		cJSON_AddNumberToObject(clk, "offset_ns", 0);
		cJSON_AddStringToObject(clk, "reference", "self");
		cJSON_AddItemToArray(hosts, me);
	}
	for (i = 0; i < r->npeers; i++) {
		struct rpeer *p = &r->peers[i];
		struct tsync_sample b;
		cJSON *h, *clk;

		if (p->state != RP_READY && p->state != RP_LOST)
			continue;
		h = p->host ? cJSON_Duplicate(p->host, 1) :
			      cJSON_CreateObject();
		cJSON_DeleteItemFromObject(h, "id");
		cJSON_DeleteItemFromObject(h, "role");
		cJSON_AddStringToObject(h, "id", p->id);
		cJSON_AddStringToObject(h, "role", p->role);
		cJSON_AddStringToObject(h, "address", p->addr);
		if (p->state == RP_LOST)
			cJSON_AddBoolToObject(h, "lost", 1);
		cJSON_AddItemToObject(h, "workloads",
				      cJSON_Duplicate(p->workloads, 1));
		clk = cJSON_AddObjectToObject(h, "clock");
		if (tsync_best(&p->ts, &b) == 0) {
			cJSON_AddNumberToObject(clk, "offset_ns",
						(double)b.offset);
			cJSON_AddNumberToObject(clk, "rtt_ns", (double)b.rtt);
			cJSON_AddNumberToObject(clk, "samples",
						(double)p->ts.n);
		}
		cJSON_AddItemToArray(hosts, h);
	}
	return env;
}

/* Skew summary over every repeat: max and median of launch skew. */
static void runner_skew_summary(cJSON *doc)
{
	const cJSON *st, *rp;
	double v[4096], rv[4096];
	int n = 0, rn = 0;
	struct rstats s;
	cJSON *o = cJSON_AddObjectToObject(doc, "skew");

	cJSON_ArrayForEach(st, cJSON_GetObjectItemCaseSensitive(doc, "steps"))
		cJSON_ArrayForEach(rp, cJSON_GetObjectItemCaseSensitive(
					   st, "repeats")) {
			const cJSON *sk = cJSON_GetObjectItemCaseSensitive(
				rp, "skew_ns");
			const cJSON *l = cJSON_GetObjectItemCaseSensitive(
				sk, "launch");
			const cJSON *rr = cJSON_GetObjectItemCaseSensitive(
				sk, "record");

			if (cJSON_IsNumber(l) && n < 4096)
				v[n++] = l->valuedouble;
			if (cJSON_IsNumber(rr) && rn < 4096)
				rv[rn++] = rr->valuedouble;
		}
	if (rstats_compute(v, n, &s) == 0)
		cJSON_AddItemToObject(o, "launch_ns", rstats_json(&s));
	if (rstats_compute(rv, rn, &s) == 0)
		cJSON_AddItemToObject(o, "record_ns", rstats_json(&s));
}

static int runner_upload_loop(struct runner *r)
{
	uint64_t start = util_mono_ns(), backoff = 1000000000ull;
	char err[512];
	int left;

	if (!r->o->upload)
		return 0;
	for (;;) {
		left = spool_flush(r->o->spool, r->o->upload, r->o->token,
				   r->o->upload_timeout_s,
				   err, sizeof(err));
		if (left == 0) {
			agent_log("spool %s: every result uploaded to %s",
				  r->o->spool, r->o->upload);
			return 0;
		}
		if (left < 0) {
			agent_log("spool: %s", err);
			return 3;
		}
		agent_log("upload: %d result(s) still pending: %s", left, err);
		if (*r->stop || (r->o->upload_deadline_ns > 0 &&
				 util_mono_ns() - start + backoff >
				 (uint64_t)r->o->upload_deadline_ns)) {
			agent_log("upload deadline reached; result(s) stay in "
				  "%s/pending for the next start", r->o->spool);
			return 3;
		}
		{
			uint64_t until = util_mono_ns() + backoff;

			while (util_mono_ns() < until && !*r->stop)
				runner_pump(r, 100);
		}
		backoff = backoff * 2 > 30000000000ull ? 30000000000ull :
			  backoff * 2;
	}
}

int runner_main(struct agent_opts *o, volatile sig_atomic_t *stop)
{
	struct runner r = { .o = o, .stop = stop, .lfd = -1 };
	char err[512], host[256] = "", id[256];
	int port = CTL_PORT, rc, i, want_clients, want_servers, status = 1;
	uint64_t wait_ns, t0;
	unsigned si, ci;
	cJSON *steps, *peers;
	char *text = NULL;
	struct rusage ru;

	if (!o->suite)
		o->suite = "smoke";
	rc = suite_load(o->suite, o->suite_dir, &r.suite, err, sizeof(err));
	if (rc != 0) {
		util_err("agent", -rc, "%s", err);
		return 1;
	}
	for (i = 0; i < o->nsets; i++) {
		char k[64];
		const char *eq = strchr(o->sets[i], '=');

		snprintf(k, sizeof(k), "%.*s", (int)(eq - o->sets[i]),
			 o->sets[i]);
		if (suite_set_var(&r.suite, k, eq + 1) != 0) {
			util_err("agent", EINVAL, "--set '%s': bad name",
				 o->sets[i]);
			suite_free(&r.suite);
			return 2;
		}
	}
	if (o->listen && ctl_parse_hostport(o->listen[0] == ':' ?
					    "0.0.0.0" : o->listen, host,
					    sizeof(host), &port,
					    CTL_PORT) != 0) {
		/* ":PORT" alone: every address. */
		util_err("agent", EINVAL, "--listen '%s': expected "
			 "[ADDR][:PORT]", o->listen);
		suite_free(&r.suite);
		return 2;
	}
	if (o->listen && o->listen[0] == ':')
		port = atoi(o->listen + 1);
	r.lfd = ctl_listen(host[0] ? host : NULL, port);
	if (r.lfd < 0) {
		util_err("agent", -r.lfd, "listen on %s:%d: %s",
			 host[0] ? host : "*", port, strerror(-r.lfd));
		suite_free(&r.suite);
		return 1;
	}
	/* Announce the controller role over mDNS (a server that became
	 * the controller is already published: change its TXT). */
	if (agent_mdns_set_role("controller") == -ENOENT)
		agent_mdns_publish(o->id, "controller", r.suite.name, port);
	r.peers = calloc(RUNNER_MAX_PEERS, sizeof(*r.peers));
	r.doc = cJSON_CreateObject();
	r.events = cJSON_CreateArray();
	if (!r.peers || !r.doc || !r.events)
		goto out;
	agent_log("controller: suite %s version %s (%s), listening on %s:%d",
		  r.suite.name, r.suite.version, r.suite.file,
		  host[0] ? host : "*", port);
	/* Results a previous run could not deliver go first. */
	if (o->upload && spool_pending(o->spool) > 0) {
		int left = spool_flush(o->spool, o->upload, o->token,
				       o->upload_timeout_s, err, sizeof(err));

		agent_log("spool %s: %d earlier result(s) pending, %d left "
			  "after one try%s%s", o->spool,
			  spool_pending(o->spool) + (left > 0 ? 0 : 0), left,
			  left ? ": " : "", left ? err : "");
	}
	if (o->local_server && !o->no_series) {
		cJSON *w = agent_workloads();
		static const char *const srcs[] = { "sample", "probe" };

		for (i = 0; i < 2; i++)
			if (agent_has_workload(w, srcs[i]) &&
			    agent_series_start(&r.local_series[r.nlocal_series],
					       srcs[i], i == 0 ? o->procs :
					       NULL) == 0)
				r.nlocal_series++;
		cJSON_Delete(w);
	}
	/* Wait for peers. */
	want_clients = o->peers >= 0 ? o->peers : (int)r.suite.clients;
	want_servers = o->local_server || suite_var(&r.suite, "server") ?
		       0 : (int)r.suite.servers;
	wait_ns = o->wait_ns >= 0 ? (uint64_t)o->wait_ns : r.suite.wait_ns;
	t0 = util_mono_ns();
	agent_log("waiting up to %.0f s for %d client(s) and %d server(s)",
		  (double)wait_ns / 1e9, want_clients, want_servers);
	while (!*stop && (runner_count(&r, "client") < want_clients ||
			  runner_count(&r, "server") < want_servers) &&
	       util_mono_ns() - t0 < wait_ns) {
		agent_status("waiting for peers: %d/%d clients, %d/%d "
			     "servers", runner_count(&r, "client"),
			     want_clients, runner_count(&r, "server"),
			     want_servers);
		runner_pump(&r, 100);
	}
	peers = cJSON_CreateObject();
	cJSON_AddNumberToObject(peers, "clients_wanted", want_clients);
	cJSON_AddNumberToObject(peers, "clients_found",
				runner_count(&r, "client"));
	cJSON_AddNumberToObject(peers, "servers_wanted", want_servers);
	cJSON_AddNumberToObject(peers, "servers_found",
				runner_count(&r, "server"));
	cJSON_AddNumberToObject(peers, "waited_s",
				(double)(util_mono_ns() - t0) / 1e9);
	cJSON_AddBoolToObject(peers, "timed_out",
			      runner_count(&r, "client") < want_clients ||
			      runner_count(&r, "server") < want_servers);
	if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(peers,
							  "timed_out"))) {
		snprintf(err, sizeof(err), "have %d of %d clients, %d of %d "
			 "servers", runner_count(&r, "client"), want_clients,
			 runner_count(&r, "server"), want_servers);
		agent_log("peer wait timed out: %s; going on", err);
		runner_event(&r, "peer_wait_timeout", NULL, err);
	}
	/* Initial clock estimate: many exchanges, best one wins. */
	runner_sync(&r, 32, 5000);
	runner_make_id(&r, id, sizeof(id));
	cJSON_AddStringToObject(r.doc, "schema", "benchboot.result/1");
	cJSON_AddStringToObject(r.doc, "id", id);
	{
		char ts[32];
		time_t now = time(NULL);
		struct tm tm;
		cJSON *su, *tool;

		gmtime_r(&now, &tm);
		strftime(ts, sizeof(ts), "%Y-%m-%dT%H:%M:%SZ", &tm);
		cJSON_AddStringToObject(r.doc, "created", ts);
		tool = cJSON_AddObjectToObject(r.doc, "tool");
		cJSON_AddStringToObject(tool, "name", "benchboot");
		cJSON_AddStringToObject(tool, "version", version_string());
		cJSON_AddStringToObject(r.doc, "controller", o->id);
		su = cJSON_AddObjectToObject(r.doc, "suite");
		cJSON_AddStringToObject(su, "name", r.suite.name);
		cJSON_AddStringToObject(su, "version", r.suite.version);
		cJSON_AddStringToObject(su, "file", r.suite.file);
	}
	cJSON_AddItemToObject(r.doc, "peers", peers);
	steps = cJSON_AddArrayToObject(r.doc, "steps");
	for (si = 0; si < r.suite.nsteps; si++) {
		const struct suite_step *st = &r.suite.steps[si];
		unsigned n = st->repeats * (st->nconc ? st->nconc : 1);

		r.rep_total += n;
		r.left_ns += n * runner_planned_ns(st);
	}
	for (si = 0; si < r.suite.nsteps && !*stop; si++) {
		const struct suite_step *st = &r.suite.steps[si];

		if (st->nconc == 0)
			runner_step(&r, st, 0, steps);
		for (ci = 0; ci < st->nconc && !*stop; ci++)
			runner_step(&r, st, st->conc[ci], steps);
	}
	cJSON_AddItemToObject(r.doc, "environment", runner_environment(&r));
	runner_skew_summary(r.doc);
	if (*stop)
		runner_event(&r, "interrupted", NULL, "signal");
	getrusage(RUSAGE_SELF, &ru);
	{
		cJSON *c = cJSON_AddObjectToObject(r.doc, "controller_usage");

		cJSON_AddNumberToObject(c, "user_s", (double)ru.ru_utime.tv_sec
					+ ru.ru_utime.tv_usec / 1e6);
		cJSON_AddNumberToObject(c, "system_s",
					(double)ru.ru_stime.tv_sec +
					ru.ru_stime.tv_usec / 1e6);
		cJSON_AddNumberToObject(c, "maxrss_kb", (double)ru.ru_maxrss);
		cJSON_AddNumberToObject(c, "malformed_messages",
					(double)r.malformed);
	}
	cJSON_AddItemToObject(r.doc, "events", r.events);
	r.events = NULL;
	text = cJSON_Print(r.doc);
	if (!text)
		goto out;
	rc = spool_put(o->spool, id, text, strlen(text), o->upload != NULL,
		       err, sizeof(err));
	if (rc != 0) {
		agent_log("cannot write the result: %s", err);
		goto out;
	}
	agent_log("result %s written to %s/results/%s.json", id, o->spool, id);
	printf("%s/results/%s.json\n", o->spool, id);
	fflush(stdout);
	/* Tell every agent the suite is over. */
	for (i = 0; i < r.npeers; i++) {
		cJSON *d;

		if (r.peers[i].state != RP_READY)
			continue;
		d = ctl_msg_new(CTL_DONE);
		cJSON_AddStringToObject(d, "result", id);
		ctl_conn_send(&r.peers[i].c, d);
		ctl_conn_drain(&r.peers[i].c, 500);
		cJSON_Delete(d);
	}
	agent_status("result %s written; uploading", id);
	status = runner_upload_loop(&r);
	agent_status("result %s %s", id, status == 0 ? (o->upload ?
		     "uploaded" : "written (no upload asked)") :
		     "kept in the spool: upload failed");
out:
	free(text);
	for (i = 0; i < r.nlocal_series; i++)
		agent_series_stop(&r.local_series[i]);
	for (i = 0; r.peers && i < r.npeers; i++) {
		if (r.peers[i].c.fd > 0)
			ctl_conn_close(&r.peers[i].c);
		cJSON_Delete(r.peers[i].host);
		cJSON_Delete(r.peers[i].workloads);
		cJSON_Delete(r.peers[i].result);
	}
	for (size_t k = 0; k < r.nseries; k++)
		cJSON_Delete(r.series[k].rec);
	free(r.series);
	free(r.peers);
	cJSON_Delete(r.doc);
	cJSON_Delete(r.events);
	if (r.lfd >= 0)
		close(r.lfd);
	suite_free(&r.suite);
	return status;
}
