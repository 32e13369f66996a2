#!/bin/sh
# clock_step: a client's wall clock stepped forward and back in a VM (the
# fault matrix's clock row; network namespaces share the host's clock):
# the controller and the server under test (busybox httpd) in a network
# namespace of the test's, the client booted from the image in QEMU inside
# it, with a shell on its serial console (benchboot.debug=1) where the
# test runs `date -s` mid-step.  The result must record both steps as the
# client's clock_step events, and the step's figures stay sane (deadlines
# are monotonic).  make test-long: 100 s under software emulation (TCG,
# load 18 on 2 cores), 7 cases.
. "$(dirname "$0")/../../lib.sh"
qt_init
qt_need "$IMAGES/vmlinuz" "$IMAGES/initramfs.cpio.gz"
BENCHBOOT=${BENCHBOOT:-$O/$ARCH/bin/benchboot}
qt_need "$BENCHBOOT"
if [ "$(id -u)" != 0 ] || ! command -v socat >/dev/null; then
	skip "needs root (a network namespace) and socat"
	tap_done
	exit 0
fi

# Everything in a namespace: QEMU's user network maps the guest's
# 10.0.2.2 to the namespace's loopback, and the controller's mDNS stays in.
NS=bbclk$$
pids=
stop_all() {
	for p in $pids; do kill "$p" 2>/dev/null; done
	qt_cleanup
	ip netns del "$NS" 2>/dev/null
}
trap stop_all EXIT
ip netns add "$NS" && ip -n "$NS" link set lo up ||
	{ not_ok "namespace $NS"; tap_done; exit 1; }
X="ip netns exec $NS"
jqe() { jq -e "$@" >/dev/null; }
poll() { # poll SECONDS CMD...: 0 once CMD succeeds within SECONDS
	n=$(($1 * 5)); shift
	while [ $n -gt 0 ]; do "$@" >/dev/null 2>&1 && return 0; sleep 0.2
		n=$((n - 1)); done
	return 1
}

mkdir -p "$QT_DIR/www"
head -c 4050 /dev/zero | tr '\0' x >"$QT_DIR/www/index.html"
$X busybox httpd -f -p 127.0.0.1:8080 -h "$QT_DIR/www" &
pids="$pids $!"
cat >"$QT_DIR/clock.suite" <<'SUITE'
# One http step long enough to step the client's clock twice in it.
suite clock
version 1
clients 1
servers 0
wait 300s
repeats 1
warmup 1s
duration 40s
cooldown 200ms

step http
	concurrency 2
	run http -t 1 -c {conc} -d {duration} --warmup {warmup} http://{server}:8080/index.html
SUITE
$X "$BENCHBOOT" agent --role=controller --id clk-ctl \
	--listen 127.0.0.1:7407 --suite "$QT_DIR/clock.suite" \
	--set server=10.0.2.2 --target 10.0.2.2 --peers 1 \
	--spool "$QT_DIR/spool" >"$QT_DIR/ctl.log" 2>&1 &
ctl=$!
pids="$pids $ctl"

# The client VM: its console on a socket the test writes to, and in the
# log qt_wait reads.
QT_CASE="client VM"
id=$(qt_macid 9)
QT_LOG=$QT_DIR/client.log
: >"$QT_LOG"
QT_T0=$(date +%s%3N)
$X $QT_QEMU -display none -no-reboot -monitor none \
	-kernel "$IMAGES/vmlinuz" -initrd "$IMAGES/initramfs.cpio.gz" \
	-append "console=ttyS0,115200 benchboot.role=client benchboot.debug=1 benchboot.controller=10.0.2.2" \
	-chardev "socket,id=ser,path=$QT_DIR/ser.sock,server=on,wait=off,logfile=$QT_LOG" \
	-serial chardev:ser \
	-nic "user,model=virtio-net-pci,mac=$(qt_mac 9)" \
	>"$QT_DIR/client.qemu.log" 2>&1 &
QT_PID=$!
QT_PIDS="$QT_PIDS $QT_PID"
# (Not qt_ready: the debug shell's prompt may begin the READY line.)
if qt_wait "BENCHBOOT-READY role=client id=$id ip=" "$(qt_timeout 30)"; then
	ok "client VM ready ($(qt_secs "$QT_MS") s, $QT_ACCEL)"
else
	not_ok "client VM ready"
	qt_tail
	tap_done
	exit 1
fi
vm() { printf '%s\n' "$*" | socat - "UNIX-CONNECT:$QT_DIR/ser.sock" >/dev/null; }
check "the client joins and the step starts" poll "$(qt_timeout 30)" \
	grep -q "step http/" "$QT_DIR/ctl.log"
sleep 8
vm 'date -s @$(($(date +%s) + 3600)) >/dev/null'
sleep 8
vm 'date -s @$(($(date +%s) - 3600)) >/dev/null'
check "the controller finished" poll "$(qt_timeout 60)" sh -c \
	"! kill -0 $ctl 2>/dev/null"
res=$(ls "$QT_DIR"/spool/results/clock-*.json 2>/dev/null | head -1)
check "a result" test -n "$res"
check "the client's clock_step forward, about an hour" jqe --arg id "$id" \
	'[.events[] | select(.type == "clock_step" and .id == $id and
	 (.detail | test("^forward:3[56][0-9][0-9]")))] | length == 1' "$res"
check "and back" jqe --arg id "$id" '[.events[] |
	select(.type == "clock_step" and .id == $id and
	 (.detail | test("^back:3[56][0-9][0-9]")))] | length == 1' "$res"
check "the step complete, its figures sane" jqe \
	'.steps[0].repeats[0].complete == true and
	 .steps[0].stats.http.requests_per_s.median > 0 and
	 .steps[0].stats.http.p99_ns.median < 1000000000' "$res"
jq -c '[.events[] | select(.type == "clock_step")]' "$res" 2>/dev/null |
	sed 's/^/# /'
qt_stop
tap_done
