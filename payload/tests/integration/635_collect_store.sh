#!/bin/sh
# 635_collect_store.sh: `benchboot collect --db` against a private MariaDB:
# an upload indexed (rows per table as the document has them), a
# duplicate changing nothing, the database killed during an upload and
# back (the file stored at once, its rows caught up), --reindex giving
# the same rows, a regression injected into a synthetic series reported
# once and its noise not at all; the pages (index, filters, escaping, a
# comparison, a trend with one point per run, in headless Chromium); a
# newer schema refused.
# harness: parallel
set -u
. "$(dirname "$0")/../lib/tap.sh"
if [ -n "${TARGET_RUN:-}" ]; then
	echo "1..0 # SKIP arch-independent (the store's SQL): runs for the host ARCH only"
	exit 0
fi
. "$(dirname "$0")/../lib/servers.sh"
trap servers_stop EXIT
BB=$BENCHBOOT
FIX=$TOP/payload/tests/fixtures/results

if ! collect_db_start "$RUN_DIR"; then
	not_ok "mariadb starts"
	tap_done
	exit
fi
count() { $M -e "SELECT COUNT(*) FROM $1 ${2:-}"; }
# runs N: the index holds N runs (it follows the 201 by a moment).
runs() { [ "$(count bb_runs)" = "$1" ]; }
PORT=$(free_port)
U=http://127.0.0.1:$PORT
$BB collect $CU --dir "$D" --listen 127.0.0.1:$PORT $DB --db-retry 1s \
	>"$RUN_DIR/console" 2>"$RUN_DIR/log" &
SERVER_PIDS="$SERVER_PIDS $!"
check "collector up" wait_for 10 curl -s -o /dev/null $U/
put() {
	curl -s -o /dev/null -w '%{http_code}' -X PUT --data-binary @"$1" \
		"$U/results/$(jq -r .id "$1").json"
}
A=$FIX/run-a.json
ida=$(jq -r .id "$A")

# --- one upload, its rows -------------------------------------------------
check_eq "upload: 201" "$(put "$A")" 201
check "indexed within 5 s" wait_for 5 runs 1
check_eq "schema versions 1 to 3 recorded" "$($M -e \
	'SELECT GROUP_CONCAT(version ORDER BY version) FROM bb_schema')" 1,2,3
check_eq "one run row, no error" "$(count bb_runs 'WHERE error IS NULL')" 1
check_eq "its suite, version and created" "$($M -e "SELECT CONCAT_WS(' ',
	suite, suite_version, created) FROM bb_runs")" \
	"report 2 $(jq -r '.created | sub("T"; " ") | sub("Z"; "")' "$A")"
check_eq "a host row per environment.hosts[]" "$(count bb_hosts)" \
	"$(jq '.environment.hosts | length' "$A")"
check_eq "hosts keep their facts as JSON" "$($M -e "SELECT JSON_VALUE(facts,
	'$.kernel') FROM bb_hosts WHERE idx = 1")" \
	"$(jq -r '.environment.hosts[1].kernel' "$A")"
check_eq "a step row per steps[]" "$(count bb_steps)" \
	"$(jq '.steps | length' "$A")"
check_eq "a repeat row per repeat and workload" "$(count bb_repeats)" \
	"$(jq '[.steps[].repeats[].merged | length] | add' "$A")"
check_eq "step 0's throughput mean as the document's" "$($M -e "SELECT
	ROUND(mean, 3) FROM bb_figures WHERE step_idx = 0 AND figure = 'thr'")" \
	"$(jq '.steps[0].stats.http.requests_per_s.mean * 1000 | round / 1000' "$A")"
check_eq "step 0's sampler and probe summary kept" "$(count bb_steps \
	'WHERE idx = 0 AND sm_intervals > 0 AND probe_seconds > 0')" 1

# --- the same upload again ----------------------------------------------------
before=$(count bb_repeats)
check_eq "duplicate upload: 200" "$(put "$A")" 200
check_eq "still one run, the same repeats" "$(count bb_runs) $(count \
	bb_repeats)" "1 $before"

# --- the database down during an upload, then back ------------------------------
kill -9 "$MARIADB_PID"
wait "$MARIADB_PID" 2>/dev/null
check_eq "database down: the upload is still stored (201)" \
	"$(put "$FIX/run-b.json")" 201
check "its file is there" test -s "$D/$(jq -r .id "$FIX/run-b.json").json"
check "the log says it waits for the database" \
	grep -q "not indexed now" "$RUN_DIR/log"
check "mariadb back on its datadir" mariadb_run
check "caught up within 10 s: two runs indexed" wait_for 10 runs 2

# --- a synthetic series: noise, then a regression -------------------------------
# synth N FACTOR: run-a's first two steps as suite "synth", day N,
# http-static/c2's throughput 50000 x FACTOR with a +-3 % confidence
# interval.
jq -c '.steps |= .[0:2]' "$A" >"$RUN_DIR/base.json"
synth() {
	jq -c --arg id "synth-$1" --arg c "2026-12-1$1T10:00:00Z" --argjson f "$2" '
		.id = $id | .created = $c | .suite.name = "synth" |
		.server_identity = { host: "10.0.0.1",
			http: { server: "Apache/2.4.62" } } |
		(.steps[] | select(.name == "http-static/c2") |
		 .stats.http.requests_per_s) |= (.mean = 50000 * $f |
		 .median = 50000 * $f | .ci95 = [48500 * $f, 51500 * $f] |
		 .min = 48000 * $f | .max = 52000 * $f)' "$RUN_DIR/base.json" \
		>"$RUN_DIR/synth-$1.json"
	put "$RUN_DIR/synth-$1.json"
}
codes=
for nf in 1:1 2:1.01 3:0.99 4:1.02 5:0.985 6:0.7 7:0.71; do
	codes="$codes$(synth "${nf%%:*}" "${nf#*:}") "
done
check_eq "seven synthetic runs stored" "$codes" \
	"201 201 201 201 201 201 201 "
check "all nine indexed" wait_for 5 runs 9
check_eq "the injected regression is reported on the console, once" \
	"$(grep -c 'REGRESSION synth-' "$RUN_DIR/console")" 1
check "it names run 6, the step, the figure and the change" grep -q \
	'REGRESSION synth-6 http-static/c2 http throughput/s: .* (-3[01]\.[0-9] %) against the mean of 5 previous' \
	"$RUN_DIR/console"
check "the log has it too" grep -q "REGRESSION synth-6" "$RUN_DIR/log"
check_eq "the noise (runs 1-5, +-2 %) and run 7 report nothing" \
	"$(grep -c 'synth-[1-57] ' "$RUN_DIR/console")" 0
check_eq "bb_regressions holds the one row" "$($M -e "SELECT CONCAT_WS(' ',
	run_id, step, figure, worse) FROM bb_regressions")" \
	"synth-6 http-static/c2 thr 1"

# --- reindex from the files ---------------------------------------------------------
dump() {
	for t in bb_hosts bb_steps bb_workloads bb_figures bb_repeats \
		bb_regressions; do
		$M -e "SELECT * FROM $t ORDER BY 1, 2, 3, 4"
	done
	$M -e "SELECT id, created, suite, suite_version, controller,
		tool_version, lab, keyed, server, hosts_class, image_digest,
		partial, file, bytes, error FROM bb_runs ORDER BY id"
}
dump >"$RUN_DIR/before"
$BB collect $CU --dir "$D" $DB --reindex 2>"$RUN_DIR/reindex.log" \
	>"$RUN_DIR/reindex.out"
check_eq "--reindex exits 0" "$?" 0
check "it indexed the nine files" grep -q "9 results indexed" \
	"$RUN_DIR/reindex.log"
dump >"$RUN_DIR/after"
check "the same rows after --reindex ($(wc -l <"$RUN_DIR/after") lines)" \
	cmp -s "$RUN_DIR/before" "$RUN_DIR/after"

check_eq "a server_identity: the server key and the whole object" \
	"$($M -e "SELECT CONCAT_WS(' / ', server, JSON_VALUE(server_identity,
	'$.http.server')) FROM bb_runs WHERE id = 'synth-1'")" \
	"10.0.0.1 Apache/2.4.62 / Apache/2.4.62"

# --- a version 1 database migrates forward ----------------------------------------
$M -e "DROP TABLE bb_change_points;
	ALTER TABLE bb_runs DROP COLUMN server_identity;
	DELETE FROM bb_schema WHERE version >= 2"
$BB collect $CU --dir "$D" $DB --reindex 2>"$RUN_DIR/migrate.log"
check_eq "--reindex on a version 1 database: exit 0" "$?" 0
check_eq "  migrated: versions 1,2,3" "$($M -e \
	'SELECT GROUP_CONCAT(version ORDER BY version) FROM bb_schema')" 1,2,3
check_eq "  the new column filled again" "$($M -e "SELECT COUNT(*)
	FROM bb_runs WHERE server_identity IS NOT NULL")" 7

# --- the pages (the collector still serves all nine runs) ----------------------
code() { curl -s -o "$RUN_DIR/page" -w '%{http_code}' "$U$1"; }
check_eq "GET /ui/: 200" "$(code /ui/)" 200
check_eq "the index lists the nine runs" "$(grep -o \
	'<td class="id"><a href="/ui/run?id=[^"]*"' "$RUN_DIR/page" | wc -l)" 9
check_eq "filtered by suite: seven" "$(code '/ui/?suite=synth')" 200
check_eq "  their rows" "$(grep -c 'href="/ui/run?id=synth-' \
	"$RUN_DIR/page")" 7
check "the regressed run is marked" grep -q '1 regression' "$RUN_DIR/page"
check_eq "a hostile filter value is escaped, not markup" \
	"$(code '/ui/?host=%3Cscript%3Ex%22')" 200
check "  shown as &lt;script&gt;x&quot;, no <script>" sh -c \
	"grep -q '&lt;script&gt;x&quot;' '$RUN_DIR/page' &&
	 ! grep -q '<script' '$RUN_DIR/page'"
check_eq "an unknown parameter: 400" "$(code '/ui/?evil=1')" 400
check_eq "a run that is not there: 404" "$(code '/ui/run?id=nope')" 404
check_eq "a trend without a version: 400" "$(code '/ui/trend?suite=x')" 400
check_eq "comparing two suites: 400" \
	"$(code "/ui/compare?a=$ida&b=synth-1")" 400
if command -v chromium >/dev/null; then
	# chromium_dom URL OUT: the DOM headless Chromium builds from URL
	# (fresh profile; no name resolves: only 127.0.0.1 is reached).
	chromium_dom() {
		_prof=$(mktemp -d "$RUN_DIR/chromium.XXXXXX")
		timeout -k 5 60 chromium --headless --no-sandbox \
			--disable-gpu --disable-background-networking \
			--disable-component-update --disable-sync \
			--no-first-run --disable-extensions \
			--host-resolver-rules='MAP * ~NOTFOUND, EXCLUDE 127.0.0.1' \
			--user-data-dir="$_prof" --enable-logging=stderr \
			--v=0 --dump-dom "$1" >"$2" 2>"$2.err"
		_rc=$?
		rm -rf "$_prof"
		return $_rc
	}
	chromium_dom "$U/ui/" "$RUN_DIR/index.dom"
	for id in "$ida" "$(jq -r .id "$FIX/run-b.json")" synth-1 synth-7; do
		grep -q "href=\"/ui/run?id=$id\"" "$RUN_DIR/index.dom" ||
			echo "missing $id"
	done >"$RUN_DIR/missing"
	check "Chromium: the index lists what was uploaded" \
		test ! -s "$RUN_DIR/missing"
	cmp=$(grep -o 'class="cmp" href="[^"]*"' "$RUN_DIR/index.dom" |
		head -1 | sed 's/.*href="//; s/"$//; s/&amp;/\&/g')
	chromium_dom "$U$cmp" "$RUN_DIR/cmp.dom"
	a=${cmp#*a=} a=${a%%&*} b=${cmp#*b=}
	check "Chromium: the comparison link ($a vs $b) renders both runs" \
		sh -c "grep -q '$a' '$RUN_DIR/cmp.dom' &&
		       grep -q '$b' '$RUN_DIR/cmp.dom' &&
		       grep -q '<svg' '$RUN_DIR/cmp.dom'"
	chromium_dom "$U/ui/trend?suite=synth&version=2" "$RUN_DIR/trend.dom"
	# The first chart: http-static/c2's throughput, one point per run.
	pts=$(tr -d '\n' <"$RUN_DIR/trend.dom" | sed 's|</figure>|\n|g' |
		head -1 |
		grep -o '<circle class="pt"' | wc -l)
	check_eq "Chromium: a trend chart has one point per run" "$pts" 7
	check_eq "Chromium: no console message on the pages" \
		"$(cat "$RUN_DIR"/*.dom.err | grep -c CONSOLE)" 0
else
	skip "chromium not installed (TEST_PACKAGES)"
fi

# --- benchboot report, selecting from the database ----------------------------------
$BB report $DB --dir "$D" --suite synth --version 2 --from 2026-12-12 \
	--to 2026-12-16 --quiet --csv "$RUN_DIR/sel.csv" 2>"$RUN_DIR/sel.err"
check_eq "report --db: exit 0" "$?" 0
check_eq "  --from/--to select runs 2..6, oldest first" "$(cut -d, -f1 \
	"$RUN_DIR/sel.csv" | sed 1d | uniq | tr '\n' ' ')" \
	"synth-2 synth-3 synth-4 synth-5 synth-6 "
$BB report $DB --dir "$D" --suite synth --version 2 \
	--trend "$RUN_DIR/trend.html" 2>"$RUN_DIR/trend.err"
check_eq "report --db --trend: exit 0" "$?" 0
check_eq "  its first chart has one point per run" "$(tr -d '\n' \
	<"$RUN_DIR/trend.html" | sed 's|</figure>|\n|g' | head -1 |
	grep -o '<circle class="pt"' | wc -l)" 7
$BB report $DB --dir "$D" --host nobody --quiet 2>"$RUN_DIR/none.err"
check_eq "  a selection of nothing: exit 1" "$?" 1

# --- refusals ---------------------------------------------------------------------------
$BB collect $CU --dir "$D" --db "mysql://bench@127.0.0.1:0/bench" --reindex \
	2>"$RUN_DIR/bad.log"
check_eq "a bad --db URL: usage error" "$?" 2
$M -e "INSERT INTO bb_schema VALUES (99, UTC_TIMESTAMP())"
$BB collect $CU --dir "$D" $DB --reindex 2>"$RUN_DIR/newer.log"
check_eq "a newer schema: exit 1" "$?" 1
check "saying so" grep -q "schema version 99 is newer" "$RUN_DIR/newer.log"
tap_done
