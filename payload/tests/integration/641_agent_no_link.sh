#!/bin/sh
# 641_agent_no_link.sh: a client with no usable interface (a NIC with no
# driver, a cable not yet in) neither spins nor floods its console: it
# says so once, waits calmly (bounded CPU), and finds its controller
# within seconds of the link coming up.
# harness: parallel
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/servers.sh"
. "$(dirname "$0")/../lib/netns.sh"
. "$(dirname "$0")/../lib/agent.sh"
agent_test_start
netns_hub && netns_add ctl 10.79.0.2 && netns_add c1 10.79.0.11 ||
	{ not_ok "namespaces"; tap_done; exit 1; }
# c1's only Ethernet link is down: nothing to browse on.
netns_exec c1 ip link set eth0 down

netns_spawn ctl "$RUN_DIR/ctl.log" $BB agent --role=controller --id ctl-9 \
	--suite "$SUITES/quick.suite" --spool "$RUN_DIR/spool" --peers 1
netns_spawn c1 "$RUN_DIR/c1.log" $BB agent --role=client --once
C1=$NETNS_LAST_PID
sleep 8
check "the agent is still waiting (not exited)" kill -0 "$C1"
# utime + stime of the agent, in clock ticks (/proc/PID/stat 14, 15).
ticks=$(awk '{ print $14 + $15 }' "/proc/$C1/stat" 2>/dev/null)
hz=$(getconf CLK_TCK)
check "it used under 0.5 s of CPU in 8 s ($ticks ticks at $hz/s)" \
	test "${ticks:-9999}" -lt $((hz / 2))
n=$(grep -c "no controller found over mDNS yet" "$RUN_DIR/c1.log")
check_eq "'no controller found' said once in 8 s (not per attempt)" "$n" 1
n=$(grep -c "mdns browse: no up, multicast-capable interface" \
	"$RUN_DIR/c1.log")
check_eq "the reason (no usable interface) said once" "$n" 1
check "the log stays short ($(wc -l <"$RUN_DIR/c1.log") lines)" \
	test "$(wc -l <"$RUN_DIR/c1.log")" -le 5

# The cable goes in: the client finds the controller within the cap of
# its back-off (2 s) plus one browse.
netns_exec c1 ip link set eth0 up
netns_exec c1 ip route add 224.0.0.0/4 dev eth0 2>/dev/null
check "with the link up it discovers the controller within 10 s" \
	wait_for 10 grep -q "discovered controller ctl-9 at 10.79.0.2:7407" \
	"$RUN_DIR/c1.log"
tap_done
