#!/bin/sh
# 060_linklocal: a VM whose only link has no DHCP server (an e1000 on an
# empty QEMU hub) falls back to an IPv4 link-local 169.254.x.x address;
# with benchboot.debug=1 the serial console gets a root shell.
# harness: parallel
. "$(dirname "$0")/../lib.sh"
qt_init
qt_need "$IMAGES/vmlinuz" "$IMAGES/initramfs.cpio.gz"

QT_CASE="no DHCP server"
qt_start linklocal -kernel "$IMAGES/vmlinuz" \
	-initrd "$IMAGES/initramfs.cpio.gz" \
	-append "console=ttyS0,115200 benchboot.role=client benchboot.id=ll-1 benchboot.debug=1" \
	-netdev hubport,id=n0,hubid=7 \
	-device "e1000,netdev=n0,mac=$(qt_mac 6)"
if qt_ready client ll-1 40; then
	case $(qt_ip) in
	169.254.*.*) ok "no DHCP server: link-local address $(qt_ip)" ;;
	*) not_ok "no DHCP server: link-local address"; diag "  got '$(qt_ip)'" ;;
	esac
	check "no DHCP server: the console says it fell back to link-local" \
		grep -q 'no DHCP answer on eth0' "$QT_LOG"
	check "benchboot.debug=1: a root shell prompt on the serial console" \
		qt_wait '^/ # ' 10
fi
tap_done
