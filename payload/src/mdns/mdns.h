/* mdns/mdns.h: multicast DNS and DNS-SD (RFC 6762/6763) inside our binary, no
 * daemon: a validating packet parser and a builder, a responder that
 * publishes one service instance, and a browser that resolves instances. */
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

/* --- responder: publish one service instance --------------------------- */

typedef void (*mdns_log_fn)(void *arg, const char *msg);

/* What to publish.  Strings are copied by mdns_responder_new(). */
struct mdns_service {
	/* Instance label, UTF-8, 1..63 bytes, any characters ("bench-01",
	 * "Rack 3. Box"); on a conflict the responder renames it "NAME (2)",
	 * "NAME (3)", ... (see mdns_responder_instance()). */
	const char *instance;
	/* Service type, "_benchboot._tcp" when NULL. */
	const char *type;
	/* Host label for the SRV target and the A records ("HOST.local");
	 * the system host name's first label when NULL.  Give each agent
	 * its own (its id): hosts in network namespaces share one UTS host
	 * name, and a host-name conflict renames it "HOST-2". */
	const char *host;
	uint16_t port;
	/* NULL-terminated "key=value" list; encoded size <= MDNS_TXT_MAX. */
	const char *const *txt;
	/* Only this interface; every up, multicast-capable, non-loopback
	 * interface with an IPv4 address when NULL.  The set is re-scanned
	 * every few seconds, so links that come up later (DHCP) are added. */
	const char *ifname;
	/* Where rejected packets, conflicts and renames are reported; stderr
	 * ("benchboot mdns: ...") when NULL. */
	mdns_log_fn log;
	void *log_arg;
};

enum mdns_state {
	MDNS_PROBING,		/* checking the names are free (~750 ms) */
	MDNS_ANNOUNCING,	/* names ours; announcing (2 s) */
	MDNS_RUNNING,		/* announced, answering queries */
};

/* Per-class counters (RFC 6762 traffic the responder saw and sent). */
struct mdns_stats {
	uint64_t rx;		/* datagrams read */
	uint64_t rx_bad;	/* failed mdns_parse (each logged) */
	uint64_t rx_ignored;	/* valid but ignored: opcode/rcode != 0,
				 * not from a link we serve */
	uint64_t queries;	/* queries that asked for our records */
	uint64_t tx;		/* datagrams sent */
	uint64_t tx_err;	/* failed sends */
	uint64_t legacy;	/* legacy unicast queries answered (§6.7) */
	uint64_t conflicts;	/* conflicts seen (probe or announced) */
	uint64_t renames;	/* instance or host renames */
};

struct mdns_responder;

/* Opens the mDNS socket (0.0.0.0:5353 with SO_REUSEADDR/SO_REUSEPORT, so
 * avahi-daemon or another benchboot on the host keeps working), joins
 * 224.0.0.251 on every interface chosen by svc->ifname, and starts
 * probing (RFC 6762 §8: three probes 250 ms apart, then two announcements
 * one second apart).  Nothing blocks: drive it with _fd/_timeout_ms/
 * _handle.  Returns the responder (free with mdns_responder_free()), or
 * NULL with a message in err: bad service fields, no usable interface,
 * socket errors. */
struct mdns_responder *mdns_responder_new(const struct mdns_service *svc,
					  char *err, size_t errlen);

/* The socket to poll for POLLIN; owned by the responder. */
int mdns_responder_fd(const struct mdns_responder *r);

/* Milliseconds until mdns_responder_handle() must run even if the fd
 * stays quiet (probe, announce, delayed answer, interface re-scan):
 * 0..10000, never -1. */
int mdns_responder_timeout_ms(const struct mdns_responder *r);

/* Reads every pending datagram (non-blocking), answers, detects
 * conflicts, and runs due timers.  Call when the fd is readable or the
 * timeout expired (calling it early is harmless).  A malformed packet is
 * logged with its source and reason, counted, and dropped; it is never
 * an error.  Returns 0, or a negative errno if the socket failed. */
int mdns_responder_handle(struct mdns_responder *r);

/* Replaces the TXT list (e.g. role=server -> role=controller) and
 * announces the new record with cache flush.  Returns 0 or -EINVAL
 * (bad list, message in log). */
int mdns_responder_set_txt(struct mdns_responder *r, const char *const *txt);

enum mdns_state mdns_responder_state(const struct mdns_responder *r);

/* The instance label and host label in use now (after any renames);
 * valid until the next mdns_responder_handle() or _free(). */
const char *mdns_responder_instance(const struct mdns_responder *r);
const char *mdns_responder_host(const struct mdns_responder *r);

void mdns_responder_stats(const struct mdns_responder *r,
			  struct mdns_stats *out);

/* Sends goodbyes (every record with TTL 0) once announced, closes the
 * socket, frees r.  NULL is a no-op. */
void mdns_responder_free(struct mdns_responder *r);

/* --- browser: find and resolve instances of a service type -------------- */

/* One resolved instance: PTR, SRV, TXT and an IPv4 address all known. */
struct mdns_instance {
	char name[MDNS_LABEL_MAX + 1];	/* raw instance label */
	char host[MDNS_NAME_STR_MAX];	/* SRV target, "box.local" */
	char addr[16];			/* dotted IPv4 of the host */
	char ifname[16];		/* interface it was seen on */
	uint16_t port;
	uint16_t txt_len;
	uint8_t txt[MDNS_TXT_MAX];	/* TXT rdata; use mdns_txt_get() */
};

enum mdns_event {
	MDNS_FOUND,	/* newly resolved */
	MDNS_CHANGED,	/* port, host, address or TXT changed */
	MDNS_REMOVED,	/* goodbye (TTL 0) or expired */
};

typedef void (*mdns_browse_cb)(void *arg, enum mdns_event ev,
			       const struct mdns_instance *in);

struct mdns_browse_conf {
	const char *type;	/* "_benchboot._tcp" when NULL */
	const char *ifname;	/* every multicast interface when NULL */
	mdns_browse_cb cb;	/* may be NULL: use mdns_browser_get() */
	void *cb_arg;
	mdns_log_fn log;	/* rejected packets; stderr when NULL */
	void *log_arg;
};

struct mdns_browser;

/* Starts browsing: binds 5353 shared (to hear announcements, goodbyes
 * and multicast answers) and sends PTR queries at 0, 1, 2, 4, ... 60 s.
 * The first PTR query and the follow-ups (ANY/A for whatever a found
 * instance still lacks) are one-shot queries from a second, ephemeral
 * socket, answered at once by unicast (RFC 6762 §5.1, §6.7); when 5353
 * cannot be bound, that is all it uses.  Returns the browser, or NULL
 * with a message in err (no usable interface, socket errors). */
struct mdns_browser *mdns_browser_new(const struct mdns_browse_conf *conf,
				      char *err, size_t errlen);
/* The descriptor to poll for POLLIN (an epoll fd over the browser's
 * sockets); owned by the browser. */
int mdns_browser_fd(const struct mdns_browser *b);
/* As mdns_responder_timeout_ms(): 0..10000. */
int mdns_browser_timeout_ms(const struct mdns_browser *b);
/* As mdns_responder_handle(); calls conf->cb for every event. */
int mdns_browser_handle(struct mdns_browser *b);
/* The i-th resolved instance now known, NULL past the end; valid until
 * the next _handle() or _free(). */
const struct mdns_instance *mdns_browser_get(const struct mdns_browser *b,
					     size_t i);
void mdns_browser_stats(const struct mdns_browser *b, struct mdns_stats *out);
void mdns_browser_free(struct mdns_browser *b);

/* Blocking convenience: browses type (NULL = "_benchboot._tcp") on ifname
 * (NULL = all) for timeout_ms and copies up to max resolved instances
 * into out, *n set to how many.  Returns 0 (also when none was found),
 * or a negative errno with a message in err. */
int mdns_browse(const char *type, const char *ifname, int timeout_ms,
		struct mdns_instance *out, size_t max, size_t *n,
		char *err, size_t errlen);

/* --- subcommand -------------------------------------------------------- */

/* `benchboot mdns publish --name N --port P [--host H] [--type T]
 *                        [--if IFACE] [--txt k=v]... [--txt-stdin]`:
 * publishes until SIGINT/SIGTERM, then sends goodbyes; with --txt-stdin
 * each line on stdin ("k=v k=v ...") replaces the TXT record.  `benchboot mdns browse
 * [--timeout S] [--if IFACE] [--watch] [TYPE]`: after the timeout
 * (default 3 s) prints one line per resolved instance, tab-separated:
 * name, host, address, port, interface, then each TXT string (tabs,
 * backslashes and non-printable bytes as \DDD).  --watch instead prints
 * each event as it happens, the same line after "+\t" (found), "~\t"
 * (changed) or "-\t" (removed), until the timeout or a signal.  Exit 0
 * ok (also when nothing was found), 1 failure, 2 usage. */
int mdns_main(int argc, char **argv);

#endif
