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
