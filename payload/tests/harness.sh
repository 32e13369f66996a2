#!/bin/sh
# harness.sh TEST...: runs each test program (unit binary or script; each
# prints TAP), shows its cases, keeps its log under $O/test-logs, and ends
# with the summary line "N passed, N failed".  A test that exits non-zero
# without a "not ok" line, or outlives TEST_TIMEOUT, counts as one failure.
set -u

logs=${O:-out}/test-logs
# A cross-built architecture keeps its logs apart: a ppc64le run must not
# overwrite the x86_64 logs of the same test names.
[ "${ARCH:-x86_64}" = x86_64 ] || logs=$logs/$ARCH
mkdir -p "$logs"
timeout_s=${TEST_TIMEOUT:-900}
pass=0 fail=0 skip=0
failed_tests=

for t in "$@"; do
	name=$(echo "$t" | sed 's|^.*/payload/tests/||; s|^\./||; s|/|_|g')
	log=$logs/$name.log
	echo "# $t"
	start=$(date +%s)
	# Scripts run on the host; a test program is built for ARCH and runs
	# through TARGET_RUN (qemu-user when cross-built: binfmt_misc may not
	# be registered on the build host, so nothing relies on it).
	case $t in
	*.sh) run= ;;
	*) run=${TARGET_RUN:-} ;;
	esac
	timeout -k 10 "$timeout_s" $run "$t" >"$log" 2>&1
	rc=$?
	took=$(($(date +%s) - start))
	grep -E '^(not )?ok ' "$log" | sed 's/^/  /'
	p=$(grep -cE '^ok .*# (SKIP|skip)' "$log")
	s=$p
	p=$(($(grep -cE '^ok ' "$log") - s))
	f=$(grep -cE '^not ok ' "$log")
	if [ $rc != 0 ] && [ "$f" = 0 ]; then
		if [ $rc = 124 ]; then
			echo "  not ok - $t timed out after ${timeout_s}s"
		else
			echo "  not ok - $t exited with status $rc"
		fi
		f=1
		tail -n 15 "$log" | sed 's/^/  | /'
	elif [ "$f" != 0 ]; then
		grep -E -A6 '^not ok ' "$log" | grep -E '^#' | head -n 30 |
			sed 's/^/  | /'
	fi
	if [ $((p + f + s)) = 0 ]; then
		echo "  not ok - $t reported no test cases"
		f=1
	fi
	[ "$f" != 0 ] && failed_tests="$failed_tests $name"
	echo "  ($p passed, $f failed, $s skipped in ${took}s; log: $log)"
	pass=$((pass + p)) fail=$((fail + f)) skip=$((skip + s))
done

[ -n "$failed_tests" ] && echo "# failed:$failed_tests"
echo "# $skip skipped"
# `make test` runs one harness per architecture and sums them
# (HARNESS_TOTALS); each run's line is then labelled with its ARCH.
[ -n "${HARNESS_TOTALS:-}" ] && echo "$pass $fail $skip" >>"$HARNESS_TOTALS"
echo "${HARNESS_LABEL:+$HARNESS_LABEL: }$pass passed, $fail failed"
[ $fail = 0 ]
