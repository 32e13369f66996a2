#!/bin/sh
# 118_run_setup: make run's set-up (qemu-tests/run.sh) as root from a
# checkout under a directory of mode 0700, as a clone in /root or in a
# mktemp -d directory is: the collector, which drops to nobody, must come
# up and answer (RUN_UNTIL=collector); and each way the set-up can fail
# early must name its cause, leaving nothing behind.  No VM boots.
# harness: parallel
. "$(dirname "$0")/../lib.sh"
qt_init
qt_need "$IMAGES/vmlinuz" "$IMAGES/initramfs.cpio.gz" \
	"$IMAGES/server-overlay.cpio.gz"
BENCHBOOT=${BENCHBOOT:-$O/$ARCH/bin/benchboot}
if [ "$(id -u)" != 0 ]; then
	skip "make run's LAN needs root (bridge and taps in a namespace)"
	tap_done
	exit 0
fi

# The checkout: what run.sh reads of one, under a 0700 directory.
D=$(mktemp -d /tmp/benchboot-118.XXXXXX)
C=$D/checkout
teardown() {
	qt_cleanup
	rm -rf "$D"
}
trap teardown EXIT
mkdir -p "$C" && cp -R "$TOP/qemu-tests" "$TOP/configs" "$C/"
check_eq "the checkout's parent is closed to other users" \
	"$(stat -c %a "$D")" 700

# Inputs for the failures: a collector that refuses at once, images QEMU
# cannot boot, and a PATH that has everything but QEMU.
printf '#!/bin/sh\necho "benchboot collect: simulated refusal" >&2\nexit 3\n' \
	>"$D/bad-benchboot"
chmod 755 "$D/bad-benchboot"
mkdir -p "$D/bad-images" "$D/noqemu"
: >"$D/bad-images/vmlinuz"
: >"$D/bad-images/initramfs.cpio.gz"
: >"$D/bad-images/server-overlay.cpio.gz"
for d in /usr/local/sbin /usr/local/bin /usr/sbin /usr/bin /sbin /bin; do
	for f in "$d"/*; do
		case ${f##*/} in qemu-system-*) continue ;; esac
		[ -e "$D/noqemu/${f##*/}" ] || ln -s "$f" "$D/noqemu/"
	done
done

# left_nothing PID DIR: run.sh (PID) left no namespace, no process of
# its own and no staging directory.
left_nothing() {
	! ip netns list 2>/dev/null | grep -qw "bbrun$1" || return 1
	for p in $(cat "$2/pids" 2>/dev/null); do
		! kill -0 "$p" 2>/dev/null || return 1
	done
	[ ! -s "$2/stage" ] || [ ! -e "$(cat "$2/stage")" ]
}

# run_case NAME STATUS TEXT VAR=VALUE...: run.sh from the checkout with
# the VARs; it must exit with STATUS, say TEXT (an extended regular
# expression) on a line of its own starting "run: ", and leave nothing.
run_case() {
	name=$1 want=$2 text=$3
	shift 3
	out=$D/$name.out
	env O="$C/out" TOP="$C" IMAGES="$IMAGES" BENCHBOOT="$BENCHBOOT" \
		QT_ACCEL=tcg RUN_QUIET=1 RUN_TIMEOUT=60 CLIENTS=1 "$@" \
		"$C/qemu-tests/run.sh" >"$out" 2>&1 </dev/null &
	pid=$!
	wait $pid
	rc=$?
	RD=$(ls -d "$C"/out/run/* 2>/dev/null | tail -n 1)
	for r in "$@"; do
		case $r in RUN_DIR=*) RD=${r#RUN_DIR=} ;; esac
	done
	check_eq "$name: exit status" "$rc" "$want"
	if grep -qE "^run: $text" "$out"; then
		ok "$name: says why ($(grep -E "^run: $text" "$out" |
			head -n 1 | cut -c6-90))"
	else
		not_ok "$name: says /$text/"
		sed 's/^/#   | /' "$out" | tail -n 8
	fi
	check "$name: nothing left (namespace, processes, staging)" \
		left_nothing "$pid" "$RD"
	cp "$out" "$QT_DIR/" 2>/dev/null
}

# Where the issue started: the collector drops to nobody, and the run's
# default directory, out/run/DATE in the checkout, is closed to nobody.
run_case setup 0 "the collector answers on http://169\.254\.0\.1:8080/" \
	RUN_UNTIL=collector
check "setup: the collector ran as nobody" grep -q \
	"running as user nobody" "$RD/collect.log"
check "setup: the run's results directory is in the checkout, root's" \
	sh -c "[ \"\$(stat -c %U '$RD/results')\" = root ]"
check_eq "setup: ... with the mode of the run's directory (not 0700)" \
	"$(stat -c %a "$RD/results")" "$(stat -c %a "$RD")"
run_case closed-stage 1 \
	"user nobody cannot write .*: a directory above it is closed" \
	RUN_UNTIL=collector RUN_STAGE_DIR="$D" RUN_DIR="$C/out/run/closed"
WHY="benchboot collect: simulated refusal"
run_case collector-dies 1 \
	"the collector \(benchboot collect\) exited early \(status 3\): $WHY" \
	BENCHBOOT="$D/bad-benchboot" RUN_DIR="$C/out/run/dies"
check "collector-dies: no VM was started" \
	sh -c "[ ! -s '$C/out/run/dies/vms' ]"
run_case vm-fails 1 "VM [a-z0-9]+ \(qemu-system-x86_64\) exited early \
\(status 1\): qemu(-system-x86_64)?: " \
	IMAGES="$D/bad-images" RUN_DIR="$C/out/run/vm"
run_case no-qemu 1 "qemu-system-x86_64 missing: QEMU is not installed" \
	PATH="$D/noqemu" RUN_DIR="$C/out/run/noqemu"
tap_done
