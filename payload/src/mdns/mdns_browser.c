/* mdns/mdns_browser.c: the browser of mdns_browser.h: PTR queries with
 * back-off, follow-ups for what an instance lacks, a cache with TTLs. */
#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/filter.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "mdns/mdns_browser.h"
#include "mdns/mdns_socket.h"
#include "lib/util.h"

#define MAX_INST MDNS_BROWSER_MAX
/* Hosts: one per instance (an agent's host label is its id), and room
 * for as many again whose instances have gone. */
#define MAX_HOSTS (2 * MDNS_BROWSER_MAX)
/* The tables start this large and double up to their maximum. */
#define FIRST_CAP 64

struct binst {
	struct mdns_name name;
	struct mdns_name target;
	/* br_hash() of name and target: every record of every packet is
	 * looked up among up to 2048 instances, on a link where each of
	 * 256 agents answers every query (compared first, names only when
	 * they match). */
	uint32_t nhash, thash;
	uint64_t expires;	/* PTR */
	uint32_t ptr_ttl;	/* the PTR's TTL as heard, s: known answers */
	/* SRV: live responders refresh it with every answer to our PTR
	 * re-queries (at most 60 s apart, TTL 120 s), so an agent that
	 * died without a goodbye is dropped after 2 minutes, not 75. */
	uint64_t srv_expires;
	uint64_t last_query;
	/* Last PTR, SRV or TXT heard for it: a full table gives way from
	 * the oldest. */
	uint64_t heard;
	size_t hix;		/* hosts[] index last found for target */
	bool have_srv, have_txt, reported;
	bool dirty;		/* records arrived: br_update looks again */
	bool keep;		/* conf.keep said so when last resolved */
	int ifindex;
	struct mdns_instance pub;	/* as last reported */
	struct mdns_instance cur;
};

struct bhost {
	struct mdns_name name;
	uint32_t hash;
	struct in_addr addr;
	uint64_t expires;
	uint64_t heard;
};

struct mdns_browser {
	struct mdns_socket net;
	/* One-shot queries (§5.1) go out from an ephemeral port: responders
	 * answer them at once by unicast (§6.7), untouched by the once-a-
	 * second multicast limit another browser may just have triggered.
	 * Continuous PTR queries go from 5353.  efd polls both. */
	int qfd, efd;
	bool oneshot;		/* the next PTR query is one-shot */
	struct mdns_browse_conf conf;
	char only_if[IF_NAMESIZE];
	struct mdns_name n_type;
	/* What PTR queries ask for: n_type, or conf.subtype's
	 * "_sub" name under it (then only PTRs of that name are taken). */
	struct mdns_name n_query;
	bool sub;
	uint64_t next_ptr;
	unsigned ptr_interval;
	struct binst *inst;
	size_t ninst, capinst;
	struct bhost *hosts;
	size_t nhosts, caphosts;
	bool full_logged;	/* the table filled up: said once */
	uint8_t buf[MDNS_PACKET_MAX + 1];
	uint8_t out[MDNS_SEND_MAX];
	uint8_t cont[MDNS_SEND_MAX];	/* the continuous query */
	struct mdns_msg msg;
};

/* FNV-1a of n, case-folded as mdns_name_eq() compares. */
static uint32_t br_hash(const struct mdns_name *n)
{
	uint32_t h = 2166136261u;

	for (size_t i = 0; i < n->len; i++) {
		uint8_t c = n->data[i];

		h = (h ^ (c >= 'A' && c <= 'Z' ? c + 32 : c)) * 16777619u;
	}
	return h;
}

/* Doubles a table of *cap entries of size sz (up to max).  Returns 0,
 * or -ENOSPC at max, -ENOMEM. */
static int br_grow(void **tab, size_t *cap, size_t sz, size_t max)
{
	size_t nc = *cap ? *cap * 2 : FIRST_CAP;
	void *nt;

	if (*cap >= max)
		return -ENOSPC;
	if (nc > max)
		nc = max;
	nt = realloc(*tab, nc * sz);
	if (!nt)
		return -ENOMEM;
	*tab = nt;
	*cap = nc;
	return 0;
}

static void br_remove(struct mdns_browser *b, size_t i);

/* The instance a full table gives up for a newcomer: the one heard from
 * longest ago among those not resolved yet (a flood of bare PTRs), else
 * among the resolved ones conf.keep does not keep.  A kept instance (by
 * default a controller) never gives way, whatever TTLs the others carry:
 * records that cannot push it out cannot hide it.  Returns its index,
 * or b->ninst when every one is kept. */
static size_t br_victim(const struct mdns_browser *b)
{
	size_t i, best = b->ninst;
	int pass;

	for (pass = 0; pass < 2 && best == b->ninst; pass++)
		for (i = 0; i < b->ninst; i++) {
			const struct binst *in = &b->inst[i];

			if (pass == 0 ? in->reported : in->keep)
				continue;
			if (best == b->ninst ||
			    in->heard < b->inst[best].heard)
				best = i;
		}
	return best;
}

static struct binst *br_inst(struct mdns_browser *b,
			     const struct mdns_name *n, bool create)
{
	uint32_t h = br_hash(n);
	struct binst *in;
	size_t v;

	for (size_t i = 0; i < b->ninst; i++)
		if (b->inst[i].nhash == h && mdns_name_eq(&b->inst[i].name, n))
			return &b->inst[i];
	if (!create)
		return NULL;
	if (b->ninst == b->capinst &&
	    br_grow((void **)&b->inst, &b->capinst, sizeof(*b->inst),
		    MAX_INST) != 0) {
		if (!b->full_logged && b->conf.log) {
			b->full_logged = true;
			b->conf.log(b->conf.log_arg, "browser table full ("
				    "the oldest unresolved or unkept instance "
				    "gives way to a newcomer)");
		}
		v = br_victim(b);
		if (v == b->ninst)
			return NULL;	/* every one kept: drop the newcomer */
		br_remove(b, v);
	}
	in = &b->inst[b->ninst++];
	memset(in, 0, sizeof(*in));
	in->name = *n;
	in->nhash = h;
	in->hix = SIZE_MAX;
	mdns_name_label(n, in->cur.name, sizeof(in->cur.name));
	return in;
}

/* A full host table gives up the host heard from longest ago that no
 * kept instance points at.  Returns its index, or b->nhosts. */
static size_t br_host_victim(const struct mdns_browser *b)
{
	size_t i, j, best = b->nhosts;

	for (i = 0; i < b->nhosts; i++) {
		if (best != b->nhosts &&
		    b->hosts[i].heard >= b->hosts[best].heard)
			continue;
		for (j = 0; j < b->ninst; j++)
			if (b->inst[j].keep &&
			    b->inst[j].thash == b->hosts[i].hash &&
			    mdns_name_eq(&b->inst[j].target,
					 &b->hosts[i].name))
				break;
		if (j == b->ninst)
			best = i;
	}
	return best;
}

static struct bhost *br_host(struct mdns_browser *b,
			     const struct mdns_name *n, bool create)
{
	uint64_t t = mdns_socket_now_ms();
	uint32_t h = br_hash(n);
	size_t i;

	for (i = 0; i < b->nhosts; i++)
		if (b->hosts[i].hash == h && mdns_name_eq(&b->hosts[i].name, n))
			return &b->hosts[i];
	if (!create)
		return NULL;
	for (i = 0; i < b->nhosts; i++)
		if (b->hosts[i].expires < t)
			break;		/* reuse an expired slot */
	if (i == b->nhosts && i == b->caphosts &&
	    br_grow((void **)&b->hosts, &b->caphosts, sizeof(*b->hosts),
		    MAX_HOSTS) != 0) {
		i = br_host_victim(b);
		if (i == b->nhosts)
			return NULL;
	}
	if (i == b->nhosts)
		b->nhosts++;
	memset(&b->hosts[i], 0, sizeof(b->hosts[i]));
	b->hosts[i].name = *n;
	b->hosts[i].hash = h;
	return &b->hosts[i];
}

/* The host of instance in (cached index, checked), or NULL. */
static struct bhost *br_inst_host(struct mdns_browser *b, struct binst *in)
{
	struct bhost *h;

	if (in->hix < b->nhosts && b->hosts[in->hix].hash == in->thash &&
	    mdns_name_eq(&b->hosts[in->hix].name, &in->target))
		return &b->hosts[in->hix];
	h = br_host(b, &in->target, false);
	in->hix = h ? (size_t)(h - b->hosts) : SIZE_MAX;
	return h;
}

static void br_emit(struct mdns_browser *b, enum mdns_event ev,
		    const struct mdns_instance *in)
{
	if (b->conf.cb)
		b->conf.cb(b->conf.cb_arg, ev, in);
}

static void br_remove(struct mdns_browser *b, size_t i)
{
	if (b->inst[i].reported)
		br_emit(b, MDNS_REMOVED, &b->inst[i].pub);
	b->inst[i] = b->inst[--b->ninst];
}

/* Whether a full table keeps in: conf.keep, by default a controller. */
static bool br_keep(struct mdns_browser *b, const struct mdns_instance *in)
{
	const char *v;
	int vl;

	if (b->conf.keep)
		return b->conf.keep(b->conf.cb_arg, in) != 0;
	vl = mdns_txt_get(in->txt, in->txt_len, "role", &v);
	return vl == 10 && memcmp(v, "controller", 10) == 0;
}

/* Reports instances that became resolved or changed (those records
 * arrived for since: a flood of records costs each one look). */
static void br_update(struct mdns_browser *b)
{
	uint64_t t = mdns_socket_now_ms();

	for (size_t i = 0; i < b->ninst; i++) {
		struct binst *in = &b->inst[i];
		struct bhost *h;

		if (!in->dirty || !in->have_srv || !in->have_txt)
			continue;
		h = br_inst_host(b, in);
		if (!h || h->expires < t)
			continue;
		in->dirty = false;
		inet_ntop(AF_INET, &h->addr, in->cur.addr,
			  sizeof(in->cur.addr));
		if (!in->reported) {
			in->reported = true;
			in->pub = in->cur;
			in->keep = br_keep(b, &in->pub);
			br_emit(b, MDNS_FOUND, &in->pub);
		} else if (memcmp(&in->pub, &in->cur, sizeof(in->cur))) {
			in->pub = in->cur;
			in->keep = br_keep(b, &in->pub);
			br_emit(b, MDNS_CHANGED, &in->pub);
		}
	}
}

/* TTL to cache a record for.  Unicast (legacy) answers carry at most
 * 10 s (§6.7), shorter than our re-query interval: keep those 120 s. */
static uint64_t br_ttl_ms(uint32_t ttl, bool legacy)
{
	if (legacy && ttl && ttl < MDNS_TTL_HOST)
		ttl = MDNS_TTL_HOST;
	return (uint64_t)ttl * 1000;
}

/* Instances on host n are looked at again by br_update. */
static void br_host_dirty(struct mdns_browser *b, const struct mdns_name *n)
{
	uint32_t h = br_hash(n);

	for (size_t i = 0; i < b->ninst; i++)
		if (b->inst[i].have_srv && b->inst[i].thash == h &&
		    mdns_name_eq(&b->inst[i].target, n))
			b->inst[i].dirty = true;
}

/* Whether n is the SRV target of an instance we follow. */
static bool br_is_target(const struct mdns_browser *b,
			 const struct mdns_name *n)
{
	uint32_t h = br_hash(n);

	for (size_t i = 0; i < b->ninst; i++)
		if (b->inst[i].have_srv && b->inst[i].thash == h &&
		    mdns_name_eq(&b->inst[i].target, n))
			return true;
	return false;
}

static void br_response(struct mdns_browser *b, const struct mdns_msg *m,
			const struct mdns_if *f, bool legacy)
{
	uint64_t t = mdns_socket_now_ms();
	size_t i;

	/* PTRs first: the SRV/TXT/A of the same packet then find them. */
	for (i = 0; i < m->nrr; i++) {
		const struct mdns_rr *rr = &m->rr[i];
		struct binst *in;

		if (rr->type != MDNS_TYPE_PTR ||
		    !mdns_name_eq(&rr->name, &b->n_query) ||
		    !mdns_name_is_child(&rr->u.ptr, &b->n_type))
			continue;
		in = br_inst(b, &rr->u.ptr, rr->ttl != 0);
		if (!in)
			continue;
		if (rr->ttl == 0) {
			br_remove(b, (size_t)(in - b->inst));
			continue;
		}
		in->expires = t + br_ttl_ms(rr->ttl, legacy);
		in->ptr_ttl = (uint32_t)(br_ttl_ms(rr->ttl, legacy) / 1000);
		in->heard = t;
		in->dirty = true;
		if (!in->ifindex) {
			in->ifindex = f->index;
			snprintf(in->cur.ifname, sizeof(in->cur.ifname), "%s",
				 f->name);
		}
	}
	for (i = 0; i < m->nrr; i++) {
		const struct mdns_rr *rr = &m->rr[i];
		struct binst *in;
		struct bhost *h;

		switch (rr->type) {
		case MDNS_TYPE_SRV:
			in = br_inst(b, &rr->name, false);
			if (!in)
				break;
			if (rr->ttl == 0) {	/* goodbye */
				br_remove(b, (size_t)(in - b->inst));
				break;
			}
			in->srv_expires = t + br_ttl_ms(rr->ttl, legacy);
			in->heard = t;
			in->dirty = true;
			in->have_srv = true;
			in->target = rr->u.srv.target;
			in->thash = br_hash(&in->target);
			in->cur.port = rr->u.srv.port;
			mdns_name_to_str(&rr->u.srv.target, in->cur.host,
					 sizeof(in->cur.host));
			break;
		case MDNS_TYPE_TXT:
			in = br_inst(b, &rr->name, false);
			if (!in || rr->ttl == 0 || rr->rdlen > MDNS_TXT_MAX)
				break;
			in->have_txt = true;
			in->dirty = true;
			memcpy(in->cur.txt, rr->rdata, rr->rdlen);
			in->cur.txt_len = rr->rdlen;
			break;
		case MDNS_TYPE_A:
			/* A subtype's browser keeps only its instances' hosts,
			 * not those of every agent announcing on the link. */
			h = br_host(b, &rr->name, rr->ttl != 0 &&
				    (!b->sub || br_is_target(b, &rr->name)));
			if (!h)
				break;
			memcpy(&h->addr, rr->u.a, 4);
			h->expires = rr->ttl ? t + br_ttl_ms(rr->ttl, legacy) :
				     0;
			h->heard = t;
			br_host_dirty(b, &rr->name);
			break;
		}
	}
	br_update(b);
}

/* Sends q (if it holds a question) on f from fd. */
static void br_send(struct mdns_browser *b, struct mdns_if *f,
		    struct mdns_builder *q, int fd)
{
	size_t len = mdns_build_finish(q);

	if (len <= 12)
		return;
	b->net.tx_fd = fd;
	mdns_socket_send_mc(&b->net, f, q->buf, len);
	b->net.tx_fd = -1;
}

/* §7.1: the instances on f whose PTR we hold with over half its TTL
 * left, as answers in the continuous query c, so their responders do
 * not answer again: as many as fit (no TC continuation, §7.2). */
static void br_known(struct mdns_browser *b, const struct mdns_if *f,
		     struct mdns_builder *c, uint64_t t)
{
	struct mdns_rr rr;

	memset(&rr, 0, sizeof(rr));
	rr.name = b->n_query;
	rr.type = MDNS_TYPE_PTR;
	rr.rclass = MDNS_CLASS_IN;
	for (size_t i = 0; i < b->ninst; i++) {
		const struct binst *in = &b->inst[i];
		uint64_t left = in->expires > t ? (in->expires - t) / 1000 : 0;

		if ((in->ifindex && in->ifindex != f->index) ||
		    left * 2 <= in->ptr_ttl)
			continue;
		rr.ttl = (uint32_t)left;
		rr.u.ptr = in->name;
		if (mdns_build_rr(c, MDNS_SEC_ANSWER, &rr) != 0)
			break;
	}
}

static void br_query(struct mdns_browser *b)
{
	uint8_t *cont = b->cont;
	uint64_t t = mdns_socket_now_ms();
	struct mdns_builder q, c;
	bool ptr = t >= b->next_ptr;
	size_t i, j;

	for (i = 0; i < b->net.nifs; i++) {
		struct mdns_if *f = &b->net.ifs[i];

		/* q: one-shot (first PTR, follow-ups); c: continuous. */
		mdns_build_init(&q, b->out, sizeof(b->out), 0, 0);
		mdns_build_init(&c, cont, sizeof(b->cont), 0, 0);
		if (ptr && b->oneshot) {
			mdns_build_question(&q, &b->n_query, MDNS_TYPE_PTR,
					    MDNS_CLASS_IN);
		} else if (ptr) {
			mdns_build_question(&c, &b->n_query, MDNS_TYPE_PTR,
					    MDNS_CLASS_IN);
			br_known(b, f, &c, t);
		}
		/* Follow-ups for what a found instance still lacks. */
		for (j = 0; j < b->ninst; j++) {
			struct binst *in = &b->inst[j];
			struct bhost *h;

			if (in->ifindex && in->ifindex != f->index)
				continue;
			if (t - in->last_query < 1000)
				continue;
			if (!in->have_srv || !in->have_txt) {
				mdns_build_question(&q, &in->name,
						    MDNS_TYPE_ANY,
						    MDNS_CLASS_IN);
				in->last_query = t;
				continue;
			}
			h = br_inst_host(b, in);
			if (!h || h->expires < t) {
				mdns_build_question(&q, &in->target,
						    MDNS_TYPE_A,
						    MDNS_CLASS_IN);
				in->last_query = t;
			}
		}
		br_send(b, f, &q, b->qfd >= 0 ? b->qfd : b->net.fd);
		br_send(b, f, &c, b->net.fd);
	}
	if (ptr) {
		b->oneshot = false;
		b->next_ptr = t + b->ptr_interval;
		b->ptr_interval = b->ptr_interval * 2 > 60000 ? 60000 :
				  b->ptr_interval * 2;
	}
}

static void br_timers(struct mdns_browser *b)
{
	uint64_t t = mdns_socket_now_ms();

	if (t >= b->net.next_scan && mdns_socket_scan(&b->net) > 0) {
		b->next_ptr = t;	/* a new link: ask there at once */
		b->ptr_interval = 1000;
		b->oneshot = true;
	}
	for (size_t i = 0; i < b->ninst;) {
		const struct binst *in = &b->inst[i];

		if ((in->expires && in->expires < t) ||
		    (in->srv_expires && in->srv_expires < t))
			br_remove(b, i);
		else
			i++;
	}
	br_query(b);
}

/* Room for every answer to one query: each of 1024 agents answers a
 * one-shot query at once with about 400 bytes, over 1 KiB of buffer
 * each as the kernel counts it (mdns_socket_buffers: without it a browse
 * found a fraction of a rack). */
static void br_rcvbuf(int fd)
{
	mdns_socket_buffers(fd);
}

/* Only responses reach the browser's 5353 socket: the kernel drops
 * queries (QR clear) before they wake us.  While 256 agents search, every
 * packet on the link is a query, and every agent read and parsed each
 * one on each of its sockets for nothing.  (A UDP socket's filter sees
 * the packet from the UDP header: the DNS flags are at byte 10; a packet
 * too short to hold them is dropped too.)  Without the filter (an old
 * kernel) the browser still ignores queries itself. */
static void br_filter(int fd)
{
	static struct sock_filter code[] = {
		BPF_STMT(BPF_LD | BPF_B | BPF_ABS, 8 + 2),
		BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, 0x80, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, 0xffffffffu),
		BPF_STMT(BPF_RET | BPF_K, 0),
	};
	struct sock_fprog prog = { sizeof(code) / sizeof(code[0]), code };

	setsockopt(fd, SOL_SOCKET, SO_ATTACH_FILTER, &prog, sizeof(prog));
}

static int br_open_oneshot(struct mdns_browser *b, char *err, size_t errlen)
{
	struct epoll_event ev = { .events = EPOLLIN };
	struct sockaddr_in sa = { .sin_family = AF_INET };
	int one = 1, ttl = 255;

	b->qfd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
			0);
	b->efd = epoll_create1(EPOLL_CLOEXEC);
	if (b->qfd < 0 || b->efd < 0)
		goto err;
	setsockopt(b->qfd, IPPROTO_IP, IP_PKTINFO, &one, sizeof(one));
	setsockopt(b->qfd, IPPROTO_IP, IP_MULTICAST_TTL, &ttl, sizeof(ttl));
	setsockopt(b->qfd, IPPROTO_IP, IP_MULTICAST_LOOP, &one, sizeof(one));
	br_rcvbuf(b->qfd);
	if (bind(b->qfd, (struct sockaddr *)&sa, sizeof(sa)) != 0)
		goto err;
	ev.data.fd = b->net.fd;
	if (epoll_ctl(b->efd, EPOLL_CTL_ADD, b->net.fd, &ev) != 0)
		goto err;
	ev.data.fd = b->qfd;
	if (epoll_ctl(b->efd, EPOLL_CTL_ADD, b->qfd, &ev) != 0)
		goto err;
	return 0;
err:
	one = errno;
	return util_fail(err, errlen, -one, "one-shot query socket: %s",
			 strerror(one));
}

struct mdns_browser *mdns_browser_new(const struct mdns_browse_conf *conf,
				      char *err, size_t errlen)
{
	char tn[MDNS_NAME_STR_MAX + 16];
	struct mdns_browser *b;

	b = calloc(1, sizeof(*b));
	if (!b) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	b->conf = *conf;
	b->qfd = b->efd = -1;
	snprintf(tn, sizeof(tn), "%s.local",
		 conf->type ? conf->type : MDNS_SERVICE_TYPE);
	if (mdns_name_from_str(&b->n_type, tn) != 0) {
		snprintf(err, errlen,
			 "service type '%s' is not a valid DNS name",
			 conf->type);
		free(b);
		return NULL;
	}
	b->n_query = b->n_type;
	snprintf(tn, sizeof(tn), "_sub.%s.local",
		 conf->type ? conf->type : MDNS_SERVICE_TYPE);
	if (conf->subtype && (!conf->subtype[0] ||
	    mdns_name_from_label(&b->n_query, conf->subtype, tn) != 0)) {
		snprintf(err, errlen, "subtype '%.63s': want 1..%d bytes",
			 conf->subtype, MDNS_LABEL_MAX);
		free(b);
		return NULL;
	}
	b->sub = conf->subtype != NULL;
	if (conf->ifname)
		snprintf(b->only_if, sizeof(b->only_if), "%s", conf->ifname);
	if (mdns_socket_open(&b->net, conf->ifname ? b->only_if : NULL, false,
			     conf->log, conf->log_arg, err, errlen) != 0) {
		free(b);
		return NULL;
	}
	br_rcvbuf(b->net.fd);
	br_filter(b->net.fd);
	/* On 5353 already: add the one-shot socket.  (Without 5353 every
	 * query is one-shot from the socket we have.) */
	if (b->net.port5353 && br_open_oneshot(b, err, errlen) != 0) {
		mdns_browser_free(b);
		return NULL;
	}
	b->ptr_interval = 1000;
	b->oneshot = true;
	br_query(b);
	return b;
}

int mdns_browser_fd(const struct mdns_browser *b)
{
	return b->efd >= 0 ? b->efd : b->net.fd;
}

int mdns_browser_timeout_ms(const struct mdns_browser *b)
{
	uint64_t t = mdns_socket_now_ms(), due = b->next_ptr;

	if (b->net.next_scan < due)
		due = b->net.next_scan;
	for (size_t i = 0; i < b->ninst; i++)
		if (!b->inst[i].reported)
			due = due < t + 1000 ? due : t + 1000;
	if (due <= t)
		return 0;
	return due - t > 10000 ? 10000 : (int)(due - t);
}

int mdns_browser_handle(struct mdns_browser *b)
{
	struct sockaddr_in from;
	struct mdns_if *f;
	int rc, n;

	for (int k = 0; k < 2; k++) {
		int fd = k ? b->qfd : b->net.fd;
		bool legacy = k || !b->net.port5353;

		for (n = 0; fd >= 0 && n < 256; n++) {
			rc = mdns_socket_next(&b->net, fd, b->buf, &b->msg,
					      &from, &f);
			if (rc < 0)
				return rc;
			if (rc == 0)
				break;
			if (rc == 1 && (b->msg.flags & MDNS_FLAG_QR))
				br_response(b, &b->msg, f, legacy);
		}
	}
	br_timers(b);
	return 0;
}

const struct mdns_instance *mdns_browser_get(const struct mdns_browser *b,
					     size_t i)
{
	for (size_t j = 0; j < b->ninst; j++)
		if (b->inst[j].reported && i-- == 0)
			return &b->inst[j].pub;
	return NULL;
}

void mdns_browser_stats(const struct mdns_browser *b, struct mdns_stats *out)
{
	*out = b->net.st;
}

void mdns_browser_free(struct mdns_browser *b)
{
	if (!b)
		return;
	if (b->net.fd >= 0)
		close(b->net.fd);
	if (b->qfd >= 0)
		close(b->qfd);
	if (b->efd >= 0)
		close(b->efd);
	free(b->inst);
	free(b->hosts);
	free(b);
}

int mdns_browse(const char *type, const char *subtype, const char *ifname,
		int timeout_ms, struct mdns_instance *out, size_t max,
		size_t *n, char *err, size_t errlen)
{
	struct mdns_browse_conf conf = { .type = type, .subtype = subtype,
					 .ifname = ifname };
	const struct mdns_instance *in;
	struct mdns_browser *b;
	uint64_t end = mdns_socket_now_ms() +
		       (uint64_t)(timeout_ms > 0 ? timeout_ms : 0);
	int rc = 0;

	*n = 0;
	b = mdns_browser_new(&conf, err, errlen);
	if (!b)
		return -EIO;
	for (;;) {
		uint64_t t = mdns_socket_now_ms();
		struct pollfd p = { mdns_browser_fd(b), POLLIN, 0 };
		int to = mdns_browser_timeout_ms(b);

		if (t >= end)
			break;
		if ((uint64_t)to > end - t)
			to = (int)(end - t);
		if (poll(&p, 1, to) < 0 && errno != EINTR) {
			rc = -errno;
			snprintf(err, errlen, "poll: %s", strerror(errno));
			break;
		}
		rc = mdns_browser_handle(b);
		if (rc != 0) {
			snprintf(err, errlen, "receive: %s", strerror(-rc));
			break;
		}
	}
	while (*n < max && (in = mdns_browser_get(b, *n)))
		out[(*n)++] = *in;
	mdns_browser_free(b);
	return rc;
}
