/* mdns/mdns_net.c: the socket half of mdns.h: the responder that probes,
 * announces, answers and says goodbye for one service instance, the
 * browser, and `benchboot mdns`. */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "mdns/mdns.h"
#include "lib/util.h"

#define MAX_IFS 32
#define RESCAN_MS 5000
#define TTL_HOST 120		/* RFC 6762 §10: host-name records */
#define TTL_OTHER 4500		/* everything else */
#define LEGACY_TTL 10		/* §6.7 */
#define LOG_BURST 20		/* logged rejections per 10 s */

/* --- shared socket and interface handling ------------------------------ */

struct mif {
	int index;
	char name[IF_NAMESIZE];
	struct in_addr addr, mask;
	bool seen;
	uint64_t last_mc[8];	/* per record kind, ms: §6 rate limit */
};

struct mnet {
	int fd;
	int tx_fd;		/* what net_send() sends from: fd or a
				 * browser's one-shot socket */
	bool port5353;
	const char *only_if;	/* NULL = all */
	struct mif ifs[MAX_IFS];
	size_t nifs;
	uint64_t next_scan;
	struct mdns_stats st;
	mdns_log_fn log;
	void *log_arg;
	uint64_t log_window;
	unsigned log_n, log_suppressed;
	uint64_t rnd;
};

static uint64_t now_ms(void)
{
	return util_mono_ns() / 1000000u;
}

static uint32_t net_rand(struct mnet *n)
{
	n->rnd ^= n->rnd << 13;
	n->rnd ^= n->rnd >> 7;
	n->rnd ^= n->rnd << 17;
	return (uint32_t)(n->rnd >> 11);
}

static void net_log(struct mnet *n, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void net_log(struct mnet *n, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (n->log)
		n->log(n->log_arg, msg);
	else
		fprintf(stderr, "benchboot mdns: %s\n", msg);
}

/* Rejections are logged, but a flood of them must not flood the log. */
static void net_log_bad(struct mnet *n, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void net_log_bad(struct mnet *n, const char *fmt, ...)
{
	uint64_t t = now_ms();
	char msg[1024];
	va_list ap;

	if (t - n->log_window >= 10000) {
		if (n->log_suppressed)
			net_log(n, "%u more rejected packets not logged",
				n->log_suppressed);
		n->log_window = t;
		n->log_n = n->log_suppressed = 0;
	}
	if (++n->log_n > LOG_BURST) {
		n->log_suppressed++;
		return;
	}
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	net_log(n, "%s", msg);
}

static struct mif *net_if(struct mnet *n, int index)
{
	for (size_t i = 0; i < n->nifs; i++)
		if (n->ifs[i].index == index)
			return &n->ifs[i];
	return NULL;
}

static int net_join(struct mnet *n, struct mif *f, bool join)
{
	struct ip_mreqn mr;

	memset(&mr, 0, sizeof(mr));
	inet_pton(AF_INET, MDNS_GROUP4, &mr.imr_multiaddr);
	mr.imr_ifindex = f->index;
	if (setsockopt(n->fd, IPPROTO_IP, join ? IP_ADD_MEMBERSHIP :
		       IP_DROP_MEMBERSHIP, &mr, sizeof(mr)) != 0 &&
	    !(join && errno == EADDRINUSE))
		return -errno;
	return 0;
}

/* Re-reads the interface list: joins the group on new links, drops gone
 * ones.  Returns 1 when the set or an address changed, 0 when not, or a
 * negative errno. */
static int net_scan(struct mnet *n)
{
	struct ifaddrs *ifa, *a;
	bool changed = false;
	size_t i;

	if (getifaddrs(&ifa) != 0)
		return -errno;
	for (i = 0; i < n->nifs; i++)
		n->ifs[i].seen = false;
	for (a = ifa; a; a = a->ifa_next) {
		struct sockaddr_in *sin = (struct sockaddr_in *)a->ifa_addr;
		struct mif *f;
		int idx;

		if (!sin || sin->sin_family != AF_INET ||
		    !(a->ifa_flags & IFF_UP) ||
		    !(a->ifa_flags & IFF_MULTICAST) ||
		    (a->ifa_flags & IFF_LOOPBACK))
			continue;
		if (n->only_if && strcmp(n->only_if, a->ifa_name) != 0)
			continue;
		idx = (int)if_nametoindex(a->ifa_name);
		if (idx <= 0)
			continue;
		f = net_if(n, idx);
		if (f && f->seen)
			continue;	/* first address per link only */
		if (!f) {
			if (n->nifs == MAX_IFS)
				continue;
			f = &n->ifs[n->nifs];
			memset(f, 0, sizeof(*f));
			f->index = idx;
			snprintf(f->name, sizeof(f->name), "%s", a->ifa_name);
			if (net_join(n, f, true) != 0) {
				net_log(n, "cannot join %s on %s: %s",
					MDNS_GROUP4, f->name,
					strerror(errno));
				continue;
			}
			n->nifs++;
			changed = true;
		} else if (f->addr.s_addr != sin->sin_addr.s_addr) {
			changed = true;
		}
		f->addr = sin->sin_addr;
		f->mask = a->ifa_netmask ? ((struct sockaddr_in *)
					    a->ifa_netmask)->sin_addr :
			  (struct in_addr){ 0 };
		f->seen = true;
	}
	freeifaddrs(ifa);
	for (i = 0; i < n->nifs;) {
		if (!n->ifs[i].seen) {
			net_join(n, &n->ifs[i], false);
			n->ifs[i] = n->ifs[--n->nifs];
			changed = true;
		} else {
			i++;
		}
	}
	n->next_scan = now_ms() + RESCAN_MS;
	return changed ? 1 : 0;
}

static int net_open(struct mnet *n, const char *only_if, bool want5353,
		    mdns_log_fn log, void *log_arg, char *err,
		    size_t errlen)
{
	struct sockaddr_in sa;
	int one = 1, ttl = 255, rc;

	memset(n, 0, sizeof(*n));
	n->tx_fd = -1;
	n->only_if = only_if;
	n->log = log;
	n->log_arg = log_arg;
	n->rnd = util_mono_ns() ^ ((uint64_t)getpid() << 32) ^
		 util_real_ns();
	if (!n->rnd)
		n->rnd = 88172645463325252ull;
	n->fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
		       0);
	if (n->fd < 0) {
		rc = -errno;
		return util_fail(err, errlen, rc, "socket: %s",
				 strerror(errno));
	}
	setsockopt(n->fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	setsockopt(n->fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof(one));
	setsockopt(n->fd, IPPROTO_IP, IP_PKTINFO, &one, sizeof(one));
	/* RFC 6762 §11: send with IP TTL 255. */
	setsockopt(n->fd, IPPROTO_IP, IP_MULTICAST_TTL, &ttl, sizeof(ttl));
	setsockopt(n->fd, IPPROTO_IP, IP_TTL, &ttl, sizeof(ttl));
	/* Other benchboot processes on this host must hear us. */
	setsockopt(n->fd, IPPROTO_IP, IP_MULTICAST_LOOP, &one, sizeof(one));
	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_port = htons(MDNS_PORT);
	n->port5353 = true;
	if (bind(n->fd, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
		if (want5353) {
			rc = -errno;
			snprintf(err, errlen, "bind 0.0.0.0:%d: %s",
				 MDNS_PORT, strerror(errno));
			goto err;
		}
		/* A browser can work with one-shot legacy queries. */
		n->port5353 = false;
		sa.sin_port = 0;
		if (bind(n->fd, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
			rc = -errno;
			snprintf(err, errlen, "bind: %s", strerror(errno));
			goto err;
		}
	}
	rc = net_scan(n);
	if (rc < 0) {
		snprintf(err, errlen, "getifaddrs: %s", strerror(-rc));
		goto err;
	}
	if (n->nifs == 0) {
		rc = -ENODEV;
		snprintf(err, errlen,
			 "no up, multicast-capable interface with an IPv4 address%s%s",
			 only_if ? " named " : "", only_if ? only_if : "");
		goto err;
	}
	return 0;
err:
	close(n->fd);
	n->fd = -1;
	return rc;
}

static int net_send(struct mnet *n, const struct mif *f,
		    const struct sockaddr_in *to, const uint8_t *buf,
		    size_t len)
{
	char cbuf[CMSG_SPACE(sizeof(struct in_pktinfo))];
	struct iovec iov = { (void *)buf, len };
	struct msghdr mh;
	struct cmsghdr *cm;
	struct in_pktinfo *pi;

	memset(&mh, 0, sizeof(mh));
	memset(cbuf, 0, sizeof(cbuf));
	mh.msg_name = (void *)to;
	mh.msg_namelen = sizeof(*to);
	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	mh.msg_control = cbuf;
	mh.msg_controllen = sizeof(cbuf);
	cm = CMSG_FIRSTHDR(&mh);
	cm->cmsg_level = IPPROTO_IP;
	cm->cmsg_type = IP_PKTINFO;
	cm->cmsg_len = CMSG_LEN(sizeof(struct in_pktinfo));
	pi = (struct in_pktinfo *)CMSG_DATA(cm);
	pi->ipi_ifindex = f->index;
	pi->ipi_spec_dst = f->addr;
	if (sendmsg(n->tx_fd >= 0 ? n->tx_fd : n->fd, &mh, 0) < 0) {
		n->st.tx_err++;
		return -errno;
	}
	n->st.tx++;
	return 0;
}

static int net_send_mc(struct mnet *n, const struct mif *f,
		       const uint8_t *buf, size_t len)
{
	struct sockaddr_in to;

	memset(&to, 0, sizeof(to));
	to.sin_family = AF_INET;
	to.sin_port = htons(MDNS_PORT);
	inet_pton(AF_INET, MDNS_GROUP4, &to.sin_addr);
	return net_send(n, f, &to, buf, len);
}

/* Reads one datagram: returns its length, 0 when none is pending, or a
 * negative errno.  *ifindex is the arrival interface. */
static ssize_t net_recv(struct mnet *n, int fd, uint8_t *buf, size_t size,
			struct sockaddr_in *from, int *ifindex)
{
	char cbuf[CMSG_SPACE(sizeof(struct in_pktinfo))];
	struct iovec iov = { buf, size };
	struct msghdr mh;
	struct cmsghdr *cm;
	ssize_t r;

	memset(&mh, 0, sizeof(mh));
	mh.msg_name = from;
	mh.msg_namelen = sizeof(*from);
	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	mh.msg_control = cbuf;
	mh.msg_controllen = sizeof(cbuf);
	r = recvmsg(fd, &mh, MSG_TRUNC);
	if (r < 0)
		return errno == EAGAIN || errno == EWOULDBLOCK ||
		       errno == EINTR ? 0 : -errno;
	*ifindex = 0;
	for (cm = CMSG_FIRSTHDR(&mh); cm; cm = CMSG_NXTHDR(&mh, cm))
		if (cm->cmsg_level == IPPROTO_IP &&
		    cm->cmsg_type == IP_PKTINFO)
			*ifindex = ((struct in_pktinfo *)
				    CMSG_DATA(cm))->ipi_ifindex;
	n->st.rx++;
	if (mh.msg_flags & MSG_TRUNC)
		return (ssize_t)size + 1;	/* caller rejects: too big */
	return r;
}

/* Reads, parses and filters one datagram from fd.  Returns 1 with m
 * filled and *fp the arrival interface, 0 when nothing (more) is pending,
 * 2 for a dropped datagram (logged), or a negative errno. */
static int net_next(struct mnet *n, int fd, uint8_t *buf, struct mdns_msg *m,
		    struct sockaddr_in *from, struct mif **fp)
{
	char err[512], src[INET_ADDRSTRLEN];
	int ifindex = 0, rc;
	ssize_t r;

	r = net_recv(n, fd, buf, MDNS_PACKET_MAX, from, &ifindex);
	if (r <= 0)
		return (int)r;
	inet_ntop(AF_INET, &from->sin_addr, src, sizeof(src));
	*fp = net_if(n, ifindex);
	if (!*fp) {
		n->st.rx_ignored++;
		return 2;	/* not a link we serve */
	}
	if (r > MDNS_PACKET_MAX) {
		n->st.rx_bad++;
		net_log_bad(n, "dropped packet from %s:%u on %s: over %d bytes",
			    src, ntohs(from->sin_port), (*fp)->name,
			    MDNS_PACKET_MAX);
		return 2;
	}
	rc = mdns_parse(buf, (size_t)r, m, err, sizeof(err));
	if (rc != 0) {
		n->st.rx_bad++;
		net_log_bad(n,
			    "dropped packet from %s:%u on %s (%zd bytes): %s",
			    src, ntohs(from->sin_port), (*fp)->name, r, err);
		return 2;
	}
	/* RFC 6762 §18.3, §18.11: other opcodes and rcodes are ignored. */
	if (MDNS_OPCODE(m->flags) != 0 || MDNS_RCODE(m->flags) != 0) {
		n->st.rx_ignored++;
		return 2;
	}
	/* §11: a unicast packet must come from our own link. */
	if (((from->sin_addr.s_addr ^ (*fp)->addr.s_addr) &
	     (*fp)->mask.s_addr) != 0 && ntohs(from->sin_port) != MDNS_PORT) {
		n->st.rx_ignored++;
		return 2;
	}
	return 1;
}

/* --- responder --------------------------------------------------------- */

/* Record kinds the responder owns; also bit positions in masks. */
enum { R_PTR, R_ENUM, R_SRV, R_TXT, R_A, R_NSEC, R_COUNT };

struct mdns_responder {
	struct mnet net;
	char base[MDNS_LABEL_MAX + 1];		/* instance as asked */
	char inst[MDNS_LABEL_MAX + 1];		/* instance now */
	char hbase[MDNS_LABEL_MAX + 1];
	char host[MDNS_LABEL_MAX + 1];
	char type[MDNS_NAME_STR_MAX];
	char only_if[IF_NAMESIZE];
	unsigned inst_n, host_n;		/* rename counters */
	uint16_t port;
	uint8_t txt[MDNS_TXT_MAX];
	size_t txt_len;
	struct mdns_name n_type, n_inst, n_host, n_enum;
	enum mdns_state state;
	int step;		/* probes or announcements sent */
	uint64_t next;		/* when the next probe/announce is due */
	uint64_t conflict_window;
	unsigned conflicts_recent;
	uint64_t pend_at;	/* delayed multicast answers */
	unsigned pend_mask[MAX_IFS];
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
		    const struct mif *f, struct mdns_rr *rr)
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
		rr_base(rr, &r->n_inst, MDNS_TYPE_SRV, TTL_HOST, true);
		rr->u.srv.port = r->port;
		rr->u.srv.target = r->n_host;
		break;
	case R_TXT:
		rr_base(rr, &r->n_inst, MDNS_TYPE_TXT, TTL_OTHER, true);
		rr->rdata = r->txt;
		rr->rdlen = (uint16_t)r->txt_len;
		break;
	case R_A:
		rr_base(rr, &r->n_host, MDNS_TYPE_A, TTL_HOST, true);
		memcpy(rr->u.a, &f->addr, 4);
		break;
	case R_NSEC:
		rr_base(rr, &r->n_host, MDNS_TYPE_NSEC, TTL_HOST, true);
		rr->u.nsec.next = r->n_host;
		rr->rdata = nsec_a;
		rr->rdlen = sizeof(nsec_a);
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
	char rest[MDNS_NAME_STR_MAX + 8];
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
	return rc;
}

static void resp_restart_probe(struct mdns_responder *r, uint64_t delay)
{
	r->state = MDNS_PROBING;
	r->step = 0;
	r->next = now_ms() + delay;
	memset(r->pend_mask, 0, sizeof(r->pend_mask));
}

/* Picks the next name after a conflict: "NAME (2)" or "HOST-2". */
static void resp_rename(struct mdns_responder *r, bool host)
{
	char sfx[16], *dst = host ? r->host : r->inst;
	const char *base = host ? r->hbase : r->base;
	unsigned *n = host ? &r->host_n : &r->inst_n;
	uint64_t t = now_ms();
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
	net_log(&r->net, "name conflict: now using %s '%s'",
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
static void resp_send(struct mdns_responder *r, struct mif *f, unsigned mask,
		      bool probe, bool ttl0)
{
	struct mdns_builder b;
	struct mdns_rr rr;
	uint64_t t = now_ms();
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
	net_send_mc(&r->net, f, r->out, mdns_build_finish(&b));
}

#define ALL_RECORDS ((1u << R_PTR) | (1u << R_ENUM) | (1u << R_SRV) | \
		     (1u << R_TXT) | (1u << R_A))
#define PROBE_RECORDS ((1u << R_SRV) | (1u << R_TXT) | (1u << R_A))

/* §8.2 simultaneous probe tie-break for one of our names: compares the
 * authority records the other prober gave for name with ours.  Returns
 * true when we lose (theirs sort later). */
static bool resp_tiebreak_lost(struct mdns_responder *r,
			       const struct mdns_msg *m,
			       const struct mdns_name *name,
			       const struct mif *f)
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
			   const struct mif *f, unsigned mask)
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
			struct mif *f, const struct sockaddr_in *from,
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
	net_send(&r->net, f, from, r->out, mdns_build_finish(&b));
	r->net.st.legacy++;
}

/* Sends ans in the answer section and extra in the additional section
 * to dst (multicast group or a QU querier). */
static void resp_answer(struct mdns_responder *r, struct mif *f,
			const struct sockaddr_in *dst, unsigned ans,
			unsigned extra)
{
	struct mdns_builder b;
	struct mdns_rr rr;
	uint64_t t = now_ms();
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
		net_send(&r->net, f, dst, r->out, mdns_build_finish(&b));
	else
		net_send_mc(&r->net, f, r->out, mdns_build_finish(&b));
}

static void resp_query(struct mdns_responder *r, const struct mdns_msg *m,
		       struct mif *f, const struct sockaddr_in *from)
{
	bool legacy = ntohs(from->sin_port) != MDNS_PORT;
	bool probe = false, all_qu = true;
	unsigned ans = 0, extra = 0;
	uint64_t t = now_ms();
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
					net_log(&r->net,
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
	if (ans & ((1u << R_PTR) | (1u << R_ENUM))) {
		uint64_t at = t + 20 + net_rand(&r->net) % 101;

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
			net_log(&r->net,
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
	uint64_t t = now_ms();
	size_t i;
	int rc;

	if (t >= r->net.next_scan) {
		rc = net_scan(&r->net);
		if (rc > 0 && r->net.nifs) {
			net_log(&r->net, "interfaces changed: probing again");
			resp_restart_probe(r, net_rand(&r->net) % 250);
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
			resp_send(r, &r->net.ifs[i], ALL_RECORDS, false,
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
	if (resp_names(r) != 0) {
		snprintf(err, errlen,
			 "service type '%s' or names do not form valid DNS names",
			 r->type);
		goto err;
	}
	if (svc->ifname)
		snprintf(r->only_if, sizeof(r->only_if), "%s", svc->ifname);
	rc = net_open(&r->net, svc->ifname ? r->only_if : NULL, true,
		      svc->log, svc->log_arg, err, errlen);
	if (rc != 0)
		goto err;
	/* §8.1: wait 0-250 ms before the first probe. */
	resp_restart_probe(r, net_rand(&r->net) % 250);
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
	uint64_t t = now_ms(), due = r->net.next_scan;

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
	struct mif *f;
	int rc, n;

	for (n = 0; n < 256; n++) {
		rc = net_next(&r->net, r->net.fd, r->buf, &r->msg, &from,
			      &f);
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
		net_log(&r->net,
			"new TXT list rejected: too long or a bad string");
		return -EINVAL;
	}
	memcpy(r->txt, tmp, (size_t)rc);
	r->txt_len = (size_t)rc;
	if (r->state != MDNS_PROBING) {
		r->state = MDNS_ANNOUNCING;
		r->step = 0;
		r->next = now_ms();
		for (size_t i = 0; i < r->net.nifs; i++)
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
			resp_send(r, &r->net.ifs[i], ALL_RECORDS, false, true);
	if (r->net.fd >= 0)
		close(r->net.fd);
	free(r);
}

/* --- browser ----------------------------------------------------------- */

#define MAX_INST 128
#define MAX_HOSTS 128

struct binst {
	struct mdns_name name;
	struct mdns_name target;
	uint64_t expires;	/* PTR */
	/* SRV: live responders refresh it with every answer to our PTR
	 * re-queries (at most 60 s apart, TTL 120 s), so an agent that
	 * died without a goodbye is dropped after 2 minutes, not 75. */
	uint64_t srv_expires;
	uint64_t last_query;
	bool have_srv, have_txt, reported;
	int ifindex;
	struct mdns_instance pub;	/* as last reported */
	struct mdns_instance cur;
};

struct bhost {
	struct mdns_name name;
	struct in_addr addr;
	uint64_t expires;
};

struct mdns_browser {
	struct mnet net;
	/* One-shot queries (§5.1) go out from an ephemeral port: responders
	 * answer them at once by unicast (§6.7), untouched by the once-a-
	 * second multicast limit another browser may just have triggered.
	 * Continuous PTR queries go from 5353.  efd polls both. */
	int qfd, efd;
	bool oneshot;		/* the next PTR query is one-shot */
	struct mdns_browse_conf conf;
	char only_if[IF_NAMESIZE];
	struct mdns_name n_type;
	uint64_t next_ptr;
	unsigned ptr_interval;
	struct binst inst[MAX_INST];
	size_t ninst;
	struct bhost hosts[MAX_HOSTS];
	size_t nhosts;
	uint8_t buf[MDNS_PACKET_MAX + 1];
	uint8_t out[MDNS_SEND_MAX];
	struct mdns_msg msg;
};

static struct binst *br_inst(struct mdns_browser *b,
			     const struct mdns_name *n, bool create)
{
	struct binst *in;

	for (size_t i = 0; i < b->ninst; i++)
		if (mdns_name_eq(&b->inst[i].name, n))
			return &b->inst[i];
	if (!create || b->ninst == MAX_INST)
		return NULL;
	in = &b->inst[b->ninst++];
	memset(in, 0, sizeof(*in));
	in->name = *n;
	mdns_name_label(n, in->cur.name, sizeof(in->cur.name));
	return in;
}

static struct bhost *br_host(struct mdns_browser *b,
			     const struct mdns_name *n, bool create)
{
	uint64_t t = now_ms();
	size_t i;

	for (i = 0; i < b->nhosts; i++)
		if (mdns_name_eq(&b->hosts[i].name, n))
			return &b->hosts[i];
	for (i = 0; i < b->nhosts; i++)
		if (b->hosts[i].expires < t)
			break;		/* reuse an expired slot */
	if (!create || i == MAX_HOSTS)
		return NULL;
	if (i == b->nhosts)
		b->nhosts++;
	b->hosts[i].name = *n;
	return &b->hosts[i];
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

/* Reports instances that became resolved or changed. */
static void br_update(struct mdns_browser *b)
{
	uint64_t t = now_ms();

	for (size_t i = 0; i < b->ninst; i++) {
		struct binst *in = &b->inst[i];
		struct bhost *h;

		if (!in->have_srv || !in->have_txt)
			continue;
		h = br_host(b, &in->target, false);
		if (!h || h->expires < t)
			continue;
		inet_ntop(AF_INET, &h->addr, in->cur.addr,
			  sizeof(in->cur.addr));
		if (!in->reported) {
			in->reported = true;
			in->pub = in->cur;
			br_emit(b, MDNS_FOUND, &in->pub);
		} else if (memcmp(&in->pub, &in->cur, sizeof(in->cur))) {
			in->pub = in->cur;
			br_emit(b, MDNS_CHANGED, &in->pub);
		}
	}
}

/* TTL to cache a record for.  Unicast (legacy) answers carry at most
 * 10 s (§6.7), shorter than our re-query interval: keep those 120 s. */
static uint64_t br_ttl_ms(uint32_t ttl, bool legacy)
{
	if (legacy && ttl && ttl < TTL_HOST)
		ttl = TTL_HOST;
	return (uint64_t)ttl * 1000;
}

static void br_response(struct mdns_browser *b, const struct mdns_msg *m,
			const struct mif *f, bool legacy)
{
	uint64_t t = now_ms();
	size_t i;

	/* PTRs first: the SRV/TXT/A of the same packet then find them. */
	for (i = 0; i < m->nrr; i++) {
		const struct mdns_rr *rr = &m->rr[i];
		struct binst *in;

		if (rr->type != MDNS_TYPE_PTR ||
		    !mdns_name_eq(&rr->name, &b->n_type) ||
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
			in->have_srv = true;
			in->target = rr->u.srv.target;
			in->cur.port = rr->u.srv.port;
			mdns_name_to_str(&rr->u.srv.target, in->cur.host,
					 sizeof(in->cur.host));
			break;
		case MDNS_TYPE_TXT:
			in = br_inst(b, &rr->name, false);
			if (!in || rr->ttl == 0 || rr->rdlen > MDNS_TXT_MAX)
				break;
			in->have_txt = true;
			memcpy(in->cur.txt, rr->rdata, rr->rdlen);
			in->cur.txt_len = rr->rdlen;
			break;
		case MDNS_TYPE_A:
			h = br_host(b, &rr->name, rr->ttl != 0);
			if (!h)
				break;
			memcpy(&h->addr, rr->u.a, 4);
			h->expires = rr->ttl ? t + br_ttl_ms(rr->ttl, legacy) :
				     0;
			break;
		}
	}
	br_update(b);
}

/* Sends q (if it holds a question) on f from fd. */
static void br_send(struct mdns_browser *b, struct mif *f,
		    struct mdns_builder *q, int fd)
{
	size_t len = mdns_build_finish(q);

	if (len <= 12)
		return;
	b->net.tx_fd = fd;
	net_send_mc(&b->net, f, q->buf, len);
	b->net.tx_fd = -1;
}

static void br_query(struct mdns_browser *b)
{
	uint8_t cont[128];
	uint64_t t = now_ms();
	struct mdns_builder q, c;
	bool ptr = t >= b->next_ptr;
	size_t i, j;

	for (i = 0; i < b->net.nifs; i++) {
		struct mif *f = &b->net.ifs[i];

		/* q: one-shot (first PTR, follow-ups); c: continuous. */
		mdns_build_init(&q, b->out, sizeof(b->out), 0, 0);
		mdns_build_init(&c, cont, sizeof(cont), 0, 0);
		if (ptr)
			mdns_build_question(b->oneshot ? &q : &c, &b->n_type,
					    MDNS_TYPE_PTR, MDNS_CLASS_IN);
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
			h = br_host(b, &in->target, false);
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
	uint64_t t = now_ms();

	if (t >= b->net.next_scan && net_scan(&b->net) > 0) {
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
	char tn[MDNS_NAME_STR_MAX + 8];
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
	if (conf->ifname)
		snprintf(b->only_if, sizeof(b->only_if), "%s", conf->ifname);
	if (net_open(&b->net, conf->ifname ? b->only_if : NULL, false,
		     conf->log, conf->log_arg, err, errlen) != 0) {
		free(b);
		return NULL;
	}
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
	uint64_t t = now_ms(), due = b->next_ptr;

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
	struct mif *f;
	int rc, n;

	for (int k = 0; k < 2; k++) {
		int fd = k ? b->qfd : b->net.fd;
		bool legacy = k || !b->net.port5353;

		for (n = 0; fd >= 0 && n < 256; n++) {
			rc = net_next(&b->net, fd, b->buf, &b->msg, &from,
				      &f);
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
	free(b);
}

int mdns_browse(const char *type, const char *ifname, int timeout_ms,
		struct mdns_instance *out, size_t max, size_t *n,
		char *err, size_t errlen)
{
	struct mdns_browse_conf conf = { .type = type, .ifname = ifname };
	const struct mdns_instance *in;
	struct mdns_browser *b;
	uint64_t end = now_ms() + (uint64_t)(timeout_ms > 0 ? timeout_ms : 0);
	int rc = 0;

	*n = 0;
	b = mdns_browser_new(&conf, err, errlen);
	if (!b)
		return -EIO;
	for (;;) {
		uint64_t t = now_ms();
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

/* --- subcommand -------------------------------------------------------- */

static volatile sig_atomic_t mdns_stop;

static void mdns_on_signal(int sig)
{
	mdns_stop = sig;
}

static void mdns_usage(FILE *o)
{
	fprintf(o,
		"usage: benchboot mdns publish --name NAME --port PORT [--host HOST] [--type TYPE]\n"
		"                             [--if IFACE] [--txt KEY=VALUE]... [--txt-stdin]\n"
		"       benchboot mdns browse [--timeout SECONDS] [--if IFACE] [--watch] [TYPE]\n");
}

/* Prints s (len bytes) with tabs, backslashes and non-printables as
 * \DDD, so each browse line splits cleanly on tabs. */
static void print_esc(const uint8_t *s, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		if (s[i] < 0x20 || s[i] == 0x7f || s[i] == '\\')
			printf("\\%03u", s[i]);
		else
			putchar(s[i]);
	}
}

/* One browse line: name, host, address, port, interface, TXT strings. */
static void print_instance(const struct mdns_instance *in)
{
	size_t p = 0;

	print_esc((const uint8_t *)in->name, strlen(in->name));
	printf("\t%s\t%s\t%u\t%s", in->host, in->addr, in->port, in->ifname);
	while (p < in->txt_len) {
		size_t l = in->txt[p];

		if (l) {
			putchar('\t');
			print_esc(in->txt + p + 1, l);
		}
		p += 1 + l;
	}
	putchar('\n');
	fflush(stdout);
}

static void watch_event(void *arg, enum mdns_event ev,
			const struct mdns_instance *in)
{
	fputs(ev == MDNS_FOUND ? "+\t" : ev == MDNS_CHANGED ? "~\t" : "-\t",
	      stdout);
	print_instance(in);
}

/* --watch: every event as it happens until the timeout or a signal. */
static int mdns_watch(const char *type, const char *ifname,
		      uint64_t timeout_ms)
{
	struct mdns_browse_conf conf = { .type = type, .ifname = ifname,
					 .cb = watch_event };
	uint64_t end = now_ms() + timeout_ms;
	struct mdns_browser *b;
	struct sigaction sa;
	char err[512];
	int rc = 0;

	b = mdns_browser_new(&conf, err, sizeof(err));
	if (!b) {
		util_err("mdns", EINVAL, "browse: %s", err);
		return 1;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = mdns_on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	while (!mdns_stop && now_ms() < end) {
		struct pollfd p = { mdns_browser_fd(b), POLLIN, 0 };
		uint64_t left = end - now_ms();
		int to = mdns_browser_timeout_ms(b);

		if ((uint64_t)to > left)
			to = (int)left;
		if (poll(&p, 1, to) < 0 && errno != EINTR) {
			rc = util_err("mdns", errno, "poll: %s",
				      strerror(errno));
			break;
		}
		rc = mdns_browser_handle(b);
		if (rc != 0) {
			util_err("mdns", -rc, "receive: %s", strerror(-rc));
			break;
		}
	}
	mdns_browser_free(b);
	return rc ? 1 : 0;
}

/* --txt-stdin: each line read is a new TXT list, "k=v" words separated by
 * spaces, replacing the old one (as an agent's role changes). */
struct txt_in {
	int fd;
	char buf[1024];
	size_t len;
};

static void txt_in_read(struct txt_in *t, struct mdns_responder *r)
{
	ssize_t n = read(t->fd, t->buf + t->len, sizeof(t->buf) - 1 - t->len);
	char *nl;

	if (n <= 0) {
		if (n == 0 || (errno != EINTR && errno != EAGAIN))
			t->fd = -1;	/* EOF: keep publishing */
		return;
	}
	t->len += (size_t)n;
	t->buf[t->len] = 0;
	while ((nl = strchr(t->buf, '\n'))) {
		const char *kv[64];
		size_t nkv = 0;
		char *tok, *save = NULL;

		*nl = 0;
		for (tok = strtok_r(t->buf, " \t", &save); tok && nkv < 63;
		     tok = strtok_r(NULL, " \t", &save))
			kv[nkv++] = tok;
		kv[nkv] = NULL;
		if (mdns_responder_set_txt(r, kv) == 0)
			fprintf(stderr,
				"benchboot mdns: TXT replaced (%zu strings)\n",
				nkv);
		t->len -= (size_t)(nl + 1 - t->buf);
		memmove(t->buf, nl + 1, t->len + 1);
	}
	if (t->len == sizeof(t->buf) - 1)
		t->len = 0;	/* an over-long line: drop it */
}

/* Answers and announces until SIGINT/SIGTERM, taking TXT updates from
 * tin, and prints the name once it is ours.  Returns 0 or a negative
 * errno (reported). */
static int mdns_publish_loop(struct mdns_responder *r, struct txt_in *tin,
			     unsigned port)
{
	enum mdns_state shown = MDNS_PROBING;
	int rc = 0;

	while (!mdns_stop) {
		struct pollfd p[2] = { { mdns_responder_fd(r), POLLIN, 0 },
				       { tin->fd, POLLIN, 0 } };

		if (poll(p, tin->fd >= 0 ? 2 : 1,
			 mdns_responder_timeout_ms(r)) < 0 &&
		    errno != EINTR)
			return util_err("mdns", errno, "poll: %s",
					strerror(errno));
		if (tin->fd >= 0 && p[1].revents)
			txt_in_read(tin, r);
		rc = mdns_responder_handle(r);
		if (rc != 0) {
			util_err("mdns", -rc, "socket: %s", strerror(-rc));
			return rc;
		}
		if (mdns_responder_state(r) == shown)
			continue;
		shown = mdns_responder_state(r);
		if (shown == MDNS_RUNNING) {
			printf("published '%s' on %s.local port %u\n",
			       mdns_responder_instance(r),
			       mdns_responder_host(r), port);
			fflush(stdout);
		}
	}
	return rc;
}

static int mdns_publish_main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "name", required_argument, NULL, 'n' },
		{ "port", required_argument, NULL, 'p' },
		{ "host", required_argument, NULL, 'H' },
		{ "type", required_argument, NULL, 't' },
		{ "if", required_argument, NULL, 'i' },
		{ "txt", required_argument, NULL, 'x' },
		{ "txt-stdin", no_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct mdns_service svc = { 0 };
	struct txt_in tin = { .fd = -1 };
	const char *txt[64];
	size_t ntxt = 0;
	struct mdns_responder *r;
	struct sigaction sa;
	struct mdns_stats st;
	char err[512];
	uint64_t port = 0;
	int c, rc;

	while ((c = getopt_long(argc, argv, "n:p:H:t:i:x:sh", opts,
				NULL)) != -1) {
		switch (c) {
		case 's': tin.fd = 0; break;
		case 'n': svc.instance = optarg; break;
		case 'H': svc.host = optarg; break;
		case 't': svc.type = optarg; break;
		case 'i': svc.ifname = optarg; break;
		case 'x':
			if (ntxt == 63) {
				util_err("mdns", EINVAL, "more than 63 --txt");
				return 2;
			}
			txt[ntxt++] = optarg;
			break;
		case 'p':
			if (util_parse_u64(optarg, 1, 65535, &port) != 0) {
				util_err("mdns", EINVAL,
					 "--port '%s': want 1..65535", optarg);
				return 2;
			}
			break;
		case 'h':
			mdns_usage(stdout);
			return 0;
		default:
			mdns_usage(stderr);
			return 2;
		}
	}
	if (optind != argc || !svc.instance || !port) {
		mdns_usage(stderr);
		return 2;
	}
	txt[ntxt] = NULL;
	svc.txt = txt;
	svc.port = (uint16_t)port;
	r = mdns_responder_new(&svc, err, sizeof(err));
	if (!r) {
		util_err("mdns", EINVAL, "publish: %s", err);
		return 1;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = mdns_on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	rc = mdns_publish_loop(r, &tin, (unsigned)port);
	mdns_responder_stats(r, &st);
	fprintf(stderr,
		"benchboot mdns: rx %llu bad %llu ignored %llu queries %llu legacy %llu tx %llu conflicts %llu\n",
		(unsigned long long)st.rx, (unsigned long long)st.rx_bad,
		(unsigned long long)st.rx_ignored,
		(unsigned long long)st.queries, (unsigned long long)st.legacy,
		(unsigned long long)st.tx, (unsigned long long)st.conflicts);
	mdns_responder_free(r);
	return rc ? 1 : 0;
}

static int mdns_browse_main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "timeout", required_argument, NULL, 't' },
		{ "if", required_argument, NULL, 'i' },
		{ "watch", no_argument, NULL, 'w' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static struct mdns_instance found[MAX_INST];
	bool watch = false;
	const char *ifname = NULL, *type = NULL;
	uint64_t timeout = 3000000000u;
	char err[512];
	size_t n, i;
	int c, rc;

	while ((c = getopt_long(argc, argv, "t:i:wh", opts, NULL)) != -1) {
		switch (c) {
		case 't':
			if (util_parse_duration(optarg, &timeout) != 0 ||
			    timeout > 3600000000000ull) {
				util_err("mdns", EINVAL,
					 "--timeout '%s': want a duration up to 1h",
					 optarg);
				return 2;
			}
			break;
		case 'i': ifname = optarg; break;
		case 'w': watch = true; break;
		case 'h':
			mdns_usage(stdout);
			return 0;
		default:
			mdns_usage(stderr);
			return 2;
		}
	}
	if (optind < argc)
		type = argv[optind++];
	if (optind != argc) {
		mdns_usage(stderr);
		return 2;
	}
	if (watch)
		return mdns_watch(type, ifname, timeout / 1000000u);
	rc = mdns_browse(type, ifname, (int)(timeout / 1000000u), found,
			 MAX_INST, &n, err, sizeof(err));
	if (rc != 0) {
		util_err("mdns", -rc, "browse: %s", err);
		return 1;
	}
	for (i = 0; i < n; i++)
		print_instance(&found[i]);
	return 0;
}

int mdns_main(int argc, char **argv)
{
	if (argc < 2) {
		mdns_usage(stderr);
		return 2;
	}
	if (strcmp(argv[1], "publish") == 0)
		return mdns_publish_main(argc - 1, argv + 1);
	if (strcmp(argv[1], "browse") == 0)
		return mdns_browse_main(argc - 1, argv + 1);
	if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0) {
		mdns_usage(stdout);
		return 0;
	}
	mdns_usage(stderr);
	return 2;
}
