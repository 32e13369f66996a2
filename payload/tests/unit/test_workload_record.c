/* test_workload_record.c: the head of a benchboot.workload/1 record, the
 * same bytes for every workload that prints one. */
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "bb_pins.h"
#include "lib/util.h"
#include "proto/workload_record.h"
#include "tap.h"

int main(void)
{
	char want[512], host[256];
	cJSON *r;
	char *s;

	r = workload_record_new("probe", "h1");
	s = r ? cJSON_PrintUnformatted(r) : NULL;
	snprintf(want, sizeof(want), "{\"schema\":\"benchboot.workload/1\",\"workload\":\"probe\",\"tool\":{\"name\":\"benchboot\",\"version\":\"%s\",\"arch\":\"%s\"},\"host\":\"h1\"}", BB_VERSION, BB_ARCH);
	TAP_EQ_STR(s, want, "schema, workload, tool, host in this order");
	free(s);
	/* what the caller adds comes after the head */
	cJSON_AddObjectToObject(r, "params");
	tap_ok(r && r->child && r->child->next->next->next->next &&
	       strcmp(r->child->next->next->next->next->string,
		      "params") == 0, "the caller's fields follow");
	cJSON_Delete(r);

	r = workload_record_new("http", NULL);
	util_hostname(host, sizeof(host));
	TAP_EQ_STR(r ? cJSON_GetStringValue(cJSON_GetObjectItem(r, "host")) :
		   NULL, host, "no host given: this host's name");
	cJSON_Delete(r);
	return tap_done();
}
