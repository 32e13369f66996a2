#!/bin/sh
# test-all.sh ARCH...: `make test`'s order of work for several
# architectures on a machine of two cores.  The first ARCH (the host's)
# is built and tested in the foreground; the others' builds run at the
# same time in the background at a low priority, so they take the core
# the host's build and tests leave idle (most of a build is one
# `configure` or one package at a time; most tests wait on a VM or a
# timer), then their tests follow.  docs/developer.md has the figures.
# Environment: MAKE, O, TEST_TOTALS (from the Makefile).
set -u

host=$1
shift
cross=$*
: "${MAKE:=make}" "${O:=out}" "${TEST_TOTALS:=$O/test-totals}"
logs=$O/test-logs
mkdir -p "$logs"
t0=$(date +%s)
stamp() { echo "# $(date -u +%H:%M:%S) +$(($(date +%s) - t0))s $*"; }

# The background builds' own nice level: low enough that a test in the
# foreground which measures CPU or throughput keeps its core.
CROSS_NICE=${CROSS_NICE:-12}
pids=
tl_pid=
cleanup() {
	[ -z "$tl_pid" ] || kill "$tl_pid" 2>/dev/null
	for p in $pids; do kill -TERM -- "-$p" 2>/dev/null || kill "$p" 2>/dev/null; done
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# build_bg ARCH: one cross architecture's test builds, logged; ARCH's
# exit status goes to its .rc file when done.  Its own session, so an
# interrupted `make test` stops the whole build.  A new session is also a
# new scheduling autogroup (sched_autogroup_enabled, on by default), and
# autogroups share the CPU equally whatever their processes' nice: the
# group's own nice is set too, else the two cross builds took two thirds
# of the machine from the host's (measured: x86_64's build 3 times
# slower).
build_bg() {
	_log=$logs/build-$1.log
	rm -f "$_log.rc"
	setsid sh -c '
		[ -w /proc/self/autogroup ] &&
			echo "$1" 2>/dev/null >/proc/self/autogroup
		nice -n "$1" $2 --no-print-directory ARCH="$3" test-prereqs \
			>"$4" 2>&1
		echo $? >"$4.rc"' sh "$CROSS_NICE" "$MAKE" "$1" "$_log" &
	pids="$pids $!"
	stamp "ARCH=$1: building in the background (log: $_log)"
}

# The machine's CPU use over the run, every 10 s, in
# $logs/cpu-timeline.log ("SECONDS BUSY% [LABEL]"): idle cores are time
# the order of work could still win (docs/developer.md).  The summary
# says the run's mean.
cpu_ticks() { awk '/^cpu / { print $2+$3+$4+$7+$8+$9, $5+$6; exit }' \
	/proc/stat; }
timeline() {
	set -- $(cpu_ticks)
	_b0=$1 _i0=$2
	while sleep 10; do
		set -- $(cpu_ticks)
		_db=$(($1 - _b0)) _di=$(($2 - _i0))
		echo "$(($(date +%s) - t0)) $((_db * 100 / (_db + _di + 1)))"
		_b0=$1 _i0=$2
	done >"$logs/cpu-timeline.log"
}
if [ -r /proc/stat ]; then
	timeline &
	tl_pid=$!
fi
cpu_at_start=$(cpu_ticks 2>/dev/null)

# The first cross ARCH named builds ahead of the next (a lower nice: its
# build is the larger, its tests the longer), so it is ready when the
# host's tests end and the next one's build finishes during its tests.
_n=$CROSS_NICE
for a in $cross; do
	CROSS_NICE=$_n build_bg "$a"
	_n=$((_n + 4))
done
stamp "ARCH=$host: building"
# The host's build is the head of the run's longest chain (its build,
# its tests, then the cross tests): its independent recipes (BusyBox
# beside the libraries, the fuzzers beside musl, the server stack) run
# side by side, at the cross builds' expense, which the host's tests'
# idle core then gives back.
$MAKE --no-print-directory -j"$(nproc 2>/dev/null || echo 2)" \
	ARCH="$host" test-prereqs || exit 1
stamp "ARCH=$host: built"

rm -f "$TEST_TOTALS"
# Every architecture's failed cases, printed again at the end (harness.sh).
HARNESS_FAILURES=$logs/failures
export HARNESS_FAILURES
: >"$HARNESS_FAILURES"
rc=0
# 690_mixed_arch on the host's run would repeat the ppc64le run's own
# (x86_64 clients, a ppc64le server and controller); each cross
# architecture's run holds it, and the host's would race that build.
exclude=
case " $cross " in
*" ppc64le "*)
	exclude=690_mixed_arch
	echo "# $exclude: run with ARCH=ppc64le's tests (the same pairing)" ;;
esac
echo "# ---- ARCH=$host"
$MAKE --no-print-directory ARCH="$host" test-arch \
	HARNESS_TOTALS="$TEST_TOTALS" TEST_EXCLUDE="$exclude" || rc=1
stamp "ARCH=$host: tested"

# Each cross architecture's tests as soon as its build is done, the
# first built first: the one still building keeps the other core.
left=$cross
while [ -n "$left" ]; do
	a=
	for _a in $left; do
		[ -f "$logs/build-$_a.log.rc" ] && { a=$_a; break; }
	done
	[ -n "$a" ] || { sleep 5; continue; }
	left=$(echo " $left " | sed "s/ $a / /; s/^ *//; s/ *\$//")
	_log=$logs/build-$a.log
	if [ "$(cat "$_log.rc")" != 0 ]; then
		tail -n 30 "$_log"
		echo "error: ARCH=$a: the build failed, see $_log" >&2
		exit 1
	fi
	stamp "ARCH=$a: built (log: $_log)"
	echo "# ---- ARCH=$a"
	$MAKE --no-print-directory ARCH="$a" test-arch \
		HARNESS_TOTALS="$TEST_TOTALS" || rc=1
	stamp "ARCH=$a: tested"
done
pids=

if [ -n "$cpu_at_start" ]; then
	set -- $cpu_at_start $(cpu_ticks)
	echo "# CPU busy $((($3 - $1) * 100 / ($3 - $1 + $4 - $2 + 1))) %" \
		"of $(nproc) cores over $(($(date +%s) - t0)) s" \
		"(every 10 s: $logs/cpu-timeline.log)"
fi
[ -s "$HARNESS_FAILURES" ] && cat "$HARNESS_FAILURES"
awk -v archs="$host $cross" '{ p += $1; f += $2; s += $3 } END {
	print "# all architectures (" archs "): " s " skipped"
	print p " passed, " f " failed" }' "$TEST_TOTALS"
exit $rc
