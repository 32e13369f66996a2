/* load/http/http_parse.c: byte-at-a-time state machine for response heads and
 * chunk framing; bodies are skipped in bulk.  Strict per RFC 9112: what a
 * correct server never sends is an error, so a broken server cannot pass
 * as a fast one. */
#include <errno.h>
#include <string.h>
#include <strings.h>

#include "load/http/http_parse.h"

enum {
	S_VER, S_VER_MINOR, S_SP1, S_STATUS, S_AFTER_STATUS, S_REASON,
	S_STATUS_LF, S_HDR_START, S_NAME, S_VAL_OWS, S_VAL, S_VAL_LF,
	S_HDRS_END_LF, S_BODY_CL, S_BODY_EOF, S_CHUNK_SIZE, S_CHUNK_EXT,
	S_CHUNK_SIZE_LF, S_CHUNK_DATA, S_CHUNK_DATA_CR, S_CHUNK_DATA_LF,
	S_TRAILER_START, S_TRAILER_NAME, S_TRAILER_VAL, S_TRAILER_LF,
	S_TRAILER_END_LF, S_DONE, S_FAILED,
};

enum { H_OTHER, H_CL, H_TE, H_CONN };

#define TOK_LONG 0xff		/* tok_len of a token too long to keep */

/* RFC 9110 tchar. */
static const uint8_t tchar[256] = {
	['!'] = 1, ['#'] = 1, ['$'] = 1, ['%'] = 1, ['&'] = 1, ['\''] = 1,
	['*'] = 1, ['+'] = 1, ['-'] = 1, ['.'] = 1, ['^'] = 1, ['_'] = 1,
	['`'] = 1, ['|'] = 1, ['~'] = 1,
	['0'] = 1, ['1'] = 1, ['2'] = 1, ['3'] = 1, ['4'] = 1, ['5'] = 1,
	['6'] = 1, ['7'] = 1, ['8'] = 1, ['9'] = 1,
	['A'] = 1, ['B'] = 1, ['C'] = 1, ['D'] = 1, ['E'] = 1, ['F'] = 1,
	['G'] = 1, ['H'] = 1, ['I'] = 1, ['J'] = 1, ['K'] = 1, ['L'] = 1,
	['M'] = 1, ['N'] = 1, ['O'] = 1, ['P'] = 1, ['Q'] = 1, ['R'] = 1,
	['S'] = 1, ['T'] = 1, ['U'] = 1, ['V'] = 1, ['W'] = 1, ['X'] = 1,
	['Y'] = 1, ['Z'] = 1,
	['a'] = 1, ['b'] = 1, ['c'] = 1, ['d'] = 1, ['e'] = 1, ['f'] = 1,
	['g'] = 1, ['h'] = 1, ['i'] = 1, ['j'] = 1, ['k'] = 1, ['l'] = 1,
	['m'] = 1, ['n'] = 1, ['o'] = 1, ['p'] = 1, ['q'] = 1, ['r'] = 1,
	['s'] = 1, ['t'] = 1, ['u'] = 1, ['v'] = 1, ['w'] = 1, ['x'] = 1,
	['y'] = 1, ['z'] = 1,
};

/* Field values and reason phrases: VCHAR, obs-text, SP, HTAB. */
static inline int textchar(unsigned ch)
{
	return ch >= 0x20 ? ch != 0x7f : ch == '\t';
}

static inline int hexval(unsigned ch)
{
	if (ch - '0' < 10)
		return (int)(ch - '0');
	ch |= 0x20;
	if (ch - 'a' < 6)
		return (int)(ch - 'a' + 10);
	return -1;
}

static void start_response(struct http_parse *p)
{
	p->state = S_VER;
	p->status = 0;
	p->keepalive = 0;
	p->body_len = 0;
	p->error = NULL;
	p->error_at = 0;
	p->tok_len = 0;
	p->te_chunked = p->te_seen = p->cl_seen = 0;
	p->conn_close = p->conn_ka = 0;
	p->hdr_bytes = 0;
	p->pos = 0;
	p->remaining = p->cl = 0;
}

void http_parse_init(struct http_parse *p, int head)
{
	memset(p, 0, sizeof(*p));
	p->max_header = HTTP_PARSE_MAX_HEADER;
	p->head = head ? 1 : 0;
	start_response(p);
}

int http_parse_busy(const struct http_parse *p)
{
	return p->state != S_DONE && p->state != S_FAILED &&
	       !(p->state == S_VER && p->pos == 0);
}

static int fail(struct http_parse *p, const char *what)
{
	p->error = what;
	p->error_at = p->pos;
	p->state = S_FAILED;
	return -EBADMSG;
}

static void tok_add(struct http_parse *p, unsigned ch)
{
	if (p->tok_len == TOK_LONG)
		return;
	if (p->tok_len >= sizeof(p->tok)) {
		p->tok_len = TOK_LONG;
		return;
	}
	/* Lower case: tokens here are compared case-insensitively. */
	p->tok[p->tok_len++] = (char)(ch - 'A' < 26 ? ch | 0x20 : ch);
}

static int tok_is(const struct http_parse *p, const char *s)
{
	size_t n = strlen(s);

	return p->tok_len == n && memcmp(p->tok, s, n) == 0;
}

/* End of one token in a Transfer-Encoding or Connection list. */
static void tok_end(struct http_parse *p)
{
	if (p->tok_len == 0)
		return;
	if (p->hdr == H_TE) {
		/* Only the last coding decides the framing. */
		p->te_seen = 1;
		p->te_chunked = tok_is(p, "chunked");
	} else if (tok_is(p, "close")) {
		p->conn_close = 1;
	} else if (tok_is(p, "keep-alive")) {
		p->conn_ka = 1;
	}
	p->tok_len = 0;
}

/* The blank line after the headers: choose how the body is framed.
 * Returns 1 when the response is complete, 0 to go on, <0 on error. */
static int headers_done(struct http_parse *p)
{
	if (p->status < 200) {
		/* Interim responses (100 Continue, 103 Early Hints) carry no
		 * body; the final response follows. */
		if (p->status == 101)
			return fail(p,
				    "101 Switching Protocols: upgrades are not supported");
		p->state = S_VER;
		p->tok_len = 0;
		p->status = 0;
		p->te_chunked = p->te_seen = p->cl_seen = 0;
		p->conn_close = p->conn_ka = 0;
		return 0;
	}
	p->keepalive = p->minor == 1 ? !p->conn_close
				     : p->conn_ka && !p->conn_close;
	if (p->te_seen && p->cl_seen)
		return fail(p, "both Content-Length and Transfer-Encoding");
	if (p->head || p->status == 204 || p->status == 304)
		return 1;
	if (p->te_seen) {
		if (!p->te_chunked) {
			p->keepalive = 0;
			p->state = S_BODY_EOF;
			return 0;
		}
		p->state = S_CHUNK_SIZE;
		p->tok_len = 0;
		p->remaining = 0;
		return 0;
	}
	if (p->cl_seen) {
		if (p->cl == 0)
			return 1;
		p->remaining = p->cl;
		p->state = S_BODY_CL;
		return 0;
	}
	p->keepalive = 0;
	p->state = S_BODY_EOF;
	return 0;
}

/* One byte of a head, a chunk line or a trailer.  Returns 1 when that
 * byte completes the response, 0 to go on, <0 on error.
 * Over 80 lines on purpose: one switch over every state is one jump per
 * byte on the http workload's hot path; split into helpers it would cost
 * calls there, and issue 18 forbids the http figures getting worse. */
static int step(struct http_parse *p, unsigned ch)
{
	static const char ver[] = "HTTP/1.";
	int d;

	switch (p->state) {
	case S_VER:
		if (ch != (unsigned char)ver[p->tok_len])
			return fail(p,
				    "status line does not start with \"HTTP/1.\"");
		if (++p->tok_len == sizeof(ver) - 1)
			p->state = S_VER_MINOR;
		return 0;
	case S_VER_MINOR:
		if (ch != '0' && ch != '1')
			return fail(p, "HTTP version is not 1.0 or 1.1");
		p->minor = (uint8_t)(ch - '0');
		p->state = S_SP1;
		return 0;
	case S_SP1:
		if (ch != ' ')
			return fail(p, "no space after the HTTP version");
		p->state = S_STATUS;
		p->tok_len = 0;
		return 0;
	case S_STATUS:
		if (ch - '0' > 9)
			return fail(p, "status code is not three digits");
		p->status = p->status * 10 + (int)(ch - '0');
		if (++p->tok_len == 3) {
			if (p->status < 100 || p->status > 599)
				return fail(p, "status code outside 100..599");
			p->state = S_AFTER_STATUS;
		}
		return 0;
	case S_AFTER_STATUS:
		/* "HTTP/1.1 200\r\n" (no reason) is seen in the wild. */
		if (ch == ' ')
			p->state = S_REASON;
		else if (ch == '\r')
			p->state = S_STATUS_LF;
		else
			return fail(p, "status code is not three digits");
		return 0;
	case S_REASON:
		if (ch == '\r')
			p->state = S_STATUS_LF;
		else if (!textchar(ch))
			return fail(p,
				    "control character in the reason phrase");
		return 0;
	case S_STATUS_LF:
	case S_VAL_LF:
		if (ch != '\n')
			return fail(p, "CR not followed by LF");
		p->state = S_HDR_START;
		return 0;
	case S_HDR_START:
		if (ch == '\r') {
			p->state = S_HDRS_END_LF;
			return 0;
		}
		if (ch == ' ' || ch == '\t')
			return fail(p, "obsolete header line folding");
		if (!tchar[ch])
			return fail(p, "bad character in a header name");
		p->tok_len = 0;
		tok_add(p, ch);
		p->state = S_NAME;
		return 0;
	case S_NAME:
		if (tchar[ch]) {
			tok_add(p, ch);
			return 0;
		}
		if (ch != ':')
			return fail(p, "bad character in a header name");
		p->hdr = tok_is(p, "content-length") ? H_CL :
			 tok_is(p, "transfer-encoding") ? H_TE :
			 tok_is(p, "connection") ? H_CONN : H_OTHER;
		p->tok_len = 0;
		p->remaining = 0;	/* Content-Length being read */
		p->ws = 0;
		p->state = S_VAL_OWS;
		return 0;
	case S_VAL_OWS:
		if (ch == ' ' || ch == '\t')
			return 0;
		p->state = S_VAL;
		/* fall through */
	case S_VAL:
		if (ch == '\r') {
			if (p->hdr == H_CL) {
				if (p->tok_len == 0)
					return fail(p, "empty Content-Length");
				if (p->cl_seen && p->cl != p->remaining)
					return fail(p,
						    "conflicting Content-Length headers");
				p->cl = p->remaining;
				p->cl_seen = 1;
			} else if (p->hdr != H_OTHER) {
				tok_end(p);
			}
			p->state = S_VAL_LF;
			return 0;
		}
		if (!textchar(ch))
			return fail(p, "control character in a header value");
		switch (p->hdr) {
		case H_CL:
			if (ch == ' ' || ch == '\t') {
				p->ws = 1;
				return 0;
			}
			if (ch - '0' > 9 || p->ws)
				return fail(p,
					    "Content-Length is not a number");
			/* 2^53 bytes is more than any test will see. */
			if (++p->tok_len > 15)
				return fail(p, "Content-Length too large");
			p->remaining = p->remaining * 10 + (ch - '0');
			return 0;
		case H_TE:
		case H_CONN:
			if (ch == ',' || ch == ' ' || ch == '\t')
				tok_end(p);
			else if (tchar[ch])
				tok_add(p, ch);
			else	/* parameters: never "chunked" or "close" */
				p->tok_len = TOK_LONG;
			return 0;
		}
		return 0;
	case S_HDRS_END_LF:
		if (ch != '\n')
			return fail(p, "CR not followed by LF");
		return headers_done(p);
	case S_CHUNK_SIZE:
		d = hexval(ch);
		if (d >= 0) {
			if (++p->tok_len > 15)
				return fail(p, "chunk size too large");
			p->remaining = p->remaining * 16 + (unsigned)d;
			return 0;
		}
		if (p->tok_len == 0)
			return fail(p, "bad chunk size");
		if (ch == '\r') {
			p->state = S_CHUNK_SIZE_LF;
		} else if (ch == ';' || ch == ' ' || ch == '\t') {
			p->ext_bytes = 0;
			p->state = S_CHUNK_EXT;
		} else {
			return fail(p, "bad chunk size");
		}
		return 0;
	case S_CHUNK_EXT:
		if (ch == '\r') {
			p->state = S_CHUNK_SIZE_LF;
			return 0;
		}
		if (!textchar(ch))
			return fail(p,
				    "control character in a chunk extension");
		if (++p->ext_bytes > HTTP_PARSE_MAX_CHUNK_EXT)
			return fail(p, "chunk extension too long");
		return 0;
	case S_CHUNK_SIZE_LF:
		if (ch != '\n')
			return fail(p, "CR not followed by LF");
		if (p->remaining == 0) {
			p->hdr_bytes = 0;
			p->state = S_TRAILER_START;
		} else {
			p->state = S_CHUNK_DATA;
		}
		return 0;
	case S_CHUNK_DATA_CR:
		if (ch != '\r')
			return fail(p, "chunk data longer than its size");
		p->state = S_CHUNK_DATA_LF;
		return 0;
	case S_CHUNK_DATA_LF:
		if (ch != '\n')
			return fail(p, "chunk data longer than its size");
		p->state = S_CHUNK_SIZE;
		p->tok_len = 0;
		p->remaining = 0;
		return 0;
	case S_TRAILER_START:
		if (ch == '\r') {
			p->state = S_TRAILER_END_LF;
			return 0;
		}
		if (!tchar[ch])
			return fail(p, "bad character in a trailer name");
		p->state = S_TRAILER_NAME;
		return 0;
	case S_TRAILER_NAME:
		if (ch == ':')
			p->state = S_TRAILER_VAL;
		else if (!tchar[ch])
			return fail(p, "bad character in a trailer name");
		return 0;
	case S_TRAILER_VAL:
		if (ch == '\r')
			p->state = S_TRAILER_LF;
		else if (!textchar(ch))
			return fail(p, "control character in a trailer value");
		return 0;
	case S_TRAILER_LF:
		if (ch != '\n')
			return fail(p, "CR not followed by LF");
		p->state = S_TRAILER_START;
		return 0;
	case S_TRAILER_END_LF:
		if (ch != '\n')
			return fail(p, "CR not followed by LF");
		return 1;
	}
	return fail(p, "internal: bad parser state");
}

/* Fast Content-Length line: v points after the colon.  Returns the line's
 * length with the value recorded, or 0 (cut short, invalid, conflicting:
 * step() then takes it and words any error). */
static size_t cl_line(struct http_parse *p, const unsigned char *c,
		      const unsigned char *v, const unsigned char *lim)
{
	uint64_t cl = 0;
	unsigned digits = 0;

	while (v < lim && (*v == ' ' || *v == '\t'))
		v++;
	for (; v < lim && (unsigned)(*v - '0') <= 9 && digits < 15;
	     v++, digits++)
		cl = cl * 10 + (*v - '0');
	while (v < lim && (*v == ' ' || *v == '\t'))
		v++;
	if (!digits || lim - v < 2 || v[0] != '\r' || v[1] != '\n' ||
	    (p->cl_seen && p->cl != cl))
		return 0;
	p->cl = cl;
	p->cl_seen = 1;
	return (size_t)(v + 2 - c);
}

/* Fast path for a whole header line of no interest to framing ("Name:
 * value" CR LF, all of it in the buffer and within the head limit):
 * returns its length, or 0 to let step() take it byte by byte (a line
 * cut by the buffer's end, a header we read, or anything invalid). */
static size_t other_line(struct http_parse *p, const unsigned char *c,
			 const unsigned char *end)
{
	const unsigned char *q = c, *lim = end;
	size_t n;

	if ((uint64_t)(end - c) > p->max_header - p->hdr_bytes)
		lim = c + (p->max_header - p->hdr_bytes);
	while (q < lim && tchar[*q])
		q++;
	if (q == lim || *q != ':')
		return 0;
	n = (size_t)(q - c);
	if (n == 14 && strncasecmp((const char *)c, "content-length", 14)
			== 0)
		return cl_line(p, c, q + 1, lim);
	if ((n == 17 && strncasecmp((const char *)c, "transfer-encoding", 17)
			== 0) ||
	    (n == 10 && strncasecmp((const char *)c, "connection", 10) == 0))
		return 0;
	for (q++; q < lim && textchar(*q); q++)
		;
	if (lim - q < 2 || q[0] != '\r' || q[1] != '\n')
		return 0;
	return (size_t)(q + 2 - c);
}

/* Fast status line "HTTP/1.x NNN" then SP or CR: returns the bytes taken
 * (the reason phrase follows in state S_REASON), or 0 for step(). */
static size_t status_line(struct http_parse *p, const unsigned char *c,
			  const unsigned char *end)
{
	int st;

	if (end - c < 13 || p->max_header - p->hdr_bytes < 13 ||
	    memcmp(c, "HTTP/1.", 7) != 0 || (c[7] != '0' && c[7] != '1') ||
	    c[8] != ' ' || (unsigned)(c[9] - '1') > 4 ||
	    (unsigned)(c[10] - '0') > 9 ||
	    (unsigned)(c[11] - '0') > 9 || (c[12] != ' ' && c[12] != '\r'))
		return 0;
	st = (c[9] - '0') * 100 + (c[10] - '0') * 10 + (c[11] - '0');
	p->minor = (uint8_t)(c[7] - '0');
	p->status = st;
	p->state = c[12] == ' ' ? S_REASON : S_STATUS_LF;
	return 13;
}

/* Over 80 lines on purpose: the per-buffer loop of the http workload's
 * hot path, with its fast paths (body runs, whole lines, value runs)
 * inline beside the byte-wise step(); see the comments on each. */
int http_parse_feed(struct http_parse *p, const char *buf, size_t len,
		    size_t *used)
{
	const unsigned char *s = (const unsigned char *)buf, *c = s;
	const unsigned char *end = s + len;
	uint64_t n;
	uint8_t st;
	int rc;

	*used = 0;
	if (p->state == S_FAILED)
		return -EBADMSG;
	if (p->state == S_DONE)
		start_response(p);
	while (c < end) {
		switch (p->state) {
		case S_BODY_CL:
		case S_CHUNK_DATA:
			n = (uint64_t)(end - c);
			if (n > p->remaining)
				n = p->remaining;
			c += n;
			p->pos += n;
			p->body_len += n;
			p->remaining -= n;
			if (p->remaining)
				break;
			if (p->state == S_BODY_CL)
				goto done;
			p->state = S_CHUNK_DATA_CR;
			break;
		case S_BODY_EOF:
			n = (uint64_t)(end - c);
			c = end;
			p->pos += n;
			p->body_len += n;
			break;
		default:
			/* st is read as one byte: step() has just stored
			 * p->state, and a wider load of it would stall on
			 * store forwarding every byte. */
			st = p->state;
			n = 0;
			if (st == S_VER) {
				if (p->tok_len == 0)
					n = status_line(p, c, end);
			} else if (st == S_HDR_START) {
				if (tchar[*c])
					n = other_line(p, c, end);
			}
			if (n) {
				c += n;
				p->pos += n;
				p->hdr_bytes += (uint32_t)n;
				break;
			}
			/* Runs of value bytes (most of a head) are skipped in
			 * a tight loop rather than dispatched byte by byte;
			 * a CR or a bad byte ends the run and goes to
			 * step(). */
			if (st == S_REASON || st == S_TRAILER_VAL ||
			    (st == S_VAL && p->hdr == H_OTHER)) {
				const unsigned char *q = c, *lim = end;

				if ((uint64_t)(end - c) >
				    p->max_header - p->hdr_bytes)
					lim = c + (p->max_header -
						   p->hdr_bytes);
				while (q < lim && textchar(*q))
					q++;
				if (q > c) {
					n = (uint64_t)(q - c);
					p->hdr_bytes += (uint32_t)n;
					p->pos += n;
					c = q;
					break;
				}
			}
			/* Heads and trailers are bounded: a server streaming
			 * an endless header must not pin a connection. */
			if (st < S_BODY_CL || st >= S_TRAILER_START) {
				if (++p->hdr_bytes > p->max_header)
					return fail(p,
						    "header section too large");
			}
			rc = step(p, *c);
			if (rc < 0)
				return rc;
			c++;
			p->pos++;
			if (rc == 1)
				goto done;
			break;
		}
	}
	*used = (size_t)(c - s);
	return 0;
done:
	p->state = S_DONE;
	*used = (size_t)(c - s);
	return 1;
}

int http_parse_eof(struct http_parse *p)
{
	if (p->state == S_BODY_EOF) {
		p->state = S_DONE;
		return 1;
	}
	if (p->state == S_FAILED)
		return -EBADMSG;
	if (!http_parse_busy(p))
		return 0;
	if (p->state <= S_HDRS_END_LF)
		return fail(p, "connection closed in the response head");
	if (p->state == S_BODY_CL)
		return fail(p,
			    "connection closed before Content-Length bytes arrived");
	return fail(p, "connection closed in a chunked body");
}
