/* test_host_system.c: the system table's readers (host_dmi, host_cpu,
 * host_smbios, host_kernel) on a fake /sys and /proc built in a
 * temporary directory, an empty tree (every field absent, none guessed),
 * the SMBIOS type 17 parser table-driven (sizes, extended size and
 * speeds, unknowns, strings, malformed tables) and the command line's
 * secrets redacted. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "host/host_cpu.h"
#include "host/host_dmi.h"
#include "host/host_kernel.h"
#include "host/host_smbios.h"
#include "tap.h"

static char root[64];

/* Writes root/path with len bytes of data, making its directories. */
static void put(const char *path, const void *data, size_t len)
{
	char full[512], *s;
	FILE *f;

	snprintf(full, sizeof(full), "%s%s", root, path);
	for (s = full + strlen(root) + 1; (s = strchr(s, '/')) != NULL; s++) {
		*s = 0;
		mkdir(full, 0755);
		*s = '/';
	}
	f = fopen(full, "w");
	if (!f || fwrite(data, 1, len, f) != len) {
		perror(full);
		exit(2);
	}
	fclose(f);
}

static void puts_(const char *path, const char *text)
{
	put(path, text, strlen(text));
}

/* --- an SMBIOS table, built structure by structure ------------------- */

struct tab {
	uint8_t b[4096];
	size_t n;
};

/* Appends a structure: type, formatted length fl (header included),
 * fields at their offsets (the rest zero), then the strings (NULL-ended
 * list; none: the two NULs alone). */
static void tab_add(struct tab *t, uint8_t type, uint8_t fl,
		    const uint8_t *fields, size_t nf, const char *const *str)
{
	uint8_t *p = t->b + t->n;
	int any = 0;

	memset(p, 0, fl);
	p[0] = type;
	p[1] = fl;
	p[2] = (uint8_t)t->n;
	if (nf > 4)
		memcpy(p + 4, fields + 4, nf - 4 < fl - 4u ? nf - 4 : fl - 4u);
	t->n += fl;
	for (; str && *str; str++, any = 1) {
		memcpy(t->b + t->n, *str, strlen(*str) + 1);
		t->n += strlen(*str) + 1;
	}
	if (!any)
		t->b[t->n++] = 0;
	t->b[t->n++] = 0;
}

/* v as 4 little-endian bytes at p (SMBIOS is little-endian; the test
 * runs on big-endian PowerPC too). */
static void le32(uint8_t *p, uint32_t v)
{
	p[0] = v & 0xff;
	p[1] = (v >> 8) & 0xff;
	p[2] = (v >> 16) & 0xff;
	p[3] = v >> 24;
}

/* A type 17's formatted area (0x5c bytes, SMBIOS 3.3) with size, type
 * and speeds; strings 1 and 2 as locator and bank. */
static void dimm_fields(uint8_t *f, unsigned size, uint32_t ext,
			uint8_t type, unsigned speed, unsigned conf,
			uint32_t ext_speed, uint32_t ext_conf)
{
	memset(f, 0, 0x5c);
	f[0x0c] = size & 0xff;
	f[0x0d] = size >> 8;
	f[0x10] = 1;
	f[0x11] = 2;
	f[0x12] = type;
	f[0x15] = speed & 0xff;
	f[0x16] = speed >> 8;
	le32(f + 0x1c, ext);
	f[0x20] = conf & 0xff;
	f[0x21] = conf >> 8;
	le32(f + 0x54, ext_speed);
	le32(f + 0x58, ext_conf);
}

struct dimm_case {
	const char *name;
	uint8_t fl;		/* the structure's formatted length */
	unsigned size;
	uint32_t ext;
	uint8_t type;
	unsigned speed, conf;
	uint32_t ext_speed, ext_conf;
	uint64_t want_kb;
	const char *want_type;
	uint32_t want_speed, want_conf;
};

static const struct dimm_case dimm_cases[] = {
	{ "DDR4 16 GB at 3200, configured 2933", 0x28, 16384, 0, 0x1a,
	  3200, 2933, 0, 0, 16384ull * 1024, "DDR4", 3200, 2933 },
	{ "QEMU: 1024 MB RAM, speeds unknown (0)", 0x28, 1024, 0, 0x07, 0, 0,
	  0, 0, 1024ull * 1024, "RAM", 0, 0 },
	{ "0x7FFF: the extended size (64 GB)", 0x28, 0x7fff, 65536, 0x22,
	  4800, 4800, 0, 0, 65536ull * 1024, "DDR5", 4800, 4800 },
	{ "0x7FFF in a 2.6 structure (no extended size): unknown", 0x1c,
	  0x7fff, 0, 0x18, 1333, 0, 0, 0, UINT64_MAX, "DDR3", 1333, 0 },
	{ "bit 15: size in KB", 0x28, 0x8000 | 512, 0, 0x03, 0, 0, 0, 0, 512,
	  "DRAM", 0, 0 },
	{ "0xFFFF: size unknown; type 02h Unknown: no type", 0x28, 0xffff, 0,
	  0x02, 0, 0, 0, 0, UINT64_MAX, "", 0, 0 },
	{ "reserved type 15h: no type", 0x28, 2048, 0, 0x15, 0, 0, 0, 0,
	  2048ull * 1024, "", 0, 0 },
	{ "0xFFFF speeds: the 3.3 extended speeds", 0x5c, 16384, 0, 0x22,
	  0xffff, 0xffff, 70000, 66000, 16384ull * 1024, "DDR5", 70000,
	  66000 },
	{ "0xFFFF speeds in a 2.8 structure: unknown", 0x28, 8192, 0, 0x1a,
	  0xffff, 0xffff, 0, 0, 8192ull * 1024, "DDR4", 0, 0 },
	{ "empty slot: size 0", 0x28, 0, 0, 0x02, 0, 0, 0, 0, 0, "", 0, 0 },
	{ "2.1 structure (0x15 bytes): no speeds", 0x15, 256, 0, 0x12, 0, 0,
	  0, 0, 256ull * 1024, "DDR", 0, 0 },
};

static void test_dimm_cases(void)
{
	static const char *const strs[] = { "DIMM 0", "BANK 0", NULL };
	struct host_dimm d[4];
	uint8_t f[0x5c];
	size_t i;
	char err[160];
	int slots, n, rc;

	for (i = 0; i < sizeof(dimm_cases) / sizeof(dimm_cases[0]); i++) {
		const struct dimm_case *c = &dimm_cases[i];
		struct tab t = { .n = 0 };

		dimm_fields(f, c->size, c->ext, c->type, c->speed, c->conf,
			    c->ext_speed, c->ext_conf);
		tab_add(&t, 17, c->fl, f, sizeof(f), strs);
		tab_add(&t, 127, 4, NULL, 0, NULL);
		rc = host_smbios_dimms(t.b, t.n, d, 4, &slots, &n, err,
					sizeof(err));
		if (!tap_ok(rc == 0 && slots == 1 && n == 1, "%s: parsed",
			    c->name)) {
			printf("#   rc %d slots %d n %d: %s\n", rc, slots, n,
			       err);
			continue;
		}
		tap_ok(d[0].size_kb == c->want_kb, "%s: size %llu KB",
		       c->name, (unsigned long long)d[0].size_kb);
		TAP_EQ_STR(d[0].type, c->want_type, c->name);
		tap_ok(d[0].speed_mts == c->want_speed &&
		       d[0].configured_mts == c->want_conf,
		       "%s: speeds %u/%u", c->name, d[0].speed_mts,
		       d[0].configured_mts);
		TAP_EQ_STR(d[0].locator, c->fl > 0x11 ? "DIMM 0" : "",
			   "locator");
	}
}

/* Strings: none, past the set, control characters, trailing blanks; the
 * structures around type 17 skipped; type 127 ends the table. */
static void test_strings_and_walk(void)
{
	static const char *const s0[] = { "SeaBIOS", "rel-1.16", NULL };
	static const char *const s1[] = { "DIMM\0331 ", NULL };
	static const char *const s2[] = { "after end", NULL };
	struct host_dimm d[4];
	struct tab t = { .n = 0 };
	uint8_t f[0x5c];
	char err[160];
	int slots, n, rc;

	tab_add(&t, 0, 0x18, NULL, 0, s0);
	dimm_fields(f, 4096, 0, 0x1a, 0, 0, 0, 0);
	f[0x11] = 5;	/* a bank string past the set */
	tab_add(&t, 17, 0x28, f, sizeof(f), s1);
	dimm_fields(f, 4096, 0, 0x1a, 0, 0, 0, 0);
	f[0x10] = f[0x11] = 0;
	tab_add(&t, 17, 0x28, f, sizeof(f), NULL);
	tab_add(&t, 127, 4, NULL, 0, NULL);
	tab_add(&t, 17, 0x28, f, sizeof(f), s2);
	rc = host_smbios_dimms(t.b, t.n, d, 4, &slots, &n, err, sizeof(err));
	TAP_EQ_INT(rc, 0, "walk: a table of BIOS, two DIMMs, end, one more");
	TAP_EQ_INT(slots, 2, "walk: type 127 ends it (2 slots, not 3)");
	TAP_EQ_STR(n >= 1 ? d[0].locator : NULL, "DIMM?1",
		   "strings: control character as '?', trailing blank cut");
	TAP_EQ_STR(n >= 1 ? d[0].bank : NULL, "",
		   "strings: an index past the set is no string");
	TAP_EQ_STR(n >= 2 ? d[1].locator : NULL, "",
		   "strings: index 0 is none");
	rc = host_smbios_dimms(t.b, t.n, d, 1, &slots, &n, err, sizeof(err));
	tap_ok(rc == 0 && slots == 2 && n == 1,
	       "room for one: two slots counted, one kept");
}

struct bad_case {
	const char *name;
	size_t cut;		/* bytes of the good table kept; 0: all */
	int patch_off;		/* -1: none */
	uint8_t patch;
	int rc;
};

static const struct bad_case bad_cases[] = {
	{ "whole table", 0, -1, 0, 0 },
	{ "cut inside the strings", 0x28 + 3, -1, 0, -EBADMSG },
	{ "cut inside the formatted area", 0x10, -1, 0, -EBADMSG },
	{ "cut after the header (3 bytes: nothing to read)", 3, -1, 0, 0 },
	{ "length below the header's 4", 0, 1, 3, -EBADMSG },
	{ "length past the end", 0, 1, 0xff, -EBADMSG },
	{ "empty table", 0, -2, 0, 0 },
};

static void test_malformed(void)
{
	static const char *const s[] = { "DIMM 0", NULL };
	struct host_dimm d[2];
	uint8_t f[0x5c];
	char err[160];
	size_t i;
	int slots, n, rc;

	for (i = 0; i < sizeof(bad_cases) / sizeof(bad_cases[0]); i++) {
		const struct bad_case *c = &bad_cases[i];
		struct tab t = { .n = 0 };
		size_t len;

		dimm_fields(f, 1024, 0, 0x07, 0, 0, 0, 0);
		tab_add(&t, 17, 0x28, f, sizeof(f), s);
		len = c->cut ? c->cut : c->patch_off == -2 ? 0 : t.n;
		if (c->patch_off >= 0)
			t.b[c->patch_off] = c->patch;
		err[0] = 0;
		rc = host_smbios_dimms(t.b, len, d, 2, &slots, &n, err,
					sizeof(err));
		TAP_EQ_INT(rc, c->rc, c->name);
		if (rc != 0)
			tap_ok(err[0] != 0, "%s: says why (%s)", c->name, err);
	}
}

/* --- the fake machine ------------------------------------------------ */

static void fake_machine(void)
{
	static const char *const sys[][2] = {
		{ "sys_vendor", "QEMU\n" },
		{ "product_name", "Standard PC (i440FX + PIIX, 1996)\n" },
		{ "product_version", "pc-i440fx-9.0\n" },
		{ "board_vendor", "\n" },	/* empty: absent */
		{ "bios_vendor", "SeaBIOS\n" },
		{ "bios_version", "1.16.3-debian-1.16.3-2\n" },
		{ "bios_date", "04/01/2014\n" },
	};
	static const char *const s[] = { "DIMM 0", NULL };
	static const uint8_t secure[] = { 6, 0, 0, 0, 1 };
	char path[256], v[32];
	struct tab t = { .n = 0 };
	uint8_t f[0x5c];
	size_t i;
	int c;

	for (i = 0; i < sizeof(sys) / sizeof(sys[0]); i++) {
		snprintf(path, sizeof(path), "/sys/class/dmi/id/%s",
			 sys[i][0]);
		puts_(path, sys[i][1]);
	}
	puts_("/proc/cpuinfo",
	      "processor\t: 0\nvendor_id\t: GenuineIntel\ncpu family\t: 6\n"
	      "model\t\t: 85\nmodel name\t: Intel(R) Xeon(R) Gold 6130 CPU @ 2.10GHz\n"
	      "stepping\t: 4\nmicrocode\t: 0x2007006\n\n"
	      "processor\t: 1\nmodel name\t: second block ignored\n");
	/* 2 sockets x 2 cores x 2 threads; cpu8 offline (no topology). */
	for (c = 0; c < 8; c++) {
		snprintf(path, sizeof(path),
			 "/sys/devices/system/cpu/cpu%d/topology/physical_package_id",
			 c);
		snprintf(v, sizeof(v), "%d\n", c / 4);
		puts_(path, v);
		snprintf(path, sizeof(path),
			 "/sys/devices/system/cpu/cpu%d/topology/core_id", c);
		snprintf(v, sizeof(v), "%d\n", c % 2);
		puts_(path, v);
	}
	puts_("/sys/devices/system/cpu/cpu8/online", "0\n");
	puts_("/sys/devices/system/cpu/cpufreq/policy0/x", "");
	puts_("/sys/devices/system/node/node0/cpulist", "0-3\n");
	puts_("/sys/devices/system/node/node1/cpulist", "4-7\n");
	puts_("/sys/devices/system/node/possible", "0-1\n");
	puts_("/sys/devices/system/cpu/cpu0/cpufreq/base_frequency",
	      "2100000\n");
	puts_("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq",
	      "3700000\n");
	puts_("/sys/devices/system/cpu/cpu0/cpufreq/scaling_driver",
	      "intel_pstate\n");
	puts_("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor",
	      "performance\n");
	puts_("/sys/devices/system/cpu/intel_pstate/no_turbo", "1\n");
	puts_("/sys/devices/system/cpu/smt/active", "1\n");
	puts_("/sys/devices/system/cpu/smt/control", "on\n");
	puts_("/sys/devices/system/cpu/vulnerabilities/spectre_v2",
	      "Mitigation: Enhanced / Automatic IBRS\n");
	puts_("/sys/devices/system/cpu/vulnerabilities/meltdown",
	      "Not affected\n");
	puts_("/proc/meminfo", "MemTotal:        8123456 kB\nMemFree: 1 kB\n");
	dimm_fields(f, 4096, 0, 0x1a, 2666, 2400, 0, 0);
	f[0x11] = 0;
	tab_add(&t, 17, 0x28, f, sizeof(f), s);
	dimm_fields(f, 0, 0, 0x02, 0, 0, 0, 0);
	tab_add(&t, 17, 0x28, f, sizeof(f), s);
	tab_add(&t, 127, 4, NULL, 0, NULL);
	put("/sys/firmware/dmi/tables/DMI", t.b, t.n);
	puts_("/proc/sys/kernel/osrelease", "6.1.0-57-amd64\n");
	puts_("/proc/sys/kernel/version", "#1 SMP PREEMPT_DYNAMIC Debian\n");
	puts_("/proc/cmdline",
	      "console=ttyS0 benchboot.key=s3cr3t-lab-key benchboot.role=server\n");
	put("/sys/firmware/efi/efivars/SecureBoot-8be4df61-93ca-11d2-aa0d-00e098032b8c",
	    secure, sizeof(secure));
	puts_("/sys/kernel/security/lockdown",
	      "none [integrity] confidentiality\n");
	puts_("/sys/devices/system/clocksource/clocksource0/current_clocksource",
	      "tsc\n");
}

/* The field at dotted path of o, printed compactly ("absent" when not
 * there), for one string comparison per case. */
static const char *field(const cJSON *o, const char *path, char *buf,
			 size_t len)
{
	char p[128], *k, *save = NULL;
	const cJSON *x = o;
	char *s;

	snprintf(p, sizeof(p), "%s", path);
	for (k = strtok_r(p, ".", &save); k && x; k = strtok_r(NULL, ".",
							       &save))
		x = cJSON_IsArray(x) ? cJSON_GetArrayItem(x, atoi(k)) :
		    cJSON_GetObjectItemCaseSensitive(x, k);
	if (!x)
		return "absent";
	s = cJSON_PrintUnformatted(x);
	snprintf(buf, len, "%s", s ? s : "?");
	free(s);
	return buf;
}

struct field_case {
	const char *path, *want;
};

static const struct field_case fields[] = {
	{ "firmware.sys_vendor", "\"QEMU\"" },
	{ "firmware.product_name", "\"Standard PC (i440FX + PIIX, 1996)\"" },
	{ "firmware.product_version", "\"pc-i440fx-9.0\"" },
	{ "firmware.board_vendor", "absent" },
	{ "firmware.board_name", "absent" },
	{ "firmware.bios_date", "\"04/01/2014\"" },
	{ "cpu.model", "\"Intel(R) Xeon(R) Gold 6130 CPU @ 2.10GHz\"" },
	{ "cpu.vendor", "\"GenuineIntel\"" },
	{ "cpu.family", "6" },
	{ "cpu.model_id", "85" },
	{ "cpu.stepping", "4" },
	{ "cpu.microcode", "\"0x2007006\"" },
	{ "cpu.sockets", "2" },
	{ "cpu.cores", "4" },
	{ "cpu.threads", "8" },
	{ "cpu.numa_nodes", "2" },
	{ "cpu.base_mhz", "2100" },
	{ "cpu.max_mhz", "3700" },
	{ "cpu.scaling_driver", "\"intel_pstate\"" },
	{ "cpu.governor", "\"performance\"" },
	{ "cpu.boost", "false" },
	{ "cpu.smt", "true" },
	{ "cpu.smt_control", "\"on\"" },
	{ "cpu.vulnerabilities",
	  "{\"meltdown\":\"Not affected\",\"spectre_v2\":\"Mitigation: Enhanced / Automatic IBRS\"}" },
	{ "memory.total_kb", "8123456" },
	{ "memory.slots", "2" },
	{ "memory.dimms",
	  "[{\"locator\":\"DIMM 0\",\"size_mb\":4096,\"type\":\"DDR4\",\"speed_mts\":2666,\"configured_mts\":2400}]" },
	{ "kernel.release", "\"6.1.0-57-amd64\"" },
	{ "kernel.version", "\"#1 SMP PREEMPT_DYNAMIC Debian\"" },
	{ "kernel.cmdline",
	  "\"console=ttyS0 benchboot.key=(redacted) benchboot.role=server\"" },
	{ "kernel.secure_boot", "true" },
	{ "kernel.lockdown", "\"integrity\"" },
	{ "kernel.clocksource", "\"tsc\"" },
};

static cJSON *system_of(const char *r)
{
	cJSON *o = cJSON_CreateObject(), *x;

	if ((x = host_dmi_json(r)) != NULL)
		cJSON_AddItemToObject(o, "firmware", x);
	cJSON_AddItemToObject(o, "cpu", host_cpu_json(r));
	cJSON_AddItemToObject(o, "memory", host_smbios_memory_json(r));
	cJSON_AddItemToObject(o, "kernel", host_kernel_json(r));
	return o;
}

static void test_fake_machine(void)
{
	char buf[512], name[160];
	cJSON *o;
	size_t i;

	fake_machine();
	o = system_of(root);
	for (i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
		snprintf(name, sizeof(name), "fake machine: %s",
			 fields[i].path);
		TAP_EQ_STR(field(o, fields[i].path, buf, sizeof(buf)),
			   fields[i].want, name);
	}
	cJSON_Delete(o);
	/* Secure Boot off, AMD's boost, no lockdown file. */
	put("/sys/firmware/efi/efivars/SecureBoot-8be4df61-93ca-11d2-aa0d-00e098032b8c",
	    "\x06\0\0\0\0", 5);
	puts_("/sys/devices/system/cpu/cpufreq/boost", "1\n");
	snprintf(buf, sizeof(buf), "%s/sys/kernel/security/lockdown", root);
	unlink(buf);
	o = system_of(root);
	TAP_EQ_STR(field(o, "kernel.secure_boot", buf, sizeof(buf)), "false",
		   "Secure Boot variable 0: off");
	TAP_EQ_STR(field(o, "cpu.boost", buf, sizeof(buf)), "true",
		   "cpufreq/boost 1: boost on (before intel_pstate's)");
	TAP_EQ_STR(field(o, "kernel.lockdown", buf, sizeof(buf)), "absent",
		   "no lockdown file: absent");
	cJSON_Delete(o);
}

/* A tree with nothing in it: every reader says nothing, guesses nothing. */
static void test_empty(void)
{
	char buf[512], empty[80];
	cJSON *o;

	snprintf(empty, sizeof(empty), "%s/empty", root);
	mkdir(empty, 0755);
	o = system_of(empty);
	TAP_EQ_STR(field(o, "firmware", buf, sizeof(buf)), "absent",
		   "empty tree: no firmware object");
	TAP_EQ_STR(field(o, "cpu", buf, sizeof(buf)), "{}",
		   "empty tree: cpu has no field");
	TAP_EQ_STR(field(o, "memory", buf, sizeof(buf)), "{}",
		   "empty tree: memory has no field");
	TAP_EQ_STR(field(o, "kernel", buf, sizeof(buf)), "{}",
		   "empty tree: kernel has no field");
	cJSON_Delete(o);
}

struct redact_case {
	const char *in, *want;
	size_t len;
	int rc;
};

static const struct redact_case redact_cases[] = {
	{ "benchboot.key=abc benchboot.token=t0k", "benchboot.key=(redacted) benchboot.token=(redacted)", 256, 0 },
	{ "root=/dev/sda1 quiet", "root=/dev/sda1 quiet", 256, 0 },
	{ "x.password=\"a b\" y=1", "x.password=(redacted) y=1", 256, 0 },
	{ "monkey", "monkey", 256, 0 },	/* no value: nothing to hide */
	{ "benchboot.pin=sha256//AAA", "benchboot.pin=sha256//AAA", 256, 0 },
	{ "a=1 benchboot.key=abcdef", "a=1 ", 12, -ENOSPC },
};

static void test_redact(void)
{
	char out[256];
	size_t i;

	for (i = 0; i < sizeof(redact_cases) / sizeof(redact_cases[0]); i++) {
		const struct redact_case *c = &redact_cases[i];
		int rc = host_kernel_redact(c->in, out, c->len);

		TAP_EQ_INT(rc, c->rc, c->in);
		TAP_EQ_STR(out, c->want, c->in);
	}
}

int main(void)
{
	char cmd[96];

	snprintf(root, sizeof(root), "/tmp/bb-identsys.XXXXXX");
	if (!mkdtemp(root)) {
		perror("mkdtemp");
		return 2;
	}
	test_dimm_cases();
	test_strings_and_walk();
	test_malformed();
	test_fake_machine();
	test_empty();
	test_redact();
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	if (system(cmd) != 0)
		printf("# could not remove %s\n", root);
	return tap_done();
}
