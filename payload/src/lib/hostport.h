/* lib/hostport.h: the one parser for "HOST[:PORT]" in every spelling the
 * payload takes (name, IPv4, [IPv6], bare IPv6), saying what is wrong. */
#ifndef BB_HOSTPORT_H
#define BB_HOSTPORT_H

#include <stddef.h>

/* Flags for hostport_split()/hostport_parse(). */
/* "HOST" without ":PORT" is an error ("no port"). */
#define HOSTPORT_NEED_PORT	0x1
/* An empty host (":PORT", "[]:PORT") is taken: a listener's "every
 * address".  Without it an empty host is an error. */
#define HOSTPORT_ANY_HOST	0x2
/* IPv6 only in brackets, as in a URL's authority (RFC 3986): a host with
 * several colons is an error, not a bare IPv6 address. */
#define HOSTPORT_BRACKETS	0x4

/* The longest message hostport_split() writes, NUL included. */
#define HOSTPORT_ERRLEN 128

/* One parsed "HOST[:PORT]": host points into the parsed string, without
 * the brackets of an IPv6 literal, and is not NUL-terminated. */
struct hostport {
	const char *host;
	size_t hostlen;
	unsigned port;		/* 1..65535, or defport when none given */
};

/* Splits s[0..n) (no NUL needed) into host and port.  Takes "HOST",
 * "HOST:PORT", "[V6]", "[V6]:PORT" and, unless HOSTPORT_BRACKETS, a bare
 * IPv6 address (several colons, no brackets: all of it is the host, the
 * port is defport).  PORT is decimal 1..65535.  Refuses an empty host
 * (unless HOSTPORT_ANY_HOST), a '[' without ']', anything but ":PORT"
 * after ']', a missing (HOSTPORT_NEED_PORT), empty, zero, non-decimal or
 * over-65535 port.  Returns 0 with *hp filled, or -EINVAL with a message
 * in err (errlen bytes, may be 0) naming the bad part, e.g. "bad port
 * '0x1': want 1..65535"; it does not repeat s, so callers prefix it with
 * their context ("server '%s': %s"). */
int hostport_split(const char *s, size_t n, unsigned flags, unsigned defport,
		   struct hostport *hp, char *err, size_t errlen);

/* hostport_split() of the NUL-terminated s, the host copied NUL-terminated
 * into host (hostlen bytes) and the port into *port.  Returns 0, or
 * -EINVAL as hostport_split() does, also for a host that does not fit
 * ("host name over N bytes"). */
int hostport_parse(const char *s, unsigned flags, unsigned defport,
		   char *host, size_t hostlen, unsigned *port,
		   char *err, size_t errlen);

#endif
