/* test_peer_addr.c: which announced addresses an agent of an open lab may
 * load (node/peer.h, peer_addr_foreign): never loopback, unspecified,
 * multicast, broadcast or its own; table-driven. */
#include <arpa/inet.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

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

/* This host's own IPv4 addresses (SIOCGIFCONF: getifaddrs() never
 * returns under qemu-user for 32-bit ppc) are never another host's. */
static void test_own(void)
{
	struct ifreq ifr[64];
	struct ifconf ifc = { .ifc_len = sizeof(ifr), .ifc_req = ifr };
	int fd = socket(AF_INET, SOCK_DGRAM, 0), n = 0;
	char a[INET_ADDRSTRLEN];
	size_t i;

	if (fd < 0 || ioctl(fd, SIOCGIFCONF, &ifc) != 0) {
		tap_ok(1, "own addresses # SKIP no SIOCGIFCONF");
		if (fd >= 0)
			close(fd);
		return;
	}
	close(fd);
	for (i = 0; i < (size_t)ifc.ifc_len / sizeof(ifr[0]); i++) {
		if (ifr[i].ifr_addr.sa_family != AF_INET ||
		    !inet_ntop(AF_INET, &((struct sockaddr_in *)(void *)
					  &ifr[i].ifr_addr)->sin_addr, a,
			       sizeof(a)))
			continue;
		TAP_EQ_INT(peer_addr_foreign(a), 0, a);
		n++;
	}
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
