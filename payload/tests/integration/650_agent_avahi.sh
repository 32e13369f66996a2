#!/bin/sh
# 650_agent_avahi.sh: Debian's avahi (avahi-browse -rpt, on its own D-Bus
# bus in another namespace) sees a running `benchboot agent` with its
# identity and the TXT record docs/agent.md promises; the agent's goodbye
# removes it when the agent stops.
# harness: parallel
set -u
. "$TOP/payload/tests/lib/tap.sh"
. "$TOP/payload/tests/lib/servers.sh"
. "$TOP/payload/tests/lib/mdns.sh"
trap mdns_stop EXIT
trap 'exit 1' INT TERM
mdns_need avahi-daemon avahi-browse dbus-daemon

mdns_net 2 || { not_ok "network namespaces"; tap_done; exit 1; }
# A client whose controller never answers keeps running and published.
mdns_bg "$MDNS_NS1" "$RUN_DIR/agent.log" $TARGET_RUN "$BENCHBOOT" agent \
	--role=client --id bench-c1 --controller 192.0.2.1
AG=$MDNS_LAST_PID
check "avahi-daemon starts in the other namespace" \
	mdns_avahi "$MDNS_NS2" avahi2
got=
for _i in 1 2 3; do
	got=$(avahi_browse "$MDNS_NS2" | grep -F 'bench-c1;_benchboot._tcp;')
	[ -n "$got" ] && break
done
printf '%s\n' "$got" | sed "s/^/# avahi-browse: /"
check "avahi-browse -rpt resolves the agent" [ -n "$got" ]
check_eq "host" "$(printf '%s\n' "$got" | cut -d';' -f7)" "bench-c1.local"
check_eq "address" "$(printf '%s\n' "$got" | cut -d';' -f8)" "$MDNS_IP1"
for kv in role=client id=bench-c1 "arch=$(uname -m)" ver= suite= cpus= mem=
do
	case $got in
	*"\"$kv"*) ok "TXT has $kv" ;;
	*) not_ok "TXT has $kv" ;;
	esac
done
mdns_kill "$AG"
# A goodbye (TTL 0) leaves avahi's cache one second later (RFC 6762 §10.1).
sleep 2
gone=$(ip netns exec "$MDNS_NS2" timeout 8 avahi-browse -pt \
	_benchboot._tcp 2>/dev/null | grep -c 'bench-c1;')
check_eq "gone after the agent stops (goodbye)" "$gone" 0
tap_done
