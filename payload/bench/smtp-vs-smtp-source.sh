#!/bin/sh
# smtp-vs-smtp-source.sh [MAILS]: `benchboot smtp` beside Postfix's
# smtp-source, both sending to Postfix's smtp-sink on 127.0.0.1 (sink
# pinned to CPU 0, the client to CPU 1), 16 sessions, with sessions
# reused (smtp-source -d) and one session per message.  Both send MAILS
# messages (default 20000; a quarter for new sessions) of our default
# message's size (smtp-source -l).  Figures: mails/s (the client's wall
# time), client CPU per message (user + system from getrusage, via
# /usr/bin/time, the same for both), and the mails smtp-sink counted.
# smtp-sink offers PIPELINING; we use it, smtp-source does not.
# Targets (issue 5): mails/s >= smtp-source's, CPU/message <= 0.7 x.
# BENCHBOOT_B=PATH: a second benchboot (say, the build before a change)
# run right after benchboot in each case, as "benchboot-b".
# Not a test: the figures depend on the machine and on what else runs.
set -u
mails=${1:-20000}
top=$(cd "$(dirname "$0")/../.." && pwd)
bb=${BENCHBOOT:-$top/out/x86_64/bin/benchboot}
[ -x "$bb" ] || { echo "no benchboot at $bb (set BENCHBOOT)" >&2; exit 2; }
bbb=${BENCHBOOT_B:-}
[ -z "$bbb" ] || [ -x "$bbb" ] || { echo "no benchboot at $bbb" >&2; exit 2; }
for t in smtp-source smtp-sink taskset jq /usr/bin/time; do
	command -v $t >/dev/null || { echo "needs $t" >&2; exit 2; }
done
[ "$(nproc)" -ge 2 ] || { echo "needs 2 CPUs" >&2; exit 2; }

. "$top/payload/bench/bench-servers.sh"
# -c: a running count of delivered mail on stdout, our "server count".
bench_smtp_sink -c
port=$SINK_PORT
sunk() { tr '\r' '\n' <"$RUN_DIR/sink.out" | sed -n 's/.*mesg=//p' | tail -1; }
# Our default message's size on the wire, for smtp-source -l.
"$bb" smtp --json -n 1 --from a@bench.test --to b@sink.test \
	"127.0.0.1:$port" >"$RUN_DIR/size.json"
size=$(jq '.counters.bytes - 3' "$RUN_DIR/size.json")

# one TOOL MODE N: prints "TOOL MODE mails mails/s cpu_s us/mail sunk".
one() {
	m0=$(sunk)
	s=$(date +%s.%N)
	if [ "$1" != smtp-source ]; then
		b=$bb
		[ "$1" = benchboot-b ] && b=$bbb
		extra=
		[ "$2" = new ] && extra=--new-session
		/usr/bin/time -f "%U %S" -o "$RUN_DIR/time" taskset -c 1 \
			"$b" smtp --json -c 16 -n "$3" $extra \
			--from a@bench.test --to b@sink.test \
			"127.0.0.1:$port" >"$RUN_DIR/out.json"
		n=$(jq .counters.mails "$RUN_DIR/out.json")
	else
		extra=
		[ "$2" = reuse ] && extra=-d
		/usr/bin/time -f "%U %S" -o "$RUN_DIR/time" taskset -c 1 \
			smtp-source -s 16 -m "$3" -l "$size" $extra \
			-f a@bench.test -t b@sink.test "127.0.0.1:$port"
		n=$3
	fi
	el=$(echo "$(date +%s.%N) $s" | awk '{print $1 - $2}')
	sleep 0.2
	m1=$(sunk)
	awk -v t="$1" -v m="$2" -v n="$n" -v el="$el" -v k=$((m1 - m0)) \
		'{cpu = $1 + $2; printf "%-12s %-6s %7d %9.0f %7.2f %8.2f %7d\n",
		  t, m, n, n / el, cpu, n ? cpu * 1e6 / n : 0, k}' "$RUN_DIR/time"
}

echo "# smtp vs smtp-source into Postfix smtp-sink: 16 sessions, $size-byte"
echo "# messages, sink CPU 0, client CPU 1."
printf "%-12s %-6s %7s %9s %7s %8s %7s\n" tool mode mails "mails/s" cpu_s \
	"us/mail" sunk
for mode in reuse new; do
	n=$mails
	[ $mode = new ] && n=$((mails / 4))
	for tool in benchboot ${bbb:+benchboot-b} smtp-source; do
		one $tool $mode $n
	done | tee "$RUN_DIR/res.$mode"
	awk -v m=$mode '$1 == "benchboot" {r = $4; c = $6}
		$1 == "smtp-source" {R = $4; C = $6}
		END {printf "# %s: benchboot/smtp-source mails/s %.2f (target" \
			" >= 1), CPU per mail %.2f (target <= 0.7)\n", m,
			R ? r / R : 0, C ? c / C : 0}' "$RUN_DIR/res.$mode"
	[ -z "$bbb" ] || awk -v m=$mode '$1 == "benchboot" {r = $4; c = $6}
		$1 == "benchboot-b" {R = $4; C = $6}
		END {printf "# %s: benchboot/benchboot-b mails/s %.3f, CPU" \
			" per mail %.3f\n", m, R ? r / R : 0, C ? c / C : 0}' \
		"$RUN_DIR/res.$mode"
done
