/* sample_bsd_if.h: the interfaces' counters where getifaddrs(3) gives
 * each AF_LINK entry its if_data (FreeBSD, macOS: payload/src/os/).  On
 * macOS the counters are 32-bit (NET_RT_IFLIST2 has 64-bit ones): a
 * one-second difference survives a wrap below 4 GB/s. */
#ifndef BB_SAMPLE_BSD_IF_H
#define BB_SAMPLE_BSD_IF_H

#include <sys/types.h>
#include <sys/socket.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <stdio.h>

#include "../sample_os.h"

static inline void sample_bsd_ifaces(struct sample_raw *r)
{
	struct ifaddrs *ifa, *i;

	if (getifaddrs(&ifa) != 0) {
		r->missing |= SAMPLE_MISS_NETDEV;
		return;
	}
	for (i = ifa; i && r->nifaces < SAMPLE_MAX_IFACES; i = i->ifa_next) {
		const struct if_data *d = i->ifa_data;
		struct sample_iface *f = &r->ifaces[r->nifaces];

		if (!i->ifa_addr || i->ifa_addr->sa_family != AF_LINK || !d)
			continue;
		snprintf(f->name, sizeof(f->name), "%s", i->ifa_name);
		f->rx_bytes = d->ifi_ibytes;
		f->rx_packets = d->ifi_ipackets;
		f->tx_bytes = d->ifi_obytes;
		f->tx_packets = d->ifi_opackets;
		r->nifaces++;
	}
	freeifaddrs(ifa);
}

#endif
