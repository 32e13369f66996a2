/* node/node.c: identity, host facts, the agent clock, log and status line
 * (node.h). */
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "node/node.h"
#include "host/host_cpu.h"
#include "host/host_dmi.h"
#include "host/host_kernel.h"
#include "host/host_smbios.h"
#include "lib/util.h"
#include "lib/version.h"
#include "host/host_nic.h"

char node_log_id[64] = "agent";

static int64_t node_clock_err;

void node_clock_init(void)
{
	const char *e = getenv("BENCHBOOT_CLOCK_OFFSET_NS");

	if (e)
		node_clock_err = strtoll(e, NULL, 10);
}

static const char *const role_names[] = {
	[ROLE_NONE] = "none",
	[ROLE_CLIENT] = "client",
	[ROLE_SERVER] = "server",
	[ROLE_CONTROLLER] = "controller",
};

const char *role_name(enum role role)
{
	if ((unsigned)role >= sizeof(role_names) / sizeof(role_names[0]))
		return role_names[ROLE_NONE];
	return role_names[role];
}

enum role role_parse(const char *s)
{
	unsigned r;

	for (r = ROLE_CLIENT; s && r <= ROLE_CONTROLLER; r++)
		if (strcmp(s, role_names[r]) == 0)
			return (enum role)r;
	return ROLE_NONE;
}

int64_t node_clock(void)
{
	return (int64_t)util_real_ns() + node_clock_err;
}

int64_t node_clock_to_real(int64_t t)
{
	return t - node_clock_err;
}

void node_log(const char *fmt, ...)
{
	char ts[32], msg[1024];
	struct timespec now;
	struct tm tm;
	va_list ap;

	clock_gettime(CLOCK_REALTIME, &now);
	gmtime_r(&now.tv_sec, &tm);
	strftime(ts, sizeof(ts), "%H:%M:%S", &tm);
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fprintf(stderr, "%s.%03ld benchboot agent %s: %s\n", ts,
		now.tv_nsec / 1000000, node_log_id, msg);
}

void node_status(const char *fmt, ...)
{
	const char *path = getenv("BENCHBOOT_STATUS");
	char tmp[4200], line[512];
	va_list ap;
	FILE *f;

	if (!path) {
		if (access("/run/benchboot", W_OK) != 0)
			return;
		path = "/run/benchboot/status";
	}
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "w");
	if (!f)
		return;
	fprintf(f, "%s %s\n", node_log_id, line);
	if (fclose(f) == 0)
		rename(tmp, path);
}

int node_read_small(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return -errno;
	n = fread(buf, 1, len - 1, f);
	fclose(f);
	buf[n] = 0;
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = 0;
	return 0;
}

static int node_cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The 12 hex digits of name's MAC into hex (13 bytes), when it has one
 * that is not all zeroes.  Returns 0 or -ENOENT. */
static int node_mac_hex(const char *name, char *hex)
{
	char path[512], mac[64];
	size_t j, k = 0;

	snprintf(path, sizeof(path), "/sys/class/net/%s/address", name);
	if (node_read_small(path, mac, sizeof(mac)) != 0)
		return -ENOENT;
	for (j = 0; mac[j] && k < 12; j++)
		if (mac[j] != ':')
			hex[k++] = mac[j];
	hex[k] = 0;
	if (k != 12 || strcmp(hex, "000000000000") == 0)
		return -ENOENT;
	return 0;
}

int node_identity(const char *role, char *id, size_t idlen)
{
	char *names[256], path[512], hex[16];
	struct dirent *de;
	int n = 0, pass, i, rc = -ENODEV;
	DIR *d = opendir("/sys/class/net");

	while (d && (de = readdir(d)) && n < 256)
		if (de->d_name[0] != '.' && strcmp(de->d_name, "lo") != 0)
			names[n++] = strdup(de->d_name);
	if (d)
		closedir(d);
	qsort(names, (size_t)n, sizeof(names[0]), node_cmp_names);
	/* Pass 0: interfaces backed by a device (real NICs, virtio);
	 * pass 1: anything else with a MAC (veth in namespaces). */
	for (pass = 0; pass < 2 && rc != 0; pass++) {
		for (i = 0; i < n && rc != 0; i++) {
			struct stat st;

			if (!names[i])
				continue;
			snprintf(path, sizeof(path), "/sys/class/net/%s/device",
				 names[i]);
			if ((stat(path, &st) == 0) != (pass == 0))
				continue;
			if (node_mac_hex(names[i], hex) != 0)
				continue;
			snprintf(id, idlen, "%s-%s", role, hex);
			rc = 0;
		}
	}
	for (i = 0; i < n; i++)
		free(names[i]);
	if (rc != 0) {
		char host[64];

		snprintf(id, idlen, "%s-%s", role,
			 util_hostname(host, sizeof(host)));
	}
	return rc;
}

/* The server stack's versions, as server-start wrote them (the image's
 * server role; $BENCHBOOT_SERVER_VERSIONS elsewhere): the whole object as
 * "server_versions", and each service's version string as a scalar
 * "SERVICE_version" too, which the report lists with the host.  A missing
 * or unreadable file adds nothing: not every host runs the stack. */
static void node_server_versions(cJSON *o)
{
	const char *path = getenv("BENCHBOOT_SERVER_VERSIONS");
	char buf[4096], key[64];
	const cJSON *svc, *v;
	cJSON *j;

	if (!path)
		path = "/run/benchboot/server-versions.json";
	if (node_read_small(path, buf, sizeof(buf)) != 0)
		return;
	j = cJSON_Parse(buf);
	if (!cJSON_IsObject(j)) {
		node_log("%s: not a JSON object; versions not recorded", path);
		cJSON_Delete(j);
		return;
	}
	cJSON_ArrayForEach(svc, j) {
		v = cJSON_GetObjectItemCaseSensitive(svc, "version");
		if (!cJSON_IsString(v) || !svc->string)
			continue;
		snprintf(key, sizeof(key), "%s_version", svc->string);
		cJSON_AddStringToObject(o, key, v->valuestring);
	}
	cJSON_AddItemToObject(o, "server_versions", j);
}

long node_mem_kb(void)
{
	char line[256];
	long memkb = 0;
	FILE *f = fopen("/proc/meminfo", "r");

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "MemTotal: %ld kB", &memkb) == 1)
			break;
	if (f)
		fclose(f);
	return memkb;
}

/* The CPU model from /proc/cpuinfo into cpu (len bytes): x86's "model
 * name", PowerPC's "cpu"; "unknown" when neither is there. */
static void node_cpu_model(char *cpu, size_t len)
{
	char line[512];
	FILE *f = fopen("/proc/cpuinfo", "r");

	snprintf(cpu, len, "unknown");
	while (f && fgets(line, sizeof(line), f)) {
		char *c;

		if (strncmp(line, "model name", 10) != 0 &&
		    strncmp(line, "cpu\t", 4) != 0)
			continue;
		c = strchr(line, ':');
		if (c) {
			snprintf(cpu, len, "%s", c + 2);
			cpu[strcspn(cpu, "\n")] = 0;
			break;
		}
	}
	if (f)
		fclose(f);
}

void node_server_reset(cJSON *rs)
{
	const char *cmd = getenv("BENCHBOOT_SERVER_RESET");
	char line[512];
	cJSON *done;
	FILE *f;
	int n = 0;

	if (!cmd || !*cmd)
		cmd = NODE_SERVER_RESET;
	if (access(cmd, X_OK) != 0) {
		cJSON_AddStringToObject(rs, "not_reset", "no server-reset on this server (not the image's server stack)");
		return;
	}
	snprintf(line, sizeof(line), "exec '%s' 2>&1", cmd);
	f = popen(line, "r");
	if (!f) {
		cJSON_AddStringToObject(rs, "not_reset", strerror(errno));
		return;
	}
	cJSON_AddStringToObject(rs, "by", cmd);
	done = cJSON_AddArrayToObject(rs, "done");
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		if (line[0] && n++ < 16)
			cJSON_AddItemToArray(done, cJSON_CreateString(line));
	}
	cJSON_AddBoolToObject(rs, "ok", pclose(f) == 0);
}

void node_relay_route(const char *sink)
{
	const char *cmd = getenv("BENCHBOOT_SERVER_RELAY");
	pid_t pid;

	if (!cmd || !*cmd)
		cmd = NODE_SERVER_RELAY;
	if (access(cmd, X_OK) != 0) {
		node_log("relay %s: no %s here: the relay route is this host's own (the kit's --relay)", sink, cmd);
		return;
	}
	node_log("relay: pointing relay.test at %s (%s)", sink, cmd);
	pid = fork();
	if (pid == 0) {
		/* The grandchild runs it; the child is reaped at once. */
		if (fork() == 0) {
			execl(cmd, cmd, sink, (char *)NULL);
			_exit(127);
		}
		_exit(0);
	}
	if (pid > 0)
		waitpid(pid, NULL, 0);
}

/* What the image's role found missing at boot (initramfs
 * lib/benchboot/nics.sh: a network controller with no driver, a firmware
 * file not found), one string a line, as "nics_missing"; absent when
 * nothing was, or off the image.  At most NODE_NICS_MAX lines. */
static void node_nics_missing(cJSON *o)
{
	char line[512];
	cJSON *a = NULL;
	FILE *f = fopen(NODE_NICS_MISSING, "re");
	int n = 0;

	while (f && n < NODE_NICS_MAX && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		if (!line[0])
			continue;
		if (!a)
			a = cJSON_AddArrayToObject(o, "nics_missing");
		if (!a)
			break;
		cJSON_AddItemToArray(a, cJSON_CreateString(line));
		n++;
	}
	if (f)
		fclose(f);
}

/* The most the system table may take in the hello: the controller
 * refuses a connection that sends over 8 KiB before its hello is whole
 * (controller/runner_peers.c), and the hello carries the rest of the host
 * too. */
#define NODE_SYSTEM_MAX 4096

/* Leaves out of sys, largest first, what would make it longer than
 * NODE_SYSTEM_MAX (a long command line, the vulnerability lines, the
 * DIMMs), naming each in sys's "cut": the reader sees what is missing and
 * why, never a table that looks whole. */
static void node_system_fit(cJSON *sys)
{
	static const char *const drop[][2] = { { "kernel", "cmdline" },
		{ "cpu", "vulnerabilities" }, { "memory", "dimms" } };
	char line_cut[64], *t;
	cJSON *cut = NULL;
	size_t i, len;

	for (i = 0; i < sizeof(drop) / sizeof(drop[0]); i++) {
		t = cJSON_PrintUnformatted(sys);
		len = t ? strlen(t) : 0;
		free(t);
		if (len <= NODE_SYSTEM_MAX)
			return;
		if (!cJSON_GetObjectItem(cJSON_GetObjectItem(sys, drop[i][0]),
					 drop[i][1]))
			continue;
		cJSON_DeleteItemFromObject(cJSON_GetObjectItem(sys,
					   drop[i][0]), drop[i][1]);
		if (!cut)
			cut = cJSON_AddArrayToObject(sys, "cut");
		snprintf(line_cut, sizeof(line_cut), "%s.%s", drop[i][0],
			 drop[i][1]);
		if (cut)
			cJSON_AddItemToArray(cut, cJSON_CreateString(line_cut));
		node_log("system table over %d bytes: %s left out",
			 NODE_SYSTEM_MAX, line_cut);
	}
}

/* The system table read from the machine itself (docs/result-schema.md,
 * "system"): firmware, CPU, memory, kernel; a part the machine does not
 * tell (no DMI on PowerPC) is left out. */
static void node_system(cJSON *o)
{
	cJSON *sys = cJSON_AddObjectToObject(o, "system"), *x;

	if (!sys)
		return;
	if ((x = host_dmi_json("")) != NULL)
		cJSON_AddItemToObject(sys, "firmware", x);
	if ((x = host_cpu_json("")) != NULL)
		cJSON_AddItemToObject(sys, "cpu", x);
	if ((x = host_smbios_memory_json("")) != NULL)
		cJSON_AddItemToObject(sys, "memory", x);
	if ((x = host_kernel_json("")) != NULL)
		cJSON_AddItemToObject(sys, "kernel", x);
	node_system_fit(sys);
}

cJSON *node_hostinfo(const char *id, const char *role)
{
	char line[512], cpu[256];
	struct utsname u;
	cJSON *o = cJSON_CreateObject();

	if (!o)
		return NULL;
	uname(&u);
	node_cpu_model(cpu, sizeof(cpu));
	snprintf(line, sizeof(line), "%s %s %s", u.sysname, u.release,
		 u.version);
	cJSON_AddStringToObject(o, "id", id);
	cJSON_AddStringToObject(o, "role", role);
	cJSON_AddStringToObject(o, "arch", u.machine);
	cJSON_AddStringToObject(o, "cpu", cpu);
	cJSON_AddNumberToObject(o, "cpus",
				(double)sysconf(_SC_NPROCESSORS_ONLN));
	cJSON_AddNumberToObject(o, "mem_kb", (double)node_mem_kb());
	cJSON_AddStringToObject(o, "kernel", line);
	cJSON_AddStringToObject(o, "image", version_string());
	cJSON_AddItemToObject(o, "deps", version_to_json());
	if (node_read_small("/etc/benchboot-release", line, sizeof(line)) == 0)
		cJSON_AddStringToObject(o, "image_release", line);
	cJSON_AddStringToObject(o, "image_digest", version_image_digest());
	node_server_versions(o);
	node_nics_missing(o);
	/* Every NIC: driver, firmware, link, queues, offloads (nics). */
	host_nic_add(o);
	node_system(o);
	return o;
}
