#!/bin/sh
# 690_mixed_arch.sh: agents of two architectures in one run, in network
# namespaces on one host: a PowerPC server agent and a PowerPC controller
# (both under qemu-user) with two x86_64 clients; the PowerPC controller
# syncs clocks, runs the suite and merges the x86_64 clients' records and
# histograms into the result document.  Needs both builds (`make` and
# `make ARCH=ppc64le`, from the same tree); skipped, saying so, without.
# Why not a ppc64le client: an agent runs its workloads by exec'ing
# /proc/self/exe, which qemu-user 7.2 without binfmt_misc cannot follow
# (the agent then offers no workloads); on the booted image it is native.
# harness: parallel
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/servers.sh"
. "$(dirname "$0")/../lib/netns.sh"
SUITES=$(cd "$(dirname "$0")/suites" && pwd)
# The PowerPC side is ARCH's own build when ARCH is a PowerPC one (ARCH=ppc
# is 32-bit big-endian: byte order and word size then cross the protocol,
# the histograms and the merge), else ppc64le's from its out/.
case $ARCH in
ppc | ppc64le) PARCH=$ARCH ;;
*) PARCH=ppc64le ;;
esac
X86=$O/x86_64/bin/benchboot PPC=$O/$PARCH/bin/benchboot
case $ARCH in
x86_64) X86=$BENCHBOOT ;;
ppc | ppc64le) PPC=$BENCHBOOT ;;
esac
X86=${BENCHBOOT_X86_64:-$X86}
[ "$PARCH" = ppc64le ] && PPC=${BENCHBOOT_PPC64LE:-$PPC}
QPPC=qemu-$PARCH-static
jqt() { jq -e "$@" >/dev/null; }

cleanup() { netns_cleanup; servers_stop; }
trap cleanup EXIT

for need in "$X86" "$PPC"; do
	[ -x "$need" ] && continue
	skip "mixed-arch run needs $need (make; make ARCH=$PARCH)"
	tap_done
	exit 0
done
if [ "$PARCH" = ppc ]; then
	# Reproduced with a three-line getifaddrs() program built with our
	# musl: it spins forever under qemu-ppc-static and lists 9 links
	# under qemu-ppc64le-static.  On mac99 (qemu-system) it is native.
	skip "qemu-user 7.2 hangs a 32-bit big-endian guest in musl's" \
		"getifaddrs() (its netlink translation), which every agent calls"
	tap_done
	exit 0
fi
if ! command -v "$QPPC" >/dev/null; then
	skip "mixed-arch run needs $QPPC (qemu-user-static)"
	tap_done
	exit 0
fi
if ! netns_available; then
	skip "network namespaces need root"
	tap_done
	exit 0
fi
vx=$("$X86" --version | head -n 1) vp=$("$QPPC" "$PPC" --version | head -n 1)
check_eq "both builds are the same version" "${vx% (*}" "${vp% (*}"

netns_hub || { not_ok "hub namespace"; tap_done; exit 1; }
netns_add srv 10.77.0.1 && netns_add ctl 10.77.0.2 &&
	netns_add c1 10.77.0.11 && netns_add c2 10.77.0.12
ok "namespaces srv, ctl, c1, c2 on one bridge"
netns_docroot "$RUN_DIR/www"
check "nginx on 10.77.0.1:80" netns_nginx srv 10.77.0.1 80 "$RUN_DIR/www" \
	"$RUN_DIR/nginx"

# Agents first (they retry until the controller is there), then the
# PowerPC controller; qemu-user makes its clock exchanges slower, not
# different.
# An open lab, and qemu-user's server cannot announce itself over mDNS:
# the clients are told on their command line which host they may load.
netns_spawn c1 "$RUN_DIR/c1.log" "$X86" agent --role=client \
	--controller 10.77.0.2 --once --target 10.77.0.1
netns_spawn c2 "$RUN_DIR/c2.log" "$X86" agent --role=client \
	--controller 10.77.0.2 --once --target 10.77.0.1
netns_spawn srv "$RUN_DIR/server.log" "$QPPC" "$PPC" agent --role=server \
	--controller 10.77.0.2:7407 --once
start=$(date +%s)
netns_exec ctl "$QPPC" "$PPC" agent --role=controller --id ctl-ppc \
	--listen 10.77.0.2:7407 --suite "$SUITES/mixed.suite" \
	--spool "$RUN_DIR/spool" --wait 60s \
	>"$RUN_DIR/ctl.out" 2>"$RUN_DIR/ctl.log"
rc=$?
diag "controller finished in $(($(date +%s) - start)) s"
check_eq "$PARCH controller exit status" "$rc" 0
[ $rc = 0 ] || sed 's/^/#   /' "$RUN_DIR/ctl.log" | tail -30

res=$(cat "$RUN_DIR/ctl.out")
if ! check "result written: $res" test -s "$res"; then
	tap_done
	exit 1
fi
arch() { jq -r ".environment.hosts[] | select(.id == \"$1\") | .arch" "$res"; }
check_eq "the $PARCH controller wrote it" "$(jq -r .controller "$res") \
$(arch ctl-ppc)" "ctl-ppc $PARCH"
check_eq "c1 said hello as x86_64" "$(arch client-525400bb000b)" x86_64
check_eq "c2 said hello as x86_64" "$(arch client-525400bb000c)" x86_64
check_eq "the server said hello as $PARCH" \
	"$(arch server-525400bb0001)" "$PARCH"
check "every agent has a clock offset and rtt" jqt '[.environment.hosts[] |
	select(.role != "controller") | select(.clock.rtt_ns > 0)] |
	length == 3' "$res"

st='.steps[] | select(.name == "http-static/c4")'
check_eq "http-static complete" "$(jq "$st | .complete_repeats" "$res")" 1
per=$(jq -c "[$st | .repeats[0].clients[] |
	{id, requests: .records[0].record.counters.requests}]" "$res")
diag "per client: $per"
check "both clients measured requests" jqt "[$st | .repeats[0].clients[] |
	.records[0].record.counters.requests > 0] == [true, true]" "$res"
# The exact merge across architectures: the PowerPC controller's merged
# histogram holds every sample the x86_64 clients recorded.
sum=$(jq "[$st | .repeats[0].clients[].records[0].record.latency.count] |
	add" "$res")
check_eq "merged latency count = sum of the two clients'" \
	"$(jq "$st | .repeats[0].merged.http.latency.count" "$res")" "$sum"
check_eq "merged requests = histogram count" \
	"$(jq "$st | .repeats[0].merged.http.counters.requests" "$res")" "$sum"
check "merged percentiles are ordered (p50 <= p99 <= max)" jqt "$st |
	.repeats[0].merged.http.latency | .p50 <= .p99 and .p99 <= .max" \
	"$res"
check_eq "no HTTP errors" \
	"$(jq "[$st | .repeats[0].merged.http.errors[]] | add" "$res")" 0
for c in c1 c2 server; do
	check "$c agent exited after done" wait_for 15 sh -c \
		"grep -q 'suite is done' $RUN_DIR/$c.log"
done
tap_done
