#!/bin/sh
# 350_mdns_scale.sh: 64 publishers, one per network namespace on one
# bridge (as issue 7's 64-agent run has them): all probe without a
# conflict, one short browse finds all 64, a second one right after it
# too (one-shot queries are not held back by the responders' once-a-
# second multicast limit), and avahi-browse resolves all 64.
# harness: parallel
set -u
. "$TOP/payload/tests/lib/tap.sh"
. "$TOP/payload/tests/lib/servers.sh"
. "$TOP/payload/tests/lib/mdns.sh"
trap mdns_stop EXIT
trap 'exit 1' INT TERM
mdns_need avahi-daemon avahi-browse dbus-daemon

N=64
mdns_net $((N + 2)) || { not_ok "network namespaces"; tap_done; exit 1; }
i=1
while [ $i -le $N ]; do
	eval ns=\$MDNS_NS$i
	mdns_bg "$ns" "$RUN_DIR/p$i.log" $TARGET_RUN "$BENCHBOOT" mdns \
		publish --name "agent-$i" --port 7000 --host "a$i" \
		--txt role=client --txt "id=a$i"
	i=$((i + 1))
done
eval bns=\$MDNS_NS$((N + 1))
eval ans=\$MDNS_NS$((N + 2))
up() { [ "$(cat "$RUN_DIR"/p*.log | grep -c '^published')" = $N ]; }
check "all $N publishers announced" wait_for 20 up
check "no conflict among $N distinct names" sh -c \
	"! grep -l 'conflict' '$RUN_DIR'/p*.log"

# The first browse's re-query at 1 s draws multicast answers, so for
# about a second the responders may not multicast again; the second
# browse must get its answers anyway.
out1=$(bb_browse "$bns" --timeout 2)
out2=$(bb_browse "$bns" --timeout 1)
check_eq "a 2 s browse finds all $N" "$(printf '%s\n' "$out1" |
	grep -c '^agent-')" $N
check_eq "a second 1 s browse right after finds all $N" \
	"$(printf '%s\n' "$out2" | grep -c '^agent-')" $N
check_eq "each with its own address" "$(printf '%s\n' "$out1" |
	cut -f3 | sort -u | grep -c .)" $N

check "avahi-daemon starts" mdns_avahi "$ans" avahi-s
got=$(avahi_browse "$ans" | grep -c ';agent-[0-9]*;_benchboot._tcp;')
check_eq "avahi-browse -rpt resolves all $N" "$got" $N
tap_done
