#!/bin/sh
# 310_mdns_avahi_sees_us.sh: Debian's avahi (avahi-daemon on a private
# D-Bus system bus, avahi-browse -rpt) sees our publisher in another
# network namespace with the right host, address, port and TXT; dig gets a
# legacy unicast answer (RFC 6762 §6.7); its DNS-SD subtype
# (_controller._sub, RFC 6763 §7.1) is found by avahi and dig, another
# subtype is not; the goodbye removes it.
# harness: parallel
set -u
. "$TOP/payload/tests/lib/tap.sh"
. "$TOP/payload/tests/lib/servers.sh"
. "$TOP/payload/tests/lib/mdns.sh"
trap mdns_stop EXIT
trap 'exit 1' INT TERM
mdns_need avahi-daemon avahi-browse dbus-daemon dig

mdns_net 2 || { not_ok "network namespaces"; tap_done; exit 1; }
txt="--txt role=server --txt id=box-1 --txt arch=x86_64 --txt ver=0.1.0
	--txt suite=smoke --txt cpus=2 --txt mem=2048"
# Its stdin is a FIFO: a line there replaces the TXT record.
publog=$RUN_DIR/pub.log
fifo=$RUN_DIR/txt.fifo
mkfifo "$fifo"
# shellcheck disable=SC2086
ip netns exec "$MDNS_NS1" $TARGET_RUN "$BENCHBOOT" mdns publish \
	--name "Bench Box.1" --port 7070 --host bb-box-1 $txt --txt-stdin \
	--subtype _controller \
	<"$fifo" >"$publog" 2>&1 &
pub=$!
MDNS_PIDS="$MDNS_PIDS $pub"
exec 7>"$fifo"
check "our publisher probes and announces 'Bench Box.1'" \
	wait_for 10 grep -q "^published 'Bench Box.1'" "$publog"
check "avahi-daemon starts in the other namespace" \
	mdns_avahi "$MDNS_NS2" avahi2

# avahi escapes the dot and the space: Bench\032Box\.1.
got=$(avahi_browse "$MDNS_NS2")
printf '%s\n' "$got" | sed "s/^/# avahi-browse: /"
line=$(printf '%s\n' "$got" |
	grep -F 'Bench\032Box\.1;_benchboot._tcp;local;')
check "avahi-browse -rpt resolves our instance" [ -n "$line" ]
host=$(printf '%s\n' "$line" | cut -d';' -f7)
addr=$(printf '%s\n' "$line" | cut -d';' -f8)
port=$(printf '%s\n' "$line" | cut -d';' -f9)
check_eq "host" "$host" "bb-box-1.local"
check_eq "address" "$addr" "$MDNS_IP1"
check_eq "port" "$port" 7070
for kv in role=server id=box-1 arch=x86_64 ver=0.1.0 suite=smoke cpus=2 \
	mem=2048; do
	case $line in
	*"\"$kv\""*) ok "TXT has $kv" ;;
	*) not_ok "TXT has $kv" ;;
	esac
done
ntxt=$(printf '%s\n' "$line" | cut -d';' -f10- | grep -o '"[^"]*"' |
	wc -l)
check_eq "TXT has exactly 7 strings" "$ntxt" 7

# Service type enumeration (avahi-browse -a asks _services._dns-sd._udp).
types=$(ip netns exec "$MDNS_NS2" timeout 15 avahi-browse -apt \
	2>/dev/null | grep -c ';_benchboot._tcp;')
check "avahi-browse -a lists _benchboot._tcp" [ "$types" -ge 1 ]

# The subtype: avahi browses it (one PTR query for
# _controller._sub._benchboot._tcp.local) and finds us; a subtype we do
# not list finds nothing.
sub=$(ip netns exec "$MDNS_NS2" timeout 15 avahi-browse -rpt \
	_controller._sub._benchboot._tcp 2>/dev/null | grep '^=')
printf '%s\n' "$sub" | sed "s/^/# avahi-browse _controller._sub: /"
check "avahi-browse resolves us under the subtype _controller" sh -c \
	'printf "%s\n" "$1" | grep -qF "Bench\\032Box\\.1;_benchboot._tcp;local;bb-box-1.local;$2;7070;"' \
	sh "$sub" "$MDNS_IP1"
nsub=$(ip netns exec "$MDNS_NS2" timeout 15 avahi-browse -rpt \
	_server._sub._benchboot._tcp 2>/dev/null | grep -c '^=')
check_eq "avahi-browse finds nothing under the subtype _server" "$nsub" 0

# Host name resolution through avahi.
res=$(ip netns exec "$MDNS_NS2" timeout 10 avahi-resolve -4 -n \
	bb-box-1.local 2>/dev/null)
check_eq "avahi-resolve -n bb-box-1.local" "$res" \
	"$(printf 'bb-box-1.local\t%s' "$MDNS_IP1")"

# Legacy unicast: dig from port != 5353 gets a direct answer with its
# question echoed and TTL <= 10.
has() { printf '%s\n' "$1" | grep -q -- "$2"; }
d=$(ip netns exec "$MDNS_NS2" dig +time=2 +tries=2 +noedns -p 5353 \
	"@$MDNS_IP1" bb-box-1.local A 2>&1)
check "dig legacy unicast: NOERROR" has "$d" "status: NOERROR"
check "dig legacy unicast: flags qr aa" has "$d" "flags: qr aa;"
check "dig legacy unicast: question echoed" \
	has "$d" "^;bb-box-1.local\.[[:space:]]*IN[[:space:]]*A"
ans=$(printf '%s\n' "$d" |
	awk '/ANSWER SECTION/ {a=1; next} a && NF {print; exit}')
ttl=$(printf '%s\n' "$ans" | awk '{print $2}')
check "dig legacy unicast: A $MDNS_IP1" has "$ans" "A[[:space:]]*$MDNS_IP1\$"
check "dig legacy unicast: TTL ${ttl:-?} <= 10" [ "${ttl:-99}" -le 10 ]
d=$(ip netns exec "$MDNS_NS2" dig +time=2 +tries=2 +noedns -p 5353 \
	"@$MDNS_IP1" "_benchboot._tcp.local" PTR 2>&1)
check "dig legacy unicast PTR: the instance" \
	has "$d" 'PTR[[:space:]]*Bench\\032Box\\.1\._benchboot'
check "dig legacy unicast PTR: SRV and TXT as additional records" \
	has "$d" 'ADDITIONAL: 3'
check "dig legacy unicast PTR: SRV target and port" \
	has "$d" 'SRV[[:space:]]*0 0 7070 bb-box-1.local'

d=$(ip netns exec "$MDNS_NS2" dig +time=2 +tries=2 +noedns -p 5353 \
	"@$MDNS_IP1" "_controller._sub._benchboot._tcp.local" PTR 2>&1)
check "dig legacy unicast subtype PTR: the instance" \
	has "$d" '_controller\._sub\._benchboot\._tcp\.local\.[[:space:]].*PTR[[:space:]]*Bench\\032Box\\.1\._benchboot'
d=$(ip netns exec "$MDNS_NS2" dig +time=1 +tries=1 +noedns -p 5353 \
	"@$MDNS_IP1" "_server._sub._benchboot._tcp.local" PTR 2>&1)
check "dig legacy unicast, a subtype not listed: no answer" \
	sh -c '! printf "%s\n" "$1" | grep -q "PTR[[:space:]]*Bench"' sh "$d"

# A new TXT (role=server -> role=controller) is announced with the
# cache-flush bit: avahi replaces the old strings rather than adding.
echo "role=controller id=box-1 arch=x86_64" >&7
check "publisher took the new TXT" \
	wait_for 5 grep -q "TXT replaced (3 strings)" "$publog"
sleep 1
got=$(avahi_browse "$MDNS_NS2" | grep -F 'Bench\032Box\.1;')
printf '%s\n' "$got" | sed 's/^/# avahi-browse: /'
check_eq "avahi-browse shows exactly the new TXT" \
	"$(printf '%s\n' "$got" | cut -d';' -f10-)" \
	'"arch=x86_64" "id=box-1" "role=controller"'

# Goodbye: SIGTERM sends TTL 0; avahi forgets the instance at once.
mon=$RUN_DIR/avahi-monitor.log
mdns_bg "$MDNS_NS2" "$mon" avahi-browse -pk _benchboot._tcp
mon_pid=$MDNS_LAST_PID
wait_for 10 grep -q '^+;.*Bench' "$mon"
mdns_kill "$pub"
check "avahi sees the goodbye (removal within 3 s)" \
	wait_for 3 grep -q '^-;.*Bench' "$mon"
mdns_kill "$mon_pid"
check "publisher logged its counters" grep -q '^benchboot mdns: rx ' \
	"$publog"
check "publisher never rejected a packet from avahi or dig" \
	grep -q ' bad 0 ' "$publog"
grep 'benchboot mdns' "$publog" | sed 's/^/# /'
tap_done
