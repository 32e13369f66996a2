/* ident/ident_parse.h: the strict, bounded parsers behind `benchboot ident`
 * (ident.h): an HTTP response head, an SMTP reply (the banner, EHLO's
 * extensions) and a MySQL/MariaDB initial handshake.  They read what a
 * server we do not control sends, so every line and the whole message
 * have a size limit, anything outside the grammar is an error (never a
 * guess), and the fields kept are copied into fixed arrays.  Pure code: no
 * I/O, no allocation (fuzzed by payload/tests/fuzz/fuzz_ident.c). */
#ifndef BB_IDENT_PARSE_H
#define BB_IDENT_PARSE_H

#include <stddef.h>

#define IDENT_HEAD_MAX 16384	/* an HTTP head, status line to blank line */
#define IDENT_HLINE_MAX 8192	/* one HTTP header line */
#define IDENT_SMTP_LINE_MAX 512	/* RFC 5321 4.5.3.1.5, CRLF included */
#define IDENT_SMTP_LINES 64	/* lines in one reply */
#define IDENT_TEXT_MAX 256	/* a kept text (longer ones are cut) */
#define IDENT_EXT_MAX 32	/* EHLO extensions kept */
#define IDENT_EXT_LEN 64	/* one kept extension line */

struct ident_http_head {
	int minor;			/* HTTP/1.minor */
	int status;			/* 100..599 */
	char server[IDENT_TEXT_MAX];	/* Server:, "" when absent */
	char cgi[32];			/* X-Benchboot-CGI:, "" when absent */
	long long content_length;	/* -1 when absent */
	size_t head_len;		/* bytes up to the blank line's end */
};

/* Parses the response head at the start of buf (len bytes).  Returns 1
 * when it is complete (h filled), 0 when more bytes are needed (len below
 * IDENT_HEAD_MAX and nothing wrong so far), -EBADMSG when it is malformed
 * or too long (the reason in err).  Strict: "HTTP/1.x NNN reason" with
 * CRLF line ends, header names of token characters, no folded lines, no
 * control characters, one Content-Length. */
int ident_http_head_parse(const char *buf, size_t len,
			  struct ident_http_head *h, char *err, size_t errlen);

struct ident_smtp_reply {
	int code;			/* 200..599, the same on every line */
	char text[IDENT_TEXT_MAX];	/* the first line's text */
	unsigned n_ext;			/* lines after the first (kept ones) */
	char ext[IDENT_EXT_MAX][IDENT_EXT_LEN];	/* their texts (EHLO) */
	size_t len;			/* bytes the reply took */
};

/* Parses one SMTP reply ("NNN-text" lines ending with "NNN text") at the
 * start of buf.  Returns 1 when complete (r filled), 0 when more bytes are
 * needed, -EBADMSG when malformed (err says why): a code out of 200..599
 * or differing between lines, a line without CRLF within
 * IDENT_SMTP_LINE_MAX, a control character, more than IDENT_SMTP_LINES
 * lines.  Texts longer than the arrays are cut; extensions past
 * IDENT_EXT_MAX are not kept. */
int ident_smtp_reply_parse(const char *buf, size_t len,
			   struct ident_smtp_reply *r, char *err,
			   size_t errlen);

/* Parses a MySQL protocol-10 initial handshake packet (the 4-byte header
 * included) at the start of buf: the server's version string into version
 * (vlen bytes, NUL-terminated).  Returns 1 when done, 0 when more bytes
 * are needed, -EBADMSG when it is not a protocol-10 handshake or the
 * version is not printable ASCII within the packet, -EPROTO for an error
 * packet (0xff: the server refused us, its message in err). */
int ident_mysql_hello_parse(const unsigned char *buf, size_t len,
			    char *version, size_t vlen, char *err,
			    size_t errlen);

#endif
