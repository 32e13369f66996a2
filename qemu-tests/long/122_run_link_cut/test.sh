#!/bin/sh
# 122_run_link_cut: `make run` (qemu-tests/run.sh, RUN_NET=netns) when a
# guest's network dies mid-run.  Once the suite's first step has started,
# client2's tap is taken down in run.sh's namespace: the guest's NIC stays
# up and its packets are lost, as behind a hung NIC or a pulled cable.
# The controller must say "lost client client-525400bb1002 ..." (client2's
# id, from its MAC) on its console; run.sh must
# repeat that line at once and end within RUN_NET_GRACE s of it (30 here)
# with the line in its last words, unless the result came first; nothing
# may be left running.  make test-long (three TCG VMs, a few minutes).
. "$(dirname "$0")/../../lib.sh"
qt_init
. "$TOP/qemu-tests/run-checks.sh"
qt_need "$IMAGES/vmlinuz" "$IMAGES/initramfs.cpio.gz" \
	"$IMAGES/server-overlay.cpio.gz" "$BENCHBOOT"
if [ "$(id -u)" != 0 ]; then
	skip "make run needs root (bridge and taps in a network namespace)"
	tap_done
	exit 0
fi

grace=30
RUN_DIR=$QT_DIR/run
RUN_DIR=$RUN_DIR QT_ACCEL=$QT_ACCEL RUN_NET_GRACE=$grace \
	RUN_TIMEOUT=$(qt_timeout 240) "$TOP/qemu-tests/run.sh" \
	>"$QT_DIR/run.out" 2>&1 &
pid=$!

# While run.sh runs: cut client2's link once the first step has started
# (the controller's console says so), and note when run.sh first says a
# network failed (its lines carry no time).
said=
cut=
end=$(($(date +%s) + $(qt_timeout 300)))
while kill -0 $pid 2>/dev/null && [ "$(date +%s)" -lt $end ]; do
	if [ -z "$cut" ] &&
		grep -aq 'client(s) prepared, start in' "$RUN_DIR/server.log" \
			2>/dev/null; then
		ns=$(cat "$RUN_DIR/netns")
		ip netns exec "$ns" ip link set tap2 down && cut=$(date +%s)
	fi
	[ -z "$said" ] && grep -aq "a guest's network failed:" \
		"$QT_DIR/run.out" && said=$(date +%s)
	sleep 1
done
if kill -0 $pid 2>/dev/null; then
	kill -INT $pid
	not_ok "run.sh ended by itself within $(qt_timeout 300) s"
fi
wait $pid
rc=$?
stop=$(date +%s)

check "the suite's first step started and client2's tap went down" \
	[ -n "$cut" ]
line=$(grep -a -m 1 "a guest's network failed:" "$QT_DIR/run.out")
check "run.sh said the controller's lost-peer line" \
	sh -c 'echo "$1" | grep -q ": lost client client-525400bb1002 "' \
	sh "$line"
[ -n "$line" ] && diag "  $line"
[ -n "$cut" ] && [ -n "$said" ] &&
	diag "  lost line $((said - cut)) s after the cut, run.sh ended" \
		"$((stop - said)) s after the line (rc $rc)"
if [ "$rc" = 0 ]; then
	# The result came first: the run finished without client2.
	check "the result came first and names the lost client's steps" \
		grep -aq 'result:' "$QT_DIR/run.out"
else
	check "run.sh ended within $grace s (+10) of the line" \
		[ $((stop - ${said:-0})) -le $((grace + 10)) ]
	check "its last words repeat the line" sh -c \
		'tail -n 3 "$1" | grep -q "stopped: a guest.s network failed: server: .*lost client"' \
		sh "$QT_DIR/run.out"
fi
check "everything stopped and removed" run_gone "$RUN_DIR"
tail -n 5 "$QT_DIR/run.out" | sed 's/^/#   | /'
tap_done
