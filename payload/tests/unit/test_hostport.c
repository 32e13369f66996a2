/* test_hostport.c: lib/hostport's "HOST[:PORT]" parser over a table of
 * spellings, good and bad, with the message each bad one gets. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "lib/hostport.h"
#include "tap.h"

#define NP HOSTPORT_NEED_PORT
#define AH HOSTPORT_ANY_HOST
#define BR HOSTPORT_BRACKETS

static const struct {
	const char *s;
	unsigned flags, defport;
	int rc;
	const char *host;	/* or the error message */
	unsigned port;
} cases[] = {
	{ "10.0.0.1", 0, 7, 0, "10.0.0.1", 7 },
	{ "ctl.local:99", 0, 7, 0, "ctl.local", 99 },
	{ "h:65535", 0, 7, 0, "h", 65535 },
	{ "h:080", 0, 7, 0, "h", 80 },
	{ "h", 0, 0, 0, "h", 0 },
	{ "[fe80::1]:5", 0, 7, 0, "fe80::1", 5 },
	{ "[::1]", 0, 7, 0, "::1", 7 },
	{ "[::]:25", AH | NP, 0, 0, "::", 25 },
	{ "fe80::1", 0, 7, 0, "fe80::1", 7 },
	{ "::1", 0, 7, 0, "::1", 7 },
	{ "2001:db8::5:25", 0, 7, 0, "2001:db8::5:25", 7 },
	{ ":2525", AH | NP, 0, 0, "", 2525 },
	{ "[]:2525", AH, 0, 0, "", 2525 },
	{ "[::1]:81", BR, 80, 0, "::1", 81 },
	{ "", 0, 7, -EINVAL, "no host name", 0 },
	{ ":80", 0, 7, -EINVAL, "no host name", 0 },
	{ "[]:80", 0, 7, -EINVAL, "no host name", 0 },
	{ "", AH | NP, 0, -EINVAL, "no port: want HOST:PORT", 0 },
	{ "h", NP, 0, -EINVAL, "no port: want HOST:PORT", 0 },
	{ "fe80::1", NP, 0, -EINVAL, "no port: want HOST:PORT", 0 },
	{ "[::1]", NP, 0, -EINVAL, "no port: want HOST:PORT", 0 },
	{ "h:", 0, 7, -EINVAL, "bad port '': want 1..65535", 0 },
	{ "h:0", 0, 7, -EINVAL, "bad port '0': want 1..65535", 0 },
	{ "h:65536", 0, 7, -EINVAL, "bad port '65536': want 1..65535", 0 },
	{ "h:99999999999999999999", 0, 7, -EINVAL,
	  "bad port '9999999999999999': want 1..65535", 0 },
	{ "h:x", 0, 7, -EINVAL, "bad port 'x': want 1..65535", 0 },
	{ "h:80x", 0, 7, -EINVAL, "bad port '80x': want 1..65535", 0 },
	{ "h:-1", 0, 7, -EINVAL, "bad port '-1': want 1..65535", 0 },
	{ "h: 80", 0, 7, -EINVAL, "bad port ' 80': want 1..65535", 0 },
	{ "[::1]:0", 0, 7, -EINVAL, "bad port '0': want 1..65535", 0 },
	{ "[::1", 0, 7, -EINVAL, "'[' without ']'", 0 },
	{ "[::1]x", 0, 7, -EINVAL, "'x' after ']': want ':PORT'", 0 },
	{ "[::1]]:5", 0, 7, -EINVAL, "']:5' after ']': want ':PORT'", 0 },
	{ "fe80::1", BR, 80, -EINVAL, "IPv6 address without [ ]", 0 },
};

static void test_table(void)
{
	char host[64], err[HOSTPORT_ERRLEN], name[160];
	unsigned port;
	size_t i;
	int rc;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		host[0] = err[0] = 0;
		port = 12345;
		rc = hostport_parse(cases[i].s, cases[i].flags,
				    cases[i].defport, host, sizeof(host),
				    &port, err, sizeof(err));
		snprintf(name, sizeof(name), "'%s' flags %u: rc",
			 cases[i].s, cases[i].flags);
		TAP_EQ_INT(rc, cases[i].rc, name);
		snprintf(name, sizeof(name), "'%s' flags %u: %s", cases[i].s,
			 cases[i].flags, cases[i].rc ? "message" : "host");
		TAP_EQ_STR(cases[i].rc ? err : host, cases[i].host, name);
		if (cases[i].rc == 0) {
			snprintf(name, sizeof(name), "'%s' flags %u: port",
				 cases[i].s, cases[i].flags);
			TAP_EQ_INT(port, cases[i].port, name);
		}
	}
}

/* hostport_split() reads only s[0..n): a URL's authority before its path,
 * without copying. */
static void test_split(void)
{
	const char *url = "[::1]:8080/x:1";
	struct hostport hp;
	char err[HOSTPORT_ERRLEN];

	TAP_EQ_INT(hostport_split(url, strcspn(url, "/?#"), HOSTPORT_BRACKETS,
				  80, &hp, err, sizeof(err)), 0,
		   "split: the authority of a URL");
	TAP_EQ_INT(hp.hostlen, 3, "split: host length");
	tap_ok(hp.host == url + 1, "split: host points into the string");
	TAP_EQ_INT(hp.port, 8080, "split: port");
	TAP_EQ_INT(hostport_split("h:80", 1, NP, 0, &hp, err, sizeof(err)),
		   -EINVAL, "split: n stops before the port");
	TAP_EQ_INT(hostport_split("h:80", 4, 0, 0, &hp, NULL, 0), 0,
		   "split: no room for a message is fine");
}

/* A host that does not fit the caller's buffer. */
static void test_long(void)
{
	char host[4], err[HOSTPORT_ERRLEN];
	unsigned port;

	TAP_EQ_INT(hostport_parse("abcd:1", 0, 0, host, sizeof(host), &port,
				  err, sizeof(err)), -EINVAL,
		   "a host over the buffer is refused");
	TAP_EQ_STR(err, "host name over 3 bytes", "its message");
	TAP_EQ_INT(hostport_parse("abc:1", 0, 0, host, sizeof(host), &port,
				  err, sizeof(err)), 0, "one that fits is not");
	TAP_EQ_STR(host, "abc", "and is copied");
}

int main(void)
{
	test_table();
	test_split();
	test_long();
	return tap_done();
}
