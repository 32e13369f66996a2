#!/bin/sh
# 520_smtp_sink_faults.sh: `benchboot smtp` and `benchboot smtp-sink`
# together and with Postfix's own tools: counts agree with and without
# PIPELINING, Postfix's smtp-source is counted by our sink, the open loop
# holds its rate, and faults (4xx/5xx from the sink, nothing listening, a
# server that never greets, garbage replies, the sink killed mid-run) are
# counted by class with the run ending on time; sessions prepared behind
# the agent's gate that the server closes before the start are opened
# again at the start.
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
j() { jq -r "$2" "$1"; }
# jf FILE PATH...: the values at jq PATHs, space-separated.
jf() {
	_f=$1
	shift
	for _p; do jq -r "$_p" "$_f"; done | tr '\n' ' ' | sed 's/ $//'
}
listening() { ss -Htln "sport = :$1" | grep -q .; }

# sink_start NAME ARGS...: our sink on a fresh port (SPORT), record in
# $RUN_DIR/NAME.json once stopped with sink_stop.  Other tests on this
# machine take random ports too: a port taken between free_port and our
# bind is retried.
sink_start() {
	_n=$1
	shift
	for _try in 1 2 3; do
		SPORT=$(free_port)
		$BB smtp-sink --json "$@" 127.0.0.1:$SPORT \
			>"$RUN_DIR/$_n.json" 2>"$RUN_DIR/$_n.err" &
		SPID=$!
		PIDS="$PIDS $SPID"
		wait_for 30 sh -c "grep -q listening '$RUN_DIR/$_n.err' ||
			! kill -0 $SPID" 2>/dev/null
		kill -0 "$SPID" 2>/dev/null && return 0
		diag "smtp-sink did not start: $(cat "$RUN_DIR/$_n.err")"
	done
	return 1
}
sink_stop() {
	kill "$SPID"
	wait "$SPID"
}
FT="--from a@bench.test --to b@sink.test"

# --- counts agree, pipelined and not ----------------------------------------
for p in pipelining no-pipelining; do
	opt=
	[ $p = no-pipelining ] && opt=--no-pipelining
	sink_start $p $opt
	f=$RUN_DIR/c-$p.json
	$BB smtp --json -t 2 -c 8 -n 2000 --from a@bench.test \
		--to b@sink.test,c@sink.test "127.0.0.1:$SPORT" >"$f"
	check_eq "$p: client counts 2000 mails, 4000 recipients" \
		"$(jf "$f" .counters.mails .counters.recipients)" "2000 4000"
	sink_stop
	check_eq "$p: sink counts the same" \
		"$(jf "$RUN_DIR/$p.json" .counters.mails .counters.recipients \
			.counters.bytes)" \
		"2000 4000 $(j "$f" '.counters.bytes - 3 * 2000')"
	check_eq "$p: sink saw no protocol errors" \
		"$(j "$RUN_DIR/$p.json" .errors.protocol)" 0
done

# --- a message file, dot stuffing -------------------------------------------
printf 'Subject: dots\n\n.leading dot\n..two\nend\n' >"$RUN_DIR/msg.txt"
store=$RUN_DIR/store
mkdir -p "$store"
sink_start file --store "$store"
$BB smtp -n 1 --message "$RUN_DIR/msg.txt" $FT "127.0.0.1:$SPORT" >/dev/null
sink_stop
printf 'Subject: dots\r\n\r\n.leading dot\r\n..two\r\nend\r\n' >"$RUN_DIR/want"
check "message file arrives byte for byte (dots unstuffed)" \
	cmp -s "$RUN_DIR/want" "$store/$(ls "$store" | head -1)"

# --- Postfix's smtp-source into our sink ------------------------------------
if command -v smtp-source >/dev/null 2>&1; then
	sink_start source
	smtp-source -s 4 -m 300 -l 4096 -f a@bench.test -t b@sink.test \
		"127.0.0.1:$SPORT" >"$RUN_DIR/source.log" 2>&1
	check_eq "smtp-source: exits 0" "$?" 0
	sink_stop
	check_eq "smtp-source: the sink counted its 300 mails" \
		"$(j "$RUN_DIR/source.json" .counters.mails)" 300
else
	skip "smtp-source: postfix is not installed"
fi

# --- open loop --------------------------------------------------------------
sink_start rate
f=$RUN_DIR/c-rate.json
$BB smtp --json -c 4 -d 2s --rate 200 $FT "127.0.0.1:$SPORT" >"$f"
sink_stop
n=$(j "$f" .counters.mails)
check "open loop: 200/s for 2 s sends 380..420 ($n)" \
	[ "$n" -ge 380 -a "$n" -le 420 ]
check_eq "open loop: mode recorded" "$(j "$f" .params.mode)" open

# --- 4xx and 5xx at end of data ---------------------------------------------
sink_start fail --tempfail-every 4 --reject-every 5
f=$RUN_DIR/c-fail.json
$BB smtp --json -c 1 -n 100 $FT "127.0.0.1:$SPORT" >"$f"
sink_stop
# Every 4th message 451, every 5th (not 4th) 554: 25 and 15 of 100.
check_eq "sink faults: 60 delivered, 25 reply_4xx, 15 reply_5xx" \
	"$(jf "$f" .counters.mails .errors.reply_4xx .errors.reply_5xx)" \
	"60 25 15"
check_eq "sink faults: the sink agrees" \
	"$(jf "$RUN_DIR/fail.json" .counters.mails .counters.tempfailed \
		.counters.rejected)" \
	"60 25 15"

# --- nothing listening ------------------------------------------------------
port=$(free_port)
f=$RUN_DIR/refused.json
t0=$(date +%s)
$BB smtp --json -c 2 -d 1s $FT "127.0.0.1:$port" >"$f"
check_eq "refused: exits 0 with a result" "$?" 0
check "refused: connect errors counted ($(j "$f" .errors.connect))" \
	[ "$(j "$f" .errors.connect)" -gt 0 ]
check "refused: ends on time" [ $(($(date +%s) - t0)) -le 3 ]

# --- misbehaving servers (python3) ------------------------------------------
cat >"$RUN_DIR/bad.py" <<'PY'
# bad.py MODE PORT: silent (accepts, never greets) or garbage (an HTTP
# answer instead of a greeting).
import socket, sys, threading, time
mode, port = sys.argv[1], int(sys.argv[2])
ls = socket.socket()
ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
ls.bind(("127.0.0.1", port))
ls.listen(64)
held = []
while True:
    c, _ = ls.accept()
    if mode == "garbage":
        c.sendall(b"HTTP/1.1 200 OK\r\n\r\n")
    held.append(c)
PY
for mode in silent garbage; do
	port=$(free_port)
	python3 "$RUN_DIR/bad.py" $mode "$port" &
	PIDS="$PIDS $!"
	wait_for 10 listening "$port"
	f=$RUN_DIR/$mode.json
	t0=$(date +%s)
	$BB smtp --json -c 2 -d 2s --timeout 1s $FT "127.0.0.1:$port" >"$f"
	check_eq "$mode: exits 0 with a result" "$?" 0
	cls=timeout
	[ $mode = garbage ] && cls=protocol
	check "$mode: counted as $cls ($(j "$f" .errors.$cls))" \
		[ "$(j "$f" .errors.$cls)" -gt 0 ]
	check_eq "$mode: no mail counted" "$(j "$f" .counters.mails)" 0
	check "$mode: ends on time" [ $(($(date +%s) - t0)) -le 5 ]
done

# --- sessions prepared behind the gate ------------------------------------
# Behind an agent's gate (BENCHBOOT_GATE, docs/protocol.md) smtp greets
# its sessions before it says ready (EHLO, or HELO after a 502), and each
# sends MAIL first at the start; a server that says 421 and closes them
# while the start is awaited gets new sessions at the start, counted as
# any (the 421 of a session nobody used is not an error).
# The same C on every architecture: run for the host's only (about 5 s).
if [ -n "${TARGET_RUN:-}" ]; then
	skip "the prepare gate cases run for the host ARCH only"
else
	cat >"$RUN_DIR/gate.py" <<'PY'
# gate.py BENCHBOOT SERVERLOG MODE ARGS...: smtp with a gate, the start
# 1 s after it says ready, against a server that greets and then, MODE
# 421, answers EHLO and closes with 421 every session opened before the
# start, or, MODE helo, refuses EHLO (502) and takes HELO; it prints the
# record, and the server writes "N PRE FIRST" per session to SERVERLOG
# (PRE: opened before the start; FIRST: its first command after the
# greeting's, "-" for one closed before any).
import os, socket, struct, subprocess, sys, threading, time
ls = socket.socket()
ls.bind(("127.0.0.1", 0))
ls.listen(16)
start = threading.Event()
log, mode = open(sys.argv[2], "w"), sys.argv[3]
def session(c, n):
    f, pre, first = c.makefile("rb"), not start.is_set(), None
    c.sendall(b"220 t ESMTP\r\n")
    for l in iter(f.readline, b""):
        v = l[:4].upper()
        if v not in (b"EHLO", b"HELO") and first is None:
            first = v.decode()
            log.write("%d %d %s\n" % (n, pre, first))
            log.flush()
        if v == b"EHLO" and mode == "helo":
            c.sendall(b"502 no\r\n")
        elif v in (b"EHLO", b"HELO"):
            c.sendall(b"250-t\r\n250 PIPELINING\r\n")
            if pre and mode == "421":
                time.sleep(0.3)
                c.sendall(b"421 t closing\r\n")
                log.write("%d 1 -\n" % n)
                log.flush()
                break
        elif v == b"DATA":
            c.sendall(b"354 go\r\n")
            while f.readline() not in (b".\r\n", b""):
                pass
            c.sendall(b"250 ok\r\n")
        elif v == b"QUIT":
            c.sendall(b"221 bye\r\n")
            break
        else:
            c.sendall(b"250 ok\r\n")
    c.close()
def serve():
    n = 0
    while True:
        n += 1
        threading.Thread(target=session, args=(ls.accept()[0], n),
                         daemon=True).start()
threading.Thread(target=serve, daemon=True).start()
go_r, go_w = os.pipe()
rd_r, rd_w = os.pipe()
env = dict(os.environ, BENCHBOOT_GATE="%d,%d,5000" % (go_r, rd_w))
p = subprocess.Popen(sys.argv[1].split() + sys.argv[4:] +
                     ["127.0.0.1:%d" % ls.getsockname()[1]], env=env,
                     pass_fds=(go_r, rd_w))
os.close(go_r)
os.close(rd_w)
os.read(rd_r, 1)
time.sleep(1)
start.set()
os.write(go_w, struct.pack("=q", time.time_ns() + 50000000))
sys.exit(p.wait())
PY
	# gate MODE: gate.py's run, its record in $RUN_DIR/gateMODE.json.
	gate() {
		python3 "$RUN_DIR/gate.py" "$BB" "$RUN_DIR/gate$1.log" $1 \
			smtp --json -c 2 -d 500ms --timeout 2s $FT \
			>"$RUN_DIR/gate$1.json"
	}
	gate helo
	check_eq "HELO: both opened before the start, each MAIL first" \
		"$(sort "$RUN_DIR/gatehelo.log" | awk '{ print $2, $3 }' |
		uniq -c | awk '{ print $1, $2, $3 }')" "2 1 MAIL"
	check_eq "HELO: 2 sessions, mail, no error" \
		"$(jf "$RUN_DIR/gatehelo.json" .counters.sessions \
		'.counters.mails > 0' '[.errors[]] | add')" "2 true 0"
	gate 421
	check_eq "closed while waiting: exits 0 with a result" "$?" 0
	check_eq "closed while waiting: both prepared before the start" \
		"$(awk '$2 == 1' "$RUN_DIR/gate421.log" | wc -l)" 2
	check_eq "closed while waiting: 2 new sessions, mail, no error" \
		"$(jf "$RUN_DIR/gate421.json" .counters.sessions \
		'.counters.mails > 0' '[.errors[]] | add')" "2 true 0"
	check_eq "closed while waiting: each new session goes on to MAIL" \
		"$(awk '$2 == 0 && $3 == "MAIL"' "$RUN_DIR/gate421.log" |
		wc -l)" 2
fi

# --- --idle: a relay's late mail ------------------------------------------
# Mail that first arrives after -d (a slow server's queue) is still
# taken within --idle of the end, and the sink then stops by itself.
sink_start idle -d 2s --idle 2s
t0=$(date +%s)
sleep 2.5
$BB smtp -n 3 $FT "127.0.0.1:$SPORT" >/dev/null
wait "$SPID"
check_eq "--idle: mail first arriving after -d is counted" \
	"$(j "$RUN_DIR/idle.json" .counters.mails)" 3
check "--idle: the sink stops by itself D after the last mail" \
	[ $(($(date +%s) - t0)) -le 7 ]

# --- the sink killed mid-run ------------------------------------------------
sink_start killed
f=$RUN_DIR/killed-client.json
t0=$(date +%s)
$BB smtp --json -c 4 -d 3s --timeout 1s $FT "127.0.0.1:$SPORT" >"$f" &
bbpid=$!
sleep 1
kill -9 "$SPID"
wait "$bbpid"
check_eq "sink killed: exits 0 with a result" "$?" 0
check "sink killed: mails before the kill counted" \
	[ "$(j "$f" .counters.mails)" -gt 0 ]
check "sink killed: io/connect errors counted" \
	[ "$(j "$f" '.errors.io + .errors.connect')" -gt 0 ]
check "sink killed: ends on time" [ $(($(date +%s) - t0)) -le 6 ]
tap_done
