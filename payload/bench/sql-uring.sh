#!/bin/sh
# sql-uring.sh [SECONDS] [REPEATS]: issue 19's io_uring experiment for
# SQL: builds payload/bench/uring-sql.c (the payload's musl-gcc and
# static connector from a built sysroot, no other package) and runs
# sql-vs-sysbench.sh with its variants beside benchboot and sysbench:
# uring-1/-8/-16 wait for 1, 8, 16 completions per io_uring_enter;
# uring-8d and -16d add COOP_TASKRUN + DEFER_TASKRUN (the kernel wakes
# the client only once MINC completions are due); uring-16m also
# receives with one multishot RECV per connection from a provided-buffer
# ring.  At
# 1 connection every variant waits for 1 (the client clamps MINC to the
# queries in flight), so uring-1, -8 and -16 are the same run three times.
# SYSROOT=DIR: the sysroot (out/$(uname -m)/sysroot by default).
# Not a test: the figures depend on the machine and on what else runs.
set -u
secs=${1:-5}
reps=${2:-3}
top=$(cd "$(dirname "$0")/../.." && pwd)
S=${SYSROOT:-$top/out/$(uname -m)/sysroot}
[ -x "$S/bin/musl-gcc" ] && [ -f "$S/lib/libmariadbclient.a" ] || {
	echo "no musl-gcc or libmariadbclient.a in $S: make payload first" \
		"(or set SYSROOT)" >&2
	exit 2
}
bin=$(mktemp -d "${TMPDIR:-/tmp}/uring-sql.XXXXXX") || exit 2
trap 'rm -rf "$bin"' EXIT
p=$top/payload
"$S/bin/musl-gcc" -std=gnu11 -O2 -Wall -static -I"$p/src" \
	-I"$S/include/mariadb" -o "$bin/uring-sql" "$p/bench/uring-sql.c" \
	"$p/bench/uring_ring.c" "$p/src/mysql_wire.c" "$p/src/sql_conn.c" \
	"$p/src/util.c" "$S/lib/libmariadbclient.a" -lm || exit 2
u="$bin/uring-sql"
a="127.0.0.1 @PORT@ bench bench bench @ROWS@ @CONNS@ @SECS@"
"$top/payload/bench/sql-vs-sysbench.sh" "$secs" "$reps" \
	"uring-1=$u $a 1" "uring-8=$u $a 8" "uring-16=$u $a 16" \
	"uring-8d=$u -f coop,defer $a 8" "uring-16d=$u -f coop,defer $a 16" \
	"uring-16m=$u -m -f coop,defer $a 16"
