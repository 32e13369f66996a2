#!/bin/sh
# 032_secureboot: UEFI Secure Boot as PCs ship it (Debian's OVMF .ms build,
# Microsoft's keys enrolled): the ISO as a CD and the USB image as a disk
# each boot through Debian's signed shim, GRUB and kernel to READY; the
# kernel says Secure Boot is on and locks itself down, and loads every
# module of the image (Debian's signatures kept) with none refused and no
# taint.  On the stick the debug entry is chosen on the serial console,
# and its shell prints /proc/sys/kernel/tainted and the loaded modules.
# The suite between Secure-Boot VMs: long/036_secureboot_run.
# harness: parallel
. "$(dirname "$0")/../lib.sh"
qt_init
ISO=$IMAGES/benchboot-$ARCH.iso
IMG=$IMAGES/benchboot-$ARCH.img
qt_need "$ISO" "$IMG" "$OVMF_SB_CODE" "$OVMF_SB_VARS"

# The firmware refuses what Microsoft's keys did not sign (through shim,
# Debian's): "Access Denied" or a shim "Verification failed" would say
# the chain is broken.
refused() {
	! grep -aqE 'Access Denied|Verification failed|Security Violation|bad shim signature|you need to load the kernel first' \
		"$QT_LOG"
}

# qt_type TEXT: type TEXT (printf format: \r is Enter, \005 Ctrl-E) on the
# serial console of the VM started with QT_SERIAL_SOCK.
qt_type() {
	printf "$1" | socat -t 1 - "UNIX-CONNECT:$QT_SERIAL_SOCK" \
		>/dev/null 2>&1
}

# pick_debug: choose the stick's last entry, the debug shell, in GRUB's
# menu before its 3 s countdown ends.  One byte a key: under OVMF both
# GRUB's serial terminal and the firmware's console read the one UART, so
# an escape sequence (an arrow) can be split between them and lost (CI
# booted the default entry so under load).  Ctrl-E is GRUB's End key: the
# last entry whatever was pressed before, so it is sent until GRUB marks
# that entry ('*'), and Enter only then.  The menu is awaited at 50 ms
# steps, not qt_wait's 200, as the countdown runs from its first drawing.
pick_debug() {
	local end=$(($(date +%s) + $(qt_timeout 60))) n=0
	until grep -aq 'GNU GRUB' "$QT_LOG"; do
		[ "$(date +%s)" -lt $end ] && kill -0 "$QT_PID" 2>/dev/null ||
			return 1
		sleep 0.05
	done
	while ! grep -aq '\*benchboot client with a debug shell' "$QT_LOG"; do
		n=$((n + 1))
		[ $n -le 40 ] || return 1
		qt_type '\005'
		sleep 0.25
	done
	qt_type '\r'
}

QT_CASE="ISO, Secure Boot"
# shellcheck disable=SC2046
qt_start iso-sb $(qt_secureboot iso-sb) \
	-drive "file=$ISO,media=cdrom,if=none,id=cd,readonly=on" \
	-device ide-cd,drive=cd,bootindex=1 $(qt_nic 30)
if qt_ready client "$(qt_macid 30)" 120; then
	qt_locked_down
	check "$QT_CASE: nothing refused by the firmware or shim" refused
	check "$QT_CASE: GRUB read the ISO's menu" \
		grep -aq 'benchboot server (system under test)' "$QT_LOG"
fi
qt_stop

QT_CASE="USB image, Secure Boot"
stick=$QT_DIR/stick.img
cp --sparse=always "$IMG" "$stick"
QT_SERIAL_SOCK=$QT_DIR/usb-sb.serial
# shellcheck disable=SC2046
qt_start usb-sb $(qt_secureboot usb-sb) \
	-drive "if=none,id=stick,format=raw,file=$stick" \
	-device ide-hd,drive=stick,bootindex=1 $(qt_nic 31)
# The stick's menu: field, field-server, client, server, controller,
# debug (the last).
if pick_debug; then
	check "$QT_CASE: the debug entry chosen on the serial console" \
		qt_wait 'Command line: .*benchboot\.debug=1' "$(qt_timeout 30)"
else
	not_ok "$QT_CASE: the debug entry chosen in GRUB's menu"
	qt_tail
fi
if qt_ready client "$(qt_macid 31)" 90; then
	qt_locked_down
	check "$QT_CASE: nothing refused by the firmware or shim" refused
	# The shell: Enter for its prompt, then one line of facts.
	sleep 2
	qt_type '\r'
	sleep 1
	qt_type 'echo TAINT=$(cat /proc/sys/kernel/tainted) MODS=$(wc -l </proc/modules)\r'
	if qt_wait '^TAINT=[0-9]+ MODS=' "$(qt_timeout 30)"; then
		line=$(grep -a '^TAINT=' "$QT_LOG" | tr -d '\r' | tail -n 1)
		check_eq "$QT_CASE: /proc/sys/kernel/tainted" \
			"${line%% *}" TAINT=0
		mods=${line##*MODS=}
		check "$QT_CASE: modules loaded ($mods)" \
			test "${mods:-0}" -gt 0
	else
		not_ok "$QT_CASE: the debug shell answered"
		qt_tail
	fi
fi
qt_stop
tap_done
