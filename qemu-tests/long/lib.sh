# long/lib.sh: what the long tests in network namespaces share, sourced
# after qemu-tests/lib.sh.  Apart from it because make run sources that
# one, and everything it calls must be installed by make run (jq is not;
# 007_run_deps checks).

# qt_netns NAME: a network namespace of the test's own, bb NAME PID, with
# lo up (QT_NS; X="ip netns exec $QT_NS" runs a command in it), deleted
# on exit after qt_cleanup has killed QT_PIDS: a test adds what it starts
# in the namespace to QT_PIDS.  Returns non-zero when it cannot be made.
qt_netns() {
	QT_NS=bb$1$$
	X="ip netns exec $QT_NS"
	trap 'qt_cleanup; ip netns del "$QT_NS" 2>/dev/null' EXIT
	ip netns add "$QT_NS" && ip -n "$QT_NS" link set lo up
}

# qt_jqe ARGS... FILE: jq -e ARGS on FILE, and FILE not empty (jq -e
# passes on no input).
qt_jqe() {
	local f
	for f; do :; done
	test -s "$f" && jq -e "$@" >/dev/null
}
