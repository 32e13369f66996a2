#!/bin/sh
# 668_report_pages.sh: the collector's pages in headless Chromium, as a
# lab compares runs (issue 32): 36 generated results of one history
# (hourly, the server's kernel and microcode newer from run 19 on)
# uploaded to a collector on a real MariaDB; on the trend page every x
# label's box is measured in the page (a copy of the served DOM with a
# script of ours: the page itself runs none) and no two overlap, and a
# planted copy with its labels piled up is caught; the run page shows the
# system table, and /ui/compare of runs 1 and 36 lists the rows that
# differ first and marked.
# harness: parallel
set -u
. "$(dirname "$0")/../lib/tap.sh"
if [ -n "${TARGET_RUN:-}" ]; then
	echo "1..0 # SKIP arch-independent (pages and SQL): runs for the host ARCH only"
	exit 0
fi
if ! command -v chromium >/dev/null; then
	echo "1..0 # SKIP chromium not installed (TEST_PACKAGES)"
	exit 0
fi
. "$(dirname "$0")/../lib/servers.sh"
trap servers_stop EXIT
BB=$BENCHBOOT
FIX=$TOP/payload/tests/fixtures/results
W=$RUN_DIR
F=$W/files
mkdir -p "$F"

if ! collect_db_start "$W"; then
	not_ok "mariadb starts"
	tap_done
	exit
fi
PORT=$(free_port)
U=http://127.0.0.1:$PORT
$BB collect $CU --dir "$D" --listen 127.0.0.1:$PORT $DB --db-retry 1s \
	>"$W/console" 2>"$W/log" &
SERVER_PIDS="$SERVER_PIDS $!"
check "collector up" wait_for 10 curl -s -o /dev/null $U/

# gen I: run I, an hour after run I-1; every host with the system a QEMU
# guest reports, the server's kernel and microcode newer from run 19 on.
SYS='{"firmware": {"sys_vendor": "QEMU", "product_name": "Standard PC (i440FX + PIIX, 1996)",
 "bios_vendor": "SeaBIOS", "bios_version": "1.16.3-debian-1.16.3-2", "bios_date": "04/01/2014"},
 "cpu": {"model": "QEMU Virtual CPU version 2.5+", "microcode": "0x1", "threads": 2},
 "memory": {"total_kb": 2030000, "slots": 1, "dimms": [{"locator": "DIMM 0", "size_mb": 2048, "type": "RAM"}]},
 "kernel": {"release": "6.1.0-57-amd64", "clocksource": "tsc"}}'
jq -c --argjson s "$SYS" '.steps |= .[0:2] | .environment.hosts[].system = $s' \
	"$FIX/run-a.json" >"$W/base.json"
gen() {
	jq -c --arg id "synth-$(printf %02d "$1")" \
		--arg c "$(date -u -d "2026-12-01 06:00 UTC + $(($1 - 1)) hours" \
			+%Y-%m-%dT%H:%M:%SZ)" \
		--argjson new "$([ "$1" -ge 19 ] && echo true || echo false)" '
		.id = $id | .created = $c | .suite.name = "synth" |
		if $new then (.environment.hosts[] |
			select(.role == "server") | .system) |=
			(.kernel.release = "6.12.9-amd64" |
			 .cpu.microcode = "0x2") else . end' \
		"$W/base.json" >"$F/synth-$(printf %02d "$1").json"
}
codes=
for i in $(seq 1 36); do
	gen "$i"
	codes="$codes$(curl -s -o /dev/null -w '%{http_code}' -X PUT \
		--data-binary @"$F/synth-$(printf %02d "$i").json" \
		"$U/results/synth-$(printf %02d "$i").json")"
done
check_eq "36 results stored" "$codes" "$(printf '201%.0s' $(seq 36))"
check "  and indexed" wait_for 30 sh -c \
	"[ \"\$($M -e 'SELECT COUNT(*) FROM bb_runs')\" = 36 ]"

# chromium_dom URL OUT: the DOM headless Chromium builds from URL (fresh
# profile; no name resolves, only 127.0.0.1 is reached).
chromium_dom() {
	_prof=$(mktemp -d "$W/chromium.XXXXXX")
	timeout -k 5 60 chromium --headless --no-sandbox --disable-gpu \
		--disable-background-networking --disable-component-update \
		--disable-sync --no-first-run --disable-extensions \
		--host-resolver-rules='MAP * ~NOTFOUND, EXCLUDE 127.0.0.1' \
		--user-data-dir="$_prof" --enable-logging=stderr --v=0 \
		--window-size=1280,1024 --dump-dom "$1" >"$2" 2>"$2.err"
	_rc=$?
	rm -rf "$_prof"
	return $_rc
}

# measure DOM OUT: DOM (a served page's) without its CSP and with our
# script, which writes into <body data-m>: the x labels drawn, pairs of
# neighbours whose boxes overlap in a chart, the widest character in
# pixels.
cat >"$W/measure.js" <<'JS'
var n = 0, over = 0, cw = 0;
document.querySelectorAll("svg").forEach(function (svg) {
	var b = [];
	svg.querySelectorAll("text.xt").forEach(function (t) {
		var r = t.getBBox();
		n++;
		if (t.textContent.length)
			cw = Math.max(cw, r.width / t.textContent.length);
		b.push(r);
	});
	b.sort(function (p, q) { return p.x - q.x; });
	for (var i = 1; i < b.length; i++)
		if (b[i].x < b[i - 1].x + b[i - 1].width)
			over++;
});
document.body.setAttribute("data-m", n + " " + over + " " + cw.toFixed(2));
JS
measure() {
	sed 's|<meta http-equiv="Content-Security-Policy"[^>]*>||' "$1" |
		sed "s|</body>|<script>$(tr '\n' ' ' <"$W/measure.js")</script></body>|" \
		>"$1.m.html"
	chromium_dom "file://$1.m.html" "$1.m.dom"
	grep -o 'data-m="[^"]*"' "$1.m.dom" | sed 's/data-m="//; s/"$//'
}

# --- the trend: x labels apart ------------------------------------------
chromium_dom "$U/ui/trend?suite=synth&version=2" "$W/trend.dom"
pts=$(tr -d '\n' <"$W/trend.dom" | sed 's|</figure>|\n|g' | head -1 |
	grep -o '<circle class="pt"' | wc -l)
check_eq "trend: the first chart has a point per run" "$pts" 36
set -- $(measure "$W/trend.dom")
check "trend: x labels drawn (${1:-?} in all, more than one per chart)" \
	test "${1:-0}" -gt 8
check_eq "trend: no two x labels overlap in Chromium" "${2:-?}" 0
check "trend: a label's character at most 7 px wide, as the thinning assumes (${3:-?})" \
	awk -v w="${3:-99}" 'BEGIN { exit !(w > 0 && w <= 7) }'
# The check must be able to fail: every label of a copy at one x.
sed 's|\(<text class="xt" x="\)[0-9.]*"|\1100"|g' "$W/trend.dom" \
	>"$W/piled.dom"
set -- $(measure "$W/piled.dom")
check "trend: labels piled up in a planted copy are caught (${2:-?} overlaps)" \
	test "${2:-0}" -gt 0

# --- the run page and the comparison: the system table ------------------
chromium_dom "$U/ui/run?id=synth-01" "$W/run.dom"
check "run page: the system table, QEMU's strings in one cell" sh -c \
	"tr -d '\n' <'$W/run.dom' | grep -q '<table class=\"sys\">.*<th>System</th><td colspan=\"[0-9]*\">QEMU Standard PC (i440FX + PIIX, 1996)</td>'"
chromium_dom "$U/ui/compare?a=synth-01&b=synth-36" "$W/cmp.dom"
order=$(tr -d '\n' <"$W/cmp.dom" | sed 's|.*<table class="sys">||; s|</table>.*||' |
	sed 's|<tr|\n<tr|g' |
	sed -n 's|^<tr class="differs"><th>.*</span> \([^<]*\)</th>.*|D:\1|p; s|^<tr><th>\([^<][^<]*\)</th>.*|S:\1|p' |
	tr '\n' ' ')
check "compare: the rows that differ (the server's) first and marked ($(echo "$order" | cut -c1-50)...)" \
	sh -c "echo '$order' | grep -Eq '^D:Microcode D:Kernel S:System '"
check "compare: the summary says 2 rows differ" grep -q '2 rows differ' \
	"$W/cmp.dom"
check_eq "no console message on the pages" \
	"$(cat "$W"/trend.dom.err "$W"/run.dom.err "$W"/cmp.dom.err |
	   grep -c CONSOLE)" 0
tap_done
