#!/bin/sh
# 631_collect_limits.sh: `benchboot collect` against hostile peers on
# loopback: slow-loris clients trickling their head and their body while
# another uploads within a bound; the whole-request deadline (408, nothing
# stored); bodies over --max-size refused before they are read; too many
# connections, in all or from one address, answered 503; and the start-up
# refusals: no address in --listen, beyond loopback without --token
# (unless --no-token).
# harness: parallel
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/servers.sh"
BB="${TARGET_RUN:+$TARGET_RUN }$BENCHBOOT"
trap 'kill $LORIS 2>/dev/null; servers_stop' EXIT
LORIS=

D=$RUN_DIR/store
mkdir -p "$D"
# As root the collector needs --user: nobody, its store made nobody's.
CU=$(collect_user "$D")
PORT=$(free_port)
$BB collect $CU --dir "$D" --listen 127.0.0.1:$PORT --token tok \
	--max-size 100k --max-conns 10 --max-conns-per-peer 7 --timeout 3s \
	2>"$RUN_DIR/collect.log" &
SERVER_PIDS="$SERVER_PIDS $!"
U=http://127.0.0.1:$PORT
check "collector up" wait_for 10 curl -s -o /dev/null $U/
doc() { printf '{"schema":"benchboot.result/1","id":"%s","x":%s}' "$1" "$2"; }
put() {
	curl -s -m 20 -o "$RUN_DIR/body" -w '%{http_code}' -X PUT \
		-H "Authorization: Bearer ${3:-tok}" --data-binary "$2" "$U$1"
}

# loris MODE N SECONDS: N connections each trickling a byte a second
# (MODE head: inside the request head; body: a valid head, then the
# body); prints "status:seconds" per connection once each ends.
loris() {
	python3 - "$PORT" "$@" <<'PY'
import socket, sys, time, threading
port, mode, n, secs = int(sys.argv[1]), sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
head = b"PUT /results/slow.json HTTP/1.1\r\nAuthorization: Bearer tok\r\nContent-Length: 500\r\n\r\n"
out = []
def one():
    s = socket.create_connection(("127.0.0.1", port))
    t0 = time.time()
    if mode == "body":
        s.sendall(head)
        data = b'{"schema":"benchboot.result/1",' + b" " * 500
    else:
        data = head
    got = b""
    s.settimeout(1.0)
    for b in data:
        if time.time() - t0 > secs:
            break
        try:
            s.sendall(bytes([b]))
            got += s.recv(4096)
            if got:
                break
        except socket.timeout:
            continue
        except OSError:
            break
    try:
        s.settimeout(2.0)
        got += s.recv(4096)
    except OSError:
        pass
    st = got.split(b" ")[1].decode() if got.startswith(b"HTTP/") else "closed"
    out.append("%s:%d" % (st, round(time.time() - t0)))
ts = [threading.Thread(target=one) for _ in range(n)]
for t in ts: t.start()
for t in ts: t.join()
print(" ".join(sorted(out)))
PY
}

# --- slow loris ---------------------------------------------------------
# Six trickling connections and the fast upload: 7 from 127.0.0.1, what
# --max-conns-per-peer allows.
loris head 3 8 >"$RUN_DIR/loris-head" &
LORIS=$!
loris body 3 8 >"$RUN_DIR/loris-body" &
LORIS="$LORIS $!"
sleep 1
doc fast 1 >"$RUN_DIR/fast.json"
t0=$(date +%s%N)
st=$(put /results/fast.json @"$RUN_DIR/fast.json")
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
check_eq "upload beside 6 trickling clients: 201" "$st" 201
check "... within 1 s (took $ms ms)" test "$ms" -lt 1000
check "stored byte for byte" cmp "$RUN_DIR/fast.json" "$D/fast.json"
wait $LORIS
LORIS=
check_eq "trickling heads cut at the 3 s deadline: 408" \
	"$(cat "$RUN_DIR/loris-head")" "408:3 408:3 408:3"
check_eq "trickling bodies cut at the 3 s deadline: 408" \
	"$(cat "$RUN_DIR/loris-body")" "408:3 408:3 408:3"
check "deadline logged" grep -q "not complete within 3 s" \
	"$RUN_DIR/collect.log"
check_eq "nothing stored for them" "$(ls -A "$D" | tr '\n' ' ')" \
	"fast.json "

# --- byte budget --------------------------------------------------------
head -c 200000 /dev/zero | tr '\0' ' ' >"$RUN_DIR/big"
check_eq "body over --max-size: 413" \
	"$(put /results/big.json @"$RUN_DIR/big")" 413
check_eq "announced over --max-size, nothing sent: 413 at once" \
	"$(python3 - "$PORT" <<'PY'
import socket, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
s.settimeout(5)
s.sendall(b"PUT /results/huge.json HTTP/1.1\r\nAuthorization: Bearer tok\r\n"
          b"Content-Length: 99999999999\r\n\r\n")
print(s.recv(100).split(b" ")[1].decode())
PY
)" 413
check_eq "no token: 401 before the body is read" \
	"$(put /results/x.json "$(doc x 1)" wrong)" 401
head -c 20000 /dev/zero | tr '\0' 'a' >"$RUN_DIR/hdr"
check_eq "head over 16 KiB: 431" "$(curl -s -o /dev/null -w '%{http_code}' \
	-H "X-Pad: $(cat "$RUN_DIR/hdr")" $U/)" 431

# --- too many connections ---------------------------------------------
# Loopback has many addresses: 127.0.0.1 holds its 7, a second address
# the other 3 of 10, a third finds none; then every one is released.
check_eq "8th from one address: 503; 11th overall: 503; then served again" \
	"$(python3 - "$PORT" <<'PY'
import socket, sys, time
port = int(sys.argv[1])
def conn(src):
    s = socket.socket()
    s.bind((src, 0))
    s.connect(("127.0.0.1", port))
    s.settimeout(5)
    return s
def status(s):
    return s.recv(200).split(b" ")[1].decode()
held = [conn("127.0.0.1") for _ in range(7)]
time.sleep(0.3)
a = status(conn("127.0.0.1"))
held += [conn("127.0.0.2") for _ in range(3)]
time.sleep(0.3)
b = status(conn("127.0.0.3"))
for h in held: h.close()
time.sleep(0.5)
s = conn("127.0.0.3")
s.sendall(b"GET / HTTP/1.1\r\nAuthorization: Bearer tok\r\n\r\n")
print(a, b, status(s))
PY
)" "503 503 200"
check "per-address refusal logged" grep -q \
	"127.0.0.1:[0-9]*: 7 connections open (--max-conns-per-peer" \
	"$RUN_DIR/collect.log"
check "total refusal logged" grep -q \
	"127.0.0.3:[0-9]*: 10 connections open (--max-conns)" \
	"$RUN_DIR/collect.log"

# --- start-up refusals --------------------------------------------------
has() { printf '%s\n' "$1" | grep -q "$2"; }
# start ARGS...: the collector's exit status and first message line.
start() {
	timeout 5 $BB collect $CU --dir "$D" "$@" 2>"$RUN_DIR/start.err"
	echo "$? $(head -1 "$RUN_DIR/start.err")"
}
P2=$(free_port)
r=$(start --listen :$P2 --token tok)
check "--listen :PORT (no address) refused: $r" \
	has "$r" '^2 .*address spelled out'
r=$(start --listen 0.0.0.0:$P2)
check "every address without --token refused: $r" \
	has "$r" '^2 .*reaches beyond this host.*--no-token'
r=$(start --listen 0.0.0.0:$P2 --token t --no-token)
check "--token with --no-token refused" has "$r" '^2 '
r=$(start --listen 127.0.0.1:$P2 --token-file /nonexistent)
check "missing --token-file refused" has "$r" '^1 '
echo s3cret >"$RUN_DIR/tokfile"
$BB collect $CU --dir "$D" --listen 0.0.0.0:$P2 --token-file "$RUN_DIR/tokfile" \
	2>"$RUN_DIR/tf.log" &
SERVER_PIDS="$SERVER_PIDS $!"
check "--token-file: token required" wait_for 10 sh -c "curl -s -o /dev/null \
	-w '%{http_code}' http://127.0.0.1:$P2/ | grep -q 401"
check_eq "--token-file: the file's token works" "$(curl -s -o /dev/null \
	-w '%{http_code}' -H 'Authorization: Bearer s3cret' \
	http://127.0.0.1:$P2/)" 200
P3=$(free_port)
$BB collect $CU --dir "$D" --listen 0.0.0.0:$P3 --no-token 2>"$RUN_DIR/nt.log" &
SERVER_PIDS="$SERVER_PIDS $!"
check "--no-token on every address starts, and says so" wait_for 10 \
	grep -q "no token: anyone who reaches it may upload" "$RUN_DIR/nt.log"
tap_done
