/* host/host_nic.h: every network interface of this host as the result
 * records it (environment.hosts[].nics[], docs/result-schema.md), read
 * from /sys/class/net and the ethtool ioctls, and which one carried the
 * suite (suite_nic).  A field the system does not tell is absent. */
#ifndef BB_HOST_NIC_H
#define BB_HOST_NIC_H

#include <cjson/cJSON.h>

/* Where the interfaces are listed. */
#define HOST_NIC_SYS "/sys/class/net"
/* Interfaces one host records at most (in ifindex order). */
#define HOST_NIC_MAX 32

/* Every interface under root (HOST_NIC_SYS, or a test's tree laid out
 * the same way) but loopback, in ifindex order, each an object of the
 * fields docs/result-schema.md lists (name, mac, driver, driver_version,
 * firmware_version, bus_info, pci_address, pci_id, operstate, carrier,
 * speed_mbps, duplex, autoneg, mtu, rx_queues, tx_queues, channels,
 * offloads, ipv4; speed_mbps, duplex and autoneg only with a carrier).
 * The ethtool ioctls are asked by the interface's name
 * (an interface of a test's tree that does not exist gets its sysfs
 * fields only).  New array, caller owns; NULL on out of memory. */
cJSON *host_nic_list(const char *root);

/* The most "nics" may take, printed unformatted: the host goes in the
 * agent's hello, which the controller refuses past 8 KiB before it is
 * whole (controller/runner_peers.c), beside the system table's 4 KiB. */
#define HOST_NIC_JSON_MAX 2048

/* Adds "nics" (host_nic_list(HOST_NIC_SYS)) to host, when this host has
 * any interface but loopback, held to HOST_NIC_JSON_MAX
 * (host_nic_fit).  Returns 0 or -ENOMEM. */
int host_nic_add(cJSON *host);

/* Holds host's "nics" to max bytes: first the NICs without a carrier
 * (from the last) keep only name, mac, driver, pci_address and
 * operstate, marked "cut": true; then whole NICs go from the last, those
 * without an IPv4 address first (the suite's NIC has one), counted in
 * host's "nics_cut".  Returns how many NICs went (0: it fitted). */
int host_nic_fit(cJSON *host, size_t max);

/* Adds "suite_nic" to host: name, mac, driver, firmware_version,
 * speed_mbps, duplex (those of them its entry has) and address, copied
 * from the entry of host's "nics" whose ipv4 holds addr (dotted IPv4,
 * the address the suite reached this host at, or it reached its peers
 * from; ::ffff:A.B.C.D is taken as A.B.C.D).  Returns 0; -ENOENT when
 * no entry holds addr (nothing added: a NAT or a host without "nics"),
 * -EINVAL for a NULL host or addr, or -ENOMEM. */
int host_nic_mark_suite(cJSON *host, const char *addr);

/* A link speed as /sys/class/net/IF/speed or the ethtool ioctls give it
 * (decimal Mb/s; -1, 4294967295 and 0 mean unknown).  Returns 0 with
 * *mbps set, or -ENODATA for an unknown or malformed speed. */
int host_nic_speed(const char *text, long *mbps);

/* "full" or "half" for sysfs's duplex text (or ethtool's names); NULL
 * for "unknown" and anything else. */
const char *host_nic_duplex(const char *text);

/* Whether a driver's version text (firmware, bus) says something: not
 * empty, not "N/A", not blanks. */
int host_nic_told(const char *text);

#endif
