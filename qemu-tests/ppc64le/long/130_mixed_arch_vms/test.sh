#!/bin/sh
# 130_mixed_arch_vms: the mixed-architecture run with VMs: `make run`
# (qemu-tests/run.sh, RUN_SERVER_ARCH=ppc64le) boots a ppc64le server VM
# (pseries, TCG: vmlinux + base initramfs + the ppc64el server overlay)
# and two x86_64 client VMs on one private bridge; they find each other
# over mDNS and run the smoke suite, the ppc64le controller merging the
# x86_64 clients' records and histograms.  Checks the result document as
# 120_run_smoke does (qemu-tests/run-checks.sh), plus which architecture
# each host is: the server's kernel, agent and stack ppc64le/ppc64el, the
# clients x86_64.  Needs both builds (`make` and `make ARCH=ppc64le`) and
# root (the bridge); skips naming what is missing otherwise.
. "$(dirname "$0")/../../lib.sh"
qt_init
. "$TOP/qemu-tests/run-checks.sh"
qt_need "$QT_KERNEL" "$IMAGES/initramfs.cpio.gz" \
	"$IMAGES/server-overlay.cpio.gz"
X=$O/x86_64
for f in "$X/images/vmlinuz" "$X/images/initramfs.cpio.gz" \
	"$X/bin/benchboot"; do
	[ -e "$f" ] && continue
	skip "no x86_64 build for the clients: $f is missing (run 'make')"
	tap_done
	exit 0
done
if [ "$(id -u)" != 0 ]; then
	skip "make run needs root (bridge and taps in a network namespace)"
	tap_done
	exit 0
fi

QT_CASE="mixed-arch run"
D=$QT_DIR/run
t0=$(date +%s%3N)
# The clients' accelerator is run.sh's (x86_64's probe); the ppc64le
# server is always TCG.  The host side (the collector) is the x86_64
# benchboot.  Under TCG, 800 s for the result (it takes about 135 s),
# inside the harness's 900 s per test.
env -u QT_ACCEL ARCH=x86_64 IMAGES="$X/images" BENCHBOOT="$X/bin/benchboot" \
	RUN_SERVER_ARCH=ppc64le RUN_SERVER_IMAGES="$IMAGES" RUN_DIR="$D" \
	RUN_QUIET=1 RUN_TIMEOUT="$(qt_timeout 200)" "$TOP/qemu-tests/run.sh" \
	>"$QT_DIR/run.out" 2>&1 &
QT_PID=$!
QT_PIDS="$QT_PIDS $QT_PID"
# The server's READY (its stack up) while run.sh waits for the result.
n=0
while [ ! -s "$D/vms" ] && [ $n -lt 600 ]; do
	sleep 0.1
	n=$((n + 1))
done
QT_LOG=$D/server.log QT_T0=$t0
qt_ready server server-525400bb1000 120
wait $QT_PID
rc=$?
secs=$((($(date +%s%3N) - t0) / 1000))
run_result "$QT_CASE" "$rc" "$QT_DIR/run.out" "$D" "$secs s" ||
	{ tap_done; exit 1; }
R=$RUN_RESULT
run_checks "$R" "$QT_DIR/run.out" "$D" 2

# Which build ran where.
server='.environment.hosts[] | select(.role | startswith("server"))'
check "arch: the server is ppc64le (agent, kernel, image)" run_jq \
	"$server"' | .arch == "ppc64le" and (.kernel | test("powerpc64le")) and
	 (.image_release | test(" ppc64le "))' "$R"
check "arch: the server's stack is Debian's ppc64el build" run_jq \
	"$server"' | .server_versions.arch == "ppc64el"' "$R"
check "arch: both clients are x86_64" run_jq \
	'[.environment.hosts[] | select(.role == "client") |
	  .arch == "x86_64" and (.kernel | test("amd64"))] |
	 length == 2 and all' "$R"
check "$QT_CASE: the server took a link-local address over spapr-vlan" \
	grep -aq '^BENCHBOOT-READY role=server .* ip=169\.254\.' "$D/server.log"
diag "mixed-arch run: server READY after $(qt_secs "$QT_MS") s," \
	"result after $secs s in all"
tap_done
