#!/bin/sh
# 666_report_extremes.sh: numbers a hostile result may carry (1e308,
# 5e-324, -1e308, -0, the largest integer, time stamps at +-1.7e308) in
# the fields the report draws and tabulates: `benchboot report` (terminal,
# CSV, HTML) and `benchboot changes` each end within 5 s, the page stays
# small and its SVG holds no NaN or infinity.  An sql op's seconds at
# 1e308 or 5e-324 made the HTML report's grid loop forever before (the
# log axis's top infinite, its bottom 0).
# harness: parallel
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/servers.sh"
BB="${TARGET_RUN:+$TARGET_RUN }$BENCHBOOT"
FIX=$(cd "$(dirname "$0")/../fixtures/results" && pwd)
W=$RUN_DIR
trap servers_stop EXIT

# set_all KEY VALUE: a jq filter giving every number under KEY VALUE.
set_all() {
	printf '(.. | objects | select(has("%s") and' "$1"
	printf ' (.["%s"] | type == "number")) | .["%s"]) |= %s' "$1" "$1" "$2"
}
# The cases: NAME|jq filter over run-a.json.
while IFS='|' read -r name filter; do
	[ -n "$name" ] || continue
	d=$W/$name
	mkdir -p "$d"
	if ! jq "$filter" "$FIX/run-a.json" >"$d/r.json" 2>"$d/jq.err"; then
		not_ok "$name: fixture built"
		continue
	fi
	timeout 5 $BB report --html "$d/r.html" --csv "$d/r.csv" \
		"$d/r.json" >"$d/r.txt" 2>"$d/r.err"
	rc=$?
	case $rc in
	0 | 1) ok "$name: report ends (status $rc)" ;;
	*) not_ok "$name: report ends (status $rc: 124 is the 5 s limit)" ;;
	esac
	sz=$(cat "$d/r.html" 2>/dev/null | wc -c)
	check "$name: the page is under 2 MB ($sz bytes)" test "$sz" -lt 2000000
	bad=$(grep -oiE '[ML"]-?(nan|inf)' "$d/r.html" 2>/dev/null | wc -l)
	check_eq "$name: no NaN or infinity in the page's SVG" "$bad" 0
	timeout 5 $BB changes "$d" >"$d/c.txt" 2>"$d/c.err"
	rc=$?
	case $rc in
	0 | 1) ok "$name: changes ends (status $rc)" ;;
	*) not_ok "$name: changes ends (status $rc)" ;;
	esac
done <<EOF
op-seconds-1e308|$(set_all seconds 1e308)
op-seconds-5e-324|$(set_all seconds 5e-324)
op-seconds--1e308|$(set_all seconds -1e308)
median-1e308|$(set_all median 1e308)
p99-5e-324|$(set_all p99 5e-324)
mean--0|$(set_all mean -0)
requests-max-int|$(set_all requests 9223372036854775807)
sampler-cpu-1e308|$(set_all cpu_user_pct 1e308)
time-stamps-1.7e308|[paths(objects | has("realtime_ns"))] as \$p |\
 setpath(\$p[0] + ["realtime_ns"]; -1.7e308) |\
 setpath(\$p[-1] + ["realtime_ns"]; 1.7e308)
EOF
tap_done
