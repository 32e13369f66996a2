/* host/host_cpu.c: the processor from /proc/cpuinfo and
 * /sys/devices/system/{cpu,node} (host_cpu.h). */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/host_cpu.h"
#include "host/host_sysfs.h"

#define HOST_CPU_MAX 8192	/* logical CPUs counted */

/* The first processor's block of /proc/cpuinfo: x86's model name,
 * vendor, family, model, stepping and microcode; PowerPC's "cpu". */
static void host_cpu_info(cJSON *o, const char *root)
{
	static const struct { const char *name, *key; int num; } f[] = {
		{ "model name", "model", 0 }, { "cpu", "model", 0 },
		{ "vendor_id", "vendor", 0 }, { "cpu family", "family", 1 },
		{ "model", "model_id", 1 }, { "stepping", "stepping", 1 },
		{ "microcode", "microcode", 0 },
	};
	char path[1024], line[512], name[64], *c, *v, *end;
	long long x;
	FILE *fp;
	size_t i, n;

	snprintf(path, sizeof(path), "%s/proc/cpuinfo", root);
	fp = fopen(path, "re");
	while (fp && fgets(line, sizeof(line), fp)) {
		if (line[0] == '\n')
			break;
		c = strchr(line, ':');
		if (!c)
			continue;
		n = (size_t)(c - line);
		while (n > 0 && (line[n - 1] == '\t' || line[n - 1] == ' '))
			n--;
		if (n >= sizeof(name))
			continue;
		memcpy(name, line, n);
		name[n] = 0;
		v = c + 1 + strspn(c + 1, " \t");
		v[strcspn(v, "\n")] = 0;
		for (i = 0; i < sizeof(f) / sizeof(f[0]); i++) {
			if (strcmp(name, f[i].name) != 0 || !*v ||
			    cJSON_GetObjectItemCaseSensitive(o, f[i].key))
				continue;
			if (!f[i].num) {
				cJSON_AddStringToObject(o, f[i].key, v);
				continue;
			}
			x = strtoll(v, &end, 10);
			if (end != v && !*end)
				cJSON_AddNumberToObject(o, f[i].key,
							(double)x);
		}
	}
	if (fp)
		fclose(fp);
}

/* The entries of root/dir named prefix followed by digits. */
static int host_cpu_count(const char *root, const char *dir,
			   const char *prefix, int *ids, int max)
{
	char path[1024], *end;
	struct dirent *de;
	size_t pl = strlen(prefix);
	int n = 0;
	DIR *d;

	snprintf(path, sizeof(path), "%s%s", root, dir);
	d = opendir(path);
	while (d && (de = readdir(d)) != NULL) {
		long x;

		if (strncmp(de->d_name, prefix, pl) != 0 ||
		    de->d_name[pl] < '0' || de->d_name[pl] > '9')
			continue;
		x = strtol(de->d_name + pl, &end, 10);
		if (*end || x < 0 || x > 1 << 20)
			continue;
		if (ids && n < max)
			ids[n] = (int)x;
		n++;
	}
	if (d)
		closedir(d);
	return n;
}

static int host_cpu_pair_cmp(const void *a, const void *b)
{
	const long long *x = a, *y = b;

	return *x < *y ? -1 : *x > *y;
}

/* sockets, cores and threads from each online CPU's topology (an
 * offline CPU has none); left out when no CPU has one. */
static void host_cpu_topology(cJSON *o, const char *root)
{
	long long *pkg = NULL, *core = NULL, p, c;
	int *ids = malloc(HOST_CPU_MAX * sizeof(*ids)), n, i, k = 0;
	int sockets = 0, cores = 0;
	char path[128];

	n = ids ? host_cpu_count(root, "/sys/devices/system/cpu", "cpu",
				  ids, HOST_CPU_MAX) : 0;
	if (n > HOST_CPU_MAX)
		n = HOST_CPU_MAX;
	pkg = calloc((size_t)n + 1, sizeof(*pkg));
	core = calloc((size_t)n + 1, sizeof(*core));
	for (i = 0; pkg && core && i < n; i++) {
		snprintf(path, sizeof(path),
			 "/sys/devices/system/cpu/cpu%d/topology/physical_package_id",
			 ids[i]);
		if (host_sysfs_long(root, path, &p) != 0)
			continue;
		snprintf(path, sizeof(path),
			 "/sys/devices/system/cpu/cpu%d/topology/core_id",
			 ids[i]);
		if (host_sysfs_long(root, path, &c) != 0)
			continue;
		/* One number per package and per (package, core). */
		pkg[k] = p;
		core[k++] = (p << 24) ^ (c & 0xffffff);
	}
	if (k > 0) {
		qsort(pkg, (size_t)k, sizeof(*pkg), host_cpu_pair_cmp);
		qsort(core, (size_t)k, sizeof(*core), host_cpu_pair_cmp);
		for (i = 0; i < k; i++) {
			sockets += i == 0 || pkg[i] != pkg[i - 1];
			cores += i == 0 || core[i] != core[i - 1];
		}
		cJSON_AddNumberToObject(o, "sockets", sockets);
		cJSON_AddNumberToObject(o, "cores", cores);
		cJSON_AddNumberToObject(o, "threads", k);
	}
	free(pkg);
	free(core);
	free(ids);
}

/* cpufreq's figures (kHz in /sys, MHz in the result) and policy. */
static void host_cpu_freq(cJSON *o, const char *root)
{
	const char *f = "/sys/devices/system/cpu/cpu0/cpufreq";
	char path[128];
	long long v;

	snprintf(path, sizeof(path), "%s/base_frequency", f);
	if (host_sysfs_long(root, path, &v) == 0 && v > 0)
		cJSON_AddNumberToObject(o, "base_mhz", (double)(v / 1000));
	snprintf(path, sizeof(path), "%s/cpuinfo_max_freq", f);
	if (host_sysfs_long(root, path, &v) == 0 && v > 0)
		cJSON_AddNumberToObject(o, "max_mhz", (double)(v / 1000));
	snprintf(path, sizeof(path), "%s/scaling_driver", f);
	host_sysfs_str(o, "scaling_driver", root, path);
	snprintf(path, sizeof(path), "%s/scaling_governor", f);
	host_sysfs_str(o, "governor", root, path);
	/* acpi-cpufreq and amd-pstate say "boost"; intel_pstate says the
	 * opposite, "no_turbo". */
	if (host_sysfs_long(root, "/sys/devices/system/cpu/cpufreq/boost",
			     &v) == 0)
		cJSON_AddBoolToObject(o, "boost", v != 0);
	else if (host_sysfs_long(root,
			"/sys/devices/system/cpu/intel_pstate/no_turbo",
			&v) == 0)
		cJSON_AddBoolToObject(o, "boost", v == 0);
}

static int host_cpu_str_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every file of /sys/devices/system/cpu/vulnerabilities, by name. */
static void host_cpu_vulns(cJSON *o, const char *root)
{
	const char *dir = "/sys/devices/system/cpu/vulnerabilities";
	char path[1024], *names[128];
	struct dirent *de;
	cJSON *v = NULL;
	int n = 0, i;
	DIR *d;

	snprintf(path, sizeof(path), "%s%s", root, dir);
	d = opendir(path);
	while (d && n < 128 && (de = readdir(d)) != NULL)
		if (de->d_name[0] != '.' && strlen(de->d_name) < 64)
			names[n++] = strdup(de->d_name);
	if (d)
		closedir(d);
	for (i = 0; i < n; i++)
		if (!names[i])
			names[i--] = names[--n];
	qsort(names, (size_t)n, sizeof(names[0]), host_cpu_str_cmp);
	for (i = 0; i < n; i++) {
		if (!v)
			v = cJSON_CreateObject();
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		if (v)
			host_sysfs_str(v, names[i], root, path);
		free(names[i]);
	}
	if (v && v->child)
		cJSON_AddItemToObject(o, "vulnerabilities", v);
	else
		cJSON_Delete(v);
}

cJSON *host_cpu_json(const char *root)
{
	cJSON *o = cJSON_CreateObject();
	long long v;
	int n;

	if (!o)
		return NULL;
	host_cpu_info(o, root);
	host_cpu_topology(o, root);
	n = host_cpu_count(root, "/sys/devices/system/node", "node", NULL,
			    0);
	if (n > 0)
		cJSON_AddNumberToObject(o, "numa_nodes", n);
	host_cpu_freq(o, root);
	if (host_sysfs_long(root, "/sys/devices/system/cpu/smt/active",
			     &v) == 0)
		cJSON_AddBoolToObject(o, "smt", v != 0);
	host_sysfs_str(o, "smt_control", root,
			"/sys/devices/system/cpu/smt/control");
	host_cpu_vulns(o, root);
	return o;
}
