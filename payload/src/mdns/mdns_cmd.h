/* mdns/mdns_cmd.h: `benchboot mdns`, publishing and browsing from the shell
 * (what the interoperability tests and docs/discovery.md use). */
#ifndef BB_MDNS_CMD_H
#define BB_MDNS_CMD_H

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
