#!/bin/sh
# 070_netboot_serve: netboot/serve on a lab LAN that already has a DHCP
# server: in network namespaces this test creates (never the host's
# network), a BIOS VM and a UEFI VM PXE-boot from serve's proxy-DHCP + TFTP
# (boot file by option 93), take their address from the LAN's own DHCP
# server, and reach READY.
. "$(dirname "$0")/../lib.sh"
qt_init
# wait_for (servers.sh), its data under QT_DIR.
RUN_DIR=$QT_DIR
. "$TOP/payload/tests/lib/servers.sh"
NB=$IMAGES/netboot
qt_need "$NB/pxelinux.0" "$OVMF_CODE" "$OVMF_VARS" "$BUSYBOX"

lab=bbnb$$ dhcp=bbnbd$$
teardown() {
	qt_cleanup
	ip netns del "$lab" 2>/dev/null
	ip netns del "$dhcp" 2>/dev/null
}
trap teardown EXIT

# The lab LAN: a bridge in $lab (serve listens on it, 10.77.0.1) with the
# VM's tap and a veth to $dhcp, where BusyBox udhcpd is the LAN's ordinary
# DHCP server (10.77.0.2, leases .100-.150).
if ! { ip netns add "$lab" && ip netns add "$dhcp"; } 2>/dev/null; then
	skip "network namespaces unavailable (needs root)"
	tap_done
	exit 0
fi
in_lab() { ip netns exec "$lab" "$@"; }
in_lab ip link set lo up
in_lab ip link add br0 type bridge
in_lab ip addr add 10.77.0.1/24 dev br0
in_lab ip tuntap add dev tap0 mode tap
in_lab ip link set tap0 master br0
in_lab ip link add veth0 type veth peer name veth1 netns "$dhcp"
in_lab ip link set veth0 master br0
for l in br0 tap0 veth0; do in_lab ip link set "$l" up; done
ip -n "$dhcp" addr add 10.77.0.2/24 dev veth1
ip -n "$dhcp" link set veth1 up
cat >"$QT_DIR/udhcpd.conf" <<EOC
start 10.77.0.100
end 10.77.0.150
interface veth1
lease_file $QT_DIR/udhcpd.leases
option subnet 255.255.255.0
EOC
: >"$QT_DIR/udhcpd.leases"
ip netns exec "$dhcp" "$BUSYBOX" udhcpd -f "$QT_DIR/udhcpd.conf" \
	>"$QT_DIR/udhcpd.log" 2>&1 &
QT_PIDS="$QT_PIDS $!"
# Not through in_lab: a function run in the background is a subshell,
# and killing it left serve, its dnsmasq and its httpd running.
ip netns exec "$lab" "$TOP/netboot/serve" br0 --tree "$NB" \
	--http-port 8080 >"$QT_DIR/serve.log" 2>&1 &
serve=$!
QT_PIDS="$QT_PIDS $serve"
if wait_for_serve() { grep -q 'started, version' "$QT_DIR/serve.log"; } &&
	n=0 && while ! wait_for_serve && [ $n -lt 50 ]; do sleep 0.1; n=$((n + 1)); done &&
	wait_for_serve; then
	ok "serve: dnsmasq runs on br0 in the test's namespace"
else
	not_ok "serve: dnsmasq runs on br0 in the test's namespace"
	sed 's/^/#   /' "$QT_DIR/serve.log"
	tap_done
	exit 1
fi

QT_WRAP="ip netns exec $lab"
# lan_ip: true when the READY address came from the LAN's DHCP server.
lan_ip() {
	case $(qt_ip) in
	10.77.0.1[0-4][0-9] | 10.77.0.150) return 0 ;;
	esac
	diag "  READY address '$(qt_ip)' is not from udhcpd's pool"
	return 1
}

QT_CASE="serve, BIOS PXE"
qt_start serve-bios \
	-netdev tap,id=n0,ifname=tap0,script=no,downscript=no \
	-device "virtio-net-pci,netdev=n0,mac=$(qt_mac 12),bootindex=1"
if qt_ready client "$(qt_macid 12)" 60; then
	check "serve, BIOS PXE: address from the LAN's DHCP server" lan_ip
	check "serve, BIOS PXE: option 93 = 0 got pxelinux.0 by TFTP" \
		grep -q "sent .*/pxelinux.0 to" "$QT_DIR/serve.log"
fi
qt_stop

QT_CASE="serve, UEFI PXE"
# shellcheck disable=SC2046
qt_start serve-uefi -M q35 $(qt_uefi serve-uefi) \
	-netdev tap,id=n0,ifname=tap0,script=no,downscript=no \
	-device "virtio-net-pci,netdev=n0,mac=$(qt_mac 13),romfile=,bootindex=1"
if qt_ready client "$(qt_macid 13)" 60; then
	check "serve, UEFI PXE: address from the LAN's DHCP server" lan_ip
	check "serve, UEFI PXE: option 93 = 7 got serve's GRUB image by TFTP" \
		grep -q "sent .*/bootx64.efi to" "$QT_DIR/serve.log"
fi
qt_stop

# A lab admin stops serve with Ctrl-C or kill: nothing of it may stay.
kids=$(pgrep -P "$serve" | tr '\n' ' ')
kill "$serve"
gone() {
	for p in $serve $kids; do kill -0 "$p" 2>/dev/null && return 1; done
	return 0
}
stops() { [ "$(echo $kids | wc -w)" = 2 ] && wait_for 5 gone; }
check "serve: TERM stops it, its dnsmasq and its httpd within 5 s" stops
tap_done
