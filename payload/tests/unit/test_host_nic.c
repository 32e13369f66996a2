/* test_host_nic.c: host_nic's reading of /sys/class/net, table-driven:
 * the speed, duplex and version texts a driver gives, a fake sysfs tree
 * (a virtio NIC behind its PCI function, a down NIC that tells nothing,
 * loopback) turned into the result's nics[] shape with absent fields
 * absent, suite_nic picked by address, and this host's own interfaces. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "host/host_nic.h"
#include "tap.h"

static const struct {
	const char *in;
	int rc;
	long mbps;
} speed_cases[] = {
	{ "1000", 0, 1000 },
	{ "100000\n", 0, 100000 },
	{ "10", 0, 10 },
	{ "-1", -ENODATA, 0 },		/* SPEED_UNKNOWN in sysfs */
	{ "4294967295", -ENODATA, 0 },	/* the same as ethtool's u32 */
	{ "0", -ENODATA, 0 },
	{ "", -ENODATA, 0 },
	{ " 1000", -ENODATA, 0 },
	{ "1000x", -ENODATA, 0 },
	{ "99999999999999999999", -ENODATA, 0 },
};

static const struct {
	const char *in, *want;
} duplex_cases[] = {
	{ "full", "full" }, { "half\n", "half" }, { "unknown", NULL },
	{ "", NULL }, { "fullx", NULL }, { "Full", NULL },
};

static const struct {
	const char *in;
	int want;
} told_cases[] = {
	{ "1.2.3", 1 }, { "0x80000a2c", 1 }, { "", 0 }, { "N/A", 0 },
	{ "n/a", 0 }, { "   ", 0 }, { NULL, 0 },
};

static char root[256];

static void put(const char *rel, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	f = fopen(path, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static void dir(const char *rel)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	mkdir(path, 0755);
}

static void lnk(const char *target, const char *rel)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	if (symlink(target, path) != 0)
		perror(path);
}

/* The tree: net/bbtnic1 (virtio_net on 0000:00:03.0, up, 1000 full, two
 * queue pairs), net/bbtnic0 (ifindex 9: down, speed -1, duplex unknown,
 * no MAC, no device), net/lo. */
static void make_tree(void)
{
	static const char *const dirs[] = { "devices", "devices/pci0000:00",
		"devices/pci0000:00/0000:00:03.0",
		"devices/pci0000:00/0000:00:03.0/virtio3", "drivers",
		"drivers/virtio_net", "net", "net/bbtnic1",
		"net/bbtnic1/queues", "net/bbtnic1/queues/rx-0",
		"net/bbtnic1/queues/rx-1", "net/bbtnic1/queues/tx-0",
		"net/bbtnic1/queues/tx-1", "net/bbtnic0", "net/lo" };
	size_t i;

	for (i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++)
		dir(dirs[i]);
	put("devices/pci0000:00/0000:00:03.0/vendor", "0x1af4\n");
	put("devices/pci0000:00/0000:00:03.0/device", "0x1000\n");
	lnk("../../../../drivers/virtio_net",
	    "devices/pci0000:00/0000:00:03.0/virtio3/driver");
	lnk("../../devices/pci0000:00/0000:00:03.0/virtio3",
	    "net/bbtnic1/device");
	put("net/bbtnic1/address", "52:54:00:bb:00:07\n");
	put("net/bbtnic1/ifindex", "3\n");
	put("net/bbtnic1/type", "1\n");
	put("net/bbtnic1/operstate", "up\n");
	put("net/bbtnic1/carrier", "1\n");
	put("net/bbtnic1/speed", "1000\n");
	put("net/bbtnic1/duplex", "full\n");
	put("net/bbtnic1/mtu", "1500\n");
	put("net/bbtnic0/address", "00:00:00:00:00:00\n");
	put("net/bbtnic0/ifindex", "9\n");
	put("net/bbtnic0/type", "1\n");
	put("net/bbtnic0/operstate", "down\n");
	put("net/bbtnic0/speed", "-1\n");
	put("net/bbtnic0/duplex", "unknown\n");
	put("net/bbtnic0/mtu", "9000\n");
	put("net/lo/ifindex", "1\n");
	put("net/lo/type", "772\n");
}

static const char *str(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

static double num(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);

	return cJSON_IsNumber(v) ? v->valuedouble : -1;
}

static int has(const cJSON *o, const char *k)
{
	return cJSON_GetObjectItemCaseSensitive(o, k) != NULL;
}

static void test_tree(void)
{
	char net[300];
	cJSON *a, *up, *down;

	make_tree();
	snprintf(net, sizeof(net), "%s/net", root);
	a = host_nic_list(net);
	TAP_EQ_INT(cJSON_GetArraySize(a), 2, "tree: two NICs, loopback left out");
	up = cJSON_GetArrayItem(a, 0);
	down = cJSON_GetArrayItem(a, 1);
	TAP_EQ_STR(str(up, "name"), "bbtnic1", "tree: in ifindex order (3 before 9)");
	TAP_EQ_STR(str(up, "mac"), "52:54:00:bb:00:07", "up: mac");
	TAP_EQ_STR(str(up, "driver"), "virtio_net", "up: driver from the device's driver link (no ioctl answers for a name that is not here)");
	TAP_EQ_STR(str(up, "pci_address"), "0000:00:03.0", "up: pci_address: the PCI function above virtio3");
	TAP_EQ_STR(str(up, "pci_id"), "1af4:1000", "up: pci_id vendor:device");
	TAP_EQ_STR(str(up, "operstate"), "up", "up: operstate");
	tap_ok(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(up, "carrier")), "up: carrier true");
	TAP_EQ_INT(num(up, "speed_mbps"), 1000, "up: speed_mbps from sysfs");
	TAP_EQ_STR(str(up, "duplex"), "full", "up: duplex from sysfs");
	TAP_EQ_INT(num(up, "mtu"), 1500, "up: mtu");
	TAP_EQ_INT(num(up, "rx_queues"), 2, "up: rx_queues counted in queues/");
	TAP_EQ_INT(num(up, "tx_queues"), 2, "up: tx_queues counted in queues/");
	tap_ok(!has(up, "firmware_version") && !has(up, "offloads") &&
	       !has(up, "channels") && !has(up, "ipv4") &&
	       !has(up, "driver_version"),
	       "up: what only the driver or the kernel tells is absent, not guessed");
	TAP_EQ_STR(str(down, "name"), "bbtnic0", "down: name");
	tap_ok(!has(down, "mac"), "down: an all-zero MAC is absent");
	tap_ok(!has(down, "speed_mbps") && !has(down, "duplex"), "down: speed -1 and duplex unknown are absent");
	tap_ok(!has(down, "carrier"), "down: an unreadable carrier is absent, not false");
	tap_ok(!has(down, "driver") && !has(down, "pci_address") && !has(down, "rx_queues"), "down: no device, no driver, no queues directory: absent");
	TAP_EQ_INT(num(down, "mtu"), 9000, "down: mtu still read");
	cJSON_Delete(a);
}

static void test_suite_nic(void)
{
	static const char doc[] = "{\"nics\":["
		"{\"name\":\"eth0\",\"driver\":\"e1000\",\"ipv4\":[\"169.254.9.9/16\"]},"
		"{\"name\":\"eth1\",\"mac\":\"52:54:00:bb:00:07\",\"driver\":\"virtio_net\","
		"\"speed_mbps\":1000,\"duplex\":\"full\",\"mtu\":1500,"
		"\"ipv4\":[\"10.0.0.2/24\",\"169.254.3.4/16\"]}]}";
	cJSON *h = cJSON_Parse(doc);
	const cJSON *s;

	TAP_EQ_INT(host_nic_mark_suite(h, "169.254.3.4"), 0, "suite_nic: the NIC holding the address");
	s = cJSON_GetObjectItemCaseSensitive(h, "suite_nic");
	TAP_EQ_STR(str(s, "name"), "eth1", "suite_nic: its name");
	TAP_EQ_STR(str(s, "driver"), "virtio_net", "suite_nic: its driver");
	TAP_EQ_STR(str(s, "mac"), "52:54:00:bb:00:07", "suite_nic: its mac");
	TAP_EQ_INT(num(s, "speed_mbps"), 1000, "suite_nic: its speed");
	TAP_EQ_STR(str(s, "duplex"), "full", "suite_nic: its duplex");
	TAP_EQ_STR(str(s, "address"), "169.254.3.4", "suite_nic: the address");
	tap_ok(!has(s, "mtu") && !has(s, "firmware_version"), "suite_nic: only the named fields, only those known");
	TAP_EQ_INT(host_nic_mark_suite(h, "169.254.3.40"), -ENOENT, "suite_nic: an address that only starts like one is none");
	TAP_EQ_INT(host_nic_mark_suite(h, "169.254.9"), -ENOENT, "suite_nic: a partial address is none");
	TAP_EQ_STR(str(cJSON_GetObjectItemCaseSensitive(h, "suite_nic"), "name"), "eth1", "suite_nic: a miss leaves it as it was");
	TAP_EQ_INT(host_nic_mark_suite(h, "169.254.9.9"), 0, "suite_nic: marked again");
	TAP_EQ_STR(str(cJSON_GetObjectItemCaseSensitive(h, "suite_nic"), "name"), "eth0", "suite_nic: replaced, not doubled");
	TAP_EQ_INT(host_nic_mark_suite(h, NULL), -EINVAL, "suite_nic: NULL address");
	TAP_EQ_INT(host_nic_mark_suite(h, "::ffff:10.0.0.2"), 0, "suite_nic: a dual-stack listener's IPv4-mapped address");
	TAP_EQ_STR(str(cJSON_GetObjectItemCaseSensitive(h, "suite_nic"), "address"), "10.0.0.2", "suite_nic: recorded as plain IPv4");
	cJSON_Delete(h);
}

/* A full NIC entry as host_nic writes one (about 400 bytes). */
static cJSON *fat_nic(int i, int carrier, int addr)
{
	char buf[600];

	snprintf(buf, sizeof(buf), "{\"name\":\"enp%ds0f%d\",\"mac\":\"a0:36:9f:00:00:%02x\","
		 "\"driver\":\"ixgbe\",\"driver_version\":\"6.1.0-28-amd64\","
		 "\"firmware_version\":\"0x800003e1, 1.2829.0\",\"bus_info\":\"0000:%02x:00.%d\","
		 "\"pci_address\":\"0000:%02x:00.%d\",\"pci_id\":\"8086:10fb\",\"operstate\":\"%s\","
		 "\"carrier\":%s,\"speed_mbps\":10000,\"duplex\":\"full\",\"autoneg\":true,\"mtu\":9000,"
		 "\"rx_queues\":64,\"tx_queues\":64,\"channels\":{\"combined\":64},"
		 "\"offloads\":{\"tso\":true,\"gso\":true,\"gro\":true,\"lro\":false}%s}",
		 i, i, i, i, i, i, i, carrier ? "up" : "down", carrier ? "true" : "false",
		 addr ? ",\"ipv4\":[\"10.1.0.7/24\"]" : "");
	return cJSON_Parse(buf);
}

/* The hello's budget: a machine with 12 NICs keeps the one with an
 * address whole, the linkless ones cut first, and says how many went. */
static void test_fit(void)
{
	cJSON *h = cJSON_CreateObject(), *a = cJSON_AddArrayToObject(h, "nics"), *n;
	int i, gone, cut = 0, whole_addr = 0, cutfirst = 1;
	char *t;

	for (i = 0; i < 2; i++)
		cJSON_AddItemToArray(a, fat_nic(i, 1, 0));
	TAP_EQ_INT(host_nic_fit(h, HOST_NIC_JSON_MAX), 0, "fit: two NICs fit as they are");
	tap_ok(!has(h, "nics_cut") && !has(cJSON_GetArrayItem(a, 0), "cut"), "fit: nothing marked");
	for (i = 2; i < 12; i++)
		cJSON_AddItemToArray(a, fat_nic(i, i != 5 && i % 2 == 0, i == 5 || i == 6));
	gone = host_nic_fit(h, HOST_NIC_JSON_MAX);
	t = cJSON_PrintUnformatted(a);
	tap_ok(t && strlen(t) <= HOST_NIC_JSON_MAX, "fit: 12 NICs held to %d bytes (%zu)", HOST_NIC_JSON_MAX, t ? strlen(t) : 0);
	free(t);
	TAP_EQ_INT(num(h, "nics_cut"), gone, "fit: nics_cut counts the NICs that went");
	tap_ok(gone > 0 && cJSON_GetArraySize(a) + gone == 12, "fit: %d went, %d kept", gone, cJSON_GetArraySize(a));
	cJSON_ArrayForEach(n, a) {
		if (has(n, "cut")) {
			cut++;
			if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(n, "carrier")) || has(n, "speed_mbps") || !has(n, "mac") || !has(n, "driver"))
				cutfirst = 0;
		}
		if (str(n, "name") && strcmp(str(n, "name"), "enp6s0f6") == 0 && !has(n, "cut") && has(n, "ipv4"))
			whole_addr = 1;
	}
	tap_ok(cut > 0 && cutfirst, "fit: only linkless NICs cut, keeping name, mac, driver (%d cut)", cut);
	tap_ok(whole_addr, "fit: the NIC with a link and an address is kept whole");
	cJSON_Delete(h);
}

/* This host's own interfaces: whatever they are, loopback is not one and
 * every entry has a name. */
static void test_live(void)
{
	cJSON *a = host_nic_list(HOST_NIC_SYS), *n;
	int ok = a != NULL;
	char *text;

	cJSON_ArrayForEach(n, a)
		if (!str(n, "name") || strcmp(str(n, "name"), "lo") == 0)
			ok = 0;
	tap_ok(ok, "live: %d interfaces of this host, each named, no loopback", cJSON_GetArraySize(a));
	text = a ? cJSON_PrintUnformatted(cJSON_GetArrayItem(a, 0)) : NULL;
	if (text)
		printf("# first: %.600s\n", text);
	free(text);
	cJSON_Delete(a);
}

int main(void)
{
	char cmd[300];
	size_t i;
	long v;

	for (i = 0; i < sizeof(speed_cases) / sizeof(speed_cases[0]); i++) {
		v = 0;
		TAP_EQ_INT(host_nic_speed(speed_cases[i].in, &v),
			   speed_cases[i].rc, speed_cases[i].in);
		if (speed_cases[i].rc == 0)
			TAP_EQ_INT(v, speed_cases[i].mbps, "  its Mb/s");
	}
	for (i = 0; i < sizeof(duplex_cases) / sizeof(duplex_cases[0]); i++)
		TAP_EQ_STR(host_nic_duplex(duplex_cases[i].in),
			   duplex_cases[i].want, "duplex");
	for (i = 0; i < sizeof(told_cases) / sizeof(told_cases[0]); i++)
		TAP_EQ_INT(host_nic_told(told_cases[i].in),
			   told_cases[i].want, "told");
	snprintf(root, sizeof(root), "/tmp/test_host_nic.XXXXXX");
	if (!mkdtemp(root)) {
		tap_ok(0, "mkdtemp");
		return tap_done();
	}
	test_tree();
	test_suite_nic();
	test_fit();
	test_live();
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	if (system(cmd) != 0)
		printf("# could not remove %s\n", root);
	return tap_done();
}
