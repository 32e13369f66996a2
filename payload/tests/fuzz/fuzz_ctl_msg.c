/* fuzz_ctl_msg.c: libFuzzer target for what the controller and agents read
 * from the network: bytes go through the line reassembly (ctl_conn_feed +
 * ctl_conn_line, split at a fuzzer-chosen point) and every line through
 * ctl_msg_parse's validation. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "ctl.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ctl_conn c;
	struct ctl_msg m;
	const char *line;
	char err[256];
	size_t len, cut;
	int rc;

	/* Whole input as one message (no framing). */
	if (ctl_msg_parse((const char *)data, size, &m, err, sizeof(err)) == 0)
		ctl_msg_free(&m);
	/* Framed: two reads, split where the first byte says. */
	cut = size ? data[0] % (size + 1) : 0;
	ctl_conn_init(&c, -1);
	for (int part = 0; part < 2; part++) {
		const uint8_t *p = part ? data + cut : data;
		size_t n = part ? size - cut : cut;

		if (ctl_conn_feed(&c, p, n) != 0)
			break;
		while ((rc = ctl_conn_line(&c, &line, &len)) == 1) {
			if (ctl_msg_parse(line, len, &m, err,
					  sizeof(err)) == 0) {
				/* Touch what a handler would use. */
				if (m.type == CTL_RUN && m.procs)
					(void)cJSON_GetArraySize(m.procs);
				ctl_msg_free(&m);
			} else if (strlen(err) == 0) {
				__builtin_trap();	/* errors must say why */
			}
		}
		if (rc < 0)
			break;
	}
	ctl_conn_close(&c);
	return 0;
}
