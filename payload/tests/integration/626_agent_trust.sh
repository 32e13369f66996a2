#!/bin/sh
# 626_agent_trust.sh: the lab key and least authority, in network
# namespaces with the real agents: a keyed run completes and says so; a
# wrong key, no key, a replayed handshake, an altered line, an id
# takeover and a slow sender are refused by the controller; an agent
# refuses an open controller and every run outside the suite's workloads
# and targets; two labs on one LAN never mix.
# harness: parallel
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/servers.sh"
. "$(dirname "$0")/../lib/netns.sh"
. "$(dirname "$0")/../lib/agent.sh"
LIB=$(cd "$(dirname "$0")/../lib" && pwd)
agent_test_start
netns_hub && netns_add srv 10.77.0.1 && netns_add ctl 10.77.0.2 &&
	netns_add c1 10.77.0.11 && netns_add c2 10.77.0.12 &&
	netns_add x 10.77.0.20 && netns_add ctlb 10.77.0.3 ||
	{ not_ok "namespaces"; tap_done; exit 1; }
netns_docroot "$RUN_DIR/www"
check "nginx in srv" netns_nginx srv 10.77.0.1 80 "$RUN_DIR/www" \
	"$RUN_DIR/nginx"
umask 077
echo "lab-key-for-tests-0123456789abcdef" >"$RUN_DIR/key"
echo "another-key-entirely-0123456789ab" >"$RUN_DIR/wrong"
echo "short" >"$RUN_DIR/short"

# --- option checks ------------------------------------------------------
out=$($BB agent --role=client --key-file "$RUN_DIR/short" 2>&1)
check "a short key is refused with why" \
	eval 'echo "$out" | grep -q "lab key of 5 characters: at least 16"'
out=$($BB agent --role=client --key-file "$RUN_DIR/none" 2>&1)
check "a missing key file is refused naming it" \
	eval 'echo "$out" | grep -q "key file $RUN_DIR/none"'

# --- a keyed controller: who gets in ----------------------------------
netns_spawn ctl "$RUN_DIR/ctl.log" env BENCHBOOT_STATUS=$RUN_DIR/st \
	$BB agent --role=controller --id ctl-key --listen 10.77.0.2:7407 \
	--suite "$SUITES/quick.suite" --set server=10.77.0.1 --peers 2 \
	--wait 60s --spool "$RUN_DIR/spool" --key-file "$RUN_DIR/key"
CTL=$NETNS_LAST_PID
wait_for 10 grep -q "listening on" "$RUN_DIR/ctl.log"
netns_spawn c2 "$RUN_DIR/wrong.log" $BB agent --role=client --id wrongkey \
	--controller 10.77.0.2 --key-file "$RUN_DIR/wrong"
netns_spawn x "$RUN_DIR/open.log" $BB agent --role=client --id nokey \
	--controller 10.77.0.2
check "wrong key: the controller refuses and logs the address" \
	wait_for 15 grep -q "refused 10.77.0.12: left the key handshake: a wrong lab key" "$RUN_DIR/ctl.log"
check "wrong key: the agent sees the controller fail its proof" \
	wait_for 15 grep -q "failed the lab key proof" "$RUN_DIR/wrong.log"
check "no key: refused" wait_for 15 grep -q \
	"refused 10.77.0.20 nokey: hello without the lab key handshake" \
	"$RUN_DIR/ctl.log"
check "no key: the agent warns that the lab is open" \
	grep -q "WARNING: open lab" "$RUN_DIR/open.log"
# Dropped at the 5 s hello deadline; the sender notices a send or two
# later.
loris=$(netns_exec x python3 "$LIB/fakepeer.py" loris 10.77.0.2 7407 |
	sed -n 's/^slow sender: dropped after \([0-9]*\) s$/\1/p')
check "a loris is dropped at the hello deadline (after ${loris:-?} s)" \
	test "${loris:-99}" -ge 5 -a "${loris:-99}" -le 8
check_eq "a replayed handshake is refused" "$(netns_exec x python3 \
	"$LIB/fakepeer.py" replay 10.77.0.2 7407 "$RUN_DIR/key")" \
	"replayed proof: refused"
check_eq "an altered line is refused" "$(netns_exec x python3 \
	"$LIB/fakepeer.py" badtag 10.77.0.2 7407 "$RUN_DIR/key")" \
	"altered line: refused"
kill "$(pgrep -f 'id wrongkey')" "$(pgrep -f 'id nokey')" 2>/dev/null
# The right key: the run happens.
netns_spawn c1 "$RUN_DIR/c1.log" $BB agent --role=client --id good \
	--controller 10.77.0.2 --key-file "$RUN_DIR/key" --once
check "right key: the agent is in" wait_for 15 grep -q \
	"controller 10.77.0.2:7407 proved the lab key" "$RUN_DIR/c1.log"
check_eq "an id takeover is refused" "$(netns_exec x python3 \
	"$LIB/fakepeer.py" takeover 10.77.0.2 7407 "$RUN_DIR/key" good)" \
	"id takeover: refused"
netns_spawn c2 "$RUN_DIR/c2.log" $BB agent --role=client --id good2 \
	--controller 10.77.0.2 --key-file "$RUN_DIR/key" --once
wait "$CTL"
check_eq "keyed controller finished" $? 0
res=$(ls "$RUN_DIR"/spool/results/quick-*.json 2>/dev/null | head -1)
check "keyed run: every repeat complete" jqt \
	'[.steps[].repeats[].complete] | all' "$res"
check "keyed run: the result says the lab is keyed" jqt \
	'.lab.keyed == true' "$res"
check "refusals are events with the peer's address" jqt \
	'[.events[] | select(.type == "refused") | .id] |
	 index("10.77.0.12") != null and index("10.77.0.20") != null' "$res"
check "the good client stayed, its id not taken" jqt \
	'[.environment.hosts[] | select(.id == "good") | .address] ==
	 ["10.77.0.11"]' "$res"

# --- an agent refuses a controller that asks too much -----------------
netns_spawn x "$RUN_DIR/evil.log" python3 "$LIB/fakepeer.py" controller \
	10.77.0.20 7407 "$RUN_DIR/key"
sleep 0.5
netns_spawn c1 "$RUN_DIR/victim.log" $BB agent --role=client --id victim \
	--controller 10.77.0.20 --key-file "$RUN_DIR/key"
wait_for 20 grep -q "smtp --message" "$RUN_DIR/evil.log"
while IFS='	' read -r what want; do
	check "forged run '$what' refused: $want" \
		grep -q "run $what: error: .*$want" "$RUN_DIR/evil.log"
done <<'TABLE'
fetch -o	'fetch' is not a workload of this agent
http --urls	option --urls reads a local file
http -c	target '192.0.2.1/' is not a server of this run
smtp --message	option --message reads a local file
TABLE
check "nothing was written by the forged fetch" test ! -e /tmp/bb-pwned

# --- an agent with a key refuses an open controller ------------------
netns_spawn ctl "$RUN_DIR/ctl-open.log" $BB agent --role=controller \
	--id ctl-open --listen 10.77.0.2:7407 --suite "$SUITES/quick.suite" \
	--set server=10.77.0.1 --peers 1 --wait 8s --spool "$RUN_DIR/spool2"
OPEN=$NETNS_LAST_PID
netns_spawn c2 "$RUN_DIR/keyed.log" $BB agent --role=client --id keyed \
	--controller 10.77.0.2 --key-file "$RUN_DIR/key"
check "a keyed agent refuses an open controller" wait_for 15 grep -q \
	"has no lab key: refused" "$RUN_DIR/keyed.log"
check "the open controller warns on its console" \
	grep -q "WARNING: open lab" "$RUN_DIR/ctl-open.log"
wait "$OPEN"
res=$(ls "$RUN_DIR"/spool2/results/quick-*.json 2>/dev/null | head -1)
check "the open run's result says the lab is open" jqt \
	'.lab.keyed == false' "$res"

# --- two labs on one LAN (mDNS discovery) ----------------------------
netns_spawn ctl "$RUN_DIR/ctl-a.log" $BB agent --role=controller \
	--id ctl-a --lab alpha --suite "$SUITES/quick.suite" \
	--set server=10.77.0.1 --peers 1 --wait 20s --spool "$RUN_DIR/sa"
A=$NETNS_LAST_PID
netns_spawn ctlb "$RUN_DIR/ctl-b.log" $BB agent --role=controller \
	--id ctl-b --lab beta --suite "$SUITES/quick.suite" \
	--set server=10.77.0.1 --peers 1 --wait 20s --spool "$RUN_DIR/sb"
B=$NETNS_LAST_PID
sleep 1
netns_spawn c1 "$RUN_DIR/beta.log" $BB agent --role=client --id in-beta \
	--lab beta --once
wait "$B"
check_eq "lab beta's controller ran" $? 0
wait "$A"
rb=$(ls "$RUN_DIR"/sb/results/quick-*.json 2>/dev/null | head -1)
ra=$(ls "$RUN_DIR"/sa/results/quick-*.json 2>/dev/null | head -1)
check "the beta client joined beta" jqt \
	'[.environment.hosts[].id] | index("in-beta") != null' "$rb"
check "and never alpha (no clients there)" jqt \
	'.peers.clients_found == 0' "$ra"
check "the beta client discovered only beta's controller" \
	grep -q "discovered controller ctl-b" "$RUN_DIR/beta.log"
tap_done
