/* load/sql/mysql_wire.h: the MySQL/MariaDB client/server packets `benchboot sql`
 * speaks itself on its hot path: COM_STMT_PREPARE and COM_STMT_EXECUTE
 * requests, and a strict incremental parser of their replies. */
#ifndef BB_MYSQL_WIRE_H
#define BB_MYSQL_WIRE_H

#include <stddef.h>
#include <stdint.h>

/* Capability bits that change the shape of a reply (the handshake's
 * 32 bits, MariaDB's extended ones shifted into bits 32..63). */
#define MW_CLIENT_PROTOCOL_41		(1ULL << 9)
#define MW_CLIENT_PROGRESS		(1ULL << 29)
#define MW_CLIENT_DEPRECATE_EOF		(1ULL << 24)
#define MW_MARIADB_EXTENDED_METADATA	(1ULL << 35)
#define MW_MARIADB_CACHE_METADATA	(1ULL << 36)

#define MW_HDR 4		/* 3-byte length, 1-byte sequence number */
#define MW_MAX_COLS 64		/* result columns a reply may have */
#define MW_MSG 200		/* bytes of an ERR message kept */

/* Which reply the parser expects. */
enum mw_kind { MW_PREPARE, MW_EXECUTE };

/* mw_feed() results; errors are negative. */
enum {
	MW_MORE = 0,		/* the reply is not complete yet */
	MW_DONE = 1,		/* the reply ended (OK, EOF or last row) */
	MW_E_SERVER = -1,	/* the reply is an ERR packet: code, msg */
	MW_E_PROTO = -2,	/* malformed: error says what */
	MW_E_TOOBIG = -3,	/* a packet longer than max_packet */
};

/* Parser of one connection: reusable for reply after reply; keeps the
 * prepared statement's column types across replies (a MariaDB server
 * with the metadata-cache extension does not resend them). */
struct mw_parser {
	uint64_t caps;		/* negotiated capabilities (MW_*) */
	uint32_t max_packet;	/* longest payload accepted */
	int kind;		/* enum mw_kind being parsed */
	int state;
	uint8_t seq;		/* sequence number of the next packet */
	uint32_t ncols, col;	/* columns of this result, done so far */
	uint32_t nparams, param;
	uint16_t status;	/* server status of the last OK/EOF */
	/* PREPARE: what the server said about the statement. */
	uint32_t stmt_id;
	uint32_t ps_ncols;	/* columns of the prepared statement */
	uint8_t ps_types[MW_MAX_COLS];
	uint8_t types[MW_MAX_COLS];	/* columns of the current result */
	uint64_t rows;		/* EXECUTE: rows of this reply */
	/* MW_E_SERVER: the ERR packet. */
	uint16_t err_code;
	char sqlstate[6];
	char msg[MW_MSG];
	const char *error;	/* MW_E_PROTO / TOOBIG: what was wrong */
};

/* Sets up p for a connection with the negotiated capabilities caps;
 * max_packet is the longest packet payload the caller's buffer holds
 * (at most 0xfffffe: payloads split over several packets are refused). */
void mw_init(struct mw_parser *p, uint64_t caps, uint32_t max_packet);

/* Starts a new reply of the given kind (after the request was sent with
 * sequence number 0). */
void mw_expect(struct mw_parser *p, enum mw_kind kind);

/* Parses whole packets of buf[0..len) (bytes after a reply's start that
 * the caller has not consumed yet).  Sets *used to the bytes of whole
 * packets consumed; the caller keeps the rest and calls again with more
 * bytes appended.  Returns MW_MORE, MW_DONE (the reply ended at *used;
 * PREPARE: stmt_id, ps_ncols and ps_types are set) or a negative MW_E_*
 * (MW_E_SERVER ends the reply at *used, the session is usable; the
 * others mean the stream is lost).  Any split of the same bytes gives
 * the same result. */
int mw_feed(struct mw_parser *p, const uint8_t *buf, size_t len,
	    size_t *used);

/* Writes a COM_STMT_PREPARE packet of sql (len bytes) into buf (cap
 * bytes).  Returns its length, or 0 when it does not fit. */
size_t mw_prepare_req(uint8_t *buf, size_t cap, const char *sql,
		      size_t len);

/* Length of the COM_STMT_EXECUTE packet mw_execute_req() writes, and
 * the offset of its 8-byte parameter. */
#define MW_EXEC_LEN 26
#define MW_EXEC_ARG 18

/* Writes a COM_STMT_EXECUTE packet of statement stmt_id with one
 * unsigned BIGINT parameter v into buf (MW_EXEC_LEN bytes).  The types
 * are sent with every execution, so each packet stands alone. */
void mw_execute_req(uint8_t *buf, uint32_t stmt_id, uint64_t v);

/* Replaces the parameter of a packet written by mw_execute_req(). */
static inline void mw_execute_arg(uint8_t *pkt, uint64_t v)
{
	int i;

	for (i = 0; i < 8; i++)
		pkt[MW_EXEC_ARG + i] = (uint8_t)(v >> (8 * i));
}

#endif
