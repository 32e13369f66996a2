#!/bin/sh
# 647_controller_crowd.sh: 100 agents that dial the controller at once (a
# rack that hears it announce itself) are all welcomed: past the 64
# connections that may wait for a hello, the rest wait in the listen
# queue, not refused (docs/discovery.md, "256 agents per controller").
# harness: parallel
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/servers.sh"
. "$(dirname "$0")/../lib/netns.sh"
. "$(dirname "$0")/../lib/agent.sh"
LIB=$(cd "$(dirname "$0")/../lib" && pwd)
agent_test_start
netns_hub && netns_add ctl 10.82.0.2 && netns_add x 10.82.0.20 ||
	{ not_ok "namespaces"; tap_done; exit 1; }
netns_spawn ctl "$RUN_DIR/ctl.log" $BB agent --role=controller \
	--id ctl-crowd --listen 10.82.0.2:7407 --suite "$SUITES/quick.suite" \
	--peers 200 --wait 60s --spool "$RUN_DIR/spool"
CTL=$NETNS_LAST_PID
check "the controller listens" wait_for 10 grep -q "listening on" \
	"$RUN_DIR/ctl.log"
out=$(netns_exec x timeout 60 python3 "$LIB/fakepeer.py" crowd 10.82.0.2 \
	7407 100)
diag "$out"
check_eq "all 100 welcomed" "$out" "crowd: 100 of 100 welcomed"
check "none refused" sh -c "! grep -q 'refused' '$RUN_DIR/ctl.log'"
check_eq "100 joined" "$(grep -c 'client crowd-[0-9]* joined' \
	"$RUN_DIR/ctl.log")" 100
kill "$CTL" 2>/dev/null
wait "$CTL" 2>/dev/null
tap_done
