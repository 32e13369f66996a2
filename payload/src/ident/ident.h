/* ident/ident.h: what a server under test is, as seen from the network, when no
 * agent of ours runs there (`benchboot ident`; the result's
 * server_identity, docs/result-schema.md).  It asks each service what it
 * says about itself: the HTTP Server header (and the server kit's
 * /benchboot-kit.json and CGI kind when they are there), the MySQL
 * handshake's version and, with an account, SELECT VERSION() and
 * @@version_compile_os, the SMTP banner and EHLO extensions; and it
 * records cheap TCP/IP facts: the SYN-ACK's window, the MSS, window
 * scaling and TCP options the server negotiated (TCP_INFO right after the
 * handshake), an ICMP echo reply's TTL (raw or ping socket, when allowed
 * and not filtered), the address and the MAC from the neighbour table.
 * Every connection has a deadline and a byte budget; the parsers are
 * ident_parse.h's. */
#ifndef BB_IDENT_H
#define BB_IDENT_H

#include <stddef.h>

#include <cjson/cJSON.h>

struct ident_target {
	const char *host;	/* IPv4/IPv6 address or name (resolved once) */
	unsigned http_port;	/* 0: no HTTP probe */
	unsigned sql_port;	/* 0: no SQL probe */
	const char *sql_user;	/* NULL: handshake version only */
	const char *sql_password, *sql_db;
	unsigned smtp_port;	/* 0: no SMTP probe */
	unsigned timeout_ms;	/* each service's deadline */
	int no_icmp;		/* no ICMP echo (the TTL) */
};

/* Fills t for host with the suite's ports (80, 3306, 25), no SQL account
 * and a 5 s deadline per service. */
void ident_target_init(struct ident_target *t, const char *host);

/* Probes t.  Returns a new object (the caller frees it):
 *   {"host", "address", "http": {...}, "sql": {...}, "smtp": {...},
 *    "net": {...}, "kit": {...}}
 * where a service that did not answer has {"port", "error"} instead of
 * its facts (see docs/result-schema.md, server_identity).  NULL with the
 * reason in err when host does not resolve or memory runs out. */
cJSON *ident_probe(const struct ident_target *t, char *err, size_t errlen);

/* `benchboot ident HOST [--http-port P] [--sql-port P] [--sql-user U]
 * [--sql-password PW] [--sql-db DB] [--smtp-port P] [--timeout S]
 * [--no-icmp] [--json]`: prints the object (indented, or one line with
 * --json).  A port of 0 skips that service.  Returns 0 when any service
 * answered, 1 when none did or HOST does not resolve, 2 on a usage
 * error. */
int ident_main(int argc, char **argv);

#endif
