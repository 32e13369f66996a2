/* test_peer_addr.c: which announced addresses an agent of an open lab may
 * load (node/peer.h, peer_addr_foreign): never loopback, unspecified,
 * multicast, broadcast or its own; table-driven. */
#include <arpa/inet.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <stdio.h>

#include "node/peer.h"
#include "tap.h"

static const struct {
	const char *addr;
	int foreign;
} cases[] = {
	{ "127.0.0.1", 0 },
	{ "127.9.9.9", 0 },
	{ "0.0.0.0", 0 },
	{ "0.1.2.3", 0 },
	{ "224.0.0.251", 0 },
	{ "239.255.255.250", 0 },
	{ "255.255.255.255", 0 },
	{ "::1", 0 },
	{ "::", 0 },
	{ "ff02::fb", 0 },
	{ "::ffff:127.0.0.1", 0 },
	{ "localhost", 0 },		/* a name, not what mDNS gives */
	{ "", 0 },
	{ "10.0.0.9", 1 },
	{ "169.254.3.4", 1 },
	{ "192.0.2.1", 1 },
	{ "fd00::9", 1 },
	{ "::ffff:10.0.0.9", 1 },
};

/* This host's own addresses (every interface's, loopback too) are
 * never another host's. */
static void test_own(void)
{
	struct ifaddrs *ifa, *i;
	char a[INET6_ADDRSTRLEN];
	int n = 0;

	if (getifaddrs(&ifa) != 0) {
		tap_ok(1, "own addresses # SKIP getifaddrs failed");
		return;
	}
	for (i = ifa; i; i = i->ifa_next) {
		const void *p;

		if (!i->ifa_addr || (i->ifa_addr->sa_family != AF_INET &&
				     i->ifa_addr->sa_family != AF_INET6))
			continue;
		p = i->ifa_addr->sa_family == AF_INET ?
		    (const void *)&((struct sockaddr_in *)(void *)
				    i->ifa_addr)->sin_addr :
		    (const void *)&((struct sockaddr_in6 *)(void *)
				    i->ifa_addr)->sin6_addr;
		if (!inet_ntop(i->ifa_addr->sa_family, p, a, sizeof(a)))
			continue;
		TAP_EQ_INT(peer_addr_foreign(a), 0, a);
		n++;
	}
	freeifaddrs(ifa);
	tap_ok(n > 0, "own addresses: %d checked", n);
}

int main(void)
{
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		TAP_EQ_INT(peer_addr_foreign(cases[i].addr), cases[i].foreign,
			   cases[i].addr);
	test_own();
	return tap_done();
}
