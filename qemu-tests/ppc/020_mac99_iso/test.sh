#!/bin/sh
# 020_mac99_iso: OpenBIOS (QEMU mac99, a G4 Mac) boots the ISO from the
# IDE CD-ROM as a New World Mac does (the CD's \\:tbxi, GRUB for Open
# Firmware), GRUB boots the default (client) entry; the kernel finds the
# CD through pata_macio and the id comes from the sungem NIC's MAC.
# harness: parallel
. "$(dirname "$0")/../lib.sh"
qt_init
ISO=$IMAGES/benchboot-$ARCH.iso
qt_need "$ISO"

QT_CASE="mac99 ISO boot"
boot_iso() {
	qt_start iso -cdrom "$ISO" -boot d \
		-nic "user,model=sungem,mac=$(qt_mac 52)"
}
boot_iso
# QEMU's OpenBIOS now and then hangs before GRUB has started the kernel
# (about one boot in five on a loaded machine, the console stopping at
# the same firmware lines a good boot prints; docs/ppc32.md): that is the
# emulated firmware, not the image, so such a boot is tried once more,
# and said so.  A kernel that starts and then fails is not retried.
if ! qt_wait 'printk: console \[ttyS0\] enabled' 90; then
	diag "the kernel did not start: firmware hang, booting once more"
	qt_tail
	qt_stop
	boot_iso
fi
if qt_ready client "$(qt_macid 52)" 90; then
	# GRUB's menu goes to OpenBIOS's screen, not the serial port: no
	# -kernel was given, so READY itself proves GRUB loaded the kernel
	# and initramfs from the CD with the default (client) entry.
	check "$QT_CASE: the built-in pata_macio found the CD drive" \
		grep -q 'sr0.*cd/rw' "$QT_LOG"
	check_eq "$QT_CASE: DHCP address over sungem" "$(qt_ip)" 10.0.2.15
fi
qt_stop
tap_done
