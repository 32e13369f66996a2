/* test_auth.c: the lab key (auth.h): keys refused with why, proofs and
 * line tags against values computed independently (Python's hmac, in
 * the comments), and a sealed connection that refuses a replayed,
 * altered or reordered line. */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "proto/auth.h"
#include "proto/control.h"
#include "tap.h"

#define KEY "lab-key-for-tests-0123456789abcdef"
#define AN "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
#define CN "cccccccccccccccccccccccccccccccc"

static void key_cases(void)
{
	static const struct {
		const char *text;
		int rc;
		const char *msg;
	} keys[] = {
		{ KEY, 0, "" },
		{ KEY "\n", 0, "" },
		{ "0123456789abcdef", 0, "" },
		{ "0123456789abcde", -EINVAL, "at least 16" },
		{ "", -EINVAL, "at least 16" },
		{ "0123456789\tabcdefgh", -EINVAL, "control character at position 11" },
	};
	struct auth_key k;
	char err[128];
	size_t i;

	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		int rc;

		err[0] = 0;
		rc = auth_key_set(&k, keys[i].text, err, sizeof(err));
		tap_ok(rc == keys[i].rc && strstr(err, keys[i].msg),
		       "key %zu: rc %d %s", i, keys[i].rc, err);
	}
	auth_key_set(&k, KEY "\n", err, sizeof(err));
	TAP_EQ_INT(k.len, strlen(KEY), "a trailing newline is not key");
	TAP_EQ_INT(auth_key_load(&k, "/nonexistent/key", err, sizeof(err)),
		   -ENOENT, "a missing key file");
	tap_ok(strstr(err, "/nonexistent/key") != NULL,
	       "the message names the file");
}

static void proof_cases(void)
{
	/* hmac.new(KEY, b"benchboot/1 controller|" + AN + b"|" + CN,
	 * sha256).hexdigest() */
	static const char want[] =
		"783f288b88ea952ec5ad8ba2df0aaec48b5747ecc2f8b122be41a7b63649c60f";
	char got[AUTH_HEX_MAC + 1], n1[AUTH_HEX_NONCE + 1], n2[33];
	struct auth_key k;

	auth_key_set(&k, KEY, NULL, 0);
	auth_proof(&k, AUTH_LABEL_CONTROLLER, AN, CN, got);
	TAP_EQ_STR(got, want, "controller proof = HMAC-SHA256 of the spec");
	tap_ok(auth_proof_ok(&k, AUTH_LABEL_CONTROLLER, AN, CN, want),
	       "proof accepted");
	tap_ok(!auth_proof_ok(&k, AUTH_LABEL_AGENT, AN, CN, want),
	       "one side's proof is not the other's");
	tap_ok(!auth_proof_ok(&k, AUTH_LABEL_CONTROLLER, CN, AN, want),
	       "nonces swapped: refused");
	tap_ok(!auth_proof_ok(&k, AUTH_LABEL_CONTROLLER, AN, CN, "783f"),
	       "a short proof: refused");
	TAP_EQ_INT(auth_nonce(n1), 0, "a nonce");
	auth_nonce(n2);
	tap_ok(strlen(n1) == 32 && strcmp(n1, n2) != 0,
	       "nonces are 32 hex digits and fresh");
}

/* A controller-side connection sealing into a socket pair, read back by an
 * agent-side one. */
static void seal_cases(void)
{
	/* hmac.new(hmac.new(KEY, b"benchboot/1 session|" + AN + CN,
	 * sha256).digest(), b"C" + (0).to_bytes(8, "big") + MSG, sha256) */
	static const char tag0[] =
		"5b820d7ecc685bd1c9724ccad413826c886f17d4be4a5d50d1e9ac382739b3ea";
	struct auth_session cs, as;
	struct control_conn tx, rx;
	struct auth_key k;
	cJSON *done = control_msg_new(CONTROL_DONE);
	char buf[512];
	const char *line;
	size_t len;
	ssize_t n;
	int p[2];

	auth_key_set(&k, KEY, NULL, 0);
	auth_session_init(&cs, &k, AN, CN, 1);
	auth_session_init(&as, &k, AN, CN, 0);
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, p) != 0)
		return;
	control_conn_init(&tx, p[1]);
	control_conn_init(&rx, -1);
	auth_attach(&tx, &cs);
	auth_attach(&rx, &as);
	control_conn_send(&tx, done);
	control_conn_send(&tx, done);
	n = recv(p[0], buf, sizeof(buf), MSG_DONTWAIT);
	tap_ok(n > 65 && memcmp(buf, tag0, 64) == 0 && buf[64] == ' ',
	       "the first line's tag is HMAC(session key, C, 0, message)");
	control_conn_feed(&rx, buf, (size_t)n);
	TAP_EQ_INT(control_conn_line(&rx, &line, &len), 1, "first line opens");
	tap_ok(len == 21 && memcmp(line, "{\"v\":1,\"type\":\"done\"}", 21) == 0,
	       "and comes out without its tag");
	TAP_EQ_INT(control_conn_line(&rx, &line, &len), 1, "second line opens");
	/* The first line again: its sequence number is spent. */
	control_conn_feed(&rx, buf, (size_t)n / 2);
	TAP_EQ_INT(control_conn_line(&rx, &line, &len), -EBADMSG,
		   "a replayed line is refused");
	control_conn_close(&tx);
	control_conn_close(&rx);
	control_conn_init(&rx, -1);
	auth_session_init(&as, &k, AN, CN, 0);
	auth_attach(&rx, &as);
	buf[70] ^= 1;
	control_conn_feed(&rx, buf, (size_t)n);
	TAP_EQ_INT(control_conn_line(&rx, &line, &len), -EBADMSG,
		   "an altered line is refused");
	control_conn_close(&rx);
	control_conn_init(&rx, -1);
	auth_session_init(&as, &k, AN, CN, 1);
	auth_attach(&rx, &as);
	buf[70] ^= 1;
	control_conn_feed(&rx, buf, (size_t)n);
	TAP_EQ_INT(control_conn_line(&rx, &line, &len), -EBADMSG,
		   "a line reflected back to its sender is refused");
	control_conn_close(&rx);
	close(p[0]);
	cJSON_Delete(done);
}

int main(void)
{
	key_cases();
	proof_cases();
	seal_cases();
	return tap_done();
}
