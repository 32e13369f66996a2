#!/bin/sh
# http-vs-wrk.sh [SECONDS] [REPEATS]: `benchboot http` beside Debian's wrk
# on one nginx serving a 4050-byte file on 127.0.0.1 (nginx pinned to
# CPU 0, the client to CPU 1), runs alternating, medians of REPEATS (5).
# Figures: client CPU per request (user + system from getrusage, via
# /usr/bin/time, so both tools are measured the same way), requests/s,
# requests counted by nginx's stub_status beside the client's count, and
# nginx's own CPU per request (its worker's /proc/PID/stat): what a
# client's way of sending and waking costs the server.
# "benchboot-nb" is benchboot with --no-batch (a wait per answer, the
# loop before issue 19's nap), run in the same alternation.
# Targets (issue 19): nginx's requests/s >= wrk's, client CPU/request
# <= 0.75 x wrk's unpipelined and <= 0.8 x at --pipeline 8; --rate
# holds the asked rate within 1 %.
# BENCHBOOT_B=PATH: a second benchboot (say, the build before a change)
# run in the same alternation as "benchboot-b", so that both see the same
# machine noise; its rows follow benchboot's.
# Not a test: the figures depend on the machine and on what else runs.
set -u
secs=${1:-5}
reps=${2:-5}
conns=${CONNS:-32}
top=$(cd "$(dirname "$0")/../.." && pwd)
bb=${BENCHBOOT:-$top/out/x86_64/bin/benchboot}
[ -x "$bb" ] || { echo "no benchboot at $bb (set BENCHBOOT)" >&2; exit 2; }
bbb=${BENCHBOOT_B:-}
tools="benchboot benchboot-nb${bbb:+ benchboot-b} wrk"
[ -z "$bbb" ] || [ -x "$bbb" ] || { echo "no benchboot at $bbb" >&2; exit 2; }
for t in wrk nginx taskset jq /usr/bin/time; do
	command -v $t >/dev/null || { echo "needs $t" >&2; exit 2; }
done
[ "$(nproc)" -ge 2 ] || { echo "needs 2 CPUs" >&2; exit 2; }

. "$top/payload/bench/bench-servers.sh"
bench_nginx

# one TOOL PIPELINE: one run; appends "cpu_us_per_req req_per_s
# client_reqs nginx_reqs nginx_req_per_s nginx_cpu_us_per_req" to
# $RUN_DIR/TOOL.PIPELINE.
one() {
	s0=$(nginx_requests)
	k0=$(ticks)
	if [ "$1" != wrk ]; then
		b=$bb
		[ "$1" = benchboot-b ] && b=$bbb
		extra=
		[ "$1" = benchboot-nb ] && extra=--no-batch
		[ "$2" -gt 1 ] && extra="$extra --pipeline $2"
		/usr/bin/time -f "%U %S" -o "$RUN_DIR/time" taskset -c 1 \
			"$b" http --json -t 1 -c "$conns" -d "${secs}s" \
			$extra \
			"$url" >"$RUN_DIR/out.json"
		n=$(jq .counters.requests "$RUN_DIR/out.json")
		el=$(jq .elapsed_s "$RUN_DIR/out.json")
	else
		extra=
		[ "$2" -gt 1 ] && extra="-s $LUA8"
		/usr/bin/time -f "%U %S" -o "$RUN_DIR/time" taskset -c 1 \
			wrk -t 1 -c "$conns" -d "${secs}s" $extra "$url" \
			>"$RUN_DIR/out.txt"
		n=$(awk '/requests in/ { print $1 }' "$RUN_DIR/out.txt")
		el=$(awk '/requests in/ { sub(/s,$/, "", $4); print $4 }' \
			"$RUN_DIR/out.txt")
	fi
	k1=$(ticks)
	s1=$(nginx_requests)
	read -r u s <"$RUN_DIR/time"
	echo "$u $s $n $el $((s1 - s0 - 1)) $((k1 - k0))" | awk -v hz="$hz" '{
		printf "%.3f %.0f %d %d %.0f %.3f\n", ($1 + $2) * 1e6 / $3,
			$3 / $4, $3, $5, $5 / $4, $6 * 1e6 / hz / $5 }' \
		>>"$RUN_DIR/$1.$2"
}

# median FILE COLUMN
median() {
	sort -n -k"$2" "$1" | awk -v c="$2" '{ v[NR] = $c }
		END { print (NR % 2) ? v[(NR + 1) / 2] :
			(v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

echo "# http-vs-wrk: nginx on CPU 0, client on CPU 1, -t 1 -c $conns," \
	"${secs}s runs, median of $reps, $(date -u +%FT%TZ)"
echo "# load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
for p in 1 8; do
	i=0
	while [ $i -lt "$reps" ]; do
		for t in $tools; do
			one $t $p
		done
		i=$((i + 1))
	done
done
printf "%-11s %-12s %10s %8s %11s %11s %8s %8s\n" case tool \
	"cpu us/req" "req/s" "client reqs" "nginx reqs" "nginx/s" "ngx us/r"
for p in 1 8; do
	for t in $tools; do
		f=$RUN_DIR/$t.$p
		printf "%-11s %-12s %10s %8s %11s %11s %8s %8s\n" \
			"pipeline $p" $t \
			"$(median "$f" 1)" "$(median "$f" 2)" \
			"$(median "$f" 3)" "$(median "$f" 4)" \
			"$(median "$f" 5)" "$(median "$f" 6)"
	done
	awk -v a="$(median "$RUN_DIR/benchboot.$p" 1)" \
	    -v b="$(median "$RUN_DIR/wrk.$p" 1)" \
	    -v r="$(median "$RUN_DIR/benchboot.$p" 5)" \
	    -v q="$(median "$RUN_DIR/wrk.$p" 5)" \
	    -v x="$(median "$RUN_DIR/benchboot.$p" 6)" \
	    -v y="$(median "$RUN_DIR/wrk.$p" 6)" -v p=$p 'BEGIN {
		printf "  pipeline %d: benchboot/wrk cpu per request %.2f," \
			" nginx req/s %.2f, nginx cpu per request %.2f\n",
			p, a / b, r / q, x / y }'
	[ -z "$bbb" ] || awk -v a="$(median "$RUN_DIR/benchboot.$p" 1)" \
	    -v b="$(median "$RUN_DIR/benchboot-b.$p" 1)" \
	    -v r="$(median "$RUN_DIR/benchboot.$p" 2)" \
	    -v q="$(median "$RUN_DIR/benchboot-b.$p" 2)" -v p=$p 'BEGIN {
		printf "  pipeline %d: benchboot/benchboot-b cpu per request" \
			" %.3f, req/s %.3f\n", p, a / b, r / q }'
done
echo "  (targets: cpu ratio <= 0.75 at pipeline 1, <= 0.80 at 8;" \
	"nginx req/s ratio >= 1)"
echo "# per-run rows (cpu us/req, req/s, client reqs, nginx reqs, nginx/s,"
echo "# nginx cpu us/req):"
for f in "$RUN_DIR"/benchboot.* "$RUN_DIR"/benchboot-nb.* \
    "$RUN_DIR"/benchboot-b.* "$RUN_DIR"/wrk.*; do
	[ -f "$f" ] || continue
	echo "#   ${f##*/}: $(tr '\n' ';' <"$f")"
done

# Open loop: does --rate hold the asked rate?
rate=${RATE:-5000}
for b in "$bb" $bbb; do
	s0=$(nginx_requests)
	taskset -c 1 "$b" http --json -t 1 -c "$conns" -d "${secs}s" \
		--rate "$rate" "$url" >"$RUN_DIR/rate.json"
	s1=$(nginx_requests)
	# "rate:" as before; "benchboot-b rate:" for the second binary.
	label=
	[ "$b" = "$bb" ] || label="benchboot-b "
	jq -r --arg r "$rate" --arg n $((s1 - s0 - 1)) --arg l "$label" '
		(.counters.requests / .elapsed_s) as $got |
		"\($l)rate: asked \($r)/s, done \($got | floor)/s " +
		"(\((($got / ($r | tonumber) - 1) * 100) * 100 | round / 100) %), " +
		"p50 \(.latency.p50 / 1000 | floor) us, p99 " +
		"\(.latency.p99 / 1000 | floor) us, client \(.counters.requests) " +
		"nginx \($n)"' "$RUN_DIR/rate.json"
done
echo "# load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
