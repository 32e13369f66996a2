/* ident/ident_parse.c: strict parsers of what a foreign server says first
 * (ident_parse.h).  Every loop is bounded by the buffer and the limits in
 * the header; nothing is allocated. */
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <strings.h>

#include "ident/ident_parse.h"
#include "lib/util.h"

/* RFC 9110 token characters (header names). */
static int ident_tchar(unsigned char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
	       (c >= 'A' && c <= 'Z') || (c && strchr("!#$%&'*+-.^_`|~", c));
}

/* Field-value characters: visible ASCII, SP, HTAB and obs-text. */
static int ident_vchar(unsigned char c)
{
	return c == '\t' || (c >= 0x20 && c != 0x7f);
}

/* Copies s[0..n) into dst (cap bytes) without the surrounding blanks,
 * cut to fit, NUL-terminated. */
static void ident_copy(char *dst, size_t cap, const char *s, size_t n)
{
	while (n && (*s == ' ' || *s == '\t'))
		s++, n--;
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
		n--;
	if (n >= cap)
		n = cap - 1;
	memcpy(dst, s, n);
	dst[n] = '\0';
}

/* "HTTP/1.x NNN[ reason]" (n bytes, no CRLF) into h. */
static int ident_status_line(const char *p, size_t n,
			     struct ident_http_head *h, char *err,
			     size_t errlen)
{
	size_t i;

	if (n < 12 || memcmp(p, "HTTP/1.", 7) != 0 || p[7] < '0' ||
	    p[7] > '9' || p[8] != ' ' || p[9] < '1' || p[9] > '5' ||
	    p[10] < '0' || p[10] > '9' || p[11] < '0' || p[11] > '9' ||
	    (n > 12 && p[12] != ' '))
		return util_fail(err, errlen, -EBADMSG,
				 "not an HTTP/1.x status line");
	for (i = 12; i < n; i++)
		if (!ident_vchar((unsigned char)p[i]))
			return util_fail(err, errlen, -EBADMSG,
					 "control character in the status line");
	h->minor = p[7] - '0';
	h->status = (p[9] - '0') * 100 + (p[10] - '0') * 10 + (p[11] - '0');
	return 0;
}

/* Content-Length's value (n bytes): digits only, one value per head. */
static int ident_content_length(const char *v, size_t n,
				struct ident_http_head *h, char *err,
				size_t errlen)
{
	long long x = 0;
	size_t i;

	if (n == 0 || n > 15)
		return util_fail(err, errlen, -EBADMSG,
				 "Content-Length of %zu digits", n);
	for (i = 0; i < n; i++) {
		if (v[i] < '0' || v[i] > '9')
			return util_fail(err, errlen, -EBADMSG,
					 "Content-Length is not a number");
		x = x * 10 + (v[i] - '0');
	}
	if (h->content_length >= 0 && h->content_length != x)
		return util_fail(err, errlen, -EBADMSG,
				 "two different Content-Length values");
	h->content_length = x;
	return 0;
}

/* One header line (n bytes, no CRLF). */
static int ident_header_line(const char *p, size_t n,
			     struct ident_http_head *h, char *err,
			     size_t errlen)
{
	const char *colon = memchr(p, ':', n), *v;
	size_t nl, vl, i;

	if (p[0] == ' ' || p[0] == '\t')
		return util_fail(err, errlen, -EBADMSG,
				 "folded header line (obsolete)");
	if (!colon || colon == p)
		return util_fail(err, errlen, -EBADMSG,
				 "header line without a name and a colon");
	nl = (size_t)(colon - p);
	for (i = 0; i < nl; i++)
		if (!ident_tchar((unsigned char)p[i]))
			return util_fail(err, errlen, -EBADMSG,
					 "bad character in a header name");
	v = colon + 1;
	vl = n - nl - 1;
	for (i = 0; i < vl; i++)
		if (!ident_vchar((unsigned char)v[i]))
			return util_fail(err, errlen, -EBADMSG,
					 "control character in a header value");
	while (vl && (*v == ' ' || *v == '\t'))
		v++, vl--;
	while (vl && (v[vl - 1] == ' ' || v[vl - 1] == '\t'))
		vl--;
	if (nl == 6 && strncasecmp(p, "server", 6) == 0 && !h->server[0])
		ident_copy(h->server, sizeof(h->server), v, vl);
	else if (nl == 15 && strncasecmp(p, "x-benchboot-cgi", 15) == 0)
		ident_copy(h->cgi, sizeof(h->cgi), v, vl);
	else if (nl == 14 && strncasecmp(p, "content-length", 14) == 0)
		return ident_content_length(v, vl, h, err, errlen);
	return 0;
}

int ident_http_head_parse(const char *buf, size_t len,
			  struct ident_http_head *h, char *err, size_t errlen)
{
	size_t lim = len < IDENT_HEAD_MAX ? len : IDENT_HEAD_MAX, off = 0, n;
	const char *eol;
	int rc, line;

	memset(h, 0, sizeof(*h));
	h->content_length = -1;
	for (line = 1;; line++) {
		eol = memchr(buf + off, '\n', lim - off);
		if (!eol) {
			/* The line so far may still end in its CR. */
			if (lim - off > IDENT_HLINE_MAX + 1)
				return util_fail(err, errlen, -EBADMSG,
						 "line %d longer than %d bytes",
						 line, IDENT_HLINE_MAX);
			if (len >= IDENT_HEAD_MAX)
				return util_fail(err, errlen, -EBADMSG,
						 "head longer than %d bytes",
						 IDENT_HEAD_MAX);
			return 0;
		}
		n = (size_t)(eol - (buf + off));
		if (n == 0 || eol[-1] != '\r')
			return util_fail(err, errlen, -EBADMSG,
					 "line %d ends without CR LF", line);
		n--;
		if (n > IDENT_HLINE_MAX)
			return util_fail(err, errlen, -EBADMSG,
					 "line %d longer than %d bytes", line,
					 IDENT_HLINE_MAX);
		if (line == 1)
			rc = ident_status_line(buf + off, n, h, err, errlen);
		else if (n == 0)
			break;
		else
			rc = ident_header_line(buf + off, n, h, err, errlen);
		if (rc != 0)
			return rc;
		off += n + 2;
	}
	h->head_len = off + 2;
	return 1;
}

/* One reply line's code and separator: p[0..n) without CRLF. */
static int ident_smtp_line(const char *p, size_t n, int *code, char *sep,
			   char *err, size_t errlen)
{
	size_t i;

	if (n < 3 || p[0] < '2' || p[0] > '5' || p[1] < '0' || p[1] > '5' ||
	    p[2] < '0' || p[2] > '9')
		return util_fail(err, errlen, -EBADMSG,
				 "reply line without a code 200..559");
	*sep = n == 3 ? ' ' : p[3];
	if (*sep != ' ' && *sep != '-')
		return util_fail(err, errlen, -EBADMSG,
				 "reply code followed by '%c', not ' ' or '-'",
				 (unsigned char)*sep >= 0x20 &&
				 (unsigned char)*sep < 0x7f ? *sep : '?');
	for (i = 4; i < n; i++)
		if (p[i] != '\t' && (p[i] < 0x20 || p[i] > 0x7e))
			return util_fail(err, errlen, -EBADMSG,
					 "reply text is not printable ASCII");
	*code = (p[0] - '0') * 100 + (p[1] - '0') * 10 + (p[2] - '0');
	return 0;
}

int ident_smtp_reply_parse(const char *buf, size_t len,
			   struct ident_smtp_reply *r, char *err,
			   size_t errlen)
{
	size_t off = 0, rest, lim, n;
	const char *eol;
	int line, code = 0, rc;
	char sep = 0;

	memset(r, 0, sizeof(*r));
	for (line = 0; line < IDENT_SMTP_LINES; line++) {
		rest = len - off;
		lim = rest < IDENT_SMTP_LINE_MAX ? rest : IDENT_SMTP_LINE_MAX;
		eol = memchr(buf + off, '\n', lim);
		if (!eol) {
			if (rest >= IDENT_SMTP_LINE_MAX)
				return util_fail(err, errlen, -EBADMSG,
						 "reply line longer than %d bytes",
						 IDENT_SMTP_LINE_MAX);
			return 0;
		}
		n = (size_t)(eol - (buf + off));
		if (n == 0 || eol[-1] != '\r')
			return util_fail(err, errlen, -EBADMSG,
					 "reply line %d ends without CR LF",
					 line + 1);
		n--;
		rc = ident_smtp_line(buf + off, n, &code, &sep, err, errlen);
		if (rc != 0)
			return rc;
		if (line > 0 && code != r->code)
			return util_fail(err, errlen, -EBADMSG,
					 "reply codes %d and %d in one reply",
					 r->code, code);
		r->code = code;
		if (line == 0)
			ident_copy(r->text, sizeof(r->text), buf + off + 4,
				   n > 4 ? n - 4 : 0);
		else if (r->n_ext < IDENT_EXT_MAX)
			ident_copy(r->ext[r->n_ext++], IDENT_EXT_LEN,
				   buf + off + 4, n > 4 ? n - 4 : 0);
		off += n + 2;
		if (sep == ' ') {
			r->len = off;
			return 1;
		}
	}
	return util_fail(err, errlen, -EBADMSG,
			 "reply of more than %d lines", IDENT_SMTP_LINES);
}

/* An error packet's message (after the 0xff, code and '#SQLSTATE'). */
static int ident_mysql_err(const unsigned char *p, size_t n, char *err,
			   size_t errlen)
{
	char msg[IDENT_TEXT_MAX];
	size_t i, o = 0, skip = 3;

	if (n > 3 && p[3] == '#')
		skip = 9;
	for (i = skip; i < n && o + 1 < sizeof(msg); i++)
		msg[o++] = p[i] >= 0x20 && p[i] < 0x7f ? (char)p[i] : '?';
	msg[o] = '\0';
	return util_fail(err, errlen, -EPROTO, "server refused: %s", msg);
}

int ident_mysql_hello_parse(const unsigned char *buf, size_t len,
			    char *version, size_t vlen, char *err,
			    size_t errlen)
{
	const unsigned char *p = buf + 4, *nul;
	size_t n, i, vl;

	if (len < 4)
		return 0;
	n = buf[0] | (size_t)buf[1] << 8 | (size_t)buf[2] << 16;
	if (n == 0 || n > 4096)
		return util_fail(err, errlen, -EBADMSG,
				 "handshake packet of %zu bytes", n);
	if (len < 4 + n)
		return 0;
	if (p[0] == 0xff)
		return ident_mysql_err(p, n, err, errlen);
	if (p[0] != 10)
		return util_fail(err, errlen, -EBADMSG,
				 "handshake protocol %u, not 10", p[0]);
	nul = memchr(p + 1, 0, n - 1);
	if (!nul || nul == p + 1)
		return util_fail(err, errlen, -EBADMSG,
				 "no version string in the handshake");
	vl = (size_t)(nul - (p + 1));
	for (i = 0; i < vl; i++)
		if (p[1 + i] < 0x20 || p[1 + i] > 0x7e)
			return util_fail(err, errlen, -EBADMSG,
					 "version string is not printable");
	if (vlen == 0)
		return 1;
	if (vl >= vlen)
		vl = vlen - 1;
	memcpy(version, p + 1, vl);
	version[vl] = '\0';
	return 1;
}
