#!/bin/sh
# 020_iso: the hybrid ISO as a CD boots to the default (client) entry on
# BIOS (SeaBIOS, IDE CD) and on UEFI (OVMF on q35, AHCI CD); the id is
# derived from the NIC's MAC.
# harness: parallel
. "$(dirname "$0")/../lib.sh"
qt_init
ISO=$IMAGES/benchboot-$ARCH.iso
qt_need "$ISO" "$OVMF_CODE" "$OVMF_VARS"

QT_CASE="ISO on BIOS"
qt_start iso-bios -drive "file=$ISO,media=cdrom,if=ide,readonly=on" \
	-boot d -nic "user,model=virtio-net-pci,mac=$(qt_mac 2)"
qt_ready client "$(qt_macid 2)" 60 &&
	check "ISO on BIOS: GRUB offered the role menu on serial" \
		grep -q 'benchboot server (system under test)' "$QT_LOG"
qt_stop

QT_CASE="ISO on UEFI"
# shellcheck disable=SC2046
qt_start iso-uefi -M q35 $(qt_uefi iso-uefi) \
	-drive "file=$ISO,media=cdrom,if=none,id=cd,readonly=on" \
	-device ide-cd,drive=cd,bootindex=1 \
	$(qt_nic 3)
qt_ready client "$(qt_macid 3)" 60 &&
	check "ISO on UEFI: GRUB offered the role menu on serial" \
		grep -q 'benchboot server (system under test)' "$QT_LOG"
qt_stop
tap_done
