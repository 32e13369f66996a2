/* proto/workload_record.h: the head of a benchboot.workload/1 record, the
 * document every workload prints (docs/result-schema.md). */
#ifndef BB_WORKLOAD_RECORD_H
#define BB_WORKLOAD_RECORD_H

#include <cjson/cJSON.h>

/* A new record holding, in this order, "schema": "benchboot.workload/1",
 * "workload", "tool" {"name": "benchboot", "version", "arch"} and "host"
 * (host, or this host's name when host is NULL).  The caller adds the
 * rest (params, start, elapsed_s, counters, ...) in its own order and
 * owns the result (cJSON_Delete).  NULL when out of memory. */
cJSON *workload_record_new(const char *workload, const char *host);

#endif
