#!/bin/sh
# 370_mdns_beside_avahi.sh: benchboot on a Linux host that already runs
# avahi-daemon (the "any other OS" server role): both share port 5353,
# avahi-browse on that host sees our instance, our browser on that host
# sees avahi's, and a peer on the link sees both.
# harness: parallel
set -u
. "$TOP/payload/tests/lib/tap.sh"
. "$TOP/payload/tests/lib/servers.sh"
. "$TOP/payload/tests/lib/mdns.sh"
trap mdns_stop EXIT
trap 'exit 1' INT TERM
mdns_need avahi-daemon avahi-browse avahi-publish dbus-daemon ss

mdns_net 2 || { not_ok "network namespaces"; tap_done; exit 1; }
tab=$(printf '\t')
check "avahi-daemon starts first" mdns_avahi "$MDNS_NS1" av1
check "our publisher starts beside it" \
	mdns_publish "$MDNS_NS1" beside 7080 --host bb-beside --txt role=server
n=$(ip netns exec "$MDNS_NS1" ss -Huanp 'sport = :5353' |
	grep -cE 'avahi-daemon|benchboot')
check_eq "both hold 0.0.0.0:5353" "$n" 2
mdns_bg "$MDNS_NS1" "$RUN_DIR/ap.log" avahi-publish -s av-beside \
	_benchboot._tcp 9080 x=y
check "avahi-publish registers on the same host" \
	wait_for 10 grep -q "Established" "$RUN_DIR/ap.log"

got=$(avahi_browse "$MDNS_NS1")
printf '%s\n' "$got" | sed 's/^/# avahi-browse: /'
want="=;e0;IPv4;beside;_benchboot._tcp;local;bb-beside.local;$MDNS_IP1;7080;"
check "avahi-browse on the same host resolves ours" sh -c \
	'printf "%s\n" "$1" | grep -qxF "$2\"role=server\""' sh "$got" "$want"
for i in 1 2; do
	eval ns=\$MDNS_NS$i
	where=$( [ $i = 1 ] && echo "on avahi's host" || echo "on the peer")
	out=$(bb_browse "$ns" --timeout 2)
	check_eq "our browser $where resolves avahi's" \
		"$(printf '%s\n' "$out" | grep "^av-beside$tab" | cut -f1-4)" \
		"$(printf 'av-beside\tav1.local\t%s\t9080' "$MDNS_IP1")"
	check_eq "our browser $where resolves ours" \
		"$(printf '%s\n' "$out" | grep "^beside$tab" | cut -f1-4)" \
		"$(printf 'beside\tbb-beside.local\t%s\t7080' "$MDNS_IP1")"
done
tap_done
