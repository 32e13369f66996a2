#!/bin/sh
# mdns-vs-avahi.sh [N] [REPEATS]: discovery of N publishers (benchboot
# mdns publish, one per network namespace on one bridge, default 64)
# by our browser beside Debian's avahi (avahi-daemon with a cold cache,
# then avahi-browse -rpt), medians of REPEATS (3).  Figures: wall time
# until all N are resolved (ours: `browse --watch` until the N-th "+"
# line; avahi: avahi-browse -rpt on a freshly started daemon, until it
# exits, which it does once every instance is resolved and avahi has
# said "all for now", about a second after its query by design).  Ours is
# sampled every 0.2 s (wait_for), so 0.2 s means "within the first poll"., found counts, and a publisher's RSS and CPU time
# over the run.  Not a test: the figures depend on the machine.
set -u
N=${1:-64}
reps=${2:-3}
top=$(cd "$(dirname "$0")/../.." && pwd)
BENCHBOOT=${BENCHBOOT:-$top/out/x86_64/bin/benchboot}
[ -x "$BENCHBOOT" ] || { echo "no benchboot at $BENCHBOOT" >&2; exit 2; }
[ "$(id -u)" = 0 ] || { echo "needs root (network namespaces)" >&2; exit 2; }
for t in avahi-daemon avahi-browse dbus-daemon; do
	command -v $t >/dev/null || { echo "needs $t" >&2; exit 2; }
done
O=${O:-$top/out}
TARGET_RUN=${TARGET_RUN:-}
. "$top/payload/tests/lib/tap.sh"
. "$top/payload/tests/lib/servers.sh"
. "$top/payload/tests/lib/mdns.sh"
trap mdns_stop EXIT
trap 'exit 1' INT TERM

now() { date +%s.%N; }
median() { sort -n | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }

mdns_net $((N + 2)) >/dev/null || exit 1
i=1
while [ $i -le $N ]; do
	eval ns=\$MDNS_NS$i
	mdns_bg "$ns" "$RUN_DIR/p$i.log" $TARGET_RUN "$BENCHBOOT" mdns \
		publish --name "agent-$i" --port 7000 --host "a$i" \
		--txt role=client --txt "id=a$i" --txt arch=x86_64
	[ $i = 1 ] && pub1=$MDNS_LAST_PID
	i=$((i + 1))
done
up() { [ "$(cat "$RUN_DIR"/p*.log | grep -c '^published')" = "$N" ]; }
wait_for 60 up || { echo "publishers did not all announce" >&2; exit 1; }
eval bns=\$MDNS_NS$((N + 1))
eval ans=\$MDNS_NS$((N + 2))

r=1
while [ $r -le "$reps" ]; do
	# Ours: time to the N-th resolved instance.
	w=$RUN_DIR/watch$r.log
	t0=$(now)
	mdns_bg "$bns" "$w" $TARGET_RUN "$BENCHBOOT" mdns browse --watch \
		--timeout 30
	wpid=$MDNS_LAST_PID
	all() { [ "$(grep -c '^+' "$w")" -ge "$N" ]; }
	wait_for 30 all
	t1=$(now)
	mdns_kill "$wpid"
	echo "$t1 - $t0" | bc >>"$RUN_DIR/ours.t"
	grep -c '^+' "$w" >>"$RUN_DIR/ours.n"

	# avahi: a freshly started daemon (nothing cached), then
	# avahi-browse -rpt until it exits.
	mdns_avahi "$ans" "avahi-b$r" >/dev/null || exit 1
	t0=$(now)
	avahi_browse "$ans" >"$RUN_DIR/avahi$r.out"
	t1=$(now)
	echo "$t1 - $t0" | bc >>"$RUN_DIR/avahi.t"
	grep -c ';agent-' "$RUN_DIR/avahi$r.out" >>"$RUN_DIR/avahi.n"
	# Stop that avahi-daemon and its bus before the next round.
	for p in $MDNS_PIDS; do
		case $(cat "/proc/$p/comm" 2>/dev/null) in
		avahi-daemon|dbus-daemon) mdns_kill "$p" ;;
		esac
	done
	r=$((r + 1))
done

rss=$(awk '/^VmRSS/ {print $2}' "/proc/$pub1/status")
cpu=$(awk '{print ($14 + $15) * 10}' "/proc/$pub1/stat")
printf 'discovery of %d publishers, median of %d runs\n' "$N" "$reps"
printf '  %-34s %8.2f s  found %s\n' "benchboot mdns browse --watch" \
	"$(median <"$RUN_DIR/ours.t")" "$(median <"$RUN_DIR/ours.n")"
printf '  %-34s %8.2f s  found %s\n' "avahi-browse -rpt (fresh daemon)" \
	"$(median <"$RUN_DIR/avahi.t")" "$(median <"$RUN_DIR/avahi.n")"
printf '  publisher: RSS %s KB, CPU %s ms over the whole run (10 ms ticks)\n' \
	"$rss" "$cpu"
