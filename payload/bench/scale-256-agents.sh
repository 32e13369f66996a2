#!/bin/sh
# scale-256-agents.sh: N (default 256) client agents, one server and one
# controller as host processes in network namespaces on one bridge, with
# no --controller anywhere: every agent finds the controller over mDNS.
# The clients start first and search; then the controller and the server
# start, and one short http step runs with concurrency N (one connection
# per client).  Prints the time from the controller's start until all N
# clients and the server had joined, the start skew (median and p99 of
# each client's launch against the repeat's median launch, on the
# controller's clock, and the repeat's spread; and on the host's one
# clock, which every namespace reads), the controller's peak RSS
# and CPU, the bytes the controller received per agent (each control
# connection's, from ss) and on its link, and how many controllers were
# announced.  Goals (issue 33): joined within 10 s, skew p99 <= 2 ms,
# RSS <= 256 MiB, one controller.  Needs root; a benchmark, not a test.
#   BENCHBOOT=out/x86_64/bin/benchboot payload/bench/scale-256-agents.sh [N]
set -u
N=${1:-256}
TOP=$(cd "$(dirname "$0")/../.." && pwd)
BB=${BENCHBOOT:-$TOP/out/x86_64/bin/benchboot}
BB=$(cd "$(dirname "$BB")" && pwd)/$(basename "$BB")
. "$TOP/payload/tests/lib/servers.sh"
. "$TOP/payload/tests/lib/netns.sh"
SSPID=
cleanup() {
	[ -n "$SSPID" ] && kill "$SSPID" 2>/dev/null
	netns_cleanup
	servers_stop
}
trap cleanup EXIT INT TERM

netns_available || { echo "needs root and ip netns" >&2; exit 1; }
# Client i's address: 10.77.1.1 .. 10.77.1.250, then 10.77.2.1 ...
caddr() { echo "10.77.$((1 + ($1 - 1) / 250)).$((($1 - 1) % 250 + 1))"; }
cat >"$RUN_DIR/scale.suite" <<SUITE
suite scale256
version 1
clients $N
servers 1
wait 120s
repeats 1
warmup 300ms
duration 1s
cooldown 200ms
step http-static
	concurrency $N
	run http -t 1 -c {conc} -d {duration} --warmup {warmup} http://{server}:80/static/4050.html
SUITE

echo "# load before: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) cores"
t0=$(date +%s)
netns_hub || exit 1
netns_add srv 10.77.0.1 && netns_add ctl 10.77.0.2 &&
	netns_add x 10.77.0.3 || exit 1
# The clients' namespaces as netns_add makes them, but in three batches
# of ip commands rather than ten commands each (minutes on a busy box).
i=1
: >"$RUN_DIR/ip.host"
: >"$RUN_DIR/ip.hub"
while [ $i -le "$N" ]; do
	a=$(caddr $i)
	id=$(netns_ifid "$a")
	echo "netns add ${NETNS_P}c$i" >>"$RUN_DIR/ip.host"
	echo "link add h$NETNS_P$id netns ${NETNS_P}hub type veth peer name eth0 netns ${NETNS_P}c$i" >>"$RUN_DIR/ip.host"
	echo "link set h$NETNS_P$id master br0 up" >>"$RUN_DIR/ip.hub"
	NETNS_NODES="$NETNS_NODES c$i"
	i=$((i + 1))
done
ip -batch "$RUN_DIR/ip.host" || exit 1
ip -n "${NETNS_P}hub" -batch "$RUN_DIR/ip.hub" || exit 1
i=1
while [ $i -le "$N" ]; do
	a=$(caddr $i)
	id=$(netns_ifid "$a")
	printf '%s\n' "link set eth0 address 52:54:00:bb:${id%??}:${id#??}" \
		"addr add $a/16 dev eth0" "link set eth0 up" "link set lo up" \
		"route add 224.0.0.0/4 dev eth0" |
		ip -n "${NETNS_P}c$i" -batch - || exit 1
	i=$((i + 1))
done
echo "# $((N + 3)) namespaces in $(($(date +%s) - t0)) s"
netns_docroot "$RUN_DIR/www"
netns_nginx srv 10.77.0.1 80 "$RUN_DIR/www" "$RUN_DIR/nginx" || exit 1

# The clients first: each searches for a controller until there is one.
t0=$(date +%s)
i=1
while [ $i -le "$N" ]; do
	netns_spawn c$i "$RUN_DIR/c$i.log" "$BB" agent --role=client --once
	i=$((i + 1))
done
echo "# $N clients started in $(($(date +%s) - t0)) s"
# What every host on the link receives while they search (mDNS only:
# the controller's namespace is idle until it starts), then what a
# bystander's browse of the whole type sees (every agent answers it).
# CPU ticks (user + system) of every process started so far: the clients.
ticks() { for p in $NETNS_PIDS; do cat "/proc/$p/stat" 2>/dev/null; done |
	awk '{ s += $14 + $15 } END { print s + 0 }'; }
p0=$(netns_exec ctl cat /sys/class/net/eth0/statistics/rx_packets)
b0=$(netns_exec ctl cat /sys/class/net/eth0/statistics/rx_bytes)
k0=$(ticks)
sleep 5
k1=$(ticks)
p1=$(netns_exec ctl cat /sys/class/net/eth0/statistics/rx_packets)
b1=$(netns_exec ctl cat /sys/class/net/eth0/statistics/rx_bytes)
echo "mDNS reaching each host while the clients search: $(((p1 - p0) / 5)) packets/s, $(((b1 - b0) / 5120)) KiB/s"
echo "CPU of the $N searching clients: $(((k1 - k0) * 100 / 5 / $(getconf CLK_TCK)))% of one core"
echo "# load with the clients searching: $(cut -d' ' -f1-3 /proc/loadavg)"
netns_exec x "$BB" mdns browse --timeout 3 >"$RUN_DIR/browse0.txt" 2>&1
echo "instances a 3 s browse sees while the clients search: $(grep -c . "$RUN_DIR/browse0.txt") of $N (UDP receive-buffer drops in its namespace: $(netns_exec x awk '/^Udp:/ { n++ } n == 2 && /^Udp:/ { print $6; exit }' /proc/net/snmp))"

# The controller's connections, every 0.5 s, for the bytes per agent
# (each connection's largest bytes_received counts).
( while :; do
	netns_exec ctl ss -tinH state established '( sport = :7407 )' \
		>>"$RUN_DIR/ss.txt" 2>/dev/null
	sleep 0.5
done ) &
SSPID=$!
rx0=$(netns_exec ctl cat /sys/class/net/eth0/statistics/rx_bytes)
t1=$(date +%s%N)
SOFTNET0=$(awk '{ s += strtonum("0x" $2) } END { print s }' /proc/net/softnet_stat)
netns_spawn ctl "$RUN_DIR/ctl.log" sh -c "exec '$BB' agent \
	--role=controller --id ctl-scale --suite '$RUN_DIR/scale.suite' \
	--spool '$RUN_DIR/spool' >'$RUN_DIR/ctl.out'"
CTL=$NETNS_LAST_PID
netns_spawn srv "$RUN_DIR/server.log" "$BB" agent --role=server --once \
	--no-series
# How many controllers the LAN announces while the agents come in (a
# browse of the _controller subtype, which only controllers answer,
# lists who is still there at its end).
sleep 1
netns_exec x "$BB" mdns browse --timeout 3 --subtype _controller \
	>"$RUN_DIR/browse.txt" 2>&1
wait "$CTL"
rc=$?
t2=$(date +%s%N)
rx1=$(netns_exec ctl cat /sys/class/net/eth0/statistics/rx_bytes)
kill "$SSPID" 2>/dev/null
SSPID=
res=$(cat "$RUN_DIR/ctl.out" 2>/dev/null)
if [ $rc != 0 ] || [ ! -f "$res" ]; then
	echo "controller failed (exit $rc):" >&2
	tail -20 "$RUN_DIR/ctl.log" >&2
	exit 1
fi
echo "# controller run: $(((t2 - t1) / 1000000)) ms wall"
echo "# load after: $(cut -d' ' -f1-3 /proc/loadavg)"
jq -r --arg n "$N" --argjson t1 "$t1" '
  def pct(p): sort | .[((length - 1) * p | floor)];
  [.events[] | select(.type == "agent_joined")] as $j |
  "agents joined:          \($j | length) of \($n | tonumber + 1) (clients found: \(.peers.clients_found))",
  "all joined after:       \((($j | map(.t_ns) | max) - $t1) / 1e6 | floor) ms from the controller'"'"'s start (first \((($j | map(.t_ns) | min) - $t1) / 1e6 | floor) ms)",
  (.steps[0].repeats[0] as $r |
   [$r.clients[] | select(.records) | (.offset_ns // 0) as $o |
    .records[0] | select((.launched_ns // 0) > 0 and .record) | .launched_ns - $o] as $l |
   ($l | pct(0.5)) as $m |
   [$l[] | . - $m | fabs] as $d |
   "start skew:             median \($d | pct(0.5) / 1000) us, p99 \($d | pct(0.99) / 1000) us, max \($d | max / 1000) us over \($l | length) clients (spread: launch \(($r.skew_ns.launch // 0) / 1000) us, workload start \(($r.skew_ns.record // 0) / 1000) us)",
   # Every namespace reads the host'"'"'s one clock: there the launches
   # as the clients read them are the real skew, errors of the offset
   # estimates (all truly 0) included, which the controller'"'"'s view,
   # corrected by those same estimates, cannot show.
   ([$r.clients[] | select(.records) | .records[0].launched_ns |
     select(. > 0)] as $h | ($h | pct(0.5)) as $hm |
    [$h[] | . - $hm | fabs] as $hd |
   "start skew, host clock: median \($hd | pct(0.5) / 1000) us, p99 \($hd | pct(0.99) / 1000) us, max \($hd | max / 1000) us (spread \((($h | max) - ($h | min)) / 1000) us)"),
   ([$r.clients[] | select(.records) | .offset_ns // 0] |
   "clock offset estimates:  min \(min / 1000) us, median \(pct(0.5) / 1000) us, max \(max / 1000) us (all truly 0 on one host)"),
   ([$r.clients[] | select(.records) | .records[0].launch_late_ns | select(.)] as $ll |
   "launch late (own clock): median \($ll | pct(0.5) / 1000) us, p99 \($ll | pct(0.99) / 1000) us"),
   "repeat:                 complete \($r.complete) \($r.incomplete_reason // ""), prepare \($r.prepare_s) s"),
  "controller CPU:         \(.controller_usage.user_s + .controller_usage.system_s) s (user \(.controller_usage.user_s), system \(.controller_usage.system_s))",
  "controller peak RSS:    \(.controller_usage.maxrss_kb) kB",
  "events: \([.events[].type] | group_by(.) | map("\(.[0]) \(length)") | join(", "))"
' "$res"
if [ -f "$RUN_DIR/ss.txt" ]; then
	awk '/:7407/ { peer = $NF; next }
	     match($0, /bytes_received:[0-9]+/) {
		b = substr($0, RSTART + 15, RLENGTH - 15) + 0
		if (b > max[peer]) max[peer] = b }
	     END { for (p in max) print max[p] }' "$RUN_DIR/ss.txt" |
	sort -n | awk '{ v[NR] = $1; s += $1 } END { if (NR) printf "bytes received per agent (its control connection): median %d, max %d, over %d connections, total %d\n", v[int((NR + 1) / 2)], v[NR], NR, s }'
fi
echo "controller link received: $((rx1 - rx0)) bytes during the run, $(((rx1 - rx0) / (N + 1))) per agent (mDNS included)"
echo "controllers announced:    $(grep -c 'role=controller' "$RUN_DIR/browse.txt") (a 3 s browse of _controller 1 s after its start)"
echo "agents that became a controller: $(grep -l 'becom[a-z]* the controller' "$RUN_DIR"/*.log 2>/dev/null | grep -c .)"
echo "clients that refused the run's target (not seen announced): $(grep -l 'not announced as a server' "$RUN_DIR"/c*.log 2>/dev/null | grep -c .)"
echo "server: $(grep -m1 -o 'discovered controller.*\|becom[a-z]* the controller.*' "$RUN_DIR/server.log")"
udpdrops() { netns_exec "$1" awk '/^Udp:/ { n++ } n == 2 && /^Udp:/ { print $6; exit }' /proc/net/snmp; }
echo "UDP receive-buffer drops: server $(udpdrops srv), controller $(udpdrops ctl), client 1 $(udpdrops c1)"
# TcpExt counters by name (the header line names the columns).
tcpext() { netns_exec "$1" awk -v k="$2" '/^TcpExt:/ { if (!h) { for (i = 1; i <= NF; i++) c[$i] = i; h = 1 } else print $c[k] }' /proc/net/netstat; }
echo "controller listen queue: $(tcpext ctl ListenOverflows) overflows, $(tcpext ctl ListenDrops) drops; SYN retransmits: server $(tcpext srv TCPSynRetrans), client 1 $(tcpext c1 TCPSynRetrans); softnet backlog drops (host, all CPUs): $(($(awk '{ s += strtonum("0x" $2) } END { print s }' /proc/net/softnet_stat) - SOFTNET0))"
echo "# result: $res (kept: KEEP_RUN_DIR=1)"
