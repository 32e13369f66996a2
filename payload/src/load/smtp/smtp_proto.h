/* load/smtp/smtp_proto.h: the SMTP wire format (RFC 5321) without any I/O: the
 * client's strict reply parser, the sink's command parser and DATA
 * scanner, and the benchmark message.  Pure functions, fuzzed. */
#ifndef BB_SMTP_PROTO_H
#define BB_SMTP_PROTO_H

#include <stddef.h>
#include <stdint.h>

/* Longest reply or command line accepted, CRLF included.  RFC 5321
 * allows 512 for replies and commands; real servers stay under it, and
 * a longer line means we are not talking to an SMTP peer. */
#define SMTP_LINE_MAX 1000

/* EHLO extensions the client cares about (bits of smtp_reply.ext). */
#define SMTP_EXT_PIPELINING 0x1u
#define SMTP_EXT_8BITMIME 0x2u
#define SMTP_EXT_SIZE 0x4u
#define SMTP_EXT_CHUNKING 0x8u

/* Incremental reply parser.  One per connection; state survives across
 * reads, so a reply split at any byte boundary parses the same. */
struct smtp_reply {
	int code;		/* the completed reply's code, 200..559 */
	unsigned lines;		/* its number of lines */
	unsigned ext;		/* SMTP_EXT_* keywords of lines 2.. */
	const char *err;	/* after -EPROTO: what was wrong (static) */
	/* parser state */
	int cur;		/* code of the reply being parsed, 0 at start */
	int lcode;		/* code of the line being parsed */
	int last;		/* the line being parsed is the last one */
	unsigned state;
	unsigned linelen;
	unsigned kwlen;		/* > sizeof(kw): word too long */
	int kwdone;		/* first word ended */
	char kw[12];		/* first word of the line, for EHLO */
};

/* Resets r to expect a new reply (no allocation). */
void smtp_reply_init(struct smtp_reply *r);

/* Feeds len bytes of server output.  Returns 1 when a reply completed;
 * *used is then the number of bytes it took (the rest belongs to the next
 * reply: call smtp_reply_init() and feed it again) and r->code, r->lines
 * and r->ext describe it.  Returns 0 when every byte was taken and the
 * reply is not complete yet (*used == len).  Returns -EPROTO for anything
 * RFC 5321 does not allow, with r->err naming it: a code that is not
 * three digits in [2-5][0-5][0-9], a separator other than ' ' or '-', a
 * continuation line with another code, a bare CR or LF, or a line longer
 * than SMTP_LINE_MAX.  The parser is then stuck until smtp_reply_init(). */
int smtp_reply_feed(struct smtp_reply *r, const char *buf, size_t len,
		    size_t *used);

/* Commands the sink understands. */
enum smtp_verb {
	SMTP_V_UNKNOWN = 0,
	SMTP_V_HELO,
	SMTP_V_EHLO,
	SMTP_V_MAIL,
	SMTP_V_RCPT,
	SMTP_V_DATA,
	SMTP_V_RSET,
	SMTP_V_NOOP,
	SMTP_V_QUIT,
	SMTP_V_VRFY,
};

/* Parses one command line (CRLF already removed).  Returns the verb
 * (case-insensitive; SMTP_V_UNKNOWN for a verb we do not know) and sets
 * *arg and *arglen to its argument: after "MAIL FROM:" and "RCPT TO:" the
 * path and parameters, otherwise the text after the verb and one space
 * (empty when none).  Returns -EINVAL for a syntax error the sink answers
 * with 501: MAIL without "FROM:<", RCPT without "TO:<", HELO/EHLO
 * without a domain, DATA/RSET/QUIT with an argument, a NUL byte. */
int smtp_cmd_parse(const char *line, size_t len, const char **arg,
		   size_t *arglen);

/* DATA scanner: finds the "CRLF.CRLF" that ends a message, undoing dot
 * stuffing.  One per connection, reset at each DATA. */
struct smtp_data {
	int bol;		/* at the beginning of a line */
	int done;		/* the end marker was seen */
};

/* Resets d for a new message (we are at the beginning of a line). */
void smtp_data_init(struct smtp_data *d);

/* Scans buf[0..len).  Returns the number of bytes consumed; d->done is
 * set when the end marker ends there (the marker is consumed; what
 * follows is the next command).  Fewer than len bytes may be consumed
 * without done when the buffer ends within a line that starts with a
 * dot: keep those bytes and scan them again with more.  When unstuff is
 * non-zero the message content (stuffing dots removed, marker excluded)
 * is compacted to buf[0..*outlen); otherwise *outlen is the content's
 * length and buf is untouched. */
size_t smtp_data_scan(struct smtp_data *d, char *buf, size_t len,
		      int unstuff, size_t *outlen);

/* Default message shape (the Byte.com seed): a text part of this many
 * bytes (LF-terminated lines before CRLF conversion) and a base64
 * attachment of this many base64 characters (line breaks excluded). */
#define SMTP_MSG_TEXT_BYTES 4900
#define SMTP_MSG_ATTACH_B64 8500

/* Builds the default message for from/to (to: comma-separated list, as
 * given on the command line) in wire form (see smtp_msg_wire()).  The
 * content depends on nothing else: the same arguments give the same
 * bytes.  Returns 0 and a malloc'ed buffer the caller frees, or -ENOMEM. */
int smtp_msg_default(const char *from, const char *to, char **out,
		     size_t *outlen);

/* Converts a raw message (LF or CRLF line ends) to DATA wire form: CRLF
 * line ends, dot stuffing, a final CRLF if missing, and the ".CRLF" end
 * marker.  Returns 0 and a malloc'ed buffer the caller frees, -ENOMEM,
 * or -EINVAL for a NUL byte or a bare CR in raw (not valid in SMTP). */
int smtp_msg_wire(const char *raw, size_t rawlen, char **out,
		  size_t *outlen);

#endif
