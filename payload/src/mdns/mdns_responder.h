/* mdns/mdns_responder.h: the responder: publishes one service instance over
 * mDNS/DNS-SD (probe, announce, answer, defend, goodbye; RFC 6762/6763). */
#ifndef BB_MDNS_RESPONDER_H
#define BB_MDNS_RESPONDER_H

#include <stdint.h>

#include "mdns/mdns_socket.h"

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
	/* DNS-SD subtypes the instance is also listed under (RFC 6763 §7.1):
	 * NULL-terminated labels such as "_controller", at most
	 * MDNS_SUBTYPES_MAX, each 1..63 bytes; NULL for none.  A PTR query
	 * for "_controller._sub.TYPE.local" is answered by the instances
	 * listing it and nobody else, so a search for the one controller
	 * among 256 agents gets one answer, not 256. */
	const char *const *subtypes;
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



/* Subtypes one instance may list (struct mdns_service.subtypes). */
#define MDNS_SUBTYPES_MAX 2

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

/* Replaces the subtype list (as struct mdns_service.subtypes; NULL for
 * none): says goodbye to the subtypes dropped and announces the new list
 * (a server that became the controller adds "_controller").  Returns 0
 * or -EINVAL (too many, or a label empty or over 63 bytes; logged). */
int mdns_responder_set_subtypes(struct mdns_responder *r,
				const char *const *subtypes);

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

#endif
