#!/bin/sh
# 360_mdns_two_links.sh: a publisher on a host with two links answers on
# each with that link's own address; --if keeps it to one link; a link
# that gets its address after start (DHCP, link-local fallback) is picked
# up by the 5 s interface re-scan.
# harness: parallel
set -u
. "$TOP/payload/tests/lib/tap.sh"
. "$TOP/payload/tests/lib/servers.sh"
. "$TOP/payload/tests/lib/mdns.sh"
trap mdns_stop EXIT
trap 'exit 1' INT TERM
mdns_need

# ns1, ns2 on the lib's bridge (link A); ns3 on a second bridge (link B)
# which ns1 joins through e1.
mdns_net 3 || { not_ok "network namespaces"; tap_done; exit 1; }
ip -n "$MDNS_NS3" link del e0
ip -n "$MDNS_HUB" link add br1 type bridge
ip -n "$MDNS_HUB" link set br1 up
ip -n "$MDNS_HUB" link add q1 type veth peer name e1 netns "$MDNS_NS1"
ip -n "$MDNS_HUB" link add q3 type veth peer name e0 netns "$MDNS_NS3"
ip -n "$MDNS_HUB" link set q1 master br1 up
ip -n "$MDNS_HUB" link set q3 master br1 up
B=10.252.$(($$ % 250))
ip -n "$MDNS_NS3" addr add "$B.3/24" dev e0
ip -n "$MDNS_NS3" link set e0 up
ip -n "$MDNS_NS3" route add 224.0.0.0/4 dev e0
ip -n "$MDNS_NS1" link set e1 up	# up, but no address yet
sleep 0.2
tab=$(printf '\t')

check "publisher on every link starts (link B has no address yet)" \
	mdns_publish "$MDNS_NS1" two 7060 --host bb-two
all=$MDNS_LAST_PID
check "--if e0 publisher starts" \
	mdns_publish "$MDNS_NS1" only-a 7061 --host bb-a --if e0

out=$(bb_browse "$MDNS_NS3" --timeout 1)
check_eq "link B sees nothing before ns1 has an address there" "$out" ""
ip -n "$MDNS_NS1" addr add "$B.1/24" dev e1
# Re-scan within 5 s, then probe and announce (about 1 s).
got=
i=0
while [ $i -lt 10 ] && [ -z "$got" ]; do
	got=$(bb_browse "$MDNS_NS3" --timeout 1 | grep "^two$tab")
	i=$((i + 1))
done
check_eq "after the address appears, link B resolves it to $B.1" \
	"$(printf '%s\n' "$got" | cut -f1-5)" \
	"$(printf 'two\tbb-two.local\t%s\t7060\te0' "$B.1")"
out=$(bb_browse "$MDNS_NS2" --timeout 2)
check_eq "link A resolves the same instance to $MDNS_IP1" \
	"$(printf '%s\n' "$out" | grep "^two$tab" | cut -f3)" "$MDNS_IP1"
check "link A sees the --if e0 publisher" \
	sh -c "printf '%s\n' \"\$1\" | grep -q '^only-a$tab'" sh "$out"
out=$(bb_browse "$MDNS_NS3" --timeout 2)
check "link B does not see the --if e0 publisher" \
	sh -c "! printf '%s\n' \"\$1\" | grep -q '^only-a'" sh "$out"
check "the re-scan was logged" grep -q "interfaces changed" \
	"$RUN_DIR/pub-two.log"
mdns_kill "$all"
tap_done
