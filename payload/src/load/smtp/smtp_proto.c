/* load/smtp/smtp_proto.c: SMTP reply and command parsing, the DATA scanner and the
 * deterministic benchmark message.  No I/O, so it can be fuzzed alone. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "load/smtp/smtp_proto.h"

enum { ST_D1, ST_D2, ST_D3, ST_SEP, ST_TEXT, ST_CR };

void smtp_reply_init(struct smtp_reply *r)
{
	memset(r, 0, sizeof(*r));
}

/* Called at the end of line 2.. of a reply: EHLO lists one extension per
 * line, keyword first. */
static void reply_keyword(struct smtp_reply *r)
{
	static const struct { const char *kw; unsigned bit; } exts[] = {
		{ "PIPELINING", SMTP_EXT_PIPELINING },
		{ "8BITMIME", SMTP_EXT_8BITMIME },
		{ "SIZE", SMTP_EXT_SIZE },
		{ "CHUNKING", SMTP_EXT_CHUNKING },
	};
	size_t i;

	if (r->kwlen == 0 || r->kwlen > sizeof(r->kw))
		return;
	for (i = 0; i < sizeof(exts) / sizeof(exts[0]); i++)
		if (strlen(exts[i].kw) == r->kwlen &&
		    strncasecmp(exts[i].kw, r->kw, r->kwlen) == 0)
			r->ext |= exts[i].bit;
}

static int reply_fail(struct smtp_reply *r, const char *why)
{
	r->err = why;
	r->state = ST_CR + 1;	/* stuck until smtp_reply_init() */
	return -EPROTO;
}

/* One digit of a line's reply code (states ST_D1..ST_D3); every line of
 * a reply must carry the first line's code. */
static int reply_code_digit(struct smtp_reply *r, unsigned char c)
{
	switch (r->state) {
	case ST_D1:
		if (c < '2' || c > '5')
			return reply_fail(r,
					  "reply code does not start with 2-5");
		r->kwlen = 0;
		r->kwdone = 0;
		r->lcode = (c - '0') * 100;
		r->state = ST_D2;
		return 0;
	case ST_D2:
		if (c < '0' || c > '5')
			return reply_fail(r,
					  "reply code's second digit is not 0-5");
		r->lcode += (c - '0') * 10;
		r->state = ST_D3;
		return 0;
	default:
		if (c < '0' || c > '9')
			return reply_fail(r,
					  "reply code's third digit is not 0-9");
		r->lcode += c - '0';
		if (r->cur == 0)
			r->cur = r->lcode;
		else if (r->cur != r->lcode)
			return reply_fail(r,
					  "continuation line has another reply code");
		r->state = ST_SEP;
		return 0;
	}
}

int smtp_reply_feed(struct smtp_reply *r, const char *buf, size_t len,
		    size_t *used)
{
	size_t i;
	int rc;

	if (r->state > ST_CR)
		return reply_fail(r, r->err ? r->err : "parser failed");
	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)buf[i];

		if (++r->linelen > SMTP_LINE_MAX)
			return reply_fail(r,
					  "reply line longer than 1000 bytes");
		switch (r->state) {
		case ST_D1:
		case ST_D2:
		case ST_D3:
			rc = reply_code_digit(r, c);
			if (rc != 0)
				return rc;
			break;
		case ST_SEP:
			if (c == ' ') {
				r->last = 1;
				r->state = ST_TEXT;
			} else if (c == '-') {
				r->last = 0;
				r->state = ST_TEXT;
			} else if (c == '\r') {
				r->last = 1;
				r->state = ST_CR;
			} else {
				return reply_fail(r,
						  "reply code not followed by ' ', '-' or CRLF");
			}
			break;
		case ST_TEXT:
			if (c == '\r') {
				r->state = ST_CR;
			} else if (c == '\n') {
				return reply_fail(r, "bare LF in reply");
			} else if (!r->kwdone) {
				/* First word only (EHLO keyword). */
				if (c == ' ')
					r->kwdone = 1;
				else if (r->kwlen < sizeof(r->kw))
					r->kw[r->kwlen++] = (char)c;
				else
					r->kwlen = sizeof(r->kw) + 1;
			}
			break;
		case ST_CR:
			if (c != '\n')
				return reply_fail(r, "bare CR in reply");
			if (r->lines++ > 0)
				reply_keyword(r);
			r->linelen = 0;
			r->kwlen = 0;
			r->state = ST_D1;
			if (r->last) {
				r->code = r->cur;
				*used = i + 1;
				return 1;
			}
			break;
		}
	}
	*used = len;
	return 0;
}

int smtp_cmd_parse(const char *line, size_t len, const char **arg,
		   size_t *arglen)
{
	static const struct { const char *name; int verb; } verbs[] = {
		{ "HELO", SMTP_V_HELO }, { "EHLO", SMTP_V_EHLO },
		{ "MAIL", SMTP_V_MAIL }, { "RCPT", SMTP_V_RCPT },
		{ "DATA", SMTP_V_DATA }, { "RSET", SMTP_V_RSET },
		{ "NOOP", SMTP_V_NOOP }, { "QUIT", SMTP_V_QUIT },
		{ "VRFY", SMTP_V_VRFY },
	};
	const char *p, *end = line + len;
	int verb = SMTP_V_UNKNOWN;
	size_t i;

	*arg = end;
	*arglen = 0;
	if (memchr(line, '\0', len))
		return -EINVAL;
	if (len >= 4 && (len == 4 || line[4] == ' '))
		for (i = 0; i < sizeof(verbs) / sizeof(verbs[0]); i++)
			if (strncasecmp(line, verbs[i].name, 4) == 0)
				verb = verbs[i].verb;
	p = len > 4 ? line + 5 : end;
	switch (verb) {
	case SMTP_V_MAIL:
	case SMTP_V_RCPT: {
		const char *kw = verb == SMTP_V_MAIL ? "FROM:" : "TO:";
		size_t kl = strlen(kw);

		if ((size_t)(end - p) < kl || strncasecmp(p, kw, kl) != 0)
			return -EINVAL;
		p += kl;
		/* A space after the colon: tolerated, as Postfix does. */
		while (p < end && *p == ' ')
			p++;
		if (p == end || *p != '<')
			return -EINVAL;
		break;
	}
	case SMTP_V_HELO:
	case SMTP_V_EHLO:
		if (p >= end)
			return -EINVAL;
		break;
	case SMTP_V_DATA:
	case SMTP_V_RSET:
	case SMTP_V_QUIT:
		if (len != 4)
			return -EINVAL;
		break;
	case SMTP_V_UNKNOWN:
		p = line;	/* the whole line, for the error message */
		break;
	default:
		break;
	}
	if (p > end)
		p = end;
	*arg = p;
	*arglen = (size_t)(end - p);
	return verb;
}

void smtp_data_init(struct smtp_data *d)
{
	d->bol = 1;
	d->done = 0;
}

size_t smtp_data_scan(struct smtp_data *d, char *buf, size_t len,
		      int unstuff, size_t *outlen)
{
	size_t i = 0, o = 0, end;
	char *nl;

	while (i < len && !d->done) {
		if (d->bol && buf[i] == '.') {
			/* Undecided until we see what follows the dot. */
			if (len - i < 2 || (buf[i + 1] == '\r' && len - i < 3))
				break;
			if (buf[i + 1] == '\r' && buf[i + 2] == '\n') {
				i += 3;
				d->done = 1;
				break;
			}
			i++;	/* a stuffing dot */
		}
		d->bol = 0;
		nl = memchr(buf + i, '\n', len - i);
		end = nl ? (size_t)(nl - buf) + 1 : len;
		if (unstuff && o != i)
			memmove(buf + o, buf + i, end - i);
		o += end - i;
		i = end;
		if (nl)
			d->bol = 1;
	}
	*outlen = o;
	return i;
}

int smtp_msg_wire(const char *raw, size_t rawlen, char **out,
		  size_t *outlen)
{
	size_t i, o = 0, cap = 0;
	int bol = 1;
	char *w;

	/* Worst case: every byte an LF (2 each) or a line-leading dot (2
	 * each), plus a final CRLF and the marker. */
	cap = rawlen * 2 + 5;
	w = malloc(cap);
	if (!w)
		return -ENOMEM;
	for (i = 0; i < rawlen; i++) {
		char c = raw[i];

		if (c == '\0' || (c == '\r' && (i + 1 == rawlen ||
						raw[i + 1] != '\n'))) {
			free(w);
			return -EINVAL;
		}
		if (c == '\r')
			continue;	/* the LF that follows writes CRLF */
		if (bol && c == '.')
			w[o++] = '.';
		if (c == '\n') {
			w[o++] = '\r';
			w[o++] = '\n';
			bol = 1;
		} else {
			w[o++] = c;
			bol = 0;
		}
	}
	if (!bol) {
		w[o++] = '\r';
		w[o++] = '\n';
	}
	memcpy(w + o, ".\r\n", 3);
	o += 3;
	*out = w;
	*outlen = o;
	return 0;
}

/* xorshift64*: the message must be the same on every host and run. */
static uint64_t msg_rand(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 2685821657736338717ULL;
}

/* The text part at raw + *n: lines of up to 72 characters cut from a
 * stream of words drawn with *s, exactly SMTP_MSG_TEXT_BYTES bytes with
 * their LFs. */
static void msg_text(char *raw, size_t *n, uint64_t *s)
{
	static const char *const words[] = {
		"benchmark", "server", "client", "mail", "queue", "relay",
		"message", "latency", "throughput", "kernel", "network",
		"storage", "the", "of", "and", "a", "to", "in", "is", "for",
		"measured", "system", "under", "test", "seed", "Linux",
		"FreeBSD", "Solaris", "Windows", "Xserve", "Opteron",
	};
	char stream[128];
	size_t slen = 0, spos = 0, left, i;

	for (left = SMTP_MSG_TEXT_BYTES; left > 0;) {
		size_t ll = left - 1 < 72 ? left - 1 : 72;

		for (i = 0; i < ll; i++) {
			if (spos == slen) {
				const char *w = words[msg_rand(s) %
					(sizeof(words) / sizeof(words[0]))];

				slen = (size_t)snprintf(stream, sizeof(stream),
							"%s ", w);
				spos = 0;
			}
			raw[(*n)++] = stream[spos++];
		}
		raw[(*n)++] = '\n';
		left -= ll + 1;
	}
}

/* The attachment at raw + *n: SMTP_MSG_ATTACH_B64 base64 characters of
 * bytes drawn with *s, in lines of 76. */
static void msg_attach(char *raw, size_t *n, uint64_t *s)
{
	static const char b64[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	/* 8500 base64 characters encode 6375 bytes exactly. */
	enum { ATTACH_RAW = SMTP_MSG_ATTACH_B64 / 4 * 3 };
	size_t i, col = 0;

	for (i = 0; i < ATTACH_RAW; i += 3) {
		uint64_t r = msg_rand(s);
		unsigned v = (unsigned)(r & 0xffffff);
		int k;

		for (k = 3; k >= 0; k--) {
			raw[(*n)++] = b64[(v >> (6 * k)) & 63];
			if (++col == 76) {
				raw[(*n)++] = '\n';
				col = 0;
			}
		}
	}
	if (col)
		raw[(*n)++] = '\n';
}

int smtp_msg_default(const char *from, const char *to, char **out,
		     size_t *outlen)
{
	size_t cap, n = 0;
	uint64_t s = 0x62656e6368626f6fULL;	/* "benchboo" */
	char *raw;
	int rc;

	cap = 1024 + strlen(from) + strlen(to) + SMTP_MSG_TEXT_BYTES +
	      SMTP_MSG_ATTACH_B64 + SMTP_MSG_ATTACH_B64 / 76 + 16;
	raw = malloc(cap);
	if (!raw)
		return -ENOMEM;
	n += (size_t)snprintf(raw + n, cap - n,
		"From: <%s>\n"
		"To: %s\n"
		"Subject: benchboot test message\n"
		"Date: Thu, 01 Jan 2026 00:00:00 +0000\n"
		"Message-ID: <benchboot.1@benchboot.invalid>\n"
		"MIME-Version: 1.0\n"
		"Content-Type: multipart/mixed; boundary=\"bb-0001\"\n"
		"\n"
		"This is a multi-part message in MIME format.\n"
		"\n"
		"--bb-0001\n"
		"Content-Type: text/plain; charset=us-ascii\n"
		"Content-Transfer-Encoding: 7bit\n"
		"\n", from, to);
	msg_text(raw, &n, &s);
	n += (size_t)snprintf(raw + n, cap - n,
		"--bb-0001\n"
		"Content-Type: application/octet-stream; name=\"data.bin\"\n"
		"Content-Transfer-Encoding: base64\n"
		"Content-Disposition: attachment; filename=\"data.bin\"\n"
		"\n");
	msg_attach(raw, &n, &s);
	n += (size_t)snprintf(raw + n, cap - n, "--bb-0001--\n");
	rc = smtp_msg_wire(raw, n, out, outlen);
	free(raw);
	return rc;
}
