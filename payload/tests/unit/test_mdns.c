/* test_mdns.c: the mDNS packet layer: a table of valid and malformed
 * packets (each malformation class rejected with a message naming it),
 * the builder's compression and limits, names and TXT. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "mdns/mdns.h"
#include "tap.h"

/* Packet literals: header fields as 3-digit octal so a following letter
 * is never read as part of an escape. */
#define HDR(qd, an, ns, ar) "\000\000\000\000" \
	"\000" qd "\000" an "\000" ns "\000" ar
#define QR_HDR(an, ar) "\000\000\204\000\000\000\000" an "\000\000\000" ar
#define N_LOCAL "\001a\005local\000"		/* a.local, 9 bytes */
#define T_A "\000\001"
#define T_PTR "\000\014"
#define T_TXT "\000\020"
#define T_SRV "\000\041"
#define T_AAAA "\000\034"
#define T_NSEC "\000\057"
#define C_IN "\000\001"
#define TTL120 "\000\000\000\170"

struct pcase {
	const char *what;
	const char *pkt;
	size_t len;
	int rc;
	const char *msg;	/* substring of the error, or NULL */
};

#define P(s) s, sizeof(s) - 1

static const struct pcase cases[] = {
	/* valid */
	{ "query for a.local A", P(HDR("\001", "\000", "\000", "\000")
	  N_LOCAL T_A C_IN), 0, NULL },
	{ "response with A record", P(QR_HDR("\001", "\000") N_LOCAL T_A
	  "\200\001" TTL120 "\000\004" "\012\000\000\001"), 0, NULL },
	{ "compressed owner name (pointer to offset 12)",
	  P(HDR("\001", "\001", "\000", "\000") N_LOCAL T_A C_IN
	    "\300\014" T_A C_IN TTL120 "\000\004" "\001\002\003\004"), 0,
	  NULL },
	{ "pointer to a pointer (chain going back)",
	  P(HDR("\002", "\001", "\000", "\000") N_LOCAL T_A C_IN
	    "\001b\300\014" T_A C_IN "\300\025" T_A C_IN TTL120
	    "\000\004" "\001\002\003\004"), 0, NULL },
	{ "empty TXT (rdlength 0) tolerated",
	  P(HDR("\000", "\001", "\000", "\000") N_LOCAL T_TXT C_IN TTL120
	    "\000\000"), 0, NULL },
	{ "unknown type: rdata kept opaque",
	  P(HDR("\000", "\001", "\000", "\000") N_LOCAL "\000\143" C_IN
	    TTL120 "\000\003" "xyz"), 0, NULL },
	{ "EDNS OPT in additional (as dig sends)",
	  P(HDR("\001", "\000", "\000", "\001") N_LOCAL T_A C_IN "\000"
	    "\000\051" "\004\320" "\000\000\000\000" "\000\000"), 0, NULL },
	{ "NSEC with a one-block bitmap",
	  P(HDR("\000", "\001", "\000", "\000") N_LOCAL T_NSEC C_IN TTL120
	    "\000\005" "\300\014" "\000\001\100"), 0, NULL },

	/* header and counts */
	{ "5-byte packet", P("\000\000\000\000\000"), -EBADMSG,
	  "shorter than the 12-byte header" },
	{ "qdcount 2, one question (lying count)",
	  P(HDR("\002", "\000", "\000", "\000") N_LOCAL T_A C_IN),
	  -EBADMSG, "claims 2 questions but the packet ends after 1" },
	{ "ancount 3, one answer (lying count)",
	  P(HDR("\000", "\003", "\000", "\000") N_LOCAL T_A C_IN TTL120
	    "\000\004" "\001\002\003\004"), -EBADMSG,
	  "claims 3 answer records but the packet ends after 1" },
	{ "arcount 1, none present", P(HDR("\000", "\000", "\000", "\001")),
	  -EBADMSG, "additional 1 of 1: the header claims 1 additional" },
	{ "trailing bytes (counts too small)",
	  P(HDR("\001", "\000", "\000", "\000") N_LOCAL T_A C_IN "junk"),
	  -EBADMSG, "4 trailing bytes at offset 25" },

	/* truncation */
	{ "question without type and class",
	  P(HDR("\001", "\000", "\000", "\000") N_LOCAL "\000"), -EBADMSG,
	  "type and class need 4 bytes, 1 left" },
	{ "record without its fixed fields",
	  P(HDR("\000", "\001", "\000", "\000") N_LOCAL T_A C_IN),
	  -EBADMSG, "need 10 bytes, 4 left" },
	{ "rdlength past the end",
	  P(HDR("\000", "\001", "\000", "\000") N_LOCAL T_A C_IN TTL120
	    "\000\010" "\001\002\003\004"), -EBADMSG,
	  "rdlength 8 at offset 29 runs past the end of the packet (4 bytes "
	  "left)" },
	{ "label runs past the end",
	  P(HDR("\001", "\000", "\000", "\000") "\012abc"), -EBADMSG,
	  "label at offset 12 claims 10 bytes, only 3 left" },
	{ "name without root label",
	  P(HDR("\001", "\000", "\000", "\000") "\001a"), -EBADMSG,
	  "without its root label" },
	{ "compression pointer cut off",
	  P(HDR("\001", "\000", "\000", "\000") "\300"), -EBADMSG,
	  "compression pointer at offset 12 is cut off" },

	/* compression */
	{ "pointer to itself (loop)",
	  P(HDR("\001", "\000", "\000", "\000") "\300\014" T_A C_IN),
	  -EBADMSG, "points forward or into its own name (12 >= 12)" },
	{ "pointer into its own name (loop)",
	  P(HDR("\001", "\000", "\000", "\000") "\001a\300\014" T_A C_IN),
	  -EBADMSG, "offset 14 points forward or into its own name" },
	{ "forward pointer",
	  P(HDR("\001", "\000", "\000", "\000") "\300\020" T_A C_IN
	    N_LOCAL), -EBADMSG, "points forward" },
	{ "back then forward again (two-hop loop)",
	  P(HDR("\002", "\000", "\000", "\000") "\001a\300\025" T_A C_IN
	    "\300\014" T_A C_IN), -EBADMSG,
	  "question 1 of 2: compression pointer at offset 14 points "
	  "forward" },
	{ "pointer into the header",
	  P(HDR("\001", "\000", "\000", "\000") "\300\005" T_A C_IN),
	  -EBADMSG, "points into the header (5)" },

	/* labels and names */
	{ "label type 01 (label length 64 reads as 0x40)",
	  P(HDR("\001", "\000", "\000", "\000") "\100abc"), -EBADMSG,
	  "reserved type bits 0x40" },
	{ "label type 10 (extended)",
	  P(HDR("\001", "\000", "\000", "\000") "\200abc"), -EBADMSG,
	  "reserved type bits 0x80" },

	/* rdata */
	{ "A with rdlength 5",
	  P(HDR("\000", "\001", "\000", "\000") N_LOCAL T_A C_IN TTL120
	    "\000\005" "\001\002\003\004\005"), -EBADMSG,
	  "'a.local' A): A rdlength 5 at offset 29, want 4" },
	{ "AAAA with rdlength 4",
	  P(HDR("\000", "\001", "\000", "\000") N_LOCAL T_AAAA C_IN TTL120
	    "\000\004" "\001\002\003\004"), -EBADMSG, "want 16" },
	{ "PTR rdlength longer than its name",
	  P(HDR("\000", "\001", "\000", "\000") N_LOCAL T_PTR C_IN TTL120
	    "\000\004" "\300\014" "xy"), -EBADMSG,
	  "PTR rdlength 4 at offset 29 but the data ends after 2 bytes" },
	{ "PTR name runs past rdlength",
	  P(HDR("\000", "\001", "\000", "\000") N_LOCAL T_PTR C_IN TTL120
	    "\000\002" "\001b\000"), -EBADMSG, "name at offset 31 runs past "
	  "the end (33)" },
	{ "SRV too short",
	  P(HDR("\000", "\001", "\000", "\000") N_LOCAL T_SRV C_IN TTL120
	    "\000\005" "\000\000\000\000\000"), -EBADMSG,
	  "an SRV needs at least 7" },
	{ "SRV target past rdlength",
	  P(HDR("\000", "\001", "\000", "\000") N_LOCAL T_SRV C_IN TTL120
	    "\000\010" "\000\000\000\000\037\220" "\001b\000"), -EBADMSG,
	  "without its root label" },
	{ "TXT string overruns rdlength",
	  P(HDR("\000", "\001", "\000", "\000") N_LOCAL T_TXT C_IN TTL120
	    "\000\004" "\005abc" "de"), -EBADMSG,
	  "string at offset 31 claims 5 bytes, only 3 left in rdlength 4" },
	{ "NSEC bitmap block of length 0",
	  P(HDR("\000", "\001", "\000", "\000") N_LOCAL T_NSEC C_IN TTL120
	    "\000\004" "\300\014" "\000\000"), -EBADMSG,
	  "type bitmap block at offset 33" },
};

static void test_table(void)
{
	static struct mdns_msg m;
	char err[512];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct pcase *c = &cases[i];
		int rc = mdns_parse((const uint8_t *)c->pkt, c->len, &m, err,
				    sizeof(err));
		int good = rc == c->rc && (!c->msg || strstr(err, c->msg));

		if (!tap_ok(good, "parse: %s", c->what))
			printf("#   rc %d (want %d), err '%s', want '%s'\n", rc,
			       c->rc, err, c->msg ? c->msg : "");
	}
}

/* One name of exactly 255 bytes passes, 256 fails; also via compression. */
static void test_name_length(void)
{
	static struct mdns_msg m;
	uint8_t pkt[600];
	char err[512];
	size_t o = 12, i;
	int rc;

	memset(pkt, 0, 12);
	pkt[5] = 1;	/* one question */
	/* 3 x 63-byte labels + 1 x 61 + root = 3*64 + 62 + 1 = 255 */
	for (i = 0; i < 4; i++) {
		size_t l = i < 3 ? 63 : 61;

		pkt[o++] = (uint8_t)l;
		memset(pkt + o, 'x', l);
		o += l;
	}
	pkt[o++] = 0;
	memcpy(pkt + o, T_A C_IN, 4);
	rc = mdns_parse(pkt, o + 4, &m, err, sizeof(err));
	TAP_EQ_INT(rc, 0, "name of 255 bytes accepted");
	TAP_EQ_INT(m.q[0].name.len, 255, "its length is 255");
	pkt[12 + 3 * 64] = 62;	/* longer by one: 256 */
	memmove(pkt + 12 + 3 * 64 + 1 + 62, pkt + 12 + 3 * 64 + 1 + 61,
		1 + 4);
	pkt[12 + 3 * 64 + 62] = 'x';
	rc = mdns_parse(pkt, o + 5, &m, err, sizeof(err));
	TAP_EQ_INT(rc, -EBADMSG, "name of 256 bytes rejected");
	tap_ok(strstr(err, "longer than 255 bytes") != NULL,
	       "message names the 255-byte limit: %s", err);

	/* 200-byte name, then a question "\070yyy...+ptr": 56 + 1 + 200 >
	 * 255 through compression. */
	memset(pkt, 0, 12);
	pkt[5] = 2;
	o = 12;
	for (i = 0; i < 4; i++) {
		pkt[o++] = 49;
		memset(pkt + o, 'x', 49);
		o += 49;
	}
	pkt[o++] = 0;	/* 201 bytes */
	memcpy(pkt + o, T_A C_IN, 4);
	o += 4;
	pkt[o++] = 56;
	memset(pkt + o, 'y', 56);
	o += 56;
	pkt[o++] = 0xc0;
	pkt[o++] = 12;
	memcpy(pkt + o, T_A C_IN, 4);
	o += 4;
	rc = mdns_parse(pkt, o, &m, err, sizeof(err));
	TAP_EQ_INT(rc, -EBADMSG, "name over 255 bytes through a pointer "
		   "rejected");
	tap_ok(strstr(err, "question 2 of 2") && strstr(err, "longer"),
	       "message names question 2: %s", err);
}

static void test_oversize(void)
{
	static uint8_t pkt[MDNS_PACKET_MAX + 1];
	static struct mdns_msg m;
	char err[256];

	memset(pkt, 0, sizeof(pkt));
	TAP_EQ_INT(mdns_parse(pkt, sizeof(pkt), &m, err, sizeof(err)),
		   -EBADMSG, "9001-byte packet rejected");
	tap_ok(strstr(err, "over mDNS's 9000-byte limit") != NULL,
	       "message: %s", err);
}

/* An announcement avahi-daemon 0.8 sent (captured in a netns): TXT, PTR,
 * SRV, AAAA, A and the service-type PTR, compressed. */
static const uint8_t avahi_pkt[] =
	"\000\000\204\000\000\000\000\006\000\000\000\000\015\103\157\156"
	"\146\154\151\143\164\040\164\145\163\164\012\137\142\145\156\143"
	"\150\142\157\157\164\004\137\164\143\160\005\154\157\143\141\154"
	"\000\000\020\200\001\000\000\021\224\000\004\003\141\075\142\300"
	"\032\000\014\000\001\000\000\021\224\000\002\300\014\300\014\000"
	"\041\200\001\000\000\000\170\000\017\000\000\000\000\004\322\006"
	"\141\166\141\150\151\142\300\052\300\137\000\034\200\001\000\000"
	"\000\170\000\020\376\200\000\000\000\000\000\000\144\063\304\377"
	"\376\027\012\170\300\137\000\001\200\001\000\000\000\170\000\004"
	"\012\115\000\002\011\137\163\145\162\166\151\143\145\163\007\137"
	"\144\156\163\055\163\144\004\137\165\144\160\300\052\000\014\000"
	"\001\000\000\021\224\000\002\300\032";

static void test_avahi_packet(void)
{
	static struct mdns_msg m;
	char err[256], s[MDNS_NAME_STR_MAX];
	const char *val;
	int rc, l;

	rc = mdns_parse(avahi_pkt, sizeof(avahi_pkt) - 1, &m, err,
			sizeof(err));
	TAP_EQ_INT(rc, 0, "avahi announcement parses");
	TAP_EQ_INT(m.nrr, 6, "6 records");
	TAP_EQ_INT(m.flags, MDNS_FLAG_QR | MDNS_FLAG_AA, "flags QR|AA");
	TAP_EQ_INT(m.rr[0].type, MDNS_TYPE_TXT, "record 1 is TXT");
	tap_ok(m.rr[0].cache_flush && m.rr[0].rclass == MDNS_CLASS_IN,
	       "TXT has cache-flush and class IN");
	l = mdns_txt_get(m.rr[0].rdata, m.rr[0].rdlen, "A", &val);
	tap_ok(l == 1 && val[0] == 'b', "TXT a=b found case-insensitively");
	mdns_name_to_str(&m.rr[1].u.ptr, s, sizeof(s));
	TAP_EQ_STR(s, "Conflict test._benchboot._tcp.local", "PTR target");
	TAP_EQ_INT(m.rr[2].u.srv.port, 1234, "SRV port");
	mdns_name_to_str(&m.rr[2].u.srv.target, s, sizeof(s));
	TAP_EQ_STR(s, "avahib.local", "SRV target (compressed)");
	tap_ok(m.rr[4].type == MDNS_TYPE_A &&
	       memcmp(m.rr[4].u.a, "\012\115\000\002", 4) == 0,
	       "A 10.77.0.2");
	mdns_name_to_str(&m.rr[5].name, s, sizeof(s));
	TAP_EQ_STR(s, "_services._dns-sd._udp.local", "service enumeration");
}

static void test_flags_and_limits(void)
{
	static uint8_t pkt[MDNS_PACKET_MAX];
	static struct mdns_msg m;
	struct mdns_builder b;
	struct mdns_name n;
	struct mdns_rr rr;
	char err[256];
	size_t len, i;

	mdns_name_from_str(&n, "host.local");
	mdns_build_init(&b, pkt, sizeof(pkt), 7, 0);
	mdns_build_question(&b, &n, MDNS_TYPE_A, MDNS_CLASS_IN |
			    MDNS_CLASS_QU);
	memset(&rr, 0, sizeof(rr));
	rr.name = n;
	rr.type = MDNS_TYPE_A;
	rr.rclass = MDNS_CLASS_IN;
	rr.ttl = 120;
	for (i = 0; i < MDNS_MAX_RRS + 5; i++) {
		rr.u.a[3] = (uint8_t)i;
		if (mdns_build_rr(&b, MDNS_SEC_ANSWER, &rr) != 0)
			break;
	}
	len = mdns_build_finish(&b);
	TAP_EQ_INT(mdns_parse(pkt, len, &m, err, sizeof(err)), 0,
		   "69 known answers parse");
	tap_ok(m.q[0].unicast && m.q[0].qclass == MDNS_CLASS_IN,
	       "QU bit split from the class");
	TAP_EQ_INT(m.id, 7, "id kept");
	TAP_EQ_INT(m.nrr, MDNS_MAX_RRS, "first 64 records kept");
	TAP_EQ_INT(m.dropped, 5, "5 more validated and counted as dropped");
	TAP_EQ_INT(m.rr[63].u.a[3], 63, "kept in order");
}

static void test_builder(void)
{
	uint8_t buf[512], small[60];
	static struct mdns_msg m;
	struct mdns_builder b;
	struct mdns_rr rr;
	struct mdns_name t, inst, host;
	const char *txt[] = { "role=server", "id=box-1", NULL };
	char err[256], s[MDNS_NAME_STR_MAX];
	size_t len, before;
	uint8_t txtbuf[64];
	int tl, rc;

	mdns_name_from_str(&t, "_benchboot._tcp.local");
	mdns_name_from_label(&inst, "Rack 3. Box", "_benchboot._tcp.local");
	mdns_name_from_str(&host, "box1.local");
	mdns_build_init(&b, buf, sizeof(buf), 0, MDNS_FLAG_QR |
			MDNS_FLAG_AA);
	memset(&rr, 0, sizeof(rr));
	rr.name = t;
	rr.type = MDNS_TYPE_PTR;
	rr.rclass = MDNS_CLASS_IN;
	rr.ttl = 4500;
	rr.u.ptr = inst;
	TAP_EQ_INT(mdns_build_rr(&b, MDNS_SEC_ANSWER, &rr), 0, "PTR built");
	rr.name = inst;
	rr.type = MDNS_TYPE_SRV;
	rr.cache_flush = true;
	rr.ttl = 120;
	rr.u.srv.port = 8080;
	rr.u.srv.target = host;
	TAP_EQ_INT(mdns_build_rr(&b, MDNS_SEC_ADDITIONAL, &rr), 0,
		   "SRV built");
	tl = mdns_txt_encode(txt, txtbuf, sizeof(txtbuf));
	rr.type = MDNS_TYPE_TXT;
	rr.rdata = txtbuf;
	rr.rdlen = (uint16_t)tl;
	TAP_EQ_INT(mdns_build_rr(&b, MDNS_SEC_ANSWER, &rr), -EINVAL,
		   "answer after additional refused");
	TAP_EQ_INT(mdns_build_rr(&b, MDNS_SEC_ADDITIONAL, &rr), 0,
		   "TXT built");
	len = mdns_build_finish(&b);
	/* Uncompressed: PTR 22+10+35, SRV 35+10+6+12, TXT 35+10+21 = 196 */
	tap_ok(len < 130, "names compressed: %zu bytes", len);
	rc = mdns_parse(buf, len, &m, err, sizeof(err));
	TAP_EQ_INT(rc, 0, "built message parses");
	mdns_name_to_str(&m.rr[0].u.ptr, s, sizeof(s));
	TAP_EQ_STR(s, "Rack 3\\. Box._benchboot._tcp.local",
		   "dot inside the instance label escaped");
	tap_ok(mdns_name_eq(&m.rr[1].name, &inst) &&
	       m.rr[1].u.srv.port == 8080 && m.rr[1].cache_flush &&
	       m.rr[1].section == MDNS_SEC_ADDITIONAL,
	       "SRV round trip");
	tap_ok(m.rr[2].rdlen == tl && memcmp(m.rr[2].rdata, txtbuf, tl) == 0,
	       "TXT round trip");

	/* ENOSPC leaves a valid, unchanged message. */
	mdns_build_init(&b, small, sizeof(small), 0, 0);
	TAP_EQ_INT(mdns_build_question(&b, &inst, MDNS_TYPE_ANY,
				       MDNS_CLASS_IN), 0, "question fits");
	before = b.len;
	TAP_EQ_INT(mdns_build_question(&b, &host, MDNS_TYPE_A,
				       MDNS_CLASS_IN), -ENOSPC,
		   "second question does not fit");
	TAP_EQ_INT(b.len, before, "length unchanged after -ENOSPC");
	len = mdns_build_finish(&b);
	TAP_EQ_INT(mdns_parse(small, len, &m, err, sizeof(err)), 0,
		   "message still valid after -ENOSPC");
	TAP_EQ_INT(m.nq, 1, "one question in it");
}

static void test_names(void)
{
	static const struct {
		const char *in;
		int rc;
		const char *out;
	} nc[] = {
		{ "a.local", 0, "a.local" },
		{ "a.local.", 0, "a.local" },
		{ "A\\.b.local", 0, "A\\.b.local" },
		{ "\\065\\\\x.local", 0, "A\\\\x.local" },
		{ "a..local", -EINVAL, NULL },
		{ ".local", -EINVAL, NULL },
		{ "", 0, "" },
		{ "a\\", -EINVAL, NULL },
		{ "a\\99", -EINVAL, NULL },
		{ "x\\256.local", -EINVAL, NULL },
		{ "0123456789012345678901234567890123456789012345678901234567"
		  "89012.local", 0, NULL },
		{ "0123456789012345678901234567890123456789012345678901234567"
		  "890123.local", -EINVAL, NULL },
	};
	struct mdns_name a, b;
	char s[MDNS_NAME_STR_MAX];

	for (size_t i = 0; i < sizeof(nc) / sizeof(nc[0]); i++) {
		int rc = mdns_name_from_str(&a, nc[i].in);

		if (!tap_ok(rc == nc[i].rc, "name '%s' -> %d", nc[i].in,
			    nc[i].rc))
			printf("#   got %d\n", rc);
		if (rc == 0 && nc[i].out) {
			mdns_name_to_str(&a, s, sizeof(s));
			TAP_EQ_STR(s, nc[i].out, "presentation form");
		}
	}
	mdns_name_from_str(&a, "Box.LOCAL");
	mdns_name_from_str(&b, "box.local");
	tap_ok(mdns_name_eq(&a, &b), "names compare case-insensitively");
	mdns_name_from_label(&a, "my.inst", "_benchboot._tcp.local");
	mdns_name_from_str(&b, "_benchboot._tcp.local");
	tap_ok(mdns_name_is_child(&a, &b), "instance is a child of the type");
	TAP_EQ_INT(mdns_name_label(&a, s, sizeof(s)), 7, "first label");
	TAP_EQ_STR(s, "my.inst", "label raw, dot kept");
	TAP_EQ_INT(mdns_name_from_label(&a, "", "local"), -EINVAL,
		   "empty instance label refused");
}

static void test_txt(void)
{
	const char *kv[] = { "role=client", "ID=b1", "flag", "empty=", NULL };
	const char *bad1[] = { "=x", NULL };
	const char *none[] = { NULL };
	uint8_t buf[64];
	const char *v;
	int l;

	l = mdns_txt_encode(kv, buf, sizeof(buf));
	TAP_EQ_INT(l, 12 + 6 + 5 + 7, "TXT encoded length");
	TAP_EQ_INT(mdns_txt_get(buf, (size_t)l, "id", &v), 2,
		   "key lookup is case-insensitive");
	tap_ok(memcmp(v, "b1", 2) == 0, "value b1");
	TAP_EQ_INT(mdns_txt_get(buf, (size_t)l, "flag", &v), 0,
		   "bare key: length 0");
	tap_ok(v == NULL, "bare key: no value");
	TAP_EQ_INT(mdns_txt_get(buf, (size_t)l, "empty", &v), 0,
		   "key with empty value: length 0");
	tap_ok(v != NULL, "key with empty value: value present");
	TAP_EQ_INT(mdns_txt_get(buf, (size_t)l, "rol", &v), -ENOENT,
		   "prefix of a key is not the key");
	TAP_EQ_INT(mdns_txt_encode(bad1, buf, sizeof(buf)), -EINVAL,
		   "empty key refused");
	TAP_EQ_INT(mdns_txt_encode(none, buf, sizeof(buf)), 1,
		   "empty list: one empty string (RFC 6763 6.1)");
	TAP_EQ_INT(mdns_txt_encode(kv, buf, 10), -ENOSPC, "too small");
}

int main(void)
{
	test_table();
	test_name_length();
	test_oversize();
	test_avahi_packet();
	test_flags_and_limits();
	test_builder();
	test_names();
	test_txt();
	return tap_done();
}
