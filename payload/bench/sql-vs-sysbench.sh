#!/bin/sh
# sql-vs-sysbench.sh [SECONDS] [REPEATS] [LABEL=COMMAND...]: `benchboot sql
# --workload=point-select`
# beside Debian's `sysbench oltp_point_select` on one private MariaDB
# (mariadbd pinned to CPU 0, the client to CPU 1), over TCP on 127.0.0.1,
# at 1 and 16 connections, the tools alternating (A B C D, then B C D A,
# ...), medians of REPEATS (3).  Figures: queries counted by the server
# (Com_select), queries/s, client CPU per query (user + system from
# getrusage, via /usr/bin/time, the same for all) and the server's
# (mariadbd's /proc/PID/stat).
# sysbench runs twice: its default (prepared statements, as the issue's
# reference figures and as ours: benchboot's point-select prepares its
# SELECT and executes it in the binary protocol) and --db-ps-mode=disable
# (plain text queries, as our point-select sent before 2026-12-01).
# Targets (issue 19): our CPU/query <= 0.8 x sysbench's at 1 connection,
# <= 0.5 x at 16, with the server's queries/s >= sysbench's.
# BENCHBOOT_B=PATH: a second benchboot (say, the build before a change)
# run right after benchboot in each round, as "benchboot-b".
# LABEL=COMMAND arguments after REPEATS: other clients, each a tool of
# its own in the same alternation and table (pinned to CPU 1, CPU from
# /usr/bin/time, queries/s over its wall time as sysbench's, its output
# kept as comments), each set beside sysbench in a ratio line.  In a
# COMMAND @PORT@ is MariaDB's port, @CONNS@ the connections, @SECS@ the
# seconds, @ROWS@ the table's rows (payload/bench/sql-uring.sh passes
# the io_uring client's variants this way).
# CONNS="16": other connection counts than "1 16".
# Not a test: the figures depend on the machine and on what else runs.
set -u
conns=${CONNS:-1 16}
secs=${1:-10}
reps=${2:-3}
if [ $# -ge 2 ]; then shift 2; else shift $#; fi
for spec in "$@"; do
	case $spec in
	benchboot*=* | sysbench*=*)
		echo "tool label '${spec%%=*}' is taken" >&2; exit 2 ;;
	[a-z]*=?*)
		case ${spec%%=*} in
		*[!a-z0-9-]*) echo "bad label in '$spec'" >&2; exit 2 ;;
		esac ;;
	*) echo "bad tool '$spec': want LABEL=COMMAND" >&2; exit 2 ;;
	esac
done
top=$(cd "$(dirname "$0")/../.." && pwd)
bb=${BENCHBOOT:-$top/out/x86_64/bin/benchboot}
[ -x "$bb" ] || { echo "no benchboot at $bb (set BENCHBOOT)" >&2; exit 2; }
bbb=${BENCHBOOT_B:-}
[ -z "$bbb" ] || [ -x "$bbb" ] || { echo "no benchboot at $bbb" >&2; exit 2; }
for t in sysbench mariadbd taskset jq /usr/bin/time; do
	command -v $t >/dev/null || { echo "needs $t" >&2; exit 2; }
done
[ "$(nproc)" -ge 2 ] || { echo "needs 2 CPUs" >&2; exit 2; }

rows=10000
. "$top/payload/bench/bench-servers.sh"
bench_mariadb $rows
M="mariadb --no-defaults --socket=$MARIADB_SOCK -uroot -N -B"
# SELECTs the server ran: Com_select counts both protocols' (an executed
# prepared SELECT counts in Com_select and in Com_stmt_execute, so their
# sum, used before 2026-12-02, counted it twice; see docs/sql.md).
queries() {
	$M -e "SHOW GLOBAL STATUS LIKE 'Com_select'" | awk '{print $2}'
}
# mariadbd's CPU (user + system) in clock ticks, hz a second.
mpid=$(cat "$RUN_DIR/mariadb/mysqld.pid")
hz=$(getconf CLK_TCK)
srv_ticks() { awk '{ print $14 + $15 }' "/proc/$mpid/stat"; }

# one TOOL CONNS: prints "TOOL CONNS queries q/s cpu_s us/query".
one() {
	q0=$(queries)
	k0=$(srv_ticks)
	case $1 in
	benchboot*)
		b=$bb
		[ "$1" = benchboot-b ] && b=$bbb
		/usr/bin/time -f "%U %S" -o "$RUN_DIR/time" taskset -c 1 \
			"$b" sql --workload=point-select -t 1 -c "$2" \
			-d "${secs}s" --rows $rows --host 127.0.0.1 \
			--port "$MARIADB_PORT" --user bench --password bench \
			--db bench --json >"$RUN_DIR/out.json"
		el=$(jq .elapsed_s "$RUN_DIR/out.json")
		;;
	sysbench*)
		ps=auto
		[ "$1" = sysbench-text ] && ps=disable
		s=$(date +%s.%N)
		/usr/bin/time -f "%U %S" -o "$RUN_DIR/time" taskset -c 1 \
			$SB --threads="$2" --time="$secs" --db-ps-mode=$ps \
			run >"$RUN_DIR/sb.out"
		el=$(echo "$(date +%s.%N) $s" | awk '{print $1 - $2}')
		;;
	*)
		# An extra tool: a hung one must not hold the machine.
		cmd=$(sed "s|@PORT@|$MARIADB_PORT|g;
			s|@CONNS@|$2|g; s|@SECS@|$secs|g; s|@ROWS@|$rows|g" \
			"$RUN_DIR/cmd.$1")
		s=$(date +%s.%N)
		/usr/bin/time -f "%U %S" -o "$RUN_DIR/time" taskset -c 1 \
			timeout $((secs + 60)) sh -c "$cmd" \
			>"$RUN_DIR/x.out" 2>&1
		el=$(echo "$(date +%s.%N) $s" | awk '{print $1 - $2}')
		sed "s/^/$1 $2: /" "$RUN_DIR/x.out" >>"$RUN_DIR/extra.out"
		;;
	esac
	k1=$(srv_ticks)
	q1=$(queries)
	awk -v t="$1" -v c="$2" -v n=$((q1 - q0)) -v el="$el" \
		-v k=$((k1 - k0)) -v hz="$hz" '{cpu = $1 + $2
		printf "%-14s %5d %10d %10.0f %8.2f %8.2f %8.2f\n", t, c, n,
		  n / el, cpu, n ? cpu * 1e6 / n : 0,
		  n ? k * 1e6 / hz / n : 0}' "$RUN_DIR/time"
}

# median FILE COLUMN
median() {
	sort -n -k"$2" "$1" | awk -v c="$2" '{ v[NR] = $c }
		END { print (NR % 2) ? v[(NR + 1) / 2] :
			(v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

echo "# sql point-select vs sysbench oltp_point_select: ${secs}s per run,"
echo "# MariaDB $($M -e 'SELECT VERSION()'), $rows rows, server CPU 0,"
echo "# client CPU 1; queries counted by the server; tools alternating,"
echo "# medians of $reps."
echo "# load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
extra=
for spec in "$@"; do
	extra="$extra ${spec%%=*}"
	printf '%s\n' "${spec#*=}" >"$RUN_DIR/cmd.${spec%%=*}"
done
tools="benchboot ${bbb:+benchboot-b} sysbench sysbench-text$extra"
for c in $conns; do
	# Each round starts one tool later (A B C D, B C D A, ...): the
	# tool right after sysbench's text run meets a server still busy
	# with it, which cost the first tool up to 3.8x in queries/s.
	i=0
	order=$(echo $tools)
	while [ $i -lt "$reps" ]; do
		for tool in $order; do
			one $tool $c
		done
		order="${order#* } ${order%% *}"
		i=$((i + 1))
	done >"$RUN_DIR/res.$c"
	for tool in $tools; do
		grep "^$tool " "$RUN_DIR/res.$c" >"$RUN_DIR/res.$c.$tool"
	done
done
printf "%-14s %5s %10s %10s %8s %8s %8s\n" tool conns queries "q/s" cpu_s \
	"us/query" "srv us/q"
for c in $conns; do
	for tool in $tools; do
		f=$RUN_DIR/res.$c.$tool
		printf "%-14s %5d %10s %10s %8s %8s %8s\n" $tool $c \
			"$(median "$f" 3)" "$(median "$f" 4)" \
			"$(median "$f" 5)" "$(median "$f" 6)" "$(median "$f" 7)"
	done >"$RUN_DIR/med.$c"
	cat "$RUN_DIR/med.$c"
	awk -v c=$c '$1 == "benchboot" {b = $6; bq = $4}
		$1 == "sysbench" {s = $6; sq = $4} $1 == "sysbench-text" {x = $6}
		END {printf "# %d conns: benchboot/sysbench CPU per query %.2f" \
			" (text protocol: %.2f), server q/s %.2f\n", c,
			s ? b / s : 0, x ? b / x : 0, sq ? bq / sq : 0}' \
		"$RUN_DIR/med.$c"
	[ -z "$bbb" ] || awk -v c=$c '$1 == "benchboot" {b = $6; r = $4}
		$1 == "benchboot-b" {B = $6; R = $4}
		END {printf "# %d conns: benchboot/benchboot-b CPU per query" \
			" %.3f, q/s %.3f\n", c, B ? b / B : 0, R ? r / R : 0}' \
		"$RUN_DIR/med.$c"
	for tool in $extra; do
		awk -v c=$c -v t=$tool '$1 == t {b = $6; bq = $4}
			$1 == "sysbench" {s = $6; sq = $4}
			END {printf "# %d conns: %s/sysbench CPU per query" \
				" %.2f, server q/s %.2f\n", c, t,
				s ? b / s : 0, sq ? bq / sq : 0}' \
			"$RUN_DIR/med.$c"
	done
done
echo "# targets (issue 19): CPU per query <= 0.8 x sysbench's at 1," \
	"<= 0.5 x at 16; server q/s >= sysbench's"
echo "# per-run rows (tool conns queries q/s cpu_s us/query srv_us/q):"
for c in $conns; do
	sed 's/^/#   /' "$RUN_DIR/res.$c"
done
[ -z "$extra" ] || { echo "# the extra tools' own output:"
	sed 's/^/#   /' "$RUN_DIR/extra.out"; }
echo "# load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
