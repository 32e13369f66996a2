#!/bin/sh
# changes-backtest.sh: issue 32's backtest: builds changes-backtest.c
# against the payload's objects (the detector, changes_edivisive, and the
# collector's own window test, resultdb_judge) with the payload's
# musl-gcc, and prints, on synthetic histories with known changes, each
# method's recall, precision and detection delay side by side (a
# Markdown table; docs/collect.md quotes it).  Deterministic: fixed seeds.
# SYSROOT=DIR, PAYLOAD_BUILD=DIR: a built payload (make payload) and its
# sysroot; out/$(uname -m)/... by default.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
S=${SYSROOT:-$top/out/$(uname -m)/sysroot}
B=${PAYLOAD_BUILD:-$top/out/$(uname -m)/build/payload}
[ -x "$S/bin/musl-gcc" ] && [ -f "$B/changes/changes_edivisive.o" ] || {
	echo "no musl-gcc in $S or no payload objects in $B: make payload first (or set SYSROOT, PAYLOAD_BUILD)" >&2
	exit 2
}
bin=$(mktemp -d "${TMPDIR:-/tmp}/changes-backtest.XXXXXX") || exit 2
trap 'rm -rf "$bin"' EXIT
objs=$(find "$B" -name '*.o' ! -path '*/core/main.o' ! -path '*/tests/*' \
	! -path '*/fuzz/*' ! -name 'sql_engine_*.o' | sort)
# The linked SQL engine: the one benchboot has (epoll on x86_64).
eng=$(ls "$B"/load/sql/sql_engine_epoll.o 2>/dev/null ||
	ls "$B"/load/sql/sql_engine_threads.o)
"$S/bin/musl-gcc" -std=gnu11 -O2 -Wall -static -I"$top/payload/src" \
	-I"$S/include/mariadb" -o "$bin/backtest" \
	"$top/payload/bench/changes-backtest.c" $objs $eng \
	-L"$S/lib" -lcurl -lmbedtls -lmbedx509 -lmbedcrypto \
	-lmariadbclient -lcjson -lpthread -lm || exit 2
"$bin/backtest"
