/* agent/workload.c: the workload table (agent/workload.h): each
 * workload's roles, option table and target. */
#include <string.h>

#include "agent/workload.h"
#include "load/http/http.h"
#include "load/smtp/smtp.h"
#include "load/smtp/smtp_sink.h"
#include "load/sql/sql.h"
#include "sysmon/probe.h"
#include "sysmon/sample.h"

#define ON_CLIENT WORKLOAD_ROLE(ROLE_CLIENT)
#define ON_SERVER WORKLOAD_ROLE(ROLE_SERVER)

/* Which options a controller may give: each table's .remote entries
 * (http --urls, sql --socket, smtp --message, smtp-sink --store, sample
 * --root and --replay have none, for what they touch on the agent's
 * host: their .local says what). */
const struct workload workload_table[] = {
	{ "http", ON_CLIENT, &http_optset, WORKLOAD_TARGET_URL },
	{ "probe", ON_SERVER, &probe_optset, WORKLOAD_TARGET_NONE },
	{ "sample", ON_SERVER, &sample_optset, WORKLOAD_TARGET_NONE },
	{ "sql", ON_CLIENT, &sql_optset, WORKLOAD_TARGET_HOST },
	{ "smtp", ON_CLIENT, &smtp_optset, WORKLOAD_TARGET_HOSTPORT },
	{ "smtp-sink", ON_CLIENT, &smtp_sink_optset,
	  WORKLOAD_TARGET_LISTEN },
	{ NULL, 0, NULL, WORKLOAD_TARGET_NONE },
};

const struct workload *workload_find(const char *name)
{
	const struct workload *w;

	for (w = workload_table; name && w->name; w++)
		if (strcmp(w->name, name) == 0)
			return w;
	return NULL;
}

cJSON *workload_names(enum role role)
{
	cJSON *a = cJSON_CreateArray();
	const struct workload *w;

	for (w = workload_table; a && w->name; w++) {
		if (!(w->roles & WORKLOAD_ROLE(role)))
			continue;
		if (!cJSON_AddItemToArray(a, cJSON_CreateString(w->name))) {
			cJSON_Delete(a);
			return NULL;
		}
	}
	return a;
}
