# mdns.sh: a private link for mDNS tests (sourced after servers.sh):
# network namespaces on one bridge that lives in a namespace of its own,
# so no packet touches the host's real network, plus avahi-daemon with its
# own D-Bus system bus and /run.  mdns_stop (trap it on EXIT) undoes it.

MDNS_TAG=bbm$$
MDNS_HUB=${MDNS_TAG}h
MDNS_NSES=
MDNS_PIDS=
MDNS_SUBNET=10.253.$(($$ % 250))

# mdns_need: skips the whole test (TAP plan with one SKIP) when it cannot
# run here: not root, a tool is missing, or benchboot is cross-built.
mdns_need() {
	# qemu-user (7.2) fails the multicast join with ENODEV: the x86_64
	# binary under qemu-x86_64-static fails the same way, so it is the
	# emulator, not the target; the booted image runs mDNS natively.
	if [ -n "${TARGET_RUN:-}" ]; then
		skip "mDNS netns test: under $TARGET_RUN joining 224.0.0.251" \
			"fails with ENODEV (a qemu-user limit, not the target's)"
		tap_done
		exit 0
	fi
	_md_miss=
	[ "$(id -u)" = 0 ] || _md_miss="root"
	for _md_t in ip unshare "$@"; do
		command -v "$_md_t" >/dev/null 2>&1 ||
			_md_miss="$_md_miss $_md_t"
	done
	if [ -n "$_md_miss" ]; then
		skip "mDNS netns test needs:$_md_miss"
		tap_done
		exit 0
	fi
}

# mdns_net N: namespaces ${MDNS_TAG}1..N, each with interface e0 at
# $MDNS_SUBNET.I/24 on one bridge, plus the multicast route.  Sets
# MDNS_NS1.. and MDNS_IP1...
mdns_net() {
	ip netns add "$MDNS_HUB" || return 1
	MDNS_NSES=$MDNS_HUB
	ip -n "$MDNS_HUB" link add br0 type bridge || return 1
	ip -n "$MDNS_HUB" link set br0 up
	_md_i=1
	while [ "$_md_i" -le "$1" ]; do
		_md_ns=$MDNS_TAG$_md_i
		ip netns add "$_md_ns" || return 1
		MDNS_NSES="$MDNS_NSES $_md_ns"
		ip -n "$MDNS_HUB" link add "p$_md_i" type veth peer name e0 \
			netns "$_md_ns" || return 1
		ip -n "$MDNS_HUB" link set "p$_md_i" master br0 up
		ip -n "$_md_ns" link set lo up
		ip -n "$_md_ns" addr add "$MDNS_SUBNET.$_md_i/24" dev e0
		ip -n "$_md_ns" link set e0 up
		ip -n "$_md_ns" route add 224.0.0.0/4 dev e0
		eval "MDNS_NS$_md_i=$_md_ns MDNS_IP$_md_i=$MDNS_SUBNET.$_md_i"
		_md_i=$((_md_i + 1))
	done
	# veth carrier and DAD-free IPv4 are immediate, but let the bridge
	# ports reach forwarding (no STP: at once).
	sleep 0.2
}

# mdns_bg NS LOG CMD...: runs CMD in NS in the background (stdout and
# stderr to LOG); MDNS_LAST_PID is its PID.
mdns_bg() {
	_md_ns=$1 _md_log=$2
	shift 2
	ip netns exec "$_md_ns" "$@" >"$_md_log" 2>&1 &
	MDNS_LAST_PID=$!
	MDNS_PIDS="$MDNS_PIDS $!"
}

# mdns_publish NS NAME PORT ARGS...: our publisher in NS; log in
# $RUN_DIR/pub-NAME.log (spaces as _).  Waits until it announced.
mdns_publish() {
	_md_ns=$1 _md_name=$2 _md_port=$3
	shift 3
	_md_log=$RUN_DIR/pub-$(echo "$_md_name" | tr ' /' '__').log
	mdns_bg "$_md_ns" "$_md_log" $TARGET_RUN "$BENCHBOOT" mdns publish \
		--name "$_md_name" --port "$_md_port" "$@"
	MDNS_PUB_LOG=$_md_log
	wait_for 10 grep -q '^published ' "$_md_log"
}

# mdns_avahi NS HOSTNAME: dbus-daemon (a private "system" bus) and
# avahi-daemon in NS with their own config and a private /run.  Sets
# DBUS_SYSTEM_BUS_ADDRESS for the avahi tools that follow.
mdns_avahi() {
	_md_d=$RUN_DIR/avahi-$2
	mkdir -p "$_md_d/run/avahi-daemon" "$_md_d/run/dbus"
	cat >"$_md_d/dbus.conf" <<EOF
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-BUS Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>system</type>
  <listen>unix:path=$_md_d/bus.sock</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow user="*"/>
    <allow own="*"/>
    <allow send_destination="*"/>
    <allow receive_sender="*"/>
  </policy>
</busconfig>
EOF
	cat >"$_md_d/avahi-daemon.conf" <<EOF
[server]
host-name=$2
domain-name=local
use-ipv4=yes
use-ipv6=no
allow-interfaces=e0
enable-dbus=yes
ratelimit-interval-usec=1000000
ratelimit-burst=1000
[wide-area]
enable-wide-area=no
[publish]
publish-hinfo=no
publish-workstation=no
publish-aaaa-on-ipv4=no
EOF
	mdns_bg "$1" "$_md_d/dbus.log" dbus-daemon \
		--config-file="$_md_d/dbus.conf" \
		--nofork --nopidfile
	wait_for 10 test -S "$_md_d/bus.sock" || {
		diag "dbus-daemon did not start:"
		sed 's/^/#   /' "$_md_d/dbus.log"
		return 1
	}
	DBUS_SYSTEM_BUS_ADDRESS=unix:path=$_md_d/bus.sock
	export DBUS_SYSTEM_BUS_ADDRESS
	# /run private to avahi: its pid file and socket never meet the
	# host's (or another test's) avahi-daemon.
	mdns_bg "$1" "$_md_d/avahi.log" unshare -m sh -c \
		"mount --bind '$_md_d/run' /run && exec avahi-daemon \
		--no-drop-root --no-chroot --no-rlimits \
		-f '$_md_d/avahi-daemon.conf'"
	MDNS_AVAHI_LOG=$_md_d/avahi.log
	wait_for 20 grep -q 'Server startup complete' "$_md_d/avahi.log" || {
		diag "avahi-daemon did not start:"
		sed 's/^/#   /' "$_md_d/avahi.log"
		return 1
	}
}

# mdns_kill PID: SIGTERM and wait (up to 5 s) for PID to exit.
mdns_kill() {
	kill "$1" 2>/dev/null
	_md_i=50
	while kill -0 "$1" 2>/dev/null && [ $_md_i -gt 0 ]; do
		sleep 0.1
		_md_i=$((_md_i - 1))
	done
	kill -9 "$1" 2>/dev/null
	wait "$1" 2>/dev/null
	return 0
}

mdns_stop() {
	for _md_p in $MDNS_PIDS; do mdns_kill "$_md_p"; done
	MDNS_PIDS=
	for _md_n in $MDNS_NSES; do ip netns del "$_md_n" 2>/dev/null; done
	MDNS_NSES=
	servers_stop
}

# avahi_browse NS: avahi-browse -rpt _benchboot._tcp in NS; resolved
# ("=") lines only.
avahi_browse() {
	ip netns exec "$1" timeout 15 avahi-browse -rpt _benchboot._tcp \
		2>/dev/null | grep '^='
}

# bb_browse NS [ARGS]: our browser in NS.
bb_browse() {
	_md_ns=$1
	shift
	ip netns exec "$_md_ns" $TARGET_RUN "$BENCHBOOT" mdns browse "$@"
}
