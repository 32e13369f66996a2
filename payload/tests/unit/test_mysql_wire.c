/* test_mysql_wire.c: the binary-protocol reply parser on every packet
 * type, whole and split at every byte and at odd sizes (a split must
 * agree with the whole), and on malformed, truncated and huge packets;
 * the request packets byte for byte. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "load/sql/mysql_wire.h"
#include "tap.h"

#define CAP 4096		/* the test's receive buffer */

/* Payload pieces, in hex. */
#define S_DEF "03646566"			/* "def" */
#define S_DB "0562656e6368"			/* "bench" */
#define S_TB "0773627465737431"			/* "sbtest1" */
#define S_C "0163"				/* "c" */
#define FIXED(type) "0c" "2100" "e0010000" type "0140" "00" "0000"
#define COLDEF(type) S_DEF S_DB S_TB S_TB S_C S_C FIXED(type)
#define COLDEF_X(type) S_DEF S_DB S_TB S_TB S_C S_C "00" FIXED(type)
#define PARAM S_DEF "00" "00" "00" "013f" "00" FIXED("08")
#define PARAM_X S_DEF "00" "00" "00" "013f" "00" "00" FIXED("08")
#define EOF_P "fe00000200"
#define OK_P "00000002000000"
#define OK_MORE "00000008000000"	/* SERVER_MORE_RESULTS_EXIST */
#define OK_EOF "fe000002000000"		/* ends rows with DEPRECATE_EOF */
#define PREP_OK "00" "07000000" "0100" "0100" "00" "0000"
#define ROW_HELLO "00" "00" "05" "68656c6c6f"
#define ERR_1146 "ff" "7a04" "23" "3432533032" "6e6f207461626c65"

#define C41 MW_CLIENT_PROTOCOL_41
#define CDEP (C41 | MW_CLIENT_DEPRECATE_EOF)
#define CMETA (C41 | MW_MARIADB_CACHE_METADATA)
#define CEXT (C41 | MW_MARIADB_EXTENDED_METADATA)
#define CPROG (C41 | MW_CLIENT_PROGRESS)

/* A packet is a payload in hex (sequence numbers 1, 2, ... added), or
 * "!" and raw bytes in hex, header included. */
struct wcase {
	const char *name;
	uint64_t caps;
	int kind;
	const char *pkts[12];
	int want;
	uint64_t rows;
	int err_code;
	int trail;		/* bytes left after the reply */
	int prime;		/* prepare a 1-column CHAR statement first */
};

static const struct wcase cases[] = {
	{ "prepare: OK, param, EOF, column, EOF", C41, MW_PREPARE,
	  { PREP_OK, PARAM, EOF_P, COLDEF("fe"), EOF_P }, .want = MW_DONE },
	{ "prepare: DEPRECATE_EOF, no EOFs", CDEP, MW_PREPARE,
	  { PREP_OK, PARAM, COLDEF("fe") }, .want = MW_DONE },
	{ "prepare: extended metadata", CEXT, MW_PREPARE,
	  { PREP_OK, PARAM_X, EOF_P, COLDEF_X("fe"), EOF_P }, .want = MW_DONE },
	{ "prepare: no params, no columns", C41, MW_PREPARE,
	  { "00" "07000000" "0000" "0000" "00" "0000" }, .want = MW_DONE },
	{ "prepare: ERR 1146", C41, MW_PREPARE, { ERR_1146 },
	  .want = MW_E_SERVER, .err_code = 1146 },
	{ "prepare: OK of the wrong length", C41, MW_PREPARE,
	  { "00" "07000000" "0100" "0100" "00" }, .want = MW_E_PROTO },
	{ "prepare: 65 columns", C41, MW_PREPARE,
	  { "00" "07000000" "4100" "0000" "00" "0000" }, .want = MW_E_PROTO },
	{ "prepare: column def truncated", C41, MW_PREPARE,
	  { PREP_OK, PARAM, EOF_P, S_DEF S_DB "09" }, .want = MW_E_PROTO },
	{ "prepare: column def with trailing bytes", C41, MW_PREPARE,
	  { PREP_OK, PARAM, EOF_P, COLDEF("fe") "00" }, .want = MW_E_PROTO },
	{ "prepare: column of unknown type", C41, MW_PREPARE,
	  { PREP_OK, PARAM, EOF_P, COLDEF("14"), EOF_P }, .want = MW_E_PROTO },
	{ "prepare: EOF of the wrong length", C41, MW_PREPARE,
	  { PREP_OK, PARAM, "fe0000020000", COLDEF("fe"), EOF_P },
	  .want = MW_E_PROTO },
	{ "prepare: ERR instead of a column", C41, MW_PREPARE,
	  { PREP_OK, PARAM, EOF_P, ERR_1146 }, .want = MW_E_SERVER,
	  .err_code = 1146 },
	{ "execute: one row", C41, MW_EXECUTE,
	  { "01", COLDEF("fe"), EOF_P, ROW_HELLO, EOF_P }, .want = MW_DONE,
	  .rows = 1 },
	{ "execute: no row", C41, MW_EXECUTE,
	  { "01", COLDEF("fe"), EOF_P, EOF_P }, .want = MW_DONE },
	{ "execute: three rows, one NULL", C41, MW_EXECUTE,
	  { "01", COLDEF("fd"), EOF_P, ROW_HELLO, "00" "04", ROW_HELLO,
	    EOF_P }, .want = MW_DONE, .rows = 3 },
	{ "execute: DEPRECATE_EOF, OK ends the rows", CDEP, MW_EXECUTE,
	  { "01", COLDEF("fe"), ROW_HELLO, OK_EOF }, .want = MW_DONE,
	  .rows = 1 },
	{ "execute: metadata resent (cache extension)", CMETA, MW_EXECUTE,
	  { "0101", COLDEF("fe"), EOF_P, ROW_HELLO, EOF_P }, .want = MW_DONE,
	  .rows = 1 },
	{ "execute: metadata cached, EOF still sent", CMETA, MW_EXECUTE,
	  { "0100", EOF_P, ROW_HELLO, EOF_P }, .want = MW_DONE, .rows = 1,
	  .prime = 1 },
	{ "execute: metadata cached, no statement prepared", CMETA,
	  MW_EXECUTE, { "0100", EOF_P, ROW_HELLO, EOF_P }, .want = MW_E_PROTO },
	{ "execute: metadata cached, column count differs", CMETA,
	  MW_EXECUTE, { "0200", EOF_P }, .want = MW_E_PROTO, .prime = 1 },
	{ "execute: metadata flag 2", CMETA, MW_EXECUTE, { "0102" },
	  .want = MW_E_PROTO },
	{ "execute: metadata flag missing", CMETA, MW_EXECUTE, { "01" },
	  .want = MW_E_PROTO },
	{ "execute: fixed, date and string columns", C41, MW_EXECUTE,
	  { "03", COLDEF("08"), COLDEF("0c"), COLDEF("fd"), EOF_P,
	    "00" "00" "0807060504030201" "04e9070c01" "0161",
	    "00" "08" "0807060504030201" "0161", EOF_P }, .want = MW_DONE,
	  .rows = 2 },
	{ "execute: every fixed width", C41, MW_EXECUTE,
	  { "05", COLDEF("01"), COLDEF("02"), COLDEF("03"), COLDEF("05"),
	    COLDEF("0d"), EOF_P,
	    "00" "00" "01" "0200" "03000000" "0400000000000000" "e507",
	    EOF_P }, .want = MW_DONE, .rows = 1 },
	{ "execute: OK (no result set)", C41, MW_EXECUTE, { OK_P },
	  .want = MW_DONE },
	{ "execute: OK, more results, then a result", C41, MW_EXECUTE,
	  { OK_MORE, "01", COLDEF("fe"), EOF_P, ROW_HELLO, EOF_P },
	  .want = MW_DONE, .rows = 1 },
	{ "execute: ERR 1146", C41, MW_EXECUTE, { ERR_1146 },
	  .want = MW_E_SERVER, .err_code = 1146 },
	{ "execute: ERR after rows", C41, MW_EXECUTE,
	  { "01", COLDEF("fe"), EOF_P, ROW_HELLO, "ff" "1505" "23"
	    "3730313030" "696e74657272757074" }, .want = MW_E_SERVER, .rows = 1,
	  .err_code = 1301 },
	{ "execute: ERR without SQLSTATE", C41, MW_EXECUTE,
	  { "ff" "1505" "6b696c6c6564" }, .want = MW_E_SERVER,
	  .err_code = 1301 },
	{ "execute: ERR truncated", C41, MW_EXECUTE, { "ff15" },
	  .want = MW_E_PROTO },
	{ "execute: progress report skipped", CPROG, MW_EXECUTE,
	  { "ff" "ffff" "01" "01" "02" "10000000" "00", OK_P },
	  .want = MW_DONE },
	{ "execute: progress without the capability is an error", C41,
	  MW_EXECUTE, { "ff" "ffff" "01" "01" "02" "10000000" "00" },
	  .want = MW_E_SERVER, .err_code = 0xffff },
	{ "execute: LOCAL INFILE request", C41, MW_EXECUTE,
	  { "fb" "2f746d70" }, .want = MW_E_PROTO },
	{ "execute: zero columns", C41, MW_EXECUTE, { "fc0000" },
	  .want = MW_E_PROTO },
	{ "execute: 65 columns", C41, MW_EXECUTE, { "41" },
	  .want = MW_E_PROTO },
	{ "execute: column count with trailing bytes", C41, MW_EXECUTE,
	  { "0100" }, .want = MW_E_PROTO },
	{ "execute: row string truncated", C41, MW_EXECUTE,
	  { "01", COLDEF("fe"), EOF_P, "00" "00" "05" "6865" },
	  .want = MW_E_PROTO },
	{ "execute: row with trailing bytes", C41, MW_EXECUTE,
	  { "01", COLDEF("fe"), EOF_P, ROW_HELLO "00" }, .want = MW_E_PROTO },
	{ "execute: row length 0xfb (text NULL)", C41, MW_EXECUTE,
	  { "01", COLDEF("fe"), EOF_P, "00" "00" "fb" }, .want = MW_E_PROTO },
	{ "execute: row length 0xff", C41, MW_EXECUTE,
	  { "01", COLDEF("fe"), EOF_P, "00" "00" "ff" }, .want = MW_E_PROTO },
	{ "execute: row length 0xfe past the packet", C41, MW_EXECUTE,
	  { "01", COLDEF("fe"), EOF_P, "00" "00" "fe" "ffffffffffffff7f"
	    "41" }, .want = MW_E_PROTO },
	{ "execute: row fixed value truncated", C41, MW_EXECUTE,
	  { "01", COLDEF("08"), EOF_P, "00" "00" "010203" },
	  .want = MW_E_PROTO },
	{ "execute: row date truncated", C41, MW_EXECUTE,
	  { "01", COLDEF("0c"), EOF_P, "00" "00" "07e907" },
	  .want = MW_E_PROTO },
	{ "execute: row NULL bitmap missing", C41, MW_EXECUTE,
	  { "01", COLDEF("fe"), EOF_P, "00" }, .want = MW_E_PROTO },
	{ "execute: reserved NULL bits set", C41, MW_EXECUTE,
	  { "01", COLDEF("fe"), EOF_P, "00" "01" "0161" }, .want = MW_E_PROTO },
	{ "execute: NULL bit past the columns", C41, MW_EXECUTE,
	  { "01", COLDEF("fe"), EOF_P, "00" "08" "0161" }, .want = MW_E_PROTO },
	{ "execute: value in a NULL-typed column", C41, MW_EXECUTE,
	  { "01", COLDEF("06"), EOF_P, "00" "00" "01" }, .want = MW_E_PROTO },
	{ "execute: neither row nor EOF", C41, MW_EXECUTE,
	  { "01", COLDEF("fe"), EOF_P, "03" }, .want = MW_E_PROTO },
	{ "execute: bytes after the reply stay unread", C41, MW_EXECUTE,
	  { OK_P, "!" "0100000200" }, .want = MW_DONE, .trail = 5 },
	{ "packet out of sequence", C41, MW_EXECUTE,
	  { "!" "07000005" OK_P }, .want = MW_E_PROTO },
	{ "empty packet", C41, MW_EXECUTE, { "!" "00000001" },
	  .want = MW_E_PROTO },
	{ "packet longer than the buffer", C41, MW_EXECUTE,
	  { "!" "00100001" }, .want = MW_E_TOOBIG },
	{ "payload split over packets (0xffffff)", C41, MW_EXECUTE,
	  { "!" "ffffff01" }, .want = MW_E_TOOBIG },
	{ "huge row announced, then cut", C41, MW_EXECUTE,
	  { "01", COLDEF("fc"), EOF_P, "!" "f00f0004" "0000fcec0f" },
	  .want = MW_MORE },
};

static size_t unhex(const char *h, uint8_t *out)
{
	size_t n = 0;
	unsigned v;

	while (h[0] && h[1]) {
		sscanf(h, "%2x", &v);
		out[n++] = (uint8_t)v;
		h += 2;
	}
	return n;
}

/* The reply's bytes: each payload gets its header. */
static size_t build(const struct wcase *c, uint8_t *out)
{
	size_t n = 0, k, i;
	uint8_t seq = 1;

	for (i = 0; i < 12 && c->pkts[i]; i++) {
		if (c->pkts[i][0] == '!') {
			n += unhex(c->pkts[i] + 1, out + n);
			continue;
		}
		k = unhex(c->pkts[i], out + n + 4);
		out[n] = (uint8_t)k;
		out[n + 1] = (uint8_t)(k >> 8);
		out[n + 2] = (uint8_t)(k >> 16);
		out[n + 3] = seq++;
		n += 4 + k;
	}
	return n;
}

struct result {
	int rc;
	size_t used;
	uint64_t rows;
	int err_code;
	uint32_t stmt_id;
};

static void start(struct mw_parser *p, const struct wcase *c)
{
	mw_init(p, c->caps, CAP - MW_HDR);
	if (c->prime) {
		/* What a prepare of "SELECT c ..." leaves behind. */
		p->ps_ncols = 1;
		p->ps_types[0] = 254;
	}
	mw_expect(p, c->kind);
}

/* Feeds buf in chunks of the sizes in steps (cycled) the way the engine
 * does: appended to a buffer, parsed, the consumed part dropped. */
static struct result feed(const struct wcase *c, const uint8_t *buf,
			  size_t len, const size_t *steps, size_t nsteps)
{
	static uint8_t acc[CAP];
	struct mw_parser p;
	struct result r = { MW_MORE, 0, 0, 0, 0 };
	size_t off = 0, alen = 0, used, k, i = 0;

	start(&p, c);
	while (off < len) {
		k = steps[i++ % nsteps];
		if (k > len - off)
			k = len - off;
		if (alen + k > CAP)
			break;
		memcpy(acc + alen, buf + off, k);
		alen += k;
		off += k;
		r.rc = mw_feed(&p, acc, alen, &used);
		r.used += used;
		memmove(acc, acc + used, alen - used);
		alen -= used;
		if (r.rc != MW_MORE)
			break;
	}
	r.rows = p.rows;
	r.err_code = p.err_code;
	r.stmt_id = p.stmt_id;
	return r;
}

static void test_case(const struct wcase *c)
{
	static const size_t one[] = { 1 }, odd[] = { 3, 7, 1, 13, 2 },
			    big[] = { 31, 5, 64 };
	static const size_t *splits[] = { one, odd, big };
	static const size_t nsplit[] = { 1, 5, 3 };
	static uint8_t buf[CAP];
	struct result w, s;
	struct mw_parser p;
	size_t len = build(c, buf), used, i;
	int ok;

	start(&p, c);
	w.rc = mw_feed(&p, buf, len, &used);
	w.used = used;
	TAP_EQ_INT(w.rc, c->want, c->name);
	if (w.rc == MW_DONE || w.rc == MW_E_SERVER)
		TAP_EQ_INT(len - used, c->trail,
	  "  consumed to the reply's end");
	if (c->want == MW_DONE || c->want == MW_E_SERVER) {
		TAP_EQ_INT(p.rows, c->rows, "  rows");
		TAP_EQ_INT(p.err_code, c->err_code, "  error code");
	}
	if (c->want == MW_E_PROTO || c->want == MW_E_TOOBIG)
		tap_ok(p.error != NULL, "  says what is wrong (%s)",
		       p.error ? p.error : "nothing");
	if (c->kind == MW_PREPARE && c->want == MW_DONE)
		TAP_EQ_INT(p.stmt_id, 7, "  statement id");
	ok = 1;
	for (i = 0; i < 3; i++) {
		s = feed(c, buf, len, splits[i], nsplit[i]);
		if (s.rc != w.rc || s.rows != p.rows ||
		    s.err_code != p.err_code || s.stmt_id != p.stmt_id ||
		    ((w.rc == MW_DONE || w.rc == MW_E_SERVER) &&
		     s.used != w.used)) {
			printf("#   split %zu: rc %d used %zu rows %llu\n", i,
			       s.rc, s.used, (unsigned long long)s.rows);
			ok = 0;
		}
	}
	tap_ok(ok, "  byte by byte and odd splits agree with whole");
}

static void test_requests(void)
{
	static const uint8_t want_exec[MW_EXEC_LEN] = {
		22, 0, 0, 0, 0x17, 0x07, 0x06, 0x05, 0x04, 0x00,
		1, 0, 0, 0, 0x00, 0x01, 0x08, 0x80,
		0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01,
	};
	uint8_t b[64];
	size_t n;

	mw_execute_req(b, 0x04050607, 42);
	mw_execute_arg(b, 0x0102030405060708ULL);
	tap_ok(memcmp(b, want_exec, MW_EXEC_LEN) == 0,
	       "COM_STMT_EXECUTE packet byte for byte");
	n = mw_prepare_req(b, sizeof(b), "SELECT 1", 8);
	tap_ok(n == 13 && memcmp(b, "\x09\x00\x00\x00\x16SELECT 1", 13) == 0,
	       "COM_STMT_PREPARE packet byte for byte");
	TAP_EQ_INT(mw_prepare_req(b, 12, "SELECT 1", 8), 0,
		   "COM_STMT_PREPARE that does not fit: 0");
}

static void test_reuse(void)
{
	static uint8_t buf[CAP];
	struct mw_parser p;
	size_t len, used;
	int rc;

	/* Prepare, then execute with cached metadata on the same parser. */
	mw_init(&p, CMETA, CAP - MW_HDR);
	mw_expect(&p, MW_PREPARE);
	len = build(&cases[0], buf);
	rc = mw_feed(&p, buf, len, &used);
	TAP_EQ_INT(rc, MW_DONE, "reuse: prepare");
	TAP_EQ_INT(p.ps_ncols, 1, "reuse: one column prepared");
	mw_expect(&p, MW_EXECUTE);
	len = build(&(struct wcase){ .pkts = { "0100", EOF_P, ROW_HELLO,
					       EOF_P } }, buf);
	rc = mw_feed(&p, buf, len, &used);
	TAP_EQ_INT(rc, MW_DONE, "reuse: execute with cached metadata");
	TAP_EQ_INT(p.rows, 1, "reuse: its row");
	rc = mw_feed(&p, buf, 4, &used);
	TAP_EQ_INT(rc, MW_E_PROTO, "reuse: bytes when no reply is expected");
}

int main(void)
{
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		test_case(&cases[i]);
	test_requests();
	test_reuse();
	return tap_done();
}
