#!/bin/sh
# 900_fuzz.sh: runs every libFuzzer target for FUZZ_SECONDS (default 5)
# from its seed corpus, FUZZ_JOBS at once; one TAP line per target, a
# crash fails it.
set -u
. "$TOP/payload/tests/lib/tap.sh"
cd "$TOP"

secs=${FUZZ_SECONDS:-5}
fdir=$PAYLOAD_BUILD/fuzz
mkdir -p "$O/test-run"
tmp=$(mktemp -d "$O/test-run/fuzz.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# The targets fuzz.mk declares; each must have been built.
targets=$(sed -n 's/^FUZZ_TARGETS *+= *//p' payload/tests/fuzz/fuzz.mk \
	2>/dev/null | tr ' \t' '\n\n' | sed '/^$/d' | sort -u)

if ! command -v clang >/dev/null 2>&1; then
	for t in ${targets:-fuzzers}; do
		skip "fuzz_$t: clang is not installed"
	done
	tap_done
	exit
fi

[ -n "$targets" ] || not_ok "fuzz.mk declares no fuzz targets"

# fuzz_one T: one target's campaign from a copy of its seed corpus; its
# exit status in $tmp/T.rc.  Fuzzers are single-threaded: FUZZ_JOBS of
# them (the cores, by default) run at once, reported in fuzz.mk's order.
fuzz_one() {
	corpus=$tmp/$1
	mkdir -p "$corpus" "$O/fuzz-artifacts/$1"
	[ -d "payload/tests/fuzz/corpus/$1" ] &&
		cp -R "payload/tests/fuzz/corpus/$1/." "$corpus/"
	"$fdir/fuzz_$1" -max_total_time="$secs" -timeout=10 \
		-rss_limit_mb=1024 -print_final_stats=1 \
		-artifact_prefix="$O/fuzz-artifacts/$1/" "$corpus" \
		>"$tmp/$1.log" 2>&1
	echo $? >"$tmp/$1.rc"
}

jobs=${FUZZ_JOBS:-$(nproc 2>/dev/null || echo 1)}
running=0
for t in $targets; do
	[ -x "$fdir/fuzz_$t" ] || continue
	fuzz_one "$t" &
	running=$((running + 1))
	[ $running -lt "$jobs" ] || { wait; running=0; }
done
wait

for t in $targets; do
	if [ ! -x "$fdir/fuzz_$t" ]; then
		not_ok "fuzz_$t: $fdir/fuzz_$t was not built"
		continue
	fi
	rc=$(cat "$tmp/$t.rc" 2>/dev/null || echo lost)
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$tmp/$t.log")
	if [ "$rc" = 0 ]; then
		ok "fuzz_$t: ${runs:-?} runs in ${secs}s without a crash"
	else
		not_ok "fuzz_$t: exit status $rc after ${runs:-?} runs"
		grep -E 'ERROR|SUMMARY|Test unit written|artifact' \
			"$tmp/$t.log" | head -n 10 | sed 's/^/# /'
		tail -n 20 "$tmp/$t.log" | sed 's/^/#   /'
	fi
done
tap_done
