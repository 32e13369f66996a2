/* node/peer.h: how agents find each other: this agent announced as
 * _benchboot._tcp over mDNS/DNS-SD, and the controller discovered by
 * browsing (docs/discovery.md).  One announcement per process. */
#ifndef BB_PEER_H
#define BB_PEER_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

/* Publishes this agent (instance and host label = id; TXT role, id, arch,
 * ver, suite, cpus, mem, and lab when lab is not ""; port = the
 * controller's control port).  Failure
 * is logged, not fatal: an agent given --controller works without
 * multicast.  Returns 0 or -EIO. */
int peer_announce(const char *id, const char *role, const char *suite,
		  const char *lab, int port);

/* Changes the announced role (a server that became the controller).
 * Returns 0, -ENOENT when nothing is announced, or -EINVAL. */
int peer_set_role(const char *role);

/* Runs the responder's due work; every agent loop calls it at least every
 * 100 ms (answers are delayed 20-120 ms by RFC 6762 anyway).  Nothing
 * when nothing is announced. */
void peer_poll(void);

/* Sends goodbyes and stops announcing. */
void peer_withdraw(void);

/* Browses for a controller for up to timeout_ns, or until *stop becomes
 * non-zero (stop may be NULL): writes "ADDR:PORT" of the first instance
 * with TXT role=controller and the same lab (no lab TXT: lab "") into
 * out; a controller of another lab is never taken.  Instances are
 * looked at as they resolve, so the search ends with the first such
 * controller however many agents announce, and a full browser table
 * never pushes it out (docs/discovery.md, "Many instances").  Returns 0, -ENOENT when none
 * answered in time, or another negative errno at once when it cannot
 * browse (e.g. no up, multicast-capable interface yet; the reason is
 * logged, the same one at most once a minute). */
int peer_discover(uint64_t timeout_ns, const volatile sig_atomic_t *stop,
		  const char *lab, char *out, size_t outlen);

/* Watches the LAN for controllers without blocking (a browser kept
 * open, so this agent's own responder keeps answering meanwhile): two
 * servers that both became the controller (each found none) settle on
 * the lower id, deterministically.  Returns 0 or a negative errno (no
 * multicast: the watch then finds nothing). */
int peer_watch_start(void);

/* Services the watch (call it at least every 100 ms) and looks for a
 * controller of lab whose id sorts before self's: writes its "ADDR:PORT"
 * into out.  Returns 0 when there is one, else -ENOENT. */
int peer_watch_lower(const char *self, const char *lab, char *out,
		     size_t outlen);

/* Stops the watch. */
void peer_watch_stop(void);

/* Starts following the servers of lab (role=server, or a server that
 * became the controller) that announce themselves, until
 * peer_withdraw(): a browser of the _server subtype that peer_poll()
 * services, so a server announced while this agent waits for a run counts
 * for peer_server_announced().  Returns 0 (also when already following)
 * or -EIO (cannot browse; logged). */
int peer_servers_watch(const char *lab);

/* Whether a benchboot server of lab (role=server, or a server that became
 * the controller) announces the IPv4 address addr over mDNS: one the
 * watch of peer_servers_watch() holds, else one that answers a browse of
 * the _server subtype within timeout_ms (ending as soon as it resolves;
 * this agent's own responder is serviced meanwhile: every client of a
 * step asks at once).  What an agent of an open lab asks before it loads
 * a host the controller names (docs/security.md).  An address that is
 * not another host's (peer_addr_foreign()) is refused at once, whatever
 * announces it.  Returns 0 when one does, -ENOENT when none did,
 * -EADDRNOTAVAIL for such an address, or another negative errno (it
 * cannot browse). */
int peer_server_announced(const char *addr, const char *lab, int timeout_ms);

/* Whether addr, an IPv4 or IPv6 literal, may be another host of the LAN:
 * 0 when it is loopback, unspecified, multicast or broadcast, or one of
 * this host's own addresses (a rogue announcing them would have agents
 * load services that listen only here), or no literal at all; else 1. */
int peer_addr_foreign(const char *addr);

#endif
