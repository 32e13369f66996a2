#!/bin/sh
# 330_mdns_conflict.sh: RFC 6762 §8-9 name conflicts between publishers in
# different network namespaces: a late publisher renames itself
# "NAME (2)", two started at once settle on two names through the
# tie-break, a host-name conflict renames the host, and the same holds
# against avahi in both directions (avahi renames when we own the name,
# we rename when avahi does).
# harness: parallel
set -u
. "$TOP/payload/tests/lib/tap.sh"
. "$TOP/payload/tests/lib/servers.sh"
. "$TOP/payload/tests/lib/mdns.sh"
trap mdns_stop EXIT
trap 'exit 1' INT TERM
mdns_need avahi-daemon avahi-publish avahi-browse dbus-daemon

mdns_net 3 || { not_ok "network namespaces"; tap_done; exit 1; }
tab=$(printf '\t')
has() { printf '%s\n' "$1" | grep -q -- "$2"; }

# A late publisher with a taken instance name.
check "first 'bench' publishes" \
	mdns_publish "$MDNS_NS1" bench 7001 --host bb-a --txt id=a
check "second 'bench' publishes" \
	mdns_publish "$MDNS_NS2" bench 7002 --host bb-b --txt id=b
log2=$MDNS_PUB_LOG
# On a loaded machine the first may answer the second's probes too late,
# so that the second announces 'bench' and renames on the conflict that
# follows (RFC 6762 section 9) rather than while probing (section 8): both
# end in the same place, so wait for it.
check "the second renamed itself 'bench (2)'" wait_for 10 \
	grep -q "^published 'bench (2)' on bb-b.local port 7002" "$log2"
check "and logged why" wait_for 5 \
	grep -q "name conflict: now using instance name 'bench (2)'" "$log2"
out=$(bb_browse "$MDNS_NS3" --timeout 2)
printf '%s\n' "$out" | sed 's/^/# browse: /'
check "browse: 'bench' is the first (port 7001)" \
	has "$out" "^bench${tab}bb-a.local${tab}$MDNS_IP1${tab}7001"
check "browse: 'bench (2)' is the second (port 7002)" \
	has "$out" "^bench (2)${tab}bb-b.local${tab}$MDNS_IP2${tab}7002"

# Two started at the same moment: the tie-break (§8.2) defers one.
mdns_bg "$MDNS_NS1" "$RUN_DIR/sim1.log" $TARGET_RUN "$BENCHBOOT" mdns \
	publish --name sim --port 7011 --host bb-s1
mdns_bg "$MDNS_NS2" "$RUN_DIR/sim2.log" $TARGET_RUN "$BENCHBOOT" mdns \
	publish --name sim --port 7012 --host bb-s2
wait_for 10 grep -q '^published' "$RUN_DIR/sim1.log"
wait_for 10 grep -q '^published' "$RUN_DIR/sim2.log"
names=$(sed -n "s/^published '\(.*\)' on .*/\1/p" "$RUN_DIR/sim1.log" \
	"$RUN_DIR/sim2.log" | sort | tr '\n' '|')
check_eq "simultaneous probes end with two names" "$names" "sim|sim (2)|"
grep -h 'benchboot mdns:' "$RUN_DIR/sim1.log" "$RUN_DIR/sim2.log" |
	sed 's/^/# sim: /'

# Host-name conflict: same --host on two links' addresses.
check "publisher with host 'twin' in ns1" \
	mdns_publish "$MDNS_NS1" t1 7021 --host twin
check "publisher with host 'twin' in ns2" \
	mdns_publish "$MDNS_NS2" t2 7022 --host twin
check "the second host renamed itself 'twin-2'" \
	grep -q "^published 't2' on twin-2.local port 7022" "$MDNS_PUB_LOG"
out=$(bb_browse "$MDNS_NS3" --timeout 2)
check "browse: t1 on twin.local at $MDNS_IP1" \
	has "$out" "^t1${tab}twin.local${tab}$MDNS_IP1${tab}7021"
check "browse: t2 on twin-2.local at $MDNS_IP2" \
	has "$out" "^t2${tab}twin-2.local${tab}$MDNS_IP2${tab}7022"

# Against avahi.
check "avahi-daemon starts" mdns_avahi "$MDNS_NS3" avahi3
alog=$RUN_DIR/avahi-publish-bench.log
mdns_bg "$MDNS_NS3" "$alog" avahi-publish -s bench _benchboot._tcp 7031
check "avahi-publish of our name 'bench' is told to rename" \
	wait_for 10 grep -q "collision" "$alog"
sed 's/^/# avahi-publish: /' "$alog"
alog=$RUN_DIR/avahi-publish-own.log
mdns_bg "$MDNS_NS3" "$alog" avahi-publish -s "Owned" _benchboot._tcp 7032
wait_for 10 grep -q "Established under name 'Owned'" "$alog"
check "we rename when avahi owns 'Owned'" \
	mdns_publish "$MDNS_NS1" Owned 7033 --host bb-o
check "to 'Owned (2)'" grep -q "^published 'Owned (2)'" "$MDNS_PUB_LOG"
check "we rename when avahi owns host name avahi3" \
	mdns_publish "$MDNS_NS2" h3 7034 --host avahi3
check "to 'avahi3-2'" grep -q "^published 'h3' on avahi3-2.local" \
	"$MDNS_PUB_LOG"
got=$(avahi_browse "$MDNS_NS3")
# avahi escapes ' ', '(' and ')' as \032, \040 and \041.
owned='Owned\\032\\0402\\041;_benchboot._tcp;local;bb-o.local;'
check "avahi-browse sees 'Owned (2)' at port 7033" has "$got" "$owned.*;7033;"
check "avahi-browse still sees our first 'bench' at port 7001" \
	has "$got" '^=;e0;IPv4;bench;_benchboot._tcp;local;bb-a.local;.*;7001;'
tap_done
