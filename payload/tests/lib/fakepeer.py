#!/usr/bin/env python3
# fakepeer.py: a hostile or replaying peer of the control protocol for the
# trust tests (626_agent_trust.sh): speaks the keyed handshake of
# payload/src/proto/auth.h from its own description in docs/protocol.md, then
# does one bad thing.  Usage: fakepeer.py MODE HOST PORT [KEYFILE], or
# crowd HOST PORT N (N open-lab agents dial at once, then say hello);
# opencontroller HOST PORT VICTIM [DELAY] (an open lab's run aimed at VICTIM,
# DELAY seconds after the welcome); prints
# what happened, one line, for the test to grep.
import hashlib
import hmac
import json
import os
import socket
import sys
import time


def proof(key, label, an, cn):
    return hmac.new(key, f"{label}|{an}|{cn}".encode(),
                    hashlib.sha256).hexdigest()


class Tagger:
    """Per-direction tags under the connection's key (auth_session)."""

    def __init__(self, key, an, cn, tx):
        self.k = hmac.new(key, b"benchboot/1 session|" + an.encode() +
                          cn.encode(), hashlib.sha256).digest()
        self.tx, self.rx = tx, (b"C" if tx == b"A" else b"A")
        self.ts = self.rs = 0

    def seal(self, msg):
        t = hmac.new(self.k, self.tx + self.ts.to_bytes(8, "big") + msg,
                     hashlib.sha256).hexdigest()
        self.ts += 1
        return t.encode() + b" " + msg


BUFS = {}


def line(sock):
    buf = BUFS.get(sock, b"")
    while b"\n" not in buf:
        d = sock.recv(65536)
        if not d:
            return None
        buf += d
    l, BUFS[sock] = buf.split(b"\n", 1)
    return l


def msg(**kv):
    kv = {"v": 1, **kv}
    return json.dumps(kv, separators=(",", ":")).encode()


def accept_one(host, port, timeout):
    """The first agent to dial host:port (within 30 s), as a controller."""
    ls = socket.socket()
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind((host, port))
    ls.listen(1)
    ls.settimeout(30)
    c, _ = ls.accept()
    c.settimeout(timeout)
    return c


def closed(sock, wait=8):
    """Whether the other side closes within wait seconds."""
    sock.settimeout(wait)
    try:
        while True:
            d = sock.recv(65536)
            if not d:
                return True
    except (socket.timeout, TimeoutError):
        return False
    except ConnectionResetError:
        return True


def agent_handshake(host, port, key, an):
    """Our AUTH, their CHALLENGE; returns (sock, challenge)."""
    s = socket.create_connection((host, port), timeout=10)
    s.sendall(msg(type="auth", nonce=an) + b"\n")
    ch = json.loads(line(s))
    return s, ch


def hello(tag, ident):
    return tag.seal(msg(type="hello", id=ident, role="client",
                        ver="fake", workloads=["http"])) + b"\n"


def main():
    mode, host, port = sys.argv[1], sys.argv[2], int(sys.argv[3])
    key = open(sys.argv[4], "rb").readline().strip() \
        if len(sys.argv) > 4 and mode not in ("opencontroller", "crowd") \
        else b""
    an = os.urandom(16).hex()
    if mode == "replay":
        # A recorded handshake played again: the controller's fresh nonce
        # makes the old proof worthless.
        s, ch = agent_handshake(host, port, key, an)
        p = proof(key, "benchboot/1 agent", an, ch["nonce"])
        s.sendall(msg(type="proof", proof=p) + b"\n")
        s2, ch2 = agent_handshake(host, port, key, an)
        s2.sendall(msg(type="proof", proof=p) + b"\n")
        print("replayed proof:", "refused" if closed(s2) else "accepted")
    elif mode == "badtag":
        # Right key, then a line whose tag does not match its bytes.
        s, ch = agent_handshake(host, port, key, an)
        s.sendall(msg(type="proof", proof=proof(
            key, "benchboot/1 agent", an, ch["nonce"])) + b"\n")
        tag = Tagger(key, an, ch["nonce"], b"A")
        h = hello(tag, "forger")
        s.sendall(h.replace(b'"forger"', b'"forgex"'))
        print("altered line:", "refused" if closed(s) else "accepted")
    elif mode == "takeover":
        # A newcomer claims the id of a connected client.
        s, ch = agent_handshake(host, port, key, an)
        s.sendall(msg(type="proof", proof=proof(
            key, "benchboot/1 agent", an, ch["nonce"])) + b"\n")
        tag = Tagger(key, an, ch["nonce"], b"A")
        s.sendall(hello(tag, sys.argv[5]))
        print("id takeover:", "refused" if closed(s) else "accepted")
    elif mode == "loris":
        # One byte every second, never a whole hello.
        s = socket.create_connection((host, port), timeout=10)
        t0 = time.time()
        try:
            for _ in range(30):
                s.sendall(b"{")
                time.sleep(1)
        except OSError:
            pass
        print("slow sender: dropped after %.0f s" % (time.time() - t0))
    elif mode == "controller":
        # A keyed controller that asks for what no suite runs.
        c = accept_one(host, port, 10)
        a = json.loads(line(c))
        cn = os.urandom(16).hex()
        c.sendall(msg(type="challenge", nonce=cn, proof=proof(
            key, "benchboot/1 controller", a["nonce"], cn)) + b"\n")
        json.loads(line(c))
        tag = Tagger(key, a["nonce"], cn, b"C")
        line(c)  # the agent's hello
        bad = [["fetch", "-o", "/tmp/bb-pwned", "file:///etc/passwd"],
               ["http", "--urls", "/etc/shadow", "http://10.77.0.1/"],
               ["http", "-c", "1", "http://192.0.2.1/"],
               ["smtp", "--message", "/etc/shadow", "--from", "a@b",
                "--to", "c@d", "10.77.0.1:25"]]
        for i, p in enumerate(bad):
            c.sendall(tag.seal(msg(type="run", step=f"bad{i}",
                                   start_at=time.time_ns(), procs=[p],
                                   targets=["10.77.0.1"])) + b"\n")
            while True:
                r = line(c)
                if r is None:
                    print("agent closed the connection")
                    return
                r = json.loads(r.split(b" ", 1)[1])
                if r.get("type") == "result":
                    break
            print(f"run {p[0]} {p[1]}: error:",
                  r["records"][0].get("error", "none"))
    elif mode == "crowd":
        # N agents of an open lab dial at once, then each says hello:
        # prints how many the controller welcomed.
        n = int(sys.argv[4])
        socks = [socket.create_connection((host, port), timeout=10)
                 for _ in range(n)]
        for i, s in enumerate(socks):
            s.sendall(msg(type="hello", id=f"crowd-{i}", role="client",
                          ver="fake", workloads=["http"]) + b"\n")
        welcomed = 0
        for s in socks:
            try:
                r = line(s)
            except (socket.timeout, TimeoutError, ConnectionResetError):
                r = None
            if r and json.loads(r).get("type") == "welcome":
                welcomed += 1
        print(f"crowd: {welcomed} of {n} welcomed")
    elif mode == "opencontroller":
        # An open-lab controller that names its own targets: KEYFILE is
        # the host each run aims at, which it also lists in "targets".
        c = accept_one(host, port, 20)
        line(c)  # the agent's hello
        c.sendall(msg(type="welcome", controller="open-fake") + b"\n")
        victim = sys.argv[4]
        if len(sys.argv) > 5:
            time.sleep(float(sys.argv[5]))
        c.sendall(msg(type="run", step="forged", start_at=time.time_ns(),
                      procs=[["http", "--json", "-t", "1", "-c", "1", "-d", "1s",
                              f"http://{victim}/"]],
                      targets=[victim]) + b"\n")
        while True:
            r = line(c)
            if r is None:
                print("agent closed the connection")
                return
            r = json.loads(r)
            if r.get("type") == "result":
                break
        print(f"run http {victim}: error:",
              r["records"][0].get("error", "none"))
    else:
        sys.exit("unknown mode " + mode)


main()
