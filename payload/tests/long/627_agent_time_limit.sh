#!/bin/sh
# 627_agent_time_limit.sh: a repeat cut at its time limit says so, not
# that its client was lost (the 150 run's sql-ops/r2 was "1 client(s)
# lost" with the client there all along).  The step's smtp never ends
# (the server stops answering after EHLO, the reply timeout is 300 s), so
# the controller gives up 60 s past the step's limit and tells the client
# to abort.  About 65 s: make test-long.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/servers.sh"
. "$(dirname "$0")/../lib/netns.sh"
. "$(dirname "$0")/../lib/agent.sh"
agent_test_start
netns_hub && netns_add srv 10.77.0.1 && netns_add ctl 10.77.0.2 &&
	netns_add c1 10.77.0.11 ||
	{ not_ok "namespaces"; tap_done; exit 1; }
cat >"$RUN_DIR/hang.py" <<'PY'
# An SMTP server that greets, answers EHLO, then never answers again.
import socket, threading
ls = socket.socket()
ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
ls.bind(("10.77.0.1", 2525))
ls.listen(8)
held = []
def session(c):
    c.sendall(b"220 t ESMTP\r\n")
    for l in iter(c.makefile("rb").readline, b""):
        if l[:4].upper() == b"EHLO":
            c.sendall(b"250 t\r\n")
    held.append(c)
while True:
    threading.Thread(target=session, args=(ls.accept()[0],),
                     daemon=True).start()
PY
netns_spawn srv "$RUN_DIR/hang.log" python3 "$RUN_DIR/hang.py"
check "the silent server listens" wait_for 10 sh -c \
	"ip netns exec ${NETNS_P}srv ss -Htln '( sport = :2525 )' | grep -q ."
netns_spawn c1 "$RUN_DIR/c1.log" $BB agent --role=client \
	--controller 10.77.0.2 --id c1 --target 10.77.0.1
t0=$(date +%s)
netns_spawn ctl "$RUN_DIR/ctl.log" $BB agent --role=controller --id ctl \
	--suite "$SUITES/limit.suite" --set server=10.77.0.1 \
	--spool "$RUN_DIR/spool"
wait "$NETNS_LAST_PID"
check_eq "controller finished" $? 0
took=$(($(date +%s) - t0))
check "it waited the step's limit and 60 s, no more ($took s)" \
	[ "$took" -ge 60 -a "$took" -le 90 ]
res=$(ls "$RUN_DIR"/spool/results/limit-*.json 2>/dev/null | head -1)
# The client's agent has the same deadline and kills its workload then:
# whichever of the two is first, the repeat is cut and nobody is lost.
why=$(jq -r '.steps[0].repeats[0].incomplete_reason' "$res")
check "the repeat is incomplete, its client cut at the time limit" jqt \
	'.steps[0].repeats[0] | (.complete | not) and
	 (.clients[0].error == "no result within the step'"'"'s time limit"
	  or (.clients[0].error == null and
	      (.clients[0].records[0] | .error != null or .record == null)))' \
	"$res"
late="1 client(s) over the step's time limit"
check "the repeat's reason: the time limit, nobody lost ($why)" \
	[ "$why" = "$late, 0 record(s) failed" -o \
	"$why" = "1 record(s) failed" ]
check "no agent_lost event" jqt \
	'[.events[]? | select(.type == "agent_lost")] | length == 0' "$res"
check "the client's step was cut (aborted or killed), the client not lost" \
	sh -c "grep -q -e 'hang/r1 aborted by the controller' \
	-e 'hang/r1: over its time, killing it' '$RUN_DIR/c1.log' &&
	! grep -q 'lost client c1' '$RUN_DIR/ctl.log'"
tap_done
