/* jnum.c: exact 64-bit integers in cJSON documents (jnum.h): the digits
 * ride in a number's valuestring, written by jnum_print(). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jnum.h"
#include "util.h"

/* Type bits cJSON leaves alone (it switches on type & 0xFF): a number
 * jnum_print() turned into raw text, and one whose digits it made. */
#define JNUM_MARK (1 << 12)
#define JNUM_TEMP (1 << 13)

/* 2^53: every integer up to it is exact in a double. */
#define JNUM_EXACT_DBL 9007199254740992.0

/* The digits of it when they are its value: 0 and *v; -ERANGE when they
 * do not fit 64 bits; -ENOENT when there are none (or stale ones). */
static int jnum_digits(const cJSON *it, int64_t *v)
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

static char *jnum_text(int64_t v)
{
	char buf[24], *s;
	size_t n;

	n = (size_t)snprintf(buf, sizeof(buf), "%lld", (long long)v) + 1;
	s = cJSON_malloc(n);
	if (s)
		memcpy(s, buf, n);
	return s;
}

cJSON *jnum_create(int64_t v)
{
	cJSON *it = cJSON_CreateNumber((double)v);

	if (it && jnum_set(it, v) != 0) {
		cJSON_Delete(it);
		return NULL;
	}
	return it;
}

cJSON *jnum_add(cJSON *obj, const char *name, int64_t v)
{
	cJSON *it = jnum_create(v);

	if (!it || !cJSON_AddItemToObject(obj, name, it)) {
		cJSON_Delete(it);
		return NULL;
	}
	return it;
}

int jnum_set(cJSON *it, int64_t v)
{
	char *s;

	if (!cJSON_IsNumber(it))
		return -EINVAL;
	s = jnum_text(v);
	if (!s)
		return -ENOMEM;
	cJSON_SetNumberValue(it, (double)v);
	cJSON_free(it->valuestring);
	it->valuestring = s;
	return 0;
}

int jnum_get(const cJSON *it, int64_t *out)
{
	int64_t v;
	double d;
	int rc;

	if (!cJSON_IsNumber(it))
		return -EINVAL;
	rc = jnum_digits(it, &v);
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
	if (fabs(d) > JNUM_EXACT_DBL)
		return -ERANGE;
	*out = (int64_t)d;
	return 0;
}

int jnum_field(const cJSON *obj, const char *name, int64_t *out,
	       char *err, size_t errlen)
{
	const cJSON *it = cJSON_GetObjectItemCaseSensitive(obj, name);
	int rc;

	if (!it)
		return util_fail(err, errlen, -ENOENT,
				 "field \"%s\": missing", name);
	rc = jnum_get(it, out);
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
static const char *jnum_next_token(const char **p, const char *lim,
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
static int jnum_attach(cJSON *it, const char **p, const char *lim)
{
	const char *tok;
	size_t n, i;
	char *s;

	for (; it; it = it->next) {
		if (cJSON_IsNumber(it) && (tok = jnum_next_token(p, lim, &n))) {
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
		if (it->child && jnum_attach(it->child, p, lim) != 0)
			return -ENOMEM;
	}
	return 0;
}

cJSON *jnum_parse(const char *text, size_t len, const char **end,
		  int require_end)
{
	const char *e = text, *p = text;
	cJSON *doc = cJSON_ParseWithLengthOpts(text, len, &e, require_end);

	if (end)
		*end = e;
	if (doc && jnum_attach(doc, &p, e) != 0) {
		cJSON_Delete(doc);
		return NULL;
	}
	return doc;
}

/* Turns the integers of it and its siblings into raw text (mark != 0),
 * or back into numbers. */
static void jnum_mark(cJSON *it, int mark)
{
	int64_t v;
	double d;

	for (; it; it = it->next) {
		if (!mark && (it->type & JNUM_MARK)) {
			if (it->type & JNUM_TEMP) {
				cJSON_free(it->valuestring);
				it->valuestring = NULL;
			}
			it->type = (it->type & ~(0xFF | JNUM_MARK | JNUM_TEMP))
				   | cJSON_Number;
		} else if (mark && cJSON_IsNumber(it)) {
			d = it->valuedouble;
			if (jnum_digits(it, &v) == 0) {
				it->type = (it->type & ~0xFF) | cJSON_Raw |
					   JNUM_MARK;
			} else if (isfinite(d) && d == floor(d) &&
				   fabs(d) < 9.2e18 && fabs(d) >= 1e15) {
				/* cJSON would write 1e+15; stale digits
				 * (cJSON_SetNumberValue) are dropped. */
				char *s = jnum_text((int64_t)d);

				if (s) {
					cJSON_free(it->valuestring);
					it->valuestring = s;
					it->type = (it->type & ~0xFF) |
						   cJSON_Raw | JNUM_MARK |
						   JNUM_TEMP;
				}
			}
		}
		if (it->child)
			jnum_mark(it->child, mark);
	}
}

char *jnum_print(const cJSON *doc, int formatted)
{
	/* Changed for the print only: the caller sees doc as it was. */
	cJSON *d = (cJSON *)(uintptr_t)doc;
	char *s;

	if (!d)
		return NULL;
	jnum_mark(d, 1);
	s = formatted ? cJSON_Print(d) : cJSON_PrintUnformatted(d);
	jnum_mark(d, 0);
	return s;
}
