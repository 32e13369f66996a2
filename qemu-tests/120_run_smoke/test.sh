#!/bin/sh
# 120_run_smoke: `make run` as CI runs it (qemu-tests/run.sh): a server VM
# (base + overlay) and two client VMs on a private bridge, no addresses
# given, find each other, run the smoke suite and upload the result to the
# host's collector.  Checks the result document (every workload present
# with non-zero throughput, merged histograms = the sum of the clients',
# sampler and probe series in every repeat, clock offsets and skew, the
# server stack's versions), the relay step's mail at the host's smtp-sink,
# the HTML report, and that everything is gone afterwards -- also after a
# Ctrl-C (SIGINT) during boot.
. "$(dirname "$0")/../lib.sh"
qt_need "$IMAGES/vmlinuz" "$IMAGES/initramfs.cpio.gz" \
	"$IMAGES/server-overlay.cpio.gz"
BENCHBOOT=${BENCHBOOT:-$O/$ARCH/bin/benchboot}
jqt() { jq -e "$@" >/dev/null; }
if [ "$(id -u)" != 0 ]; then
	skip "make run needs root (bridge and taps in a network namespace)"
	tap_done
	exit 0
fi

# gone DIR: the run's namespace and every process it started are gone.
gone() {
	[ -s "$1/netns" ] &&
		! ip netns list 2>/dev/null | grep -qw "$(cat "$1/netns")" &&
		for p in $(cat "$1/pids"); do
			! kill -0 "$p" 2>/dev/null || return 1
		done
}

# Ctrl-C first (cheap): interrupted while the VMs boot, it must leave
# nothing behind and say so with status 130.
# (A background job of a script starts with SIGINT ignored: restore it.)
RUN_DIR=$QT_DIR/int RUN_QUIET=1 QT_ACCEL=$QT_ACCEL env --default-signal=INT \
	"$TOP/qemu-tests/run.sh" >"$QT_DIR/int.out" 2>&1 &
pid=$!
n=0
while [ ! -s "$QT_DIR/int/vms" ] && [ $n -lt 300 ]; do
	sleep 0.1
	n=$((n + 1))
done
sleep 3
kill -INT $pid
wait $pid
check_eq "Ctrl-C: run.sh exits with 130" "$?" 130
check "Ctrl-C: its namespace and QEMUs are gone" gone "$QT_DIR/int"

QT_CASE="make run"
t0=$(date +%s)
RUN_DIR=$QT_DIR/run QT_ACCEL=$QT_ACCEL \
	RUN_TIMEOUT=$(qt_timeout 240) "$TOP/qemu-tests/run.sh" \
	>"$QT_DIR/run.out" 2>&1
rc=$?
secs=$(($(date +%s) - t0))
check_eq "make run: exit status" "$rc" 0
check "make run: everything stopped and removed" gone "$QT_DIR/run"
R=$(cat "$QT_DIR/run/result-path" 2>/dev/null)
if [ -z "$R" ] || [ ! -s "$R" ]; then
	not_ok "make run: a result document was uploaded"
	tail -n 20 "$QT_DIR/run.out" | sed 's/^/#   | /'
	tap_done
	exit 1
fi
ok "make run: result $(basename "$R") uploaded ($secs s, $QT_ACCEL)"
check "make run: the output names the result and its HTML report" sh -c \
	"grep -q 'result: $R' '$QT_DIR/run.out' &&
	 grep -q 'report: ${R%.json}.html' '$QT_DIR/run.out'"
check "report: the terminal table lists every step" sh -c \
	"for s in http-static http-tree http-cgi sql-ops sql-mix smtp-in \
		smtp-relay combined; do
		grep -q \"\$s\" '$QT_DIR/run.out' || exit 1; done"
check "report: the HTML page" test -s "${R%.json}.html"

# Every step of smoke.suite with the workloads its runs name.
for sw in http-static/c8:http http-tree/c8:http http-cgi/c4:http \
	sql-ops:sql sql-mix/c4:sql smtp-in/c4:smtp smtp-relay/c4:smtp \
	combined/c8:http combined/c8:sql combined/c8:smtp; do
	s=${sw%:*} w=${sw#*:}
	check "$s: $w complete, throughput > 0" jqt --arg s "$s" --arg w "$w" \
		'.steps[] | select(.name == $s) | .complete_repeats >= 1 and
		((.stats[$w] | .requests_per_s // .statements_per_s //
		  .mails_per_s).median > 0)' "$R"
done
check_eq "steps: exactly the smoke suite's" \
	"$(jq -r '[.steps[].name] | join(" ")' "$R")" \
	"http-static/c8 http-tree/c8 http-cgi/c4 sql-ops sql-mix/c4 smtp-in/c4 \
smtp-relay/c4 combined/c8"

# Merged histogram count = the sum of the clients' records' counts, for
# every repeat and workload (TSV: step workload merged sum nrecords).
jq -r '.steps[] | .name as $s | .repeats[] | . as $r |
	($r.merged | keys[]) as $w |
	[$s, $w, ($r.merged[$w].latency.count // -1),
	 ([$r.clients[] | (.records // [])[] | select(.argv[0] == $w) |
	   .record.latency.count // 0] | add // 0),
	 ([$r.clients[] | (.records // [])[] | select(.argv[0] == $w)] |
	   length)] | @tsv' "$R" >"$QT_DIR/merge.tsv"
check_eq "merged histograms: one per workload and repeat" \
	"$(wc -l <"$QT_DIR/merge.tsv")" 10
check "merged histograms: count = the sum of the clients' (> 0)" awk -F'\t' \
	'$3 != $4 || $3 <= 0 { print "#   " $0; bad = 1 } END { exit bad }' \
	"$QT_DIR/merge.tsv"
check "merged histograms: both clients contributed (sql-ops: one)" awk \
	-F'\t' '($1 == "sql-ops" && $5 != 1) || ($1 != "sql-ops" && $5 != 2) \
	{ print "#   " $0; bad = 1 } END { exit bad }' "$QT_DIR/merge.tsv"

# Series: the server's sampler and probe in every repeat of every step;
# the probe at one reading a second over most of the measured interval.
check "series: sampler readings in every repeat" jqt \
	'[.steps[].repeats[] | .series.sample | length > 0] | all' "$R"
check "series: probe readings in every repeat" jqt \
	'[.steps[] | .duration_s as $d | .repeats[] |
	  (.series.probe | length) >= ($d / 2)] | all' "$R"

# Clocks: each client's offset from enough probes; skew per repeat and
# over the run.
check "clock: every client has an offset from its probes" jqt \
	'[.environment.hosts[] | select(.role == "client")] |
	 length == 2 and all(.clock.offset_ns | type == "number") and
	 all(.clock.samples > 0)' "$R"
check "clock: launch and record skew in every two-client repeat" jqt \
	'[.steps[] | select(.name != "sql-ops") | .repeats[] |
	  .skew_ns.launch, .skew_ns.record | type == "number"] | all' "$R"
check "clock: skew statistics over the run's 7 two-client steps" jqt \
	'.skew.launch_ns.n == 7 and .skew.record_ns.n == 7 and
	 (.skew.launch_ns.median | type == "number")' "$R"

# The server stack's versions, from the server's host entry.
check "versions: Apache, MariaDB, Postfix with their packages" jqt \
	'.environment.hosts[] | select(.role | startswith("server")) |
	 .server_versions | (.apache.version | startswith("Apache/2.4")) and
	 (.mariadb.version | test("MariaDB")) and
	 (.postfix.version | test("^3\\.")) and
	 ([.apache, .mariadb, .postfix] | all(.package_version | length > 0))' \
	"$R"

# The relay step's mail left the server for the host's smtp-sink.
check "relay: the host's smtp-sink received relay.test mail" \
	test "$(ls "$QT_DIR/run/sink" | wc -l)" -gt 0
diag "make run took $secs s ($QT_ACCEL)"
tap_done
