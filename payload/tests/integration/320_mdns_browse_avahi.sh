#!/bin/sh
# 320_mdns_browse_avahi.sh: our browser (benchboot mdns browse) finds and
# resolves a service that Debian's avahi-publish registers with
# avahi-daemon in another network namespace, next to one of ours, and
# notices when avahi withdraws it; --subtype finds only the instances
# listed under it (avahi's and ours, RFC 6763 §7.1).
# harness: parallel
set -u
. "$TOP/payload/tests/lib/tap.sh"
. "$TOP/payload/tests/lib/servers.sh"
. "$TOP/payload/tests/lib/mdns.sh"
trap mdns_stop EXIT
trap 'exit 1' INT TERM
mdns_need avahi-daemon avahi-publish dbus-daemon socat ss

mdns_net 3 || { not_ok "network namespaces"; tap_done; exit 1; }
check "avahi-daemon starts" mdns_avahi "$MDNS_NS2" avahi2
plog=$RUN_DIR/avahi-publish.log
mdns_bg "$MDNS_NS2" "$plog" avahi-publish -s \
	--subtype=_controller._sub._benchboot._tcp "Avahi Svc.2" _benchboot._tcp \
	9099 role=client id=av-1 "note=two words" flag
apub=$MDNS_LAST_PID
check "avahi-publish registers 'Avahi Svc.2'" \
	wait_for 10 grep -q "Established under name 'Avahi Svc.2'" "$plog"
check "our publisher runs in a third namespace" \
	mdns_publish "$MDNS_NS3" ours-3 7073 --host bb-3 --txt role=server \
	--subtype _server

out=$(bb_browse "$MDNS_NS1" --timeout 3)
rc=$?
check_eq "browse exits 0" "$rc" 0
printf '%s\n' "$out" | sed 's/^/# browse: /'
tab=$(printf '\t')
av=$(printf '%s\n' "$out" | grep "^Avahi Svc.2$tab")
check "browse found avahi's instance" [ -n "$av" ]
f() { printf '%s\n' "$av" | cut -d"$tab" -f"$1"; }
check_eq "host from avahi's SRV" "$(f 2)" avahi2.local
check_eq "address from avahi's A" "$(f 3)" "$MDNS_IP2"
check_eq "port from avahi's SRV" "$(f 4)" 9099
check_eq "interface" "$(f 5)" e0
txt=$(f 6- | tr "$tab" '\n' | sort | tr '\n' ' ')
check_eq "TXT from avahi" "$txt" "flag id=av-1 note=two words role=client "
ours=$(printf '%s\n' "$out" | grep "^ours-3$tab")
check_eq "browse found our other publisher too" "$ours" \
	"$(printf 'ours-3\tbb-3.local\t%s\t7073\te0\trole=server' \
	"$MDNS_IP3")"
check_eq "exactly two instances" "$(printf '%s\n' "$out" | grep -c .)" 2

# Subtypes: each browse asks for one and gets only who lists it.
out=$(bb_browse "$MDNS_NS1" --timeout 2 --subtype _controller | cut -f1-4)
check_eq "--subtype _controller: avahi's instance only" "$out" \
	"$(printf 'Avahi Svc.2\tavahi2.local\t%s\t9099' "$MDNS_IP2")"
out=$(bb_browse "$MDNS_NS1" --timeout 2 --subtype _server | cut -f1-4)
check_eq "--subtype _server: ours only" "$out" \
	"$(printf 'ours-3\tbb-3.local\t%s\t7073' "$MDNS_IP3")"
out=$(bb_browse "$MDNS_NS1" --timeout 1 --subtype _client)
check_eq "--subtype _client: nobody" "$out" ""

# avahi withdraws the service (goodbye): a watching browser reports the
# removal at once, not after the record's 75-minute TTL.
wlog=$RUN_DIR/watch.log
mdns_bg "$MDNS_NS1" "$wlog" $TARGET_RUN "$BENCHBOOT" mdns browse --watch \
	--timeout 30
wpid=$MDNS_LAST_PID
check "--watch reports avahi's instance as found" \
	wait_for 5 grep -q "^+${tab}Avahi Svc.2${tab}avahi2.local" "$wlog"
check "--watch reports ours as found" \
	wait_for 5 grep -q "^+${tab}ours-3${tab}" "$wlog"
# A TXT change of ours shows as "~".
fifo=$RUN_DIR/txt.fifo
mkfifo "$fifo"
ip netns exec "$MDNS_NS3" $TARGET_RUN "$BENCHBOOT" mdns publish \
	--name chg --port 7074 --host bb-chg --txt role=server --txt-stdin \
	<"$fifo" >"$RUN_DIR/chg.log" 2>&1 &
MDNS_PIDS="$MDNS_PIDS $!"
exec 7>"$fifo"
check "--watch reports a publisher that starts later" \
	wait_for 8 grep -q "^+${tab}chg${tab}.*${tab}role=server\$" "$wlog"
echo "role=controller" >&7
check "--watch reports its TXT change" \
	wait_for 5 grep -q "^~${tab}chg${tab}.*${tab}role=controller\$" "$wlog"
mdns_kill "$apub"
check "--watch reports avahi's goodbye as a removal within 3 s" \
	wait_for 3 grep -q "^-${tab}Avahi Svc.2${tab}" "$wlog"
check "ours was not removed" sh -c "! grep -q '^-${tab}ours' '$wlog'"
mdns_kill "$wpid"
sed 's/^/# watch: /' "$wlog"
out=$(bb_browse "$MDNS_NS1" --timeout 2)
check "a fresh browse finds chg with its new TXT" sh -c \
	'printf "%s\n" "$1" | grep -q "^chg	.*	role=controller$"' sh "$out"
check "a fresh browse no longer finds avahi's instance" sh -c \
	'! printf "%s\n" "$1" | grep -q "^Avahi Svc"' sh "$out"

# Port 5353 held exclusively by another program: the browser falls back
# to an ephemeral port and one-shot queries, answered by legacy unicast.
mdns_bg "$MDNS_NS1" "$RUN_DIR/socat.log" socat -u \
	UDP-RECV:5353,reuseaddr=0 /dev/null
sock=$MDNS_LAST_PID
wait_for 5 sh -c "ip netns exec $MDNS_NS1 ss -Hluanp | grep -q socat"
bb_browse "$MDNS_NS1" --timeout 2 >"$RUN_DIR/fallback.out" &
bpid=$!
sleep 0.5
ports=$(ip netns exec "$MDNS_NS1" ss -Hluanp | grep benchboot |
	awk '{print $4}')
wait "$bpid"
diag "browser bound to: $ports"
check "browser fell back to an ephemeral port" sh -c \
	'[ -n "$1" ] && ! printf "%s\n" "$1" | grep -q ":5353$"' sh "$ports"
check_eq "and still resolved ours by legacy unicast" \
	"$(grep '^ours-3' "$RUN_DIR/fallback.out" | cut -f1-4)" \
	"$(printf 'ours-3\tbb-3.local\t%s\t7073' "$MDNS_IP3")"
mdns_kill "$sock"

# Browsing a type nobody publishes finds nothing and still exits 0.
out=$(bb_browse "$MDNS_NS1" --timeout 1 _nothing._tcp)
rc=$?
check_eq "browse for an unpublished type exits 0" "$rc" 0
check_eq "and prints nothing" "$out" ""
tap_done
