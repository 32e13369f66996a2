/* test_mdns.c: the mDNS packet layer: a table of valid and malformed
 * packets (each malformation class rejected with a message naming it),
 * the builder's compression and limits, names and TXT; and DNS-SD
 * subtypes end to end (responders and browsers on a veth pair in a
 * network namespace of the test's own, when root). */
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <net/if.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mdns/mdns.h"
#include "mdns/mdns_browser.h"
#include "mdns/mdns_responder.h"
#include "mdns/mdns_socket.h"
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

/* --- subtypes (RFC 6763 §7.1), on a veth pair -------------------------- */

/* What the capture socket saw: PTR queries for the _controller subtype,
 * and those of them that carried known answers (RFC 6762 §7.1). */
struct sub_cap {
	int fd;
	struct mdns_name n_ctl;
	unsigned queries, known;
};

/* Reads every datagram on the capture socket. */
static void sub_capture(struct sub_cap *c)
{
	static uint8_t buf[MDNS_PACKET_MAX + 1];
	static struct mdns_msg m;
	ssize_t n;

	while ((n = recv(c->fd, buf, sizeof(buf), MSG_DONTWAIT)) > 0) {
		if (mdns_parse(buf, (size_t)n, &m, NULL, 0) != 0 ||
		    (m.flags & MDNS_FLAG_QR) || m.nq < 1 ||
		    m.q[0].type != MDNS_TYPE_PTR ||
		    !mdns_name_eq(&m.q[0].name, &c->n_ctl))
			continue;
		c->queries++;
		if (m.ancount > 0)
			c->known++;
	}
}

/* Drives nr responders, nb browsers and the capture for ms. */
static void sub_run(struct mdns_responder *const *r, size_t nr,
		    struct mdns_browser *const *b, size_t nb,
		    struct sub_cap *c, int ms)
{
	uint64_t end = mdns_socket_now_ms() + (uint64_t)ms;
	struct pollfd p[16];
	size_t i, n;

	while (mdns_socket_now_ms() < end) {
		n = 0;
		for (i = 0; i < nr; i++)
			p[n++] = (struct pollfd){ mdns_responder_fd(r[i]),
						  POLLIN, 0 };
		for (i = 0; i < nb; i++)
			p[n++] = (struct pollfd){ mdns_browser_fd(b[i]),
						  POLLIN, 0 };
		p[n++] = (struct pollfd){ c->fd, POLLIN, 0 };
		poll(p, n, 10);
		for (i = 0; i < nr; i++)
			mdns_responder_handle(r[i]);
		for (i = 0; i < nb; i++)
			mdns_browser_handle(b[i]);
		sub_capture(c);
	}
}

/* The instances b resolved, among cli, ctl and srv, as "cli,ctl,". */
static void sub_found(struct mdns_browser *b, char *out, size_t len)
{
	static const char *const names[] = { "cli", "ctl", "srv" };
	const struct mdns_instance *in;

	out[0] = 0;
	for (size_t k = 0; k < 3; k++)
		for (size_t i = 0; (in = mdns_browser_get(b, i)); i++)
			if (strcmp(in->name, names[k]) == 0) {
				strncat(out, names[k], len - strlen(out) - 1);
				strncat(out, ",", len - strlen(out) - 1);
				break;
			}
}

/* srv's events as a watching browser reports them. */
static void sub_event(void *arg, enum mdns_event ev,
		      const struct mdns_instance *in)
{
	int *st = arg;

	if (strcmp(in->name, "srv") == 0)
		*st = ev == MDNS_REMOVED ? 2 : 1;
}

static const char *const sub_ctl[] = { "_controller", "_server", NULL };
static const char *const sub_srv[] = { "_server", NULL };

static struct mdns_responder *sub_publish(const char *name,
					  const char *const *subs)
{
	static const char *const txt[] = { "role=test", NULL };
	struct mdns_service svc = { .instance = name, .host = name,
				    .port = 7407, .txt = txt,
				    .subtypes = subs, .ifname = "bbt0" };
	char err[256];
	struct mdns_responder *r = mdns_responder_new(&svc, err, sizeof(err));

	if (!r)
		printf("# publish %s: %s\n", name, err);
	return r;
}

/* The publishing host, a process in a network namespace of its own (a
 * unicast answer to an address of the same namespace would come back by
 * lo, which the browser does not serve): ctl (subtypes _controller and
 * _server), srv (_server) and cli (none) on bbt0, driven until the
 * parent's commands on cmd say otherwise; answers on rep. */
static void sub_child(int cmd, int rep)
{
	static const char *const empty[] = { "", NULL };
	struct mdns_responder *r[3];
	struct mdns_stats st;
	char c;
	int rc;

	if (unshare(CLONE_NEWNET) != 0)
		_exit(1);
	c = 'N';
	if (write(rep, &c, 1) != 1 || read(cmd, &c, 1) != 1 ||
	    system("ip link set bbt0 up && "
		   "ip addr add 10.99.0.1/24 dev bbt0") != 0)
		_exit(1);
	r[0] = sub_publish("ctl", sub_ctl);
	r[1] = sub_publish("srv", sub_srv);
	r[2] = sub_publish("cli", NULL);
	c = r[0] && r[1] && r[2] ? 'R' : 'F';
	if (write(rep, &c, 1) != 1 || c == 'F')
		_exit(1);
	for (;;) {
		struct pollfd p[4] = {
			{ mdns_responder_fd(r[0]), POLLIN, 0 },
			{ mdns_responder_fd(r[1]), POLLIN, 0 },
			{ mdns_responder_fd(r[2]), POLLIN, 0 },
			{ cmd, POLLIN, 0 } };

		poll(p, 4, 10);
		for (int i = 0; i < 3; i++)
			mdns_responder_handle(r[i]);
		if (!p[3].revents)
			continue;
		if (read(cmd, &c, 1) != 1 || c == 'Q')
			break;
		if (c == 'T') {		/* how many datagrams ctl sent */
			mdns_responder_stats(r[0], &st);
			if (write(rep, &st.tx, sizeof(st.tx)) < 0)
				break;
			continue;
		}
		rc = mdns_responder_set_subtypes(c == 'E' ? r[2] : r[1],
						 c == 'C' ? sub_ctl :
						 c == 'D' ? sub_srv : empty);
		if (write(rep, &rc, sizeof(rc)) < 0)
			break;
	}
	for (int i = 0; i < 3; i++)
		mdns_responder_free(r[i]);
	_exit(0);
}

/* Sends the publishing host command c and reads its n-byte answer. */
static void sub_ask(const int *pc, char c, void *ans, size_t n)
{
	memset(ans, 0xff, n);
	if (write(pc[1], &c, 1) != 1 || read(pc[2], ans, n) != (ssize_t)n)
		printf("# no answer to '%c'\n", c);
}

static void test_subtypes(void)
{
	static const char *const three[] = { "_a", "_b", "_c", NULL };
	/* Who a browse of each subtype (NULL: the whole type) finds. */
	static const struct {
		const char *sub, *want;
	} bc[] = {
		{ NULL, "cli,ctl,srv," },
		{ "_controller", "ctl," },
		{ "_server", "ctl,srv," },
		{ "_client", "" },
	};
	struct mdns_service bad = { .instance = "x", .port = 1,
				    .subtypes = three };
	struct mdns_browse_conf conf = { .ifname = "bbt1" };
	struct mdns_browser *b[4] = { 0 };
	struct sub_cap cap = { .fd = -1 };
	struct ip_mreqn mr = { 0 };
	struct sockaddr_in sa = { .sin_family = AF_INET,
				  .sin_port = htons(MDNS_PORT) };
	/* pc: [0] unused, [1] commands to the child, [2] its answers. */
	int cp[2], rp[2], pc[3], one = 1, ev = 0, rc;
	uint64_t tx0, tx1;
	struct mdns_stats bst;
	char err[256], got[64], cmd[160], c = 0;
	pid_t pid = -1;
	size_t i;

	tap_ok(!mdns_responder_new(&bad, err, sizeof(err)) &&
	       strstr(err, "subtype"), "three subtypes refused: %s", err);
	/* qemu-user (a cross-built run) fails multicast joins. */
	if (getenv("TARGET_RUN") && *getenv("TARGET_RUN")) {
		tap_ok(1, "subtypes on a veth pair # SKIP multicast under %s",
		       getenv("TARGET_RUN"));
		return;
	}
	if (unshare(CLONE_NEWNET) != 0 || pipe(cp) != 0 || pipe(rp) != 0) {
		tap_ok(1, "subtypes on a veth pair # SKIP needs root");
		return;
	}
	pid = fork();
	if (pid == 0)
		sub_child(cp[0], rp[1]);
	pc[1] = cp[1];
	pc[2] = rp[0];
	snprintf(cmd, sizeof(cmd), "ip link add bbt1 type veth peer name "
		 "bbt0 netns %d && ip link set bbt1 up && "
		 "ip addr add 10.99.0.2/24 dev bbt1", (int)pid);
	if (pid < 0 || read(pc[2], &c, 1) != 1 || system(cmd) != 0) {
		tap_ok(1, "subtypes on a veth pair # SKIP needs ip and veth");
		goto out;
	}
	c = 'G';
	if (!tap_ok(write(pc[1], &c, 1) == 1 && read(pc[2], &c, 1) == 1 &&
		    c == 'R', "ctl, srv and cli publish in a namespace of "
		    "their own"))
		goto out;
	sub_ask(pc, 'E', &rc, sizeof(rc));
	TAP_EQ_INT(rc, -EINVAL, "an empty subtype label refused");
	/* Capture on bbt1: what the browsers ask. */
	cap.fd = socket(AF_INET, SOCK_DGRAM, 0);
	setsockopt(cap.fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	setsockopt(cap.fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof(one));
	mr.imr_multiaddr.s_addr = htonl(0xe00000fb);	/* 224.0.0.251 */
	mr.imr_ifindex = (int)if_nametoindex("bbt1");
	tap_ok(bind(cap.fd, (struct sockaddr *)&sa, sizeof(sa)) == 0 &&
	       setsockopt(cap.fd, IPPROTO_IP, IP_ADD_MEMBERSHIP, &mr,
			  sizeof(mr)) == 0, "capture socket on bbt1");
	mdns_name_from_str(&cap.n_ctl,
			   "_controller._sub._benchboot._tcp.local");
	/* Probing and announcing: 0-250 ms + 750 ms + 1 s. */
	sub_run(NULL, 0, NULL, 0, &cap, 2500);

	for (i = 0; i < 4; i++) {
		conf.subtype = bc[i].sub;
		b[i] = mdns_browser_new(&conf, err, sizeof(err));
		if (!tap_ok(b[i] != NULL, "browser %s", bc[i].sub ?
			    bc[i].sub : "(type)"))
			goto out;
	}
	sub_run(NULL, 0, b, 4, &cap, 800);
	for (i = 0; i < 4; i++) {
		sub_found(b[i], got, sizeof(got));
		TAP_EQ_STR(got, bc[i].want, bc[i].sub ? bc[i].sub :
			   "the whole type finds all three");
		mdns_browser_free(b[i]);
		b[i] = NULL;
	}
	tap_ok(cap.queries >= 1, "the _controller browse asked for "
	       "_controller._sub._benchboot._tcp.local (%u)", cap.queries);

	/* Known answers: a browser's re-queries at 1 s and 3 s list ctl;
	 * ctl answers the one-shot query and the query at 1 s (whose known
	 * answer, learned by unicast, has under half the TTL), not the one
	 * at 3 s. */
	cap.queries = cap.known = 0;
	conf.subtype = "_controller";
	conf.cb = sub_event;
	conf.cb_arg = &ev;
	sub_ask(pc, 'T', &tx0, sizeof(tx0));
	b[0] = mdns_browser_new(&conf, err, sizeof(err));
	if (!b[0])
		goto out;
	sub_run(NULL, 0, b, 1, &cap, 3400);
	sub_ask(pc, 'T', &tx1, sizeof(tx1));
	TAP_EQ_INT(cap.queries, 3, "three _controller queries in 3.4 s");
	TAP_EQ_INT(cap.known, 2, "the two re-queries carried known answers");
	TAP_EQ_INT(tx1 - tx0, 2, "ctl answered twice, not three times");
	/* Its own three queries loop back to its 5353 socket: the socket
	 * filter keeps them (and every other query) out. */
	mdns_browser_stats(b[0], &bst);
	TAP_EQ_INT(bst.rx, 2, "the browser read the two answers, no query");

	/* srv becomes the controller, then goes back: the watching browser
	 * sees it listed under _controller, then its goodbye there. */
	sub_ask(pc, 'C', &rc, sizeof(rc));
	TAP_EQ_INT(rc, 0, "srv lists _controller too");
	sub_run(NULL, 0, b, 1, &cap, 600);
	TAP_EQ_INT(ev, 1, "the _controller browser found srv");
	sub_ask(pc, 'D', &rc, sizeof(rc));
	TAP_EQ_INT(rc, 0, "srv drops _controller");
	sub_run(NULL, 0, b, 1, &cap, 300);
	TAP_EQ_INT(ev, 2, "the _controller browser saw srv's goodbye");
out:
	for (i = 0; i < 4; i++)
		mdns_browser_free(b[i]);
	if (cap.fd >= 0)
		close(cap.fd);
	if (pid > 0) {
		c = 'Q';
		if (write(pc[1], &c, 1) != 1)
			kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
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
	test_subtypes();	/* last: it moves to a network namespace */
	return tap_done();
}
