#!/bin/sh
# 020_mac99_iso: OpenBIOS (QEMU mac99, a G4 Mac) boots the ISO from the
# IDE CD-ROM as a New World Mac does (the CD's \\:tbxi, GRUB for Open
# Firmware), GRUB boots the default (client) entry; the kernel finds the
# CD through pata_macio and the id comes from the sungem NIC's MAC.
. "$(dirname "$0")/../lib.sh"
ISO=$IMAGES/benchboot-$ARCH.iso
qt_need "$ISO"

QT_CASE="mac99 ISO boot"
qt_start iso -cdrom "$ISO" -boot d \
	-nic "user,model=sungem,mac=$(qt_mac 52)"
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
