/* mdns/mdns_responder.c: the responder of mdns_responder.h: probes,
 * announces, answers and says goodbye for one service instance. */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mdns/mdns_responder.h"
#include "mdns/mdns_socket.h"

#define TTL_OTHER 4500		/* RFC 6762 §10: every other record */
#define LEGACY_TTL 10		/* §6.7 */

/* Record kinds the responder owns; also bit positions in masks (8 at
 * most: pend_mask packs answers and additional records in a byte each).
 * R_SUB0.. are the subtype PTRs (RFC 6763 §7.1). */
enum { R_PTR, R_ENUM, R_SRV, R_TXT, R_A, R_NSEC, R_SUB0, R_SUB1, R_COUNT };
_Static_assert(R_COUNT - R_SUB0 == MDNS_SUBTYPES_MAX &&
	       R_COUNT <= 8, "subtype records fit the masks");
/* Shared records: answered after 20-120 ms (§6), many hosts may own them. */
#define SHARED_RECORDS ((1u << R_PTR) | (1u << R_ENUM) | (1u << R_SUB0) | \
			(1u << R_SUB1))

struct mdns_responder {
	struct mdns_socket net;
	char base[MDNS_LABEL_MAX + 1];		/* instance as asked */
	char inst[MDNS_LABEL_MAX + 1];		/* instance now */
	char hbase[MDNS_LABEL_MAX + 1];
	char host[MDNS_LABEL_MAX + 1];
	char type[MDNS_NAME_STR_MAX];
	char sub[MDNS_SUBTYPES_MAX][MDNS_LABEL_MAX + 1];
	unsigned nsub;
	char only_if[IF_NAMESIZE];
	unsigned inst_n, host_n;		/* rename counters */
	uint16_t port;
	uint8_t txt[MDNS_TXT_MAX];
	size_t txt_len;
	struct mdns_name n_type, n_inst, n_host, n_enum;
	struct mdns_name n_sub[MDNS_SUBTYPES_MAX];
	enum mdns_state state;
	int step;		/* probes or announcements sent */
	uint64_t next;		/* when the next probe/announce is due */
	uint64_t conflict_window;
	unsigned conflicts_recent;
	uint64_t pend_at;	/* delayed multicast answers */
	unsigned pend_mask[MDNS_MAX_IFS];
	uint8_t buf[MDNS_PACKET_MAX + 1];
	uint8_t out[MDNS_SEND_MAX];
	struct mdns_msg msg;
};

static void rr_base(struct mdns_rr *rr, const struct mdns_name *n,
		    uint16_t type, uint32_t ttl, bool unique)
{
	memset(rr, 0, sizeof(*rr));
	rr->name = *n;
	rr->type = type;
	rr->rclass = MDNS_CLASS_IN;
	rr->ttl = ttl;
	rr->cache_flush = unique;
}

/* Fills our record of kind k as seen on interface f. */
static void resp_rr(const struct mdns_responder *r, int k,
		    const struct mdns_if *f, struct mdns_rr *rr)
{
	static const uint8_t nsec_a[] = { 0, 1, 0x40 };	/* A only */

	switch (k) {
	case R_PTR:
		rr_base(rr, &r->n_type, MDNS_TYPE_PTR, TTL_OTHER, false);
		rr->u.ptr = r->n_inst;
		break;
	case R_ENUM:
		rr_base(rr, &r->n_enum, MDNS_TYPE_PTR, TTL_OTHER, false);
		rr->u.ptr = r->n_type;
		break;
	case R_SRV:
		rr_base(rr, &r->n_inst, MDNS_TYPE_SRV, MDNS_TTL_HOST, true);
		rr->u.srv.port = r->port;
		rr->u.srv.target = r->n_host;
		break;
	case R_TXT:
		rr_base(rr, &r->n_inst, MDNS_TYPE_TXT, TTL_OTHER, true);
		rr->rdata = r->txt;
		rr->rdlen = (uint16_t)r->txt_len;
		break;
	case R_A:
		rr_base(rr, &r->n_host, MDNS_TYPE_A, MDNS_TTL_HOST, true);
		memcpy(rr->u.a, &f->addr, 4);
		break;
	case R_NSEC:
		rr_base(rr, &r->n_host, MDNS_TYPE_NSEC, MDNS_TTL_HOST, true);
		rr->u.nsec.next = r->n_host;
		rr->rdata = nsec_a;
		rr->rdlen = sizeof(nsec_a);
		break;
	case R_SUB0:
	case R_SUB1:
		rr_base(rr, &r->n_sub[k - R_SUB0], MDNS_TYPE_PTR, TTL_OTHER,
			false);
		rr->u.ptr = r->n_inst;
		break;
	}
}

/* Canonical rdata bytes (names uncompressed) for RFC 6762 §8.2's
 * lexicographic comparison; returns the length. */
static size_t rr_canon(const struct mdns_rr *rr, uint8_t *out)
{
	switch (rr->type) {
	case MDNS_TYPE_A:
		memcpy(out, rr->u.a, 4);
		return 4;
	case MDNS_TYPE_SRV:
		out[0] = (uint8_t)(rr->u.srv.priority >> 8);
		out[1] = (uint8_t)rr->u.srv.priority;
		out[2] = (uint8_t)(rr->u.srv.weight >> 8);
		out[3] = (uint8_t)rr->u.srv.weight;
		out[4] = (uint8_t)(rr->u.srv.port >> 8);
		out[5] = (uint8_t)rr->u.srv.port;
		memcpy(out + 6, rr->u.srv.target.data, rr->u.srv.target.len);
		return 6 + (size_t)rr->u.srv.target.len;
	case MDNS_TYPE_PTR:
		memcpy(out, rr->u.ptr.data, rr->u.ptr.len);
		return rr->u.ptr.len;
	default:
		memcpy(out, rr->rdata, rr->rdlen);
		return rr->rdlen;
	}
}

static int rr_cmp(const struct mdns_rr *a, const struct mdns_rr *b)
{
	uint8_t ca[MDNS_PACKET_MAX > 1024 ? 1024 : MDNS_PACKET_MAX];
	uint8_t cb[sizeof(ca)];
	size_t la, lb;
	int c;

	if (a->rclass != b->rclass)
		return a->rclass < b->rclass ? -1 : 1;
	if (a->type != b->type)
		return a->type < b->type ? -1 : 1;
	la = a->rdlen > 700 ? 0 : rr_canon(a, ca);
	lb = b->rdlen > 700 ? 0 : rr_canon(b, cb);
	c = memcmp(ca, cb, la < lb ? la : lb);
	if (c)
		return c < 0 ? -1 : 1;
	return la == lb ? 0 : la < lb ? -1 : 1;
}

/* True when rr (someone's record with our name and type) equals ours. */
static bool resp_same(const struct mdns_responder *r, const struct mdns_rr *rr)
{
	struct mdns_rr ours;

	if (rr->type == MDNS_TYPE_A) {
		for (size_t i = 0; i < r->net.nifs; i++)
			if (memcmp(rr->u.a, &r->net.ifs[i].addr, 4) == 0)
				return true;
		return false;
	}
	resp_rr(r, rr->type == MDNS_TYPE_SRV ? R_SRV : R_TXT, NULL, &ours);
	return rr_cmp(rr, &ours) == 0;
}

static int resp_names(struct mdns_responder *r)
{
	char rest[MDNS_NAME_STR_MAX + 16];
	int rc;

	snprintf(rest, sizeof(rest), "%s.local", r->type);
	rc = mdns_name_from_str(&r->n_type, rest);
	if (rc == 0)
		rc = mdns_name_from_label(&r->n_inst, r->inst, rest);
	if (rc == 0)
		rc = mdns_name_from_label(&r->n_host, r->host, "local");
	if (rc == 0)
		rc = mdns_name_from_str(&r->n_enum,
					"_services._dns-sd._udp.local");
	snprintf(rest, sizeof(rest), "_sub.%s.local", r->type);
	for (unsigned i = 0; rc == 0 && i < r->nsub; i++)
		rc = mdns_name_from_label(&r->n_sub[i], r->sub[i], rest);
	return rc;
}

static void resp_restart_probe(struct mdns_responder *r, uint64_t delay)
{
	r->state = MDNS_PROBING;
	r->step = 0;
	r->next = mdns_socket_now_ms() + delay;
	memset(r->pend_mask, 0, sizeof(r->pend_mask));
}

/* Picks the next name after a conflict: "NAME (2)" or "HOST-2". */
static void resp_rename(struct mdns_responder *r, bool host)
{
	char sfx[16], *dst = host ? r->host : r->inst;
	const char *base = host ? r->hbase : r->base;
	unsigned *n = host ? &r->host_n : &r->inst_n;
	uint64_t t = mdns_socket_now_ms();
	size_t bl, sl;

	*n = *n ? *n + 1 : 2;
	sl = (size_t)snprintf(sfx, sizeof(sfx), host ? "-%u" : " (%u)", *n);
	bl = strlen(base);
	if (bl + sl > MDNS_LABEL_MAX) {
		bl = MDNS_LABEL_MAX - sl;
		while (bl > 0 && ((unsigned char)base[bl] & 0xc0) == 0x80)
			bl--;	/* do not split a UTF-8 character */
	}
	snprintf(dst, MDNS_LABEL_MAX + 1, "%.*s%s", (int)bl, base, sfx);
	resp_names(r);
	r->net.st.renames++;
	mdns_socket_log(&r->net, "name conflict: now using %s '%s'",
			host ? "host name" : "instance name", dst);
	/* §8.1: after 15 conflicts in 10 s, wait 5 s between probes. */
	if (t - r->conflict_window > 10000) {
		r->conflict_window = t;
		r->conflicts_recent = 0;
	}
	resp_restart_probe(r, ++r->conflicts_recent >= 15 ? 5000 : 0);
}

/* Sends the records in mask on f as one multicast response (or a probe
 * when probe is set: questions for our names, records in authority).
 * ttl0 sends goodbyes. */
static void resp_send(struct mdns_responder *r, struct mdns_if *f,
		      unsigned mask, bool probe, bool ttl0)
{
	struct mdns_builder b;
	struct mdns_rr rr;
	uint64_t t = mdns_socket_now_ms();
	int k;

	mdns_build_init(&b, r->out, sizeof(r->out), 0,
			probe ? 0 : MDNS_FLAG_QR | MDNS_FLAG_AA);
	if (probe) {
		/* Not QU: a unicast reply to port 5353 would reach only one
		 * of the sockets sharing it on the prober's host. */
		mdns_build_question(&b, &r->n_inst, MDNS_TYPE_ANY,
				    MDNS_CLASS_IN);
		mdns_build_question(&b, &r->n_host, MDNS_TYPE_ANY,
				    MDNS_CLASS_IN);
	}
	for (k = 0; k < R_COUNT; k++) {
		if (!(mask & (1u << k)))
			continue;
		resp_rr(r, k, f, &rr);
		if (ttl0)
			rr.ttl = 0;
		if (mdns_build_rr(&b, probe ? MDNS_SEC_AUTHORITY :
				  MDNS_SEC_ANSWER, &rr) == 0)
			f->last_mc[k] = t;
	}
	mdns_socket_send_mc(&r->net, f, r->out, mdns_build_finish(&b));
}

#define ALL_RECORDS ((1u << R_PTR) | (1u << R_ENUM) | (1u << R_SRV) | \
		     (1u << R_TXT) | (1u << R_A))

/* Every record announced: ALL_RECORDS and the subtype PTRs listed. */
static unsigned resp_all(const struct mdns_responder *r)
{
	return ALL_RECORDS | (((1u << r->nsub) - 1) << R_SUB0);
}
#define PROBE_RECORDS ((1u << R_SRV) | (1u << R_TXT) | (1u << R_A))

/* §8.2 simultaneous probe tie-break for one of our names: compares the
 * authority records the other prober gave for name with ours.  Returns
 * true when we lose (theirs sort later). */
static bool resp_tiebreak_lost(struct mdns_responder *r,
			       const struct mdns_msg *m,
			       const struct mdns_name *name,
			       const struct mdns_if *f)
{
	const struct mdns_rr *theirs[8];
	struct mdns_rr ours[3];
	size_t nt = 0, no = 0, i, j;

	for (i = 0; i < m->nrr && nt < 8; i++)
		if (m->rr[i].section == MDNS_SEC_AUTHORITY &&
		    mdns_name_eq(&m->rr[i].name, name))
			theirs[nt++] = &m->rr[i];
	if (nt == 0)
		return false;
	if (mdns_name_eq(name, &r->n_inst)) {
		resp_rr(r, R_SRV, f, &ours[no++]);
		resp_rr(r, R_TXT, f, &ours[no++]);
	} else {
		resp_rr(r, R_A, f, &ours[no++]);
	}
	/* Sort both sets (tiny: insertion sort). */
	for (i = 1; i < nt; i++)
		for (j = i; j > 0 && rr_cmp(theirs[j - 1], theirs[j]) > 0;
		     j--) {
			const struct mdns_rr *t = theirs[j];

			theirs[j] = theirs[j - 1];
			theirs[j - 1] = t;
		}
	if (no == 2 && rr_cmp(&ours[0], &ours[1]) > 0) {
		struct mdns_rr t = ours[0];

		ours[0] = ours[1];
		ours[1] = t;
	}
	for (i = 0; i < nt && i < no; i++) {
		int c = rr_cmp(&ours[i], theirs[i]);

		if (c)
			return c < 0;
	}
	return nt > no;
}

/* Which of our records answer question q (and its additional records). */
static unsigned resp_match(const struct mdns_responder *r,
			   const struct mdns_question *q, unsigned *extra)
{
	unsigned a = 0;
	bool any = q->type == MDNS_TYPE_ANY;

	if (q->qclass != MDNS_CLASS_IN && q->qclass != MDNS_CLASS_ANY)
		return 0;
	if (mdns_name_eq(&q->name, &r->n_type) &&
	    (any || q->type == MDNS_TYPE_PTR)) {
		a |= 1u << R_PTR;
		*extra |= (1u << R_SRV) | (1u << R_TXT) | (1u << R_A);
	}
	if (mdns_name_eq(&q->name, &r->n_enum) &&
	    (any || q->type == MDNS_TYPE_PTR))
		a |= 1u << R_ENUM;
	for (unsigned i = 0; i < r->nsub; i++)
		if (mdns_name_eq(&q->name, &r->n_sub[i]) &&
		    (any || q->type == MDNS_TYPE_PTR)) {
			a |= 1u << (R_SUB0 + i);
			*extra |= (1u << R_SRV) | (1u << R_TXT) | (1u << R_A);
		}
	if (mdns_name_eq(&q->name, &r->n_inst)) {
		if (any || q->type == MDNS_TYPE_SRV) {
			a |= 1u << R_SRV;
			*extra |= 1u << R_A;
		}
		if (any || q->type == MDNS_TYPE_TXT)
			a |= 1u << R_TXT;
	}
	if (mdns_name_eq(&q->name, &r->n_host)) {
		if (any || q->type == MDNS_TYPE_A)
			a |= 1u << R_A;
		else if (q->type == MDNS_TYPE_AAAA)
			a |= 1u << R_NSEC;	/* §6.1: we have no AAAA */
	}
	return a;
}

/* §7.1: drops answers the querier already knows with at least half
 * their TTL left. */
static unsigned resp_known(struct mdns_responder *r, const struct mdns_msg *m,
			   const struct mdns_if *f, unsigned mask)
{
	struct mdns_rr ours;

	for (size_t i = 0; i < m->nrr; i++) {
		const struct mdns_rr *ka = &m->rr[i];

		if (ka->section != MDNS_SEC_ANSWER)
			continue;
		for (int k = 0; k < R_COUNT; k++) {
			if (!(mask & (1u << k)))
				continue;
			resp_rr(r, k, f, &ours);
			if (mdns_name_eq(&ka->name, &ours.name) &&
			    rr_cmp(ka, &ours) == 0 && ka->ttl >= ours.ttl / 2)
				mask &= ~(1u << k);
		}
	}
	return mask;
}

/* §6.7: answers a query from a port other than 5353 directly, with its
 * id and questions, TTL at most 10 and no cache-flush bits. */
static void resp_legacy(struct mdns_responder *r, const struct mdns_msg *m,
			struct mdns_if *f, const struct sockaddr_in *from,
			unsigned ans, unsigned extra)
{
	struct mdns_builder b;
	struct mdns_rr rr;
	size_t i;
	int k, pass;

	mdns_build_init(&b, r->out, sizeof(r->out), m->id,
			MDNS_FLAG_QR | MDNS_FLAG_AA);
	for (i = 0; i < m->nq; i++)
		mdns_build_question(&b, &m->q[i].name, m->q[i].type,
				    m->q[i].qclass);
	for (pass = 0; pass < 2; pass++) {
		unsigned mask = pass ? extra & ~ans : ans;

		for (k = 0; k < R_COUNT; k++) {
			if (!(mask & (1u << k)))
				continue;
			resp_rr(r, k, f, &rr);
			rr.cache_flush = false;
			if (rr.ttl > LEGACY_TTL)
				rr.ttl = LEGACY_TTL;
			mdns_build_rr(&b, pass ? MDNS_SEC_ADDITIONAL :
				      MDNS_SEC_ANSWER, &rr);
		}
	}
	mdns_socket_send(&r->net, f, from, r->out, mdns_build_finish(&b));
	r->net.st.legacy++;
}

/* Sends ans in the answer section and extra in the additional section
 * to dst (multicast group or a QU querier). */
static void resp_answer(struct mdns_responder *r, struct mdns_if *f,
			const struct sockaddr_in *dst, unsigned ans,
			unsigned extra)
{
	struct mdns_builder b;
	struct mdns_rr rr;
	uint64_t t = mdns_socket_now_ms();
	int k, pass;

	mdns_build_init(&b, r->out, sizeof(r->out), 0,
			MDNS_FLAG_QR | MDNS_FLAG_AA);
	for (pass = 0; pass < 2; pass++) {
		unsigned mask = pass ? extra & ~ans : ans;

		for (k = 0; k < R_COUNT; k++) {
			if (!(mask & (1u << k)))
				continue;
			resp_rr(r, k, f, &rr);
			if (mdns_build_rr(&b, pass ? MDNS_SEC_ADDITIONAL :
					  MDNS_SEC_ANSWER, &rr) == 0 && !dst)
				f->last_mc[k] = t;
		}
	}
	if (dst)
		mdns_socket_send(&r->net, f, dst, r->out,
				 mdns_build_finish(&b));
	else
		mdns_socket_send_mc(&r->net, f, r->out, mdns_build_finish(&b));
}

static void resp_query(struct mdns_responder *r, const struct mdns_msg *m,
		       struct mdns_if *f, const struct sockaddr_in *from)
{
	bool legacy = ntohs(from->sin_port) != MDNS_PORT;
	bool probe = false, all_qu = true;
	unsigned ans = 0, extra = 0;
	uint64_t t = mdns_socket_now_ms();
	size_t i;

	for (i = 0; i < m->nrr; i++)
		if (m->rr[i].section == MDNS_SEC_AUTHORITY)
			probe = true;
	for (i = 0; i < m->nq; i++) {
		const struct mdns_question *q = &m->q[i];
		unsigned a = resp_match(r, q, &extra);

		if (a && !q->unicast)
			all_qu = false;
		ans |= a;
		/* Someone probes for a name we are probing for too. */
		if (r->state == MDNS_PROBING && probe && a &&
		    q->type == MDNS_TYPE_ANY) {
			const struct mdns_name *nm = &q->name;

			if (resp_tiebreak_lost(r, m, nm, f)) {
				/* Each of the winner's probes restarts our
				 * wait; report the first only. */
				if (r->step > 0 || r->next <= t) {
					mdns_socket_log(&r->net,
						"simultaneous probe for '%s' lost the tie-break: waiting 1 s",
						mdns_name_eq(nm, &r->n_inst) ?
						r->inst : r->host);
					r->net.st.conflicts++;
				}
				resp_restart_probe(r, 1000);
				return;
			}
		}
	}
	if (!ans || r->state == MDNS_PROBING)
		return;
	r->net.st.queries++;
	if (legacy) {
		resp_legacy(r, m, f, from, ans, extra);
		return;
	}
	extra = resp_known(r, m, f, extra & ~ans);
	ans = resp_known(r, m, f, ans);
	if (!ans)
		return;
	if (all_qu) {
		resp_answer(r, f, from, ans, extra);
		return;
	}
	/* §6: at most once a second per record and link (a quarter second
	 * when defending against a probe). */
	for (int k = 0; k < R_COUNT; k++)
		if ((ans & (1u << k)) && f->last_mc[k] &&
		    t - f->last_mc[k] < (probe ? 250u : 1000u))
			ans &= ~(1u << k);
	if (!ans)
		return;
	i = (size_t)(f - r->net.ifs);
	r->pend_mask[i] |= ans | (extra << 8);
	/* Unique answers go now; shared ones (PTR) wait 20-120 ms so many
	 * responders do not answer at once. */
	if (ans & SHARED_RECORDS) {
		uint64_t at = t + 20 + mdns_socket_rand(&r->net) % 101;

		if (!r->pend_at || at < r->pend_at)
			r->pend_at = at;
	} else {
		r->pend_at = t;
	}
}

/* Looks for records that contradict ours in a response (§9). */
static void resp_response(struct mdns_responder *r, const struct mdns_msg *m)
{
	for (size_t i = 0; i < m->nrr; i++) {
		const struct mdns_rr *rr = &m->rr[i];
		bool host;

		if (rr->ttl == 0 || rr->section == MDNS_SEC_AUTHORITY)
			continue;
		if (mdns_name_eq(&rr->name, &r->n_inst) &&
		    (rr->type == MDNS_TYPE_SRV || rr->type == MDNS_TYPE_TXT))
			host = false;
		else if (mdns_name_eq(&rr->name, &r->n_host) &&
			 rr->type == MDNS_TYPE_A)
			host = true;
		else
			continue;
		if (resp_same(r, rr))
			continue;
		r->net.st.conflicts++;
		if (r->state == MDNS_PROBING) {
			resp_rename(r, host);
		} else {
			/* §9: verify by probing again; a real conflict then
			 * renames. */
			mdns_socket_log(&r->net,
				"conflicting %s record for '%s' after announcing: probing again",
				rr->type == MDNS_TYPE_A ? "A" :
				rr->type == MDNS_TYPE_SRV ? "SRV" : "TXT",
				host ? r->host : r->inst);
			resp_restart_probe(r, 0);
		}
		return;
	}
}

static int resp_timers(struct mdns_responder *r)
{
	uint64_t t = mdns_socket_now_ms();
	size_t i;
	int rc;

	if (t >= r->net.next_scan) {
		rc = mdns_socket_scan(&r->net);
		if (rc > 0 && r->net.nifs) {
			mdns_socket_log(&r->net,
					"interfaces changed: probing again");
			resp_restart_probe(r, mdns_socket_rand(&r->net) % 250);
		}
	}
	if (r->pend_at && t >= r->pend_at) {
		for (i = 0; i < r->net.nifs; i++) {
			unsigned m = r->pend_mask[i];

			if (m)
				resp_answer(r, &r->net.ifs[i], NULL, m & 0xff,
					    (m >> 8) & 0xff);
			r->pend_mask[i] = 0;
		}
		r->pend_at = 0;
	}
	if (t < r->next)
		return 0;
	if (r->state == MDNS_PROBING) {
		if (r->step < 3) {
			for (i = 0; i < r->net.nifs; i++)
				resp_send(r, &r->net.ifs[i], PROBE_RECORDS,
					  true, false);
			r->step++;
			r->next = t + 250;
			return 0;
		}
		r->state = MDNS_ANNOUNCING;
		r->step = 0;
	}
	if (r->state == MDNS_ANNOUNCING) {
		for (i = 0; i < r->net.nifs; i++)
			resp_send(r, &r->net.ifs[i], resp_all(r), false,
				  false);
		if (++r->step >= 2) {
			r->state = MDNS_RUNNING;
			r->next = UINT64_MAX;
		} else {
			r->next = t + 1000;
		}
	}
	return 0;
}

/* Copies the subtype labels subs (NULL: none) into out and their count
 * into *nout, both unchanged on error.  Returns 0 or -EINVAL with the
 * reason in err. */
static int resp_subtypes(char out[][MDNS_LABEL_MAX + 1], unsigned *nout,
			 const char *const *subs, char *err, size_t errlen)
{
	unsigned n;

	for (n = 0; subs && subs[n]; n++)
		if (n >= MDNS_SUBTYPES_MAX || !subs[n][0] ||
		    strlen(subs[n]) > MDNS_LABEL_MAX) {
			snprintf(err, errlen, "subtype '%.63s': want at most "
				 "%d subtypes of 1..%d bytes", subs[n],
				 MDNS_SUBTYPES_MAX, MDNS_LABEL_MAX);
			return -EINVAL;
		}
	for (unsigned i = 0; i < n; i++)
		snprintf(out[i], MDNS_LABEL_MAX + 1, "%s", subs[i]);
	*nout = n;
	return 0;
}

struct mdns_responder *mdns_responder_new(const struct mdns_service *svc,
					  char *err, size_t errlen)
{
	struct mdns_responder *r;
	char hn[256];
	int rc;

	r = calloc(1, sizeof(*r));
	if (!r) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	r->net.fd = -1;
	if (!svc->instance || !*svc->instance ||
	    strlen(svc->instance) > MDNS_LABEL_MAX) {
		snprintf(err, errlen, "instance name '%s': want 1..%d bytes",
			 svc->instance ? svc->instance : "", MDNS_LABEL_MAX);
		goto err;
	}
	snprintf(r->base, sizeof(r->base), "%s", svc->instance);
	snprintf(r->inst, sizeof(r->inst), "%s", svc->instance);
	if (svc->host) {
		snprintf(hn, sizeof(hn), "%s", svc->host);
	} else if (gethostname(hn, sizeof(hn)) != 0 || !hn[0]) {
		snprintf(hn, sizeof(hn), "benchboot");
	}
	hn[strcspn(hn, ".")] = 0;
	if (!hn[0] || strlen(hn) > MDNS_LABEL_MAX) {
		snprintf(err, errlen,
			 "host name '%s': want 1..%d bytes, no dots",
			 svc->host ? svc->host : hn, MDNS_LABEL_MAX);
		goto err;
	}
	snprintf(r->hbase, sizeof(r->hbase), "%s", hn);
	snprintf(r->host, sizeof(r->host), "%s", hn);
	snprintf(r->type, sizeof(r->type), "%s",
		 svc->type ? svc->type : MDNS_SERVICE_TYPE);
	if (svc->port == 0) {
		snprintf(err, errlen, "port 0: want 1..65535");
		goto err;
	}
	r->port = svc->port;
	rc = mdns_txt_encode(svc->txt, r->txt, sizeof(r->txt));
	if (rc < 0) {
		snprintf(err, errlen, "TXT list: %s",
			 rc == -ENOSPC ? "over 512 bytes encoded" :
			 "a string is empty, over 255 bytes or starts with '='");
		goto err;
	}
	r->txt_len = (size_t)rc;
	if (resp_subtypes(r->sub, &r->nsub, svc->subtypes, err, errlen) != 0)
		goto err;
	if (resp_names(r) != 0) {
		snprintf(err, errlen,
			 "service type '%s' or names do not form valid DNS names",
			 r->type);
		goto err;
	}
	if (svc->ifname)
		snprintf(r->only_if, sizeof(r->only_if), "%s", svc->ifname);
	rc = mdns_socket_open(&r->net, svc->ifname ? r->only_if : NULL, true,
			      svc->log, svc->log_arg, err, errlen);
	if (rc != 0)
		goto err;
	/* Read every 100 ms by an agent's loop, while every client of a
	 * step asks the server at once, and answered by unicast to each. */
	mdns_socket_buffers(r->net.fd);
	/* §8.1: wait 0-250 ms before the first probe. */
	resp_restart_probe(r, mdns_socket_rand(&r->net) % 250);
	return r;
err:
	free(r);
	return NULL;
}

int mdns_responder_fd(const struct mdns_responder *r)
{
	return r->net.fd;
}

int mdns_responder_timeout_ms(const struct mdns_responder *r)
{
	uint64_t t = mdns_socket_now_ms(), due = r->net.next_scan;

	if (r->next < due)
		due = r->next;
	if (r->pend_at && r->pend_at < due)
		due = r->pend_at;
	if (due <= t)
		return 0;
	return due - t > 10000 ? 10000 : (int)(due - t);
}

int mdns_responder_handle(struct mdns_responder *r)
{
	struct sockaddr_in from;
	struct mdns_if *f;
	int rc, n;

	for (n = 0; n < 256; n++) {
		rc = mdns_socket_next(&r->net, r->net.fd, r->buf, &r->msg,
				      &from, &f);
		if (rc < 0)
			return rc;
		if (rc == 0)
			break;
		if (rc != 1)
			continue;
		if (r->msg.flags & MDNS_FLAG_QR)
			resp_response(r, &r->msg);
		else
			resp_query(r, &r->msg, f, &from);
	}
	return resp_timers(r);
}

int mdns_responder_set_txt(struct mdns_responder *r, const char *const *txt)
{
	uint8_t tmp[MDNS_TXT_MAX];
	int rc = mdns_txt_encode(txt, tmp, sizeof(tmp));

	if (rc < 0) {
		mdns_socket_log(&r->net,
			"new TXT list rejected: too long or a bad string");
		return -EINVAL;
	}
	memcpy(r->txt, tmp, (size_t)rc);
	r->txt_len = (size_t)rc;
	if (r->state != MDNS_PROBING) {
		r->state = MDNS_ANNOUNCING;
		r->step = 0;
		r->next = mdns_socket_now_ms();
		for (size_t i = 0; i < r->net.nifs; i++)
			memset(r->net.ifs[i].last_mc, 0,
			       sizeof(r->net.ifs[i].last_mc));
	}
	return 0;
}

int mdns_responder_set_subtypes(struct mdns_responder *r,
				const char *const *subtypes)
{
	char sub[MDNS_SUBTYPES_MAX][MDNS_LABEL_MAX + 1], err[160];
	unsigned nsub = 0, gone = 0, i, j;

	/* Checked on a copy first: a bad list changes nothing. */
	if (resp_subtypes(sub, &nsub, subtypes, err, sizeof(err)) != 0) {
		mdns_socket_log(&r->net, "new subtypes rejected: %s", err);
		return -EINVAL;
	}
	for (i = 0; i < r->nsub; i++) {
		for (j = 0; j < nsub; j++)
			if (strcmp(r->sub[i], sub[j]) == 0)
				break;
		if (j == nsub)
			gone |= 1u << (R_SUB0 + i);
	}
	/* §10.1: caches drop a subtype PTR we no longer own. */
	if (gone && r->state != MDNS_PROBING)
		for (i = 0; i < r->net.nifs; i++)
			resp_send(r, &r->net.ifs[i], gone, false, true);
	memcpy(r->sub, sub, sizeof(r->sub));
	r->nsub = nsub;
	if (resp_names(r) != 0) {
		/* Cannot happen: the type and labels were valid names. */
		r->nsub = 0;
		resp_names(r);
		return -EINVAL;
	}
	if (r->state != MDNS_PROBING) {
		r->state = MDNS_ANNOUNCING;
		r->step = 0;
		r->next = mdns_socket_now_ms();
		for (i = 0; i < r->net.nifs; i++)
			memset(r->net.ifs[i].last_mc, 0,
			       sizeof(r->net.ifs[i].last_mc));
	}
	return 0;
}

enum mdns_state mdns_responder_state(const struct mdns_responder *r)
{
	return r->state;
}

const char *mdns_responder_instance(const struct mdns_responder *r)
{
	return r->inst;
}

const char *mdns_responder_host(const struct mdns_responder *r)
{
	return r->host;
}

void mdns_responder_stats(const struct mdns_responder *r,
			  struct mdns_stats *out)
{
	*out = r->net.st;
}

void mdns_responder_free(struct mdns_responder *r)
{
	if (!r)
		return;
	if (r->state != MDNS_PROBING)
		for (size_t i = 0; i < r->net.nifs; i++)
			resp_send(r, &r->net.ifs[i], resp_all(r), false, true);
	if (r->net.fd >= 0)
		close(r->net.fd);
	free(r);
}
