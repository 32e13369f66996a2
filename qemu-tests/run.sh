#!/bin/bash
# run.sh: `make run`: the whole suite in QEMU on a private virtual LAN: one
# server VM (base + server overlay), CLIENTS client VMs, no addresses
# given; they find each other over mDNS, the suite runs, the result goes
# to a `benchboot collect` on the host side of the LAN, and the report is
# printed.  Everything it started is stopped and removed on exit, Ctrl-C
# included.  See docs/run.md.
#
# Environment (from `make run`): TOP, O, ARCH, IMAGES, BENCHBOOT, SUITE
# (smoke), CLIENTS (2), SUITE_SCALE (every time of the suite times this
# factor, benchboot.time_scale=; empty: full length), SUITE_SET (suite
# variables, A=1,B=2: benchboot.set=; with an emulated server and no
# SUITE_SET, RUN_EMU_SET's longer timeouts, empty for none), RUN_DIR
# (where logs and results go; default $O/run/DATE), RUN_STAGE_DIR (as
# root: where the collector, which runs as nobody, writes until its files
# are copied to RUN_DIR/results; default /tmp), RUN_UNTIL=collector (stop
# once the LAN is up and the collector answers, before any VM boots: a
# check of the set-up), RUN_TIMEOUT (seconds without a result; default 1800,
# extended while the controller says how long the suite has left),
# QT_ACCEL (kvm|tcg; by default qemu-tests/lib.sh's probe decides),
# RUN_QUIET=1 (no progress line, for CI logs), RUN_NET=netns|vde (the
# LAN; default netns as root, vde otherwise), RUN_SERVER_ARCH (the
# server VM's architecture, default ARCH: ppc64le boots the server from
# $O/ppc64le/images on qemu-system-ppc64 -M pseries under TCG, with the
# x86_64 clients: the mixed-architecture run, docs/powerpc.md),
# RUN_SERVER_IMAGES (default IMAGES, or $O/RUN_SERVER_ARCH/images).
# TARGET=ADDR: no server VM; a controller VM (benchboot.target=ADDR) and
# the clients measure the server at ADDR, which runs nothing of ours
# (docs/own-server.md); RUN_LAN_LINK=IF (netns only) puts host interface
# IF on the VMs' bridge for the run, the way to ADDR (a spare NIC wired to
# the lab, or a veth to a namespace, as 125_run_target does);
# RUN_TARGET_ROUTE=CMD is run with HOST:PORT, the relay sink's address
# (the first client's, the suite's `sink PORT`), once that client is up,
# to point the target's relay route there (e.g. "ssh root@ADDR sh
# benchboot-kit/install.sh --route-only").
set -u
TOP=${TOP:-$(cd "$(dirname "$0")/.." && pwd)}
O=${O:-$TOP/out}
ARCH=${ARCH:-x86_64}
IMAGES=${IMAGES:-$O/$ARCH/images}
BENCHBOOT=${BENCHBOOT:-$O/$ARCH/bin/benchboot}
SUITE=${SUITE:-smoke}
CLIENTS=${CLIENTS:-2}
SUITE_SCALE=${SUITE_SCALE:-}
SUITE_SET=${SUITE_SET:-}
RUN_TIMEOUT=${RUN_TIMEOUT:-1800}
RUN_DIR=${RUN_DIR:-$O/run/$(date -u +%Y%m%d-%H%M%S)}
RUN_QUIET=${RUN_QUIET:-}
RUN_STAGE_DIR=${RUN_STAGE_DIR:-/tmp}
RUN_UNTIL=${RUN_UNTIL:-}
TARGET=${TARGET:-}
RUN_LAN_LINK=${RUN_LAN_LINK:-}
RUN_TARGET_ROUTE=${RUN_TARGET_ROUTE:-}
RUN_SERVER_ARCH=${RUN_SERVER_ARCH:-$ARCH}
if [ "$RUN_SERVER_ARCH" = "$ARCH" ]; then
	RUN_SERVER_IMAGES=${RUN_SERVER_IMAGES:-$IMAGES}
else
	RUN_SERVER_IMAGES=${RUN_SERVER_IMAGES:-$O/$RUN_SERVER_ARCH/images}
fi

# The LAN, as root (RUN_NET=netns): a bridge in a private network
# namespace; each VM's tap device is created in it (QEMU runs inside the
# namespace), and the host side is the bridge's own address, outside the
# range zcip picks link-local addresses from (169.254.1.0 -
# 169.254.254.255), so no VM can claim it (nor a TARGET at 169.254.0.N).  Without root (RUN_NET=vde): a
# user's VDE switch, with slirpvde as its host side: DHCP in 10.0.2.0/24
# and 10.0.2.2 = the host's 127.0.0.1 (docs/run.md).
NS=bbrun$$
HOST_IP=169.254.0.1
LISTEN_IP=$HOST_IP
COLLECT_PORT=8080
# Every process started here: PIDS for cleanup, HELPERS ("PID|NAME|LOG"
# lines) to say which one exited early and what it said last.
PIDS=
HELPERS=
# As root, the collector's staging directory (see "The host side").
STAGE=
if [ -z "${RUN_NET:-}" ]; then
	if [ "$(id -u)" = 0 ]; then RUN_NET=netns; else RUN_NET=vde; fi
fi
T0=$(date +%s)

say() { printf '%s\n' "run: $*" >&2; }
die() { say "$*"; exit 1; }
# run_net_dead, the consoles' NIC watchdog and lost-peer lines.
. "$TOP/qemu-tests/run-checks.sh"
# Seconds from such a line to stopping the run, unless its result comes
# first (the controller ends a run whose network died by itself).
RUN_NET_GRACE=${RUN_NET_GRACE:-45}
case $RUN_NET_GRACE in
'' | *[!0-9]*) die "RUN_NET_GRACE='$RUN_NET_GRACE': expected seconds" ;;
esac

case $CLIENTS in
'' | *[!0-9]*) die "CLIENTS='$CLIENTS': expected a number" ;;
esac
case $RUN_UNTIL in
'' | collector) ;;
*) die "RUN_UNTIL=$RUN_UNTIL: expected collector (or nothing: the whole" \
	"run)" ;;
esac
[ "$CLIENTS" -ge 1 ] && [ "$CLIENTS" -le 32 ] ||
	die "CLIENTS=$CLIENTS: expected 1 to 32"
[ "$ARCH" = x86_64 ] || die "ARCH=$ARCH: the clients boot x86_64 images" \
	"only (a ppc64le server: RUN_SERVER_ARCH=ppc64le)"

# arch_vm ARCH: how a VM of ARCH boots: VM_QEMU (command and machine),
# VM_ACCEL (empty: the probe's choice), VM_KERNEL (file name in its
# images), VM_CONSOLE, VM_NIC (the NIC device, netdev n0).  ppc64le:
# software emulation only, PowerVM's virtual Ethernet (spapr-vlan, the
# ibmveth driver).
arch_vm() {
	case $1 in
	x86_64)
		VM_QEMU=qemu-system-x86_64 VM_ACCEL=
		VM_KERNEL=vmlinuz VM_CONSOLE=console=ttyS0,115200
		VM_NIC="virtio-net-pci,netdev=n0,romfile=" ;;
	ppc64le)
		VM_QEMU="qemu-system-ppc64 -M pseries -vga none" VM_ACCEL=tcg
		VM_KERNEL=vmlinux VM_CONSOLE=console=hvc0
		VM_NIC="spapr-vlan,netdev=n0" ;;
	*) return 1 ;;
	esac
}
arch_vm "$RUN_SERVER_ARCH" || die "RUN_SERVER_ARCH=$RUN_SERVER_ARCH:" \
	"expected x86_64 or ppc64le"
SERVER_KERNEL=$VM_KERNEL
# TARGET: a host name or address, as benchboot.target= takes it.
case $TARGET in
'') SERVER_FILES="$RUN_SERVER_IMAGES/$SERVER_KERNEL
	$RUN_SERVER_IMAGES/initramfs.cpio.gz
	$RUN_SERVER_IMAGES/server-overlay.cpio.gz" ;;
*[!A-Za-z0-9.:-]* | [.:-]*)
	die "TARGET=$TARGET: expected the server's host name or address" ;;
*)	[ "$RUN_SERVER_ARCH" = "$ARCH" ] || die "TARGET=$TARGET and" \
		"RUN_SERVER_ARCH=$RUN_SERVER_ARCH: with a target there is no" \
		"server VM"
	SERVER_FILES= ;;
esac
for f in "$IMAGES/vmlinuz" "$IMAGES/initramfs.cpio.gz" $SERVER_FILES \
	"$BENCHBOOT"; do
	[ -e "$f" ] || die "$f is missing (make [ARCH=$RUN_SERVER_ARCH]" \
		"images server-overlay payload)"
done
# The image carries configs/suite/*.suite; the controller loads it by name.
case $SUITE in
'' | *[!A-Za-z0-9_-]*) die "SUITE=$SUITE: expected the NAME of" \
	"configs/suite/NAME.suite" ;;
esac
[ -r "$TOP/configs/suite/$SUITE.suite" ] ||
	die "SUITE=$SUITE: no configs/suite/$SUITE.suite"
# The relay step's sink port (`sink PORT`), for RUN_TARGET_ROUTE.
SINK_PORT=$(sed -n 's/^[[:space:]]*sink[[:space:]]*\([0-9][0-9]*\).*/\1/p' \
	"$TOP/configs/suite/$SUITE.suite" | head -n 1)
# The controller checks the range (0.01-10); the form is checked here so a
# typo stops before anything boots.
SCALE_PARAM=
case $SUITE_SCALE in
'') ;;
*[!0-9./%]* | *.*.* | */*/* | *%*%* | [./%]*)
	die "SUITE_SCALE=$SUITE_SCALE: expected a factor such as 0.1," \
		"1/10 or 10% (every time of the suite multiplied by it)" ;;
*) SCALE_PARAM=benchboot.time_scale=$SUITE_SCALE ;;
esac
case $RUN_NET in
netns)
	[ "$(id -u)" = 0 ] || die "RUN_NET=netns needs root: the VMs' LAN" \
		"is a bridge with tap devices in a private network namespace" \
		"(run: sudo make run, or RUN_NET=vde with vde2 installed)" ;;
vde)
	for c in vde_switch slirpvde; do
		command -v $c >/dev/null || die "RUN_NET=vde: $c missing" \
			"(apt-get install vde2), or run as root (RUN_NET=netns)"
	done ;;
*) die "RUN_NET=$RUN_NET: expected netns or vde" ;;
esac
if [ -n "$RUN_LAN_LINK" ]; then
	[ "$RUN_NET" = netns ] || die "RUN_LAN_LINK=$RUN_LAN_LINK: only with" \
		"RUN_NET=netns (a VDE switch has no bridge to put it on)"
	ip link show "$RUN_LAN_LINK" >/dev/null 2>&1 ||
		die "RUN_LAN_LINK=$RUN_LAN_LINK: no such interface"
fi
for c in qemu-system-x86_64 ${VM_QEMU%% *}; do
	command -v "$c" >/dev/null || die "$c missing: QEMU is not" \
		"installed (as root: make deps, or apt-get install" \
		"qemu-system-${c#qemu-system-})"
done

mkdir -p "$RUN_DIR/results" || die "cannot create $RUN_DIR"
RUN_DIR=$(cd "$RUN_DIR" && pwd)

# The accelerator: lib.sh's probe (KVM only when a probe boot reaches
# READY; its answer is kept in $O/qemu-tests/accel), in a subshell: only
# qt_accel is wanted of the library, not a boot test's qt_init.
accel() {
	local cache=$O/qemu-tests/accel
	if [ -n "${QT_ACCEL:-}" ]; then echo "$QT_ACCEL"; return; fi
	if [ ! -s "$cache" ]; then
		(. "$TOP/qemu-tests/lib.sh" && mkdir -p "$O/qemu-tests" &&
			qt_accel) </dev/null >/dev/null 2>&1
	fi
	cat "$cache" 2>/dev/null || echo tcg
}

# results_home: what the collector stored in the staging directory,
# copied into RUN_DIR/results (the copies the caller's, not nobody's;
# RUN_DIR/results keeps its own mode, not the staging's 0700).
results_home() {
	local f
	[ -n "$STAGE" ] && [ -d "$STAGE/results" ] || return 0
	for f in "$STAGE"/results/* "$STAGE"/results/.[!.]*; do
		[ -e "$f" ] || continue
		cp -R --preserve=mode,timestamps "$f" "$RUN_DIR/results/" ||
			return 1
	done
}

cleanup() {
	local p n
	trap - EXIT INT TERM
	[ -n "$RUN_QUIET" ] || [ ! -t 2 ] || printf '\n' >&2
	for p in $PIDS; do kill "$p" 2>/dev/null; done
	for p in $PIDS; do
		n=0
		while kill -0 "$p" 2>/dev/null && [ $n -lt 50 ]; do
			sleep 0.1
			n=$((n + 1))
		done
		kill -9 "$p" 2>/dev/null
	done
	# Deleting the namespace removes the bridge and the taps with it.
	[ "$RUN_NET" = netns ] && ip netns del "$NS" 2>/dev/null
	# The collector has stopped: whatever it wrote comes home, the
	# result of a run stopped late included; then the staging goes.
	if [ -n "$STAGE" ]; then
		if results_home; then
			rm -rf "$STAGE"
		else
			say "could not copy $STAGE/results to" \
				"$RUN_DIR/results: left where it is"
		fi
	fi
	return 0
}
trap cleanup EXIT
trap 'say "interrupted; stopping everything"; exit 130' INT TERM

# helper PID NAME LOG: PID, started by this script, is NAME (what the
# user is told if it dies early), writing to LOG (- for none).
helper() {
	PIDS="$PIDS $1"
	HELPERS="$HELPERS$1|$2|$3
"
	echo "$PIDS" >"$RUN_DIR/pids"
}

# last_line FILE: FILE's last line that is not blank, cut for a terminal.
last_line() {
	[ -r "$1" ] || return 0
	grep -av '^[[:space:]]*$' "$1" | tail -n 1 | tr -d '\r' | cut -c1-300
}

# helpers_alive: 0 while every helper runs; otherwise says which one
# exited, its status and the last line of its log (of a VM, QEMU's log,
# or its console when QEMU said nothing), and returns 1.
helpers_alive() {
	local pid name log rc line
	while IFS='|' read -r pid name log; do
		[ -n "$pid" ] && ! kill -0 "$pid" 2>/dev/null || continue
		wait "$pid" 2>/dev/null
		rc=$?
		[ -t 2 ] && [ -z "$RUN_QUIET" ] && printf '\n' >&2
		line=
		[ "$log" = - ] || line=$(last_line "$log")
		case $name in
		"VM "*) [ -n "$line" ] || {
			log=${log%.qemu.log}.log
			line=$(last_line "$log"); } ;;
		esac
		say "$name exited early (status $rc)${line:+: $line}"
		[ "$log" = - ] || say "its log: $log"
		return 1
	done <<EOF
$HELPERS
EOF
	return 0
}

# ns_spawn NAME LOG CMD...: helper NAME, CMD on the LAN's host side (in
# the namespace), in the background.
ns_spawn() {
	local name=$1 log=$2
	shift 2
	if [ "$RUN_NET" = netns ]; then
		ip netns exec "$NS" "$@" >"$log" 2>&1 </dev/null &
	else
		"$@" >"$log" 2>&1 </dev/null &
	fi
	helper $! "$name" "$log"
}

# free_port: a TCP port free on the host's 127.0.0.1 (vde mode).
free_port() {
	local p _lo
	while :; do
		# Below the ephemeral range: a load test's client sockets hold
		# ports there, and a listener cannot bind one of those.
		_lo=$(cut -f1 /proc/sys/net/ipv4/ip_local_port_range 2>/dev/null)
		[ "${_lo:-0}" -gt 11000 ] 2>/dev/null || _lo=32768
		p=$((10000 + $(od -An -N2 -tu2 /dev/urandom) % (_lo - 10000)))
		ss -Htln "sport = :$p" | grep -q . || { echo "$p"; return; }
	done
}

# net_vde: the switch (its own process, not a daemon, so its PID is ours
# to kill; its console reads the never-ending pipe of a sleep), and
# slirpvde on it.  The collector listens on 127.0.0.1.
net_vde() {
	local n=0
	mkfifo "$RUN_DIR/vde.in" || return 1
	sleep 100000 >"$RUN_DIR/vde.in" &
	helper $! "the VDE switch's console pipe (sleep)" -
	vde_switch -s "$RUN_DIR/vde" <"$RUN_DIR/vde.in" \
		>"$RUN_DIR/vde_switch.log" 2>&1 &
	helper $! "the VDE switch (vde_switch)" "$RUN_DIR/vde_switch.log"
	while [ ! -S "$RUN_DIR/vde/ctl" ] && [ $n -lt 50 ]; do
		sleep 0.1
		n=$((n + 1))
	done
	[ -S "$RUN_DIR/vde/ctl" ] || { helpers_alive; return 1; }
	slirpvde -s "$RUN_DIR/vde" -D >"$RUN_DIR/slirpvde.log" 2>&1 </dev/null &
	helper $! "the VDE switch's host side (slirpvde)" \
		"$RUN_DIR/slirpvde.log"
	HOST_IP=10.0.2.2 LISTEN_IP=127.0.0.1
	COLLECT_PORT=$(free_port)
}

# net_netns: the namespace, its bridge and a tap per VM (root).
net_netns() {
	ip netns add "$NS" || return 1
	echo "$NS" >"$RUN_DIR/netns"
	ip -n "$NS" link set lo up
	ip -n "$NS" link add br0 type bridge || return 1
	# mDNS: every port sees every multicast group.
	ip -n "$NS" link set br0 type bridge mcast_snooping 0 2>/dev/null
	ip -n "$NS" addr add "$HOST_IP/16" dev br0
	ip -n "$NS" link set br0 up
	for i in $(seq 0 "$CLIENTS"); do
		ip -n "$NS" tuntap add dev "tap$i" mode tap || return 1
		ip -n "$NS" link set "tap$i" master br0 up
	done
	# A host interface on the bridge (RUN_LAN_LINK): deleting the
	# namespace destroys a veth and gives a real NIC back to the host.
	if [ -n "$RUN_LAN_LINK" ]; then
		ip link set "$RUN_LAN_LINK" netns "$NS" &&
			ip -n "$NS" link set "$RUN_LAN_LINK" master br0 up ||
			return 1
	fi
}

echo "$RUN_NET" >"$RUN_DIR/net"
if [ "$RUN_NET" = vde ]; then
	net_vde || die "cannot start the VDE switch (logs in $RUN_DIR)"
else
	net_netns || die "cannot set up the namespace $NS, its bridge and" \
		"taps (is /dev/net/tun there?)"
fi

# A lab key and a collector token of this run's own: the VMs get them as
# kernel parameters, so nothing else on the LAN can drive them or upload.
rand_hex() { od -An -N16 -tx1 /dev/urandom | tr -d ' \n'; }
LAB_KEY=$(rand_hex)
TOKEN=$(rand_hex)
(umask 077; echo "$TOKEN" >"$RUN_DIR/token")

# as_nobody CMD...: CMD as user nobody, no groups (util-linux's setpriv).
as_nobody() {
	setpriv --reuid="$(id -u nobody)" --regid="$(id -g nobody)" \
		--clear-groups -- "$@"
}

# collector_answers: 0 once the collector's socket answers an HTTP
# request with a status line (401 without the token is an answer).
collector_answers() {
	local probe='exec 3<>"/dev/tcp/$1/$2" || exit 1
		printf "GET / HTTP/1.0\r\n\r\n" >&3
		IFS= read -r l <&3 && case $l in "HTTP/1."*) exit 0 ;; esac
		exit 1'
	if [ "$RUN_NET" = netns ]; then
		ip netns exec "$NS" timeout 3 bash -c "$probe" probe \
			"$LISTEN_IP" "$COLLECT_PORT" 2>/dev/null
	else
		timeout 3 bash -c "$probe" probe "$LISTEN_IP" \
			"$COLLECT_PORT" 2>/dev/null
	fi
}

# The host side: the collector.  Relayed mail goes to the smtp-sink the
# suite's relay step starts on a client (`sink PORT`), not to the host.
# As root it needs --user: nobody, which must reach its --dir.  RUN_DIR
# may well be closed to nobody (a checkout under /root, or under a mktemp
# -d directory, is 0700), so it writes to a staging directory of this
# run's own under RUN_STAGE_DIR, whose files come home to RUN_DIR/results
# when the result arrives and when the run ends.  The token file is read
# before it drops.
CU=
STORE=$RUN_DIR/results
if [ "$(id -u)" = 0 ]; then
	STAGE=$(mktemp -d "$RUN_STAGE_DIR/benchboot-run.XXXXXX") ||
		die "RUN_STAGE_DIR=$RUN_STAGE_DIR: cannot make the" \
			"collector's staging directory there"
	echo "$STAGE" >"$RUN_DIR/stage"
	# nobody may pass the directory, not list it; only it has results/.
	chmod 711 "$STAGE" && mkdir -m 700 "$STAGE/results" &&
		chown nobody "$STAGE/results" ||
		die "cannot make $STAGE/results user nobody's"
	as_nobody test -w "$STAGE/results" -a -x "$STAGE/results" ||
		die "user nobody cannot write $STAGE/results: a directory" \
			"above it is closed to other users; give RUN_STAGE_DIR" \
			"a directory every user can pass (as /tmp is)"
	STORE=$STAGE/results
	CU="--user nobody"
fi
ns_spawn "the collector (benchboot collect)" "$RUN_DIR/collect.log" \
	"$BENCHBOOT" collect $CU \
	--dir "$STORE" --listen "$LISTEN_IP:$COLLECT_PORT" \
	--token-file "$RUN_DIR/token"
# Before any VM boots: a collector that cannot start (its --dir, its
# port) is said now, not after three boots.
n=0
until collector_answers; do
	helpers_alive || die "the collector did not start; logs in $RUN_DIR"
	[ $n -lt 100 ] || die "the collector does not answer on" \
		"$LISTEN_IP:$COLLECT_PORT after 20 s; its log:" \
		"$RUN_DIR/collect.log"
	sleep 0.2
	n=$((n + 1))
done
if [ "$RUN_UNTIL" = collector ]; then
	say "the collector answers on http://$HOST_IP:$COLLECT_PORT/results/," \
		"storing in $STORE; RUN_UNTIL=collector: stopping before the VMs"
	exit 0
fi

ACCEL=$(accel)
# SUITE_SET=A=1,B=2: suite variables for the controller (--set each);
# /init checks the form.  An emulated server answers too slowly for the
# suite's own response timeouts (set for real servers: 2 s, 10 s, 10 s),
# which left most steps from 32 connections on invalid in the full-length
# run (docs/run.md), so unless SUITE_SET is given it gets RUN_EMU_SET's
# (RUN_EMU_SET= keeps the suite's); the result records them (suite.vars).
EMU_SET=
if [ -z "$SUITE_SET" ] && [ -z "$TARGET" ] &&
	{ [ "$ACCEL" = tcg ] || [ "$RUN_SERVER_ARCH" != "$ARCH" ]; }; then
	EMU_SET=${RUN_EMU_SET-http_timeout=10s,sql_timeout=60s,smtp_timeout=30s}
fi
SET_PARAM=
[ -z "$SUITE_SET$EMU_SET" ] || SET_PARAM=benchboot.set=$SUITE_SET$EMU_SET
UPLOAD=http://$HOST_IP:$COLLECT_PORT/results/
[ -n "$TARGET" ] || cat "$RUN_SERVER_IMAGES/initramfs.cpio.gz" \
	"$RUN_SERVER_IMAGES/server-overlay.cpio.gz" \
	${RUN_EXTRA_INITRD:-} >"$RUN_DIR/server-initrd.gz"

# vm NAME INDEX ARCH MEM INITRD ROLE-PARAMS: one VM of ARCH (its images:
# the server's or the clients') on tapINDEX; its serial console goes to
# RUN_DIR/NAME.log.
vm() {
	local name=$1 i=$2 arch=$3 mem=$4 initrd=$5 mac images=$IMAGES
	shift 5
	arch_vm "$arch"
	[ "$name" = server ] && images=$RUN_SERVER_IMAGES
	mac=$(printf '52:54:00:bb:10:%02x' "$i")
	if [ "$RUN_NET" = netns ]; then
		NETDEV="-netdev tap,id=n0,ifname=tap$i,script=no,downscript=no"
	else
		NETDEV="-netdev vde,id=n0,sock=$RUN_DIR/vde"
	fi
	: >"$RUN_DIR/$name.log"
	# shellcheck disable=SC2086
	ns_spawn "VM $name (${VM_QEMU%% *})" "$RUN_DIR/$name.qemu.log" \
		$VM_QEMU \
		-accel "${VM_ACCEL:-$ACCEL}" -m "$mem" -smp 1 -display none \
		-no-reboot -monitor none \
		-serial "file:$RUN_DIR/$name.log" \
		-kernel "$images/$VM_KERNEL" -initrd "$initrd" \
		-append "$VM_CONSOLE $*" \
		$NETDEV \
		-device "$VM_NIC,mac=$mac"
	echo "$name" >>"$RUN_DIR/vms"
}

: >"$RUN_DIR/vms"
srv=
[ "$RUN_SERVER_ARCH" = "$ARCH" ] || srv=" $RUN_SERVER_ARCH"
# The VM that runs the suite: the server (which becomes the controller),
# or with TARGET a controller VM of the clients' image.
set -- "benchboot.suite=$SUITE" "benchboot.upload=$UPLOAD" \
	"benchboot.peers=$CLIENTS" "benchboot.key=$LAB_KEY" \
	"benchboot.token=$TOKEN" ${SCALE_PARAM:+"$SCALE_PARAM"} \
	${SET_PARAM:+"$SET_PARAM"}
if [ -n "$TARGET" ]; then
	CTL=controller
	say "$SUITE suite${SUITE_SCALE:+ time-scaled x$SUITE_SCALE}," \
		"target $TARGET: 1 controller + $CLIENTS clients ($ACCEL)," \
		"in $RUN_DIR"
	vm controller 0 "$ARCH" 512 "$IMAGES/initramfs.cpio.gz" \
		benchboot.role=controller "benchboot.target=$TARGET" "$@"
else
	CTL=server
	say "$SUITE suite${SUITE_SCALE:+ time-scaled x$SUITE_SCALE}, 1$srv server + $CLIENTS clients ($ACCEL), in $RUN_DIR"
	[ -z "$EMU_SET" ] || say "emulated server: $EMU_SET" \
		"(the suite's timeouts are for real servers; RUN_EMU_SET=" \
		"keeps them)"
	vm server 0 "$RUN_SERVER_ARCH" 1024 "$RUN_DIR/server-initrd.gz" \
		benchboot.role=server "$@"
fi
for i in $(seq 1 "$CLIENTS"); do
	vm "client$i" "$i" "$ARCH" 512 "$IMAGES/initramfs.cpio.gz" \
		benchboot.role=client "benchboot.key=$LAB_KEY"
done

# The terminal's width: the progress line must not wrap, or \r cannot
# rewrite it.
COLS=$(stty size 2>/dev/null </dev/tty | cut -d' ' -f2)
case $COLS in '' | *[!0-9]* | 0) COLS=80 ;; esac
COLS=$((COLS - 1))

# progress: one line, rewritten in place on a terminal, from the server's
# (or the controller's) console: its phase and the agent's latest status.
progress() {
	local s log=$RUN_DIR/$CTL.log line
	s=$(($(date +%s) - T0))
	line=$(grep -a '^BENCHBOOT-STATUS ' "$log" 2>/dev/null | tail -n 1 |
		tr -d '\r' | sed 's/^BENCHBOOT-STATUS //')
	if [ -z "$line" ]; then
		if grep -aq '^BENCHBOOT-READY' "$log"; then
			line="$CTL ready, looking for peers"
		elif grep -aq 'starting the server stack' "$log"; then
			line="server booted, starting Apache, MariaDB, Postfix"
		else
			line="booting $((CLIENTS + 1)) VMs"
		fi
	fi
	if [ -n "$RUN_QUIET" ]; then
		LAST_LINE=$line
		return
	fi
	if [ -t 2 ]; then
		printf '\r\033[K%s' "$(printf '[%3d:%02d] %s' $((s / 60)) \
			$((s % 60)) "$line" | cut -c1-"$COLS")" >&2
	elif [ "$line" != "${LAST_LINE:-}" ]; then
		# A log, not a terminal: a line per change.
		printf '[%3d:%02d] %s\n' $((s / 60)) $((s % 60)) "$line" >&2
	fi
	LAST_LINE=$line
}

# route: once the first client (the relay sink's, by id) says its
# address, RUN_TARGET_ROUTE points the target's relay route at it; said
# when it fails (relayed mail then stays in the target's queue).
ROUTED=
route() {
	local ip
	[ -n "$RUN_TARGET_ROUTE" ] && [ -n "$SINK_PORT" ] && [ -z "$ROUTED" ] ||
		return 0
	ip=$(sed -n 's/^BENCHBOOT-READY .* ip=\([0-9.]*\) .*/\1/p' \
		"$RUN_DIR/client1.log" 2>/dev/null | head -n 1)
	[ -n "$ip" ] || return 0
	ROUTED=$ip:$SINK_PORT
	# shellcheck disable=SC2086
	if ! $RUN_TARGET_ROUTE "$ROUTED" >"$RUN_DIR/route.log" 2>&1; then
		[ -t 2 ] && printf '\n' >&2
		say "RUN_TARGET_ROUTE $ROUTED failed (log: $RUN_DIR/route.log):" \
			"relayed mail stays in the target's queue"
	fi
}

# Wait for the result, a VM's death, a stopped role, or a network that
# died: a guest's NIC watchdog or the controller's lost-peer line is said
# at once, and the run stops RUN_NET_GRACE s later, printing it again,
# rather than waiting out RUN_TIMEOUT.
result=
end=$((T0 + RUN_TIMEOUT))
NET_DEAD=
NET_DEAD_T=0
while :; do
	progress
	route
	result=$(ls "$STORE"/*.json 2>/dev/null | head -n 1)
	[ -n "$result" ] && break
	bad=$(grep -al 'BENCHBOOT-STOPPED\|Kernel panic' "$RUN_DIR"/*.log \
		2>/dev/null | head -n 1)
	[ -n "$bad" ] && {
		[ -t 2 ] && printf '\n' >&2
		grep -a 'BENCHBOOT-\(ERROR\|STOPPED\)\|Kernel panic' "$bad" >&2
		die "$(basename "$bad" .log) stopped; logs in $RUN_DIR"
	}
	if [ -z "$NET_DEAD" ]; then
		NET_DEAD=$(run_net_dead $(sed "s|.*|$RUN_DIR/&.log|" \
			"$RUN_DIR/vms"))
		if [ -n "$NET_DEAD" ]; then
			NET_DEAD_T=$(date +%s)
			[ -t 2 ] && printf '\n' >&2
			say "a guest's network failed: $NET_DEAD"
			say "stopping in $RUN_NET_GRACE s unless the result comes first"
		fi
	elif [ $(($(date +%s) - NET_DEAD_T)) -ge "$RUN_NET_GRACE" ]; then
		[ -t 2 ] && printf '\n' >&2
		die "stopped: a guest's network failed: $NET_DEAD; logs in $RUN_DIR"
	fi
	helpers_alive || die "stopped; logs in $RUN_DIR"
	# A long suite (SUITE=default) gets the controller's own estimate
	# of what is left, three times over (TCG, shared cores), plus 10 min.
	left=$(printf '%s' "$LAST_LINE" |
		sed -n 's/.*about \([0-9]*\) s left.*/\1/p')
	now=$(date +%s)
	[ -n "$left" ] && [ $((now + 3 * left + 600)) -gt $end ] &&
		end=$((now + 3 * left + 600))
	[ "$now" -ge $end ] && {
		[ -t 2 ] && printf '\n' >&2
		die "no result after $((now - T0))s; logs in $RUN_DIR"
	}
	sleep 1
done
[ -t 2 ] && [ -z "$RUN_QUIET" ] && printf '\n' >&2
# The controller's result: the collector wrote it by rename, so it is
# whole.  Keep it beside the run's logs (from the staging directory as
# root; the rest of what the collector wrote follows when it stops).
secs=$(($(date +%s) - T0))
if [ -n "$STAGE" ]; then
	results_home || die "cannot copy $STORE to $RUN_DIR/results"
	result=$RUN_DIR/results/${result##*/}
fi
html=${result%.json}.html
"$BENCHBOOT" report --html "$html" "$result"
rc=$?
echo "$result" >"$RUN_DIR/result-path"
say "done in $((secs / 60)) min $((secs % 60)) s ($ACCEL)"
say "result: $result"
[ $rc = 0 ] && [ -s "$html" ] && say "report: $html"
say "logs:   $RUN_DIR"
exit $rc
