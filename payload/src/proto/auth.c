/* proto/auth.c: lab key, handshake proofs and line tags over mbedTLS's
 * HMAC-SHA256 (auth.h).  mbedTLS is already linked for libcurl's TLS, so
 * no cryptography is written here. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>

#include <mbedtls/md.h>

#include "proto/auth.h"
#include "lib/util.h"

static const char hexdig[] = "0123456789abcdef";

static void auth_hex(const uint8_t *b, size_t n, char *out)
{
	size_t i;

	for (i = 0; i < n; i++) {
		out[2 * i] = hexdig[b[i] >> 4];
		out[2 * i + 1] = hexdig[b[i] & 15];
	}
	out[2 * n] = 0;
}

/* HMAC-SHA256 over up to three parts (NULL parts skipped). */
static void auth_hmac(const uint8_t *key, size_t klen, const void *a,
		      size_t alen, const void *b, size_t blen, const void *c,
		      size_t clen, uint8_t out[32])
{
	const mbedtls_md_info_t *md =
		mbedtls_md_info_from_type(MBEDTLS_MD_SHA256);
	mbedtls_md_context_t ctx;

	mbedtls_md_init(&ctx);
	if (mbedtls_md_setup(&ctx, md, 1) != 0 ||
	    mbedtls_md_hmac_starts(&ctx, key, klen) != 0) {
		/* Cannot happen with a static build that has SHA-256; a
		 * zero tag then fails every check rather than passing. */
		memset(out, 0, 32);
		mbedtls_md_free(&ctx);
		return;
	}
	if (a)
		mbedtls_md_hmac_update(&ctx, a, alen);
	if (b)
		mbedtls_md_hmac_update(&ctx, b, blen);
	if (c)
		mbedtls_md_hmac_update(&ctx, c, clen);
	mbedtls_md_hmac_finish(&ctx, out);
	mbedtls_md_free(&ctx);
}

int auth_key_set(struct auth_key *key, const char *text, char *err,
		 size_t errlen)
{
	size_t n = strlen(text), i;

	while (n > 0 && (text[n - 1] == '\n' || text[n - 1] == '\r' ||
			 text[n - 1] == ' ' || text[n - 1] == '\t'))
		n--;
	if (n < AUTH_KEY_MIN)
		return util_fail(err, errlen, -EINVAL, "lab key of %zu characters: at least %d are needed", n, AUTH_KEY_MIN);
	if (n > AUTH_KEY_MAX)
		return util_fail(err, errlen, -EINVAL, "lab key of %zu characters: at most %d are allowed", n, AUTH_KEY_MAX);
	for (i = 0; i < n; i++)
		if ((unsigned char)text[i] < 0x20 || text[i] == 0x7f)
			return util_fail(err, errlen, -EINVAL, "lab key: control character at position %zu", i + 1);
	memcpy(key->k, text, n);
	key->len = n;
	return 0;
}

int auth_key_load(struct auth_key *key, const char *path, char *err,
		  size_t errlen)
{
	char buf[AUTH_KEY_MAX + 4], why[128];
	FILE *f = fopen(path, "r");
	int rc;

	if (!f)
		return util_fail(err, errlen, -errno, "key file %s: %s", path, strerror(errno));
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = 0;
	fclose(f);
	rc = auth_key_set(key, buf, why, sizeof(why));
	if (rc != 0)
		return util_fail(err, errlen, rc, "key file %s: %s", path, why);
	return 0;
}

int auth_nonce(char hex[AUTH_HEX_NONCE + 1])
{
	uint8_t b[AUTH_NONCE];
	size_t got = 0;

	while (got < sizeof(b)) {
		ssize_t n = getrandom(b + got, sizeof(b) - got, 0);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		got += (size_t)n;
	}
	auth_hex(b, sizeof(b), hex);
	return 0;
}

void auth_proof(const struct auth_key *key, const char *label,
		const char *agent_nonce, const char *control_nonce,
		char out[AUTH_HEX_MAC + 1])
{
	char msg[128];
	uint8_t mac[32];
	int n;

	n = snprintf(msg, sizeof(msg), "%s|%.32s|%.32s", label, agent_nonce,
		     control_nonce);
	auth_hmac(key->k, key->len, msg, (size_t)n, NULL, 0, NULL, 0, mac);
	auth_hex(mac, sizeof(mac), out);
}

/* Compares n bytes without an early exit: how far a guess matched must
 * not show in the time it takes to refuse it. */
static int auth_equal(const char *a, const char *b, size_t n)
{
	unsigned char d = 0;
	size_t i;

	for (i = 0; i < n; i++)
		d |= (unsigned char)(a[i] ^ b[i]);
	return d == 0;
}

int auth_proof_ok(const struct auth_key *key, const char *label,
		  const char *agent_nonce, const char *control_nonce,
		  const char *got)
{
	char want[AUTH_HEX_MAC + 1];

	if (!got || strlen(got) != AUTH_HEX_MAC)
		return 0;
	auth_proof(key, label, agent_nonce, control_nonce, want);
	return auth_equal(want, got, AUTH_HEX_MAC);
}

void auth_session_init(struct auth_session *s, const struct auth_key *key,
		       const char *agent_nonce, const char *control_nonce,
		       int is_controller)
{
	memset(s, 0, sizeof(*s));
	auth_hmac(key->k, key->len, "benchboot/1 session|", 20, agent_nonce,
		  strlen(agent_nonce), control_nonce, strlen(control_nonce), s->k);
	s->tx_dir = is_controller ? 'C' : 'A';
	s->rx_dir = is_controller ? 'A' : 'C';
}

/* The tag of one line: HMAC(session key, direction, seq, message). */
static void auth_tag(const struct auth_session *s, char dir, uint64_t seq,
		     const char *msg, size_t len, char out[AUTH_HEX_MAC + 1])
{
	uint8_t hdr[9], mac[32];
	int i;

	hdr[0] = (uint8_t)dir;
	for (i = 0; i < 8; i++)
		hdr[1 + i] = (uint8_t)(seq >> (56 - 8 * i));
	auth_hmac(s->k, sizeof(s->k), hdr, sizeof(hdr), msg, len, NULL, 0,
		  mac);
	auth_hex(mac, sizeof(mac), out);
}

static int auth_seal(void *ctx, const char *msg, size_t len, char *tag)
{
	struct auth_session *s = ctx;
	char hex[AUTH_HEX_MAC + 1];

	auth_tag(s, s->tx_dir, s->tx_seq++, msg, len, hex);
	memcpy(tag, hex, AUTH_HEX_MAC);
	tag[AUTH_HEX_MAC] = ' ';
	return 0;
}

static int auth_open(void *ctx, const char *line, size_t len)
{
	struct auth_session *s = ctx;
	char want[AUTH_HEX_MAC + 1];

	if (len < AUTH_HEX_MAC + 1 || line[AUTH_HEX_MAC] != ' ')
		return -EBADMSG;
	auth_tag(s, s->rx_dir, s->rx_seq, line + AUTH_HEX_MAC + 1,
		 len - AUTH_HEX_MAC - 1, want);
	if (!auth_equal(want, line, AUTH_HEX_MAC))
		return -EBADMSG;
	s->rx_seq++;
	return 0;
}

static const struct control_auth auth_ops = {
	.tag_len = AUTH_HEX_MAC + 1,
	.seal = auth_seal,
	.open = auth_open,
};

void auth_attach(struct control_conn *c, struct auth_session *s)
{
	c->auth = &auth_ops;
	c->auth_ctx = s;
}
