# links.sh: which network links the image uses and how, for a machine
# with several NICs (sourced by /init, role and the zcip hook): every
# Ethernet link, or only the one benchboot.if= names; a link-local
# address's own routing table, so a host answers on the link it was
# reached on; and, when several links have only link-local addresses,
# 169.254/16 routed out of the one where benchboot peers answer
# (docs/kernel-parameters.md, "Several NICs").

BB_NET=${BB_NET:-/run/net}
BB_SYS_NET=${BB_SYS_NET:-/sys/class/net}
# The main table's metric of a link-local link that is not the preferred
# one: its route stays, behind the preferred link's (metric 0).
BB_LL_BEHIND=100

# bb_links_all: the Ethernet links (type 1), one a line, in ifindex order.
bb_links_all() {
	local d
	for d in "$BB_SYS_NET"/*; do
		[ "$(cat "$d/type" 2>/dev/null)" = 1 ] || continue
		echo "$(cat "$d/ifindex") ${d##*/}"
	done | sort -n | awk '{print $2}'
}

# bb_links_pick WANT: the Ethernet link named WANT, or whose MAC is WANT
# (lower case); nothing when there is none.
bb_links_pick() {
	local l
	for l in $(bb_links_all); do
		if [ "$l" = "$1" ] ||
			[ "$(cat "$BB_SYS_NET/$l/address" 2>/dev/null)" = "$1" ]
		then
			echo "$l"
			return 0
		fi
	done
	return 1
}

# bb_links_describe: "eth0 52:54:00:bb:20:01, eth1 ..." for a message;
# "none" on a machine without Ethernet links.
bb_links_describe() {
	local l out=
	for l in $(bb_links_all); do
		out="${out:+$out, }$l"
		out="$out $(cat "$BB_SYS_NET/$l/address" 2>/dev/null)"
	done
	echo "${out:-none}"
}

# bb_ll_table_id LINK: the routing table (and rule priority) of LINK's
# link-local address: 1000 + its ifindex.
bb_ll_table_id() {
	echo $((1000 + $(cat "$BB_SYS_NET/$1/ifindex")))
}

# bb_ll_table LINK ADDR: what leaves from ADDR (LINK's 169.254 address)
# leaves by LINK, whatever the main table prefers: so a reply goes out of
# the link its request came in on, when several links are in 169.254/16.
bb_ll_table() {
	local t
	t=$(bb_ll_table_id "$1")
	ip route replace 169.254.0.0/16 dev "$1" src "$2" table "$t"
	ip rule del pref "$t" 2>/dev/null
	ip rule add from "$2" table "$t" pref "$t"
}

# bb_ll_untable LINK: undoes bb_ll_table.
bb_ll_untable() {
	local t
	t=$(bb_ll_table_id "$1")
	ip rule del pref "$t" 2>/dev/null
	ip route flush table "$t" 2>/dev/null
}

# bb_ll_behind LINK ADDR: LINK's 169.254/16 route in the main table moves
# behind the preferred link's (metric BB_LL_BEHIND).
bb_ll_behind() {
	ip route del 169.254.0.0/16 dev "$1" metric 0 2>/dev/null
	ip route replace 169.254.0.0/16 dev "$1" src "$2" \
		metric "$BB_LL_BEHIND" 2>/dev/null
}

# bb_ll_only: the links with a link-local address and no DHCP lease.
bb_ll_only() {
	local l
	for l in $(cat "$BB_NET/links" 2>/dev/null); do
		[ -s "$BB_NET/$l.ll" ] && [ ! -s "$BB_NET/$l.dhcp" ] &&
			echo "$l"
	done
}

# bb_ll_start LINK: claims a link-local address on LINK with zcip, now
# when it has a carrier, else as soon as it has one (a NIC without a
# cable must not get an address, nor the 169.254/16 route).
bb_ll_start() {
	if [ "$(cat "$BB_SYS_NET/$1/carrier" 2>/dev/null)" != 1 ]; then
		bb_say "benchboot: $1 has no link (no cable, or nothing at" \
			"the other end): it gets an address when it has one"
		( while [ "$(cat "$BB_SYS_NET/$1/carrier" 2>/dev/null)" != 1 ]
		  do sleep 1; done
		  exec zcip -f "$1" /usr/share/udhcpc/zcip.script \
			>"$BB_NET/$1.zcip.log" 2>&1 ) &
		return
	fi
	zcip -f "$1" /usr/share/udhcpc/zcip.script \
		>"$BB_NET/$1.zcip.log" 2>&1 &
}

# bb_ll_peers_on LINK BROWSE MINE: whether the browse output BROWSE
# (`benchboot mdns browse` lines: name, host, address, port, interface,
# TXT) has an instance seen on LINK at an address not in MINE (" A B ").
bb_ll_peers_on() {
	printf '%s\n' "$2" | awk -F '\t' -v l="$1" -v mine="$3" '
		$5 == l && index(mine, " " $3 " ") == 0 { f = 1 }
		END { exit !f }'
}

# bb_ll_choose_once: when two or more links have only link-local
# addresses, browse for benchboot peers (2 s) and route 169.254/16 out
# of the first such link where one answers, the others behind it; says
# so on the console (bb_say: console.sh).  Returns 0 once a link is
# chosen, 1 while not (fewer than two such links yet, or no peer
# answered).
bb_ll_choose_once() {
	local l seen mine pick=
	[ -s "$BB_NET/ll-preferred" ] && return 0
	set -- $(bb_ll_only)
	[ $# -ge 2 ] || return 1
	mine=" $(ip -4 -o addr show 2>/dev/null |
		awk '{ sub(/\/.*/, "", $4); printf "%s ", $4 }')"
	seen=$(benchboot mdns browse --timeout 2s _benchboot._tcp 2>/dev/null)
	for l in "$@"; do
		bb_ll_peers_on "$l" "$seen" "$mine" && { pick=$l; break; }
	done
	[ -n "$pick" ] || return 1
	echo "$pick" >"$BB_NET/ll-preferred"
	for l in "$@"; do
		[ "$l" = "$pick" ] || bb_ll_behind "$l" "$(cat "$BB_NET/$l.ll")"
	done
	bb_say "benchboot: links $* have only link-local addresses;" \
		"benchboot peers answer on $pick, so 169.254/16 goes out of" \
		"$pick (the others still answer on their own addresses)"
	return 0
}

# bb_ll_chooser: bb_ll_choose_once every 3 s until a link is chosen (the
# peers may boot later than this host); the role starts it in the
# background on a machine with two links or more.
bb_ll_chooser() {
	until bb_ll_choose_once; do
		sleep 3
	done
}
