/* controller/runner_link.c: the controller's own link, seen from its
 * interfaces (getifaddrs): down, no carrier, or its address gone. */
#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "controller/runner_link.h"
#include "node/node.h"

#define RUNNER_LINK_EVERY_NS 500000000ull

/* An IPv4 peer on a dual-stack listener shows as ::ffff:A.B.C.D. */
static const char *runner_link_plain(const char *a)
{
	return strncmp(a, "::ffff:", 7) == 0 && strchr(a + 7, '.') ? a + 7 : a;
}

/* Whether address a is on an interface that is up with a carrier
 * (IFF_RUNNING: the kernel's operational state); when not, what is wrong
 * into why.  Returns 1 up, 0 not. */
static int runner_link_addr_up(const struct ifaddrs *ifs, const char *a,
			       char *why, size_t whylen)
{
	const struct ifaddrs *i;
	char s[INET6_ADDRSTRLEN];
	const void *in;

	for (i = ifs; i; i = i->ifa_next) {
		if (!i->ifa_addr || (i->ifa_addr->sa_family != AF_INET &&
				     i->ifa_addr->sa_family != AF_INET6))
			continue;
		in = i->ifa_addr->sa_family == AF_INET ?
		     (const void *)&((const struct sockaddr_in *)
				     i->ifa_addr)->sin_addr :
		     (const void *)&((const struct sockaddr_in6 *)
				     i->ifa_addr)->sin6_addr;
		if (!inet_ntop(i->ifa_addr->sa_family, in, s, sizeof(s)) ||
		    strcmp(s, a) != 0)
			continue;
		if ((i->ifa_flags & IFF_LOOPBACK) ||
		    ((i->ifa_flags & IFF_UP) && (i->ifa_flags & IFF_RUNNING)))
			return 1;
		snprintf(why, whylen, "%s (%s) %s", i->ifa_name, a,
			 i->ifa_flags & IFF_UP ? "has no carrier" : "is down");
		return 0;
	}
	snprintf(why, whylen, "%s is on no interface any more", a);
	return 0;
}

/* No agent reached yet (none joined, or the link went before they did):
 * whether any interface but loopback is up with a carrier; when none is,
 * the first one's state into why.  A host with no interface but loopback
 * counts as up: there is nothing to tell.  Returns 1 up, 0 not. */
static int runner_link_any_up(const struct ifaddrs *ifs, char *why,
			      size_t whylen)
{
	const struct ifaddrs *i;
	int seen = 0;

	for (i = ifs; i; i = i->ifa_next) {
		if (i->ifa_flags & IFF_LOOPBACK)
			continue;
		if ((i->ifa_flags & IFF_UP) && (i->ifa_flags & IFF_RUNNING))
			return 1;
		if (!seen++)
			snprintf(why, whylen, "no interface is up with a carrier (%s %s)", i->ifa_name, i->ifa_flags & IFF_UP ? "has no carrier" : "is down");
	}
	return !seen;
}

int runner_link_gone(struct runner *r)
{
	uint64_t now = util_mono_ns();
	struct ifaddrs *ifs = NULL;
	char why[128] = "", a[64];
	int i, known = 0, up = 0;

	if (r->link_gone[0])
		return 1;
	if (r->link_checked && now - r->link_checked < RUNNER_LINK_EVERY_NS)
		return 0;
	r->link_checked = now;
	if (getifaddrs(&ifs) != 0)
		return 0;
	for (i = 0; i < r->npeers && !up; i++) {
		if ((r->peers[i].state != RP_READY &&
		     r->peers[i].state != RP_LOST) || !r->peers[i].local[0])
			continue;
		snprintf(a, sizeof(a), "%s",
			 runner_link_plain(r->peers[i].local));
		known = 1;
		up = runner_link_addr_up(ifs, a, why, sizeof(why));
	}
	if (!known)
		up = runner_link_any_up(ifs, why, sizeof(why));
	freeifaddrs(ifs);
	if (up) {
		r->link_down_since = 0;
		return 0;
	}
	if (!r->link_down_since)
		r->link_down_since = now;
	if (runner_peers_count(r, ROLE_CLIENT) + runner_peers_count(r, ROLE_SERVER) > 0 &&
	    now - r->link_down_since < RUNNER_LINK_GRACE_S * 1000000000ull)
		return 0;
	snprintf(r->link_gone, sizeof(r->link_gone), "the controller's link is gone: %s", why);
	node_log("%s; the run ends with what it has", r->link_gone);
	runner_peers_event(r, "link_gone", NULL, why);
	return 1;
}
