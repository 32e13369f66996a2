#!/bin/sh
# 628_agent_durability.sh: the fault matrix's process faults, in network
# namespaces with the real agents: a client's network cut mid-step (no
# FIN) is noticed by both sides within 15 s, the client's workload dies,
# the repeat is not averaged, the client rejoins when the link is back;
# workloads die with a killed agent; a controller killed mid-run leaves a
# checkpoint its next start uploads as a partial result, once, or, given
# the run's id (--run-id) and the same suite and clients, continues from
# the last complete repeat into one whole result; collector
# answers 413 (refused for good) and 500 (retried, then kept); a full
# spool disk.  docs/durability.md has the table.
# harness: parallel
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/servers.sh"
. "$(dirname "$0")/../lib/netns.sh"
. "$(dirname "$0")/../lib/agent.sh"
LIB=$(cd "$(dirname "$0")/../lib" && pwd)
cleanup() {
	umount "$RUN_DIR/full" 2>/dev/null
	agent_test_cleanup
}
agent_test_start cleanup
netns_hub && netns_add srv 10.77.0.1 && netns_add ctl 10.77.0.2 &&
	netns_add col 10.77.0.3 && netns_add c1 10.77.0.11 &&
	netns_add c2 10.77.0.12 ||
	{ not_ok "namespaces"; tap_done; exit 1; }
netns_docroot "$RUN_DIR/www"
check "nginx in srv" netns_nginx srv 10.77.0.1 80 "$RUN_DIR/www" \
	"$RUN_DIR/nginx"
# hub-side end of a node's veth (netns_add names it from the address).
since() { echo $(( $(date +%s) - $1 )); }

# --- a client's network cut mid-step, then restored ------------------
for c in c1 c2; do
	netns_spawn $c "$RUN_DIR/$c.log" $BB agent --role=client \
		--controller 10.77.0.2 --id "$c" --target 10.77.0.1
	eval "PID_$c=\$NETNS_LAST_PID"
done
netns_spawn ctl "$RUN_DIR/ctl.log" $BB agent --role=controller --id ctl \
	--suite "$SUITES/long.suite" --set server=10.77.0.1 \
	--spool "$RUN_DIR/spool"
CTL=$NETNS_LAST_PID
wait_for 30 grep -q "step http-static/c2/r1: 1 process" "$RUN_DIR/c2.log"
sleep 1
work=$(pgrep -P "$PID_c2" | head -1)
check "c2's workload is running (pid ${work:-none})" test -n "$work"
netns_cable 10.77.0.12 down
cut=$(date +%s)
check "the controller marks c2 lost within 15 s" wait_for 15 grep -q \
	"lost client c2" "$RUN_DIR/ctl.log"
diag "controller noticed after $(since $cut) s"
check "c2 notices its controller gone within 15 s" wait_for 15 grep -q \
	"controller closed the connection\|Connection timed out\|retrying in" \
	"$RUN_DIR/c2.log"
diag "c2 noticed after $(since $cut) s"
check "c2's workload was killed with the session" \
	wait_for 5 sh -c "! kill -0 $work 2>/dev/null"
netns_cable 10.77.0.12 up
check "c2 rejoins once the link is back" wait_for 30 grep -q \
	"connected to controller" "$RUN_DIR/c2.log"
wait "$CTL"
check_eq "controller finished" $? 0
res=$(ls "$RUN_DIR"/spool/results/long-*.json | head -1)
check_eq "repeat 1 incomplete, repeat 2 complete" \
	"$(jq -c '[.steps[0].repeats[].complete]' "$res")" "[false,true]"
check "repeat 1 says c2 was lost" jqt '.steps[0].repeats[0].clients[] |
	select(.id == "c2") | .error | test("lost")' "$res"
check_eq "only the complete repeat is in the statistics" \
	"$(jq '.steps[0].stats.http.requests_per_s.n' "$res")" 1

# --- workloads die with a killed agent --------------------------------
netns_spawn ctl "$RUN_DIR/ctl2.log" $BB agent --role=controller --id ctl2 \
	--suite "$SUITES/long.suite" --set server=10.77.0.1 --peers 2 \
	--spool "$RUN_DIR/spool2"
CTL2=$NETNS_LAST_PID
wait_for 30 grep -q "step http-static/c2/r1: 1 process" "$RUN_DIR/c1.log"
sleep 1
work=$(pgrep -P "$PID_c1" | head -1)
kill -9 "$PID_c1"
check "c1's workload died with its agent (pid ${work:-none})" \
	wait_for 3 sh -c "test -n '$work' && ! kill -0 '$work' 2>/dev/null"
# --- the controller killed mid-run: its checkpoint survives ------------
sleep 22
kill -9 "$CTL2"
check "a checkpoint of the finished repeat is in the spool" sh -c \
	"ls '$RUN_DIR'/spool2/partial/long-*.json >/dev/null 2>&1"
cp=$(ls "$RUN_DIR"/spool2/partial/long-*.json 2>/dev/null | head -1)
check "the checkpoint is a valid partial result" jqt \
	'.partial == true and .schema == "benchboot.result/1" and
	 (.steps[0].repeats | length) >= 1' "$cp"
id=$(jq -r .id "$cp")
mkdir -p "$RUN_DIR/collected"
netns_spawn col "$RUN_DIR/collect.log" $BB collect \
	--dir "$RUN_DIR/collected" --listen 10.77.0.3:8080 --token tk \
	$(collect_user "$RUN_DIR/collected")
wait_for 10 netns_exec col curl -sf -H 'Authorization: Bearer tk' \
	http://10.77.0.3:8080/
UP="--upload http://10.77.0.3:8080/results/ --token tk"
# Restarted with the run's id but another suite: not resumed.
netns_exec ctl $BB agent --role=controller --id ctl2 --run-id "$id" \
	--suite "$SUITES/quick.suite" --set server=10.77.0.1 --peers 0 \
	--wait 1s --spool "$RUN_DIR/spool2" $UP >/dev/null \
	2>"$RUN_DIR/ctl2b.log"
check_eq "the restarted controller finished" $? 0
check "the interrupted run arrived, marked partial and interrupted" jqt \
	'.partial == true and (.interrupted | test("stopped before"))' \
	"$RUN_DIR/collected/$id.json"
check "another suite: not resumed, and the result says why" jqt \
	'.interrupted | test("not resumed: the suite changed")' \
	"$RUN_DIR/collected/$id.json"
check "its checkpoint is gone" test ! -e "$cp"
check_eq "uploaded exactly once" "$(grep -c "stored $id" \
	"$RUN_DIR/collect.log")" 1

# --- the controller killed after repeat 1 of 2, resumed by its run id --
R3="--role=controller --id ctl3 --run-id resume-1 --suite $SUITES/resume.suite
	--set server=10.77.0.1 --peers 1 --spool $RUN_DIR/spool3 $UP"
netns_spawn ctl "$RUN_DIR/ctl3.log" $BB agent $R3
CTL3=$NETNS_LAST_PID
wait_for 40 test -e "$RUN_DIR/spool3/partial/resume-1.json"
kill -9 "$CTL3"
check "repeat 1's checkpoint, then the controller killed" jqt \
	'(.steps[0].repeats | length) == 1' "$RUN_DIR/spool3/partial/resume-1.json"
t0=$(date +%s)
netns_exec ctl $BB agent $R3 >/dev/null 2>"$RUN_DIR/ctl3b.log"
check_eq "the controller restarted with the run id finished" $? 0
diag "the resumed run took $(since "$t0") s"
res="$RUN_DIR/collected/resume-1.json"
check "one result, whole (not partial), with both repeats" jqt \
	'(.partial | not) and (.steps[0].repeats | map(.repeat)) == [1,2]' \
	"$res"
check "repeat 1 resumed from the checkpoint, repeat 2 run again" jqt \
	'[.steps[0].repeats[].resumed] == [true,null] and
	 (.resumed.repeats | length) == 1 and .resumed.gap_s >= 0 and
	 any(.events[]; .type == "resumed")' "$res"
check_eq "both repeats in the statistics" \
	"$(jq '.steps[0].stats.http.requests_per_s.n' "$res")" 2
check_eq "uploaded exactly once" "$(grep -c "stored resume-1" \
	"$RUN_DIR/collect.log")" 1
check "no checkpoint, nothing recovered as interrupted" sh -c \
	"test ! -e '$RUN_DIR/spool3/partial/resume-1.json' &&
	 ! grep -q interrupted '$RUN_DIR/ctl3b.log'"

# --- the collector refuses for good, or fails for a while -------------
col_listens() { netns_exec col ss -ltn | grep -q "10.77.0.3:$1 "; }
for status in 413 500; do
	netns_spawn col "$RUN_DIR/fake$status.log" python3 \
		"$LIB/fakecollector.py" 10.77.0.3 90$((status / 100))0 $status \
		"$RUN_DIR/fake$status.req"
	# Listening, not a fixed sleep: python starts slowly on a busy host.
	wait_for 10 col_listens 90$((status / 100))0
	netns_exec ctl $BB agent --role=controller --id "up$status" \
		--suite "$SUITES/quick.suite" --peers 0 --wait 1s \
		--spool "$RUN_DIR/sp$status" --upload-deadline 3s \
		--upload "http://10.77.0.3:90$((status / 100))0/results/" \
		>/dev/null 2>"$RUN_DIR/up$status.log"
	eval "rc$status=\$?"
done
check_eq "413: the run ends at once with status 5" "$rc413" 5
check "413: the result is in rejected/ with the answer" sh -c \
	"ls '$RUN_DIR'/sp413/rejected/*.json >/dev/null &&
	 grep -q 'HTTP 413' '$RUN_DIR'/sp413/rejected/*.answer"
check_eq "413: nothing left pending" \
	"$(ls "$RUN_DIR/sp413/pending" | wc -l)" 0
check_eq "413: sent once" "$(wc -l <"$RUN_DIR/fake413.req")" 1
check_eq "500: retried until the deadline, then status 3" "$rc500" 3
check "500: tried more than once" test "$(wc -l <"$RUN_DIR/fake500.req")" -ge 2
check_eq "500: the result waits in pending/" \
	"$(ls "$RUN_DIR/sp500/pending" | wc -l)" 1

# --- a full spool disk -------------------------------------------------
mkdir -p "$RUN_DIR/full"
if mount -t tmpfs -o size=64k tmpfs "$RUN_DIR/full"; then
	mkdir -p "$RUN_DIR/full/results"
	echo keep >"$RUN_DIR/full/results/earlier.json"
	dd if=/dev/zero of="$RUN_DIR/full/filler" bs=4k count=16 2>/dev/null
	BENCHBOOT_STATUS=$RUN_DIR/full.status netns_exec ctl $BB agent \
		--role=controller --id full --suite "$SUITES/quick.suite" \
		--peers 0 --wait 1s --spool "$RUN_DIR/full" \
		>/dev/null 2>"$RUN_DIR/full.log"
	check_eq "a full spool: status 4" $? 4
	check "the console status says so" grep -q "ERROR: spool .* full" \
		"$RUN_DIR/full.status"
	check_eq "what was spooled before is intact" \
		"$(cat "$RUN_DIR/full/results/earlier.json")" keep
	check "no partial file left behind" sh -c \
		"! ls -a '$RUN_DIR'/full/results | grep -q '\.tmp\.'"
else
	skip "a small tmpfs for the full-disk case"
fi
tap_done
