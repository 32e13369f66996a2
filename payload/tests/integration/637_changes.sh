#!/bin/sh
# 637_changes.sh: change points over a history with a known step: thirty
# generated result files (http-static/c2's throughput at +-1 % noise, -14 %
# from run 21 on, where the server's kernel and image also change) read by
# `benchboot changes` from a directory and from a list, text and --json,
# both tests; then uploaded one by one to a collector on a real MariaDB:
# the point found once, incrementally, recorded in bb_change_points with
# what changed, the same through `changes --db`, marked on the trend page
# (escaped), and the same rows after --reindex.
# harness: parallel
set -u
. "$(dirname "$0")/../lib/tap.sh"
if [ -n "${TARGET_RUN:-}" ]; then
	echo "1..0 # SKIP arch-independent (the detector's figures and the store's SQL): runs for the host ARCH only"
	exit 0
fi
. "$(dirname "$0")/../lib/servers.sh"
trap servers_stop EXIT
BB=$BENCHBOOT
FIX=$TOP/payload/tests/fixtures/results
F=$RUN_DIR/files
mkdir -p "$F"

# gen I: run I of the history (deterministic noise: awk's srand(I)).
jq -c '.steps |= .[0:2]' "$FIX/run-a.json" >"$RUN_DIR/base.json"
aa=sha256:$(printf 'a%.0s' $(seq 64))
bb=sha256:$(printf 'b%.0s' $(seq 64))
gen() {
	_f=$(awk -v i="$1" 'BEGIN { srand(i); n = (rand() + rand() + rand() - 1.5) * 0.02
		printf "%.5f", (i > 20 ? 0.86 : 1) * (1 + n) }')
	_d=$aa
	[ "$1" -gt 20 ] && _d=$bb
	jq -c --arg id "synth-$(printf %02d "$1")" \
		--arg c "2026-12-$(printf %02d "$1")T10:00:00Z" \
		--argjson f "$_f" --arg d "$_d" --arg bb "$bb" '
		.id = $id | .created = $c | .suite.name = "synth" |
		(.environment.hosts[] | select(.role == "server")) |=
			(.image_digest = $d | if $d == $bb then
			 .kernel = "Linux 6.6 <b>evil</b>" else . end) |
		(.steps[] | select(.name == "http-static/c2") |
		 .stats.http.requests_per_s) |= (.mean = 50000 * $f |
		 .median = 50000 * $f | .ci95 = [48500 * $f, 51500 * $f])' \
		"$RUN_DIR/base.json" >"$F/synth-$(printf %02d "$1").json"
}
for i in $(seq 1 30); do gen "$i"; done

# --- from files -------------------------------------------------------------
$BB changes "$F" >"$RUN_DIR/out" 2>"$RUN_DIR/err"
check_eq "changes DIR: exit 0" "$?" 0
check_eq "  one change point in all" "$(grep -c '^synth ' "$RUN_DIR/out")" 1
check "  at run 21, http-static/c2's throughput, -13 to -15 %, a regression" \
	grep -q '^synth v2 http-static/c2 http throughput/s .*: run synth-21 (2026-12-21T10:00:00Z): .* (-1[345]\.[0-9] %), p .*, REGRESSION$' \
	"$RUN_DIR/out"
check "  what changed: the image, before and after" grep -q \
	"^    image $bb (before: $aa)" "$RUN_DIR/out"
check "  what changed: the server's kernel row" grep -q \
	'^    server.kernel: Linux 6.18.* -> Linux 6.6 <b>evil</b>$' \
	"$RUN_DIR/out"
check "  the summary line (4 series, 30 runs)" grep -q \
	'^1 change point in 4 series over 30 runs' "$RUN_DIR/out"
$BB changes --json "$F"/synth-*.json >"$RUN_DIR/list.json"
check_eq "changes --json FILE...: the same point" "$(jq -r \
	'[.runs, .series, (.changes | length), .changes[0].run,
	  .changes[0].previous_run, .changes[0].figure, .changes[0].worse] |
	 join(" ")' "$RUN_DIR/list.json")" "30 4 1 synth-21 synth-20 thr true"
check "  its before and after as the files' means (50000, 43000 +-2 %), p 1/200" \
	jq -e '.changes[0].before > 49000 and .changes[0].before < 51000 and
	 .changes[0].after > 42000 and .changes[0].after < 44000 and
	 .changes[0].p <= 0.005' "$RUN_DIR/list.json"
$BB changes --json --test ttest --alpha 0.001 "$F" >"$RUN_DIR/tt.json"
check_eq "Otava's t-test finds the same one run, p < 1e-9" "$(jq -r \
	'[.test, (.changes | length), .changes[0].run, .changes[0].p < 1e-9]
	 | join(" ")' "$RUN_DIR/tt.json")" "ttest 1 synth-21 true"
$BB changes --json --seed 7 "$F" >"$RUN_DIR/perm.json"
$BB changes --json --seed 7 "$F" >"$RUN_DIR/perm2.json"
check "the permutation test is seeded: the same output twice" cmp -s \
	"$RUN_DIR/perm.json" "$RUN_DIR/perm2.json"
check_eq "the first twenty runs alone: no change point" "$($BB changes \
	--json "$F"/synth-0*.json "$F"/synth-1*.json "$F/synth-20.json" |
	jq '.changes | length')" 0
printf '{"schema": "benchboot.result/1", "id": ' >"$F/junk.json"
$BB changes "$F" >"$RUN_DIR/out2" 2>"$RUN_DIR/err2"
check_eq "a truncated file in the directory: still exit 0" "$?" 0
check "  said on stderr, skipped" grep -q 'skipped: .*junk.json' \
	"$RUN_DIR/err2"
check "  the point still found" grep -q ': run synth-21 ' "$RUN_DIR/out2"
rm -f "$F/junk.json"
$BB changes >/dev/null 2>&1
check_eq "no file and no --db: usage, exit 2" "$?" 2
$BB changes --test bogus "$F" >/dev/null 2>&1
check_eq "--test bogus: exit 2" "$?" 2
$BB changes --test permutation --alpha 0.001 --permutations 99 "$F" \
	>/dev/null 2>"$RUN_DIR/err3"
check_eq "99 permutations cannot reach alpha 0.001: exit 2" "$?" 2
check "  it says how many would" grep -q 'give at least 1000' "$RUN_DIR/err3"

# --- through a collector on MariaDB ------------------------------------------------
if ! collect_db_start "$RUN_DIR"; then
	not_ok "mariadb starts"
	tap_done
	exit
fi
PORT=$(free_port)
U=http://127.0.0.1:$PORT
$BB collect $CU --dir "$D" --listen 127.0.0.1:$PORT $DB --db-retry 1s \
	>"$RUN_DIR/console" 2>"$RUN_DIR/log" &
SERVER_PIDS="$SERVER_PIDS $!"
check "collector up" wait_for 10 curl -s -o /dev/null $U/
runs() { [ "$($M -e 'SELECT COUNT(*) FROM bb_runs')" = "$1" ]; }
codes=
for i in $(seq 1 30); do
	f=$F/synth-$(printf %02d "$i").json
	codes="$codes$(curl -s -o /dev/null -w '%{http_code}' -X PUT \
		--data-binary @"$f" "$U/results/$(jq -r .id "$f").json")"
	# One at a time, indexed in order: each upload's pass sees the
	# history before it.
	wait_for 10 runs "$i"
done
check_eq "thirty uploads stored" "$codes" "$(printf '201%.0s' $(seq 30))"
check "all thirty indexed" runs 30
check_eq "schema version 3 recorded" "$($M -e \
	'SELECT MAX(version) FROM bb_schema')" 3
check_eq "the console names one new change point" \
	"$(grep -c 'CHANGE POINT' "$RUN_DIR/console")" 1
found=$(sed -n 's/.*CHANGE POINT \(synth-[0-9]*\) synth v2 http-static\/c2 http throughput\/s: .* from run synth-21 on$/\1/p' \
	"$RUN_DIR/console")
check "  found with an upload after run 21 (three runs of the new level): $found" \
	test -n "$found" -a "$found" \> synth-21 -a "$found" \< synth-26
check_eq "bb_change_points holds that one row" "$($M -e "SELECT CONCAT_WS(' ',
	run_id, prev_run, step, workload, figure, worse, found_with)
	FROM bb_change_points")" "synth-21 synth-20 http-static/c2 http thr 1 $found"
check "  what changed is kept with it (the kernel row)" sh -c "$M -e \
	'SELECT changed FROM bb_change_points' | grep -q 'server.kernel: .* -> Linux 6.6 <b>evil</b>'"
$BB changes --json $DB >"$RUN_DIR/db.json" 2>"$RUN_DIR/db.err"
check_eq "changes --db: exit 0" "$?" 0
check_eq "  the same point as from the files" "$(jq -r \
	'[.runs, .series, (.changes | length), .changes[0].run,
	  .changes[0].previous_run] | join(" ")' "$RUN_DIR/db.json")" \
	"30 4 1 synth-21 synth-20"
check_eq "  the same before and after (to 1e-6)" "$(jq -r \
	'.changes[0] | [.before, .after] | map(. * 1e6 | round) |
	 join(" ")' "$RUN_DIR/db.json")" "$(jq -r '.changes[0] |
	 [.before, .after] | map(. * 1e6 | round) | join(" ")' \
	"$RUN_DIR/list.json")"
check "  and what changed, read back from bb_hosts" jq -e \
	'.changes[0].changed | any(test("^server.kernel: .* -> Linux 6.6 <b>evil</b>$"))' \
	"$RUN_DIR/db.json"
curl -s -o "$RUN_DIR/trend" "$U/ui/trend?suite=synth&version=2"
check_eq "the trend page marks one point" "$(grep -o '<g class="cp">' \
	"$RUN_DIR/trend" | wc -l)" 1
check "  titled with its run" grep -q 'change point at synth-21: image' \
	"$RUN_DIR/trend"
check "  and lists it with what changed, escaped" sh -c "grep -q \
	'Linux 6.6 &lt;b&gt;evil&lt;/b&gt;' '$RUN_DIR/trend' &&
	! grep -q '<b>evil' '$RUN_DIR/trend'"
if command -v chromium >/dev/null; then
	# The page as a browser builds it (fresh profile, loopback only):
	# the mark is in the chart's SVG, not only in the text.
	_prof=$(mktemp -d "$RUN_DIR/chromium.XXXXXX")
	timeout -k 5 60 chromium --headless --no-sandbox --disable-gpu \
		--disable-background-networking --disable-component-update \
		--disable-sync --no-first-run --disable-extensions \
		--host-resolver-rules='MAP * ~NOTFOUND, EXCLUDE 127.0.0.1' \
		--user-data-dir="$_prof" --dump-dom \
		"$U/ui/trend?suite=synth&version=2" >"$RUN_DIR/trend.dom" \
		2>/dev/null
	rm -rf "$_prof"
	check "Chromium: the mark is inside a chart's <svg>" sh -c "tr -d '\n' \
		<'$RUN_DIR/trend.dom' | grep -q '<svg[^>]*>.*<g class=\"cp\"><title>change point at synth-21: .*</g>.*</svg>'"
	check "  and the table lists synth-21, escaped" sh -c "grep -q \
		'Linux 6.6 &lt;b&gt;evil&lt;/b&gt;' '$RUN_DIR/trend.dom' &&
		! grep -q '<b>evil' '$RUN_DIR/trend.dom'"
else
	skip "Chromium: chromium is not installed"
fi
$M -e "SELECT run_id, found_with FROM bb_change_points" >"$RUN_DIR/before"
$BB collect $CU --dir "$D" $DB --reindex >"$RUN_DIR/reindex.out" \
	2>"$RUN_DIR/reindex.log"
check_eq "--reindex: exit 0" "$?" 0
$M -e "SELECT run_id, found_with FROM bb_change_points" >"$RUN_DIR/after"
check "  the same change point, found with the same upload" cmp -s \
	"$RUN_DIR/before" "$RUN_DIR/after"
tap_done
