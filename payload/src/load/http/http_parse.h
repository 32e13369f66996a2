/* load/http/http_parse.h: strict, incremental HTTP/1.x response parser for the load
 * engine: fed whatever read() returned, no allocation, no copying. */
#ifndef BB_HTTP_PARSE_H
#define BB_HTTP_PARSE_H

#include <stddef.h>
#include <stdint.h>

/* Default limit on a response's status line + header section (and on a
 * chunked body's trailer section); longer is a parse error. */
#define HTTP_PARSE_MAX_HEADER 16384u
/* Limit on one chunk's extension (";name=value" after the size). */
#define HTTP_PARSE_MAX_CHUNK_EXT 1024u

/* One connection's parser state.  Fill it with http_parse_init(); the
 * public fields below describe the last complete response. */
struct http_parse {
	/* Set by http_parse_feed() returning 1 or http_parse_eof()
	 * returning 1: */
	int status;		/* 100..599 (the final, not an 1xx one) */
	int keepalive;		/* 1: the connection may carry the next
				 * request; 0: the server closes it
				 * (Connection: close, HTTP/1.0 without
				 * keep-alive, or a body read until close) */
	uint64_t body_len;	/* body bytes, without chunk framing */

	/* Set on failure (-EBADMSG): a static string saying what was
	 * wrong, and the offset of the offending byte in this response. */
	const char *error;
	uint64_t error_at;

	/* Settings, kept across responses: */
	uint32_t max_header;	/* HTTP_PARSE_MAX_HEADER by default */
	int head;		/* 1: responses answer HEAD (no body) */

	/* Private. */
	uint8_t state, hdr, tok_len, minor;
	uint8_t te_chunked, te_seen, cl_seen, conn_close, conn_ka;
	uint8_t ws;
	uint32_t hdr_bytes, ext_bytes;
	uint64_t pos, remaining, cl;
	char tok[24];	/* lower-cased header name or list token */
};

/* Readies p for the first response on a new connection.  head: 1 if the
 * requests are HEAD.  Never fails. */
void http_parse_init(struct http_parse *p, int head);

/* Consumes bytes of the response stream.  Stops right after the end of a
 * response, so pipelined responses come out one per call: the bytes after
 * it belong to the next response (feed them again; a parser that finished
 * a response starts the next one by itself).
 * Returns 1 when a response is complete (*used bytes of buf consumed; the
 * public fields describe it), 0 when all len bytes were consumed and the
 * response is not complete yet, -EBADMSG when the stream is not a valid
 * response (p->error, p->error_at say what and where; the connection must
 * be closed, the parser stays failed until http_parse_init()). */
int http_parse_feed(struct http_parse *p, const char *buf, size_t len,
		    size_t *used);

/* The peer closed the connection.  Returns 1 if that completed a response
 * whose body runs until close (public fields set), 0 if no response was in
 * progress (a clean close between responses), -EBADMSG if a response was
 * cut short (p->error says where). */
int http_parse_eof(struct http_parse *p);

/* 1 if some bytes of a response have been consumed and it is not yet
 * complete (a close now would cut it short). */
int http_parse_busy(const struct http_parse *p);

#endif
