#!/bin/sh
# 067_two_nics: machines with two NICs, the first on a network of its own
# (an empty QEMU hub: a link, nobody on it), the second on the LAN where
# the peers are (a bridge in a network namespace, with an HTTP target and
# a collector).  A client with no benchboot.if= (two virtio NICs, eth0
# the isolated one, both left with link-local addresses: 169.254/16 is
# routed out of eth0 first) must find its controller and run; a
# controller with benchboot.if=MAC (in upper case) uses only that NIC,
# its other one (an e1000) stays down.  One short HTTP step runs against
# the target and the result is uploaded: it must name, per host, every
# NIC (drivers virtio_net and e1000, speed and duplex as QEMU's speed=
# and duplex= give them, none for a down NIC) and suite_nic, the second
# one.  A third VM's benchboot.if= names no NIC: the role stops, saying
# what and which NICs there are.  NICs are named by MAC here: the kernel
# names them in the order their drivers bind.
. "$(dirname "$0")/../lib.sh"
qt_init
qt_need "$IMAGES/vmlinuz" "$IMAGES/initramfs.cpio.gz"
BENCHBOOT=${BENCHBOOT:-$O/$ARCH/bin/benchboot}
if [ "$(id -u)" != 0 ]; then
	skip "needs root (a bridge and taps in a network namespace)"
	tap_done
	exit 0
fi
NS=bb2nic$$
HOST=169.254.0.1
cleanup() {
	qt_cleanup
	ip netns del "$NS" 2>/dev/null
}
trap cleanup EXIT

# The LAN: a bridge with the host side's address (outside zcip's range),
# a tap for each VM's second NIC; an HTTP target (BusyBox httpd) that also
# serves the suite, and a collector.
ip netns add "$NS" && ip -n "$NS" link set lo up &&
	ip -n "$NS" link add br0 type bridge &&
	ip -n "$NS" link set br0 type bridge mcast_snooping 0 &&
	ip -n "$NS" addr add "$HOST/16" dev br0 &&
	ip -n "$NS" link set br0 up &&
	for t in tapc tapk; do
		ip -n "$NS" tuntap add dev $t mode tap &&
			ip -n "$NS" link set $t master br0 up || exit 1
	done
check_eq "the LAN: namespace, bridge, two taps" "$?" 0
W=$QT_DIR/www
# The collector runs as nobody: its store where nobody can reach it.
qt_shared_dir
RES=$QT_SHARED/results
mkdir -p "$W" "$RES"
head -c 4096 /dev/zero | tr '\0' x >"$W/index.html"
cat >"$W/two-nics.suite" <<'EOF'
suite two-nics
version 1
clients 1
servers 0
wait 120s
repeats 1
warmup 1s
duration 3s
cooldown 0s
max_error_rate 10%

step http
	run http -t 1 -c 2 -d {duration} --warmup {warmup} http://{server}:8080/index.html
EOF
ip netns exec "$NS" "$BUSYBOX" httpd -f -p "$HOST:8080" -h "$W" \
	>"$QT_DIR/httpd.log" 2>&1 &
QT_PIDS="$QT_PIDS $!"
TOKEN=$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')
# A keyed lab: an open one loads no target its agents did not find.
KEY=$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')
echo "$TOKEN" >"$QT_DIR/token"
chown nobody "$RES"
ip netns exec "$NS" "$BENCHBOOT" collect --user nobody \
	--dir "$RES" --listen "$HOST:8081" \
	--token-file "$QT_DIR/token" >"$QT_DIR/collect.log" 2>&1 &
QT_PIDS="$QT_PIDS $!"

CTL_MAC1=52:54:00:bb:20:01 CTL_MAC2=52:54:00:bb:20:02
CLI_MAC1=52:54:00:bb:20:03 CLI_MAC2=52:54:00:bb:20:04
BOOT="-kernel $IMAGES/vmlinuz -initrd $IMAGES/initramfs.cpio.gz"
QT_WRAP="ip netns exec $NS"
# shellcheck disable=SC2086
qt_start ctl $BOOT -append "console=ttyS0,115200 benchboot.role=controller benchboot.id=ctl2nic benchboot.if=$(echo $CTL_MAC2 | tr a-f A-F) benchboot.target=$HOST benchboot.suite=http://$HOST:8080/two-nics.suite benchboot.upload=http://$HOST:8081/results/ benchboot.token=$TOKEN benchboot.key=$KEY benchboot.peers=1 benchboot.poweroff=1" \
	-netdev hubport,id=i0,hubid=1 \
	-device "e1000,netdev=i0,mac=$CTL_MAC1,romfile=" \
	-netdev tap,id=n1,ifname=tapc,script=no,downscript=no \
	-device "virtio-net-pci,netdev=n1,mac=$CTL_MAC2,romfile=,speed=1000,duplex=full"
CTL_LOG=$QT_LOG CTL_PID=$QT_PID CTL_T0=$QT_T0
# shellcheck disable=SC2086
qt_start cli $BOOT -append "console=ttyS0,115200 benchboot.role=client benchboot.id=cli2nic benchboot.key=$KEY benchboot.poweroff=1" \
	-netdev hubport,id=i0,hubid=2 \
	-device "virtio-net-pci,netdev=i0,mac=$CLI_MAC1,romfile=" \
	-netdev tap,id=n1,ifname=tapk,script=no,downscript=no \
	-device "virtio-net-pci,netdev=n1,mac=$CLI_MAC2,romfile=,speed=1000,duplex=full"
CLI_LOG=$QT_LOG CLI_PID=$QT_PID CLI_T0=$QT_T0
QT_WRAP=
# shellcheck disable=SC2086
qt_start bad $BOOT -append "console=ttyS0,115200 benchboot.role=client benchboot.id=bad2nic benchboot.if=02:00:00:00:00:99" \
	-netdev hubport,id=i0,hubid=3 \
	-device "virtio-net-pci,netdev=i0,mac=$CLI_MAC1,romfile="

QT_CASE="benchboot.if= names no NIC"
if qt_wait 'BENCHBOOT-STOPPED' "$(qt_timeout 40)"; then
	check "$QT_CASE: the console says which parameter and which NICs there are" \
		grep -q "BENCHBOOT-ERROR benchboot: kernel parameter 'benchboot.if=02:00:00:00:00:99': no network interface has this name or MAC (found: eth0 $CLI_MAC1)" "$QT_LOG"
else
	not_ok "$QT_CASE: the role stops"
	qt_tail
fi
qt_stop

QT_LOG=$CTL_LOG QT_PID=$CTL_PID QT_T0=$CTL_T0 QT_CASE="controller, benchboot.if=MAC"
qt_ready controller ctl2nic 60
case $(qt_ip) in
169.254.*) ok "$QT_CASE: a link-local address on the LAN ($(qt_ip))" ;;
*) not_ok "$QT_CASE: a link-local address on the LAN"; diag "got '$(qt_ip)'" ;;
esac
QT_LOG=$CLI_LOG QT_PID=$CLI_PID QT_T0=$CLI_T0 QT_CASE="client, two NICs"
qt_ready client cli2nic 60
check "$QT_CASE: the console says on which link peers answer" \
	qt_wait 'benchboot peers answer on eth[0-9], so 169.254/16 goes out of' \
	"$(qt_timeout 30)"
CHOSEN=$(sed -n 's/.*benchboot peers answer on \(eth[0-9]\),.*/\1/p' "$QT_LOG" |
	head -n 1)

# The run: the controller powers off once its result is uploaded.
QT_LOG=$CTL_LOG QT_PID=$CTL_PID QT_CASE="the run"
if qt_exited "$(qt_timeout 60)"; then
	ok "$QT_CASE: the controller ran the suite and powered off ($(qt_secs $(($(date +%s%3N) - CTL_T0))) s)"
else
	not_ok "$QT_CASE: the controller ran the suite and powered off"
	qt_tail
fi
R=$(ls "$RES"/*.json 2>/dev/null | head -n 1)
if [ -z "$R" ]; then
	not_ok "$QT_CASE: a result was uploaded"
	tap_done
	exit 1
fi
ok "$QT_CASE: a result was uploaded (${R##*/})"
# Kept beside the logs: QT_SHARED goes when the test ends.
cp "$R" "$QT_DIR/" && R=$QT_DIR/${R##*/}
check "$QT_CASE: the http step ran complete, requests/s > 0" jq -e \
	'[.steps[] | select(.name == "http")][0] | .complete_repeats == 1 and
	 .stats.http.requests_per_s.median > 0' "$R"
check "$QT_CASE: benchboot report reads and validates it" \
	"$BENCHBOOT" report "$R"
h() { jq -c ".environment.hosts[] | select(.id == \"$1\") | $2" "$R"; }
# A host's NICs as [mac, driver, ...], sorted by MAC.
check_eq "client: suite_nic is the NIC on the LAN, virtio_net at 1000 Mb/s full" \
	"$(h cli2nic '.suite_nic | [.mac, .driver, .speed_mbps, .duplex]')" \
	"[\"$CLI_MAC2\",\"virtio_net\",1000,\"full\"]"
check_eq "client: suite_nic is the link its console said peers answer on" \
	"$(h cli2nic '.suite_nic.name')" "\"$CHOSEN\""
# The isolated NIC has no speed= property: virtio_net tells no speed.
check_eq "client: both NICs in nics[], up, each with its driver; a speed only where QEMU gives one" \
	"$(h cli2nic '[.nics[] | [.mac, .driver, .operstate, .speed_mbps, .duplex]] | sort')" \
	"[[\"$CLI_MAC1\",\"virtio_net\",\"up\",null,null],[\"$CLI_MAC2\",\"virtio_net\",\"up\",1000,\"full\"]]"
check "client: every NIC has its PCI address and id, MTU, queues, offloads, an address" \
	test "$(h cli2nic '[.nics[] | select(.pci_address and .pci_id == "1af4:1000" and .mtu == 1500 and .rx_queues and .offloads.tso != null and (.ipv4[0] | startswith("169.254.")))] | length')" = 2
check_eq "controller: suite_nic is the NIC benchboot.if= named" \
	"$(h ctl2nic '.suite_nic | [.mac, .driver]')" \
	"[\"$CTL_MAC2\",\"virtio_net\"]"
check_eq "controller: the other NIC (e1000) stayed down: no address, no speed told" \
	"$(h ctl2nic "[.nics[] | select(.mac == \"$CTL_MAC1\") | [.driver, .operstate, .ipv4, .speed_mbps, .duplex]]")" \
	'[["e1000","down",null,null,null]]'
diag "client's NICs: $(h cli2nic '.nics')"
tap_done
