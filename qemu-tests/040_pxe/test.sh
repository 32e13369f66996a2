#!/bin/sh
# 040_pxe: the netboot tree boots over the network: BIOS PXE (SeaBIOS +
# iPXE ROM) with pxelinux and UEFI PXE (OVMF's own stack) with GRUB's
# network image, both from QEMU's built-in TFTP, and the iPXE script over
# HTTP from a server on 127.0.0.1 (BusyBox httpd).
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
tap_done
