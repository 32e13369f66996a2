/* host/host_nic.c: every network interface of this host for the result
 * (host_nic.h): /sys/class/net and the ethtool ioctls (SIOCETHTOOL). */
#include <arpa/inet.h>
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <linux/ethtool.h>
#include <linux/sockios.h>

#include "host/host_nic.h"

/* ARPHRD_LOOPBACK, as /sys/class/net/IF/type shows it. */
#define NIC_TYPE_LOOPBACK 772
/* ETHTOOL_GLINKSETTINGS' link mode masks: 3 of at most 127 words (the
 * count is a signed byte). */
#define NIC_LINK_WORDS 127

int host_nic_speed(const char *text, long *mbps)
{
	char *end;
	long v;

	if (!text || !isdigit((unsigned char)*text))
		return -ENODATA;	/* "", "-1", blanks */
	errno = 0;
	v = strtol(text, &end, 10);
	while (*end == '\n' || *end == ' ')
		end++;
	/* SPEED_UNKNOWN reads 4294967295 (-1 as unsigned): over INT_MAX,
	 * or out of a 32-bit long's range (errno). */
	if (errno || *end || v <= 0 || v > INT_MAX)
		return -ENODATA;
	*mbps = v;
	return 0;
}

const char *host_nic_duplex(const char *text)
{
	if (!text)
		return NULL;
	if (strncmp(text, "full", 4) == 0 && (!text[4] || text[4] == '\n'))
		return "full";
	if (strncmp(text, "half", 4) == 0 && (!text[4] || text[4] == '\n'))
		return "half";
	return NULL;
}

int host_nic_told(const char *text)
{
	const char *c;

	if (!text || strcmp(text, "N/A") == 0 || strcmp(text, "n/a") == 0)
		return 0;
	for (c = text; *c; c++)
		if (!isspace((unsigned char)*c))
			return 1;
	return 0;
}

/* root/name/file's first line into buf (len bytes, newline cut).
 * Returns 0 or a negative errno (a file that cannot be read: an
 * attribute the driver does not have, or a down link's carrier). */
static int nic_read(const char *root, const char *name, const char *file,
		    char *buf, size_t len)
{
	char path[PATH_MAX];
	FILE *f;
	int rc = 0;

	snprintf(path, sizeof(path), "%s/%s/%s", root, name, file);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	if (!fgets(buf, (int)len, f))
		rc = ferror(f) ? -EIO : -ENODATA;
	fclose(f);
	if (rc == 0)
		buf[strcspn(buf, "\n")] = 0;
	return rc;
}

/* root/name/file as a decimal number; -ENODATA when not one. */
static int nic_read_long(const char *root, const char *name,
			 const char *file, long *v)
{
	char buf[64], *end;
	int rc = nic_read(root, name, file, buf, sizeof(buf));

	if (rc != 0)
		return rc;
	errno = 0;
	*v = strtol(buf, &end, 0);
	return errno || end == buf || *end ? -ENODATA : 0;
}

/* One ethtool ioctl on name: data is the command's structure, its first
 * word the command.  Returns 0 or a negative errno (EOPNOTSUPP: the
 * driver does not tell; ENODEV: no such interface here). */
static int nic_ethtool(int fd, const char *name, void *data)
{
	struct ifreq ifr;

	if (fd < 0)
		return -EBADF;
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", name);
	ifr.ifr_data = data;
	return ioctl(fd, SIOCETHTOOL, &ifr) == 0 ? 0 : -errno;
}

/* Whether a PCI address ("0000:00:03.0") is s. */
static int nic_is_pci(const char *s)
{
	unsigned d, b, sl, fn;
	char tail;

	return strlen(s) == 12 &&
	       sscanf(s, "%4x:%2x:%2x.%1x%c", &d, &b, &sl, &fn, &tail) == 4;
}

/* The PCI device behind name (its device link, or one of the link's
 * parents: virtio_net's device is virtio0 under the PCI function):
 * pci_address and pci_id ("vendor:device", hex). */
static void nic_pci(cJSON *o, const char *root, const char *name)
{
	char path[PATH_MAX], real[PATH_MAX], id[64], v[16], d[16], *slash;
	int up;

	snprintf(path, sizeof(path), "%s/%s/device", root, name);
	if (!realpath(path, real))
		return;
	for (up = 0; up < 4; up++) {
		slash = strrchr(real, '/');
		if (!slash || slash == real)
			return;
		if (nic_is_pci(slash + 1))
			break;
		*slash = 0;
	}
	if (up == 4)
		return;
	cJSON_AddStringToObject(o, "pci_address", slash + 1);
	if (nic_read(real, ".", "vendor", v, sizeof(v)) != 0 ||
	    nic_read(real, ".", "device", d, sizeof(d)) != 0 ||
	    strncmp(v, "0x", 2) != 0 || strncmp(d, "0x", 2) != 0)
		return;
	snprintf(id, sizeof(id), "%s:%s", v + 2, d + 2);
	cJSON_AddStringToObject(o, "pci_id", id);
}

/* driver, driver_version, firmware_version, bus_info: ETHTOOL_GDRVINFO,
 * else the driver's name from the device's driver link. */
static void nic_drvinfo(cJSON *o, int fd, const char *root, const char *name)
{
	struct ethtool_drvinfo di;
	char path[PATH_MAX], link[PATH_MAX], *b;
	ssize_t n;

	memset(&di, 0, sizeof(di));
	di.cmd = ETHTOOL_GDRVINFO;
	if (nic_ethtool(fd, name, &di) == 0 && host_nic_told(di.driver)) {
		di.driver[sizeof(di.driver) - 1] = 0;
		di.version[sizeof(di.version) - 1] = 0;
		di.fw_version[sizeof(di.fw_version) - 1] = 0;
		di.bus_info[sizeof(di.bus_info) - 1] = 0;
		cJSON_AddStringToObject(o, "driver", di.driver);
		if (host_nic_told(di.version))
			cJSON_AddStringToObject(o, "driver_version",
						di.version);
		if (host_nic_told(di.fw_version))
			cJSON_AddStringToObject(o, "firmware_version",
						di.fw_version);
		if (host_nic_told(di.bus_info))
			cJSON_AddStringToObject(o, "bus_info", di.bus_info);
		return;
	}
	snprintf(path, sizeof(path), "%s/%s/device/driver", root, name);
	n = readlink(path, link, sizeof(link) - 1);
	if (n <= 0)
		return;
	link[n] = 0;
	b = strrchr(link, '/');
	cJSON_AddStringToObject(o, "driver", b ? b + 1 : link);
}

/* speed_mbps, duplex, autoneg: ETHTOOL_GLINKSETTINGS (its handshake:
 * the first call says how many mask words the kernel has), else the
 * legacy ETHTOOL_GSET.  Returns 0 when either answered. */
static int nic_link_ioctl(int fd, const char *name, uint32_t *speed,
			  uint8_t *duplex, uint8_t *autoneg)
{
	/* A union, not a struct: the settings end in a flexible array. */
	union {
		struct ethtool_link_settings s;
		uint32_t w[sizeof(struct ethtool_link_settings) / 4 +
			   3 * NIC_LINK_WORDS];
	} ls;
	struct ethtool_cmd ec;
	int8_t words;

	memset(&ls, 0, sizeof(ls));
	ls.s.cmd = ETHTOOL_GLINKSETTINGS;
	if (nic_ethtool(fd, name, &ls) == 0 &&
	    ls.s.link_mode_masks_nwords < 0) {
		words = (int8_t)-ls.s.link_mode_masks_nwords;
		memset(&ls, 0, sizeof(ls));
		ls.s.cmd = ETHTOOL_GLINKSETTINGS;
		ls.s.link_mode_masks_nwords = words;
		if (words > 0 &&
		    nic_ethtool(fd, name, &ls) == 0 &&
		    ls.s.link_mode_masks_nwords > 0) {
			*speed = ls.s.speed;
			*duplex = ls.s.duplex;
			*autoneg = ls.s.autoneg;
			return 0;
		}
	}
	memset(&ec, 0, sizeof(ec));
	ec.cmd = ETHTOOL_GSET;
	if (nic_ethtool(fd, name, &ec) != 0)
		return -ENODATA;
	*speed = ethtool_cmd_speed(&ec);
	*duplex = ec.duplex;
	*autoneg = ec.autoneg;
	return 0;
}

/* The link as the driver tells it, else as sysfs does. */
static void nic_link(cJSON *o, int fd, const char *root, const char *name)
{
	uint32_t speed = 0;
	uint8_t duplex = DUPLEX_UNKNOWN, autoneg = 0xff;
	char buf[64];
	const char *dup = NULL;
	long mbps;

	if (nic_link_ioctl(fd, name, &speed, &duplex, &autoneg) == 0) {
		snprintf(buf, sizeof(buf), "%u", speed);
		if (host_nic_speed(buf, &mbps) == 0)
			cJSON_AddNumberToObject(o, "speed_mbps", (double)mbps);
		dup = duplex == DUPLEX_FULL ? "full" :
		      duplex == DUPLEX_HALF ? "half" : NULL;
		if (dup)
			cJSON_AddStringToObject(o, "duplex", dup);
		if (autoneg == AUTONEG_ENABLE || autoneg == AUTONEG_DISABLE)
			cJSON_AddBoolToObject(o, "autoneg",
					      autoneg == AUTONEG_ENABLE);
		return;
	}
	if (nic_read(root, name, "speed", buf, sizeof(buf)) == 0 &&
	    host_nic_speed(buf, &mbps) == 0)
		cJSON_AddNumberToObject(o, "speed_mbps", (double)mbps);
	if (nic_read(root, name, "duplex", buf, sizeof(buf)) == 0 &&
	    (dup = host_nic_duplex(buf)) != NULL)
		cJSON_AddStringToObject(o, "duplex", dup);
}

/* rx_queues, tx_queues (the kernel's queues: sysfs), and channels (the
 * driver's, ETHTOOL_GCHANNELS: those it has, current counts). */
static void nic_queues(cJSON *o, int fd, const char *root, const char *name)
{
	struct ethtool_channels ch;
	char path[PATH_MAX];
	struct dirent *de;
	long rx = 0, tx = 0;
	cJSON *c;
	DIR *d;

	snprintf(path, sizeof(path), "%s/%s/queues", root, name);
	d = opendir(path);
	while (d && (de = readdir(d))) {
		rx += strncmp(de->d_name, "rx-", 3) == 0;
		tx += strncmp(de->d_name, "tx-", 3) == 0;
	}
	if (d) {
		closedir(d);
		cJSON_AddNumberToObject(o, "rx_queues", (double)rx);
		cJSON_AddNumberToObject(o, "tx_queues", (double)tx);
	}
	memset(&ch, 0, sizeof(ch));
	ch.cmd = ETHTOOL_GCHANNELS;
	if (nic_ethtool(fd, name, &ch) != 0)
		return;
	c = cJSON_AddObjectToObject(o, "channels");
	if (!c)
		return;
	/* A kind the hardware cannot have at all (max 0) is left out. */
	if (ch.max_rx)
		cJSON_AddNumberToObject(c, "rx", ch.rx_count);
	if (ch.max_tx)
		cJSON_AddNumberToObject(c, "tx", ch.tx_count);
	if (ch.max_other)
		cJSON_AddNumberToObject(c, "other", ch.other_count);
	if (ch.max_combined)
		cJSON_AddNumberToObject(c, "combined", ch.combined_count);
}

/* The offloads that change a benchmark's figures, each as the driver
 * says it is on now (the legacy per-feature ioctls: one answer each). */
static void nic_offloads(cJSON *o, int fd, const char *name)
{
	static const struct {
		const char *key;
		uint32_t cmd, flag;
	} offs[] = {
		{ "tso", ETHTOOL_GTSO, 0 },
		{ "gso", ETHTOOL_GGSO, 0 },
		{ "gro", ETHTOOL_GGRO, 0 },
		{ "lro", ETHTOOL_GFLAGS, ETH_FLAG_LRO },
	};
	struct ethtool_value ev;
	cJSON *off = NULL;
	size_t i;

	for (i = 0; i < sizeof(offs) / sizeof(offs[0]); i++) {
		memset(&ev, 0, sizeof(ev));
		ev.cmd = offs[i].cmd;
		if (nic_ethtool(fd, name, &ev) != 0)
			continue;
		if (!off)
			off = cJSON_AddObjectToObject(o, "offloads");
		if (!off)
			return;
		cJSON_AddBoolToObject(off, offs[i].key, offs[i].flag ?
				      (ev.data & offs[i].flag) != 0 :
				      ev.data != 0);
	}
}

/* ipv4: name's IPv4 addresses as "ADDR/PREFIX", from SIOCGIFCONF and
 * SIOCGIFNETMASK on fd (an AF_INET socket): not getifaddrs, whose
 * netlink answers qemu-user leaves in the host's byte order, so a
 * big-endian build under emulation (make test's ppc) looped forever. */
static void nic_ipv4(cJSON *o, int fd, const char *name)
{
	char a[INET_ADDRSTRLEN], cidr[INET_ADDRSTRLEN + 16];
	struct ifreq req[32], nm;
	struct ifconf ifc;
	cJSON *arr = NULL;
	size_t i, n;

	if (fd < 0)
		return;
	ifc.ifc_len = sizeof(req);
	ifc.ifc_req = req;
	if (ioctl(fd, SIOCGIFCONF, &ifc) != 0)
		return;
	n = (size_t)ifc.ifc_len / sizeof(req[0]);
	for (i = 0; i < n && i < 32; i++) {
		uint32_t m = 0;
		int bits = 0;
		size_t l = strlen(name);

		/* eth0 and its labels (eth0:1), not eth01. */
		if (req[i].ifr_addr.sa_family != AF_INET ||
		    strncmp(req[i].ifr_name, name, l) != 0 ||
		    (req[i].ifr_name[l] && req[i].ifr_name[l] != ':'))
			continue;
		inet_ntop(AF_INET, &((struct sockaddr_in *)&req[i].ifr_addr)->
			  sin_addr, a, sizeof(a));
		memset(&nm, 0, sizeof(nm));
		memcpy(nm.ifr_name, req[i].ifr_name, sizeof(nm.ifr_name));
		if (ioctl(fd, SIOCGIFNETMASK, &nm) == 0)
			m = ntohl(((struct sockaddr_in *)&nm.ifr_netmask)->
				  sin_addr.s_addr);
		while (m & 0x80000000u) {
			bits++;
			m <<= 1;
		}
		snprintf(cidr, sizeof(cidr), "%s/%d", a, bits);
		if (!arr)
			arr = cJSON_AddArrayToObject(o, "ipv4");
		if (arr)
			cJSON_AddItemToArray(arr, cJSON_CreateString(cidr));
	}
}

/* One interface's object; NULL on out of memory. */
static cJSON *nic_one(const char *root, const char *name, int fd)
{
	cJSON *o = cJSON_CreateObject();
	char buf[128];
	long v;

	if (!o)
		return NULL;
	cJSON_AddStringToObject(o, "name", name);
	if (nic_read(root, name, "address", buf, sizeof(buf)) == 0 &&
	    buf[0] && strcmp(buf, "00:00:00:00:00:00") != 0)
		cJSON_AddStringToObject(o, "mac", buf);
	nic_drvinfo(o, fd, root, name);
	nic_pci(o, root, name);
	if (nic_read(root, name, "operstate", buf, sizeof(buf)) == 0 &&
	    buf[0])
		cJSON_AddStringToObject(o, "operstate", buf);
	/* A down interface's carrier cannot be read: absent, not false.
	 * Without a carrier there is no link to have a speed (e1000 still
	 * says 1000 full on an interface never brought up). */
	if (nic_read_long(root, name, "carrier", &v) == 0 &&
	    (v == 0 || v == 1)) {
		cJSON_AddBoolToObject(o, "carrier", v == 1);
		if (v == 1)
			nic_link(o, fd, root, name);
	}
	if (nic_read_long(root, name, "mtu", &v) == 0 && v > 0)
		cJSON_AddNumberToObject(o, "mtu", (double)v);
	nic_queues(o, fd, root, name);
	nic_offloads(o, fd, name);
	nic_ipv4(o, fd, name);
	return o;
}

struct nic_ent {
	long ifindex;
	char name[IF_NAMESIZE + 1];
};

static int nic_cmp(const void *a, const void *b)
{
	const struct nic_ent *x = a, *y = b;

	if (x->ifindex != y->ifindex)
		return x->ifindex < y->ifindex ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* The interfaces under root but loopback into e (at most HOST_NIC_MAX),
 * sorted by ifindex.  Returns how many. */
static size_t nic_names(const char *root, struct nic_ent *e)
{
	struct dirent *de;
	size_t n = 0;
	long type;
	DIR *d = opendir(root);

	while (d && n < HOST_NIC_MAX && (de = readdir(d))) {
		if (de->d_name[0] == '.' || strcmp(de->d_name, "lo") == 0 ||
		    strlen(de->d_name) > IF_NAMESIZE)
			continue;
		if (nic_read_long(root, de->d_name, "type", &type) == 0 &&
		    type == NIC_TYPE_LOOPBACK)
			continue;
		if (nic_read_long(root, de->d_name, "ifindex",
				  &e[n].ifindex) != 0)
			e[n].ifindex = LONG_MAX;
		snprintf(e[n].name, sizeof(e[n].name), "%s", de->d_name);
		n++;
	}
	if (d)
		closedir(d);
	qsort(e, n, sizeof(*e), nic_cmp);
	return n;
}

cJSON *host_nic_list(const char *root)
{
	struct nic_ent e[HOST_NIC_MAX];
	cJSON *arr = cJSON_CreateArray(), *o;
	size_t n, i;
	int fd;

	if (!arr)
		return NULL;
	n = nic_names(root, e);
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	for (i = 0; i < n; i++) {
		o = nic_one(root, e[i].name, fd);
		if (!o) {
			cJSON_Delete(arr);
			arr = NULL;
			break;
		}
		cJSON_AddItemToArray(arr, o);
	}
	if (fd >= 0)
		close(fd);
	return arr;
}

int host_nic_add(cJSON *host)
{
	cJSON *arr = host_nic_list(HOST_NIC_SYS);

	if (!arr)
		return -ENOMEM;
	if (cJSON_GetArraySize(arr) == 0) {
		cJSON_Delete(arr);
		return 0;
	}
	cJSON_AddItemToObject(host, "nics", arr);
	host_nic_fit(host, HOST_NIC_JSON_MAX);
	return 0;
}

/* a's length printed unformatted (SIZE_MAX when it cannot be printed). */
static size_t nic_json_len(const cJSON *a)
{
	char *t = cJSON_PrintUnformatted(a);
	size_t n = t ? strlen(t) : SIZE_MAX;

	free(t);
	return n;
}

/* Replaces n's fields by the few a NIC without a link is known by. */
static void nic_compact(cJSON *n)
{
	static const char *const keep[] = { "name", "mac", "driver",
		"pci_address", "operstate" };
	cJSON *f, *next;
	size_t i;

	for (f = n->child; f; f = next) {
		next = f->next;
		for (i = 0; i < sizeof(keep) / sizeof(keep[0]); i++)
			if (f->string && strcmp(f->string, keep[i]) == 0)
				break;
		if (i == sizeof(keep) / sizeof(keep[0]))
			cJSON_Delete(cJSON_DetachItemViaPointer(n, f));
	}
	cJSON_AddBoolToObject(n, "cut", 1);
}

/* The last entry of arr that pass p may shrink or drop: 0, a NIC
 * without a carrier not yet compacted; 1, a NIC without an address;
 * 2, any. */
static cJSON *nic_victim(cJSON *arr, int pass)
{
	cJSON *n, *found = NULL;

	cJSON_ArrayForEach(n, arr) {
		const cJSON *c = cJSON_GetObjectItemCaseSensitive(n, "carrier");

		if (pass == 0 && !cJSON_IsTrue(c) &&
		    !cJSON_GetObjectItemCaseSensitive(n, "cut"))
			found = n;
		if (pass == 1 && !cJSON_GetObjectItemCaseSensitive(n, "ipv4"))
			found = n;
		if (pass == 2)
			found = n;
	}
	return found;
}

int host_nic_fit(cJSON *host, size_t max)
{
	cJSON *arr = cJSON_GetObjectItemCaseSensitive(host, "nics"), *v;
	int pass = 0, gone = 0;

	if (!cJSON_IsArray(arr))
		return 0;
	while (pass < 3 && cJSON_GetArraySize(arr) > 0 &&
	       nic_json_len(arr) > max) {
		v = nic_victim(arr, pass);
		if (!v) {
			pass++;
			continue;
		}
		if (pass == 0) {
			nic_compact(v);
			continue;
		}
		cJSON_Delete(cJSON_DetachItemViaPointer(arr, v));
		gone++;
	}
	if (gone) {
		cJSON_DeleteItemFromObjectCaseSensitive(host, "nics_cut");
		cJSON_AddNumberToObject(host, "nics_cut", gone);
	}
	return gone;
}

/* Whether the nics entry n has addr among its ipv4 ("ADDR/PREFIX"). */
static int nic_has_addr(const cJSON *n, const char *addr)
{
	const cJSON *a;
	size_t len = strlen(addr);

	cJSON_ArrayForEach(a, cJSON_GetObjectItemCaseSensitive(n, "ipv4"))
		if (cJSON_IsString(a) &&
		    strncmp(a->valuestring, addr, len) == 0 &&
		    (a->valuestring[len] == '/' || !a->valuestring[len]))
			return 1;
	return 0;
}

int host_nic_mark_suite(cJSON *host, const char *addr)
{
	static const char *const keys[] = { "name", "mac", "driver",
		"firmware_version", "speed_mbps", "duplex" };
	const cJSON *n;
	cJSON *s, *v;
	size_t i;

	if (!host || !addr)
		return -EINVAL;
	/* A dual-stack listener sees an IPv4 peer as ::ffff:A.B.C.D. */
	if (strncmp(addr, "::ffff:", 7) == 0 && strchr(addr, '.'))
		addr += 7;
	cJSON_ArrayForEach(n, cJSON_GetObjectItemCaseSensitive(host, "nics")) {
		if (!nic_has_addr(n, addr))
			continue;
		cJSON_DeleteItemFromObjectCaseSensitive(host, "suite_nic");
		s = cJSON_AddObjectToObject(host, "suite_nic");
		if (!s)
			return -ENOMEM;
		for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
			v = cJSON_GetObjectItemCaseSensitive(n, keys[i]);
			if (v)
				cJSON_AddItemToObject(s, keys[i],
						cJSON_Duplicate(v, 1));
		}
		cJSON_AddStringToObject(s, "address", addr);
		return 0;
	}
	return -ENOENT;
}
