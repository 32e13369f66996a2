#!/bin/sh
# 160_clock_step: a wall clock stepped forward and back in a VM mid-step
# (the fault matrix's clock rows; network namespaces share the host's
# clock), on a client, then on the controller.  Everything in a network
# namespace of the test's: the server under test (busybox httpd), the host
# side's agent, and QEMU, whose VM boots the image with a shell on its
# serial console (benchboot.debug=1) where the test runs `date -s`.  The
# result must record both steps as clock_step events of that host, and
# the step's figures stay sane (deadlines are monotonic).  make test-long:
# 142 s under software emulation (TCG, a loaded 2-core host), 13 cases.
. "$(dirname "$0")/../../lib.sh"
. "$(dirname "$0")/../lib.sh"
qt_init
# wait_for (servers.sh), its data under QT_DIR.
RUN_DIR=$QT_DIR
. "$TOP/payload/tests/lib/servers.sh"
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
qt_netns clk ||
	{ not_ok "namespace $QT_NS"; tap_done; exit 1; }

mkdir -p "$QT_DIR/www"
head -c 4050 /dev/zero | tr '\0' x >"$QT_DIR/www/index.html"
$X busybox httpd -f -p 8080 -h "$QT_DIR/www" &
QT_PIDS="$QT_PIDS $!"
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
QT_PIDS="$QT_PIDS $ctl"

# vm_boot NAME N APPEND [NIC-OPTIONS]: boot the image in QEMU in the
# namespace, its console on a socket the test writes to (vm) and in the
# log qt_wait reads; reports the READY line of ROLE-MAC N as a case.
vm_boot() {
	QT_CASE="$1 VM"
	QT_LOG=$QT_DIR/$1.log
	SOCK=$QT_DIR/$1.sock
	: >"$QT_LOG"
	QT_T0=$(date +%s%3N)
	$X $QT_QEMU -display none -no-reboot -monitor none \
		-kernel "$IMAGES/vmlinuz" -initrd "$IMAGES/initramfs.cpio.gz" \
		-append "console=ttyS0,115200 benchboot.debug=1 $3" \
		-chardev "socket,id=ser,path=$SOCK,server=on,wait=off,logfile=$QT_LOG" \
		-serial chardev:ser \
		-nic "user,model=virtio-net-pci,mac=$(qt_mac "$2")${4:-}" \
		>"$QT_DIR/$1.qemu.log" 2>&1 &
	QT_PID=$!
	QT_PIDS="$QT_PIDS $QT_PID"
	# (Not qt_ready: the debug shell's prompt may begin the READY line.)
	if qt_wait "BENCHBOOT-READY role=$1 id=$(qt_macid "$2" "$1") ip=" \
		"$(qt_timeout 30)"; then
		ok "$1 VM ready ($(qt_secs "$QT_MS") s, $QT_ACCEL)"
		return 0
	fi
	not_ok "$1 VM ready"
	qt_tail
	return 1
}
vm() { printf '%s\n' "$*" | socat - "UNIX-CONNECT:$SOCK" >/dev/null; }
# steps ID FILE: the clock_step checks of host ID in result FILE.
steps() {
	check "$1: a clock_step forward, about an hour" qt_jqe --arg id "$1" \
		'[.events[] | select(.type == "clock_step" and .id == $id and
		 (.detail | test("^forward:3[56][0-9][0-9]")))] | length == 1' "$2"
	check "$1: and one back" qt_jqe --arg id "$1" '[.events[] |
		select(.type == "clock_step" and .id == $id and
		 (.detail | test("^back:3[56][0-9][0-9]")))] | length == 1' "$2"
	check "$1: the step complete, its figures sane" qt_jqe \
		'.steps[0].repeats[0].complete == true and
		 .steps[0].stats.http.requests_per_s.median > 0 and
		 .steps[0].stats.http.p99_ns.median < 1000000000' "$2"
	jq -c '[.events[] | select(.type == "clock_step") | .detail]' "$2" \
		2>/dev/null | sed "s/^/# $1: /"
}
# jump: the VM's clock an hour ahead, 8 s later back.
jump() {
	sleep 8
	vm 'date -s @$(($(date +%s) + 3600)) >/dev/null'
	sleep 8
	vm 'date -s @$(($(date +%s) - 3600)) >/dev/null'
}

# --- on a client --------------------------------------------------------
id=$(qt_macid 9)
vm_boot client 9 "benchboot.role=client benchboot.controller=10.0.2.2 benchboot.target=10.0.2.2" ||
	{ tap_done; exit 1; }
check "the client joins and the step starts" wait_for "$(qt_timeout 30)" \
	grep -q "step http/" "$QT_DIR/ctl.log"
jump
check "the controller finished" wait_for "$(qt_timeout 60)" sh -c \
	"! kill -0 $ctl 2>/dev/null"
res=$(ls "$QT_DIR"/spool/results/clock-*.json 2>/dev/null | head -1)
check "a result" test -n "$res"
steps "$id" "$res"
qt_stop

# --- on the controller ---------------------------------------------------
# The VM is the controller (its suite from the namespace's httpd, its
# result to a collector there); the client is the namespace's agent,
# through a forwarded port; the server is 10.0.2.2 for both (the
# namespace's loopback holds that address too).
ip -n "$QT_NS" addr add 10.0.2.2/32 dev lo
cp "$QT_DIR/clock.suite" "$QT_DIR/www/"
# The collector runs as nobody: its store where nobody can reach it.
qt_shared_dir
COLLECTED=$QT_SHARED/collected
mkdir -p "$COLLECTED"
# As root the collector needs --user: nobody, its store made nobody's.
CU=
if [ "$(id -u)" = 0 ]; then
	chown nobody "$COLLECTED"
	CU="--user nobody"
fi
$X "$BENCHBOOT" collect --dir "$COLLECTED" $CU \
	--listen 127.0.0.1:8081 --token tk >"$QT_DIR/collect.log" 2>&1 &
QT_PIDS="$QT_PIDS $!"
$X "$BENCHBOOT" agent --role=client --id clk-cl --once \
	--controller 127.0.0.1:7408 --target 10.0.2.2 >"$QT_DIR/cl.log" 2>&1 &
QT_PIDS="$QT_PIDS $!"
cid=$(qt_macid 10 controller)
vm_boot controller 10 "benchboot.role=controller benchboot.suite=http://10.0.2.2:8080/clock.suite benchboot.target=10.0.2.2 benchboot.peers=1 benchboot.upload=http://10.0.2.2:8081/results/ benchboot.token=tk" \
	",hostfwd=tcp:127.0.0.1:7408-:7407" || { tap_done; exit 1; }
check "the namespace's client joins, the step starts" wait_for \
	"$(qt_timeout 30)" grep -q "step http/" "$QT_DIR/cl.log"
jump
check "the result reaches the collector" wait_for "$(qt_timeout 60)" sh -c \
	"ls '$COLLECTED'/clock-*.json"
res=$(ls "$COLLECTED"/clock-*.json 2>/dev/null | head -1)
steps "$cid" "$res"
qt_stop
tap_done
