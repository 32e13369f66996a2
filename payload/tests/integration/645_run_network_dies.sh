#!/bin/sh
# 645_run_network_dies.sh: a run whose network dies ends quickly and says
# why, in network namespaces: (1) a client lost for good (its agent
# killed) leaves the steps that need two clients not run, each with the
# reason and "clients_short", while the step that needs one runs on the
# other; (2) the controller's own cable pulled mid-step: the run ends
# within a minute, its result spooled, partial, with "link_gone", and no
# upload retried (exit 3, the result pending for the next start).
# harness: parallel
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/servers.sh"
. "$(dirname "$0")/../lib/netns.sh"
. "$(dirname "$0")/../lib/agent.sh"
agent_test_start
netns_hub && netns_add srv 10.77.0.1 && netns_add ctl 10.77.0.2 &&
	netns_add c1 10.77.0.11 && netns_add c2 10.77.0.12 ||
	{ not_ok "namespaces"; tap_done; exit 1; }
netns_docroot "$RUN_DIR/www"
check "nginx in srv" netns_nginx srv 10.77.0.1 80 "$RUN_DIR/www" \
	"$RUN_DIR/nginx"
since() { echo $(( $(date +%s) - $1 )); }

# --- 1: a client lost for good ---------------------------------------
for c in c1 c2; do
	netns_spawn $c "$RUN_DIR/$c.log" $BB agent --role=client \
		--controller 10.77.0.2 --id "$c" --target 10.77.0.1
	eval "PID_$c=\$NETNS_LAST_PID"
done
netns_spawn ctl "$RUN_DIR/ctl.log" $BB agent --role=controller --id ctl \
	--suite "$SUITES/netdies.suite" --set server=10.77.0.1 \
	--spool "$RUN_DIR/spool"
CTL=$NETNS_LAST_PID
wait_for 30 grep -q "step pair/c2/r1: 1 process" "$RUN_DIR/c2.log"
kill -9 "$PID_c2"
t0=$(date +%s)
# The next step waits up to 60 s for it to come back (628), then goes on.
wait "$CTL"
check_eq "controller finished" $? 0
diag "the run ended $(since "$t0") s after the client was lost"
res=$(ls "$RUN_DIR"/spool/results/netdies-*.json | head -1)
check_eq "steps: pair ran (incomplete), single ran, pair-again not" \
	"$(jq -c '[.steps[] | [.name, .complete_repeats, (.skipped // "")
	 | tostring | .[0:30]]]' "$res")" \
	'[["pair/c2","0",""],["single","1",""],["pair-again/c2","0","not run: 1 of the 2 client(s) "]]'
check "pair-again says who is short" jqt '.steps[2].repeats[0] |
	.clients_short == {"needed": 2, "connected": 1} and
	(.skipped | test("not run: 1 of the 2 client"))' "$res"
check "single ran on the client left" jqt \
	'[.steps[1].repeats[0].clients[].id] == ["c1"]' "$res"
check "the result is whole, not partial" jqt '.partial | not' "$res"

# --- 2: the controller's own cable pulled -----------------------------
netns_spawn ctl "$RUN_DIR/ctl2.log" $BB agent --role=controller --id ctl2 \
	--suite "$SUITES/netdies.suite" --set server=10.77.0.1 --peers 1 \
	--spool "$RUN_DIR/spool2" --upload http://10.77.0.3:8080/results/ \
	--token tk
CTL=$NETNS_LAST_PID
check "c1 is back and in ctl2's first step" wait_for 60 grep -q \
	"step pair/c2/r1: 1 client(s) prepared" "$RUN_DIR/ctl2.log"
netns_cable 10.77.0.2 down
t0=$(date +%s)
check "the controller ends within 60 s" wait_for 60 sh -c \
	"! kill -0 $CTL 2>/dev/null"
kill "$CTL" 2>/dev/null
wait "$CTL"
check_eq "exit 3: the result kept in the spool, no upload tried for ever" \
	$? 3
diag "the run ended $(since "$t0") s after the cable pull"
check "it says its link is gone" grep -q \
	"the controller's link is gone: eth0 (10.77.0.2) has no carrier; the run ends with what it has" \
	"$RUN_DIR/ctl2.log"
res=$(ls "$RUN_DIR"/spool2/results/netdies-*.json 2>/dev/null | head -1)
check "the result is spooled, partial, with the reason" jqt \
	'.partial == true and (.link_gone | test("no carrier")) and
	 any(.events[]; .type == "link_gone")' "$res"
check "no step ran after the link went" jqt \
	'[.steps[] | select(.name != "pair/c2")] |
	 all(.[]; .complete_repeats == 0)' "$res"
check "it waits in the spool for the next start" sh -c \
	"ls '$RUN_DIR'/spool2/pending/* >/dev/null 2>&1"
netns_cable 10.77.0.2 up
tap_done
