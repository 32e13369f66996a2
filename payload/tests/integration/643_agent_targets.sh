#!/bin/sh
# 643_agent_targets.sh: in an open lab the agent decides what it loads: a
# controller's forged "targets" aimed at a bystander changes nothing (the
# run is refused and the bystander sees no request); the controller's own
# host, and a host given on the agent's command line (--target), are
# loaded.
# harness: parallel
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/servers.sh"
. "$(dirname "$0")/../lib/netns.sh"
. "$(dirname "$0")/../lib/agent.sh"
LIB=$(cd "$(dirname "$0")/../lib" && pwd)
agent_test_start
netns_hub && netns_add ctl 10.81.0.2 && netns_add c1 10.81.0.11 &&
	netns_add by 10.81.0.20 ||
	{ not_ok "namespaces"; tap_done; exit 1; }
netns_docroot "$RUN_DIR/www"
check "nginx on the bystander" netns_nginx by 10.81.0.20 80 "$RUN_DIR/www" \
	"$RUN_DIR/nginx-by"
check "nginx on the controller's host" netns_nginx ctl 10.81.0.2 80 \
	"$RUN_DIR/www" "$RUN_DIR/nginx-ctl"
# served: how many requests NGINX-DIR's access log holds.
served() { cat "$1"/*access*.log 2>/dev/null | wc -l; }

# Table: case, victim, extra agent options, expected error ("none": ran).
while IFS='|' read -r name victim opts want; do
	netns_spawn ctl "$RUN_DIR/fake.log" python3 "$LIB/fakepeer.py" \
		opencontroller 10.81.0.2 7407 "$victim"
	sleep 0.5
	before=$(served "$RUN_DIR/nginx-by")
	netns_spawn c1 "$RUN_DIR/c1.log" $BB agent --role=client --once \
		--controller 10.81.0.2 $opts
	check "$name: the run ends" wait_for 30 grep -q "^run http" \
		"$RUN_DIR/fake.log"
	check "$name: $want" grep -q "^run http $victim: error: .*$want" \
		"$RUN_DIR/fake.log"
	sed 's/^/# the fake controller: /' "$RUN_DIR/fake.log"
	if [ "$want" != none ]; then
		check_eq "$name: the bystander saw no request" \
			"$(served "$RUN_DIR/nginx-by")" "$before"
		check "$name: the agent says why it did not load it" grep -q \
			"run target $victim: not announced as a server of this lab" \
			"$RUN_DIR/c1.log"
	fi
	kill "$NETNS_LAST_PID" 2>/dev/null
	wait "$NETNS_LAST_PID" 2>/dev/null
done <<'TABLE'
a forged target (a bystander)|10.81.0.20||is not a server of this run
the controller's own host|10.81.0.2||none
the bystander given with --target|10.81.0.20|--target 10.81.0.20|none
TABLE
tap_done
