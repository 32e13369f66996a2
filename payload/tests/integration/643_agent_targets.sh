#!/bin/sh
# 643_agent_targets.sh: in an open lab the agent decides what it loads: a
# controller's forged "targets" aimed at a bystander changes nothing (the
# run is refused and the bystander sees no request); the controller's own
# host, a host given on the agent's command line (--target), and a server
# announced over mDNS (the _server subtype) are loaded, also one seen
# announced while the agent waited that no longer answers when the run
# comes (stopped: as a server too busy to answer in time).
# harness: parallel
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/servers.sh"
. "$(dirname "$0")/../lib/netns.sh"
. "$(dirname "$0")/../lib/agent.sh"
LIB=$(cd "$(dirname "$0")/../lib" && pwd)
agent_test_start
netns_hub && netns_add ctl 10.81.0.2 && netns_add c1 10.81.0.11 &&
	netns_add by 10.81.0.20 && netns_add srv 10.81.0.21 ||
	{ not_ok "namespaces"; tap_done; exit 1; }
netns_docroot "$RUN_DIR/www"
check "nginx on the bystander" netns_nginx by 10.81.0.20 80 "$RUN_DIR/www" \
	"$RUN_DIR/nginx-by"
check "nginx on the controller's host" netns_nginx ctl 10.81.0.2 80 \
	"$RUN_DIR/www" "$RUN_DIR/nginx-ctl"
check "nginx on the announced server" netns_nginx srv 10.81.0.21 80 \
	"$RUN_DIR/www" "$RUN_DIR/nginx-srv"
# served NS ADDR: how many requests nginx at ADDR has handled (its
# stub_status, which counts this request too: access logs are off).
served() {
	netns_exec "$1" curl -sf "http://$2/nginx_status" |
		awk 'NR == 3 { print $3 }'
}

# Table: case, victim, extra agent options, expected error ("none": ran).
while IFS='|' read -r name victim opts want; do
	netns_spawn ctl "$RUN_DIR/fake.log" python3 "$LIB/fakepeer.py" \
		opencontroller 10.81.0.2 7407 "$victim"
	sleep 0.5
	before=$(served by 10.81.0.20)
	netns_spawn c1 "$RUN_DIR/c1.log" $BB agent --role=client --once \
		--controller 10.81.0.2 $opts
	check "$name: the run ends" wait_for 30 grep -q "^run http" \
		"$RUN_DIR/fake.log"
	check "$name: $want" grep -q "^run http $victim: error: .*$want" \
		"$RUN_DIR/fake.log"
	sed 's/^/# the fake controller: /' "$RUN_DIR/fake.log"
	if [ "$want" != none ]; then
		check_eq "$name: the bystander saw no request" \
			"$(served by 10.81.0.20)" "$((before + 1))"
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

# An announced server: what an agent of the lab publishes as a server.
netns_spawn srv "$RUN_DIR/pub.log" $BB mdns publish --name srv-643 \
	--host srv-643 --port 7407 --txt role=server --txt id=srv-643 \
	--subtype _server
PUB=$NETNS_LAST_PID
check "the server announces itself" wait_for 10 grep -q "^published" \
	"$RUN_DIR/pub.log"
# delay: seconds the fake controller waits before the run; stop: the
# server stops answering 1 s after the agent connected.
for c in "a server announced over mDNS|0|" "a server seen announced, silent when the run comes|3|stop"; do
	name=${c%%|*} rest=${c#*|}
	delay=${rest%%|*} stop=${rest#*|}
	netns_spawn ctl "$RUN_DIR/fake.log" python3 "$LIB/fakepeer.py" \
		opencontroller 10.81.0.2 7407 10.81.0.21 "$delay"
	F=$NETNS_LAST_PID
	sleep 0.5
	before=$(served srv 10.81.0.21)
	netns_spawn c1 "$RUN_DIR/c1.log" $BB agent --role=client --once \
		--controller 10.81.0.2
	C1=$NETNS_LAST_PID
	if [ -n "$stop" ]; then
		wait_for 20 grep -q "connected to controller" "$RUN_DIR/c1.log"
		sleep 1
		kill -STOP "$PUB"
	fi
	check "$name: the run ends" wait_for 30 grep -q "^run http" \
		"$RUN_DIR/fake.log"
	check "$name: loaded" grep -q "^run http 10.81.0.21: error: none" \
		"$RUN_DIR/fake.log"
	check "$name: the server saw the requests" \
		[ "$(served srv 10.81.0.21)" -gt "$((before + 1))" ]
	sed 's/^/# the fake controller: /' "$RUN_DIR/fake.log"
	grep -E 'connected|target|mdns' "$RUN_DIR/c1.log" | sed 's/^/# c1: /'
	kill -CONT "$PUB"
	kill "$F" "$C1" 2>/dev/null
	wait "$F" "$C1" 2>/dev/null
done
tap_done
