/* mdns/mdns_socket.h: the socket layer the responder and the browser share:
 * the 5353 socket, the interfaces it serves, sending and filtered reading. */
#ifndef BB_MDNS_SOCKET_H
#define BB_MDNS_SOCKET_H

#include <net/if.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mdns/mdns.h"

/* Interfaces one socket serves at most. */
#define MDNS_MAX_IFS 32
/* RFC 6762 §10: TTL of host-name records (SRV, A); the browser keeps
 * legacy unicast answers this long. */
#define MDNS_TTL_HOST 120

typedef void (*mdns_log_fn)(void *arg, const char *msg);

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

/* One link the socket serves: its first IPv4 address. */
struct mdns_if {
	int index;
	char name[IF_NAMESIZE];
	struct in_addr addr, mask;
	bool seen;
	uint64_t last_mc[8];	/* per record kind, ms: §6 rate limit */
};

/* The socket and its interfaces, embedded in a responder or browser. */
struct mdns_socket {
	int fd;
	int tx_fd;		/* what mdns_socket_send() sends from: fd or a
				 * browser's one-shot socket */
	bool port5353;
	const char *only_if;	/* NULL = all */
	struct mdns_if ifs[MDNS_MAX_IFS];
	size_t nifs;
	uint64_t next_scan;
	struct mdns_stats st;
	mdns_log_fn log;
	void *log_arg;
	uint64_t log_window;
	unsigned log_n, log_suppressed;
	uint64_t rnd;
};

/* The monotonic clock in milliseconds, what every mDNS timer counts in. */
uint64_t mdns_socket_now_ms(void);

/* A cheap per-socket random number (xorshift) for RFC 6762's jitter. */
uint32_t mdns_socket_rand(struct mdns_socket *n);

/* Reports msg through n->log, or on stderr ("benchboot mdns: ...") when
 * n has none. */
void mdns_socket_log(struct mdns_socket *n, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Re-reads the interface list: joins the group on new links, drops gone
 * ones.  Returns 1 when the set or an address changed, 0 when not, or a
 * negative errno. */
int mdns_socket_scan(struct mdns_socket *n);

/* Fills n (anything in it is overwritten): a UDP socket on
 * 0.0.0.0:5353 shared with SO_REUSEADDR/SO_REUSEPORT, or, when that bind
 * fails and !want5353, an ephemeral port; joins 224.0.0.251 on only_if
 * (every up, multicast-capable, non-loopback IPv4 link when NULL;
 * borrowed, must outlive n).  Returns 0, or a negative errno with a
 * message in err (no usable interface, socket errors; nothing is left
 * open).  The caller closes n->fd. */
int mdns_socket_open(struct mdns_socket *n, const char *only_if,
		     bool want5353, mdns_log_fn log, void *log_arg,
		     char *err, size_t errlen);

/* Gives fd 4 MiB receive and send buffers (forced as root, else as much
 * as rmem_max/wmem_max allow).  Every mDNS packet on the link reaches
 * every socket on 5353, and when 256 agents all ask at once the default
 * 208 KiB receive buffer holds only ~150 of them; a responder's unicast
 * answers to 256 new hosts each wait for ARP, charged to its send buffer,
 * where 208 KiB holds ~127 (the rest fail with EAGAIN). */
void mdns_socket_buffers(int fd);

/* Sends len bytes of buf to to out of link f (from n->tx_fd when set,
 * else n->fd), counted in n->st.  Returns 0 or a negative errno. */
int mdns_socket_send(struct mdns_socket *n, const struct mdns_if *f,
		     const struct sockaddr_in *to, const uint8_t *buf,
		     size_t len);

/* As mdns_socket_send() to 224.0.0.251:5353. */
int mdns_socket_send_mc(struct mdns_socket *n, const struct mdns_if *f,
			const uint8_t *buf, size_t len);

/* Reads, parses and filters one datagram from fd into buf
 * (MDNS_PACKET_MAX + 1 bytes).  Returns 1 with m filled and *fp the
 * arrival interface, 0 when nothing (more) is pending, 2 for a dropped
 * datagram (logged), or a negative errno. */
int mdns_socket_next(struct mdns_socket *n, int fd, uint8_t *buf,
		     struct mdns_msg *m, struct sockaddr_in *from,
		     struct mdns_if **fp);

#endif
