#!/bin/sh
# 121_run_vde: `make run` without root (RUN_NET=vde): run.sh as user
# nobody puts the VMs on a user's VDE switch with slirpvde as the host side
# (DHCP, 10.0.2.2 = the host's 127.0.0.1).  The smoke suite must complete
# with every step, the result reach the collector on 127.0.0.1, relay mail
# reach the suite's sink on a client, and nothing be left running.  120_run_smoke checks the
# result document in depth (the root, network-namespace LAN).
. "$(dirname "$0")/../../lib.sh"
qt_init
. "$TOP/qemu-tests/run-checks.sh"
qt_need "$IMAGES/vmlinuz" "$IMAGES/initramfs.cpio.gz" \
	"$IMAGES/server-overlay.cpio.gz"
BENCHBOOT=${BENCHBOOT:-$O/$ARCH/bin/benchboot}
jqt() { jq -e "$@" >/dev/null; }
if ! command -v vde_switch >/dev/null || ! command -v slirpvde >/dev/null
then
	skip "vde2 is not installed (vde_switch, slirpvde)"
	tap_done
	exit 0
fi
if [ "$(id -u)" != 0 ] || ! command -v setpriv >/dev/null; then
	skip "needs root to drop to user nobody (setpriv)"
	tap_done
	exit 0
fi

# nobody's own copy of what make run uses (the scripts, the suites, the
# images, benchboot), as a user's checkout would be: this checkout may
# sit where nobody cannot pass (/root).  It writes only there.
qt_shared_dir
D=$QT_SHARED/nobody
mkdir -p "$D/top" "$D/images"
cp -R "$TOP/qemu-tests" "$TOP/configs" "$D/top/" &&
	cp "$IMAGES/vmlinuz" "$IMAGES/initramfs.cpio.gz" \
		"$IMAGES/server-overlay.cpio.gz" "$D/images/" &&
	cp "$BENCHBOOT" "$D/benchboot" && chown -R nobody "$D" ||
	{ not_ok "nobody's copy of the scripts and images"; tap_done; exit 1; }
t0=$(date +%s)
setpriv --reuid=nobody --regid=nogroup --clear-groups env HOME="$D" \
	O="$D/out" IMAGES="$D/images" BENCHBOOT="$D/benchboot" \
	TOP="$D/top" QT_ACCEL="$QT_ACCEL" RUN_DIR="$D/run" \
	RUN_TIMEOUT="$(qt_timeout 240)" "$D/top/qemu-tests/run.sh" \
	>"$QT_DIR/run.out" 2>&1
rc=$?
secs=$(($(date +%s) - t0))
check_eq "as nobody: exit status" "$rc" 0
check "as nobody: the LAN was VDE (no namespace)" sh -c \
	"[ \"\$(cat '$D/run/net')\" = vde ] && [ ! -e '$D/run/netns' ] &&
	 grep -q 'vde switch' '$D/run/slirpvde.log'"
check "as nobody: nothing of the run is left running" sh -c \
	"for p in \$(cat '$D/run/pids'); do ! kill -0 \$p 2>/dev/null ||
		exit 1; done"
R=$(cat "$D/run/result-path" 2>/dev/null)
# Kept beside the logs: QT_SHARED goes when the test ends.
mkdir -p "$QT_DIR/run" && cp -R "$D/run/results" "$D"/run/*.log \
	"$QT_DIR/run/" 2>/dev/null
[ -z "$R" ] || R=$QT_DIR/run/results/${R##*/}
if [ -n "$R" ] && [ -s "$R" ]; then
	ok "as nobody: result uploaded to 127.0.0.1 ($secs s, $QT_ACCEL)"
	check "as nobody: the 8 steps complete with throughput > 0" jqt \
		'[.steps[] | .complete_repeats >= 1 and
		  ([.stats[] | (.requests_per_s // .statements_per_s //
		    .mails_per_s).median > 0] | all)] |
		 length == 8 and all' "$R"
	run_check_relay "$R"
	check "as nobody: addresses from slirpvde's DHCP (10.0.2.x)" jqt \
		'[.environment.hosts[] | .address // "10.0.2.0" |
		  startswith("10.0.2.")] | all' "$R"
else
	not_ok "as nobody: result uploaded to 127.0.0.1"
	tail -n 20 "$QT_DIR/run.out" | sed 's/^/#   | /'
fi
diag "make run as nobody (vde) took $secs s ($QT_ACCEL)"
tap_done
