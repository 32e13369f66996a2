#!/bin/sh
# 040_pxe: the netboot tree boots over the network: BIOS PXE (SeaBIOS +
# iPXE ROM) with pxelinux and UEFI PXE (OVMF's own stack) with GRUB's
# network image, both from QEMU's built-in TFTP, and the iPXE script over
# HTTP from a server on 127.0.0.1 (BusyBox httpd).  Then the lab example of
# docs/boot-pxe.md: a copy of the tree whose menus `netboot/menu.sh tree`
# rewrote with an extra parameter still boots the server entry with its
# overlay (BIOS, the entry typed at pxelinux's prompt).
# harness: parallel
. "$(dirname "$0")/../lib.sh"
qt_init
NB=$IMAGES/netboot
qt_need "$NB/pxelinux.0" "$NB/grub/x86_64-efi/core.efi" "$NB/boot.ipxe" \
	"$OVMF_CODE" "$OVMF_VARS" "$BUSYBOX"

QT_CASE="PXE on BIOS"
qt_start pxe-bios \
	-netdev "user,id=n0,tftp=$NB,bootfile=pxelinux.0" \
	-device "virtio-net-pci,netdev=n0,mac=$(qt_mac 9),bootindex=1"
qt_ready client "$(qt_macid 9)" 60 &&
	check "PXE on BIOS: pxelinux booted its default entry, consoles on VGA and serial" \
		grep -q 'Command line: BOOT_IMAGE=vmlinuz console=tty0 console=ttyS0,115200 benchboot.role=client' "$QT_LOG"
qt_stop

QT_CASE="PXE on UEFI"
# shellcheck disable=SC2046
qt_start pxe-uefi -M q35 $(qt_uefi pxe-uefi) \
	-netdev "user,id=n0,tftp=$NB,bootfile=grub/x86_64-efi/core.efi" \
	-device "virtio-net-pci,netdev=n0,mac=$(qt_mac 10),romfile=,bootindex=1"
qt_ready client "$(qt_macid 10)" 60 &&
	check "PXE on UEFI: GRUB showed the role menu" \
		grep -q 'benchboot server (system under test)' "$QT_LOG"
qt_stop

QT_CASE="iPXE over HTTP"
port=$(qt_free_port)
"$BUSYBOX" httpd -f -vv -p "127.0.0.1:$port" -h "$NB" \
	>"$QT_DIR/httpd.log" 2>&1 &
QT_PIDS="$QT_PIDS $!"
qt_start ipxe-http \
	-netdev "user,id=n0,bootfile=http://10.0.2.2:$port/boot.ipxe" \
	-device "virtio-net-pci,netdev=n0,mac=$(qt_mac 11),bootindex=1"
qt_ready client "$(qt_macid 11)" 60 &&
	check "iPXE over HTTP: the kernel and initramfs came over HTTP" \
		sh -c "grep -q 'url:/vmlinuz' '$QT_DIR/httpd.log' &&
			grep -q 'url:/initramfs.cpio.gz' '$QT_DIR/httpd.log'"
qt_stop

# The lab example: the menus of a copy of the tree (hard links: the
# rewrite renames new files in) with one more parameter on every entry.
QT_CASE="lab menus"
LAB=$QT_DIR/lab
P=benchboot.lab=qemu-lab
cp -al "$NB" "$LAB"
check "lab menus: netboot/menu.sh tree rewrote the three menus" \
	"$TOP/netboot/menu.sh" tree "$LAB" "$P"
# lines FILE REGEX: how many lines of FILE match REGEX (grep -E).
lines() { grep -cE "$2" "$1"; }
n=$(lines "$LAB/pxelinux.cfg/default" '^LABEL ')
check_eq "lab menus: every entry of the three menus has $P" \
	"$(lines "$LAB/pxelinux.cfg/default" "^	APPEND .* $P\$") \
$(lines "$LAB/grub/grub.cfg" "^	linux .* $P\$") \
$(lines "$LAB/boot.ipxe" "^kernel .* $P\$")" "$n $n $n"
check "lab menus: the server entries still load the overlay" sh -c "
	grep -qx '	INITRD initramfs.cpio.gz,server-overlay.cpio.gz' \
		'$LAB/pxelinux.cfg/default' &&
	grep -qx '	initrd /initramfs.cpio.gz /server-overlay.cpio.gz' \
		'$LAB/grub/grub.cfg' &&
	grep -qx 'initrd server-overlay.cpio.gz' '$LAB/boot.ipxe'"
check "lab menus: the built tree is untouched" sh -c \
	"! grep -q '$P' '$NB/pxelinux.cfg/default' '$NB/grub/grub.cfg' \
		'$NB/boot.ipxe'"

QT_CASE="lab menus, server on BIOS PXE"
MON=$QT_DIR/monitor.sock
# mon CMD: one human-monitor command.
mon() { printf '%s\n' "$1" | socat -t 1 - "UNIX-CONNECT:$MON" >/dev/null 2>&1; }
qt_start lab-server -m 1024 \
	-chardev "socket,id=mon,path=$MON,server=on,wait=off" \
	-mon chardev=mon,mode=readline \
	-netdev "user,id=n0,tftp=$LAB,bootfile=pxelinux.0" \
	-device "virtio-net-pci,netdev=n0,mac=$(qt_mac 12),bootindex=1"
if qt_wait '^boot:' "$(qt_timeout 30)"; then
	for k in s e r v e r ret; do
		mon "sendkey $k"
	done
	check "$QT_CASE: the kernel got the server entry with $P" qt_wait \
		"Command line: .*benchboot\.role=server $P" "$(qt_timeout 60)"
	check "$QT_CASE: the overlay was loaded (the stack starts)" \
		qt_wait 'starting the server stack' "$(qt_timeout 60)"
else
	not_ok "$QT_CASE: pxelinux's boot: prompt"
	qt_tail
fi
qt_stop
tap_done
