#!/bin/sh
# 030_pseries_netboot: SLOF netboots the netboot tree through QEMU's own
# DHCP and TFTP on PowerVM's virtual Ethernet (spapr-vlan, ibmveth in
# Linux), the tree under ppc64le/ of the TFTP root as netboot/serve lays
# it out (bootfile ppc64le/grub/powerpc-ieee1275/core.elf;
# docs/powerpc.md).  GRUB finds that card through Open Firmware (with the
# ofnet.mod the build rebuilds: image/grub-ofnet.sh), reads grub.cfg,
# vmlinux and the initramfs by TFTP from there and boots the default
# entry (client); the id comes from the NIC's MAC.  Then the pxelinux
# config that petitboot reads instead.
# harness: parallel
. "$(dirname "$0")/../../lib.sh"
qt_init
NB=$IMAGES/netboot
qt_need "$NB/grub/powerpc-ieee1275/core.elf" "$NB/grub/grub.cfg" \
	"$NB/$(basename "$QT_KERNEL")" "$NB/initramfs.cpio.gz" \
	"$NB/pxelinux.cfg/default"

# step DESC REGEX SECS: the console shows REGEX within SECS (scaled for
# TCG); the console's tail on failure, since each step needs the last.
step() {
	if qt_wait "$2" "$(qt_timeout "$3")"; then
		ok "$QT_CASE: $1 ($(qt_secs $QT_MS) s)"
	else
		not_ok "$QT_CASE: $1"
		qt_tail
	fi
}

QT_CASE="pseries netboot"
mkdir -p "$QT_DIR/tftp"
ln -s "$NB" "$QT_DIR/tftp/ppc64le"
qt_start net -boot n -netdev "user,id=n0,tftp=$QT_DIR/tftp,\
bootfile=ppc64le/grub/powerpc-ieee1275/core.elf" \
	-device "spapr-vlan,netdev=n0,mac=$(qt_mac 43)"
step "SLOF got a DHCP lease from QEMU" 'Using IPv4 address: 10\.0\.2\.15' 20
step "SLOF loaded GRUB over TFTP" \
	'TFTP: Received ppc64le/grub/powerpc-ieee1275/core.elf' 10
# The menu comes from ppc64le/grub/grub.cfg, which GRUB reads from the
# TFTP server only if ofnet registered the card SLOF booted from.
step "GRUB found the card and read grub.cfg over TFTP" \
	'benchboot server \(system under test\)' 20
step "Linux runs with the default entry's command line" \
	'Kernel command line: BOOT_IMAGE=\(tftp,10\.0\.2\.2\)ppc64le/vmlinux '\
'console=hvc0 benchboot\.role=client' 40
if qt_ready client "$(qt_macid 43)" 40; then
	check_eq "$QT_CASE: DHCP address over spapr-vlan" "$(qt_ip)" 10.0.2.15
fi
qt_stop
check "$QT_CASE: petitboot's pxelinux config names the kernel and initrd" \
	grep -q "KERNEL $(basename "$QT_KERNEL")" "$NB/pxelinux.cfg/default"
check "$QT_CASE: and boots with the hypervisor console" \
	grep -q 'APPEND console=hvc0 benchboot.role=client' \
	"$NB/pxelinux.cfg/default"
tap_done
