#!/bin/sh
# probe-sample-overhead.sh [SECONDS]: what `benchboot sample` (1 Hz) and
# `benchboot probe` (default rate) cost, in % of one CPU, beside the peer
# tools doing the same job: procps `vmstat 1` for the sampler, rt-tests
# `cyclictest -i 1000` (a 1 kHz clock_nanosleep loop at normal priority)
# for the probe.  CPU time is the kernel's own per-thread run time
# (/proc/PID/task/*/schedstat, nanoseconds), not tick-sampled.
# Not a test: figures depend on the machine (wake-ups are dear in a VM).
set -u
secs=${1:-15}
top=$(cd "$(dirname "$0")/../.." && pwd)
bb=${BENCHBOOT:-$top/out/x86_64/bin/benchboot}
[ -x "$bb" ] || { echo "no benchboot at $bb (set BENCHBOOT)" >&2; exit 2; }

# runtime_ns PID: run time of all its threads so far.
runtime_ns() {
	cat /proc/"$1"/task/*/schedstat 2>/dev/null |
		awk '{ s += $1 } END { printf "%.0f", s }'
}

# measure LABEL CMD...: starts CMD, skips its first second, then reports
# its CPU over $secs seconds of wall time; CMD must outlive that.
measure() {
	label=$1
	shift
	"$@" >/dev/null 2>&1 &
	pid=$!
	sleep 1
	a=$(runtime_ns $pid)
	t0=$(date +%s%N)
	sleep "$secs"
	b=$(runtime_ns $pid)
	t1=$(date +%s%N)
	kill $pid 2>/dev/null
	wait $pid 2>/dev/null
	awk -v l="$label" -v a="$a" -v b="$b" -v t0="$t0" -v t1="$t1" \
		'BEGIN { printf "  %-46s %7.3f %% of one CPU\n", l,
			 100 * (b - a) / (t1 - t0) }'
}

n=$((secs + 3))
echo "sampler, 1 Hz, ${secs} s:"
measure "benchboot sample" "$bb" sample --count $n
measure "benchboot sample --json" "$bb" sample --count $n --json
measure "benchboot sample --proc apache2,mariadbd,master" \
	"$bb" sample --count $n --proc apache2,mariadbd,master
measure "vmstat 1 (procps, peer)" vmstat 1 $n
echo "probe, 1000 units/s, ${secs} s:"
measure "benchboot probe" "$bb" probe --count $n
measure "benchboot probe --work 0 (wake-ups only)" "$bb" probe --count $n \
	--work 0
if command -v cyclictest >/dev/null; then
	measure "cyclictest -i 1000 --policy=other (peer)" \
		cyclictest -q -i 1000 -D $n --policy=other -p 0 -t 1 \
		--default-system
else
	echo "  cyclictest (rt-tests) not installed: no peer figure"
fi
