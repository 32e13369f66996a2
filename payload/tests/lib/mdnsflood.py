#!/usr/bin/env python3
# mdnsflood.py: floods a link with unsolicited mDNS announcements of many
# fake _benchboot._tcp instances (PTR, SRV, TXT and A, long TTLs), as a
# hostile host or a rack of agents would, for the browser's table tests
# (355_mdns_flood.sh).  Usage: mdnsflood.py N [SECONDS]: N instances
# "fake-I", every round of them sent again until SECONDS have passed
# (default 60); roles cycle client, server, controller of lab "other" and
# controller of no lab.  Every one is also listed under the subtype
# _controller (RFC 6763 §7.1), as a hostile host would, so the fakes reach
# an agent's search for its controller too.  Prints "flooding N" once
# the first round is out.
import socket
import struct
import sys
import time


def name(*labels):
    out = b""
    for l in labels:
        b = l.encode()
        out += bytes([len(b)]) + b
    return out + b"\0"


def rr(n, rtype, rclass, ttl, rdata):
    return n + struct.pack("!HHIH", rtype, rclass, ttl, len(rdata)) + rdata


def txt(*kv):
    return b"".join(bytes([len(s.encode())]) + s.encode() for s in kv)


ROLES = (("role=client",), ("role=server",),
         ("role=controller", "lab=other"), ("role=controller",))


def packet(i):
    inst = f"fake-{i}"
    svc = name("_benchboot", "_tcp", "local")
    iname = name(inst, "_benchboot", "_tcp", "local")
    host = name(inst, "local")
    ttl = 4500
    sub = name("_controller", "_sub", "_benchboot", "_tcp", "local")
    body = rr(svc, 12, 1, ttl, iname)
    body += rr(sub, 12, 1, ttl, iname)
    body += rr(iname, 33, 0x8001, ttl,
               struct.pack("!HHH", 0, 0, 7000) + host)
    body += rr(iname, 16, 0x8001, ttl,
               txt(*ROLES[i % len(ROLES)], f"id={inst}"))
    body += rr(host, 1, 0x8001, ttl,
               bytes([10, 250, (i >> 8) & 255, i & 255]))
    return struct.pack("!HHHHHH", 0, 0x8400, 0, 5, 0, 0) + body


def main():
    n = int(sys.argv[1])
    secs = float(sys.argv[2]) if len(sys.argv) > 2 else 60
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    if hasattr(socket, "SO_REUSEPORT"):
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    s.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_TTL, 255)
    s.bind(("", 5353))
    pkts = [packet(i) for i in range(n)]
    end = time.monotonic() + secs
    first = True
    while time.monotonic() < end:
        for p in pkts:
            try:
                s.sendto(p, ("224.0.0.251", 5353))
            except OSError:
                time.sleep(0.001)
        if first:
            print(f"flooding {n}", flush=True)
            first = False
        time.sleep(0.3)


main()
