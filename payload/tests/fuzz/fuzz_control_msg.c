/* fuzz_control_msg.c: libFuzzer target for what the controller and agents read
 * from the network: bytes go through the line reassembly (control_conn_feed +
 * control_conn_line, split at a fuzzer-chosen point) and every line through
 * control_msg_parse's validation. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "proto/control.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct control_conn c;
	struct control_msg m;
	const char *line;
	char err[256];
	size_t len, cut;
	int rc;

	/* Whole input as one message (no framing). */
	if (control_msg_parse((const char *)data, size, &m, err, sizeof(err)) == 0)
		control_msg_free(&m);
	/* Framed: two reads, split where the first byte says. */
	cut = size ? data[0] % (size + 1) : 0;
	control_conn_init(&c, -1);
	for (int part = 0; part < 2; part++) {
		const uint8_t *p = part ? data + cut : data;
		size_t n = part ? size - cut : cut;

		if (control_conn_feed(&c, p, n) != 0)
			break;
		while ((rc = control_conn_line(&c, &line, &len)) == 1) {
			if (control_msg_parse(line, len, &m, err,
					  sizeof(err)) == 0) {
				/* Touch what a handler would use. */
				if (m.type == CONTROL_RUN && m.procs)
					(void)cJSON_GetArraySize(m.procs);
				control_msg_free(&m);
			} else if (strlen(err) == 0) {
				__builtin_trap();	/* errors must say why */
			}
		}
		if (rc < 0)
			break;
	}
	control_conn_close(&c);
	return 0;
}
