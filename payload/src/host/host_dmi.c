/* host/host_dmi.c: the firmware's DMI strings from /sys/class/dmi/id
 * (host_dmi.h). */
#include <stdio.h>

#include "host/host_dmi.h"
#include "host/host_sysfs.h"

/* The kernel's file names are the result's field names: one name for one
 * fact from the firmware to the report. */
static const char *const host_dmi_files[] = {
	"sys_vendor", "product_name", "product_version",
	"board_vendor", "board_name", "board_version",
	"bios_vendor", "bios_version", "bios_date",
};

cJSON *host_dmi_json(const char *root)
{
	cJSON *o = cJSON_CreateObject();
	char path[128];
	size_t i;
	int n = 0;

	if (!o)
		return NULL;
	for (i = 0; i < sizeof(host_dmi_files) / sizeof(host_dmi_files[0]);
	     i++) {
		snprintf(path, sizeof(path), "/sys/class/dmi/id/%s",
			 host_dmi_files[i]);
		n += host_sysfs_str(o, host_dmi_files[i], root, path);
	}
	if (n == 0) {
		cJSON_Delete(o);
		return NULL;
	}
	return o;
}
