#!/bin/sh
# 030_usb: the USB-stick image, attached as a USB mass-storage disk, boots
# on BIOS and on UEFI; the booted system mounts its BBRESULTS partition and
# what it writes there is readable from the image file with mtools.
. "$(dirname "$0")/../lib.sh"
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

# boot N NAME FIRMWARE-ARGS...: boot the stick once with MAC N.
boot() {
	local n=$1 name=$2
	shift 2
	QT_CASE="USB on $name"
	# shellcheck disable=SC2046
	qt_start "usb-$name" "$@" \
		-drive "if=none,id=stick,format=raw,file=$stick" \
		-device qemu-xhci -device usb-storage,drive=stick,bootindex=1 \
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
boot 7 BIOS
# shellcheck disable=SC2046
boot 8 UEFI -M q35 $(qt_uefi usb-uefi)
tap_done
