/* test_smtp_proto.c: the SMTP reply parser (whole and split at every
 * byte), the sink's command parser, the DATA scanner and the message. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "load/smtp/smtp_proto.h"
#include "tap.h"

struct reply_case {
	const char *in;
	int rc;			/* 1 complete, 0 incomplete, -EPROTO */
	int code;
	unsigned lines, ext;
	size_t used;		/* 0: all of in */
};

static const struct reply_case reply_cases[] = {
	{ "220 mx.example ESMTP\r\n", 1, 220, 1, 0, 0 },
	{ "250\r\n", 1, 250, 1, 0, 0 },
	{ "250-mx.example\r\n250-PIPELINING\r\n250-SIZE 10240000\r\n"
	  "250-8BITMIME\r\n250 CHUNKING\r\n", 1, 250, 5,
	  SMTP_EXT_PIPELINING | SMTP_EXT_SIZE | SMTP_EXT_8BITMIME |
	  SMTP_EXT_CHUNKING, 0 },
	{ "250-mx\r\n250-pipelining\r\n250 DSN\r\n", 1, 250, 3,
	  SMTP_EXT_PIPELINING, 0 },
	/* The greeting line's first word is the host, not a keyword. */
	{ "250-PIPELINING\r\n250 OK\r\n", 1, 250, 2, 0, 0 },
	{ "250-x\r\n250 PIPELININGX\r\n", 1, 250, 2, 0, 0 },
	{ "250-x\r\n250 PIPELININGPIPELINING\r\n", 1, 250, 2, 0, 0 },
	{ "354 go ahead\r\n250 next", 1, 354, 1, 0, 14 },
	{ "421 4.3.0 closing\r\n", 1, 421, 1, 0, 0 },
	{ "554 5.7.1 rejected\r\n", 1, 554, 1, 0, 0 },
	{ "250-first\r\n250 ", 0, 0, 0, 0, 0 },
	{ "", 0, 0, 0, 0, 0 },
	{ "250 ok\r", 0, 0, 0, 0, 0 },
	{ "150 no\r\n", -EPROTO, 0, 0, 0, 0 },
	{ "650 no\r\n", -EPROTO, 0, 0, 0, 0 },
	{ "260 no\r\n", -EPROTO, 0, 0, 0, 0 },
	{ "25x no\r\n", -EPROTO, 0, 0, 0, 0 },
	{ "25 no\r\n", -EPROTO, 0, 0, 0, 0 },
	{ "250_ok\r\n", -EPROTO, 0, 0, 0, 0 },
	{ "250 ok\n", -EPROTO, 0, 0, 0, 0 },
	{ "250 o\rk\r\n", -EPROTO, 0, 0, 0, 0 },
	{ "250-a\r\n251 b\r\n", -EPROTO, 0, 0, 0, 0 },
	{ "HTTP/1.1 400 Bad Request\r\n", -EPROTO, 0, 0, 0, 0 },
};

/* The first line of s with CR/LF shown, for a TAP description. */
static const char *printable(const char *s)
{
	static char buf[64];
	size_t o = 0;

	for (; *s && o < sizeof(buf) - 4; s++) {
		if (*s == '\r' || *s == '\n') {
			buf[o++] = '\\';
			buf[o++] = *s == '\r' ? 'r' : 'n';
		} else {
			buf[o++] = *s;
		}
	}
	buf[o] = 0;
	return buf;
}

static int feed_split(const struct reply_case *c, struct smtp_reply *r,
		      size_t step, size_t *total)
{
	size_t len = strlen(c->in), off = 0, used;
	int rc = 0;

	smtp_reply_init(r);
	*total = 0;
	while (off < len) {
		size_t n = len - off < step ? len - off : step;

		rc = smtp_reply_feed(r, c->in + off, n, &used);
		if (rc != 0) {
			*total = off + (rc > 0 ? used : 0);
			return rc;
		}
		off += n;
	}
	*total = off;
	return rc;
}

static void test_replies(void)
{
	size_t i, step;

	for (i = 0; i < sizeof(reply_cases) / sizeof(reply_cases[0]); i++) {
		const struct reply_case *c = &reply_cases[i];
		size_t want_used = c->used ? c->used : strlen(c->in);
		int all_ok = 1;

		for (step = 1; step <= strlen(c->in) + 1; step++) {
			struct smtp_reply r;
			size_t used;
			int rc = feed_split(c, &r, step, &used);

			if (rc != c->rc || (rc == 1 && (r.code != c->code ||
			    r.lines != c->lines || r.ext != c->ext ||
			    used != want_used)) || (rc == -EPROTO && !r.err)) {
				printf("# step %zu: rc %d code %d lines %u "
				       "ext %#x used %zu\n", step, rc, r.code,
				       r.lines, r.ext, used);
				all_ok = 0;
				break;
			}
		}
		tap_ok(all_ok, "reply %zu \"%s\" -> %d/%d, any split",
		       i, printable(c->in), c->rc, c->code);
	}
}

static void test_reply_line_max(void)
{
	char line[SMTP_LINE_MAX + 16];
	struct smtp_reply r;
	size_t used;
	int n;

	n = snprintf(line, sizeof(line), "250 ");
	memset(line + n, 'a', SMTP_LINE_MAX - n - 2);
	memcpy(line + SMTP_LINE_MAX - 2, "\r\n", 2);
	smtp_reply_init(&r);
	TAP_EQ_INT(smtp_reply_feed(&r, line, SMTP_LINE_MAX, &used), 1,
		   "reply line of exactly SMTP_LINE_MAX bytes accepted");
	line[SMTP_LINE_MAX - 2] = 'a';
	memcpy(line + SMTP_LINE_MAX - 1, "\r\n", 2);
	smtp_reply_init(&r);
	TAP_EQ_INT(smtp_reply_feed(&r, line, SMTP_LINE_MAX + 1, &used),
		   -EPROTO, "reply line one byte longer rejected");
	TAP_EQ_INT(smtp_reply_feed(&r, "250 ok\r\n", 8, &used), -EPROTO,
		   "failed parser stays failed until init");
}

struct cmd_case {
	const char *in;
	int verb;
	const char *arg;
};

static const struct cmd_case cmd_cases[] = {
	{ "EHLO client.example", SMTP_V_EHLO, "client.example" },
	{ "helo x", SMTP_V_HELO, "x" },
	{ "EHLO", -EINVAL, NULL },
	{ "MAIL FROM:<a@b>", SMTP_V_MAIL, "<a@b>" },
	{ "mail from: <a@b> SIZE=10", SMTP_V_MAIL, "<a@b> SIZE=10" },
	{ "MAIL FROM:<>", SMTP_V_MAIL, "<>" },
	{ "MAIL TO:<a@b>", -EINVAL, NULL },
	{ "MAIL FROM:a@b", -EINVAL, NULL },
	{ "MAIL", -EINVAL, NULL },
	{ "RCPT TO:<u@d>", SMTP_V_RCPT, "<u@d>" },
	{ "RCPT TO:", -EINVAL, NULL },
	{ "DATA", SMTP_V_DATA, "" },
	{ "DATA x", -EINVAL, NULL },
	{ "RSET", SMTP_V_RSET, "" },
	{ "NOOP", SMTP_V_NOOP, "" },
	{ "NOOP hello", SMTP_V_NOOP, "hello" },
	{ "QUIT", SMTP_V_QUIT, "" },
	{ "VRFY u", SMTP_V_VRFY, "u" },
	{ "DATAX", SMTP_V_UNKNOWN, "DATAX" },
	{ "STARTTLS", SMTP_V_UNKNOWN, "STARTTLS" },
	{ "", SMTP_V_UNKNOWN, "" },
	{ "GET / HTTP/1.0", SMTP_V_UNKNOWN, "GET / HTTP/1.0" },
};

static void test_cmds(void)
{
	size_t i;

	for (i = 0; i < sizeof(cmd_cases) / sizeof(cmd_cases[0]); i++) {
		const struct cmd_case *c = &cmd_cases[i];
		const char *arg;
		size_t alen;
		int v = smtp_cmd_parse(c->in, strlen(c->in), &arg, &alen);
		int ok = v == c->verb;

		if (ok && c->arg)
			ok = alen == strlen(c->arg) &&
			     memcmp(arg, c->arg, alen) == 0;
		tap_ok(ok, "command \"%s\" -> %d", c->in, c->verb);
		if (!ok)
			printf("#   got %d \"%.*s\"\n", v, (int)alen, arg);
	}
	TAP_EQ_INT(smtp_cmd_parse("NOOP\0x", 6, &(const char *){0},
				  &(size_t){0}), -EINVAL,
		   "command with a NUL byte rejected");
}

/* Scans in pieces of step bytes, keeping undecided bytes as a server's
 * input buffer does; returns the content and where the marker ended. */
static int data_scan_split(const char *in, size_t len, size_t step,
			   char *content, size_t *clen, size_t *end)
{
	struct smtp_data d;
	char buf[256];
	size_t have = 0, off = 0, out;

	smtp_data_init(&d);
	*clen = 0;
	while (!d.done) {
		size_t n, used;

		if (off == len)
			return -1;
		n = len - off < step ? len - off : step;
		memcpy(buf + have, in + off, n);
		off += n;
		have += n;
		used = smtp_data_scan(&d, buf, have, 1, &out);
		memcpy(content + *clen, buf, out);
		*clen += out;
		memmove(buf, buf + used, have - used);
		have -= used;
	}
	*end = off - have;
	return 0;
}

static void test_data(void)
{
	static const struct {
		const char *in, *content;
		size_t end;
	} cases[] = {
		{ "a\r\nb\r\n.\r\nQUIT\r\n", "a\r\nb\r\n", 9 },
		{ ".\r\n", "", 3 },
		{ "..\r\n.\r\n", ".\r\n", 7 },
		{ "..x\r\n.y\r\n.\r\n", ".x\r\ny\r\n", 12 },
		{ "x.\r\n.\r\n", "x.\r\n", 7 },
		{ "\r\n.\r\n", "\r\n", 5 },
		{ "a\r\n.\rb\r\n.\r\n", "a\r\n\rb\r\n", 11 },
	};
	size_t i, step;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int ok = 1;

		for (step = 1; step <= 16 && ok; step++) {
			char content[256];
			size_t clen = 0, end = 0;

			if (data_scan_split(cases[i].in, strlen(cases[i].in),
					    step, content, &clen, &end) != 0 ||
			    end != cases[i].end ||
			    clen != strlen(cases[i].content) ||
			    memcmp(content, cases[i].content, clen) != 0) {
				printf("# step %zu: clen %zu end %zu\n",
				       step, clen, end);
				ok = 0;
			}
		}
		tap_ok(ok, "data scan case %zu, any split", i);
	}
}

static void test_message(void)
{
	char *w, *w2, *raw;
	size_t wl, wl2, out, used, i, text_bytes = 0;
	struct smtp_data d;
	int bare_lf = 0;
	const char *t, *a;

	TAP_EQ_INT(smtp_msg_default("a@b", "c@d,e@f", &w, &wl), 0,
		   "default message built");
	TAP_EQ_INT(smtp_msg_default("a@b", "c@d,e@f", &w2, &wl2), 0,
		   "default message built twice");
	tap_ok(wl == wl2 && memcmp(w, w2, wl) == 0,
	       "default message is deterministic (%zu bytes)", wl);
	for (i = 0; i < wl; i++)
		if (w[i] == '\n' && (i == 0 || w[i - 1] != '\r'))
			bare_lf = 1;
	tap_ok(!bare_lf, "wire form has no bare LF");
	tap_ok(wl > 5 && memcmp(w + wl - 5, "\r\n.\r\n", 5) == 0,
	       "wire form ends with CRLF.CRLF");
	smtp_data_init(&d);
	raw = malloc(wl);
	memcpy(raw, w, wl);
	used = smtp_data_scan(&d, raw, wl, 1, &out);
	tap_ok(d.done && used == wl, "the sink's scanner ends exactly at the "
	       "marker");
	/* The text part: its body runs from the blank line after its
	 * headers to the next boundary line. */
	t = strstr(w, "Content-Transfer-Encoding: 7bit\r\n\r\n");
	a = strstr(w, "\r\n--bb-0001\r\nContent-Type: application");
	if (t && a) {
		t += strlen("Content-Transfer-Encoding: 7bit\r\n\r\n");
		for (; t < a + 2; t++)
			text_bytes += *t != '\r';
	}
	TAP_EQ_INT(text_bytes, SMTP_MSG_TEXT_BYTES, "text part size");
	t = a ? strstr(a, "filename=\"data.bin\"\r\n\r\n") : NULL;
	a = t ? strstr(t, "\r\n--bb-0001--") : NULL;
	text_bytes = 0;
	if (t && a)
		for (t += strlen("filename=\"data.bin\"\r\n\r\n"); t < a; t++)
			text_bytes += *t != '\r' && *t != '\n';
	TAP_EQ_INT(text_bytes, SMTP_MSG_ATTACH_B64, "base64 attachment size");
	free(raw);
	free(w);
	free(w2);

	TAP_EQ_INT(smtp_msg_wire("a\n.b\nc", 6, &w, &wl), 0, "wire form of "
		   "a raw message");
	tap_ok(wl == 14 && memcmp(w, "a\r\n..b\r\nc\r\n.\r\n", 14) == 0,
	       "LF to CRLF, dot stuffing, marker");
	free(w);
	TAP_EQ_INT(smtp_msg_wire("a\rb\n", 4, &w, &wl), -EINVAL,
		   "bare CR in a message file rejected");
	TAP_EQ_INT(smtp_msg_wire("a\0b\n", 4, &w, &wl), -EINVAL,
		   "NUL in a message file rejected");
}

int main(void)
{
	test_replies();
	test_reply_line_max();
	test_cmds();
	test_data();
	test_message();
	return tap_done();
}
