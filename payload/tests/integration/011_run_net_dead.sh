#!/bin/sh
# 011_run_net_dead.sh: the line `make run` stops on (run-checks.sh's
# run_net_dead, which qemu-tests/run.sh calls every second over the
# guests' consoles): a NIC watchdog in the kernel's words (virtio_net's
# "NETDEV WATCHDOG: ... transmit queue 0 timed out", e1000e's "Detected
# Hardware Unit Hang") or the controller's "lost client" line is found
# and named with its console; a healthy console is not.  No QEMU runs.
set -u
TOP=${TOP:-$(cd "$(dirname "$0")/../../.." && pwd)}
O=${O:-$TOP/out}
. "$TOP/payload/tests/lib/tap.sh"
. "$TOP/qemu-tests/run-checks.sh"
mkdir -p "$O/test-run"
tmp=$(mktemp -d "$O/test-run/netdead.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# A healthy boot and run, as the consoles show it (CRLF as the serial
# line gives it).
printf '%s\r\n' \
	'[    1.234567] virtio_net virtio0 eth0: renamed from eth0' \
	'BENCHBOOT-READY role=client ip=10.0.2.15 id=client-525400bb1001' \
	'09:01:02.345 benchboot agent client-525400bb1001: connected to controller 10.0.2.14:7407' \
	'09:01:03.000 benchboot agent server-525400bb1000: client client-525400bb1001 joined from 10.0.2.15' \
	'09:01:09.000 benchboot agent server-525400bb1000: step sql-ops/c8/r1 skipped: not run: 1 of the 2 client(s) it needs connected (the others were lost)' \
	>"$tmp/client1.log"
cp "$tmp/client1.log" "$tmp/server.log"
out=$(run_net_dead "$tmp/client1.log" "$tmp/server.log")
check_eq "healthy consoles: nothing (status 1)" "$?:$out" "1:"

# Each failure line, alone in a server console after the healthy lines.
n=0
while IFS='|' read -r what line; do
	n=$((n + 1))
	cp "$tmp/client1.log" "$tmp/server$n.log"
	printf '%s\r\n' "$line" 'after it' >>"$tmp/server$n.log"
	out=$(run_net_dead "$tmp/client1.log" "$tmp/server$n.log")
	check_eq "$what: found and named" "$?:$out" "0:server$n: $line"
done <<'EOF2'
virtio_net's watchdog|[  612.345678] NETDEV WATCHDOG: eth0 (virtio_net): transmit queue 0 timed out 5432 ms
another driver's queue line|[  612.3] e1000 0000:00:03.0 eth0: transmit queue 3 timed out
e1000e's hang|[ 3012.1] e1000e 0000:00:19.0 eth0: Detected Hardware Unit Hang:
the controller losing a client|09:14:22.101 benchboot agent server-525400bb1000: lost client client-525400bb1002 (Connection timed out)
the controller losing its server|09:14:22.101 benchboot agent controller-1: lost server server-1 (peer closed)
EOF2

# The first console with one is named, with its first such line.
printf 'x\r\n%s\r\n%s\r\n' \
	'[ 9.1] NETDEV WATCHDOG: eth0 (virtio_net): transmit queue 1 timed out 5000 ms' \
	'[ 9.2] NETDEV WATCHDOG: eth0 (virtio_net): transmit queue 0 timed out 5000 ms' \
	>"$tmp/client2.log"
out=$(run_net_dead "$tmp/client1.log" "$tmp/absent.log" "$tmp/client2.log" \
	"$tmp/server1.log")
check_eq "a missing console is passed over; the first line is the one" \
	"$out" "client2: [ 9.1] NETDEV WATCHDOG: eth0 (virtio_net): transmit queue 1 timed out 5000 ms"
tap_done
