#!/bin/sh
# 071_sample_vmstat.sh: live, under a CPU and pipe load (bounded: 8 s),
# `benchboot sample` and procps `vmstat 1` run over the same seconds and
# must agree on context switches/s and interrupts/s within 10 % (over
# those seconds: see below for how vmstat's figures are taken).
set -u
. "$TOP/payload/tests/lib/tap.sh"
cd "$TOP"

N=5
tmp=$(mktemp -d "$O/test-run/sample-vmstat.XXXXXX")
pids=
cleanup() {
	for p in $pids; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

if ! command -v vmstat >/dev/null; then
	skip "vmstat (procps) is not installed"
	tap_done
	exit
fi

# The load: a CPU spinner and a pipe written one byte at a time (each
# write wakes the reader: tens of thousands of context switches/s).
timeout $((N + 3)) sh -c 'while :; do :; done' &
pids="$pids $!"
timeout $((N + 3)) sh -c 'dd if=/dev/zero bs=1 2>/dev/null | cat >/dev/null' &
pids="$pids $!"
sleep 0.5

# Both start together; vmstat's first line is the average since boot.
# procps vmstat divides each interval's counts by the nominal 1 s, not by
# the time that really passed (stop it for a second and its next line
# doubles), and on a loaded machine its sleeps run late: its per-second
# figures then overstate.  So its rate here is its counts over its real
# run time, measured around it.  Both run real-time (they need next to no
# CPU) so that other work delays neither's readings: then the two cover
# the same seconds.
rt=
chrt -f 5 true 2>/dev/null && rt="chrt -f 5"
# vmstat's own end is taken as it exits: a sampler slow to exit (once
# 33 s under qemu-user) must not stretch vmstat's time.
t0=$(date +%s%N)
{ $rt vmstat -n 1 $((N + 1)) >"$tmp/vmstat"; date +%s%N >"$tmp/vend"; } &
vpid=$!
$rt $TARGET_RUN "$BENCHBOOT" sample --interval 1s --count $N --json \
	>"$tmp/sample" 2>"$tmp/err"
check_eq "sample exits 0" "$?" 0
wait $vpid
t1=$(cat "$tmp/vend")

# vmstat columns: r b swpd free buff cache si so bi bo in cs ...
awk 'NR > 3 { print $11, $12 }' "$tmp/vmstat" >"$tmp/v"
grep '"schema":"benchboot.sample/1"' "$tmp/sample" | tr ',' '\n' |
	awk -F: '$1 == "\"interrupts_ps\"" { i = $2 }
		 $1 == "\"context_switches_ps\"" { c = $2 }
		 $1 == "\"softirqs_ps\"" { print i, c }' >"$tmp/s"
check_eq "vmstat gave $N seconds" "$(wc -l <"$tmp/v")" $N
check_eq "sample gave $N seconds" "$(wc -l <"$tmp/s")" $N
paste -d ' ' "$tmp/s" "$tmp/v" | while read -r si sc vi vc; do
	diag "second: sample in/s $si cs/s $sc; vmstat in/s $vi cs/s $vc"
done
# The sampler's rate over its run: the summary's time-weighted means.
tail -n 1 "$tmp/sample" | sed 's/.*"means"://' | tr ',' '\n' |
	awk -F: '$1 == "\"interrupts_ps\"" { i = $2 }
		 $1 == "\"context_switches_ps\"" { c = $2 }
		 END { print i, c }' >"$tmp/smean"
diag "vmstat ran $(awk -v a="$t0" -v b="$t1" \
	'BEGIN { printf "%.3f", (b - a) / 1e9 }') s for $N intervals"

# compare NAME COL: over the same seconds, within 10 %.
compare() {
	awk -v c="$2" -v name="$1" -v t0="$t0" -v t1="$t1" '
		FNR == 1 { f++ }
		f == 1 { s = $c }
		f == 2 { v += $c }
		END {
			v /= (t1 - t0) / 1e9
			if (v == 0) { print name ": no data"; exit 1 }
			d = (s - v) / v * 100
			printf "%s: sample %.0f/s, vmstat %.0f/s, %+.1f %%\n",
				name, s, v, d
			exit !(d < 10 && d > -10)
		}' "$tmp/smean" "$tmp/v"
}
r=$(compare "interrupts" 1)
check "$r" test $? = 0
r=$(compare "context switches" 2)
check "$r" test $? = 0
# the load must have shown: a sampler reading zeros would agree with an
# idle machine's vmstat too easily
check "the pipe load shows (> 5000 context switches/s)" awk '
	{ s += $2; n++ } END { exit !(n && s / n > 5000) }' "$tmp/s"
tap_done
