#!/bin/sh
# 020_pseries_iso: SLOF boots the ISO from a virtual SCSI CD (spapr-vscsi,
# as PowerVM's virtual optical device), GRUB for Open Firmware shows the
# role menu and boots the default (client) entry; the id comes from the
# virtio NIC's MAC.
# harness: parallel
. "$(dirname "$0")/../lib.sh"
qt_init
ISO=$IMAGES/benchboot-$ARCH.iso
qt_need "$ISO"

QT_CASE="pseries ISO boot"
qt_start iso -cdrom "$ISO" -boot d \
	-nic "user,model=virtio-net-pci,mac=$(qt_mac 42)"
if qt_ready client "$(qt_macid 42)" 60; then
	check "$QT_CASE: SLOF loaded GRUB from the CD" \
		grep -q 'v-scsi.*Successfully loaded' "$QT_LOG"
	check "$QT_CASE: GRUB offered the role menu" \
		grep -q 'benchboot server (system under test)' "$QT_LOG"
	check_eq "$QT_CASE: DHCP address over virtio-net" "$(qt_ip)" 10.0.2.15
fi
qt_stop
tap_done
