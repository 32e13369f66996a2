#!/bin/sh
# 636_collect_quarantine.sh: no document takes `collect --db` down: crafted
# uploads (empty merged records, statistics without names) leave it
# answering; a document it stopped on while indexing (a crash, a kill)
# is set aside with its reason at the next start instead of stopping it
# again; the rest of the store is indexed as before.
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
PORT=$(free_port)
U=http://127.0.0.1:$PORT
start() {
	$BB collect $CU --dir "$D" --listen 127.0.0.1:$PORT \
		--db "mysql://bench@127.0.0.1:$MARIADB_PORT/bench" \
		--db-password-file "$RUN_DIR/pw" --db-retry 1s \
		>>"$RUN_DIR/console" 2>>"$RUN_DIR/log" &
	COLLECT=$!
	SERVER_PIDS="$SERVER_PIDS $COLLECT"
	wait_for 10 curl -s -o /dev/null $U/
}
put() {
	curl -s -o /dev/null -w '%{http_code}' -X PUT --data-binary @"$1" \
		"$U/results/$(jq -r .id "$1").json"
}
check "collector up" start

# Table: name, jq program that makes the crafted document from run-a.
n=0
while IFS='|' read -r name prog; do
	n=$((n + 1))
	f=$RUN_DIR/crafted$n.json
	jq ".id = \"crafted-$n-0000000000000000\" | $prog" "$FIX/run-a.json" \
		>"$f"
	code=$(put "$f")
	check "$name: answered ($code)" test "$code" -ge 200
	check "$name: the collector still answers" curl -sf -o /dev/null $U/
done <<'TABLE'
an incomplete repeat with merged [{}] and stats {"x":{}}|.steps[0].repeats[0].complete = false | .steps[0].repeats[0].merged = [{}] | .steps[0].stats = {"x": {}}
a step's merged [{}]|.steps[0].merged = [{}]
stats of a workload with no figures|.steps[0].stats = {"x": {}, "http": {}}
a repeat's merged null|.steps[0].repeats[0].merged = null
TABLE
check "every crafted document left the collector alive" kill -0 "$COLLECT"

# The run list shows an image digest short, whole in its title, escaped.
dg=sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef
jq --arg d "$dg" '.id = "digest-0000000000000000" |
	.environment.hosts[].image_digest = $d' "$FIX/run-a.json" \
	>"$RUN_DIR/digest.json"
check_eq "a run with an image digest: 201" "$(put "$RUN_DIR/digest.json")" 201
check "  indexed" wait_for 10 sh -c "curl -s $U/ui/ | grep -q digest-0000"
curl -s "$U/ui/" >"$RUN_DIR/index.html"
check "  the list shows sha256: and 12 digits, the whole digest as title" \
	grep -q "<span title=\"$dg\">sha256:0123456789ab&hellip;</span>" \
	"$RUN_DIR/index.html"
check "  the full digest is not printed as cell text" sh -c \
	"! grep -q '>$dg<' '$RUN_DIR/index.html'"

# A document the collector stopped on while indexing: the marker names it
# at the next start, and it is set aside before the catch-up reads it.
kill "$COLLECT"
wait "$COLLECT" 2>/dev/null
jq '.id = "stopper-0000000000000000"' "$FIX/run-a.json" \
	>"$D/stopper-0000000000000000.json"
jq '.id = "fine-00000000000000000000"' "$FIX/run-b.json" \
	>"$D/fine-00000000000000000000.json"
printf 'stopper-0000000000000000' >"$D/.indexing"
check "collector up again" start
check "the document it stopped on is quarantined" \
	test -f "$D/quarantine/stopper-0000000000000000.json"
check "with its reason" grep -q "stopped while indexing" \
	"$D/quarantine/stopper-0000000000000000.reason"
check "and no longer among the results" \
	test ! -e "$D/stopper-0000000000000000.json"
check "the marker is gone" test ! -e "$D/.indexing"
check "the other waiting document is indexed" wait_for 10 sh -c \
	"[ \"\$($M -e \"SELECT COUNT(*) FROM bb_runs WHERE id =
	'fine-00000000000000000000'\")\" = 1 ]"
check "the console says so" grep -q \
	"stopper-0000000000000000: quarantined in" "$RUN_DIR/console" \
	"$RUN_DIR/log"
tap_done
