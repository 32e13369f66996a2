#!/bin/sh
# 005_harness.sh: the harness's own verdicts, table-driven: fake tests
# (good, no plan, stopped early, extra cases, non-zero exit, ...) run
# through payload/tests/harness.sh, each checked for its summary line, its
# exit status and the line that says why it failed.
set -u
TOP=${TOP:-$(cd "$(dirname "$0")/../../.." && pwd)}
O=${O:-$TOP/out}
. "$TOP/payload/tests/lib/tap.sh"

mkdir -p "$O/test-run"
tmp=$(mktemp -d "$O/test-run/harness.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# The table: name | expected "N passed, N failed" | expected harness exit
# status | a line the harness must print (grep -E; empty: none needed) |
# the fake test's body (printf %b: \n is a new line).
while IFS='|' read -r name want wrc why body; do
	name=${name%% *}
	case $name in '' | '#'*) continue ;; esac
	f=$tmp/$name.sh
	printf '#!/bin/sh\n%b\n' "$body" >"$f"
	chmod +x "$f"
	# The inner harness must not add to the outer run's totals and
	# failures (make test exports HARNESS_TOTALS, HARNESS_FAILURES) nor
	# label its line.
	out=$(env -u HARNESS_TOTALS -u HARNESS_LABEL -u HARNESS_FAILURES \
		TOP="$TOP" O="$tmp/o" ARCH=x86_64 TEST_TIMEOUT=2 \
		sh "$TOP/payload/tests/harness.sh" "$f" 2>&1)
	rc=$?
	got=$(printf '%s\n' "$out" | tail -n 1)
	ok_all=1
	[ "$got" = "$want" ] || ok_all=
	[ "$rc" = "$wrc" ] || ok_all=
	if [ -n "$why" ] && ! printf '%s\n' "$out" | grep -qE -- "$why"; then
		ok_all=
	fi
	if [ -n "$ok_all" ]; then
		ok "$name: $want, exit $wrc${why:+, says '$why'}"
	else
		not_ok "$name: $want, exit $wrc${why:+, says '$why'}"
		diag "  got '$got', exit $rc; the harness printed:"
		printf '%s\n' "$out" | sed 's/^/#   | /'
	fi
done <<'EOF'
# name       | summary             | rc | line the harness prints | body
good_end     |2 passed, 0 failed|0||echo 'ok 1 - a'\necho 'ok 2 - b'\necho '1..2'
good_start   |2 passed, 0 failed|0||echo '1..2'\necho 'ok 1 - a'\necho 'ok 2 - b'
tap_sh       |2 passed, 0 failed|0||. "$TOP/payload/tests/lib/tap.sh"\nok a\ncheck b true\ntap_done
case_fails   |1 passed, 1 failed|1|^  not ok 2 - b|echo 'ok 1 - a'\necho 'not ok 2 - b'\necho '1..2'\nexit 1
case_at_end  |1 passed, 1 failed|1|^# failed in .*/case_at_end.sh:|echo 'ok 1 - a'\necho 'not ok 2 - b'\necho '# why b'\necho '1..2'\nexit 1
skip         |0 passed, 0 failed|0|# 1 skipped|echo 'ok 1 - a # SKIP no root'\necho '1..1'
skip_all     |0 passed, 0 failed|0|ok - .*skip_all.sh SKIP no root|echo '1..0 # SKIP no root'
no_plan      |2 passed, 1 failed|1|no_plan.sh printed no TAP plan \(1\.\.N\) for its 2 cases|echo 'ok 1 - a'\necho 'ok 2 - b'
short        |1 passed, 1 failed|1|short.sh stopped early: planned 3 cases, ran 1|echo '1..3'\necho 'ok 1 - a'
extra        |3 passed, 1 failed|1|extra.sh ran 3 cases, more than the 2 it planned|echo 'ok 1 - a'\necho 'ok 2 - b'\necho 'ok 3 - c'\necho '1..2'
plan_middle  |2 passed, 1 failed|1|plan_middle.sh printed its TAP plan \(1\.\.2\) between cases|echo 'ok 1 - a'\necho '1..2'\necho 'ok 2 - b'
two_plans    |1 passed, 1 failed|1|two_plans.sh printed 2 TAP plans|echo '1..1'\necho 'ok 1 - a'\necho '1..1'
exit_nonzero |1 passed, 1 failed|1|exit_nonzero.sh exited with status 3, though no case failed|echo 'ok 1 - a'\necho '1..1'\nexit 3
died_midway  |1 passed, 2 failed|1|died_midway.sh printed no TAP plan|. "$TOP/payload/tests/lib/tap.sh"\nok a\nfalse || exit 1\nok b\ntap_done
no_cases     |0 passed, 1 failed|1|no_cases.sh reported no test cases|echo 'hello'
plan_only    |0 passed, 1 failed|1|plan_only.sh stopped early: planned 3 cases, ran 0|echo '1..3'
empty_plan   |0 passed, 1 failed|1|empty_plan.sh reported no test cases|echo '1..0'
timeout      |1 passed, 2 failed|1|timeout.sh timed out after 2s|echo '1..2'\necho 'ok 1 - a'\nsleep 30\necho 'ok 2 - b'
EOF

# Tests marked "# harness: parallel" run beside each other; an unmarked one
# runs alone after them; the output keeps the list's order.  par_a passes
# only if par_b starts while it runs, alone_c only if both have ended.
# fake NAME MARK BODY: a fake test whose first lines hold MARK.
fake() {
	printf '#!/bin/sh\n%s\n%s\necho 1..1\n' "$2" "$3" >"$tmp/$1.sh"
	chmod +x "$tmp/$1.sh"
}
mark='# harness: parallel'
fake par_a "$mark" "i=0; while [ ! -e $tmp/b.up ] && [ \$i -lt 40 ]; do
sleep 0.05; i=\$((i + 1)); done
[ -e $tmp/b.up ] && echo 'ok 1 - b ran beside a' ||
echo 'not ok 1 - b ran beside a'; touch $tmp/a.done"
fake par_b "$mark" "touch $tmp/b.up; echo 'ok 1 - b'; touch $tmp/b.done"
fake alone_c '# runs alone' "[ -e $tmp/a.done ] && [ -e $tmp/b.done ] &&
echo 'ok 1 - c after a and b' || echo 'not ok 1 - c after a and b'"
for jobs in 2 1; do
	rm -f "$tmp/b.up" "$tmp/a.done" "$tmp/b.done"
	out=$(env -u HARNESS_TOTALS -u HARNESS_LABEL -u HARNESS_FAILURES \
		TOP="$TOP" O="$tmp/o" ARCH=x86_64 TEST_TIMEOUT=5 \
		HARNESS_JOBS=$jobs sh "$TOP/payload/tests/harness.sh" "$tmp/par_a.sh" \
		"$tmp/par_b.sh" "$tmp/alone_c.sh" 2>&1)
	order=$(printf '%s\n' "$out" | sed -n 's|^# .*/\([a-z_]*\)\.sh$|\1|p' |
		tr '\n' ' ')
	if [ $jobs = 2 ]; then
		want='3 passed, 0 failed'
	else
		# Alone, par_a never sees par_b start.
		want='2 passed, 1 failed'
	fi
	got=$(printf '%s\n' "$out" | tail -n 1)
	if [ "$got" = "$want" ] && [ "$order" = "par_a par_b alone_c " ]
	then
		ok "HARNESS_JOBS=$jobs: $want, reported in the list's order"
	else
		not_ok "HARNESS_JOBS=$jobs: $want, reported in the list's order"
		diag "  got '$got', order '$order'; the harness printed:"
		printf '%s\n' "$out" | sed 's/^/#   | /'
	fi
done
tap_done
