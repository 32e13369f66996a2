#!/bin/sh
# 629_agent_patience.sh: a controller that answers nothing on the LAN for
# 11 s while a step prepares (a server VM saturated by 64 MariaDB
# connections did that under emulation, issue 17) loses no client: during
# the prepare phase both ends give each other its limit, not the 12 s of
# docs/protocol.md's liveness, and the repeat goes on (the server under
# test, MariaDB, holds its greeting back 14 s, so the prepare lasts that
# long); the step's http workload has its connections open by then, its
# smtp workload its sessions greeted (EHLO answered) by a smtp-sink.
# After the start the liveness is the normal one again (628 cuts a client
# mid-step).  About 20 s.
# harness: parallel
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/servers.sh"
. "$(dirname "$0")/../lib/netns.sh"
. "$(dirname "$0")/../lib/agent.sh"
agent_test_start
if ! command -v socat >/dev/null || ! command -v mariadbd >/dev/null; then
	skip "needs socat and MariaDB (the slow MySQL port)"
	tap_done
	exit 0
fi
netns_hub && netns_add srv 10.77.0.1 && netns_add ctl 10.77.0.2 &&
	netns_add c1 10.77.0.11 ||
	{ not_ok "namespaces"; tap_done; exit 1; }

# The server under test: MariaDB behind a port that holds every
# connection's greeting back 14 s, so the step prepares for that long.
check "MariaDB on 10.77.0.1:3306" netns_mariadb srv 10.77.0.1 \
	"$RUN_DIR/mariadb"
netns_docroot "$RUN_DIR/www"
check "nginx in srv" netns_nginx srv 10.77.0.1 80 "$RUN_DIR/www" \
	"$RUN_DIR/nginx"
netns_spawn srv "$RUN_DIR/sink.log" $BB smtp-sink 10.77.0.1:2525
echo 'sleep 14; exec socat STDIO TCP:10.77.0.1:3306' >"$RUN_DIR/slow.sh"
netns_spawn srv "$RUN_DIR/slow.log" socat \
	TCP-LISTEN:3307,bind=10.77.0.1,fork,reuseaddr \
	SYSTEM:"sh $RUN_DIR/slow.sh"
netns_spawn c1 "$RUN_DIR/c1.log" $BB agent --role=client \
	--controller 10.77.0.2 --id c1 --target 10.77.0.1
netns_spawn ctl "$RUN_DIR/ctl.log" $BB agent --role=controller --id ctl \
	--suite "$SUITES/patience.suite" --set server=10.77.0.1 \
	--spool "$RUN_DIR/spool"
CTL=$NETNS_LAST_PID
check "c1 prepares the step" wait_for 30 grep -q \
	"step sql-slow/r1: 3 process(es) preparing" "$RUN_DIR/c1.log"
sleep 1
# The controller's whole LAN goes silent (no FIN, no RST), then returns.
netns_cable 10.77.0.2 down
sleep 11
# The same step's http connections are open in the prepare phase (issue
# 17 item 3), before any request: 4 established from c1 to port 80.
est=$(netns_exec srv ss -Htn state established '( sport = :80 )' |
	grep -c 10.77.0.11)
# Its 3 smtp sessions, seen from c1: each has sent its EHLO (which goes
# only after the 220) and received the greeting and the EHLO reply, with
# nothing unread, before any MAIL.
smtp=$(netns_exec c1 ss -Htni state established '( dport = :2525 )' |
	awk 'function v(k) { return match($0, " " k ":[0-9]+") ?
	     substr($0, RSTART + length(k) + 2, RLENGTH - length(k) - 2) : 0 }
	     /^[0-9]/ { q = $1; next }
	     q == 0 && v("bytes_sent") > 0 && v("bytes_received") > 0 { n++ }
	     END { print n + 0 }')
netns_cable 10.77.0.2 up
check_eq "c1's 4 http connections open while the step prepares" "$est" 4
check_eq "c1's 3 smtp sessions greeted while the step prepares" "$smtp" 3
check "the controller did not lose c1 in the 11 s" \
	sh -c "! grep -q 'lost client c1' '$RUN_DIR/ctl.log'"
check "c1 kept its controller" sh -c "sed -n '/preparing/,\$p' \
	'$RUN_DIR/c1.log' | grep -q preparing &&
	! sed -n '/preparing/,\$p' '$RUN_DIR/c1.log' |
	grep -q 'timed out\|retrying in\|connected to'"
check "c1 prepared all three once the server answered" wait_for 20 \
	grep -q "step sql-slow/r1: prepared: 3 ready, 0 failed" \
	"$RUN_DIR/c1.log"
wait "$CTL"
check_eq "controller finished" $? 0
res=$(ls "$RUN_DIR"/spool/results/patience-*.json 2>/dev/null | head -1)
check "the repeat is complete, c1 prepared in 14 s or more" jqt \
	'.steps[0].repeats[0] | .complete and .prepare_s >= 14 and
	 (.clients[0].error == null)' "$res"
check "statements, requests and mails measured after the start" jqt \
	'.steps[0].repeats[0].merged | .sql.counters.statements > 0 and
	 .http.successes > 0 and .smtp.counters.mails > 0' "$res"
# The prepared sessions were used: no connect in the window, none lost.
check "smtp used its 3 prepared sessions, no error" jqt \
	'.steps[0].repeats[0].merged.smtp | .counters.sessions == 3 and
	 ([.errors[]] | add) == 0' "$res"
check "no agent_lost event" jqt \
	'[.events[]? | select(.type == "agent_lost")] | length == 0' "$res"
tap_done
