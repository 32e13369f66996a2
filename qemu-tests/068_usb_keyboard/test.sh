#!/bin/sh
# 068_usb_keyboard: the debug shell can be typed at on a USB keyboard.  A
# machine with no PS/2 controller (i8042=off), an xHCI controller and a USB
# keyboard boots with benchboot.debug=1 (a shell on every console, the
# screen's tty1 among them); usbhid and hid-generic must bind the
# keyboard, and a command typed on it with QEMU's sendkey (monitor
# socket) must run in tty1's shell: it writes its output to the serial
# console, where the test reads it.
# harness: parallel
. "$(dirname "$0")/../lib.sh"
qt_init
qt_need "$IMAGES/vmlinuz" "$IMAGES/initramfs.cpio.gz"
if ! command -v socat >/dev/null; then
	skip "socat is not installed (QEMU's monitor socket)"
	tap_done
	exit 0
fi

MON=$QT_DIR/monitor.sock
QT_CASE="USB keyboard"
qt_start kbd -kernel "$IMAGES/vmlinuz" \
	-initrd "$IMAGES/initramfs.cpio.gz" \
	-append "console=tty0 console=ttyS0,115200 no_timer_check benchboot.role=client benchboot.id=kbd-1 benchboot.debug=1" \
	-monitor "unix:$MON,server=on,wait=off" \
	-machine pc,i8042=off -device qemu-xhci -device usb-kbd -nic none
if qt_ready client kbd-1 30; then
	check "usbhid and hid-generic bind the keyboard" qt_wait \
		'hid-generic [0-9A-F:.]*: input,hidraw[0-9]*: USB HID .* Keyboard \[QEMU QEMU USB Keyboard\]' 10
	check "no PS/2 controller: the keys can come only over USB" \
		grep -q 'i8042: No controller found' "$QT_LOG"
	# The command's output differs from what is typed: only the shell
	# that ran it can have written kbd42.
	check_eq "no output before the command is typed" \
		"$(grep -ac '^kbd42' "$QT_LOG")" 0
	# echo kbd$((6*7)) >/dev/ttyS0, key by key (US layout).
	keys="e c h o spc k b d shift-4 shift-9 shift-9 6 shift-8 7 shift-0
		shift-0 spc shift-dot slash d e v slash t t y shift-s 0 ret"
	{
		for k in $keys; do echo "sendkey $k"; done
		sleep 1
	} | socat - "UNIX-CONNECT:$MON" >"$QT_DIR/monitor.out" 2>&1
	if qt_wait '^kbd42' "$(qt_timeout 10)"; then
		ok "the command typed on the USB keyboard ran ($(qt_secs $QT_MS) s)"
	else
		not_ok "the command typed on the USB keyboard ran"
		qt_tail
	fi
fi
tap_done
