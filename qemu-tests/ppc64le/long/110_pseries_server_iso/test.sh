#!/bin/sh
# 110_pseries_server_iso: the ppc64le ISO's server entry loads the server
# overlay (ppc64el Apache, MariaDB, Postfix) after the base initramfs:
# SLOF boots GRUB from the virtual SCSI CD, the test picks the server entry
# by typing the down arrow and Enter into the console (GRUB for Open
# Firmware reads its keys there), waits for READY, and fetches the page
# through a user-net port forward, so the stack really came from the ISO
# (as ../../110_server_iso does on x86_64).
# harness: parallel
. "$(dirname "$0")/../../lib.sh"
qt_init
ISO=$IMAGES/benchboot-$ARCH.iso
qt_need "$ISO" "$IMAGES/server-overlay.cpio.gz"

HP=$(qt_free_port)
QT_CONSOLE_SOCK=$QT_DIR/console.sock
QT_CASE="pseries ISO server entry"
qt_start iso -cdrom "$ISO" -boot d \
	-nic "user,model=virtio-net-pci,mac=$(qt_mac 43),hostfwd=tcp:127.0.0.1:$HP-:80"
# The menu is client, server, ...: one down from the default, typed
# before GRUB's 3 s timeout runs out.
qt_wait 'benchboot server \(system under test\)' "$(qt_timeout 30)" || {
	not_ok "$QT_CASE: GRUB menu shown"
	qt_tail
	tap_done
	exit 1
}
pick_server() { sleep 0.5 && qt_type '\033[B' && sleep 0.3 && qt_type '\r'; }
check "$QT_CASE: GRUB menu shown, server entry chosen" pick_server
check "$QT_CASE: the kernel got benchboot.role=server" qt_wait \
	'Kernel command line: .*benchboot\.role=server' "$(qt_timeout 30)"
if qt_ready server "$(qt_macid 43 server)" 90; then
	check "$QT_CASE: the stack from the overlay was up before READY" \
		grep -q 'server-start: up: Apache/2.* MariaDB .* Postfix' "$QT_LOG"
	check_eq "$QT_CASE: the page through the port forward" \
		"$(curl -fsS --max-time 20 "http://127.0.0.1:$HP/index.html" |
			wc -c)" 4050
fi
qt_stop
tap_done
