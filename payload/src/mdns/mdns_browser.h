/* mdns/mdns_browser.h: the browser: finds and resolves the instances of a
 * DNS-SD service type (RFC 6763) and follows them as they come and go. */
#ifndef BB_MDNS_BROWSER_H
#define BB_MDNS_BROWSER_H

#include <stddef.h>
#include <stdint.h>

#include "mdns/mdns_socket.h"

/* Instances a browser follows at once, and what mdns_browse() and
 * `benchboot mdns browse` list at most: a rack of 1024 agents with room
 * to spare.  The table grows to it as instances come; when it is full,
 * a newcomer takes the place of, in this order, the instance heard from
 * longest ago among those not yet resolved, then among those resolved
 * that conf->keep does not keep; a kept one is never pushed out, the
 * newcomer is dropped instead (docs/discovery.md, "Many instances"). */
#define MDNS_BROWSER_MAX 2048

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
/* Whether a resolved instance is one the caller must not lose when the
 * table is full (non-zero: kept). */
typedef int (*mdns_keep_fn)(void *arg, const struct mdns_instance *in);

struct mdns_browse_conf {
	const char *type;	/* "_benchboot._tcp" when NULL */
	/* Only the instances listed under this DNS-SD subtype ("_controller":
	 * queries ask for "_controller._sub.TYPE.local", RFC 6763 §7.1, and
	 * records of other instances are ignored), so only they answer; NULL:
	 * every instance of type. */
	const char *subtype;
	const char *ifname;	/* every multicast interface when NULL */
	mdns_browse_cb cb;	/* may be NULL: use mdns_browser_get() */
	/* Which instances a full table keeps (called with cb_arg when one is
	 * resolved or changes); NULL: those whose TXT says role=controller. */
	mdns_keep_fn keep;
	void *cb_arg;
	mdns_log_fn log;	/* rejected packets; stderr when NULL */
	void *log_arg;
};

struct mdns_browser;

/* Starts browsing: binds 5353 shared (to hear announcements, goodbyes
 * and multicast answers) and sends PTR queries at 0, 1, 2, 4, ... 60 s,
 * each but the first listing the instances already known with over half
 * their TTL left, so their responders stay quiet (known answers, RFC 6762
 * §7.1; as many as fit one packet).
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

/* Blocking convenience: browses type (NULL = "_benchboot._tcp"), or only
 * its subtype (NULL = all), on ifname (NULL = all) for timeout_ms and
 * copies up to max resolved instances into out, *n set to how many.
 * Returns 0 (also when none was found), or a negative errno with a
 * message in err. */
int mdns_browse(const char *type, const char *subtype, const char *ifname,
		int timeout_ms,
		struct mdns_instance *out, size_t max, size_t *n,
		char *err, size_t errlen);

#endif
