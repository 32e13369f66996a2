#!/bin/sh
# 002_links: the link choices of initramfs/lib/benchboot/links.sh, run on
# the build host with the image's own BusyBox shell (no QEMU) over a fake
# /sys/class/net: the Ethernet links in ifindex order, benchboot.if='s
# pick by name or MAC, the NIC list an error names, and which link a
# browse says benchboot peers answer on (our own addresses left out).
# harness: parallel
TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
O=${O:-$TOP/out}
BUSYBOX=${BUSYBOX:-$O/${ARCH:-x86_64}/busybox/busybox}
. "$TOP/payload/tests/lib/tap.sh"
LINKS=$TOP/initramfs/lib/benchboot/links.sh

if ! [ -x "$BUSYBOX" ]; then
	not_ok "BusyBox at $BUSYBOX (run 'make' first)"
	tap_done
	exit 1
fi
D=$(mktemp -d)
trap 'rm -rf "$D"' EXIT

# nic NAME IFINDEX TYPE MAC: one fake interface.
nic() {
	mkdir -p "$D/net/$1"
	echo "$2" >"$D/net/$1/ifindex"
	echo "$3" >"$D/net/$1/type"
	echo "$4" >"$D/net/$1/address"
}
nic lo 1 772 00:00:00:00:00:00
nic eth1 3 1 52:54:00:bb:20:04
nic eth0 2 1 52:54:00:bb:20:03
nic mon9 5 803 02:00:00:00:00:05
nic enp10s0 10 1 a0:36:9f:00:00:0a

# sh FUNCTION ARGS...: FUNCTION's output (and status) in BusyBox ash.
run() {
	BB_SYS_NET=$D/net "$BUSYBOX" sh -c '. "$1"; shift; "$@"; echo "rc=$?"' \
		sh "$LINKS" "$@" | tr '\n' ' ' | sed 's/ $//'
}

check_eq "Ethernet links in ifindex order (loopback, a radiotap monitor left out)" \
	"$(run bb_links_all)" "eth0 eth1 enp10s0 rc=0"
check_eq "benchboot.if=NAME" "$(run bb_links_pick eth1)" "eth1 rc=0"
check_eq "benchboot.if=MAC (lower case, as params.sh keeps it)" \
	"$(run bb_links_pick a0:36:9f:00:00:0a)" "enp10s0 rc=0"
check_eq "benchboot.if= of no NIC" "$(run bb_links_pick 02:00:00:00:00:99)" \
	"rc=1"
check_eq "a link that is not Ethernet is not picked" "$(run bb_links_pick mon9)" "rc=1"
check_eq "the NICs an error names" "$(run bb_links_describe)" \
	"eth0 52:54:00:bb:20:03, eth1 52:54:00:bb:20:04, enp10s0 a0:36:9f:00:00:0a rc=0"
rm -rf "$D/net"
mkdir "$D/net"
check_eq "no NIC at all: 'none'" "$(run bb_links_describe)" "none rc=0"

# A browse's lines (name, host, address, port, interface, TXT): our own
# instance seen on both links (multicast loops back), a peer on eth1.
T=$(printf '\t')
SEEN="cli2nic${T}cli2nic.local${T}169.254.59.248${T}7407${T}eth0${T}role=client
cli2nic${T}cli2nic.local${T}169.254.134.184${T}7407${T}eth1${T}role=client
ctl2nic${T}ctl2nic.local${T}169.254.241.57${T}7407${T}eth1${T}role=controller"
MINE=" 127.0.0.1 169.254.59.248 169.254.134.184 "
check_eq "peers answer on eth1" "$(run bb_ll_peers_on eth1 "$SEEN" "$MINE")" \
	"rc=0"
check_eq "only ourselves on eth0: no peer there" \
	"$(run bb_ll_peers_on eth0 "$SEEN" "$MINE")" "rc=1"
check_eq "an address that only starts like ours is a peer's" \
	"$(run bb_ll_peers_on eth0 "$SEEN" " 169.254.59.24 ")" "rc=0"
check_eq "nothing seen: no peer" "$(run bb_ll_peers_on eth1 "" "$MINE")" \
	"rc=1"
tap_done
