# run-checks.sh: the checks of a `make run` (qemu-tests/run.sh) result,
# shared by the tests that run it (120_run_smoke, ppc64le/long/130_mixed_arch_vms
# with a ppc64le server, long/150_run_default with the time-scaled default
# suite, 125_run_target against a server with nothing of ours on it).
# Sourced after lib.sh; needs jq.

# run_suite_steps SUITE: every step of configs/suite/SUITE.suite with each
# workload its run lines name, one "STEP[/cN] WORKLOAD[:LABEL]" a line,
# in the suite's order (each concurrency of a sweep its own step).
run_suite_steps() {
	awk '$1 == "step" { if (st != "") flush(); st = $2; nc = 0; nw = 0 }
	$1 == "concurrency" && st != "" { for (i = 2; i <= NF; i++) c[++nc] = $i }
	$1 == "run" && st != "" { w = $2
		for (i = 3; i < NF; i++) if ($i == "--label") w = w ":" $(i + 1)
		if (!(w in seen)) { seen[w] = 1; ws[++nw] = w } }
	function flush(   i, j) {
		for (i = 1; i <= (nc ? nc : 1); i++)
			for (j = 1; j <= nw; j++)
				print st (nc ? "/c" c[i] : "") " " ws[j]
		delete seen
	}
	END { if (st != "") flush() }' "$TOP/configs/suite/$1.suite"
}

# run_check_steps RESULT OUT RUN_DIR [SUITE]: the output names the result
# and its HTML report, whose table lists every step; every step of SUITE
# (default smoke) with every workload complete and throughput > 0, none
# skipped, and every client of every complete repeat prepared before its
# start (steps.txt is written into RUN_DIR).
run_check_steps() {
	local R=$1 out=$2 dir=$3 suite=${4:-smoke} s w
	run_suite_steps "$suite" >"$dir/steps.txt"
	check "make run: the output names the result and its HTML report" \
		sh -c "grep -q 'result: $R' '$out' &&
		 grep -q 'report: ${R%.json}.html' '$out'"
	check "report: the terminal table lists every step" sh -c \
		"for s in \$(sed 's|[/ ].*||' '$dir/steps.txt' | sort -u); do
			grep -q \"\$s\" '$out' || exit 1; done"
	check "report: the HTML page" test -s "${R%.json}.html"

	# Every step of the suite with the workloads its runs name.
	while read -r s w; do
		check "$s: $w complete, throughput > 0" run_jq --arg s "$s" \
			--arg w "$w" '.steps[] | select(.name == $s) |
			.complete_repeats >= 1 and
			((.stats[$w] | .requests_per_s // .statements_per_s //
			  .mails_per_s).median > 0)' "$R"
	done <"$dir/steps.txt"
	check_eq "steps: exactly the $suite suite's" \
		"$(jq -r '[.steps[].name] | join(" ")' "$R")" \
		"$(cut -d' ' -f1 "$dir/steps.txt" | uniq | tr '\n' ' ' |
		   sed 's/ $//')"
	check "every repeat of every step ran (none skipped)" run_jq \
		'[.steps[] | has("skipped") | not] | all' "$R"

	# Prepare, then start: every client answered before every start of
	# a complete repeat (an agent lost mid-step leaves its repeat
	# incomplete, listed here and left out of the step's figures).
	check "prepare: every client of every complete repeat prepared" \
		run_jq '[.steps[].repeats[] | select(.complete) |
		  (.prepare_s | type == "number"),
		  (.clients[] | select(.idle | not) |
		   .prepare.ready > 0 and .prepare.failed == 0)] | all' "$R"
	jq -r '.steps[] | .name as $s | .repeats[] | select(.complete | not) |
		"#   incomplete: \($s) repeat \(.repeat): " +
		(.incomplete_reason // .skipped // "?")' "$R"
}

# run_checks RESULT OUT RUN_DIR CLIENTS [SUITE]: TAP cases on RESULT (the
# result document), OUT (run.sh's output, with benchboot report's tables)
# and RUN_DIR (run.sh's directory; merge.tsv is written there):
# run_check_steps, merged histograms = the sum of the clients', sampler
# and probe series in every repeat, each client's clock offset and the
# skew statistics, the server stack's versions, the server reset before
# every step, and the relay step's mail at the suite's sink on a client
# (run_check_relay).  CLIENTS is the number of client VMs (1 or 2).
run_checks() {
	local R=$1 out=$2 dir=$3 n=$4 suite=${5:-smoke} ntwo
	run_check_steps "$R" "$out" "$dir" "$suite"

	# The server back to one state before every step.
	check "server reset: before every step, every part done" run_jq \
		'[.steps[] | .server_reset | .ok == true and
		  (.done | length >= 3)] | all' "$R"

	# Merged histogram count = the sum of the clients' records' counts,
	# for every complete, valid repeat and workload (TSV: step workload merged sum
	# nrecords).  A labelled record (http --label L) merges as http:L.
	jq -r 'def key: .argv[0] + (if .record.label then ":" +
			.record.label else "" end);
		.steps[] | .name as $s | .repeats[] |
		select(.complete and (.invalid | not)) | . as $r |
		($r.merged | keys[]) as $w |
		[$s, $w, ($r.merged[$w].latency.count // -1),
		 ([$r.clients[] | (.records // [])[] | select(key == $w) |
		   .record.latency.count // 0] | add // 0),
		 ([$r.clients[] | (.records // [])[] | select(key == $w)] |
		   length)] | @tsv' "$R" >"$dir/merge.tsv"
	check_eq "merged histograms: one per workload and repeat" \
		"$(wc -l <"$dir/merge.tsv")" \
		"$(jq '[.steps[] | [.repeats[] |
		   select(.complete and (.invalid | not))] |
		   if length == 0 then 0 else
		   length * ([.[0].merged | keys[]] | length) end] | add' "$R")"
	check "merged histograms: count = the sum of the clients' (> 0)" \
		awk -F'\t' '$3 != $4 || $3 <= 0 { print "#   " $0; bad = 1 }
		END { exit bad }' "$dir/merge.tsv"
	check "merged histograms: all $n clients contributed (sql-ops: one)" \
		awk -F'\t' -v n="$n" '($1 == "sql-ops" && $5 != 1) ||
		($1 != "sql-ops" && $5 != n) { print "#   " $0; bad = 1 }
		END { exit bad }' "$dir/merge.tsv"

	# Series: the server's sampler and probe in every repeat of every
	# step; the probe at one reading a second over most of the measured
	# interval.
	check "series: sampler readings in every repeat" run_jq \
		'[.steps[].repeats[] | select(.complete) |
		  .series.sample | length > 0] | all' "$R"
	check "series: probe readings in every repeat" run_jq \
		'[.steps[] | .duration_s as $d | .repeats[] |
		  select(.complete) |
		  (.series.probe | length) >= ($d / 2)] | all' "$R"

	# Clocks: each client's offset from enough probes; skew per repeat
	# and over the run (needs two clients).
	check "clock: every client has an offset from its probes" run_jq \
		--argjson n "$n" '[.environment.hosts[] |
		  select(.role == "client")] |
		 length == $n and all(.clock.offset_ns | type == "number") and
		 all(.clock.samples > 0)' "$R"
	if [ "$n" -ge 2 ]; then
		check "clock: launch and record skew in every two-client repeat" \
			run_jq '[.steps[] | select(.name != "sql-ops") |
			  .repeats[] | select(.complete) |
			  .skew_ns.launch, .skew_ns.record |
			  type == "number"] | all' "$R"
		ntwo=$(jq '[.steps[] | select(.name != "sql-ops") |
			 .repeats[] | select(.complete)] | length' "$R")
		check "clock: skew statistics over the run's $ntwo two-client repeats" \
			run_jq --argjson k "$ntwo" '.skew.launch_ns.n >= $k and
			 .skew.record_ns.n >= $k and
			 (.skew.launch_ns.median | type == "number")' "$R"
	fi

	# make run gives every VM a fresh lab key: the run was keyed; and
	# every host says which image it booted.
	check "lab: every control connection was keyed" run_jq \
		'.lab.keyed == true' "$R"
	check "image: every host names its image digest" run_jq \
		'[.environment.hosts[].image_digest] |
		 all(test("^sha256:[0-9a-f]{64}$"))' "$R"

	# The server stack's versions, from the server's host entry.
	check "versions: Apache, MariaDB, Postfix with their packages" run_jq \
		'.environment.hosts[] | select(.role | startswith("server")) |
		 .server_versions | (.apache.version | startswith("Apache/2.4")) and
		 (.mariadb.version | test("MariaDB")) and
		 (.postfix.version | test("^3\\.")) and
		 ([.apache, .mariadb, .postfix] |
		  all(.package_version | length > 0))' "$R"
	run_check_relay "$R"
	run_check_system "$R"
}

# run_check_system RESULT: every host's system table, read by the guest
# from its own machine (docs/result-schema.md, System table): what QEMU's
# firmware gives an x86_64 guest (SMBIOS: vendor QEMU, a "Standard PC"
# product, one RAM DIMM), the kernel the image booted, the lab key never
# in the recorded command line.
run_check_system() {
	check "system: every x86_64 host's firmware is QEMU's (SMBIOS)" run_jq \
		'[.environment.hosts[] | select(.arch == "x86_64") |
		  .system.firmware | .sys_vendor == "QEMU" and
		  (.product_name | startswith("Standard PC")) and
		  (.bios_vendor | length > 0)] | length > 0 and all' "$1"
	check "system: its DIMMs from SMBIOS type 17 add up to RAM QEMU gave" run_jq \
		'[.environment.hosts[] | select(.arch == "x86_64") |
		  .system.memory | .slots >= 1 and (.dimms | length >= 1) and
		  all(.dimms[]; .type == "RAM" and .size_mb > 0) and
		  ([.dimms[].size_mb] | add) * 1024 >= .total_kb] |
		 length > 0 and all' "$1"
	check "system: the kernel and CPUs each host reports" run_jq \
		'[.environment.hosts[] | select(.system) |
		  (.system.kernel.release // "?") as $r |
		  (.kernel | contains($r)) and
		  .system.cpu.threads == .cpus and
		  .system.memory.total_kb == .mem_kb] | length > 0 and all' "$1"
	check "system: the lab key is in no recorded command line" run_jq \
		'[.environment.hosts[] | .system.kernel.cmdline // "" |
		  test("benchboot[.]key=(?!\\(redacted\\))")] | any | not' \
		"$1"
}

# run_check_relay RESULT: the relay step's mail left the server for the
# smtp-sink the suite started on a client (`sink PORT`), and the sink
# counted some in every complete repeat.
run_check_relay() {
	check "relay: mail left the server for the suite's sink on a client" \
		run_jq '[.steps[] | select(.name | startswith("smtp-relay")) |
		  .repeats[] | select(.complete) | .relay |
		  (.client | startswith("client-")) and .sent > 0 and
		  .received > 0] | length > 0 and all' "$1"
	jq -c '.steps[] | select(.name | startswith("smtp-relay")) |
		.repeats[] | .relay' "$1" | sed 's/^/#   relay: /'
}

# run_result CASE RC OUT RUN_DIR NOTE: TAP cases on how run.sh ended: exit
# status RC, nothing left running, a result uploaded (NOTE, e.g. the time,
# goes on that line).  Sets RUN_RESULT to the result's path; returns 1
# when there is none, after printing the end of OUT (run.sh's output) and
# the VMs' error lines.
run_result() {
	local what=$1 rc=$2 out=$3 dir=$4 note=$5
	check_eq "$what: exit status" "$rc" 0
	check "$what: everything stopped and removed" run_gone "$dir"
	RUN_RESULT=$(cat "$dir/result-path" 2>/dev/null)
	if [ -n "$RUN_RESULT" ] && [ -s "$RUN_RESULT" ]; then
		ok "$what: result $(basename "$RUN_RESULT") uploaded ($note)"
		return 0
	fi
	not_ok "$what: a result document was uploaded"
	tail -n 20 "$out" | sed 's/^/#   | /'
	grep -a 'BENCHBOOT-\(ERROR\|STOPPED\)' "$dir"/*.log 2>/dev/null |
		sed 's/^/#   | /'
	return 1
}

# run_gone RUN_DIR: the run's namespace and every process it started are
# gone (RUN_NET=netns).
run_gone() {
	[ -s "$1/netns" ] &&
		! ip netns list 2>/dev/null | grep -qw "$(cat "$1/netns")" &&
		for p in $(cat "$1/pids"); do
			! kill -0 "$p" 2>/dev/null || return 1
		done
}

# run_jq ARGS...: jq -e without its output (check prints the case).
run_jq() { jq -e "$@" >/dev/null; }

# run_net_dead CONSOLE...: the first line of the guests' consoles that
# says a network failed: a NIC watchdog (the kernel's "NETDEV WATCHDOG:
# ... transmit queue N timed out", e1000e's "Detected Hardware Unit
# Hang") or the controller's lost-peer line ("lost client ID (why)"), as
# "NAME: LINE" (NAME the console's file name without .log).  Status 1,
# nothing printed, when none has one.  run.sh sources this file for it
# alone and stops a `make run` on it (docs/run.md).
run_net_dead() {
	local f l
	for f in "$@"; do
		l=$(grep -a -m 1 -E 'NETDEV WATCHDOG|transmit queue [0-9]+ timed out|Detected Hardware Unit Hang|: lost (client|server) [^ ]+ \(' \
			"$f" 2>/dev/null | tr -d '\r')
		if [ -n "$l" ]; then
			printf '%s: %s\n' "$(basename "$f" .log)" "$l"
			return 0
		fi
	done
	return 1
}
