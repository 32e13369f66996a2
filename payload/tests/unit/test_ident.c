/* test_ident.c: ident_parse's HTTP head, SMTP reply and MySQL handshake
 * parsers, table-driven: what they keep, what they refuse, and that every
 * proper prefix of a good message asks for more rather than failing. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ident/ident.h"
#include "ident/ident_parse.h"
#include "tap.h"

struct http_case {
	const char *name, *in;
	int rc, status;
	const char *server, *cgi;
	long long clen;
};

static const struct http_case http_cases[] = {
	{ "Apache head", "HTTP/1.1 200 OK\r\nDate: x\r\nServer: Apache/2.4.71 (Debian)\r\n"
	  "Content-Length: 4050\r\n\r\nbody", 1, 200, "Apache/2.4.71 (Debian)", "", 4050 },
	{ "nginx, no reason phrase, lower-case names", "HTTP/1.0 404\r\nserver:   nginx/1.22.1  \r\n\r\n",
	  1, 404, "nginx/1.22.1", "", -1 },
	{ "the kit's CGI kind", "HTTP/1.1 200 OK\r\nX-Benchboot-CGI: perl\r\n\r\n",
	  1, 200, "", "perl", -1 },
	{ "first Server header wins", "HTTP/1.1 200 OK\r\nServer: a\r\nServer: b\r\n\r\n",
	  1, 200, "a", "", -1 },
	{ "same Content-Length twice", "HTTP/1.1 200 OK\r\nContent-Length: 5\r\ncontent-length: 5\r\n\r\n",
	  1, 200, "", "", 5 },
	{ "incomplete head", "HTTP/1.1 200 OK\r\nServer: x\r\n", 0, 0, NULL, NULL, 0 },
	{ "empty input", "", 0, 0, NULL, NULL, 0 },
	{ "bare LF", "HTTP/1.1 200 OK\nServer: x\n\n", -EBADMSG, 0, NULL, NULL, 0 },
	{ "HTTP/2 status line", "HTTP/2 200\r\n\r\n", -EBADMSG, 0, NULL, NULL, 0 },
	{ "status 099", "HTTP/1.1 099 X\r\n\r\n", -EBADMSG, 0, NULL, NULL, 0 },
	{ "status 600", "HTTP/1.1 600 X\r\n\r\n", -EBADMSG, 0, NULL, NULL, 0 },
	{ "folded header", "HTTP/1.1 200 OK\r\nServer: a\r\n b\r\n\r\n", -EBADMSG, 0, NULL, NULL, 0 },
	{ "header without colon", "HTTP/1.1 200 OK\r\nServer\r\n\r\n", -EBADMSG, 0, NULL, NULL, 0 },
	{ "space in a header name", "HTTP/1.1 200 OK\r\nSer ver: a\r\n\r\n", -EBADMSG, 0, NULL, NULL, 0 },
	{ "control character in a value", "HTTP/1.1 200 OK\r\nServer: a\033b\r\n\r\n",
	  -EBADMSG, 0, NULL, NULL, 0 },
	{ "two Content-Length values", "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\n",
	  -EBADMSG, 0, NULL, NULL, 0 },
	{ "negative Content-Length", "HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n",
	  -EBADMSG, 0, NULL, NULL, 0 },
	{ "not HTTP at all", "SSH-2.0-OpenSSH_9.2\r\n", -EBADMSG, 0, NULL, NULL, 0 },
};

static void test_http(void)
{
	struct ident_http_head h;
	char err[128], name[160];
	size_t i, n, k;
	int rc, bad;

	for (i = 0; i < sizeof(http_cases) / sizeof(http_cases[0]); i++) {
		const struct http_case *c = &http_cases[i];

		n = strlen(c->in);
		err[0] = '\0';
		rc = ident_http_head_parse(c->in, n, &h, err, sizeof(err));
		snprintf(name, sizeof(name), "http: %s: rc", c->name);
		TAP_EQ_INT(rc, c->rc, name);
		if (rc < 0)
			tap_ok(err[0] != '\0', "http: %s: says why (%s)",
			       c->name, err);
		if (rc != 1)
			continue;
		snprintf(name, sizeof(name), "http: %s: status", c->name);
		TAP_EQ_INT(h.status, c->status, name);
		snprintf(name, sizeof(name), "http: %s: Server", c->name);
		TAP_EQ_STR(h.server, c->server, name);
		snprintf(name, sizeof(name), "http: %s: CGI kind", c->name);
		TAP_EQ_STR(h.cgi, c->cgi, name);
		snprintf(name, sizeof(name), "http: %s: Content-Length",
			 c->name);
		TAP_EQ_INT(h.content_length, c->clen, name);
		for (k = 0, bad = 0; k < h.head_len; k++)
			bad |= ident_http_head_parse(c->in, k, &h, err,
						     sizeof(err)) != 0;
		tap_ok(!bad, "http: %s: every prefix asks for more", c->name);
	}
}

static void test_http_limits(void)
{
	size_t n = IDENT_HEAD_MAX + 100, i;
	char *big = malloc(n), err[128];
	struct ident_http_head h;

	if (!big)
		return;
	memcpy(big, "HTTP/1.1 200 OK\r\n", 17);
	for (i = 17; i < n; i++)
		big[i] = 'a';
	tap_ok(ident_http_head_parse(big, n, &h, err, sizeof(err)) ==
	       -EBADMSG, "http: a line past %d bytes is refused (%s)",
	       IDENT_HLINE_MAX, err);
	tap_ok(ident_http_head_parse(big, 17 + 100, &h, err, sizeof(err)) ==
	       0, "http: a long line within the limit asks for more");
	/* Good header lines all the way, never the blank line. */
	for (i = 17; i + 6 < n; i += 6)
		memcpy(big + i, "A: b\r\n", 6);
	tap_ok(ident_http_head_parse(big, n, &h, err, sizeof(err)) ==
	       -EBADMSG, "http: a head past %d bytes is refused (%s)",
	       IDENT_HEAD_MAX, err);
	free(big);
}

struct smtp_case {
	const char *name, *in;
	int rc, code;
	const char *text;
	unsigned n_ext;
	const char *ext0, *ext_last;
};

static const struct smtp_case smtp_cases[] = {
	{ "Postfix banner", "220 mx.example ESMTP Postfix (Debian/GNU)\r\n", 1, 220,
	  "mx.example ESMTP Postfix (Debian/GNU)", 0, NULL, NULL },
	{ "EHLO reply", "250-mx.example\r\n250-PIPELINING\r\n250-SIZE 10240000\r\n"
	  "250 CHUNKING\r\n", 1, 250, "mx.example", 3, "PIPELINING", "CHUNKING" },
	{ "code alone", "220\r\n", 1, 220, "", 0, NULL, NULL },
	{ "multi-line banner", "220-mx.example ESMTP\r\n220 welcome\r\n", 1, 220,
	  "mx.example ESMTP", 1, "welcome", "welcome" },
	{ "Exchange-style banner", "220 EX01.corp.example Microsoft ESMTP MAIL Service ready\r\n",
	  1, 220, "EX01.corp.example Microsoft ESMTP MAIL Service ready", 0, NULL, NULL },
	{ "incomplete continuation", "250-mx.example\r\n250-PIPE", 0, 0, NULL, 0, NULL, NULL },
	{ "codes differ", "250-a\r\n251 b\r\n", -EBADMSG, 0, NULL, 0, NULL, NULL },
	{ "bare LF", "220 x\n", -EBADMSG, 0, NULL, 0, NULL, NULL },
	{ "bad separator", "220_x\r\n", -EBADMSG, 0, NULL, 0, NULL, NULL },
	{ "code 199", "199 x\r\n", -EBADMSG, 0, NULL, 0, NULL, NULL },
	{ "code 260", "260 x\r\n", -EBADMSG, 0, NULL, 0, NULL, NULL },
	{ "8-bit text", "220 caf\xc3\xa9\r\n", -EBADMSG, 0, NULL, 0, NULL, NULL },
	{ "an HTTP server on port 25", "HTTP/1.1 400 Bad Request\r\n", -EBADMSG, 0, NULL, 0, NULL, NULL },
};

static void test_smtp(void)
{
	struct ident_smtp_reply r;
	char err[128], name[160];
	size_t i, k;
	int rc, bad;

	for (i = 0; i < sizeof(smtp_cases) / sizeof(smtp_cases[0]); i++) {
		const struct smtp_case *c = &smtp_cases[i];

		err[0] = '\0';
		rc = ident_smtp_reply_parse(c->in, strlen(c->in), &r, err,
					    sizeof(err));
		snprintf(name, sizeof(name), "smtp: %s: rc", c->name);
		TAP_EQ_INT(rc, c->rc, name);
		if (rc < 0)
			tap_ok(err[0] != '\0', "smtp: %s: says why (%s)",
			       c->name, err);
		if (rc != 1)
			continue;
		snprintf(name, sizeof(name), "smtp: %s: code", c->name);
		TAP_EQ_INT(r.code, c->code, name);
		snprintf(name, sizeof(name), "smtp: %s: text", c->name);
		TAP_EQ_STR(r.text, c->text, name);
		snprintf(name, sizeof(name), "smtp: %s: extensions", c->name);
		TAP_EQ_INT(r.n_ext, c->n_ext, name);
		if (c->n_ext) {
			TAP_EQ_STR(r.ext[0], c->ext0, "smtp: first extension");
			TAP_EQ_STR(r.ext[r.n_ext - 1], c->ext_last,
				   "smtp: last extension");
		}
		TAP_EQ_INT(r.len, strlen(c->in), "smtp: the whole reply used");
		for (k = 0, bad = 0; k < r.len; k++)
			bad |= ident_smtp_reply_parse(c->in, k, &r, err,
						      sizeof(err)) != 0;
		tap_ok(!bad, "smtp: %s: every prefix asks for more", c->name);
	}
}

static void test_smtp_limits(void)
{
	char buf[IDENT_SMTP_LINE_MAX * 2], err[128];
	struct ident_smtp_reply r;
	size_t off = 0;
	int i;

	memset(buf, 'a', sizeof(buf));
	memcpy(buf, "220 ", 4);
	tap_ok(ident_smtp_reply_parse(buf, sizeof(buf), &r, err,
				      sizeof(err)) == -EBADMSG,
	       "smtp: a line past %d bytes is refused", IDENT_SMTP_LINE_MAX);
	{
		static char many[(IDENT_SMTP_LINES + 1) * 8];

		for (i = 0; i <= IDENT_SMTP_LINES; i++, off += 8)
			memcpy(many + off, "250-ab\r\n", 8);
		tap_ok(ident_smtp_reply_parse(many, off, &r, err,
					      sizeof(err)) == -EBADMSG,
		       "smtp: more than %d lines are refused (%s)",
		       IDENT_SMTP_LINES, err);
	}
}

static void test_mysql(void)
{
	static const unsigned char mariadb[] = {
		0x28, 0, 0, 0, 10, '5', '.', '5', '.', '5', '-', '1', '0',
		'.', '1', '1', '.', '1', '9', '-', 'M', 'a', 'r', 'i', 'a',
		'D', 'B', 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14,
		15, 16 };
	static const unsigned char refused[] = {
		0x17, 0, 0, 0, 0xff, 0x6a, 0x04, 'H', 'o', 's', 't', ' ', 'i',
		's', ' ', 'b', 'l', 'o', 'c', 'k', 'e', 'd', '\n', 'x', 'y',
		'z', 'w' };
	static const unsigned char v9[] = { 5, 0, 0, 0, 9, 'a', 0, 0, 0 };
	static const unsigned char nonul[] = { 3, 0, 0, 0, 10, 'a', 'b' };
	char v[64], err[128];
	size_t k;
	int bad;

	TAP_EQ_INT(ident_mysql_hello_parse(mariadb, sizeof(mariadb), v,
					   sizeof(v), err, sizeof(err)), 1,
		   "mysql: MariaDB handshake parsed");
	TAP_EQ_STR(v, "5.5.5-10.11.19-MariaDB", "mysql: its version");
	for (k = 0, bad = 0; k < sizeof(mariadb); k++)
		bad |= ident_mysql_hello_parse(mariadb, k, v, sizeof(v), err,
					       sizeof(err)) != 0;
	tap_ok(!bad, "mysql: every prefix asks for more");
	TAP_EQ_INT(ident_mysql_hello_parse(mariadb, sizeof(mariadb), v, 6,
					   err, sizeof(err)), 1,
		   "mysql: a short buffer cuts the version");
	TAP_EQ_STR(v, "5.5.5", "mysql: cut to 5 characters");
	TAP_EQ_INT(ident_mysql_hello_parse(refused, sizeof(refused), v,
					   sizeof(v), err, sizeof(err)),
		   -EPROTO, "mysql: an error packet is the server refusing");
	tap_ok(strstr(err, "Host is blocked") != NULL,
	       "mysql: with its message (%s)", err);
	TAP_EQ_INT(ident_mysql_hello_parse(v9, sizeof(v9), v, sizeof(v), err,
					   sizeof(err)), -EBADMSG,
		   "mysql: protocol 9 refused");
	TAP_EQ_INT(ident_mysql_hello_parse(nonul, sizeof(nonul), v, sizeof(v),
					   err, sizeof(err)), -EBADMSG,
		   "mysql: a version without its NUL refused");
}

static void test_target(void)
{
	struct ident_target t;

	ident_target_init(&t, "10.0.0.1");
	tap_ok(t.http_port == 80 && t.sql_port == 3306 && t.smtp_port == 25 &&
	       t.timeout_ms == 5000 && !t.sql_user,
	       "target: the suite's ports, a 5 s deadline, no account");
}

int main(void)
{
	test_http();
	test_http_limits();
	test_smtp();
	test_smtp_limits();
	test_mysql();
	test_target();
	return tap_done();
}
