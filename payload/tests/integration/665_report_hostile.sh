#!/bin/sh
# 665_report_hostile.sh: `benchboot report` on a hostile result: every
# string the report shows (ids, suite, step names, workload and metric
# keys, SQL operation names, host facts and extra keys, events, the skip
# reason) carries <script>, "><img onerror=...>, </svg><script>,
# javascript: links, an iframe srcdoc, terminal escapes and spreadsheet
# formulas (fixtures/results/hostile.jq over run-a.json).  The page is
# loaded in headless Chromium: nothing runs (the payloads would set
# document.title or a body attribute), no element is injected, and the
# charts and tables still render; the CSV has no cell a spreadsheet would
# evaluate; the terminal gets no control character.
# harness: parallel
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/servers.sh"
BB="${TARGET_RUN:+$TARGET_RUN }$BENCHBOOT"
FIX=$(cd "$(dirname "$0")/../fixtures/results" && pwd)
W=$RUN_DIR
trap servers_stop EXIT

# The file name is shown too: make it hostile as well.
H="$W/h<b>'x.json"
jq -f "$FIX/hostile.jq" "$FIX/run-a.json" >"$H"
check "hostile fixture built" test -s "$H"
$BB report --html "$W/h.html" --csv "$W/h.csv" "$H" >"$W/h.txt" 2>"$W/h.err"
check_eq "report accepts it: exit 0" "$?" 0
# Every field really is shown somewhere (else the test proves nothing).
missing=
for n in $(seq 1 21); do
	cat "$W/h.html" "$W/h.csv" "$W/h.txt" | grep -q "F$n[^0-9]" ||
		missing="$missing F$n"
done
check_eq "all 21 hostile fields appear in the outputs" "$missing" ""
check_eq "terminal: no control character but newline" \
	"$(tr -d '\n' <"$W/h.txt" | tr -d '[:print:]' | LC_ALL=C tr -d '\200-\377' | wc -c)" 0
check_eq "html: no tag from the result (script, img, iframe, a, onload)" \
	"$(grep -Eoc '<(script|img|iframe|a |svg on)' "$W/h.html")" 0
check "html: Content-Security-Policy forbids script" \
	grep -q "Content-Security-Policy\" content=\"default-src 'none'" \
	"$W/h.html"
# CSV: no cell starts with = + - @ TAB CR unless it is a number.
bad=$(python3 - "$W/h.csv" <<'PY'
import csv, sys
n = 0
for row in csv.reader(open(sys.argv[1], newline="")):
    for c in row:
        if c[:1] in ("=", "+", "-", "@", "\t", "\r"):
            try:
                float(c)
            except ValueError:
                n += 1
print(n)
PY
)
check_eq "csv: no formula cell (OWASP: leading ')" "$bad" 0
check "csv: the formula id is kept, prefixed with '" \
	grep -q "^\"'=HYPERLINK(" "$W/h.csv"

if ! command -v chromium >/dev/null 2>&1; then
	skip "chromium not installed (TEST_PACKAGES)"
	tap_done
	exit
fi
# chromium_run OUT ERR ARGS...: as 660_report.sh.
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
# pwned DOM: what a payload that ran or got in would leave in the DOM.
pwned() {
	grep -Eo '<title>PWNED<|<body[^>]*data-pwned|<(script|img|iframe)|<a [^>]*href="javascript|<[a-z]+ [^>]*on(error|load)=' "$1" |
		sort -u | tr '\n' ' '
}
# The detector must be able to fail: the same payload written unescaped.
jq -r '.environment.hosts[0].cpu' "$H" |
	sed 's/^/<!DOCTYPE html><html><head><title>t<\/title><\/head><body>/' \
	>"$W/planted.html"
chromium_run "$W/planted.dom" "$W/planted.err" --dump-dom \
	"file://$W/planted.html"
check "detector catches the payload unescaped: $(pwned "$W/planted.dom")" \
	test -n "$(pwned "$W/planted.dom")"
cp "$H" "$W/h.json"
chromium_run "$W/h.dom" "$W/h.chr" --dump-dom "file://$W/h.html"
check_eq "chromium --dump-dom exit status" "$?" 0
check_eq "nothing ran, nothing injected" "$(pwned "$W/h.dom")" ""
check "title untouched" grep -q '<title>benchboot report</title>' "$W/h.dom"
check_eq "no console message (a CSP violation would log one)" \
	"$(grep -c 'CONSOLE' "$W/h.chr")" 0
nsvg=$(grep -o '<svg' "$W/h.dom" | wc -l)
nws=$(jq '[.steps[] | .step as $s | .stats // {} | keys[] | "\($s) \(.)"]
	| unique | length' "$H")
check "charts still render: $nsvg svg (>= 2 per workload: $nws)" \
	test "$nsvg" -ge $((nws * 2))
check "lines and bars drawn" sh -c "grep -q '<path class=\"line\" stroke=\"[^\"]*\" d=\"M[0-9]' '$W/h.dom' && grep -q '<path class=\"bar\"' '$W/h.dom'"
check "the environment table is there, payload shown as text" \
	grep -q 'F8&lt;/title&gt;&lt;/svg&gt;' "$W/h.dom"
tap_done
