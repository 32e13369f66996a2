#!/bin/sh
# 510_smtp_postfix.sh: `benchboot smtp` against a private Postfix that
# delivers local.test into a maildir and relays relay.test to `benchboot
# smtp-sink --store`: every mail our client counts is in the maildir or
# stored and counted by the sink; Postfix's 4xx and 5xx replies land in
# their classes.
# harness: parallel
set -u
. "$TOP/payload/tests/lib/tap.sh"
. "$TOP/payload/tests/lib/servers.sh"
. "$TOP/payload/tests/lib/postfix.sh"
SINK=
cleanup() {
	[ -n "$SINK" ] && kill "$SINK" 2>/dev/null
	postfix_stop
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

if ! command -v postfix >/dev/null 2>&1; then
	skip "postfix is not installed"
	tap_done
	exit
fi
store=$RUN_DIR/store
mkdir -p "$store"
# Other tests take random ports too: retry one taken before our bind.
for try in 1 2 3; do
	SINK_PORT=$(free_port)
	$BB smtp-sink --json --store "$store" 127.0.0.1:$SINK_PORT \
		>"$RUN_DIR/sink.json" 2>"$RUN_DIR/sink.err" &
	SINK=$!
	wait_for 30 sh -c "grep -q listening '$RUN_DIR/sink.err' ||
		! kill -0 $SINK" 2>/dev/null
	kill -0 "$SINK" 2>/dev/null && break
	diag "smtp-sink did not start: $(cat "$RUN_DIR/sink.err")"
	SINK=
done
if [ -z "$SINK" ]; then
	not_ok "smtp-sink starts"
	tap_done
	exit
fi
if ! postfix_start "$SINK_PORT"; then
	not_ok "postfix starts"
	tap_done
	exit
fi
srv=127.0.0.1:$PF_PORT

# --- local delivery, sessions reused, pipelined -----------------------------
f=$RUN_DIR/local.json
$BB smtp --json -c 4 -n 200 --from s@bench.test --to u@local.test "$srv" \
	>"$f"
check_eq "local: exits 0" "$?" 0
check_eq "local: 200 mails accepted" "$(j "$f" .counters.mails)" 200
check_eq "local: 4 sessions for 200 mails" "$(j "$f" .counters.sessions)" 4
check_eq "local: no errors" "$(j "$f" '[.errors[]] | add')" 0
check_eq "local: a latency sample per mail" "$(j "$f" .latency.count)" 200

# --- for a duration, new session per message --------------------------------
f=$RUN_DIR/dur.json
$BB smtp --json -c 4 -d 1s --new-session --from s@bench.test \
	--to u@local.test "$srv" >"$f"
check_eq "duration: exits 0" "$?" 0
n=$(j "$f" .counters.mails)
check "duration: mails sent ($n)" [ "$n" -gt 10 ]
check_eq "duration: one session per mail" "$(j "$f" .counters.sessions)" "$n"
check "duration: ends on time ($(j "$f" .elapsed_s) s)" \
	[ "$(j "$f" '.elapsed_s < 3')" = true ]
wait_for 60 postfix_queue_empty
check_eq "local: Postfix delivered every mail we counted into the maildir" \
	"$(postfix_delivered)" $((200 + n))

# --- relay to our sink, two recipients per mail -----------------------------
f=$RUN_DIR/relay.json
$BB smtp --json -c 4 -n 100 --from s@bench.test \
	--to a@relay.test,b@relay.test "$srv" >"$f"
check_eq "relay: exits 0" "$?" 0
check_eq "relay: 100 mails, 200 recipients" \
	"$(jf "$f" .counters.mails .counters.recipients)" "100 200"
wait_for 60 postfix_queue_empty
check "relay: Postfix's queue drained" postfix_queue_empty

# --- Postfix's 4xx and 5xx --------------------------------------------------
f=$RUN_DIR/defer.json
$BB smtp --json -c 2 -n 20 --from s@bench.test --to u@defer.test "$srv" \
	>"$f"
check_eq "450 on RCPT: every attempt a reply_4xx" \
	"$(jf "$f" .counters.mails .errors.reply_4xx .errors.reply_5xx)" \
	"0 20 0"
f=$RUN_DIR/reject.json
$BB smtp --json -c 2 -n 20 --from s@bench.test --to u@reject.test "$srv" \
	>"$f"
check_eq "554 on RCPT: every attempt a reply_5xx" \
	"$(jf "$f" .counters.mails .errors.reply_4xx .errors.reply_5xx)" \
	"0 0 20"
f=$RUN_DIR/norelay.json
$BB smtp --json -c 2 -n 20 --from s@bench.test --to u@elsewhere.test "$srv" \
	>"$f"
check_eq "relay denied: every attempt a reply_5xx" \
	"$(jf "$f" .counters.mails .errors.reply_5xx)" "0 20"
f=$RUN_DIR/mixed.json
$BB smtp --json -c 2 -n 20 --from s@bench.test \
	--to u@reject.test,v@local.test "$srv" >"$f"
check_eq "one recipient refused: mail delivered to the other, 5xx counted" \
	"$(jf "$f" .counters.mails .counters.recipients .errors.reply_5xx)" \
	"20 20 20"
wait_for 60 postfix_queue_empty
check_eq "local: the maildir holds those 20 too" "$(postfix_delivered)" \
	$((220 + n))

# --- what the sink received -------------------------------------------------
kill "$SINK"
wait "$SINK"
SINK=
f=$RUN_DIR/sink.json
check_eq "sink: counted the 100 relayed mails, 200 recipients" \
	"$(jf "$f" .counters.mails .counters.recipients)" "100 200"
check_eq "sink: stored each one" "$(ls "$store" | wc -l)" 100
check_eq "sink: no errors" "$(j "$f" '[.errors[]] | add')" 0
check "sink: stored messages end with the attachment's closing boundary" \
	sh -c "tail -c 13 '$store/$(ls "$store" | head -1)' |
		grep -q -- '--bb-0001--'"
tap_done
