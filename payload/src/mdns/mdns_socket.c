/* mdns/mdns_socket.c: the socket half the responder and the browser share
 * (mdns_socket.h): interfaces, the group, sending, reading and filtering. */
#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "mdns/mdns_socket.h"
#include "lib/util.h"

#define RESCAN_MS 5000
#define LOG_BURST 20		/* logged rejections per 10 s */

uint64_t mdns_socket_now_ms(void)
{
	return util_mono_ns() / 1000000u;
}

uint32_t mdns_socket_rand(struct mdns_socket *n)
{
	n->rnd ^= n->rnd << 13;
	n->rnd ^= n->rnd >> 7;
	n->rnd ^= n->rnd << 17;
	return (uint32_t)(n->rnd >> 11);
}

void mdns_socket_log(struct mdns_socket *n, const char *fmt, ...)
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
static void net_log_bad(struct mdns_socket *n, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void net_log_bad(struct mdns_socket *n, const char *fmt, ...)
{
	uint64_t t = mdns_socket_now_ms();
	char msg[1024];
	va_list ap;

	if (t - n->log_window >= 10000) {
		if (n->log_suppressed)
			mdns_socket_log(n,
					"%u more rejected packets not logged",
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
	mdns_socket_log(n, "%s", msg);
}

static struct mdns_if *net_if(struct mdns_socket *n, int index)
{
	for (size_t i = 0; i < n->nifs; i++)
		if (n->ifs[i].index == index)
			return &n->ifs[i];
	return NULL;
}

static int net_join(struct mdns_socket *n, struct mdns_if *f, bool join)
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

/* Only the first address of a link is used: one source per link keeps
 * the A record and the §11 on-link check unambiguous. */
int mdns_socket_scan(struct mdns_socket *n)
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
		struct mdns_if *f;
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
			if (n->nifs == MDNS_MAX_IFS)
				continue;
			f = &n->ifs[n->nifs];
			memset(f, 0, sizeof(*f));
			f->index = idx;
			snprintf(f->name, sizeof(f->name), "%s", a->ifa_name);
			if (net_join(n, f, true) != 0) {
				mdns_socket_log(n, "cannot join %s on %s: %s",
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
	n->next_scan = mdns_socket_now_ms() + RESCAN_MS;
	return changed ? 1 : 0;
}

void mdns_socket_buffers(int fd)
{
	int sz = 4 << 20;

	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &sz, sizeof(sz)) != 0)
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &sz, sizeof(sz));
	if (setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &sz, sizeof(sz)) != 0)
		setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sz, sizeof(sz));
}

int mdns_socket_open(struct mdns_socket *n, const char *only_if,
		     bool want5353, mdns_log_fn log, void *log_arg,
		     char *err, size_t errlen)
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
	rc = mdns_socket_scan(n);
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

int mdns_socket_send(struct mdns_socket *n, const struct mdns_if *f,
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

int mdns_socket_send_mc(struct mdns_socket *n, const struct mdns_if *f,
			const uint8_t *buf, size_t len)
{
	struct sockaddr_in to;

	memset(&to, 0, sizeof(to));
	to.sin_family = AF_INET;
	to.sin_port = htons(MDNS_PORT);
	inet_pton(AF_INET, MDNS_GROUP4, &to.sin_addr);
	return mdns_socket_send(n, f, &to, buf, len);
}

/* Reads one datagram: returns its length, 0 when none is pending, or a
 * negative errno.  *ifindex is the arrival interface. */
static ssize_t net_recv(struct mdns_socket *n, int fd, uint8_t *buf,
			size_t size, struct sockaddr_in *from, int *ifindex)
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

/* The filter is RFC 6762's: oversized and malformed packets, other
 * opcodes and rcodes, and unicast from off the link are dropped. */
int mdns_socket_next(struct mdns_socket *n, int fd, uint8_t *buf,
		     struct mdns_msg *m, struct sockaddr_in *from,
		     struct mdns_if **fp)
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
