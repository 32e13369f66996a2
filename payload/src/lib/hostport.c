/* lib/hostport.c: "HOST[:PORT]" with IPv6 in brackets or bare, for every
 * address the payload is given (servers, listeners, URLs, policy). */
#include <errno.h>
#include <string.h>

#include "lib/hostport.h"
#include "lib/util.h"

/* The decimal port p[0..n) into *port.  Returns 0 or -EINVAL. */
static int hostport_port(const char *p, size_t n, unsigned *port,
			 char *err, size_t errlen)
{
	unsigned long v = 0;
	size_t i;

	for (i = 0; i < n && v <= 65535; i++) {
		if (p[i] < '0' || p[i] > '9')
			break;
		v = v * 10 + (unsigned long)(p[i] - '0');
	}
	if (n == 0 || i < n || v == 0 || v > 65535)
		return util_fail(err, errlen, -EINVAL,
				 "bad port '%.*s': want 1..65535",
				 n > 16 ? 16 : (int)n, p);
	*port = (unsigned)v;
	return 0;
}

int hostport_split(const char *s, size_t n, unsigned flags, unsigned defport,
		   struct hostport *hp, char *err, size_t errlen)
{
	const char *end = s + n, *colon = NULL, *rb, *c1;

	hp->port = defport;
	if (n && s[0] == '[') {
		rb = memchr(s, ']', n);
		if (!rb)
			return util_fail(err, errlen, -EINVAL,
					 "'[' without ']'");
		hp->host = s + 1;
		hp->hostlen = (size_t)(rb - s - 1);
		if (rb + 1 < end && rb[1] != ':')
			return util_fail(err, errlen, -EINVAL,
					 "'%.*s' after ']': want ':PORT'",
					 (int)(end - rb - 1 > 16 ? 16 :
					       end - rb - 1), rb + 1);
		if (rb + 1 < end)
			colon = rb + 1;
	} else {
		c1 = memchr(s, ':', n);
		colon = c1 ? memrchr(s, ':', n) : NULL;
		if (colon != c1) {
			/* Several colons: an IPv6 address without a port. */
			if (flags & HOSTPORT_BRACKETS)
				return util_fail(err, errlen, -EINVAL,
						 "IPv6 address without [ ]");
			colon = NULL;
		}
		hp->host = s;
		hp->hostlen = colon ? (size_t)(colon - s) : n;
	}
	if (hp->hostlen == 0 && !(flags & HOSTPORT_ANY_HOST))
		return util_fail(err, errlen, -EINVAL, "no host name");
	if (!colon)
		return flags & HOSTPORT_NEED_PORT ?
			util_fail(err, errlen, -EINVAL,
				  "no port: want HOST:PORT") : 0;
	return hostport_port(colon + 1, (size_t)(end - colon - 1), &hp->port,
			     err, errlen);
}

int hostport_parse(const char *s, unsigned flags, unsigned defport,
		   char *host, size_t hostlen, unsigned *port,
		   char *err, size_t errlen)
{
	struct hostport hp;
	int rc;

	rc = hostport_split(s, strlen(s), flags, defport, &hp, err, errlen);
	if (rc != 0)
		return rc;
	if (hp.hostlen >= hostlen)
		return util_fail(err, errlen, -EINVAL,
				 "host name over %zu bytes",
				 hostlen ? hostlen - 1 : 0);
	memcpy(host, hp.host, hp.hostlen);
	host[hp.hostlen] = 0;
	*port = hp.port;
	return 0;
}
