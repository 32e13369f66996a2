/* lib/json_int.c: exact 64-bit integers in cJSON documents (json_int.h): the digits
 * ride in a number's valuestring, written by json_int_print(). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/json_int.h"
#include "lib/util.h"

/* Type bits cJSON leaves alone (it switches on type & 0xFF): a number
 * json_int_print() turned into raw text, and one whose digits it made. */
#define JSON_INT_MARK (1 << 12)
#define JSON_INT_TEMP (1 << 13)

/* 2^53: every integer up to it is exact in a double. */
#define JSON_INT_EXACT_DBL 9007199254740992.0

/* The digits of it when they are its value: 0 and *v; -ERANGE when they
 * do not fit 64 bits; -ENOENT when there are none (or stale ones). */
static int json_int_digits(const cJSON *it, int64_t *v)
{
	const char *s = it->valuestring;
	char *e;
	long long x;

	if (!s || !s[0])
		return -ENOENT;
	errno = 0;
	x = strtoll(s, &e, 10);
	if (*e)
		return -ENOENT;
	if (errno == ERANGE)
		return -ERANGE;
	if ((double)x != it->valuedouble)
		return -ENOENT;
	*v = x;
	return 0;
}

static char *json_int_text(int64_t v)
{
	char buf[24], *s;
	size_t n;

	n = (size_t)snprintf(buf, sizeof(buf), "%lld", (long long)v) + 1;
	s = cJSON_malloc(n);
	if (s)
		memcpy(s, buf, n);
	return s;
}

cJSON *json_int_create(int64_t v)
{
	cJSON *it = cJSON_CreateNumber((double)v);

	if (it && json_int_set(it, v) != 0) {
		cJSON_Delete(it);
		return NULL;
	}
	return it;
}

cJSON *json_int_add(cJSON *obj, const char *name, int64_t v)
{
	cJSON *it = json_int_create(v);

	if (!it || !cJSON_AddItemToObject(obj, name, it)) {
		cJSON_Delete(it);
		return NULL;
	}
	return it;
}

int json_int_set(cJSON *it, int64_t v)
{
	char *s;

	if (!cJSON_IsNumber(it))
		return -EINVAL;
	s = json_int_text(v);
	if (!s)
		return -ENOMEM;
	cJSON_SetNumberValue(it, (double)v);
	cJSON_free(it->valuestring);
	it->valuestring = s;
	return 0;
}

int json_int_get(const cJSON *it, int64_t *out)
{
	int64_t v;
	double d;
	int rc;

	if (!cJSON_IsNumber(it))
		return -EINVAL;
	rc = json_int_digits(it, &v);
	if (rc != -ENOENT) {
		if (rc == 0)
			*out = v;
		return rc;
	}
	d = it->valuedouble;
	if (!isfinite(d))
		return -ERANGE;
	if (d != floor(d))
		return -EDOM;
	/* Beyond 2^53 without digits, the double is a rounding. */
	if (fabs(d) > JSON_INT_EXACT_DBL)
		return -ERANGE;
	*out = (int64_t)d;
	return 0;
}

int json_int_field(const cJSON *obj, const char *name, int64_t *out,
	       char *err, size_t errlen)
{
	const cJSON *it = cJSON_GetObjectItemCaseSensitive(obj, name);
	int rc;

	if (!it)
		return util_fail(err, errlen, -ENOENT,
				 "field \"%s\": missing", name);
	rc = json_int_get(it, out);
	if (rc == -EINVAL)
		return util_fail(err, errlen, rc,
				 "field \"%s\": not a number (want an integer)",
				 name);
	if (rc == -EDOM)
		return util_fail(err, errlen, rc,
				 "field \"%s\": %.17g is not an integer", name,
				 it->valuedouble);
	if (rc == -ERANGE)
		return util_fail(err, errlen, rc,
				 "field \"%s\": %.17g is not an exact 64-bit integer (out of range, or above 2^53 and not in digits)",
				 name, it->valuedouble);
	return 0;
}

/* The next number token at or after *p before lim (strings skipped):
 * its start, its length in *n; NULL when there is none. */
static const char *json_int_next_token(const char **p, const char *lim,
				   size_t *n)
{
	const char *s = *p, *t;

	while (s < lim) {
		if (*s == '"') {
			for (s++; s < lim && *s != '"'; s++)
				if (*s == '\\')
					s++;
			s++;
			continue;
		}
		if (*s != '-' && (*s < '0' || *s > '9')) {
			s++;
			continue;
		}
		for (t = s; t < lim && strchr("+-.eE0123456789", *t) && *t;
		     t++)
			;
		*n = (size_t)(t - s);
		*p = t;
		return s;
	}
	*p = lim;
	return NULL;
}

/* Walks it and its siblings in document order, pairing each number
 * with the next number token of the text: cJSON keeps every member, in
 * order, so the n-th number item is the n-th number token. */
static int json_int_attach(cJSON *it, const char **p, const char *lim)
{
	const char *tok;
	size_t n, i;
	char *s;

	for (; it; it = it->next) {
		if (cJSON_IsNumber(it) && (tok = json_int_next_token(p, lim, &n))) {
			i = tok[0] == '-';
			while (i < n && tok[i] >= '0' && tok[i] <= '9')
				i++;
			/* Only integers a double may round: > 15 digits. */
			if (i == n && n - (tok[0] == '-') > 15) {
				s = cJSON_malloc(n + 1);
				if (!s)
					return -ENOMEM;
				memcpy(s, tok, n);
				s[n] = 0;
				cJSON_free(it->valuestring);
				it->valuestring = s;
			}
		}
		if (it->child && json_int_attach(it->child, p, lim) != 0)
			return -ENOMEM;
	}
	return 0;
}

cJSON *json_int_parse(const char *text, size_t len, const char **end,
		  int require_end)
{
	const char *e = text, *p = text;
	cJSON *doc = cJSON_ParseWithLengthOpts(text, len, &e, require_end);

	if (end)
		*end = e;
	if (doc && json_int_attach(doc, &p, e) != 0) {
		cJSON_Delete(doc);
		return NULL;
	}
	return doc;
}

/* Turns the integers of it and its siblings into raw text (mark != 0),
 * or back into numbers. */
static void json_int_mark(cJSON *it, int mark)
{
	int64_t v;
	double d;

	for (; it; it = it->next) {
		if (!mark && (it->type & JSON_INT_MARK)) {
			if (it->type & JSON_INT_TEMP) {
				cJSON_free(it->valuestring);
				it->valuestring = NULL;
			}
			it->type = (it->type & ~(0xFF | JSON_INT_MARK | JSON_INT_TEMP))
				   | cJSON_Number;
		} else if (mark && cJSON_IsNumber(it)) {
			d = it->valuedouble;
			if (json_int_digits(it, &v) == 0) {
				it->type = (it->type & ~0xFF) | cJSON_Raw |
					   JSON_INT_MARK;
			} else if (isfinite(d) && d == floor(d) &&
				   fabs(d) < 9.2e18 && fabs(d) >= 1e15) {
				/* cJSON would write 1e+15; stale digits
				 * (cJSON_SetNumberValue) are dropped. */
				char *s = json_int_text((int64_t)d);

				if (s) {
					cJSON_free(it->valuestring);
					it->valuestring = s;
					it->type = (it->type & ~0xFF) |
						   cJSON_Raw | JSON_INT_MARK |
						   JSON_INT_TEMP;
				}
			}
		}
		if (it->child)
			json_int_mark(it->child, mark);
	}
}

char *json_int_print(const cJSON *doc, int formatted)
{
	/* Changed for the print only: the caller sees doc as it was. */
	cJSON *d = (cJSON *)(uintptr_t)doc;
	char *s;

	if (!d)
		return NULL;
	json_int_mark(d, 1);
	s = formatted ? cJSON_Print(d) : cJSON_PrintUnformatted(d);
	json_int_mark(d, 0);
	return s;
}
