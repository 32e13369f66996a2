#!/bin/sh
# 066_nic_models: the hypervisors' NICs a lab meets, one per VM on one
# LAN (QEMU's multicast socket network: no root, no DHCP, so link-local
# addresses): a controller on an e1000e, clients on a vmxnet3 (VMware)
# and an rtl8139 (QEMU's, which 8139cp drives).  Each VM's driver must
# bind (its console names the NIC), each must reach READY, and the
# controller must see both clients join, each client be accepted by it.
. "$(dirname "$0")/../lib.sh"
qt_init
qt_need "$IMAGES/vmlinuz" "$IMAGES/initramfs.cpio.gz"

# A multicast group and port of this run's own on the loopback: the
# three NICs' wire.
port=$(qt_free_port)
NET="socket,mcast=230.0.66.1:$port,localaddr=127.0.0.1"
# no_timer_check: three TCG guests on a loaded host can miss the IO-APIC
# timer check at boot and panic ("IO-APIC + timer doesn't work").
APPEND="console=ttyS0,115200 no_timer_check"

# Table: VM, role, NIC model, driver, the console line the bound driver
# prints for the NIC.
cases="ctl controller e1000e e1000e ^\[.*\] e1000e [0-9a-f:.]* eth0: Intel
c1 client vmxnet3 vmxnet3 ^\[.*\] vmxnet3 [0-9a-f:.]* eth0: NIC Link is Up
c2 client rtl8139 8139cp ^\[.*\] 8139cp [0-9a-f:.]* eth0: RTL-8139C\+"
echo "$cases" >"$QT_DIR/cases"
i=0
while read -r vm role model drv re; do
	i=$((i + 1))
	peers=
	[ "$role" = controller ] && peers="benchboot.peers=2 benchboot.suite=smoke"
	qt_start "$vm" -kernel "$IMAGES/vmlinuz" \
		-initrd "$IMAGES/initramfs.cpio.gz" \
		-append "$APPEND benchboot.role=$role benchboot.id=$vm-$model $peers" \
		-netdev "$NET,id=n0" \
		-device "$model,netdev=n0,mac=52:54:00:bb:66:0$i,romfile="
	echo "$QT_PID $QT_T0" >"$QT_DIR/$vm.pid"
done <"$QT_DIR/cases"

# use VM: make VM the current one for qt_wait and qt_ready.
use() {
	QT_LOG=$QT_DIR/$1.log
	QT_PID=$(cut -d' ' -f1 "$QT_DIR/$1.pid")
	QT_T0=$(cut -d' ' -f2 "$QT_DIR/$1.pid")
}

while read -r vm role model drv re; do
	QT_CASE="$model NIC ($vm)"
	use "$vm"
	qt_ready "$role" "$vm-$model" 40 || continue
	if grep -qaE "$re" "$QT_LOG"; then
		ok "$QT_CASE: $drv drives it"
	else
		not_ok "$QT_CASE: $drv drives it"
		grep -a "$drv\|eth0" "$QT_LOG" | head -n 5 | sed 's/^/#   | /'
	fi
	check_eq "$QT_CASE: no BENCHBOOT-NIC line (driver and firmware found)" \
		"$(grep -ac '^BENCHBOOT-NIC ' "$QT_LOG")" 0
done <"$QT_DIR/cases"

# The peers: the controller sees each client join, each client is
# accepted by the controller.
use ctl
for c in c1-vmxnet3 c2-rtl8139; do
	if qt_wait "client $c joined from 169\.254\." "$(qt_timeout 20)"; then
		ok "the controller (e1000e) sees $c join ($(qt_secs $QT_MS) s)"
	else
		not_ok "the controller (e1000e) sees $c join"
		qt_tail
	fi
done
for vm in c1 c2; do
	use "$vm"
	model=$(awk -v v="$vm" '$1 == v {print $3}' "$QT_DIR/cases")
	if qt_wait "accepted by controller ctl-e1000e" "$(qt_timeout 20)"; then
		ok "the $model client is accepted by the controller"
	else
		not_ok "the $model client is accepted by the controller"
		qt_tail
	fi
done
tap_done
