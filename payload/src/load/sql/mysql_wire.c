/* load/sql/mysql_wire.c: COM_STMT_PREPARE / COM_STMT_EXECUTE requests and a strict
 * parser of their replies (binary protocol), whole packets at a time. */
#include <string.h>

#include "load/sql/mysql_wire.h"

#define MW_COM_STMT_PREPARE 0x16
#define MW_COM_STMT_EXECUTE 0x17
#define MW_TYPE_LONGLONG 8
#define MW_MORE_RESULTS 0x0008	/* SERVER_MORE_RESULTS_EXIST */

enum {
	S_P_FIRST, S_P_PARAM, S_P_PARAM_EOF, S_P_COL, S_P_COL_EOF,
	S_X_FIRST, S_X_COL, S_X_COL_EOF, S_X_ROW, S_DONE,
};

void mw_init(struct mw_parser *p, uint64_t caps, uint32_t max_packet)
{
	memset(p, 0, sizeof(*p));
	p->caps = caps;
	p->max_packet = max_packet < 0xfffffe ? max_packet : 0xfffffe;
	p->state = S_DONE;
}

void mw_expect(struct mw_parser *p, enum mw_kind kind)
{
	p->kind = kind;
	p->state = kind == MW_PREPARE ? S_P_FIRST : S_X_FIRST;
	p->seq = 1;
	p->ncols = p->col = p->nparams = p->param = 0;
	p->rows = 0;
	p->err_code = 0;
	p->sqlstate[0] = 0;
	p->msg[0] = 0;
	p->error = NULL;
}

static int mw_bad(struct mw_parser *p, const char *what)
{
	p->error = what;
	return MW_E_PROTO;
}

static uint32_t mw_u16(const uint8_t *b)
{
	return (uint32_t)b[0] | (uint32_t)b[1] << 8;
}

static uint32_t mw_u32(const uint8_t *b)
{
	return mw_u16(b) | mw_u16(b + 2) << 16;
}

/* A length-encoded integer at b[*o] (n bytes in all): 0 and *o moved
 * past it, or -1 (truncated, or the NULL/ERR markers 0xfb/0xff). */
static int mw_lenenc(const uint8_t *b, size_t n, size_t *o, uint64_t *v)
{
	size_t k, w;

	if (*o >= n)
		return -1;
	switch (b[*o]) {
	case 0xfb:
	case 0xff:
		return -1;
	case 0xfc: w = 2; break;
	case 0xfd: w = 3; break;
	case 0xfe: w = 8; break;
	default:
		*v = b[(*o)++];
		return 0;
	}
	if (n - *o - 1 < w)
		return -1;
	*v = 0;
	for (k = 0; k < w; k++)
		*v |= (uint64_t)b[*o + 1 + k] << (8 * k);
	*o += 1 + w;
	return 0;
}

/* Skips a length-encoded string; 0, or -1 when it overruns. */
static int mw_skip_str(const uint8_t *b, size_t n, size_t *o)
{
	uint64_t len;

	if (mw_lenenc(b, n, o, &len) != 0 || len > n - *o)
		return -1;
	*o += (size_t)len;
	return 0;
}

/* Bytes a binary-protocol value of this type takes: > 0 fixed, 0 a
 * length-encoded string, -1 a one-byte length then that many (dates and
 * times), -3 none (NULL: the bitmap says so), -2 a type that cannot be in
 * a row. */
static int mw_type_len(uint8_t type)
{
	switch (type) {
	case 6: return -3;			/* NULL */
	case 1: return 1;			/* TINY */
	case 2: case 13: return 2;		/* SHORT, YEAR */
	case 3: case 4: case 9: return 4;	/* LONG, FLOAT, INT24 */
	case 5: case 8: return 8;		/* DOUBLE, LONGLONG */
	case 7: case 10: case 11: case 12: case 14:
		return -1;	/* TIMESTAMP DATE TIME DATETIME NEWDATE */
	case 0: case 15: case 16:		/* DECIMAL VARCHAR BIT */
	case 245: case 246: case 247: case 248: case 249: case 250:
	case 251: case 252: case 253: case 254: case 255:
		return 0;	/* JSON NEWDECIMAL ENUM SET BLOBs STRINGs */
	default:
		return -2;
	}
}

/* A column definition packet (protocol 4.1): six length-encoded strings
 * (catalog, schema, table, org_table, name, org_name), MariaDB's
 * extended type info when negotiated, then 0x0c and 12 fixed bytes. */
static int mw_coldef(struct mw_parser *p, const uint8_t *b, size_t n,
		     uint8_t *type)
{
	size_t o = 0;
	int i, nstr = p->caps & MW_MARIADB_EXTENDED_METADATA ? 7 : 6;

	if (n > 0 && (b[0] == 0xff || b[0] == 0xfe) && n < 9)
		return mw_bad(p, "column definition expected");
	for (i = 0; i < nstr; i++)
		if (mw_skip_str(b, n, &o) != 0)
			return mw_bad(p, "column definition truncated");
	if (o >= n || b[o] != 0x0c || n - o - 1 < 12)
		return mw_bad(p, "column definition: bad fixed part");
	*type = b[o + 7];
	if (n - o - 1 != 12)
		return mw_bad(p, "column definition: trailing bytes");
	/* Parameters may be of any type; a column's must be readable. */
	if (p->state != S_P_PARAM && mw_type_len(*type) == -2)
		return mw_bad(p, "column definition: unknown type");
	return 0;
}

/* An EOF packet of protocol 4.1: 0xfe, warnings, status. */
static int mw_eof(struct mw_parser *p, const uint8_t *b, size_t n)
{
	if (n != 5 || b[0] != 0xfe)
		return mw_bad(p, "EOF packet expected");
	p->status = (uint16_t)mw_u16(b + 3);
	return 0;
}

/* An OK packet (header 0x00, or 0xfe ending a result set when
 * CLIENT_DEPRECATE_EOF was negotiated). */
static int mw_ok(struct mw_parser *p, const uint8_t *b, size_t n)
{
	size_t o = 1;
	uint64_t v;

	if (mw_lenenc(b, n, &o, &v) != 0 || mw_lenenc(b, n, &o, &v) != 0 ||
	    n - o < 4)
		return mw_bad(p, "OK packet truncated");
	p->status = (uint16_t)mw_u16(b + o);
	return 0;
}

static int mw_err(struct mw_parser *p, const uint8_t *b, size_t n)
{
	size_t o = 3, m;

	if (n < 3)
		return mw_bad(p, "ERR packet truncated");
	p->err_code = (uint16_t)mw_u16(b + 1);
	if (n >= 9 && b[3] == '#') {
		memcpy(p->sqlstate, b + 4, 5);
		p->sqlstate[5] = 0;
		o = 9;
	}
	m = n - o < MW_MSG - 1 ? n - o : MW_MSG - 1;
	memcpy(p->msg, b + o, m);
	p->msg[m] = 0;
	p->state = S_DONE;
	return MW_E_SERVER;
}

/* A binary row: 0x00, the NULL bitmap (offset 2), the non-NULL values. */
static int mw_row(struct mw_parser *p, const uint8_t *b, size_t n)
{
	size_t nb = (p->ncols + 9) / 8, o = 1 + nb;
	uint32_t i;
	int len;

	if (n < o)
		return mw_bad(p, "row: NULL bitmap truncated");
	if (b[1] & 3)
		return mw_bad(p, "row: reserved NULL bits set");
	for (i = p->ncols + 2; i < nb * 8; i++)
		if (b[1 + i / 8] & (1u << (i % 8)))
			return mw_bad(p, "row: NULL bit past the columns");
	for (i = 0; i < p->ncols; i++) {
		if (b[1 + (i + 2) / 8] & (1u << ((i + 2) % 8)))
			continue;
		len = mw_type_len(p->types[i]);
		if (len == -3)
			return mw_bad(p, "row: value of a NULL column");
		if (len > 0) {
			if (n - o < (size_t)len)
				return mw_bad(p, "row: value truncated");
			o += (size_t)len;
		} else if (len == -1) {
			if (o >= n || n - o - 1 < b[o])
				return mw_bad(p, "row: date truncated");
			o += 1 + (size_t)b[o];
		} else if (mw_skip_str(b, n, &o) != 0) {
			return mw_bad(p, "row: string truncated");
		}
	}
	if (o != n)
		return mw_bad(p, "row: trailing bytes");
	p->rows++;
	return 0;
}

/* After a block of definitions: its EOF, or (CLIENT_DEPRECATE_EOF)
 * none. */
static int mw_deprecate_eof(const struct mw_parser *p)
{
	return (p->caps & MW_CLIENT_DEPRECATE_EOF) != 0;
}

static int mw_prepare_ok(struct mw_parser *p, const uint8_t *b, size_t n)
{
	if (b[0] == 0xff)
		return mw_err(p, b, n);
	if (b[0] != 0x00 || n != 12 || b[9] != 0)
		return mw_bad(p, "COM_STMT_PREPARE OK expected");
	p->stmt_id = mw_u32(b + 1);
	p->ncols = mw_u16(b + 5);
	p->nparams = mw_u16(b + 7);
	if (p->ncols > MW_MAX_COLS)
		return mw_bad(p, "too many columns");
	p->ps_ncols = 0;
	p->state = p->nparams ? S_P_PARAM : p->ncols ? S_P_COL : S_DONE;
	return p->state == S_DONE ? MW_DONE : MW_MORE;
}

/* After the parameter definitions (and their EOF): the columns, if any. */
static int mw_p_cols(struct mw_parser *p)
{
	p->state = p->ncols ? S_P_COL : S_DONE;
	return p->state == S_DONE ? MW_DONE : MW_MORE;
}

/* The column count packet that starts a result set. */
static int mw_result_head(struct mw_parser *p, const uint8_t *b, size_t n)
{
	size_t o = 0;
	uint64_t v;
	int meta = 1;

	if (mw_lenenc(b, n, &o, &v) != 0 || v == 0)
		return mw_bad(p, "column count expected");
	if (v > MW_MAX_COLS)
		return mw_bad(p, "too many columns");
	if (p->caps & MW_MARIADB_CACHE_METADATA) {
		if (o >= n || b[o] > 1)
			return mw_bad(p, "metadata flag expected");
		meta = b[o++];
	}
	if (o != n)
		return mw_bad(p, "column count: trailing bytes");
	p->ncols = (uint32_t)v;
	p->col = 0;
	if (meta) {
		p->state = S_X_COL;
		return MW_MORE;
	}
	/* Metadata left out: the prepared statement's still holds. */
	if (p->ncols != p->ps_ncols)
		return mw_bad(p, "column count differs from the prepared one");
	memcpy(p->types, p->ps_types, p->ncols);
	p->state = mw_deprecate_eof(p) ? S_X_ROW : S_X_COL_EOF;
	return MW_MORE;
}

/* The end of a result set or an OK: another result, or the reply's end. */
static int mw_end(struct mw_parser *p)
{
	p->state = p->status & MW_MORE_RESULTS ? S_X_FIRST : S_DONE;
	return p->state == S_DONE ? MW_DONE : MW_MORE;
}

/* One packet of payload b[0..n), n > 0. */
/* A reply to COM_STMT_PREPARE: the prepare OK, then the parameters' and
 * columns' definitions, each list ended by EOF unless deprecated. */
static int mw_prepare_packet(struct mw_parser *p, const uint8_t *b, size_t n)
{
	uint8_t type;
	int rc;

	switch (p->state) {
	case S_P_FIRST:
		return mw_prepare_ok(p, b, n);
	case S_P_PARAM:
		if (b[0] == 0xff)
			return mw_err(p, b, n);
		if ((rc = mw_coldef(p, b, n, &type)) != 0)
			return rc;
		if (++p->param < p->nparams)
			return MW_MORE;
		if (mw_deprecate_eof(p))
			return mw_p_cols(p);
		p->state = S_P_PARAM_EOF;
		return MW_MORE;
	case S_P_PARAM_EOF:
		if (mw_eof(p, b, n) != 0)
			return MW_E_PROTO;
		return mw_p_cols(p);
	case S_P_COL:
		if (b[0] == 0xff)
			return mw_err(p, b, n);
		if ((rc = mw_coldef(p, b, n, &type)) != 0)
			return rc;
		p->ps_types[p->ps_ncols++] = type;
		if (p->ps_ncols < p->ncols)
			return MW_MORE;
		p->state = mw_deprecate_eof(p) ? S_DONE : S_P_COL_EOF;
		return p->state == S_DONE ? MW_DONE : MW_MORE;
	case S_P_COL_EOF:
		if (mw_eof(p, b, n) != 0)
			return MW_E_PROTO;
		p->state = S_DONE;
		return MW_DONE;
	default:	/* not reached: mw_packet dispatches by state */
		return mw_bad(p, "packet after the end of the reply");
	}
}

/* A reply to a query or COM_STMT_EXECUTE: OK or ERR, or a result set
 * (column count, definitions, rows, end). */
static int mw_exec_packet(struct mw_parser *p, const uint8_t *b, size_t n)
{
	int rc;

	switch (p->state) {
	case S_X_FIRST:
		if (b[0] == 0xff)
			return mw_err(p, b, n);
		if (b[0] == 0x00) {
			if (mw_ok(p, b, n) != 0)
				return MW_E_PROTO;
			return mw_end(p);
		}
		if (b[0] == 0xfb)
			return mw_bad(p, "LOCAL INFILE request");
		return mw_result_head(p, b, n);
	case S_X_COL:
		if (b[0] == 0xff)
			return mw_err(p, b, n);
		if ((rc = mw_coldef(p, b, n, &p->types[p->col])) != 0)
			return rc;
		if (++p->col < p->ncols)
			return MW_MORE;
		p->state = mw_deprecate_eof(p) ? S_X_ROW : S_X_COL_EOF;
		return MW_MORE;
	case S_X_COL_EOF:
		if (mw_eof(p, b, n) != 0)
			return MW_E_PROTO;
		p->state = S_X_ROW;
		return MW_MORE;
	case S_X_ROW:
		switch (b[0]) {
		case 0x00:
			return mw_row(p, b, n) != 0 ? MW_E_PROTO : MW_MORE;
		case 0xff:
			return mw_err(p, b, n);
		case 0xfe:
			if (p->caps & MW_CLIENT_DEPRECATE_EOF ?
			    mw_ok(p, b, n) != 0 : mw_eof(p, b, n) != 0)
				return MW_E_PROTO;
			return mw_end(p);
		default:
			return mw_bad(p, "row or EOF expected");
		}
	default:	/* not reached: mw_packet dispatches by state */
		return mw_bad(p, "packet after the end of the reply");
	}
}

static int mw_packet(struct mw_parser *p, const uint8_t *b, size_t n)
{
	/* MariaDB's progress reports ride in ERR packets with code 0xffff
	 * when the client asked for them; they do not end the reply. */
	if (b[0] == 0xff && n >= 3 && mw_u16(b + 1) == 0xffff &&
	    (p->caps & MW_CLIENT_PROGRESS) && p->state != S_DONE)
		return MW_MORE;
	switch (p->state) {
	case S_P_FIRST:
	case S_P_PARAM:
	case S_P_PARAM_EOF:
	case S_P_COL:
	case S_P_COL_EOF:
		return mw_prepare_packet(p, b, n);
	case S_X_FIRST:
	case S_X_COL:
	case S_X_COL_EOF:
	case S_X_ROW:
		return mw_exec_packet(p, b, n);
	default:
		return mw_bad(p, "packet after the end of the reply");
	}
}

int mw_feed(struct mw_parser *p, const uint8_t *buf, size_t len,
	    size_t *used)
{
	size_t off = 0;
	uint32_t plen;
	int rc;

	*used = 0;
	if (p->state == S_DONE) {
		p->error = "no reply expected";
		return len ? MW_E_PROTO : MW_MORE;
	}
	while (len - off >= MW_HDR) {
		plen = (uint32_t)buf[off] | (uint32_t)buf[off + 1] << 8 |
		       (uint32_t)buf[off + 2] << 16;
		if (plen > p->max_packet) {
			p->error = plen == 0xffffff ?
				   "payload split over several packets" :
				   "packet too long";
			return MW_E_TOOBIG;
		}
		if (buf[off + 3] != p->seq)
			return mw_bad(p, "packet out of sequence");
		if (plen == 0)
			return mw_bad(p, "empty packet");
		if (len - off - MW_HDR < plen)
			break;
		rc = mw_packet(p, buf + off + MW_HDR, plen);
		p->seq++;
		off += MW_HDR + plen;
		if (rc != MW_MORE) {
			if (rc == MW_E_SERVER || rc == MW_DONE)
				*used = off;
			if (rc == MW_DONE)
				p->state = S_DONE;
			return rc;
		}
	}
	*used = off;
	return MW_MORE;
}

size_t mw_prepare_req(uint8_t *buf, size_t cap, const char *sql,
		      size_t len)
{
	size_t n = len + 1;

	if (n > 0xfffffe || cap < MW_HDR + n)
		return 0;
	buf[0] = (uint8_t)n;
	buf[1] = (uint8_t)(n >> 8);
	buf[2] = (uint8_t)(n >> 16);
	buf[3] = 0;
	buf[4] = MW_COM_STMT_PREPARE;
	memcpy(buf + 5, sql, len);
	return MW_HDR + n;
}

void mw_execute_req(uint8_t *buf, uint32_t stmt_id, uint64_t v)
{
	static const uint8_t tail[] = {
		0x00,			/* flags: no cursor */
		1, 0, 0, 0,		/* iteration count */
		0x00,			/* NULL bitmap of one parameter */
		0x01,			/* types follow */
		MW_TYPE_LONGLONG, 0x80,	/* BIGINT UNSIGNED */
	};

	buf[0] = MW_EXEC_LEN - MW_HDR;
	buf[1] = buf[2] = buf[3] = 0;
	buf[4] = MW_COM_STMT_EXECUTE;
	buf[5] = (uint8_t)stmt_id;
	buf[6] = (uint8_t)(stmt_id >> 8);
	buf[7] = (uint8_t)(stmt_id >> 16);
	buf[8] = (uint8_t)(stmt_id >> 24);
	memcpy(buf + 9, tail, sizeof(tail));
	mw_execute_arg(buf, v);
}
