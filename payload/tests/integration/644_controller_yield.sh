#!/bin/sh
# 644_controller_yield.sh: in a keyed lab a server that became the
# controller yields only to a controller that proves the lab key: a bare
# mDNS announcement with a lower id (nothing listening) and a controller
# with another key do not make it yield, and the run completes there; two
# servers with the same key settle on the lower id as in an open lab (640
# covers the open lab, which still yields to the announcement alone).
# harness: parallel
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/servers.sh"
. "$(dirname "$0")/../lib/netns.sh"
. "$(dirname "$0")/../lib/agent.sh"
agent_test_start
netns_hub && netns_add srv 10.77.0.1 && netns_add ctl 10.77.0.2 &&
	netns_add c1 10.77.0.11 && netns_add x 10.77.0.20 &&
	netns_add y 10.77.0.21 || { not_ok "namespaces"; tap_done; exit 1; }
netns_docroot "$RUN_DIR/www"
check "nginx in srv" netns_nginx srv 10.77.0.1 80 "$RUN_DIR/www" \
	"$RUN_DIR/nginx"
umask 077
echo "lab-key-for-tests-0123456789abcdef" >"$RUN_DIR/key"
echo "another-key-entirely-0123456789ab" >"$RUN_DIR/wrong"
K="--key-file $RUN_DIR/key"

# --- 1: fakes with a lower id: no yield -------------------------------
netns_spawn srv "$RUN_DIR/srv-b.log" $BB agent --role=server --id srv-b \
	--wait 2s --suite "$SUITES/quick.suite" --peers 1 --once \
	--spool "$RUN_DIR/spool1" $K
B=$NETNS_LAST_PID
check "the keyed server took the role" wait_for 20 grep -q \
	"becomes the controller" "$RUN_DIR/srv-b.log"
# An announcement alone, role=controller, a lower id, nothing listening.
netns_spawn x "$RUN_DIR/fake.log" $BB mdns publish --name srv-0 \
	--port 7407 --txt role=controller --txt id=srv-0
FAKE=$NETNS_LAST_PID
# A controller that listens and answers, with another key.
netns_spawn y "$RUN_DIR/wrong.log" $BB agent --role=controller --id srv-1 \
	--suite "$SUITES/quick.suite" --peers 1 --wait 60s \
	--spool "$RUN_DIR/spoolw" --key-file "$RUN_DIR/wrong"
WRONG=$NETNS_LAST_PID
check "the bare announcement is checked and not followed" wait_for 20 \
	grep -q "controller srv-0 (10.77.0.20:7407) announces a lower id but did not prove the lab key" \
	"$RUN_DIR/srv-b.log"
check "the controller with another key fails its proof" wait_for 20 \
	grep -q "controller srv-1 (10.77.0.21:7407) announces a lower id but did not prove the lab key (its proof is wrong" \
	"$RUN_DIR/srv-b.log"
check "srv-b did not yield" sh -c "! grep -q 'this one yields' '$RUN_DIR/srv-b.log'"
netns_spawn c1 "$RUN_DIR/c1.log" $BB agent --role=client --id c1 --once \
	--controller 10.77.0.1 $K
wait "$B"
check_eq "srv-b ran the suite and left" $? 0
res=$(ls "$RUN_DIR"/spool1/results/*.json 2>/dev/null | head -1)
check "its result has the client's step complete" jqt \
	'.controller == "srv-b" and .steps[0].complete_repeats == 1' "$res"
# Gone, with their goodbyes, before the next servers look.
kill "$FAKE" "$WRONG"
wait "$FAKE" "$WRONG" 2>/dev/null
sleep 1

# --- 2: two keyed servers promote themselves: the lower id leads -------
netns_spawn srv "$RUN_DIR/srv-a2.log" $BB agent --role=server --id srv-a \
	--wait 2s --suite "$SUITES/quick.suite" --peers 1 --once \
	--spool "$RUN_DIR/spool2a" $K
A=$NETNS_LAST_PID
netns_spawn ctl "$RUN_DIR/srv-b2.log" $BB agent --role=server --id srv-b \
	--wait 2s --suite "$SUITES/quick.suite" --peers 1 --once \
	--spool "$RUN_DIR/spool2b" $K
B=$NETNS_LAST_PID
# Who leads is a race the rule only settles when both promote at once:
# srv-b finds srv-a already the controller (discovery stops at the first
# one), or both take the role and srv-b yields once srv-a has proved the
# key; on a loaded machine srv-a may start so late that it finds srv-b
# the controller and follows it.  Either way there is one controller and
# one result; which way happened is said.
yielded="controller srv-a (10.77.0.1:7407) is also running and proved the lab key: the lower id leads, this one yields"
agent_two_servers_settle "$RUN_DIR/srv-a2.log" "$RUN_DIR/srv-b2.log" "$yielded" \
	"found it, or yielded once it proved the key"
netns_spawn c1 "$RUN_DIR/c1b.log" $BB agent --role=client --id c1 --once \
	--controller 10.77.0.$([ $lead = a ] && echo 1 || echo 2) $K
wait "$A"
check_eq "srv-a ended well" $? 0
wait "$B"
check_eq "srv-b ended well" $? 0
follow=$([ $lead = a ] && echo b || echo a)
check "one result, from srv-$lead, none from srv-$follow" sh -c \
	"ls '$RUN_DIR'/spool2$lead/results/*.json >/dev/null 2>&1 &&
	 ! ls '$RUN_DIR'/spool2$follow/results/*.json 2>/dev/null"
tap_done
