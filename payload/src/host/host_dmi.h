/* host/host_dmi.h: the firmware's own description of the machine, the
 * DMI strings the kernel exports in /sys/class/dmi/id (system, board,
 * BIOS): the system table's "firmware" (docs/result-schema.md). */
#ifndef BB_HOST_DMI_H
#define BB_HOST_DMI_H

#include <cjson/cJSON.h>

/* A new object of the DMI strings found under root (see host_sysfs.h),
 * each named as its /sys/class/dmi/id file: sys_vendor, product_name,
 * product_version, board_vendor, board_name, board_version, bios_vendor,
 * bios_version, bios_date; a string that is absent or empty is left out.
 * NULL when there is none (no DMI: PowerPC, a VM without SMBIOS) or
 * memory runs out. */
cJSON *host_dmi_json(const char *root);

#endif
