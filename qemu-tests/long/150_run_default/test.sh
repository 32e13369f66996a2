#!/bin/sh
# 150_run_default: the default suite end to end in QEMU, time-scaled
# (`make run SUITE=default SUITE_SCALE=0.05`: every step, concurrency and
# repeat, 1.5 s measured windows; the workloads' timeouts raised with
# SUITE_SET, as emulation is slow): one server VM, two client VMs, and the
# result checked as 120_run_smoke checks smoke's (qemu-tests/run-checks.sh
# with the default suite's steps), plus the time scale in the result and
# its report.  Long (16 min under TCG on the quiet machine, 24-27 at
# host load 2-5, 30 at 15-19):
# `make test-long`; docs/run.md has its figures.
. "$(dirname "$0")/../../lib.sh"
qt_init
. "$TOP/qemu-tests/run-checks.sh"
qt_need "$IMAGES/vmlinuz" "$IMAGES/initramfs.cpio.gz" \
	"$IMAGES/server-overlay.cpio.gz"
if [ "$(id -u)" != 0 ]; then
	skip "make run needs root (bridge and taps in a network namespace)"
	tap_done
	exit 0
fi
SCALE=${SUITE_SCALE:-0.05}
# Emulation answers slower than the default suite's timeouts allow (Apache
# CGI 1.5-2 s per request under TCG, the http timeout is 2 s), and
# sql-ops's fixed work on 100000 rows takes about 3 min under TCG, over its
# 180 s repeat limit: the run gives the timeouts more and sql-ops 20000
# rows, as a lab would a slow server, and the result says so.
SET=${SUITE_SET:-http_timeout=10s,sql_timeout=60s,smtp_timeout=30s,sql_rows=20000}

QT_CASE="make run SUITE=default SUITE_SCALE=$SCALE SUITE_SET=$SET"
t0=$(date +%s)
SUITE=default SUITE_SCALE=$SCALE SUITE_SET=$SET RUN_DIR=$QT_DIR/run \
	QT_ACCEL=$QT_ACCEL \
	RUN_QUIET=1 RUN_TIMEOUT=$(qt_timeout 1800) "$TOP/qemu-tests/run.sh" \
	>"$QT_DIR/run.out" 2>&1
rc=$?
secs=$(($(date +%s) - t0))
run_result "$QT_CASE" "$rc" "$QT_DIR/run.out" "$QT_DIR/run" \
	"$secs s, $QT_ACCEL" || { tap_done; exit 1; }
run_checks "$RUN_RESULT" "$QT_DIR/run.out" "$QT_DIR/run" 2 default
check "the result records the time scale $SCALE" run_jq --argjson f "$SCALE" \
	'.suite.time_scale == $f and
	 ([.steps[] | select(.name | startswith("http-static/")) |
	   .duration_s] | all(. == 30 * $f))' "$RUN_RESULT"
check "the report says TIME-SCALED x$SCALE" \
	grep -q "TIME-SCALED x$SCALE" "$QT_DIR/run.out"
check "the result records the timeouts given ($SET)" run_jq \
	--arg set "$SET" '($set | split(",") | map(split("=") |
	 {(.[0]): .[1]}) | add) as $w | .suite.vars as $v |
	 $w | to_entries | all($v[.key] == .value)' \
	"$RUN_RESULT"
check "every workload ran with its timeout (--timeout in every proc)" \
	run_jq '[.steps[].repeats[].clients[].procs[]? |
	 select(.[0] != "smtp-sink") | index("--timeout") != null] | all' \
	"$RUN_RESULT"
check "every step 3 repeats, as the suite says" run_jq \
	'[.steps[] | .repeats | length == 3] |
	 all' "$RUN_RESULT"
diag "make run SUITE=default SUITE_SCALE=$SCALE took $secs s ($QT_ACCEL)"
tap_done
