/* fuzz_auth.c: libFuzzer target for what a keyed connection takes from a
 * peer before and after the handshake: arbitrary tagged lines (none may
 * open without the key), arbitrary proofs (none accepted), a fuzzed
 * message sealed by one side (opens on the other exactly once, byte for
 * byte).  The agent's policy is not fuzzed here: it resolves an argv
 * with the workloads' own option tables (agent/policy.h), which link the
 * whole load generators; test_policy.c covers it table by table. */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "proto/auth.h"
#include "proto/control.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define AN "0123456789abcdef0123456789abcdef"
#define CN "fedcba9876543210fedcba9876543210"

/* Feeds data as received lines into a keyed connection: every line must
 * be refused (no input can carry a tag made with the key). */
static void fuzz_open(const struct auth_key *k, const uint8_t *data,
		      size_t size)
{
	struct auth_session s;
	struct control_conn c;
	const char *line;
	size_t len;
	int rc;

	auth_session_init(&s, k, AN, CN, 1);
	control_conn_init(&c, -1);
	auth_attach(&c, &s);
	if (control_conn_feed(&c, data, size) == 0)
		while ((rc = control_conn_line(&c, &line, &len)) != 0) {
			if (rc == 1)
				__builtin_trap();	/* forged line opened */
			if (rc != -EBADMSG)
				break;
		}
	control_conn_close(&c);
	if (size < 200) {
		char proof[201];

		memcpy(proof, data, size);
		proof[size] = 0;
		if (auth_proof_ok(k, AUTH_LABEL_AGENT, AN, CN, proof))
			__builtin_trap();		/* forged proof */
	}
}

/* Seals data (a message without newlines) on one side, opens it on the
 * other: once exactly, and the same bytes; a second time never. */
static void fuzz_roundtrip(const struct auth_key *k, const uint8_t *data,
			   size_t size)
{
	struct auth_session tx, rx;
	struct control_conn c;
	char buf[AUTH_HEX_MAC + 1 + 4096 + 1];
	const char *line;
	size_t len;

	if (size > 4096 || memchr(data, '\n', size))
		return;
	auth_session_init(&tx, k, AN, CN, 1);
	auth_session_init(&rx, k, AN, CN, 0);
	/* What control_conn_send writes: tag, space, message, newline. */
	{
		struct control_conn w = { .fd = -1 };

		auth_attach(&w, &tx);
		w.auth->seal(w.auth_ctx, (const char *)data, size, buf);
	}
	memcpy(buf + AUTH_HEX_MAC + 1, data, size);
	buf[AUTH_HEX_MAC + 1 + size] = '\n';
	control_conn_init(&c, -1);
	auth_attach(&c, &rx);
	control_conn_feed(&c, buf, AUTH_HEX_MAC + 2 + size);
	control_conn_feed(&c, buf, AUTH_HEX_MAC + 2 + size);
	if (control_conn_line(&c, &line, &len) != 1)
		__builtin_trap();			/* sealed, not opened */
	/* A message ending in CR loses it in framing (CRLF tolerance):
	 * then the tag fails, which is right; otherwise bytes match. */
	if (len != size || memcmp(line, data, size) != 0)
		__builtin_trap();
	if (control_conn_line(&c, &line, &len) != -EBADMSG)
		__builtin_trap();			/* replay opened */
	control_conn_close(&c);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct auth_key k;

	auth_key_set(&k, "fuzzing-lab-key-0123456789", NULL, 0);
	fuzz_open(&k, data, size);
	if (!size || data[size - 1] != '\r')
		fuzz_roundtrip(&k, data, size);
	return 0;
}
