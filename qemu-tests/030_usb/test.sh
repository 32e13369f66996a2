#!/bin/sh
# 030_usb: the USB-stick image boots as a disk on BIOS (a USB stick on
# xHCI) and on UEFI (a SATA disk: OVMF reads USB about 3x slower under
# software emulation); the booted system mounts its BBRESULTS partition and
# what it writes there is readable from the image file with mtools.
# harness: parallel
. "$(dirname "$0")/../lib.sh"
qt_init
IMG=$IMAGES/benchboot-$ARCH.img
qt_need "$IMG" "$OVMF_CODE" "$OVMF_VARS"

# A private copy: the guest writes to it.
stick=$QT_DIR/stick.img
cp --sparse=always "$IMG" "$stick"
off=$(qt_part_offset "$stick" 0c)
if [ -n "$off" ] &&
	mdir -i "$stick@@$off" :: >/dev/null 2>&1 &&
	[ "$(mlabel -s -i "$stick@@$off" :: 2>/dev/null | sed 's/.*is //' | tr -d ' ')" = BBRESULTS ]; then
	ok "USB image: FAT partition labelled BBRESULTS at byte $off"
else
	not_ok "USB image: FAT partition labelled BBRESULTS"
	tap_done
	exit 1
fi

# boot N NAME DISK FIRMWARE-ARGS...: boot the stick once with MAC N, as
# DISK (a -device taking drive=stick).
boot() {
	local n=$1 name=$2 disk=$3
	shift 3
	QT_CASE="USB on $name"
	# shellcheck disable=SC2046
	qt_start "usb-$name" "$@" \
		-drive "if=none,id=stick,format=raw,file=$stick" \
		$disk,drive=stick,bootindex=1 \
		$(qt_nic "$n")
	if qt_ready client "$(qt_macid "$n")" 60; then
		check "USB on $name: BBRESULTS mounted on /results" \
			grep -q 'results partition .* mounted on /results' "$QT_LOG"
	fi
	qt_stop
	if mtype -i "$stick@@$off" ::benchboot-boots.log 2>/dev/null |
		grep -q "boot id=$(qt_macid "$n") role=client ip=10.0.2.15"; then
		ok "USB on $name: the boot record written in the guest is in the image"
	else
		not_ok "USB on $name: the boot record written in the guest is in the image"
		mtype -i "$stick@@$off" ::benchboot-boots.log 2>&1 | sed 's/^/#   /'
	fi
}
boot 7 BIOS "-device qemu-xhci -device usb-storage"
# shellcheck disable=SC2046
boot 8 UEFI "-device ide-hd" -M q35 $(qt_uefi usb-uefi)
tap_done
