/* proto/workload_record.c: the head every benchboot.workload/1 record
 * starts with, in one place for the load generators and sysmon. */
#include <cjson/cJSON.h>

#include "bb_pins.h"
#include "lib/util.h"
#include "proto/workload_record.h"

cJSON *workload_record_new(const char *workload, const char *host)
{
	cJSON *rec = cJSON_CreateObject(), *tool;
	char name[256];

	if (!rec)
		return NULL;
	if (!host)
		host = util_hostname(name, sizeof(name));
	cJSON_AddStringToObject(rec, "schema", "benchboot.workload/1");
	cJSON_AddStringToObject(rec, "workload", workload);
	tool = cJSON_AddObjectToObject(rec, "tool");
	if (tool) {
		cJSON_AddStringToObject(tool, "name", "benchboot");
		cJSON_AddStringToObject(tool, "version", BB_VERSION);
		cJSON_AddStringToObject(tool, "arch", BB_ARCH);
	}
	if (!tool || !cJSON_AddStringToObject(rec, "host", host)) {
		cJSON_Delete(rec);
		return NULL;
	}
	return rec;
}
