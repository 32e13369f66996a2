# agent.sh: how every agent test in network namespaces starts (sourced
# after tap.sh, servers.sh and netns.sh): BB, SUITES, jqt, and
# agent_test_start, which skips the whole test where agents cannot run
# and sets the cleanup trap.
BB=$BENCHBOOT
SUITES=$(cd "$(dirname "$0")/suites" && pwd)
jqt() { jq -e "$@" >/dev/null; }

# The usual cleanup: the namespaces and what the test started in them.
agent_test_cleanup() { netns_cleanup; servers_stop; }

# agent_test_start [CLEANUP]: ends the test with one skip when agents
# cannot run here: cross-built (an agent execs /proc/self/exe, which
# qemu-user cannot follow without binfmt_misc, and qemu-user fails
# multicast joins; 690_mixed_arch covers those architectures) or not root
# (no namespaces).  Otherwise traps EXIT to CLEANUP (default
# agent_test_cleanup).
agent_test_start() {
	if [ -n "${TARGET_RUN:-}" ]; then
		skip "agents under $TARGET_RUN cannot exec their workloads or join multicast groups (qemu-user limits)"
		tap_done
		exit 0
	fi
	trap "${1:-agent_test_cleanup}" EXIT
	if ! netns_available; then
		skip "network namespaces need root"
		tap_done
		exit 0
	fi
}

# agent_two_servers_settle A_LOG B_LOG YIELDED FOLLOWS: two servers (srv-a
# at 10.77.0.1, the lower id, and srv-b at 10.77.0.2) started together
# must end with one controller, whichever way the race went: both took
# the role and srv-b yielded (its log says YIELDED), or one found the
# other already leading.  Two TAP cases, the second named "the other
# follows it: FOLLOWS"; says which way, and sets lead to a or b.
agent_two_servers_settle() {
	check "one of them took the role" wait_for 20 sh -c \
		"grep -q 'becomes the controller' '$1' ||
		 grep -q 'becomes the controller' '$2'"
	check "the other follows it: $4" wait_for 40 sh -c \
		"grep -q '$3' '$2' ||
		 grep -q 'discovered controller srv-a at 10.77.0.1:7407' '$2' ||
		 grep -q 'discovered controller srv-b at 10.77.0.2:7407' '$1'"
	if grep -q "$3" "$2"; then
		diag "both took the role; the higher id yielded"
		lead=a
	elif grep -q 'discovered controller srv-b' "$1"; then
		diag "srv-a found srv-b already the controller"
		lead=b
	else
		diag "srv-b found srv-a already the controller"
		lead=a
	fi
}
