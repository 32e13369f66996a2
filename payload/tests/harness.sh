#!/bin/sh
# harness.sh TEST...: runs each test program (unit binary or script; each
# prints TAP), shows its cases, keeps its log under $O/test-logs, and ends
# with the summary line "N passed, N failed".
#
# A test passes only when its TAP is whole: exactly one plan line (1..N),
# before its first case or after its last, and N cases.  Each of these
# counts as one more failure, with a line saying which and why: no plan (a
# test that died before tap_done), fewer cases than planned (it stopped
# early), more than planned, a second plan or one between cases, a
# non-zero exit without a "not ok" case, a run past TEST_TIMEOUT, no case
# at all.  "1..0 # SKIP why" alone is a test skipped as a whole.
# payload/tests/integration/005_harness.sh holds the table of verdicts.
#
# A script whose first lines hold "# harness: parallel" may run beside
# another such script: it keeps to one core, binds only ports it finds
# free, names its namespaces, links and files after its own PID or
# directory, and times nothing against the CPU it is given.  Up to
# HARNESS_JOBS of them run at once, by default one more than the cores
# (most such tests wait on timers and peers, not on the CPU); everything
# else runs alone.  The output stays in the list's order either way.
set -u

logs=${O:-out}/test-logs
# A cross-built architecture keeps its logs apart: a ppc64le run must not
# overwrite the x86_64 logs of the same test names.
[ "${ARCH:-x86_64}" = x86_64 ] || logs=$logs/$ARCH
mkdir -p "$logs"
timeout_s=${TEST_TIMEOUT:-900}
pass=0 fail=0 skip=0
# The failed tests, "TEST|LOG" each.
failed=

# bad WHY: one more failure of test $t, said on its own line.
bad() { echo "  not ok - $t $*"; f=$((f + 1)); }

jobs=${HARNESS_JOBS:-$(($(nproc 2>/dev/null || echo 1) + 1))}

# TEST_TMP: where the tests' servers keep their files (lib/servers.sh,
# qemu-tests/lib.sh), a directory of this run's own under /tmp, removed
# at the end: not the checkout, which other users (nginx's workers,
# Postfix, the collector as nobody) may not be able to pass.
if [ -z "${TEST_TMP:-}" ]; then
	TEST_TMP=$(mktemp -d /tmp/benchboot-test.XXXXXX) || exit 1
	chmod 711 "$TEST_TMP"
	export TEST_TMP
	trap 'rm -rf "$TEST_TMP"' EXIT
	trap 'exit 130' INT TERM
fi

# log_of T: where test T's output goes.
log_of() {
	echo "$logs/$(echo "$1" | sed 's|^.*/payload/tests/||; s|^\./||;
		s|/|_|g').log"
}

# HARNESS_CPU=FILE: each test's CPU seconds, its whole process tree
# (daemons and VMs included) counted by a cpuacct cgroup of its own, are
# appended to FILE as "CPU WALL TEST": what make test's time is made of
# (docs/developer.md).  Needs root and cgroup v1's cpuacct; else nothing.
cpu_root=/sys/fs/cgroup/cpuacct
cpu_group() {
	_g=$cpu_root/bbtest.$$.$(basename "$1" .log)
	[ -n "${HARNESS_CPU:-}" ] && [ -w "$cpu_root" ] &&
		mkdir -p "$_g" 2>/dev/null && echo "$_g"
}
# cpu_note GROUP WALL T: T's line in $HARNESS_CPU; the group removed
# (kept while a process the test left behind still runs in it).
cpu_note() {
	_ns=$(cat "$1/cpuacct.usage" 2>/dev/null) || return 0
	echo "$((_ns / 1000000000)) $2 $3" >>"$HARNESS_CPU"
	rmdir "$1" 2>/dev/null
}

# run_one T: runs test T to its log; its exit status and seconds taken go
# to LOG.rc as "RC SECS".  Scripts run on the host; a test program is
# built for ARCH and runs through TARGET_RUN (qemu-user when cross-built:
# binfmt_misc may not be registered on the build host, so nothing relies
# on it).
run_one() {
	_l=$(log_of "$1")
	_start=$(date +%s)
	case $1 in
	*.sh) _run= ;;
	*) _run=${TARGET_RUN:-} ;;
	esac
	if _cg=$(cpu_group "$_l"); then
		# The test joins its group before it execs, so every process
		# it starts (daemons too) is counted.
		timeout -k 10 "$timeout_s" sh -c 'echo $$ >"$1/tasks" &&
			shift && exec "$@"' sh "$_cg" $_run "$1" >"$_l" 2>&1
	else
		timeout -k 10 "$timeout_s" $_run "$1" >"$_l" 2>&1
	fi
	_rc=$?
	_took=$(($(date +%s) - _start))
	[ -n "$_cg" ] && cpu_note "$_cg" "$_took" "$1"
	echo "$_rc $_took" >"$_l.rc.tmp"
	mv "$_l.rc.tmp" "$_l.rc"
}

# report T [HEADED]: test T's cases and verdict from its finished log,
# after a line naming it unless HEADED (a test run alone is named as it
# starts).
report() {
	t=$1
	log=$(log_of "$t")
	read -r rc took <"$log.rc"
	rm -f "$log.rc"
	[ -n "${2:-}" ] || echo "# $t"
	grep -E '^(not )?ok ' "$log" | sed 's/^/  /'
	p=$(grep -cE '^ok .*# (SKIP|skip)' "$log")
	s=$p
	p=$(($(grep -cE '^ok ' "$log") - s))
	f=$(grep -cE '^not ok ' "$log")
	cases_f=$f
	# The plan: how many plan lines, the last one's N, and whether it
	# stands before the first case or after the last (TAP allows either).
	# (eval: awk prints only numbers and one of its own words.)
	eval "$(awk '
		/^(not )?ok / { n++; last = NR; if (!first) first = NR }
		/^1\.\.[0-9]+[ \t]*(#.*)?$/ {
			plans++; line = NR; planned = $0
			sub(/^1\.\./, "", planned); sub(/[^0-9].*/, "", planned)
			skipall = $0 ~ /^1\.\.0[ \t]*#[ \t]*[Ss][Kk][Ii][Pp]/
		}
		END {
			where = !plans ? "none" : !n ? "alone" : \
				line < first ? "start" : line > last ? "end" : \
				"middle"
			printf "plans=%d planned=%d cases=%d where=%s skipall=%d\n",
				plans, planned, n, where, skipall
		}' "$log")"
	# A test skipped as a whole ("1..0 # SKIP why", the TAP way) counts
	# as one skip.
	if [ "$plans" = 1 ] && [ "$skipall" = 1 ] && [ "$cases" = 0 ] &&
		[ $rc = 0 ]; then
		echo "  ok - $t $(sed -n 's/^1\.\.0[ \t]*#[ \t]*//p' "$log" |
			head -n 1)"
		s=1
	fi
	if [ $rc = 124 ]; then
		bad "timed out after ${timeout_s}s"
	elif [ $rc != 0 ] && [ "$cases_f" = 0 ]; then
		bad "exited with status $rc, though no case failed"
	fi
	if [ "$s" = 1 ] && [ "$skipall" = 1 ]; then
		:
	elif [ "$plans" = 0 ] && [ "$cases" = 0 ]; then
		bad "reported no test cases"
	elif [ "$plans" = 0 ]; then
		bad "printed no TAP plan (1..N) for its $cases cases:" \
			"it did not reach its end (tap_done)"
	elif [ "$plans" != 1 ]; then
		bad "printed $plans TAP plans (1..N); one is allowed"
	elif [ "$where" = middle ]; then
		bad "printed its TAP plan (1..$planned) between cases;" \
			"it belongs before the first or after the last"
	elif [ "$cases" -lt "$planned" ]; then
		bad "stopped early: planned $planned cases, ran $cases"
	elif [ "$cases" -gt "$planned" ]; then
		bad "ran $cases cases, more than the $planned it planned"
	elif [ "$cases" = 0 ]; then
		bad "reported no test cases"
	fi
	if [ "$f" != "$cases_f" ]; then
		tail -n 15 "$log" | sed 's/^/  | /'
	elif [ "$f" != 0 ]; then
		why_failed "$log" '^#' | head -n 30 | sed 's/^/  | /'
	fi
	[ "$f" != 0 ] && failed="$failed $t|$log"
	echo "  ($p passed, $f failed, $s skipped in ${took}s; log: $log)"
	pass=$((pass + p)) fail=$((fail + f)) skip=$((skip + s))
}

# why_failed LOG PATTERN: the lines matching PATTERN among each failed
# case of LOG and the six lines after it (its diagnostics).
why_failed() { grep -E -A6 '^not ok ' "$1" | grep -E "$2"; }

# parallel T: whether test T says it may share the machine.
parallel() {
	[ "$jobs" -gt 1 ] && case $1 in *.sh) ;; *) false ;; esac &&
		head -n 20 "$1" | grep -q '^# harness: parallel$'
}

# The tests running beside each other, oldest first, are reported in that
# order as each finishes; a test that runs alone waits for them all.
running=
# reap: reports the finished tests at the head of $running.
reap() {
	while [ -n "$running" ]; do
		set -- $running
		[ -e "$(log_of "$1").rc" ] || return 0
		report "$1"
		shift
		running=$*
	done
}
# drain_to N: waits until at most N tests run beside each other.
drain_to() {
	while :; do
		reap
		_n=0
		for _t in $running; do
			[ -e "$(log_of "$_t").rc" ] || _n=$((_n + 1))
		done
		# Reap again: a test that ended since the reap above must
		# be reported before what runs next.
		[ $_n -le "$1" ] && { reap; return 0; }
		sleep 0.2
	done
}

for next in "$@"; do
	rm -f "$(log_of "$next").rc"
	if parallel "$next"; then
		drain_to $((jobs - 1))
		run_one "$next" &
		running="$running $next"
	else
		drain_to 0
		echo "# $next"
		run_one "$next"
		report "$next" headed
	fi
done
drain_to 0

# The failed cases again, with their diagnostics, where the run ends: CI
# keeps only the tail of a long run's output.  HARNESS_FAILURES=FILE:
# appended there too (make test prints them after every architecture).
failures() {
	local tl log
	for tl in $failed; do
		log=${tl#*|}
		echo "# failed${HARNESS_LABEL:+ ($HARNESS_LABEL)} in ${tl%%|*}:"
		# (no failed case: the harness's own verdict; the log's end
		# says why)
		{ grep -qE '^not ok ' "$log" &&
			why_failed "$log" '^(not ok |#)' ||
			tail -n 15 "$log"; } | head -n 40 | sed 's/^/  | /'
	done
}
failures
[ -z "${HARNESS_FAILURES:-}" ] || failures >>"$HARNESS_FAILURES"
[ -n "$failed" ] && echo "# failed:$(for tl in $failed; do
	printf ' %s' "$(basename "${tl#*|}" .log)"; done)"
echo "# $skip skipped"
# `make test` runs one harness per architecture and sums them
# (HARNESS_TOTALS); each run's line is then labelled with its ARCH.
[ -n "${HARNESS_TOTALS:-}" ] && echo "$pass $fail $skip" >>"$HARNESS_TOTALS"
echo "${HARNESS_LABEL:+$HARNESS_LABEL: }$pass passed, $fail failed"
[ $fail = 0 ]
