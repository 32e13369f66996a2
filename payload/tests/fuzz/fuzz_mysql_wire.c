/* fuzz_mysql_wire.c: libFuzzer target for the binary-protocol reply
 * parser: arbitrary bytes as a PREPARE or EXECUTE reply under arbitrary
 * capabilities, whole and split; checks the parser's own invariants. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "load/sql/mysql_wire.h"

#define CAP 2048

static const uint64_t caps_bits[] = {
	MW_CLIENT_PROTOCOL_41, MW_CLIENT_DEPRECATE_EOF, MW_CLIENT_PROGRESS,
	MW_MARIADB_EXTENDED_METADATA, MW_MARIADB_CACHE_METADATA,
};

static void start(struct mw_parser *p, uint64_t caps, int kind, int prime)
{
	mw_init(p, caps, CAP - MW_HDR);
	if (prime) {
		p->ps_ncols = 2;
		p->ps_types[0] = 8;
		p->ps_types[1] = 254;
	}
	mw_expect(p, kind);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t acc[CAP];
	struct mw_parser w, s;
	uint64_t caps = 0;
	size_t i, used, wused, off = 0, alen = 0, sused = 0, step;
	int rc, src = MW_MORE, kind, prime;

	if (size < 2)
		return 0;
	for (i = 0; i < 5; i++)
		if (data[0] & (1u << i))
			caps |= caps_bits[i];
	kind = data[0] & 0x20 ? MW_PREPARE : MW_EXECUTE;
	prime = (data[0] & 0x40) != 0;
	step = data[1] % 17 + 1;
	data += 2;
	size -= 2;

	start(&w, caps, kind, prime);
	rc = mw_feed(&w, data, size, &wused);
	if (wused > size || (rc == MW_MORE && size - wused > CAP))
		return 0;	/* longer than any buffer the engine has */
	if ((rc == MW_DONE || rc == MW_E_SERVER) && wused == 0)
		abort();
	if ((rc == MW_E_PROTO || rc == MW_E_TOOBIG) && !w.error)
		abort();
	if (rc == MW_E_SERVER && strlen(w.msg) >= MW_MSG)
		abort();

	/* The same bytes in chunks of step, as the engine reads them. */
	start(&s, caps, kind, prime);
	while (off < size) {
		size_t k = size - off < step ? size - off : step;

		if (alen + k > CAP)
			return 0;
		memcpy(acc + alen, data + off, k);
		alen += k;
		off += k;
		src = mw_feed(&s, acc, alen, &used);
		if (used > alen)
			abort();
		sused += used;
		memmove(acc, acc + used, alen - used);
		alen -= used;
		if (src != MW_MORE)
			break;
	}
	if (src != rc || s.rows != w.rows || s.err_code != w.err_code ||
	    s.stmt_id != w.stmt_id)
		abort();
	if ((rc == MW_DONE || rc == MW_E_SERVER) && sused != wused)
		abort();
	return 0;
}
