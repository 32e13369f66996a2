#!/bin/sh
# 010_mac99_direct: QEMU mac99 (a G4 Mac, OpenBIOS) boots the 32-bit
# big-endian vmlinux + initramfs given with -kernel/-initrd, on the G4's
# on-board NIC (sungem, built into the kernel); DHCP, role and id from the
# command line, and benchboot.poweroff=1 ends the role's machine (a
# controller given a suite that does not exist ends at once, as in
# ../../010_direct).
# harness: parallel
. "$(dirname "$0")/../lib.sh"
qt_init
qt_need "$QT_KERNEL" "$IMAGES/initramfs.cpio.gz"

QT_CASE="mac99 direct boot"
qt_start direct -kernel "$QT_KERNEL" -initrd "$IMAGES/initramfs.cpio.gz" \
	-append "$QT_CONSOLE benchboot.role=controller benchboot.id=g4-direct-1 benchboot.suite=nosuch-suite benchboot.poweroff=1" \
	-nic "user,model=sungem,mac=$(qt_mac 51)"
if qt_ready controller g4-direct-1 60; then
	# sungem is the only NIC: the lease proves the driver found it.
	check_eq "$QT_CASE: DHCP address over sungem" "$(qt_ip)" 10.0.2.15
	check "$QT_CASE: OpenBIOS ran a G4 CPU" \
		grep -q 'CPU type PowerPC,G4' "$QT_LOG"
	check "$QT_CASE: the built-in sungem driver is eth0" \
		grep -q 'eth0: Sun GEM' "$QT_LOG"
	check "$QT_CASE: the ppc agent got the configuration" \
		qt_wait "^benchboot agent: .*nosuch-suite" 20
	check "$QT_CASE: benchboot.poweroff=1 powers off when the role ends" \
		qt_wait 'reboot: Power down' "$(qt_timeout 30)"
fi
qt_stop
tap_done
