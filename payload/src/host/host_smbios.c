/* host/host_smbios.c: SMBIOS type 17 (memory device) from the DMI
 * structure table (host_smbios.h).  Offsets and encodings are DMTF
 * DSP0134 3.x, 7.18. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/host_smbios.h"
#include "host/host_sysfs.h"
#include "lib/util.h"

/* 7.18.2: memory type, 01h..24h (reserved ones NULL). */
static const char *const host_smbios_types[] = {
	[0x01] = "Other", [0x03] = "DRAM", [0x04] = "EDRAM",
	[0x05] = "VRAM", [0x06] = "SRAM", [0x07] = "RAM", [0x08] = "ROM",
	[0x09] = "Flash", [0x0a] = "EEPROM", [0x0b] = "FEPROM",
	[0x0c] = "EPROM", [0x0d] = "CDRAM", [0x0e] = "3DRAM",
	[0x0f] = "SDRAM", [0x10] = "SGRAM", [0x11] = "RDRAM",
	[0x12] = "DDR", [0x13] = "DDR2", [0x14] = "DDR2 FB-DIMM",
	[0x18] = "DDR3", [0x19] = "FBD2", [0x1a] = "DDR4",
	[0x1b] = "LPDDR", [0x1c] = "LPDDR2", [0x1d] = "LPDDR3",
	[0x1e] = "LPDDR4", [0x1f] = "NVDIMM", [0x20] = "HBM",
	[0x21] = "HBM2", [0x22] = "DDR5", [0x23] = "LPDDR5", [0x24] = "HBM3",
};

static unsigned ident_le16(const uint8_t *p)
{
	return (unsigned)p[0] | (unsigned)p[1] << 8;
}

static uint32_t ident_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

/* String number idx (1-based; 0: none) of the set at s..end into out,
 * printable ASCII only (others become '?'), trailing blanks cut. */
static void host_smbios_str(const uint8_t *s, const uint8_t *end,
			     unsigned idx, char *out)
{
	size_t k = 0;

	out[0] = 0;
	if (idx == 0)
		return;
	while (--idx > 0 && s < end)
		s += strnlen((const char *)s, (size_t)(end - s)) + 1;
	for (; s < end && *s && k + 1 < HOST_SMBIOS_STR; s++)
		out[k++] = *s >= 0x20 && *s < 0x7f ? (char)*s : '?';
	while (k > 0 && out[k - 1] == ' ')
		k--;
	out[k] = 0;
}

/* One type 17 structure (formatted area p, fl bytes; its strings from s
 * to end) into d. */
static void host_smbios_dimm(const uint8_t *p, size_t fl, const uint8_t *s,
			      const uint8_t *end, struct host_dimm *d)
{
	unsigned size, v;

	memset(d, 0, sizeof(*d));
	d->size_kb = UINT64_MAX;
	if (fl > 0x11) {
		host_smbios_str(s, end, p[0x10], d->locator);
		host_smbios_str(s, end, p[0x11], d->bank);
	}
	if (fl >= 0x0e) {
		size = ident_le16(p + 0x0c);
		if (size == 0x7fff && fl >= 0x20)
			/* Extended size: MB in bits 30:0. */
			d->size_kb = (uint64_t)(ident_le32(p + 0x1c) &
						0x7fffffff) * 1024;
		else if (size == 0)
			d->size_kb = 0;
		else if (size != 0xffff && size != 0x7fff)
			/* Bit 15: the unit is KB, not MB. */
			d->size_kb = size & 0x8000 ? size & 0x7fff :
				     (uint64_t)size * 1024;
	}
	if (fl > 0x12 && p[0x12] < sizeof(host_smbios_types) /
				   sizeof(host_smbios_types[0]) &&
	    host_smbios_types[p[0x12]])
		snprintf(d->type, sizeof(d->type), "%s",
			 host_smbios_types[p[0x12]]);
	if (fl >= 0x17) {
		v = ident_le16(p + 0x15);
		d->speed_mts = v != 0xffff ? v : fl >= 0x58 ?
			       ident_le32(p + 0x54) & 0x7fffffff : 0;
	}
	if (fl >= 0x22) {
		v = ident_le16(p + 0x20);
		d->configured_mts = v != 0xffff ? v : fl >= 0x5c ?
				    ident_le32(p + 0x58) & 0x7fffffff : 0;
	}
}

int host_smbios_dimms(const uint8_t *t, size_t len, struct host_dimm *d,
		       int max, int *slots, int *n, char *err,
		       size_t errlen)
{
	size_t off = 0, fl, k;
	const uint8_t *p;

	*slots = *n = 0;
	while (off + 4 <= len) {
		p = t + off;
		fl = p[1];
		if (fl < 4 || fl > len - off)
			return util_fail(err, errlen, -EBADMSG,
					 "structure at byte %zu: length %zu %s",
					 off, fl, fl < 4 ? "below its header's 4" :
					 "runs past the table's end");
		/* The string set ends with two NULs (with no strings, the
		 * two are the whole set). */
		for (k = off + fl; k + 1 < len; k++)
			if (t[k] == 0 && t[k + 1] == 0)
				break;
		if (k + 1 >= len)
			return util_fail(err, errlen, -EBADMSG,
					 "structure at byte %zu (type %u): strings not terminated",
					 off, p[0]);
		if (p[0] == 127)
			return 0;
		if (p[0] == 17) {
			++*slots;
			if (*n < max)
				host_smbios_dimm(p, fl, t + off + fl, t + k,
						  &d[(*n)++]);
		}
		off = k + 2;
	}
	return 0;
}

/* The installed devices of the table at root into o. */
static void host_smbios_add(cJSON *o, const char *root)
{
	struct host_dimm *d = NULL;
	uint8_t *t = malloc(HOST_SMBIOS_MAX);
	char path[1024], err[160];
	int slots, n, i;
	cJSON *a, *x;
	size_t len;
	FILE *f;

	snprintf(path, sizeof(path), "%s/sys/firmware/dmi/tables/DMI", root);
	f = t ? fopen(path, "re") : NULL;
	if (!f)
		goto out;
	len = fread(t, 1, HOST_SMBIOS_MAX, f);
	fclose(f);
	d = malloc(HOST_SMBIOS_DIMMS * sizeof(*d));
	if (!d || host_smbios_dimms(t, len, d, HOST_SMBIOS_DIMMS, &slots,
				     &n, err, sizeof(err)) != 0 || !slots)
		goto out;
	cJSON_AddNumberToObject(o, "slots", slots);
	a = cJSON_AddArrayToObject(o, "dimms");
	for (i = 0; a && i < n; i++) {
		if (d[i].size_kb == 0)
			continue;
		x = cJSON_CreateObject();
		if (!x)
			break;
		cJSON_AddItemToArray(a, x);
		if (d[i].locator[0])
			cJSON_AddStringToObject(x, "locator", d[i].locator);
		if (d[i].bank[0])
			cJSON_AddStringToObject(x, "bank", d[i].bank);
		if (d[i].size_kb != UINT64_MAX)
			cJSON_AddNumberToObject(x, "size_mb",
						(double)d[i].size_kb / 1024);
		if (d[i].type[0])
			cJSON_AddStringToObject(x, "type", d[i].type);
		if (d[i].speed_mts)
			cJSON_AddNumberToObject(x, "speed_mts",
						d[i].speed_mts);
		if (d[i].configured_mts)
			cJSON_AddNumberToObject(x, "configured_mts",
						d[i].configured_mts);
	}
out:
	free(d);
	free(t);
}

cJSON *host_smbios_memory_json(const char *root)
{
	cJSON *o = cJSON_CreateObject();
	char path[1024], line[256];
	long long kb;
	FILE *f;

	if (!o)
		return NULL;
	snprintf(path, sizeof(path), "%s/proc/meminfo", root);
	f = fopen(path, "re");
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "MemTotal: %lld kB", &kb) == 1) {
			cJSON_AddNumberToObject(o, "total_kb", (double)kb);
			break;
		}
	if (f)
		fclose(f);
	host_smbios_add(o, root);
	return o;
}
