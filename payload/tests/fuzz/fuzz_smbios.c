/* fuzz_smbios.c: libFuzzer target for host_smbios's SMBIOS structure
 * table parser (the firmware's /sys/firmware/dmi/tables/DMI).  Checks its
 * invariants, not just crashes: a refusal says why and keeps nothing
 * believable past it, every kept string is printable ASCII ending within
 * its array, a size is KB within what the encodings allow, the kept
 * devices are the first of those counted, and a table cut anywhere never
 * counts more devices than the whole.  Seeds: corpus/smbios, a QEMU pc
 * guest's table (SeaBIOS, one DIMM, speeds unknown) and two servers'
 * (DDR4 with bank strings and speeds; a 3.3 table with the extended size
 * and speeds and an empty slot), built as their firmware lays them out. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "host/host_smbios.h"

static void fuzz_str_ok(const char *s, size_t n)
{
	const char *e = memchr(s, 0, n);

	if (!e)
		abort();
	for (; s < e; s++)
		if (*s < 0x20 || *s > 0x7e)
			abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct host_dimm d[8];
	char err[160] = "";
	int slots, n, rc, i, cslots, cn;

	rc = host_smbios_dimms(data, size, d, 8, &slots, &n, err,
				sizeof(err));
	if (rc != 0 && (rc != -EBADMSG || !err[0]))
		abort();
	if (rc != 0)
		return 0;
	if (n > 8 || n > slots || (slots <= 8 && n != slots))
		abort();
	for (i = 0; i < n; i++) {
		fuzz_str_ok(d[i].locator, sizeof(d[i].locator));
		fuzz_str_ok(d[i].bank, sizeof(d[i].bank));
		fuzz_str_ok(d[i].type, sizeof(d[i].type));
		/* At most 2^31 - 1 MB (the extended size's 31 bits). */
		if (d[i].size_kb != UINT64_MAX &&
		    d[i].size_kb > 0x7fffffffull * 1024)
			abort();
		if (d[i].speed_mts > 0x7fffffff ||
		    d[i].configured_mts > 0x7fffffff)
			abort();
	}
	/* A prefix of a good table is a table too (or refused): it never
	 * holds more devices. */
	if (size > 0) {
		rc = host_smbios_dimms(data, size / 2, d, 8, &cslots, &cn,
					err, sizeof(err));
		if (rc == 0 && cslots > slots)
			abort();
	}
	return 0;
}
