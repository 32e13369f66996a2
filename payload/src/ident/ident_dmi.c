/* ident/ident_dmi.c: the firmware's DMI strings from /sys/class/dmi/id
 * (ident_dmi.h). */
#include <stdio.h>

#include "ident/ident_dmi.h"
#include "ident/ident_sysfs.h"

/* The kernel's file names are the result's field names: one name for one
 * fact from the firmware to the report. */
static const char *const ident_dmi_files[] = {
	"sys_vendor", "product_name", "product_version",
	"board_vendor", "board_name", "board_version",
	"bios_vendor", "bios_version", "bios_date",
};

cJSON *ident_dmi_json(const char *root)
{
	cJSON *o = cJSON_CreateObject();
	char path[128];
	size_t i;
	int n = 0;

	if (!o)
		return NULL;
	for (i = 0; i < sizeof(ident_dmi_files) / sizeof(ident_dmi_files[0]);
	     i++) {
		snprintf(path, sizeof(path), "/sys/class/dmi/id/%s",
			 ident_dmi_files[i]);
		n += ident_sysfs_str(o, ident_dmi_files[i], root, path);
	}
	if (n == 0) {
		cJSON_Delete(o);
		return NULL;
	}
	return o;
}
