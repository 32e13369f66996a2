/* lib/json_int.h: exact 64-bit integers in cJSON documents (nanosecond times,
 * counters), which cJSON alone keeps as doubles (docs/durability.md). */
#ifndef BB_JSON_INT_H
#define BB_JSON_INT_H

#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

/* An exact integer is a cJSON_Number whose valuedouble is (double)v and
 * whose valuestring holds v's decimal digits (freed, copied and compared
 * by cJSON like any valuestring).  Digits that no longer match
 * valuedouble (cJSON_SetNumberValue was used) are ignored. */

/* A new number item holding v exactly; caller owns; NULL when out of
 * memory. */
cJSON *json_int_create(int64_t v);

/* Adds v exactly to obj under name.  Returns the item, NULL when out of
 * memory (nothing is added then). */
cJSON *json_int_add(cJSON *obj, const char *name, int64_t v);

/* Sets number item it to v exactly.  Returns 0, -EINVAL when it is not a
 * number, -ENOMEM. */
int json_int_set(cJSON *it, int64_t v);

/* Reads it as a signed 64-bit integer, exactly.  Returns 0; -EINVAL when
 * it is not a number (or NULL); -EDOM when it is not an integer (1.5);
 * -ERANGE when it does not fit 64 bits (1e400, 2^63) or is an integer
 * above 2^53 that was not written in digits (its double is inexact). */
int json_int_get(const cJSON *it, int64_t *out);

/* json_int_get() of obj's member name, with a message in err saying which
 * field and why ("field \"t1\": 1.5 is not an integer").  Returns 0,
 * -ENOENT when absent, or json_int_get()'s error. */
int json_int_field(const cJSON *obj, const char *name, int64_t *out,
	       char *err, size_t errlen);

/* cJSON_ParseWithLengthOpts() that also keeps the digits of every
 * integer literal a double cannot hold (more than 15 digits), so
 * json_int_get() reads it exactly and json_int_print() writes it back.  end and
 * require_end as cJSON's (end may be NULL).  Caller owns; NULL on a
 * syntax error or out of memory. */
cJSON *json_int_parse(const char *text, size_t len, const char **end,
		  int require_end);

/* cJSON_Print() (formatted != 0) or cJSON_PrintUnformatted() that writes
 * exact integers in their digits and every other integral number below
 * 2^63 as an integer (never 1e+15).  doc is restored before return.
 * Caller frees with free(); NULL when out of memory. */
char *json_int_print(const cJSON *doc, int formatted);

#endif
