/* agent/workload.c: the workload table (agent/workload.h). */
#include <string.h>

#include "agent/workload.h"

#define ON_CLIENT WORKLOAD_ROLE(ROLE_CLIENT)
#define ON_SERVER WORKLOAD_ROLE(ROLE_SERVER)

const struct workload workload_table[] = {
	{ "http", ON_CLIENT },
	{ "probe", ON_SERVER },
	{ "sample", ON_SERVER },
	{ "sql", ON_CLIENT },
	{ "smtp", ON_CLIENT },
	{ "smtp-sink", ON_CLIENT },
	{ NULL, 0 },
};

const struct workload *workload_find(const char *name)
{
	const struct workload *w;

	for (w = workload_table; name && w->name; w++)
		if (strcmp(w->name, name) == 0)
			return w;
	return NULL;
}

cJSON *workload_names(void)
{
	cJSON *a = cJSON_CreateArray();
	const struct workload *w;

	for (w = workload_table; a && w->name; w++) {
		if (!cJSON_AddItemToArray(a, cJSON_CreateString(w->name))) {
			cJSON_Delete(a);
			return NULL;
		}
	}
	return a;
}
