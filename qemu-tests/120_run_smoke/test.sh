#!/bin/sh
# 120_run_smoke: `make run` as CI runs it (qemu-tests/run.sh): a server VM
# (base + overlay) and two client VMs on a private bridge, no addresses
# given, find each other, run the smoke suite and upload the result to the
# host's collector.  Checks the result document (every workload present
# with non-zero throughput, merged histograms = the sum of the clients',
# sampler and probe series in every repeat, clock offsets and skew, the
# server stack's versions), the relay step's mail at the suite's sink on a
# client, the HTML report, and that everything is gone afterwards -- also
# after a Ctrl-C (SIGINT) during boot.
. "$(dirname "$0")/../lib.sh"
qt_init
. "$TOP/qemu-tests/run-checks.sh"
qt_need "$IMAGES/vmlinuz" "$IMAGES/initramfs.cpio.gz" \
	"$IMAGES/server-overlay.cpio.gz"
BENCHBOOT=${BENCHBOOT:-$O/$ARCH/bin/benchboot}
if [ "$(id -u)" != 0 ]; then
	skip "make run needs root (bridge and taps in a network namespace)"
	tap_done
	exit 0
fi

# Ctrl-C first (cheap): interrupted while the VMs boot, it must leave
# nothing behind and say so with status 130.
# (A background job of a script starts with SIGINT ignored: restore it.)
RUN_DIR=$QT_DIR/int RUN_QUIET=1 QT_ACCEL=$QT_ACCEL env --default-signal=INT \
	"$TOP/qemu-tests/run.sh" >"$QT_DIR/int.out" 2>&1 &
pid=$!
n=0
while [ ! -s "$QT_DIR/int/vms" ] && [ $n -lt 300 ]; do
	sleep 0.1
	n=$((n + 1))
done
sleep 3
kill -INT $pid
wait $pid
check_eq "Ctrl-C: run.sh exits with 130" "$?" 130
check "Ctrl-C: its namespace and QEMUs are gone" run_gone "$QT_DIR/int"

QT_CASE="make run"
t0=$(date +%s)
RUN_DIR=$QT_DIR/run QT_ACCEL=$QT_ACCEL \
	RUN_TIMEOUT=$(qt_timeout 240) "$TOP/qemu-tests/run.sh" \
	>"$QT_DIR/run.out" 2>&1
rc=$?
secs=$(($(date +%s) - t0))
run_result "make run" "$rc" "$QT_DIR/run.out" "$QT_DIR/run" \
	"$secs s, $QT_ACCEL" || { tap_done; exit 1; }
run_checks "$RUN_RESULT" "$QT_DIR/run.out" "$QT_DIR/run" 2
# An emulated server gets the emulation timeouts unless SUITE_SET is
# given (run.sh, RUN_EMU_SET), said on the terminal and in the result.
if [ "$QT_ACCEL" = tcg ]; then
	emu=http_timeout=10s,sql_timeout=60s,smtp_timeout=30s
	check "tcg: run.sh says it gives the emulated server longer timeouts" \
		grep -q "^run: emulated server: $emu" "$QT_DIR/run.out"
	check "tcg: the result's suite.vars has them" jq -e \
		'.suite.vars | .http_timeout == "10s" and
		 .sql_timeout == "60s" and .smtp_timeout == "30s"' \
		"$RUN_RESULT"
fi
diag "make run took $secs s ($QT_ACCEL)"
tap_done
