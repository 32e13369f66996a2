/* proto/auth.h: the lab key.  Every control connection of a keyed lab starts
 * with a challenge-response handshake in which each side proves it knows
 * the key (HMAC-SHA256 over both sides' fresh nonces, so nothing recorded
 * can be replayed), and every line after it carries an HMAC-SHA256 tag
 * under a key derived for that connection, with a per-direction sequence
 * number, so a line cannot be forged, altered, replayed or reordered
 * (docs/security.md, docs/protocol.md). */
#ifndef BB_AUTH_H
#define BB_AUTH_H

#include <stddef.h>
#include <stdint.h>

#include "proto/control.h"

/* Shortest key accepted, in bytes of its text (a 128-bit key in hex is
 * 32 characters; a passphrase as long as that is as hard to guess). */
#define AUTH_KEY_MIN 16
#define AUTH_KEY_MAX 256
#define AUTH_NONCE 16			/* bytes */
#define AUTH_HEX_NONCE (2 * AUTH_NONCE)	/* its hex characters */
#define AUTH_HEX_MAC 64			/* an HMAC-SHA256 in hex */

struct auth_key {
	uint8_t k[AUTH_KEY_MAX];
	size_t len;			/* 0: no key (an open lab) */
};

/* Takes key text (trailing newline and blanks cut) as the key.  Returns
 * 0, or -EINVAL with the reason in err: shorter than AUTH_KEY_MIN, longer
 * than AUTH_KEY_MAX, or holding a control character. */
int auth_key_set(struct auth_key *key, const char *text, char *err,
		 size_t errlen);

/* Reads the key from the first line of path (a key file on the stick or
 * in the netboot tree).  Returns 0, or a negative errno with the reason
 * (naming the path) in err. */
int auth_key_load(struct auth_key *key, const char *path, char *err,
		  size_t errlen);

/* Fresh random nonce as AUTH_HEX_NONCE hex characters plus a NUL into
 * hex.  Returns 0 or a negative errno (no randomness: refuse to go on). */
int auth_nonce(char hex[AUTH_HEX_NONCE + 1]);

/* The proof of one side: hex HMAC-SHA256(key, label "|" agent_nonce "|"
 * controller_nonce) into out (AUTH_HEX_MAC + 1 bytes).  The labels differ
 * per side so one side's proof is never the other's. */
#define AUTH_LABEL_CONTROLLER "benchboot/1 controller"
#define AUTH_LABEL_AGENT "benchboot/1 agent"
void auth_proof(const struct auth_key *key, const char *label,
		const char *agent_nonce, const char *control_nonce,
		char out[AUTH_HEX_MAC + 1]);

/* Whether got (any length) equals the proof expected, in constant time. */
int auth_proof_ok(const struct auth_key *key, const char *label,
		  const char *agent_nonce, const char *control_nonce,
		  const char *got);

/* One connection's message authentication after the handshake. */
struct auth_session {
	uint8_t k[32];			/* derived from the key and nonces */
	char tx_dir, rx_dir;		/* 'A' agent->controller, 'C' back */
	uint64_t tx_seq, rx_seq;
};

/* Derives the connection's key from both nonces and starts sequence
 * numbers at 0; is_controller picks the directions. */
void auth_session_init(struct auth_session *s, const struct auth_key *key,
		       const char *agent_nonce, const char *control_nonce,
		       int is_controller);

/* Makes c seal every line it sends and check every line it takes with s
 * (which must outlive c's use).  A line that fails the check makes
 * control_conn_line() return -EBADMSG. */
void auth_attach(struct control_conn *c, struct auth_session *s);

#endif
