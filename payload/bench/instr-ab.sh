#!/bin/sh
# instr-ab.sh BIN_A BIN_B [ROUNDS]: user-space instructions per operation
# (valgrind cachegrind's I refs over the run, divided by the operations
# the record counts) of two benchboot binaries, say after and before a
# change, on http (nginx, pipeline 1 and 8), sql point-select (MariaDB,
# 16 connections) and smtp (Postfix's smtp-sink, sessions reused and new).
# Unlike CPU time, the count hardly moves with the machine's load, so it
# shows a hot-path change that time measurements on a busy machine hide;
# it does not count the kernel's part (same syscalls either way unless
# the loop changed).  ROUNDS (default 2) alternates A and B.
# Not a test.
set -u
A=${1:?usage: instr-ab.sh BIN_A BIN_B [ROUNDS]}
B=${2:?BIN_B}
rounds=${3:-2}
top=$(cd "$(dirname "$0")/../.." && pwd)
for t in valgrind nginx mariadbd sysbench smtp-sink jq; do
	command -v $t >/dev/null || { echo "needs $t" >&2; exit 2; }
done
. "$top/payload/bench/bench-servers.sh"
bench_nginx
bench_mariadb 10000
bench_smtp_sink
port=$SINK_PORT

# ir LABEL BIN COUNTER ARGS...: one run under cachegrind, one line.
ir() {
	l=$1 b=$2 p=$3
	shift 3
	valgrind --tool=cachegrind --cache-sim=no \
		--cachegrind-out-file=/dev/null "$b" "$@" --json \
		>"$RUN_DIR/o.json" 2>"$RUN_DIR/vg" || { cat "$RUN_DIR/vg"; exit 1; }
	irs=$(sed -n 's/.*I *refs: *//p' "$RUN_DIR/vg" | tr -d ,)
	n=$(jq "$p" "$RUN_DIR/o.json")
	echo "$irs $n" | awk -v l="$l" -v b="$b" '{
		printf "%-11s %-30s %12d %8d %8.0f\n", l, b, $1, $2, $1 / $2 }'
}

echo "# instr-ab: user-space instructions per operation, $(date -u +%FT%TZ)"
printf "%-11s %-30s %12s %8s %8s\n" case binary instructions ops "per op"
r=0
while [ $r -lt "$rounds" ]; do
	for b in "$A" "$B"; do
		ir http-p1 "$b" .counters.requests http -t 1 -c 32 -d 4s "$url"
		ir http-p8 "$b" .counters.requests http -t 1 -c 32 -d 4s \
			--pipeline 8 "$url"
		ir sql-ps16 "$b" .counters.statements sql \
			--workload=point-select -t 1 -c 16 -d 4s --rows 10000 \
			--host 127.0.0.1 --port "$MARIADB_PORT" --user bench \
			--password bench --db bench
		ir smtp-reuse "$b" .counters.mails smtp -c 16 -n 3000 \
			--from a@bench.test --to b@sink.test "127.0.0.1:$port"
		ir smtp-new "$b" .counters.mails smtp -c 16 -n 1000 \
			--new-session --from a@bench.test --to b@sink.test \
			"127.0.0.1:$port"
	done
	r=$((r + 1))
done
