/* host/host_smbios.h: the memory devices (SMBIOS type 17) of the
 * firmware's structure table, /sys/firmware/dmi/tables/DMI, parsed here
 * rather than by dmidecode (not in the image): each DIMM's size, type and
 * speeds.  The table comes from firmware we do not control, so the parser
 * is bounded and strict (fuzzed by payload/tests/fuzz/fuzz_smbios.c), and
 * the system table's "memory" (docs/result-schema.md) is built on it. */
#ifndef BB_HOST_SMBIOS_H
#define BB_HOST_SMBIOS_H

#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#define HOST_SMBIOS_MAX (1 << 20)	/* table bytes read */
#define HOST_SMBIOS_DIMMS 256		/* memory devices kept */
#define HOST_SMBIOS_STR 64		/* a kept string, NUL included */

struct host_dimm {
	char locator[HOST_SMBIOS_STR];	/* "DIMM 0", "" when none */
	char bank[HOST_SMBIOS_STR];	/* bank locator, "" when none */
	char type[16];		/* "DDR4", ...; "" unknown or reserved */
	uint64_t size_kb;	/* 0: an empty slot; UINT64_MAX: unknown */
	uint32_t speed_mts;	/* rated speed, MT/s; 0 unknown */
	uint32_t configured_mts;	/* configured speed; 0 unknown */
};

/* Parses the structure table t (len bytes, the DMI file: structures up to
 * type 127 or the end) into d (room for max), *slots counting every
 * memory device (type 17) and *n those kept (the first max).  Returns 0,
 * or -EBADMSG with the reason in err when a structure is shorter than its
 * header, runs past the end or its strings are not terminated: then
 * nothing of the table may be believed.  Pure: no I/O, no allocation. */
int host_smbios_dimms(const uint8_t *t, size_t len, struct host_dimm *d,
		       int max, int *slots, int *n, char *err,
		       size_t errlen);

/* A new object: total_kb (MemTotal of root's /proc/meminfo), and from
 * root's SMBIOS table slots (memory devices) and dimms [{locator, bank,
 * size_mb, type, speed_mts, configured_mts}] for the installed ones, a
 * field left out where the table says unknown.  Without a table (no
 * SMBIOS, not root) only total_kb; NULL when memory runs out. */
cJSON *host_smbios_memory_json(const char *root);

#endif
