/* mdns/mdns.h: multicast DNS and DNS-SD (RFC 6762/6763) inside our binary, no
 * daemon: the packet layer (a validating parser, a builder, names, TXT).
 * The sockets are mdns_socket.h, mdns_responder.h and mdns_browser.h. */
#ifndef BB_MDNS_H
#define BB_MDNS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define MDNS_PORT 5353
#define MDNS_GROUP4 "224.0.0.251"
/* RFC 6762 §17: a packet may be up to 9000 bytes; larger is rejected. */
#define MDNS_PACKET_MAX 9000
/* What we send stays below a 1500-byte Ethernet MTU. */
#define MDNS_SEND_MAX 1460
#define MDNS_LABEL_MAX 63
/* Uncompressed wire length of a name, length bytes and root included. */
#define MDNS_NAME_MAX 255
/* Presentation form of the longest name, every byte as "\DDD", plus NUL. */
#define MDNS_NAME_STR_MAX (MDNS_NAME_MAX * 4 + 1)
/* How many questions and records one parsed message keeps (all are still
 * validated; see struct mdns_msg.dropped). */
#define MDNS_MAX_QUESTIONS 32
#define MDNS_MAX_RRS 64
/* Our TXT record's rdata is bounded so a response fits MDNS_SEND_MAX. */
#define MDNS_TXT_MAX 512

#define MDNS_SERVICE_TYPE "_benchboot._tcp"

enum mdns_type {
	MDNS_TYPE_A = 1,
	MDNS_TYPE_NS = 2,
	MDNS_TYPE_CNAME = 5,
	MDNS_TYPE_PTR = 12,
	MDNS_TYPE_HINFO = 13,
	MDNS_TYPE_TXT = 16,
	MDNS_TYPE_AAAA = 28,
	MDNS_TYPE_SRV = 33,
	MDNS_TYPE_NSEC = 47,
	MDNS_TYPE_ANY = 255,
};

#define MDNS_CLASS_IN 1
#define MDNS_CLASS_ANY 255
/* Top bit of a question's class: unicast response wanted (QU). */
#define MDNS_CLASS_QU 0x8000
/* Top bit of a record's class: cache flush (unique record). */
#define MDNS_CLASS_FLUSH 0x8000

/* Header flags. */
#define MDNS_FLAG_QR 0x8000	/* response */
#define MDNS_FLAG_AA 0x0400	/* authoritative (every mDNS response) */
#define MDNS_FLAG_TC 0x0200	/* truncated: more known answers follow */
#define MDNS_OPCODE(flags) (((flags) >> 11) & 0xf)
#define MDNS_RCODE(flags) ((flags) & 0xf)

/* A domain name in uncompressed wire form: labels, each a length byte and
 * up to 63 bytes, ending with the root's zero byte.  len counts every
 * byte (1..MDNS_NAME_MAX).  Wire form, not dotted text, because DNS-SD
 * instance labels may contain dots and spaces. */
struct mdns_name {
	uint8_t len;
	uint8_t data[MDNS_NAME_MAX];
};

struct mdns_question {
	struct mdns_name name;
	uint16_t type;
	uint16_t qclass;	/* without the QU bit */
	bool unicast;		/* the QU bit */
};

enum mdns_section {
	MDNS_SEC_ANSWER = 0,
	MDNS_SEC_AUTHORITY = 1,
	MDNS_SEC_ADDITIONAL = 2,
};

/* One resource record.  Parsed: rdata points into the packet it came from
 * (valid while that buffer is), and u holds the decoded form of the types
 * we use.  Built: fill name, type, rclass, cache_flush, ttl and either u
 * (A, AAAA, PTR, SRV: rdata is then ignored; NSEC: u.nsec.next, and
 * rdata/rdlen hold the type bitmap only) or rdata/rdlen (TXT and any other
 * type: copied as is). */
struct mdns_rr {
	struct mdns_name name;
	uint16_t type;
	uint16_t rclass;	/* without the cache-flush bit */
	bool cache_flush;
	uint8_t section;	/* enum mdns_section (parsed records) */
	uint32_t ttl;
	uint16_t rdlen;
	const uint8_t *rdata;
	union {
		uint8_t a[4];
		uint8_t aaaa[16];
		struct mdns_name ptr;		/* PTR, CNAME, NS */
		struct {
			uint16_t priority, weight, port;
			struct mdns_name target;
		} srv;
		struct {
			/* The type bitmap stays in rdata after next. */
			struct mdns_name next;
		} nsec;
	} u;
};

/* A parsed message.  q[0..nq) and rr[0..nrr) hold the first
 * MDNS_MAX_QUESTIONS questions and MDNS_MAX_RRS records in packet order
 * (rr[i].section says where each came from); dropped counts the valid
 * records beyond that, which were checked but not kept. */
struct mdns_msg {
	uint16_t id;
	uint16_t flags;
	uint16_t qdcount, ancount, nscount, arcount;	/* header counts */
	size_t nq, nrr, dropped;
	struct mdns_question q[MDNS_MAX_QUESTIONS];
	struct mdns_rr rr[MDNS_MAX_RRS];
};

/* --- packet layer ----------------------------------------------------- */

/* Parses and validates one DNS message of len bytes.  Everything is
 * checked before anything is used: the 12-byte header; every name
 * (labels <= 63 bytes, whole name <= 255, no extended label types,
 * compression pointers only to an earlier offset outside the header and
 * before the name being read, so loops are impossible); counts that
 * promise more than the packet holds; bytes left over after the last
 * record; rdata that is shorter or longer than its type needs (A 4,
 * AAAA 16, SRV 6 + name, PTR/CNAME/NS one name, TXT strings filling
 * rdlen exactly, NSEC name + bitmap).  Opcode and rcode are not judged
 * here (the responder ignores what RFC 6762 §18 says to ignore).
 * Returns 0, or -EBADMSG with a message naming the section, index, field
 * and offset in err (errlen bytes; err may be NULL). */
int mdns_parse(const uint8_t *pkt, size_t len, struct mdns_msg *m,
	       char *err, size_t errlen);

/* Builds a message into a caller's buffer.  Names are compressed against
 * every name already written.  Add questions first, then answers, then
 * authority, then additional records; out of order is -EINVAL. */
struct mdns_builder {
	uint8_t *buf;
	size_t cap, len;
	uint16_t count[4];	/* questions, answers, authority, additional */
	int section;		/* last section written, -1 = questions */
	/* Offsets of names already written, for compression. */
	uint16_t names[64];
	size_t nnames;
};

/* Starts a message in buf (cap bytes, at least 12) with id and flags. */
void mdns_build_init(struct mdns_builder *b, uint8_t *buf, size_t cap,
		     uint16_t id, uint16_t flags);

/* Appends a question; qclass may carry MDNS_CLASS_QU.  Returns 0,
 * -ENOSPC (did not fit: the message is unchanged) or -EINVAL. */
int mdns_build_question(struct mdns_builder *b, const struct mdns_name *n,
			uint16_t type, uint16_t qclass);

/* Appends rr to section sec.  Returns 0, -ENOSPC (did not fit: the
 * message is unchanged, so the caller can send what it has with TC or
 * split) or -EINVAL (section out of order, bad rdata). */
int mdns_build_rr(struct mdns_builder *b, enum mdns_section sec,
		  const struct mdns_rr *rr);

/* Writes the counts into the header; returns the message length. */
size_t mdns_build_finish(struct mdns_builder *b);

/* --- names ------------------------------------------------------------ */

/* Sets n from dotted text ("_benchboot._tcp.local", a trailing dot is
 * optional; "\." and "\\" escape a dot or backslash inside a label, and
 * "\DDD" a byte).  Returns 0, or -EINVAL (empty label, label > 63, name
 * > 255, bad escape). */
int mdns_name_from_str(struct mdns_name *n, const char *s);

/* Sets n to one raw label (not parsed: dots are part of it, as in a
 * DNS-SD instance name) followed by dotted text rest.  Returns 0 or
 * -EINVAL. */
int mdns_name_from_label(struct mdns_name *n, const char *label,
			 const char *rest);

/* Writes n's presentation form ("a\.b._benchboot._tcp.local", no trailing
 * dot; non-printable bytes as \DDD) into buf.  size MDNS_NAME_STR_MAX
 * always suffices.  Returns the string length, or -ENOSPC. */
int mdns_name_to_str(const struct mdns_name *n, char *buf, size_t size);

/* Copies n's first label, raw, NUL-terminated, into buf (size >= 64
 * suffices).  Returns its length, or -ENOSPC. */
int mdns_name_label(const struct mdns_name *n, char *buf, size_t size);

/* True when a and b are the same name, ASCII case-insensitively. */
bool mdns_name_eq(const struct mdns_name *a, const struct mdns_name *b);

/* True when the part of n after its first label equals parent. */
bool mdns_name_is_child(const struct mdns_name *n,
			const struct mdns_name *parent);

/* --- TXT --------------------------------------------------------------- */

/* Encodes NULL-terminated "key=value" strings (or bare "key") as TXT
 * rdata into buf.  An empty list gives the single empty string RFC 6763
 * §6.1 asks for.  Returns the rdata length, or -EINVAL (a string over
 * 255 bytes, an empty key, a key with '=' first) or -ENOSPC. */
int mdns_txt_encode(const char *const *kv, uint8_t *buf, size_t size);

/* Finds key (case-insensitive, RFC 6763 §6.4) in TXT rdata.  Returns the
 * value's length and points *val at it (not NUL-terminated), 0 for a
 * key without '=', or -ENOENT.  rdata must be validated (mdns_parse). */
int mdns_txt_get(const uint8_t *rdata, size_t len, const char *key,
		 const char **val);

#endif
