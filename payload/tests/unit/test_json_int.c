/* test_json_int.c: exact 64-bit integers through cJSON (json_int.h): written,
 * printed, parsed and read back exactly; non-integers refused with the
 * field's name. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/json_int.h"
#include "tap.h"

/* Values written with json_int_add(), printed, parsed, read back. */
static void round_trip_cases(void)
{
	static const struct {
		const char *name;
		int64_t v;
		const char *text;
	} c[] = {
		{ "zero", 0, "0" },
		{ "2^53+1", 9007199254740993LL, "9007199254740993" },
		{ "INT64_MAX", INT64_MAX, "9223372036854775807" },
		{ "INT64_MIN", INT64_MIN, "-9223372036854775808" },
		{ "a real ns time", 1796131028425257517LL,
		  "1796131028425257517" },
		{ "a negative clock offset", -1796131028425257517LL,
		  "-1796131028425257517" },
		{ "a small counter", 42, "42" },
	};
	char err[200], want[64];
	size_t i;

	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		cJSON *o = cJSON_CreateObject(), *back;
		int64_t v = 0;
		char *s;
		int rc;

		json_int_add(o, "t_ns", c[i].v);
		s = json_int_print(o, 0);
		snprintf(want, sizeof(want), "{\"t_ns\":%s}", c[i].text);
		TAP_EQ_STR(s, want, c[i].name);
		back = json_int_parse(s, strlen(s), NULL, 0);
		rc = json_int_field(back, "t_ns", &v, err, sizeof(err));
		tap_ok(rc == 0 && v == c[i].v, "%s: read back exactly",
		       c[i].name);
		free(s);
		/* Printed again after parsing: still the same digits. */
		s = json_int_print(back, 0);
		TAP_EQ_STR(s, want, "... and printed again");
		free(s);
		cJSON_Delete(back);
		cJSON_Delete(o);
	}
}

/* Texts whose field is due to be an integer. */
static void reject_cases(void)
{
	static const struct {
		const char *text;
		int rc;
		const char *msg;	/* a part of the message */
	} c[] = {
		{ "{\"n\":1e400}", -ERANGE, "field \"n\": inf is not an exact" },
		{ "{\"n\":1.5}", -EDOM, "field \"n\": 1.5 is not an integer" },
		{ "{\"n\":\"x\"}", -EINVAL, "field \"n\": not a number" },
		{ "{\"n\":9223372036854775808}", -ERANGE,
		  "is not an exact 64-bit integer" },
		{ "{\"n\":9.1e18}", -ERANGE, "above 2^53 and not in digits" },
		{ "{\"m\":1}", -ENOENT, "field \"n\": missing" },
		{ "{\"n\":true}", -EINVAL, "field \"n\": not a number" },
	};
	char err[200];
	size_t i;

	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		cJSON *o = json_int_parse(c[i].text, strlen(c[i].text), NULL, 0);
		int64_t v;
		int rc;

		err[0] = 0;
		rc = json_int_field(o, "n", &v, err, sizeof(err));
		if (!tap_ok(rc == c[i].rc && strstr(err, c[i].msg),
			    "%s refused", c[i].text))
			printf("#   rc %d, err \"%s\"\n", rc, err);
		cJSON_Delete(o);
	}
}

/* Parsing pairs each number with its own digits, whatever surrounds it
 * (strings holding digits, nesting, arrays, duplicate keys). */
static void parse_cases(void)
{
	static const char text[] =
		"{\"a\":\"12345678901234567890 -1\",\"b\":[1,"
		"1796131028425257517,{\"c\":2.5e3,\"d\":-9007199254740993}],"
		"\"e\\\"1\":18014398509481985,\"e\":1,\"e\":12345678901234567}";
	static const struct {
		const char *path;
		int64_t want;
	} c[] = {
		{ "b.1", 1796131028425257517LL },
		{ "b.2.c", 2500 },
		{ "b.2.d", -9007199254740993LL },
		{ "e\"1", 18014398509481985LL },
		{ "e", 1 },
	};
	static const char printed[] =
		"{\"a\":\"12345678901234567890 -1\",\"b\":[1,"
		"1796131028425257517,{\"c\":2500,\"d\":-9007199254740993}],"
		"\"e\\\"1\":18014398509481985,\"e\":1,\"e\":12345678901234567}";
	cJSON *doc = json_int_parse(text, sizeof(text) - 1, NULL, 0), *it;
	char *s;
	size_t i;

	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		int64_t v = 0;

		it = doc;
		if (c[i].path[0] == 'b') {
			it = cJSON_GetArrayItem(
				cJSON_GetObjectItem(doc, "b"),
				c[i].path[2] - '0');
			if (c[i].path[3])
				it = cJSON_GetObjectItem(it, c[i].path + 4);
		} else {
			it = cJSON_GetObjectItemCaseSensitive(doc, c[i].path);
		}
		tap_ok(json_int_get(it, &v) == 0 && v == c[i].want, "%s exact",
		       c[i].path);
	}
	/* The last duplicate "e" too, and the whole text printed back. */
	s = json_int_print(doc, 0);
	TAP_EQ_STR(s, printed, "printed back as parsed");
	free(s);
	cJSON_Delete(doc);
}

/* Numbers set by cJSON_SetNumberValue() or written as doubles. */
static void write_cases(void)
{
	cJSON *o = cJSON_CreateObject(), *it;
	int64_t v = 0;
	char *s;

	it = json_int_add(o, "x", 9007199254740993LL);
	cJSON_SetNumberValue(it, 7);
	tap_ok(json_int_get(it, &v) == 0 && v == 7,
	       "stale digits ignored after cJSON_SetNumberValue");
	cJSON_AddNumberToObject(o, "big", 1e15);
	cJSON_AddNumberToObject(o, "half", 0.5);
	s = json_int_print(o, 0);
	TAP_EQ_STR(s, "{\"x\":7,\"big\":1000000000000000,\"half\":0.5}",
		   "integral doubles as integers, fractions as before");
	free(s);
	s = cJSON_PrintUnformatted(o);
	TAP_EQ_STR(s, "{\"x\":7,\"big\":1e+15,\"half\":0.5}",
		   "the document restored after printing");
	free(s);
	json_int_set(it, -5);
	it = cJSON_Duplicate(o, 1);
	tap_ok(json_int_field(it, "x", &v, NULL, 0) == 0 && v == -5,
	       "cJSON_Duplicate keeps the digits");
	cJSON_Delete(it);
	cJSON_Delete(o);
}

int main(void)
{
	round_trip_cases();
	reject_cases();
	parse_cases();
	write_cases();
	return tap_done();
}
