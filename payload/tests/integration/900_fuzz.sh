#!/bin/sh
# 900_fuzz.sh: runs every libFuzzer target for FUZZ_SECONDS (default 20)
# from its seed corpus; one TAP line per target, a crash fails it.
set -u
. "$TOP/payload/tests/lib/tap.sh"
cd "$TOP"

secs=${FUZZ_SECONDS:-20}
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
for t in $targets; do
	bin=$fdir/fuzz_$t
	if [ ! -x "$bin" ]; then
		not_ok "fuzz_$t: $bin was not built"
		continue
	fi
	corpus=$tmp/$t
	mkdir -p "$corpus" "$O/fuzz-artifacts/$t"
	[ -d "payload/tests/fuzz/corpus/$t" ] &&
		cp -R "payload/tests/fuzz/corpus/$t/." "$corpus/"
	"$bin" -max_total_time="$secs" -timeout=10 -rss_limit_mb=1024 \
		-print_final_stats=1 \
		-artifact_prefix="$O/fuzz-artifacts/$t/" "$corpus" \
		>"$tmp/$t.log" 2>&1
	rc=$?
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$tmp/$t.log")
	if [ $rc = 0 ]; then
		ok "fuzz_$t: ${runs:-?} runs in ${secs}s without a crash"
	else
		not_ok "fuzz_$t: exit status $rc after ${runs:-?} runs"
		grep -E 'ERROR|SUMMARY|Test unit written|artifact' \
			"$tmp/$t.log" | head -n 10 | sed 's/^/# /'
		tail -n 20 "$tmp/$t.log" | sed 's/^/#   /'
	fi
done
tap_done
