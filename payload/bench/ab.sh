#!/bin/sh
# ab.sh WORKLOAD BIN_A BIN_B [PAIRS] [SECS]: two benchboot binaries (say,
# after and before a change) on the same workload and server, in ABBA
# order (A B, then B A, ...) so that neither always runs first after the
# other, PAIRS times (default 6), SECS per run (default 3).  WORKLOAD:
# http (nginx, 4050-byte file, -t 1 -c 32), sql (MariaDB point-select,
# -t 1 -c 16) or smtp (Postfix's smtp-sink, -c 16, sessions reused, 5000
# mails a run).  Server on CPU 0, client on CPU 1.  Prints every run and
# the medians: client CPU per operation (user + system, /usr/bin/time)
# and operations/s, and A/B of each.
# Not a test: the figures depend on the machine and on what else runs.
set -u
wl=${1:?usage: ab.sh http|sql|smtp BIN_A BIN_B [PAIRS] [SECS]}
A=${2:?BIN_A} B=${3:?BIN_B}
pairs=${4:-6}
secs=${5:-3}
top=$(cd "$(dirname "$0")/../.." && pwd)
for b in "$A" "$B"; do
	[ -x "$b" ] || { echo "no benchboot at $b" >&2; exit 2; }
done
for t in taskset jq /usr/bin/time; do
	command -v $t >/dev/null || { echo "needs $t" >&2; exit 2; }
done
[ "$(nproc)" -ge 2 ] || { echo "needs 2 CPUs" >&2; exit 2; }

. "$top/payload/bench/bench-servers.sh"

case $wl in
http)
	bench_nginx
	set -- http -t 1 -c 32 -d "${secs}s" "$url"
	ops=.counters.requests
	;;
sql)
	bench_mariadb 10000
	set -- sql --workload=point-select -t 1 -c 16 -d "${secs}s" \
		--rows 10000 --host 127.0.0.1 --port "$MARIADB_PORT" \
		--user bench --password bench --db bench
	ops=.counters.statements
	;;
smtp)
	bench_smtp_sink
	set -- smtp -c 16 -n 5000 --from a@bench.test --to b@sink.test \
		"127.0.0.1:$SINK_PORT"
	ops=.counters.mails
	;;
*)
	echo "ab.sh: workload '$wl': want http, sql or smtp" >&2
	exit 2
	;;
esac

# one A|B ARGS...: appends "cpu_us_per_op ops_per_s" to $RUN_DIR/A or B.
one() {
	which=$1
	shift
	bin=$A
	[ "$which" = B ] && bin=$B
	/usr/bin/time -f "%U %S" -o "$RUN_DIR/time" taskset -c 1 \
		"$bin" "$@" --json >"$RUN_DIR/out.json" 2>"$RUN_DIR/err" ||
		{ cat "$RUN_DIR/err" >&2; exit 1; }
	read -r u s <"$RUN_DIR/time"
	jq -r --arg u "$u" --arg s "$s" "($ops) as \$n |
		\"\((((\$u | tonumber) + (\$s | tonumber)) * 1e6 / \$n) *
		1000 | round / 1000) \(\$n / .elapsed_s | floor)\"" \
		"$RUN_DIR/out.json" >>"$RUN_DIR/$which"
}

# median FILE COLUMN
median() {
	sort -n -k"$2" "$1" | awk -v c="$2" '{ v[NR] = $c }
		END { print (NR % 2) ? v[(NR + 1) / 2] :
			(v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

echo "# ab.sh $wl: A=$A B=$B, $pairs ABBA pairs, $(date -u +%FT%TZ)"
echo "# client: benchboot $* --json (CPU 1); load average before:" \
	"$(cut -d' ' -f1-3 /proc/loadavg)"
: >"$RUN_DIR/A"
: >"$RUN_DIR/B"
i=0
while [ $i -lt "$pairs" ]; do
	if [ $((i % 2)) = 0 ]; then
		one A "$@"; one B "$@"
	else
		one B "$@"; one A "$@"
	fi
	i=$((i + 1))
done
echo "# per run (cpu us/op, ops/s): A: $(tr '\n' ';' <"$RUN_DIR/A")"
echo "# per run (cpu us/op, ops/s): B: $(tr '\n' ';' <"$RUN_DIR/B")"
awk -v a1="$(median "$RUN_DIR/A" 1)" -v b1="$(median "$RUN_DIR/B" 1)" \
    -v a2="$(median "$RUN_DIR/A" 2)" -v b2="$(median "$RUN_DIR/B" 2)" \
    -v w="$wl" 'BEGIN {
	printf "%s medians: cpu us/op A %.3f B %.3f (A/B %.3f); ops/s A %d" \
		" B %d (A/B %.3f)\n", w, a1, b1, a1 / b1, a2, b2, a2 / b2 }'
echo "# load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
