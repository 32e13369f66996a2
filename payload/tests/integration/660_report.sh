#!/bin/sh
# 660_report.sh: `benchboot report` on the committed results of a real
# chain run (fixtures/results, regenerate.sh): tables, comparison and its
# refusal, CSV, damaged files refused naming the field, and the HTML page
# loaded in headless Chromium (charts drawn, no console error, no request
# leaves it; the screenshot stays in $O/test-logs/).
# harness: parallel
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/servers.sh"
BB="${TARGET_RUN:+$TARGET_RUN }$BENCHBOOT"
FIX=$(cd "$(dirname "$0")/../fixtures/results" && pwd)
A=$FIX/run-a.json
B=$FIX/run-b.json
W=$RUN_DIR
LOGS=${O:-out}/test-logs
mkdir -p "$LOGS"
trap servers_stop EXIT

# --- terminal tables --------------------------------------------------
$BB report "$A" >"$W/a.txt" 2>"$W/a.err"
check_eq "one result: exit 0" "$?" 0
# One result: one table, a row per step and workload (issue 32), not two
# tables per step.
check "one result: one steps table" grep -q "^steps: median over repeats" \
	"$W/a.txt"
check_eq "  and no per-step figure table" \
	"$(grep -c 'against concurrency' "$W/a.txt")" 0
for s in $(jq -r '.steps[] | select(.stats | length > 0) | .name' "$A"); do
	check "a row for $s" grep -Eq "^  $s +[a-z:]+ +[0-9]" "$W/a.txt"
done
rows=$(awk '/^steps: / { t = 1; next } t && /^$/ { exit } t' "$W/a.txt" |
	wc -l)
want=$(jq '[.steps[] | (.stats // {} | length) | if . == 0 then 1
	else . end] | add + 1' "$A")
check_eq "  the table: a heading and a line per step and workload" \
	"$rows" "$want"
# Every concurrency of the sweep is a row, with n = complete repeats.
for c in $(jq -r '.steps[] | select(.step == "http-static") |
		.concurrency' "$A"); do
	n=$(jq --argjson c "$c" '.steps[] | select(.step == "http-static" and
		.concurrency == $c) | .complete_repeats' "$A")
	check "http-static c$c row with n=$n" grep -Eq \
		"^  http-static/c$c +http +[0-9.]+ ± [0-9.]+ \\($n\\)" "$W/a.txt"
done
ops=$(jq -r '[.steps[].repeats[].clients[].records[]?.record |
	select(.params.sql_workload == "ops") | .counters.ops | keys[]] |
	unique | .[]' "$A")
missing=
for op in $ops; do
	grep -q "^  $op " "$W/a.txt" || missing="$missing $op"
done
check "sql ops table (seconds per operation)" grep -q "^sql ops: seconds" \
	"$W/a.txt"
check_eq "sql ops: a row for each of the $(echo $ops | wc -w) operations" \
	"$missing" ""
cols="runnable +idle % +ctx sw/s +free pages +intr/s +blk out/s +load +swap"
check "sampler table with the Byte.com columns" grep -Eq "$cols" "$W/a.txt"
check "probe table" grep -q "^fairness probe: units lost per step" "$W/a.txt"
# The sampler average of one step, recomputed from the document.
want=$(jq '[.steps[] | select(.name == "http-static/c8") | .repeats[] |
	.series.sample[]] | unique_by(.t.realtime_ns) |
	((map(.running * .interval_s) | add) / (map(.interval_s) | add))' "$A")
got=$(awk '/server sampler/ { s = 1 }
	s && $1 == "http-static/c8" { print $2; exit }' "$W/a.txt")
check "sampler runnable for http-static/c8: $got ~ $want" awk -v a="$got" \
	-v b="$want" 'BEGIN { d = a - b; exit !(d < 0.01 && d > -0.01) }'

# --- compare ------------------------------------------------------------
$BB report "$A" "$B" >"$W/ab.txt" 2>"$W/ab.err"
check_eq "two results: exit 0" "$?" 0
check "ratio and significance columns" grep -Eq "B/A +sig" "$W/ab.txt"
# A figure against itself: ratio 1, CIs overlap.
$BB report "$A" "$A" >"$W/aa.txt"
# Rows of the figure tables that are not "ratio 1, not significant".
odd=$(grep -E '^  [0-9-]+ ' "$W/aa.txt" |
	grep -v '1.000  no\|1.000  n<2\| -  -' | wc -l)
check_eq "A against A: every ratio 1.000, never significant" "$odd" 0
# A's http-static/c4 moved up by 100000 requests/s, interval and all:
# ratio above 1 and the intervals apart, so significant.
jq '(.steps[] | select(.name == "http-static/c4") |
	.stats.http.requests_per_s) |= (.median += 1e5 | .mean += 1e5 |
	.ci95 |= map(. + 1e5))' "$A" >"$W/a-up.json"
$BB report "$A" "$W/a-up.json" >"$W/up.txt"
check "a shifted figure: ratio > 1 and significant" awk '
	/requests\/s against/ { t = 1 } /p99 latency/ { t = 0 }
	t && $1 == "4" { if ($(NF - 1) > 1.5 && $NF == "yes") ok = 1 }
	END { exit !ok }' "$W/up.txt"
jq '.suite.version = "99"' "$B" >"$W/b-v2.json"
$BB report "$A" "$W/b-v2.json" >/dev/null 2>"$W/v2.err"
check_eq "another suite version: refused (exit 1)" "$?" 1
check "the reason names both versions" grep -q "refusing to compare: \
different suite versions: .*version 2, .*version 99" "$W/v2.err"
$BB report --force "$A" "$W/b-v2.json" >/dev/null 2>"$W/v2f.err"
check_eq "--force compares anyway" "$?" 0
check "--force still warns" grep -q "warning: different suite versions" \
	"$W/v2f.err"

# --- the system table (issue 32) ----------------------------------------
# Every host given the system a QEMU guest reports; B on a newer kernel
# and microcode.
SYS='{"firmware": {"sys_vendor": "QEMU", "product_name": "Standard PC (i440FX + PIIX, 1996)",
 "bios_vendor": "SeaBIOS", "bios_version": "1.16.3-debian-1.16.3-2", "bios_date": "04/01/2014"},
 "cpu": {"model": "QEMU Virtual CPU version 2.5+", "family": 15, "model_id": 107,
  "stepping": 1, "microcode": "0x1", "sockets": 1, "cores": 2, "threads": 2,
  "vulnerabilities": {"meltdown": "Not affected", "spectre_v2": "Mitigation: Retpolines"}},
 "memory": {"total_kb": 2030000, "slots": 1, "dimms": [{"locator": "DIMM 0", "size_mb": 2048, "type": "RAM"}]},
 "kernel": {"release": "6.1.0-57-amd64", "clocksource": "tsc"}}'
jq --argjson s "$SYS" '.environment.hosts[].system = $s' "$A" >"$W/as.json"
jq --argjson s "$SYS" '.environment.hosts[].system = ($s |
	.kernel.release = "6.12.9-amd64" | .cpu.microcode = "0x2")' "$B" \
	>"$W/bs.json"
$BB report "$W/as.json" >"$W/as.txt"
check "system table: one result" sh -c "grep -q '^system: one column per host' '$W/as.txt' &&
	grep -Eq '^    DIMMs +1 x 2048 MB RAM in 1 slot$' '$W/as.txt'"
$BB report "$W/as.json" "$W/bs.json" >"$W/abs.txt"
d=$(awk '/^system:/ { t = 1 } t && /^$/ { exit }
	t && /^  \* / { print NR ":" $2 }
	t && /the same in every result/ { print NR ":--" }' "$W/abs.txt" |
	tr '\n' ' ')
check "system table: A vs B, the rows that differ first and marked ($d)" \
	sh -c "echo '$d' | grep -Eq '^[0-9]+:Microcode [0-9]+:Kernel [0-9]+:-- $'"

# --- CSV ----------------------------------------------------------------
$BB report --quiet --csv "$W/ab.csv" "$A" "$B" >"$W/q.txt"
check_eq "--csv: exit 0" "$?" 0
check_eq "--quiet prints nothing" "$(wc -c <"$W/q.txt")" 0
rows=$(jq -s '[.[] | .steps[] | ([.stats // {} | keys[]] | length) |
	if . == 0 then 1 else . end] | add' "$A" "$B")
check_eq "csv: header + one row per (result, workload, step, concurrency)" \
	"$(wc -l <"$W/ab.csv")" "$((rows + 1))"
med=$(jq '.steps[] | select(.name == "http-static/c4") |
	.stats.http.requests_per_s.median' "$B")
got=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	$(c["step_name"]) == "http-static/c4" && $(c["file"]) ~ /run-b/ {
	print $(c["thr_median"]) }' "$W/ab.csv")
check "csv: B's http-static/c4 median is the document's ($got)" awk \
	-v a="$got" -v b="$med" 'BEGIN { exit !(a - b < 1e-6 && b - a < 1e-6) }'

# --- damaged files ------------------------------------------------------
head -c $(($(wc -c <"$A") / 2)) "$A" >"$W/trunc.json"
jq '.schema = "benchboot.result/2"' "$A" >"$W/newer.json"
jq '.steps[1].stats.http.p99_ns.ci95 = "wide"' "$A" >"$W/field.json"
jq '.steps[0].repeats[0].clients[0].records[0].record.schema =
	"benchboot.workload/2"' "$A" >"$W/rec.json"
printf '{"schema": "benchboot.result/1", "id": 12}' >"$W/id.json"
: >"$W/empty.json"
for t in "trunc.json|ends early.*truncated" \
	 "newer.json|field \"schema\": benchboot.result/2 is newer" \
	 "field.json|field \"steps\\[1\\].stats.http.p99_ns.ci95\": \
expected an array" \
	 "rec.json|field \"steps\\[0\\].repeats\\[0\\].clients\\[0\\]\
.records\\[0\\].record.schema\": benchboot.workload/2 is newer" \
	 "id.json|field \"id\": expected a string" \
	 "empty.json|empty file"; do
	f=${t%%|*} re=${t#*|}
	$BB report "$W/$f" "$A" >/dev/null 2>"$W/$f.err"
	rc=$?
	if [ $rc = 1 ] && grep -Eq "$f: .*$re" "$W/$f.err"; then
		ok "$f refused: $(head -c 150 "$W/$f.err")"
	else
		not_ok "$f refused naming the field (exit $rc)"
		diag "$(cat "$W/$f.err")"
	fi
done
$BB report >/dev/null 2>&1
check_eq "no file: usage error (exit 2)" "$?" 2

# --- HTML in headless Chromium ------------------------------------------
$BB report --quiet --html "$W/ab.html" "$A" "$B"
check_eq "--html: exit 0" "$?" 0
check "html: no http[s]://, url(, <link, <script, @import" \
	sh -c "! grep -Eq 'https?://|url\\(|<link|<script|@import' '$W/ab.html'"
if ! command -v chromium >/dev/null; then
	skip "chromium not installed (TEST_PACKAGES)"
	tap_done
	exit
fi
# chromium_run OUT ERR ARGS...: a fresh profile, nothing but the page; the
# resolver maps every name nowhere, so a request could not leave anyway.
chromium_run() {
	_o=$1 _e=$2
	shift 2
	_prof=$(mktemp -d "$W/chromium.XXXXXX")
	timeout -k 5 60 chromium --headless --no-sandbox --disable-gpu \
		--disable-background-networking --disable-component-update \
		--disable-sync --no-first-run --disable-quic \
		--disable-extensions --host-resolver-rules='MAP * ~NOTFOUND' \
		--user-data-dir="$_prof" --enable-logging=stderr --v=0 \
		"$@" >"$_o" 2>"$_e"
	_rc=$?
	rm -rf "$_prof"
	return $_rc
}
# The console check must be able to fail: a page that logs an error.
printf '<!DOCTYPE html><html><body><script>%s</script></body></html>\n' \
	'console.error("planted-x")' >"$W/bad.html"
chromium_run "$W/bad.dom" "$W/bad.err" --dump-dom "file://$W/bad.html"
check "console check catches a planted console.error" \
	grep -q 'CONSOLE.*planted-x' "$W/bad.err"
chromium_run "$W/ab.dom" "$W/ab.err" --dump-dom "file://$W/ab.html"
check_eq "chromium --dump-dom exit status" "$?" 0
cp "$W/ab.err" "$LOGS/report-chromium.log"
check_eq "no console message from the page" \
	"$(grep -c 'CONSOLE' "$W/ab.err")" 0
nsvg=$(grep -o '<svg' "$W/ab.dom" | wc -l)
nws=$(jq -s '[.[] | .steps[] | .step as $s | .stats // {} | keys[] |
	"\($s) \(.)"] | unique | length' "$A" "$B")
check "charts in the DOM: $nsvg svg (>= 2 per workload: $nws)" \
	test "$nsvg" -ge $((nws * 2))
# Every line chart has a drawn line: a path with M and L commands.
line='<path class="line" stroke="[^"]*" d="M[0-9.]\+ [0-9.]\+'
nline=$(grep -o "$line"'[^"]*"' "$W/ab.dom" | wc -l)
nlinel=$(grep -o "$line"'L[^"]*"' "$W/ab.dom" | wc -l)
nempty=$(grep -o '<path[^>]* d=""' "$W/ab.dom" | wc -l)
check "lines drawn ($nline with data, $nlinel with segments)" \
	test "$nline" -ge $((nws * 2)) -a "$nlinel" -ge 2
check_eq "no empty path" "$nempty" 0
check "bars drawn (sql ops, probe)" \
	grep -q '<path class="bar" fill="[^"]*" d="M[0-9.]\+ ' "$W/ab.dom"
check "step boundaries drawn" grep -q '<path class="stepb" d="M' "$W/ab.dom"
srv=$(jq -r '.environment.hosts[] | select(.role == "server") | .id' "$A")
check "environment table lists the server $srv" grep -q "$srv" "$W/ab.dom"
# The system table in the page: its rows in the DOM's order, the ones
# that differ (class differs) all before the others.
$BB report --quiet --html "$W/abs.html" "$W/as.json" "$W/bs.json"
chromium_run "$W/abs.dom" "$W/abs.err" --dump-dom "file://$W/abs.html"
order=$(tr -d '\n' <"$W/abs.dom" | sed 's|.*<table class="sys">||; s|</table>.*||' |
	sed 's|<tr|\n<tr|g' | sed -n 's|^<tr class="differs"><th>.*</span> \([^<]*\)</th>.*|D:\1|p; s|^<tr><th>\([^<][^<]*\)</th>.*|S:\1|p' |
	tr '\n' ' ')
check "chromium: the system table, differing rows first ($(echo "$order" | cut -c1-60)...)" \
	sh -c "echo '$order' | grep -Eq '^D:Microcode D:Kernel S:System S:BIOS S:Processor .*S:Vuln. spectre_v2 S:Not affected ?$'"
check "chromium: the host columns' heads (8: 4 hosts x 2 results)" \
	test "$(tr -d '\n' <"$W/abs.dom" | grep -o '<span class="hid">' |
		wc -l)" -eq 8
chromium_run "$W/shot.out" "$W/shot.err" --window-size=1300,3000 \
	--screenshot="$LOGS/report-screenshot.png" "file://$W/ab.html"
size=$(wc -c <"$LOGS/report-screenshot.png" 2>/dev/null || echo 0)
check "screenshot kept: $LOGS/report-screenshot.png ($size bytes)" \
	test "$size" -gt 50000
check_eq "no console message while drawing the screenshot" \
	"$(grep -c 'CONSOLE' "$W/shot.err")" 0
tap_done
