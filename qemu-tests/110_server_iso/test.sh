#!/bin/sh
# 110_server_iso: the ISO's server entry loads the server overlay after the
# base initramfs (GRUB, BIOS): the test picks the entry from the menu with
# the QEMU monitor's sendkey, waits for READY, and fetches the page through
# a user-net port forward, so the stack really came from the ISO.
# harness: parallel
. "$(dirname "$0")/../lib.sh"
qt_init
. "$TOP/payload/tests/lib/servers.sh"
ISO=$IMAGES/benchboot-$ARCH.iso
qt_need "$ISO" "$IMAGES/server-overlay.cpio.gz"

HP=$(free_port)
MON=$QT_DIR/monitor.sock
# mon CMD: one human-monitor command.
mon() { printf '%s\n' "$1" | socat -t 1 - "UNIX-CONNECT:$MON" >/dev/null 2>&1; }

QT_CASE="ISO server entry"
qt_start iso -m 1024 -cdrom "$ISO" -boot d \
	-chardev "socket,id=mon,path=$MON,server=on,wait=off" \
	-mon chardev=mon,mode=readline \
	-nic "user,model=virtio-net-pci,mac=$(qt_mac 2),hostfwd=tcp:127.0.0.1:$HP-:80"
if qt_wait 'benchboot server \(system under test\)' "$(qt_timeout 30)"; then
	# The menu is client, server, ...: one down from the default.
	sleep 0.5
	mon "sendkey down"
	sleep 0.3
	mon "sendkey ret"
	ok "$QT_CASE: GRUB menu shown, server entry chosen"
else
	not_ok "$QT_CASE: GRUB menu shown"
	qt_tail
	tap_done
	exit 1
fi
check "$QT_CASE: the kernel got benchboot.role=server" \
	qt_wait 'Command line: .*benchboot\.role=server' "$(qt_timeout 30)"
if qt_wait '^BENCHBOOT-(READY|STOPPED)' "$(qt_timeout 90)" &&
	grep -q '^BENCHBOOT-READY role=server ' "$QT_LOG"; then
	ok "$QT_CASE: BENCHBOOT-READY role=server ($(qt_secs $QT_MS) s, $QT_ACCEL)"
else
	not_ok "$QT_CASE: BENCHBOOT-READY role=server"
	qt_tail
fi
check "$QT_CASE: the stack from the overlay was up before READY" \
	grep -q 'server-start: up: Apache/2' "$QT_LOG"
check_eq "$QT_CASE: the page through the port forward" \
	"$(curl -fsS --max-time 20 "http://127.0.0.1:$HP/index.html" | wc -c)" \
	4050
tap_done
