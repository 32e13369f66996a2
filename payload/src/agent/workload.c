/* agent/workload.c: the workload table (agent/workload.h): each
 * workload's roles, option table, target and allow-list. */
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

/* Refused, for what they touch on the agent's host: http --urls, sql
 * --socket, smtp --message, smtp-sink --store, sample --root and
 * --replay (their tables' .local says what). */
static const char *const http_allow[] = { "threads", "connections",
	"duration", "header", "method", "warmup", "timeout", "rate",
	"pipeline", "no-keepalive", "no-batch", "seed", "json", "engine",
	"insecure", "label", NULL };
static const char *const sql_allow[] = { "workload", "threads",
	"connections", "duration", "rate", "rows", "table", "seed", "keep",
	"timeout", "host", "port", "user", "password", "db", "json", NULL };
static const char *const smtp_allow[] = { "threads", "connections",
	"duration", "count", "new-session", "rate", "helo", "timeout",
	"from", "to", "json", NULL };
static const char *const smtp_sink_allow[] = { "threads", "hostname",
	"no-pipelining", "tempfail-every", "reject-every", "duration",
	"idle", "json", NULL };
static const char *const probe_allow[] = { "rate", "duration", "count",
	"work", "json", NULL };
static const char *const sample_allow[] = { "interval", "count", "proc",
	"json", NULL };

const struct workload workload_table[] = {
	{ "http", ON_CLIENT, &http_optset, WORKLOAD_TARGET_URL, http_allow },
	{ "probe", ON_SERVER, &probe_optset, WORKLOAD_TARGET_NONE,
	  probe_allow },
	{ "sample", ON_SERVER, &sample_optset, WORKLOAD_TARGET_NONE,
	  sample_allow },
	{ "sql", ON_CLIENT, &sql_optset, WORKLOAD_TARGET_HOST, sql_allow },
	{ "smtp", ON_CLIENT, &smtp_optset, WORKLOAD_TARGET_HOSTPORT,
	  smtp_allow },
	{ "smtp-sink", ON_CLIENT, &smtp_sink_optset, WORKLOAD_TARGET_LISTEN,
	  smtp_sink_allow },
	{ NULL, 0, NULL, WORKLOAD_TARGET_NONE, NULL },
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
