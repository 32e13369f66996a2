#!/bin/sh
# 072_probe_fairness.sh: live, about 15 s.  The probe loses next to nothing
# with the CPU to itself, loses a lot to a higher-priority hog on its CPU
# (taskset + nice), and its loss tracks the hog's share: a real-time hog
# spinning 20 % and then 60 % of every 100 ms costs it about that much.
set -u
. "$TOP/payload/tests/lib/tap.sh"
cd "$TOP"

tmp=$(mktemp -d "$O/test-run/probe.XXXXXX")
pids=
cleanup() {
	for p in $pids; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
cpu=$(($(nproc) - 1))

# probe [PREFIX...]: runs the probe for 2 s; prints its lost_pct.
probe() {
	"$@" $TARGET_RUN "$BENCHBOOT" probe --count 2 --json >"$tmp/out" \
		2>"$tmp/err" || { cat "$tmp/err" >&2; echo -1; return; }
	tail -n 1 "$tmp/out" | sed -n 's/.*"lost_pct":\([-0-9.e+]*\).*/\1/p'
}

# dutyhog PCT SECONDS: spins PCT ms of every 100 ms (time from
# /proc/uptime, read by the shell itself: no process per check).
cat >"$tmp/dutyhog" <<'EOF'
pct=$1 secs=$2
read up _ </proc/uptime; now=${up%.*}${up#*.}
end=$((now + secs * 100))
while [ $now -lt $end ]; do
	stop=$((now + pct / 10))
	while [ $now -lt $stop ]; do
		read up _ </proc/uptime; now=${up%.*}${up#*.}
	done
	sleep $(printf "0.%03d" $((100 - pct)))
	read up _ </proc/uptime; now=${up%.*}${up#*.}
done
EOF

# fcmp A OP B: floating-point comparison for check.
fcmp() { awk -v a="$1" -v b="$3" -v op="$2" 'BEGIN {
	exit !(op == "<" ? a < b : op == ">" ? a > b : 0) }'; }

# 1. Alone.  Other tenants of a shared machine only add loss, so the best
# of three short runs stands for "an idle CPU".
best=100
for try in 1 2 3; do
	l=$(probe)
	diag "alone, run $try: lost $l %"
	fcmp "$l" "<" "$best" && best=$l
	fcmp "$best" "<" 5 && break
done
check "alone: near-zero loss (best $best % < 5 %)" fcmp "$best" "<" 5

# 2. A CPU hog at nice -19 on the probe's CPU (the probe is at nice 0).
timeout 4 taskset -c $cpu nice -n -19 sh -c 'while :; do :; done' &
pids="$pids $!"
sleep 0.3
l=$(probe taskset -c $cpu)
wait
pids=
check "nice -19 hog on its CPU: substantial loss ($l % > 20 %)" \
	fcmp "$l" ">" 20

# 3. Real-time hogs of a known share: the probe cannot run while they
# spin, so it loses at least their share and the two losses are ordered
# by it; the upper bound leaves room for the other tenants' load.
for share in 20 60; do
	taskset -c $cpu chrt -f 10 sh "$tmp/dutyhog" $share 3 &
	pids="$pids $!"
	sleep 0.2
	l=$(probe taskset -c $cpu)
	wait
	pids=
	eval "lost$share=\$l"
done
diag "20 % hog: lost $lost20 %; 60 % hog: lost $lost60 %"
check "20 % real-time hog: loss tracks it (15 % <= $lost20 % <= 45 %)" \
	sh -c "$(printf 'awk "BEGIN { exit !(%s >= 15 && %s <= 45) }"' \
		"$lost20" "$lost20")"
check "60 % real-time hog: loss tracks it ($lost60 % >= 52 %)" \
	fcmp "$lost60" ">" 52
check "losses ordered by the hog's share (60 % hog costs >= 25 points more)" \
	fcmp "$lost60" ">" "$(awk -v a="$lost20" 'BEGIN { print a + 25 }')"
tap_done
