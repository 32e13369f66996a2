#!/bin/sh
# 220_http_faults.sh: `benchboot http` against servers that misbehave:
# nginx closing connections, a server that stalls (timeouts counted, the
# run still ends on time), garbage, slammed and truncated responses, and
# nothing listening.  Each failure lands in its own error class.
# harness: parallel
set -u
. "$TOP/payload/tests/lib/tap.sh"
. "$TOP/payload/tests/lib/servers.sh"
PIDS=
cleanup() {
	for p in $PIDS; do kill "$p" 2>/dev/null; done
	servers_stop
}
trap cleanup EXIT INT TERM

BB="$TARGET_RUN $BENCHBOOT"
docroot=$RUN_DIR/www
mkdir -p "$docroot"
head -c 4050 /dev/zero | tr '\0' 'y' >"$docroot/index.html"
j() { jq -r "$2" "$1"; }

# --- nginx closing connections --------------------------------------
if nginx_start "$docroot" "
	location /ka5/ { keepalive_requests 5; alias $docroot/; }
	location /close/ { keepalive_timeout 0; alias $docroot/; }"; then
	url=http://127.0.0.1:$NGINX_PORT
	for mode in ka5 close; do
		s0=$(nginx_requests)
		$BB http --json -t 1 -c 4 -d 1s "$url/$mode/index.html" \
			>"$RUN_DIR/$mode.json"
		check_eq "$mode: exits 0" "$?" 0
		s1=$(nginx_requests)
		f=$RUN_DIR/$mode.json
		req=$(j "$f" .counters.requests)
		conns=$(j "$f" .counters.connections)
		per=5
		[ $mode = close ] && per=1
		check "$mode: a connection per $per requests" \
			[ $((req / per)) -le $((conns + 4)) -a \
			  $((req / per)) -ge $((conns - 4)) ]
		check_eq "$mode: nginx served exactly the requests sent" \
			$((s1 - s0 - 1)) "$(j "$f" .counters.sent)"
		check_eq "$mode: no errors" "$(j "$f" '[.errors[]] | add')" 0
	done
else
	not_ok "nginx starts"
fi

# --- misbehaving servers (python3) ------------------------------------
if ! command -v python3 >/dev/null 2>&1; then
	skip "misbehaving servers: python3 is not installed"
	tap_done
	exit
fi
cat >"$RUN_DIR/bad.py" <<'PY'
# bad.py MODE PORTFILE: a TCP server that misbehaves in one way per MODE.
import socket, sys, threading, time
mode, portfile = sys.argv[1], sys.argv[2]
ls = socket.socket()
ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
ls.bind(("127.0.0.1", 0))
ls.listen(128)
open(portfile + ".tmp", "w").write(str(ls.getsockname()[1]))
import os; os.rename(portfile + ".tmp", portfile)
def serve(c):
    try:
        if mode == "slam":
            c.close(); return
        c.recv(4096)
        if mode == "stall":
            time.sleep(3600)
        elif mode == "garbage":
            c.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: zz\r\n\r\n")
        elif mode == "truncated":
            c.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nabc")
            c.close(); return
        time.sleep(3600)
    except OSError:
        pass
while True:
    c, _ = ls.accept()
    threading.Thread(target=serve, args=(c,), daemon=True).start()
PY

# bad_server MODE: starts one; sets BAD_PORT.
bad_server() {
	rm -f "$RUN_DIR/port.$1"
	python3 "$RUN_DIR/bad.py" "$1" "$RUN_DIR/port.$1" &
	PIDS="$PIDS $!"
	wait_for 10 test -s "$RUN_DIR/port.$1"
	BAD_PORT=$(cat "$RUN_DIR/port.$1")
}

# A stalling server: every request times out, the run ends on time.
bad_server stall
start=$(date +%s%N)
$BB http --json -t 2 -c 4 -d 2s --timeout 300ms \
	"http://127.0.0.1:$BAD_PORT/" >"$RUN_DIR/stall.json"
rc=$?
ms=$((($(date +%s%N) - start) / 1000000))
f=$RUN_DIR/stall.json
check_eq "stall: exits 0" "$rc" 0
check "stall: run ended on time (${ms} ms for -d 2s)" [ "$ms" -lt 2800 ]
t=$(j "$f" .errors.timeout)
# 4 connections, one request each timing out every ~0.3 s over 2 s.
check "stall: timeouts counted ($t, expect about 24)" \
	[ "$t" -ge 12 -a "$t" -le 30 ]
check_eq "stall: no responses" "$(j "$f" .counters.requests)" 0
check_eq "stall: no other errors" \
	"$(j "$f" '.errors.connect + .errors.read + .errors.parse')" 0
check "stall: first error says timeout" \
	sh -c 'jq -r .first_error "$1" | grep -q "^timeout"' sh "$f"

for m in garbage slam truncated; do
	bad_server $m
	$BB http --json -t 1 -c 2 -d 1s --timeout 500ms \
		"http://127.0.0.1:$BAD_PORT/" >"$RUN_DIR/$m.json"
	check_eq "$m: exits 0" "$?" 0
	f=$RUN_DIR/$m.json
	case $m in
	garbage) cls=parse msg="Content-Length is not a number" ;;
	# reset, or closed before a response
	slam) cls=read msg="read: " ;;
	truncated) cls=read msg="before Content-Length bytes" ;;
	esac
	n=$(j "$f" ".errors.$cls")
	check "$m: $cls errors counted ($n)" [ "$n" -gt 0 ]
	if [ $m = slam ]; then
		# A write may also meet the reset: read or write, nothing else.
		check_eq "$m: only read/write errors" \
			"$(j "$f" '[.errors[]] | add')" \
			"$(j "$f" '.errors.read + .errors.write')"
	else
		check_eq "$m: only $cls errors" \
			"$(j "$f" '[.errors[]] | add')" "$n"
	fi
	check_eq "$m: no responses" "$(j "$f" .counters.requests)" 0
	check "$m: first error says '$msg'" \
		sh -c 'jq -r .first_error "$1" | grep -qF "$2"' sh "$f" "$msg"
done

# Nothing listening: connect errors, paced, and the run ends on time.
port=$(free_port)
start=$(date +%s%N)
$BB http --json -t 1 -c 2 -d 1s "http://127.0.0.1:$port/" \
	>"$RUN_DIR/refused.json"
check_eq "refused: exits 0" "$?" 0
ms=$((($(date +%s%N) - start) / 1000000))
f=$RUN_DIR/refused.json
n=$(j "$f" .errors.connect)
# 2 connections retrying every 10 ms: about 200, never a busy spin.
check "refused: connect errors counted and paced ($n)" \
	[ "$n" -ge 20 -a "$n" -le 400 ]
check "refused: run ended on time (${ms} ms)" [ "$ms" -lt 1800 ]
tap_done
