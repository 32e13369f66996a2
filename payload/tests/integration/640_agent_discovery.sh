#!/bin/sh
# 640_agent_discovery.sh: agents find each other over mDNS / DNS-SD in
# network namespaces, no --controller anywhere: (1) a server that finds no
# controller becomes one, two clients discover it, the run completes and
# the result lands through file:// (the USB stick's way); (2) a dedicated
# controller is discovered by a server and a client; our browser sees
# every agent with its TXT record; (3) two servers that both become the
# controller settle on one (the lower id), the other serves it.
# harness: parallel
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/servers.sh"
. "$(dirname "$0")/../lib/netns.sh"
. "$(dirname "$0")/../lib/agent.sh"
agent_test_start
netns_hub && netns_add srv 10.77.0.1 && netns_add ctl 10.77.0.2 &&
	netns_add c1 10.77.0.11 && netns_add c2 10.77.0.12 &&
	netns_add x 10.77.0.20 || { not_ok "namespaces"; tap_done; exit 1; }
netns_docroot "$RUN_DIR/www"
check "nginx in srv" netns_nginx srv 10.77.0.1 80 "$RUN_DIR/www" \
	"$RUN_DIR/nginx"

# --- 1: the server becomes the controller -----------------------------
# Watch the LAN from a bystander namespace while the agents come up.
netns_spawn x "$RUN_DIR/browse1" $BB mdns browse --watch --timeout 10
netns_spawn srv "$RUN_DIR/server.log" $BB agent --role=server --wait 3s \
	--suite "$SUITES/quick.suite" --peers 2 --spool "$RUN_DIR/spool1" \
	--upload "file://$RUN_DIR/usb"
SRV=$NETNS_LAST_PID
for c in c1 c2; do
	netns_spawn $c "$RUN_DIR/$c.log" $BB agent --role=client --once
done
check "server found no controller and took the role" wait_for 20 grep -q \
	"this server becomes the controller" "$RUN_DIR/server.log"
check "client c1 discovered it over mDNS" wait_for 30 grep -q \
	"discovered controller server-525400bb0001 at 10.77.0.1:7407" \
	"$RUN_DIR/c1.log"
for id in client-525400bb000b client-525400bb000c; do
	check "browser saw $id with role=client" wait_for 15 grep -q \
		"^+.*role=client.*id=$id" "$RUN_DIR/browse1"
done
check "browser saw the server turn controller (TXT role, id, arch, ver)" \
	wait_for 15 grep -q \
	"role=controller.*id=server-525400bb0001.*arch=.*ver=.*suite=" \
	"$RUN_DIR/browse1"
wait "$SRV"
check_eq "server+controller finished" $? 0
res=$(ls "$RUN_DIR"/usb/*.json 2>/dev/null)
check "result written to the file:// target" test -f "$res"
check "it is the spooled result" cmp "$res" \
	"$RUN_DIR/spool1/results/$(basename "$res")"
check_eq "two clients took part" \
	"$(jq '.peers.clients_found' "$res")" 2
check "the step is complete" jqt '.steps[0].complete_repeats == 1' "$res"
check "controller host is also the server" jqt '.environment.hosts[0].role ==
	"server+controller"' "$res"
if $BB help | grep -q '^  sample '; then
	check "the local sampler's series is in the step" jqt \
		'.steps[0].repeats[0].series.sample | length >= 1' "$res"
fi

# --- 2: a dedicated controller, discovered by a server and a client ----
netns_spawn ctl "$RUN_DIR/ctl.log" $BB agent --role=controller --id ctl-2 \
	--suite "$SUITES/quick.suite" --spool "$RUN_DIR/spool2"
CTL=$NETNS_LAST_PID
netns_spawn srv "$RUN_DIR/server2.log" $BB agent --role=server --wait 20s \
	--once
netns_spawn c1 "$RUN_DIR/c1b.log" $BB agent --role=client --once
check "server discovered the controller instead of becoming one" \
	wait_for 30 grep -q "discovered controller ctl-2 at 10.77.0.2:7407" \
	"$RUN_DIR/server2.log"
wait "$CTL"
check_eq "controller finished" $? 0
res2=$(ls "$RUN_DIR"/spool2/results/*.json)
check "server and client took part" jqt '[.environment.hosts[].role] |
	sort == ["client", "controller", "server"]' "$res2"
check "step complete" jqt '.steps[0].complete_repeats == 1' "$res2"

# --- 3: two servers promote themselves together -----------------------
netns_spawn srv "$RUN_DIR/srv-a.log" $BB agent --role=server --id srv-a \
	--wait 2s --suite "$SUITES/quick.suite" --peers 1 --once \
	--spool "$RUN_DIR/spool3a"
A=$NETNS_LAST_PID
netns_spawn ctl "$RUN_DIR/srv-b.log" $BB agent --role=server --id srv-b \
	--wait 2s --suite "$SUITES/quick.suite" --peers 1 --once \
	--spool "$RUN_DIR/spool3b"
B=$NETNS_LAST_PID
# Who leads is a race the rule only settles when both promote at once:
# the one whose search ends later may find the other already the
# controller (discovery stops at the first one, and a search that asks
# only for _controller hears the promotion's announcement at once), or
# both take the role and the higher id yields.  Either way there is one
# controller and one result; which way happened is said.
yielded="controller srv-a (10.77.0.1:7407) is also running: the lower id leads, this one yields"
agent_two_servers_settle "$RUN_DIR/srv-a.log" "$RUN_DIR/srv-b.log" "$yielded" \
	"found it, or the higher id yielded"
follow=$([ $lead = a ] && echo b || echo a)
netns_spawn c1 "$RUN_DIR/c1c.log" $BB agent --role=client --once
wait "$A"
check_eq "srv-a ended well" $? 0
wait "$B"
check_eq "srv-b ended well" $? 0
res3=$(ls "$RUN_DIR"/spool3$lead/results/*.json 2>/dev/null)
check "one result, from srv-$lead, none from srv-$follow" sh -c \
	"test -f '$res3' && ! ls '$RUN_DIR'/spool3$follow/results/*.json 2>/dev/null"
check "srv-$follow is in it as a server, the client took part" jqt \
	'[.environment.hosts[] | "\(.id) \(.role)"] |
	 (index("srv-'$lead' server+controller") != null) and
	 (index("srv-'$follow' server") != null) and
	 ([.[] | select(endswith(" client"))] | length == 1)' "$res3"
tap_done
