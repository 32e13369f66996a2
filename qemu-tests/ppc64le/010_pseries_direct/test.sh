#!/bin/sh
# 010_pseries_direct: QEMU pseries (SLOF) boots vmlinux + initramfs given
# with -kernel/-initrd, on PowerVM's virtual NIC (spapr-vlan: the ibmveth
# module, as in an LPAR); DHCP, role and id from the command line, and
# benchboot.poweroff=1 powers the machine off when the role ends (a
# controller given a suite that does not exist ends at once, as in
# ../../010_direct).
# harness: parallel
. "$(dirname "$0")/../lib.sh"
qt_init
qt_need "$QT_KERNEL" "$IMAGES/initramfs.cpio.gz"

QT_CASE="pseries direct boot"
qt_start direct -kernel "$QT_KERNEL" -initrd "$IMAGES/initramfs.cpio.gz" \
	-append "$QT_CONSOLE benchboot.role=controller benchboot.id=ppc-direct-1 benchboot.suite=nosuch-suite benchboot.poweroff=1" \
	-netdev user,id=n0 -device "spapr-vlan,netdev=n0,mac=$(qt_mac 41)"
if qt_ready controller ppc-direct-1 40; then
	# spapr-vlan is the only NIC: the lease proves ibmveth was loaded.
	check_eq "$QT_CASE: DHCP address over spapr-vlan (ibmveth)" \
		"$(qt_ip)" 10.0.2.15
	check "$QT_CASE: the kernel is the pinned ppc64le one" \
		grep -q 'Linux version .*powerpc64le' "$QT_LOG"
	check "$QT_CASE: the ppc64le agent got the configuration" \
		qt_wait "^benchboot agent: .*nosuch-suite" 20
	check "$QT_CASE: benchboot.poweroff=1 powers off when the role ends" \
		qt_exited "$(qt_timeout 30)"
	check "$QT_CASE: the power-off was clean (init ran its shutdown)" \
		grep -q 'reboot: Power down' "$QT_LOG"
fi
tap_done
