#!/bin/sh
# 667_report_errors.sh: correct-only throughput end to end.  A controller
# and one client in network namespaces run http against nginx where half
# the URLs 404: the result counts only the 200s as requests, the 404s as
# status_4xx, gives each repeat its error rate, and marks a repeat over
# the suite's max_error_rate invalid (kept, not averaged); the same load
# under a tolerant threshold is averaged; benchboot report shows the error
# column, the INVALID flag and the reason (terminal, HTML, CSV).
# harness: parallel
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/servers.sh"
. "$(dirname "$0")/../lib/netns.sh"
. "$(dirname "$0")/../lib/agent.sh"
agent_test_start
netns_hub || { not_ok "hub namespace"; tap_done; exit 1; }
netns_add srv 10.78.0.1 && netns_add ctl 10.78.0.2 &&
	netns_add c1 10.78.0.11
ok "namespaces srv, ctl, c1 on one bridge"
netns_docroot "$RUN_DIR/www"
check "nginx on 10.78.0.1:80" netns_nginx srv 10.78.0.1 80 "$RUN_DIR/www" \
	"$RUN_DIR/nginx"

# half404 at the default threshold (1 %), the same at 60 %, and a clean
# step.  No server agent: {server} is set.
cat >"$RUN_DIR/errors.suite" <<'SUITE'
suite errors
version 1
clients 1
servers 0
wait 20s
repeats 2
warmup 200ms
duration 1s
cooldown 200ms
set server 10.78.0.1
set ok /static/4050.html

step half404
	concurrency 2
	run http -t 1 -c {conc} -d {duration} --warmup {warmup} http://{server}{ok} http://{server}/missing.html

step tolerant
	concurrency 2
	max_error_rate 60%
	run http -t 1 -c {conc} -d {duration} --warmup {warmup} http://{server}{ok} http://{server}/missing.html

step clean
	concurrency 2
	run http -t 1 -c {conc} -d {duration} --warmup {warmup} http://{server}{ok}
SUITE

# An open lab with no server agent: the client is told its target.
netns_spawn c1 "$RUN_DIR/c1.log" $BB agent --role=client \
	--controller 10.78.0.2 --once --target 10.78.0.1
netns_exec ctl $BB agent --role=controller --id ctl-errors \
	--listen 10.78.0.2:7407 --suite "$RUN_DIR/errors.suite" \
	--spool "$RUN_DIR/spool" --wait 20s >"$RUN_DIR/ctl.out" \
	2>"$RUN_DIR/ctl.log"
rc=$?
check_eq "controller exit status" "$rc" 0
[ $rc = 0 ] || sed 's/^/#   /' "$RUN_DIR/ctl.log" | tail -20
res=$(cat "$RUN_DIR/ctl.out")
if ! test -s "$res"; then
	not_ok "result written: $res"
	tap_done
	exit 1
fi
ok "result written"

h='.steps[] | select(.name == "half404/c2")'
check "half404: every repeat complete, invalid, with its reason" jqt \
	"[$h | .repeats[] | .complete == true and .invalid == true and
	  (.invalid_reason | startswith(\"http: \") and
	   contains(\"above 1.00 %\"))] | length == 2 and all" "$res"
check "half404: no repeat averaged (complete_repeats 0, no rate)" jqt \
	"$h | .complete_repeats == 0 and
	 (.stats.http.requests_per_s == null)" "$res"
check "half404: requests are the 200s: responses - status_4xx" jqt \
	"[$h | .repeats[].merged.http | .counters.requests > 0 and
	  .counters.requests == .counters.responses - .errors.status_4xx]
	 | all" "$res"
check "half404: the histogram holds the 200s only" jqt \
	"[$h | .repeats[].merged.http |
	  .latency.count == .counters.requests] | all" "$res"
check "half404: about half the answers are 404s (error_rate)" jqt \
	"[$h | .repeats[].merged.http | .error_rate > 0.35 and
	  .error_rate < 0.65 and .successes == .counters.requests and
	  .failures == .errors.status_4xx] | all" "$res"
check "half404: the clients' 404s are in status_4xx, no other error" jqt \
	"[$h | .repeats[].merged.http.errors |
	  .status_4xx > 0 and .connect + .read + .timeout + .parse +
	  .status_5xx + .status_other == 0] | all" "$res"

t='.steps[] | select(.name == "tolerant/c2")'
check "tolerant (60 %): both repeats valid and averaged" jqt \
	"$t | .complete_repeats == 2 and ([.repeats[].invalid] |
	 all(. == null)) and .stats.http.requests_per_s.n == 2" "$res"
check "tolerant: the rate is successes only (< 65 % of responses/s)" jqt \
	"$t | .stats.http.requests_per_s.median <
	 0.65 * ([.repeats[].merged.http.rates.responses] | max)" "$res"
check "clean: error rate 0, valid" jqt \
	'.steps[] | select(.name == "clean/c2") | .complete_repeats == 2 and
	 ([.repeats[].merged.http.error_rate] | all(. == 0))' "$res"

# The report: the error column, the flag and the reason.
$BB report "$res" >"$RUN_DIR/r.txt" 2>"$RUN_DIR/r.err"
check_eq "report: exit 0" "$?" 0
# One result: one table, a row per step and workload (step, workload,
# rate, err %, p50, p99, spread, MDC, flag).
check "report: half404's row flagged INVALID with its error rate" \
	grep -Eq '^  half404/c2 +http +.* [3-6][0-9]\.[0-9]+ .* INVALID$' \
	"$RUN_DIR/r.txt"
check "report: the reason under the table" grep -q \
	'^  A: half404/c2: 2 of 2 repeat(s) invalid, not averaged: http: ' \
	"$RUN_DIR/r.txt"
check "report: tolerant flagged errors, clean not flagged" sh -c "
	grep -Eq '^  tolerant/c2 +http .* [3-6][0-9]\.[0-9]+ .* errors$' \
		'$RUN_DIR/r.txt' &&
	grep -E '^  clean/c2 +http .* 0\.00 ' '$RUN_DIR/r.txt' |
		grep -Evq 'errors|INVALID'"
$BB report --quiet --html "$RUN_DIR/r.html" --csv "$RUN_DIR/r.csv" "$res"
check_eq "report --html --csv: exit 0" "$?" 0
check "html: the INVALID flag with the reason as its title" \
	grep -q 'class="flag" title="2 of 2 repeat(s) not averaged: http: ' \
	"$RUN_DIR/r.html"
check "csv: half404's error_rate, invalid_repeats and flag" awk -F, '
	NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	$c["step_name"] == "half404/c2" {
		found = $c["error_rate"] > 0.35 &&
			$c["invalid_repeats"] == 2 && $c["flag"] == "INVALID" }
	END { exit !found }' "$RUN_DIR/r.csv"
tap_done
