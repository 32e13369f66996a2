/* fuzz_smtp_reply.c: libFuzzer target for the SMTP wire parsers: the
 * client's reply parser (whole and split), the sink's command parser and
 * its DATA scanner.  Checks the parsers' own invariants, not just crashes. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "load/smtp/smtp_proto.h"

static void fuzz_replies(const char *buf, size_t len, size_t split)
{
	struct smtp_reply whole, part;
	size_t off = 0, used, pused;
	int rc, prc;

	/* Parse reply after reply; a split feed must agree with a whole one. */
	while (off < len) {
		smtp_reply_init(&whole);
		rc = smtp_reply_feed(&whole, buf + off, len - off, &used);
		smtp_reply_init(&part);
		prc = smtp_reply_feed(&part, buf + off,
				      split < len - off ? split : len - off,
				      &pused);
		if (prc == 0 && split < len - off)
			prc = smtp_reply_feed(&part, buf + off + split,
					      len - off - split, &pused),
			pused += prc == 1 ? split : 0;
		if (rc != prc)
			abort();
		if (rc < 0) {
			if (!whole.err || rc != -EPROTO)
				abort();
			return;
		}
		if (rc == 0)
			return;
		if (used == 0 || used > len - off || used != pused ||
		    whole.code != part.code || whole.ext != part.ext ||
		    whole.code < 200 || whole.code > 559 || whole.lines < 1)
			abort();
		off += used;
	}
}

static void fuzz_commands(const char *buf, size_t len)
{
	const char *p = buf, *end = buf + len, *nl, *arg;
	size_t alen;
	int v;

	while (p < end) {
		nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			nl = end;
		v = smtp_cmd_parse(p, (size_t)(nl - p), &arg, &alen);
		if (v != -EINVAL && (v < SMTP_V_UNKNOWN || v > SMTP_V_VRFY ||
				     arg < p || arg + alen != nl))
			abort();
		p = nl + 1;
	}
}

static void fuzz_data(const uint8_t *data, size_t len)
{
	struct smtp_data d, d2;
	size_t used, out, used2, out2;
	char *copy = malloc(len ? len : 1);

	memcpy(copy, data, len);
	smtp_data_init(&d);
	used = smtp_data_scan(&d, copy, len, 1, &out);
	smtp_data_init(&d2);
	used2 = smtp_data_scan(&d2, (char *)data, len, 0, &out2);
	if (used > len || out > used || used != used2 || out != out2 ||
	    d.done != d2.done)
		abort();
	if (!d.done && len - used > 2)
		abort();	/* only an undecided dot line is left over */
	free(copy);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t split;

	if (size == 0)
		return 0;
	split = data[0] % 32 + 1;
	fuzz_replies((const char *)data + 1, size - 1, split);
	fuzz_commands((const char *)data + 1, size - 1);
	fuzz_data(data + 1, size - 1);
	return 0;
}
