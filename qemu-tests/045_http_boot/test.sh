#!/bin/sh
# 045_http_boot: UEFI HTTP boot with Secure Boot on (OVMF .ms build,
# Microsoft's keys): netboot/serve --dhcp-range on a bridge in a network
# namespace this test creates (never the host's network) answers the
# firmware's DHCP vendor class HTTPClient with the URL of the ISO; the
# firmware loads it into a RAM disk and boots its EFI image (Debian's
# signed shim, GRUB and kernel; their signed GRUB has no HTTP client, so
# the ISO, not shim, is the URL: docs/boot-pxe.md); the VM reaches READY
# locked down, no module refused.  The firmware's PXE is switched off
# (fw_cfg), so only HTTP boot can start it.  Then a second VM PXE-boots
# the netboot tree with Secure Boot: shim and Debian's signed network
# GRUB by TFTP.
# harness: parallel
. "$(dirname "$0")/../lib.sh"
qt_init
RUN_DIR=$QT_DIR
. "$TOP/payload/tests/lib/servers.sh"
NB=$IMAGES/netboot
ISO=$IMAGES/benchboot-$ARCH.iso
qt_need "$NB/bootx64.efi" "$ISO" "$OVMF_SB_CODE" "$OVMF_SB_VARS" "$BUSYBOX"

ns=bbhb$$
teardown() {
	qt_cleanup
	ip netns del "$ns" 2>/dev/null
}
trap teardown EXIT
if ! ip netns add "$ns" 2>/dev/null; then
	skip "network namespaces unavailable (needs root)"
	tap_done
	exit 0
fi
in_ns() { ip netns exec "$ns" "$@"; }
in_ns ip link set lo up
in_ns ip link add br0 type bridge
in_ns ip addr add 10.78.0.1/24 dev br0
in_ns ip tuntap add dev tap0 mode tap
in_ns ip link set tap0 master br0
in_ns ip link set br0 up
in_ns ip link set tap0 up

ip netns exec "$ns" "$TOP/netboot/serve" br0 --tree "$NB" \
	--http-port 8080 --dhcp-range 10.78.0.100,10.78.0.150 --iso "$ISO" \
	>"$QT_DIR/serve.log" 2>&1 &
QT_PIDS="$QT_PIDS $!"
started() { grep -q 'started, version' "$QT_DIR/serve.log"; }
if wait_for 10 started; then
	ok "serve --dhcp-range: dnsmasq and httpd run on br0"
else
	not_ok "serve --dhcp-range: dnsmasq runs on br0"
	sed 's/^/#   /' "$QT_DIR/serve.log"
	tap_done
	exit 1
fi

QT_CASE="HTTP boot, Secure Boot"
QT_WRAP="ip netns exec $ns"
# shellcheck disable=SC2046
qt_start http-sb $(qt_secureboot http-sb) \
	-fw_cfg name=opt/org.tianocore/IPv4PXESupport,string=n \
	-fw_cfg name=opt/org.tianocore/IPv6Support,string=n \
	-netdev tap,id=n0,ifname=tap0,script=no,downscript=no \
	-device "virtio-net-pci,netdev=n0,mac=$(qt_mac 45),romfile=,bootindex=1"
if qt_ready client "$(qt_macid 45)" 150; then
	qt_locked_down
	check "$QT_CASE: dnsmasq saw vendor class HTTPClient" \
		grep -q 'vendor class: HTTPClient' "$QT_DIR/serve.log"
	check "$QT_CASE: and sent the ISO's URL as the boot file" grep -q \
		"bootfile-name  http://10.78.0.1:8080/${ISO##*/}" \
		"$QT_DIR/serve.log"
	check "$QT_CASE: the ISO came over HTTP" \
		grep -q "url:/${ISO##*/}\$" "$QT_DIR/serve.log"
	check "$QT_CASE: the firmware booted it as a RAM disk" \
		grep -aq 'BdsDxe: starting Boot.*UEFI HTTPv4' "$QT_LOG"
	check "$QT_CASE: GRUB read the ISO's menu" \
		grep -aq 'benchboot server (system under test)' "$QT_LOG"
	check "$QT_CASE: nothing came by TFTP" \
		sh -c "! grep -q 'sent .* to 10.78' '$QT_DIR/serve.log'"
fi
qt_stop
diag "boot to READY by HTTP: $(qt_secs "${QT_MS:-0}") s ($QT_ACCEL)"

# The tree's signed chain by UEFI PXE with Secure Boot (QEMU's DHCP and
# TFTP, as 040_pxe): bootx64.efi (shim) by TFTP, shim grubx64.efi
# (Debian's signed network GRUB) beside it, and GRUB its menu, kernel and
# initramfs, by TFTP.
QT_CASE="PXE, Secure Boot"
QT_WRAP=
# shellcheck disable=SC2046
qt_start pxe-sb $(qt_secureboot pxe-sb) \
	-netdev "user,id=n0,tftp=$NB,bootfile=bootx64.efi" \
	-device "virtio-net-pci,netdev=n0,mac=$(qt_mac 46),romfile=,bootindex=1"
if qt_ready client "$(qt_macid 46)" 120; then
	qt_locked_down
	check "$QT_CASE: GRUB read the tree's menu" \
		grep -aq 'benchboot server (system under test)' "$QT_LOG"
fi
qt_stop
tap_done
