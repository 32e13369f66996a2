/* node/peer.c: mDNS announcement and controller discovery for agents (peer.h),
 * on top of mdns.h's responder and browser. */
#include <arpa/inet.h>
#include <errno.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "mdns/mdns.h"
#include "mdns/mdns_browser.h"
#include "mdns/mdns_responder.h"
#include "node/node.h"
#include "node/peer.h"
#include "lib/util.h"
#include "lib/version.h"

/* How often a repeated reason for not finding a controller is logged. */
#define PEER_QUIET_LOG_NS 60000000000ull
#define PEER_TXT_N 8
#define PEER_TXT_LEN 96

static struct mdns_responder *peer_mdns;
static uint64_t peer_due;
static char peer_txt_buf[PEER_TXT_N][PEER_TXT_LEN];
static const char *peer_txt[PEER_TXT_N + 1];

/* DNS-SD subtypes by role (RFC 6763 §7.1): a search for the controller
 * asks for "_controller._sub._benchboot._tcp.local" and a client's check
 * of a run's server for "_server._sub...", so one or two hosts answer,
 * not every agent of the rack.  A controller is listed as a server too:
 * a server that became the controller is still the host its clients
 * load (peer_server_announced). */
static const char *const peer_sub_controller[] = { "_controller", "_server",
						   NULL };
static const char *const peer_sub_server[] = { "_server", NULL };

static const char *const *peer_subtypes(const char *role)
{
	if (strcmp(role, "controller") == 0)
		return peer_sub_controller;
	if (strcmp(role, "server") == 0)
		return peer_sub_server;
	return NULL;
}

static void peer_mdns_log(void *arg, const char *msg)
{
	node_log("mdns: %s", msg);
}

static void peer_fill_txt(const char *id, const char *role,
			  const char *suite, const char *lab)
{
	struct utsname u;
	int i, n = PEER_TXT_N;

	uname(&u);
	snprintf(peer_txt_buf[0], PEER_TXT_LEN, "role=%s", role);
	snprintf(peer_txt_buf[1], PEER_TXT_LEN, "id=%s", id);
	snprintf(peer_txt_buf[2], PEER_TXT_LEN, "arch=%s", u.machine);
	snprintf(peer_txt_buf[3], PEER_TXT_LEN, "ver=%s", version_string());
	snprintf(peer_txt_buf[4], PEER_TXT_LEN, "suite=%s", suite ? suite : "");
	snprintf(peer_txt_buf[5], PEER_TXT_LEN, "cpus=%ld",
		 sysconf(_SC_NPROCESSORS_ONLN));
	snprintf(peer_txt_buf[6], PEER_TXT_LEN, "mem=%ld",
		 node_mem_kb() / 1024);
	snprintf(peer_txt_buf[7], PEER_TXT_LEN, "lab=%s", lab ? lab : "");
	if (!lab || !lab[0])
		n--;
	for (i = 0; i < n; i++)
		peer_txt[i] = peer_txt_buf[i];
	peer_txt[n] = NULL;
}

int peer_announce(const char *id, const char *role, const char *suite,
		  const char *lab, int port)
{
	struct mdns_service svc = { 0 };
	char err[256];

	peer_fill_txt(id, role, suite, lab);
	svc.instance = id;
	svc.host = id;
	svc.port = (uint16_t)port;
	svc.txt = peer_txt;
	svc.subtypes = peer_subtypes(role);
	svc.log = peer_mdns_log;
	peer_mdns = mdns_responder_new(&svc, err, sizeof(err));
	if (!peer_mdns) {
		node_log("not published over mDNS: %s", err);
		return -EIO;
	}
	peer_due = 0;
	return 0;
}

int peer_set_role(const char *role)
{
	if (!peer_mdns)
		return -ENOENT;
	snprintf(peer_txt_buf[0], PEER_TXT_LEN, "role=%s", role);
	if (mdns_responder_set_subtypes(peer_mdns, peer_subtypes(role)) != 0)
		return -EINVAL;
	return mdns_responder_set_txt(peer_mdns, peer_txt);
}

static void peer_servers_service(void);

void peer_poll(void)
{
	struct pollfd p;
	uint64_t now;

	peer_servers_service();
	if (!peer_mdns)
		return;
	now = util_mono_ns();
	/* Due, or something arrived: handle() reads non-blocking. */
	p.fd = mdns_responder_fd(peer_mdns);
	p.events = POLLIN;
	if (now < peer_due && poll(&p, 1, 0) <= 0)
		return;
	if (mdns_responder_handle(peer_mdns) != 0)
		node_log("mdns responder socket failed");
	peer_due = now + (uint64_t)mdns_responder_timeout_ms(peer_mdns) *
			 1000000u;
}

static void peer_servers_stop(void);

void peer_withdraw(void)
{
	struct mdns_stats st;

	peer_servers_stop();
	if (peer_mdns) {
		/* What answering cost, and whether answers were lost. */
		mdns_responder_stats(peer_mdns, &st);
		node_log("mdns: read %llu packets (%llu malformed), answered %llu queries (%llu by unicast), sent %llu, %llu sends failed",
			 (unsigned long long)st.rx,
			 (unsigned long long)st.rx_bad,
			 (unsigned long long)st.queries,
			 (unsigned long long)st.legacy,
			 (unsigned long long)st.tx,
			 (unsigned long long)st.tx_err);
	}
	mdns_responder_free(peer_mdns);
	peer_mdns = NULL;
}

/* Whether instance in's TXT key equals want ("" for an absent key). */
static int peer_txt_is(const struct mdns_instance *in, const char *key,
		       const char *want)
{
	const char *v;
	int vl = mdns_txt_get(in->txt, in->txt_len, key, &v);

	if (vl < 0)
		return want[0] == 0;
	return (size_t)vl == strlen(want) && memcmp(v, want, (size_t)vl) == 0;
}

/* The first instance in in[0..n) whose TXT says role=controller and lab,
 * as "ADDR:PORT" in out.  Returns 0 or -ENOENT. */
static int peer_pick_controller(const struct mdns_instance *in, size_t n,
				const char *lab, char *out, size_t outlen)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (peer_txt_is(&in[i], "role", "controller") &&
		    peer_txt_is(&in[i], "lab", lab ? lab : "")) {
			snprintf(out, outlen, "%s:%u", in[i].addr, in[i].port);
			node_log("discovered controller %s at %s", in[i].name,
				 out);
			return 0;
		}
	}
	return -ENOENT;
}

static struct mdns_browser *peer_watch;
static uint64_t peer_watch_due;

int peer_watch_start(void)
{
	struct mdns_browse_conf conf = { .subtype = "_controller",
					 .log = peer_mdns_log };
	char err[256];

	if (peer_watch)
		return 0;
	peer_watch = mdns_browser_new(&conf, err, sizeof(err));
	if (!peer_watch) {
		node_log("not watching for other controllers: %s", err);
		return -EIO;
	}
	peer_watch_due = 0;
	return 0;
}

/* Runs the browser's due work, or reads what arrived. */
static void peer_watch_service(void)
{
	struct pollfd p = { .fd = mdns_browser_fd(peer_watch),
			    .events = POLLIN };
	uint64_t now = util_mono_ns();

	if (now < peer_watch_due && poll(&p, 1, 0) <= 0)
		return;
	mdns_browser_handle(peer_watch);
	peer_watch_due = now + (uint64_t)mdns_browser_timeout_ms(peer_watch) *
			       1000000u;
}

int peer_watch_lower(const char *self, const char *lab, char *out,
		     size_t outlen)
{
	const struct mdns_instance *in;
	char id[96];
	const char *v;
	size_t i;
	int vl;

	if (!peer_watch)
		return -ENOENT;
	peer_watch_service();
	for (i = 0; (in = mdns_browser_get(peer_watch, i)); i++) {
		vl = mdns_txt_get(in->txt, in->txt_len, "id", &v);
		if (vl <= 0 || !peer_txt_is(in, "role", "controller") ||
		    !peer_txt_is(in, "lab", lab ? lab : ""))
			continue;
		snprintf(id, sizeof(id), "%.*s", vl, v);
		if (strcmp(id, self) >= 0 || !in->addr[0])
			continue;
		snprintf(out, outlen, "%s:%u", in->addr, in->port);
		node_log("controller %s (%s) is also running: the lower id leads, this one yields", id, out);
		return 0;
	}
	return -ENOENT;
}

void peer_watch_stop(void)
{
	mdns_browser_free(peer_watch);
	peer_watch = NULL;
}

/* A browse that cannot start (no usable interface yet) fails at once, and
 * its caller retries: the same reason is logged once a minute, not once
 * per attempt, so a machine with no link does not flood its console. */
static void peer_log_browse_error(const char *err)
{
	static char last[256];
	static uint64_t last_ns;
	uint64_t now = util_mono_ns();

	if (strcmp(last, err) == 0 && last_ns &&
	    now - last_ns < PEER_QUIET_LOG_NS)
		return;
	snprintf(last, sizeof(last), "%s", err);
	last_ns = now;
	node_log("mdns browse: %s", err);
}

/* What a search for a controller looks for and what it found. */
struct peer_search {
	const char *lab;
	char *out;
	size_t outlen;
	int found;
};

/* The browser's keep rule for a search: a controller of our lab is never
 * pushed out of a full table, whatever else floods it. */
static int peer_search_keep(void *arg, const struct mdns_instance *in)
{
	const struct peer_search *ps = arg;

	return peer_txt_is(in, "role", "controller") &&
	       peer_txt_is(in, "lab", ps->lab);
}

/* Each instance as it resolves: the first controller of our lab ends the
 * search, however many others (1024 agents) are still coming in. */
static void peer_search_cb(void *arg, enum mdns_event ev,
			   const struct mdns_instance *in)
{
	struct peer_search *ps = arg;

	if (ps->found || ev == MDNS_REMOVED)
		return;
	ps->found = peer_pick_controller(in, 1, ps->lab, ps->out,
					 ps->outlen) == 0;
}

/* Browses with conf (its callback sets *done) for up to timeout_ns, or
 * until *done or *stop, servicing our own responder every 100 ms
 * meanwhile: 256 agents that all browse at once (a step's start) must
 * still answer each other.  Returns 0, or a negative errno when it
 * cannot browse (logged). */
static int peer_browse(const struct mdns_browse_conf *conf,
		       uint64_t timeout_ns, const volatile sig_atomic_t *stop,
		       const int *done)
{
	uint64_t end = util_mono_ns() + timeout_ns, now;
	struct mdns_browser *b;
	char err[256];
	int rc = 0;

	b = mdns_browser_new(conf, err, sizeof(err));
	if (!b) {
		peer_poll();
		peer_log_browse_error(err);
		return -EIO;
	}
	while (!*done && !(stop && *stop) && (now = util_mono_ns()) < end) {
		struct pollfd p = { mdns_browser_fd(b), POLLIN, 0 };
		uint64_t left_ms = (end - now) / 1000000u + 1;
		int to = mdns_browser_timeout_ms(b);

		/* Our own responder is serviced every 100 ms meanwhile. */
		if (to > 100)
			to = 100;
		if ((uint64_t)to > left_ms)
			to = (int)left_ms;
		if (poll(&p, 1, to) < 0 && errno != EINTR) {
			rc = -errno;
			snprintf(err, sizeof(err), "poll: %s", strerror(errno));
			break;
		}
		rc = mdns_browser_handle(b);
		peer_poll();
		if (rc != 0) {
			snprintf(err, sizeof(err), "receive: %s",
				 strerror(-rc));
			break;
		}
	}
	mdns_browser_free(b);
	if (rc != 0)
		peer_log_browse_error(err);
	return rc;
}

int peer_discover(uint64_t timeout_ns, const volatile sig_atomic_t *stop,
		  const char *lab, char *out, size_t outlen)
{
	struct peer_search ps = { .lab = lab ? lab : "", .out = out,
				  .outlen = outlen };
	struct mdns_browse_conf conf = { .subtype = "_controller",
					 .cb = peer_search_cb,
					 .keep = peer_search_keep,
					 .cb_arg = &ps, .log = peer_mdns_log };
	int rc;

	/* One browser for the whole search (its queries back off from 1 s;
	 * with 5353 bound it also hears a controller's announcements), not
	 * one per second: 1024 agents each asking every second would have
	 * every responder answer a million times a second. */
	rc = peer_browse(&conf, timeout_ns, stop, &ps.found);
	if (rc != 0)
		return rc;
	return ps.found ? 0 : -ENOENT;
}

/* What a check of an announced server looks for and whether it found it. */
struct peer_check {
	const char *addr, *lab;
	int found;
};

/* A server (or a server that became the controller) of the lab. */
static int peer_check_keep(void *arg, const struct mdns_instance *in)
{
	const struct peer_check *pc = arg;

	return (peer_txt_is(in, "role", "server") ||
		peer_txt_is(in, "role", "controller")) &&
	       peer_txt_is(in, "lab", pc->lab);
}

static void peer_check_cb(void *arg, enum mdns_event ev,
			  const struct mdns_instance *in)
{
	struct peer_check *pc = arg;

	if (ev != MDNS_REMOVED && strcmp(in->addr, pc->addr) == 0 &&
	    peer_check_keep(arg, in))
		pc->found = 1;
}

/* The servers of the lab seen since the session began (a browser of the
 * _server subtype kept open, read by peer_poll): a run's server announced
 * while this agent waited counts, however slow the answers to the check
 * itself are when every client of a step asks at once. */
static struct mdns_browser *peer_srv;
static struct peer_check peer_srv_lab;
static char peer_srv_labbuf[96];
static uint64_t peer_srv_due;

int peer_servers_watch(const char *lab)
{
	struct mdns_browse_conf conf = { .subtype = "_server",
					 .keep = peer_check_keep,
					 .cb_arg = &peer_srv_lab,
					 .log = peer_mdns_log };
	char err[256];

	if (peer_srv)
		return 0;
	snprintf(peer_srv_labbuf, sizeof(peer_srv_labbuf), "%s",
		 lab ? lab : "");
	peer_srv_lab.lab = peer_srv_labbuf;
	peer_srv = mdns_browser_new(&conf, err, sizeof(err));
	if (!peer_srv) {
		peer_log_browse_error(err);
		return -EIO;
	}
	peer_srv_due = 0;
	return 0;
}

/* Reads what arrived for the server watch and runs its due queries. */
static void peer_servers_service(void)
{
	struct pollfd p;
	uint64_t now;

	if (!peer_srv)
		return;
	now = util_mono_ns();
	p.fd = mdns_browser_fd(peer_srv);
	p.events = POLLIN;
	if (now < peer_srv_due && poll(&p, 1, 0) <= 0)
		return;
	mdns_browser_handle(peer_srv);
	peer_srv_due = now + (uint64_t)mdns_browser_timeout_ms(peer_srv) *
			     1000000u;
}

static void peer_servers_stop(void)
{
	mdns_browser_free(peer_srv);
	peer_srv = NULL;
}

/* Whether the server watch (of lab) holds a server at addr. */
static int peer_servers_seen(const char *addr, const char *lab)
{
	const struct mdns_instance *in;
	struct peer_check pc = { .addr = addr, .lab = lab };

	if (!peer_srv || strcmp(peer_srv_labbuf, lab) != 0)
		return 0;
	peer_servers_service();
	for (size_t i = 0; (in = mdns_browser_get(peer_srv, i)); i++)
		if (strcmp(in->addr, addr) == 0 && peer_check_keep(&pc, in))
			return 1;
	return 0;
}

/* Whether a (4 bytes) is an IPv4 address of one of this host's
 * interfaces.  By SIOCGIFCONF, not getifaddrs(): musl's netlink walk of
 * that never ends under qemu-user for 32-bit ppc, where the cross
 * architecture's unit tests run. */
static int peer_addr_ours4(const void *a)
{
	struct ifreq ifr[64];
	struct ifconf ifc = { .ifc_len = sizeof(ifr), .ifc_req = ifr };
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), ours = 0;
	size_t i, n;

	if (fd < 0)
		return 0;
	if (ioctl(fd, SIOCGIFCONF, &ifc) == 0) {
		n = (size_t)ifc.ifc_len / sizeof(ifr[0]);
		for (i = 0; i < n && !ours; i++)
			ours = ifr[i].ifr_addr.sa_family == AF_INET &&
			       memcmp(&((struct sockaddr_in *)(void *)
					&ifr[i].ifr_addr)->sin_addr, a,
				      4) == 0;
	}
	close(fd);
	return ours;
}

/* Whether a (16 bytes) is an IPv6 address of one of this host's
 * interfaces: /proc/net/if_inet6, one address a line in 32 hex digits. */
static int peer_addr_ours6(const unsigned char *a)
{
	FILE *f = fopen("/proc/net/if_inet6", "re");
	char line[256], hex[33];
	unsigned char b[16];
	unsigned v;
	int ours = 0, i;

	if (!f)
		return 0;
	while (!ours && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%32[0-9a-fA-F]", hex) != 1 ||
		    strlen(hex) != 32)
			continue;
		for (i = 0; i < 16 && sscanf(hex + 2 * i, "%2x", &v) == 1; i++)
			b[i] = (unsigned char)v;
		ours = i == 16 && memcmp(a, b, 16) == 0;
	}
	fclose(f);
	return ours;
}

int peer_addr_foreign(const char *addr)
{
	struct in6_addr a6;
	struct in_addr a4;
	uint32_t v;

	if (inet_pton(AF_INET, addr, &a4) == 1) {
		v = ntohl(a4.s_addr);
		if ((v >> 24) == 127 || (v >> 24) == 0 ||
		    (v >> 28) == 0xe || v == 0xffffffffu)
			return 0;
		return !peer_addr_ours4(&a4);
	}
	if (inet_pton(AF_INET6, addr, &a6) == 1) {
		if (IN6_IS_ADDR_LOOPBACK(&a6) || IN6_IS_ADDR_UNSPECIFIED(&a6) ||
		    IN6_IS_ADDR_MULTICAST(&a6))
			return 0;
		if (IN6_IS_ADDR_V4MAPPED(&a6)) {
			char v4[INET_ADDRSTRLEN];

			return inet_ntop(AF_INET, &a6.s6_addr[12], v4,
					 sizeof(v4)) && peer_addr_foreign(v4);
		}
		return !peer_addr_ours6(a6.s6_addr);
	}
	return 0;
}

int peer_server_announced(const char *addr, const char *lab, int timeout_ms)
{
	struct peer_check pc = { .addr = addr, .lab = lab ? lab : "" };
	struct mdns_browse_conf conf = { .subtype = "_server",
					 .cb = peer_check_cb,
					 .keep = peer_check_keep,
					 .cb_arg = &pc, .log = peer_mdns_log };
	int rc;

	if (!peer_addr_foreign(addr))
		return -EADDRNOTAVAIL;
	if (peer_servers_seen(addr, pc.lab))
		return 0;
	/* Ends as soon as it is seen; our responder answers meanwhile
	 * (every client of a step asks at once). */
	rc = peer_browse(&conf, (uint64_t)(timeout_ms > 0 ? timeout_ms : 0) *
			 1000000u, NULL, &pc.found);
	if (rc != 0)
		return rc;
	/* The watch, serviced meanwhile, may have heard it instead. */
	return pc.found || peer_servers_seen(addr, pc.lab) ? 0 : -ENOENT;
}
