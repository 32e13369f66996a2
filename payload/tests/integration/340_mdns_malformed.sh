#!/bin/sh
# 340_mdns_malformed.sh: malformed mDNS packets sent to our responder
# (unicast and multicast, from another network namespace) are each
# dropped with a logged reason naming what and where, a flood of them is
# counted but not logged line by line, and the responder keeps answering
# avahi, dig and our browser throughout.
# harness: parallel
set -u
. "$TOP/payload/tests/lib/tap.sh"
. "$TOP/payload/tests/lib/servers.sh"
. "$TOP/payload/tests/lib/mdns.sh"
trap mdns_stop EXIT
trap 'exit 1' INT TERM
mdns_need bash dig avahi-daemon avahi-browse dbus-daemon

mdns_net 3 || { not_ok "network namespaces"; tap_done; exit 1; }
check "publisher starts" mdns_publish "$MDNS_NS1" victim 7040 \
	--host bb-v --txt role=server --txt id=v
pub=$MDNS_LAST_PID
log=$MDNS_PUB_LOG
check "avahi-daemon starts" mdns_avahi "$MDNS_NS3" avahi3

# send FILE [DEST]: one datagram from an ephemeral port in ns2.
send() {
	ip netns exec "$MDNS_NS2" bash -c 'cat "$1" >"/dev/udp/$2/5353"' \
		_ "$1" "${2:-$MDNS_IP1}"
}
q1='\000\000\000\000\000\001\000\000\000\000\000\000'
an1='\000\000\204\000\000\000\000\001\000\000\000\000'
a_local='\001a\005local\000'
# name|bytes (printf format)|expected reason (grep -F)
cases="short header|\000\001\002\003\004|packet is 5 bytes, shorter than the 12-byte header
compression loop|$q1\300\014\000\001\000\001|compression pointer at offset 12 points forward or into its own name (12 >= 12)
forward pointer|$q1\300\022\000\001\000\001$a_local|compression pointer at offset 12 points forward
pointer into the header|$q1\300\004\000\001\000\001|points into the header (4)
label type 0x40|$q1\100abc\000\000\001\000\001|label at offset 12 has the reserved type bits 0x40
lying question count|\000\000\000\000\000\003\000\000\000\000\000\000$a_local\000\001\000\001|the header claims 3 questions but the packet ends after 1
lying answer count|\000\000\204\000\000\000\000\011\000\000\000\000$a_local\000\001\000\001\000\000\000\170\000\004\001\002\003\004|the header claims 9 answer records but the packet ends after 1
A rdata length 5|$an1$a_local\000\001\000\001\000\000\000\170\000\005\001\002\003\004\005|A rdlength 5 at offset 29, want 4
TXT string overrun|$an1$a_local\000\020\000\001\000\000\000\170\000\003\011ab|string at offset 31 claims 9 bytes, only 2 left in rdlength 3
rdlength past the end|$an1$a_local\000\001\000\001\000\000\000\170\001\000\001|rdlength 256 at offset 29 runs past the end of the packet
trailing bytes|$q1$a_local\000\001\000\001JUNK|4 trailing bytes at offset 25"
n=0
IFS_SAVE=$IFS
IFS='
'
for c in $cases; do
	n=$((n + 1))
	name=${c%%|*}
	rest=${c#*|}
	# shellcheck disable=SC2059
	printf "${rest%%|*}" >"$RUN_DIR/bad$n.bin"
	# Every other one multicast: both receive paths must validate.
	if [ $((n % 2)) = 0 ]; then send "$RUN_DIR/bad$n.bin" 224.0.0.251
	else send "$RUN_DIR/bad$n.bin"; fi
done
# A name of 256 bytes: four labels of 63 (+1) bytes, built here.
l63=$(printf '%063d' 0)
{ printf "$q1"; for i in 1 2 3 4; do printf '\077%s' "$l63"; done
  printf '\000\000\001\000\001'; } >"$RUN_DIR/long.bin"
send "$RUN_DIR/long.bin"
# Over mDNS's 9000-byte limit (IP-fragmented on the 1500-byte link).
{ printf "$q1"; head -c 9000 /dev/zero; } >"$RUN_DIR/huge.bin"
send "$RUN_DIR/huge.bin"
IFS=$IFS_SAVE
sleep 0.5

n=0
IFS='
'
for c in $cases; do
	n=$((n + 1))
	name=${c%%|*}
	want=${c##*|}
	check "$name: dropped with '$want'" \
		grep -qF "$want" "$log"
done
IFS=$IFS_SAVE
check "log names the source and interface" \
	grep -q "dropped packet from $MDNS_IP2:[0-9]* on e0 ([0-9]* bytes): " \
	"$log"
check "256-byte name: dropped as longer than 255 bytes" \
	grep -q "question 1 of 1: name at offset 12 is longer than 255 bytes" \
	"$log"
check "9012-byte packet: dropped as over 9000 bytes" \
	grep -q "over 9000 bytes" "$log"

# Still answering: dig (legacy unicast), our browser, avahi.
d=$(ip netns exec "$MDNS_NS2" dig +time=2 +tries=2 +noedns +short -p 5353 \
	"@$MDNS_IP1" bb-v.local A 2>&1)
check_eq "dig still gets bb-v.local A" "$d" "$MDNS_IP1"
out=$(bb_browse "$MDNS_NS2" --timeout 2)
check "our browser still resolves it" sh -c \
	'printf "%s\n" "$1" | grep -q "^victim	bb-v.local	$2	7040"' \
	sh "$out" "$MDNS_IP1"
got=$(avahi_browse "$MDNS_NS3")
check "avahi-browse still resolves it" sh -c \
	'printf "%s\n" "$1" | grep -q "^=;e0;IPv4;victim;.*;7040;"' sh "$got"

# A flood: 200 more, counted but logged at most 20 per 10 s.
before=$(grep -c 'dropped packet' "$log")
ip netns exec "$MDNS_NS2" bash -c \
	'for i in $(seq 200); do cat "$1" >"/dev/udp/$2/5353"; done' \
	_ "$RUN_DIR/bad2.bin" "$MDNS_IP1"
sleep 0.5
after=$(grep -c 'dropped packet' "$log")
check "flood of 200 logged at most 20 lines per 10 s ($((after - before)))" \
	[ $((after - before)) -le 20 ]
d=$(ip netns exec "$MDNS_NS2" dig +time=2 +tries=2 +noedns +short -p 5353 \
	"@$MDNS_IP1" bb-v.local A 2>&1)
check_eq "dig still answered after the flood" "$d" "$MDNS_IP1"
mdns_kill "$pub"
stats=$(grep '^benchboot mdns: rx ' "$log")
diag "$stats"
bad=$(printf '%s\n' "$stats" | sed -n 's/.* bad \([0-9]*\) .*/\1/p')
check_eq "every malformed packet counted (11 + 2 + 200)" "$bad" 213
tap_done
