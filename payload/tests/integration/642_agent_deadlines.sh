#!/bin/sh
# 642_agent_deadlines.sh: a fake controller cannot hold an agent: one that
# accepts and says nothing is dropped after the welcome deadline (open
# and keyed labs), and the agent dials again; a controller found over
# mDNS that disappears is looked for again and its successor is found.
# harness: parallel
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/servers.sh"
. "$(dirname "$0")/../lib/netns.sh"
. "$(dirname "$0")/../lib/agent.sh"
agent_test_start
netns_hub && netns_add ctl 10.80.0.2 && netns_add ctl2 10.80.0.3 &&
	netns_add c1 10.80.0.11 && netns_add c2 10.80.0.12 ||
	{ not_ok "namespaces"; tap_done; exit 1; }
umask 077
echo "lab-key-for-tests-0123456789abcdef" >"$RUN_DIR/key"

# A listener that accepts every connection and never writes a byte.
netns_spawn ctl "$RUN_DIR/silent.log" python3 -c '
import socket, time
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("10.80.0.2", 7407)); s.listen(16); held = []
end = time.time() + 120
while time.time() < end:
    c, _ = s.accept(); held.append(c)
'
netns_spawn c1 "$RUN_DIR/open.log" $BB agent --role=client \
	--controller 10.80.0.2:7407
netns_spawn c2 "$RUN_DIR/keyed.log" $BB agent --role=client \
	--controller 10.80.0.2:7407 --key-file "$RUN_DIR/key"

# Table: log, what the agent waits for from a silent controller.
while read -r log what; do
	check "$log: a silent controller is dropped: no $what within 20 s" \
		wait_for 40 grep -q \
		"controller 10.80.0.2:7407: no $what within 20 s: closing" \
		"$RUN_DIR/$log"
	check "$log: and the agent dials again" wait_for 15 sh -c \
		"[ \$(grep -c 'connected to controller 10.80.0.2:7407' \
		'$RUN_DIR/$log') -ge 2 ]"
done <<'TABLE'
open.log welcome
keyed.log challenge
TABLE
netns_cleanup

# A discovered controller that goes away: the client looks again and
# finds the next one.
netns_hub && netns_add ctl 10.80.0.2 && netns_add ctl2 10.80.0.3 &&
	netns_add c1 10.80.0.11 ||
	{ not_ok "namespaces again"; tap_done; exit 1; }
SUITES=$(cd "$(dirname "$0")/suites" && pwd)
netns_spawn ctl "$RUN_DIR/ctl-a.log" $BB agent --role=controller \
	--id ctl-a --suite "$SUITES/quick.suite" --spool "$RUN_DIR/spool-a" \
	--peers 9
CTLA=$NETNS_LAST_PID
netns_spawn c1 "$RUN_DIR/c1.log" $BB agent --role=client
check "the client discovered the first controller" wait_for 30 grep -q \
	"discovered controller ctl-a at 10.80.0.2:7407" "$RUN_DIR/c1.log"
kill "$CTLA"
netns_spawn ctl2 "$RUN_DIR/ctl-b.log" $BB agent --role=controller \
	--id ctl-b --suite "$SUITES/quick.suite" --spool "$RUN_DIR/spool-b" \
	--peers 9
check "after it has gone, the client finds its successor" wait_for 60 \
	grep -q "discovered controller ctl-b at 10.80.0.3:7407" \
	"$RUN_DIR/c1.log"
tap_done
