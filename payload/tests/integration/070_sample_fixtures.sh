#!/bin/sh
# 070_sample_fixtures.sh: `benchboot sample --replay` over /proc snapshots
# of two real kernels (payload/tests/fixtures/proc-*), every figure checked
# against values awk computes here from the raw files; and clear errors on
# a damaged snapshot.
set -u
. "$TOP/payload/tests/lib/tap.sh"
cd "$TOP"

tmp=$(mktemp -d "$O/test-run/sample-fix.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
pagesize=$(getconf PAGESIZE)
names="yes sleep"

# expect A B: "key value" lines for the interval from snapshot A to B,
# from the kernel's own files (nothing of ours involved).
expect() {
	awk -v ps="$pagesize" -v names="$names" -v A="$1/proc/" '
	function rate(k) { return (c[k] >= p[k] ? c[k] - p[k] : 0) / dt }
	function pr(k, d) { printf "%s %.17g\n", k, d / dt }
	FNR == 1 { f++ }
	# the clock files
	f == 1 { m0 = $2; next }
	f == 2 { m1 = $2; next }
	# proc/stat
	(f == 3 || f == 4) && $1 == "cpu" {
		v["u"] = $2 + $3; v["s"] = $4 + $7 + $8; v["i"] = $5
		v["w"] = $6; v["st"] = $9
		for (k in v)
			if (f == 3) p["cpu" k] = v[k]; else c["cpu" k] = v[k]
	}
	(f == 3 || f == 4) && $1 ~ /^(ctxt|intr|softirq)$/ {
		if (f == 3) p[$1] = $2; else c[$1] = $2
	}
	f == 4 && $1 == "procs_running" { out["running"] = $2 }
	f == 4 && $1 == "procs_blocked" { out["blocked"] = $2 }
	# proc/vmstat
	(f == 5 || f == 6) && $1 ~ /^(pgpgin|pgpgout|pswpin|pswpout)$/ {
		if (f == 5) p[$1] = $2; else c[$1] = $2
	}
	f == 6 && $1 == "nr_free_pages" { out["free_pages"] = $2 }
	# proc/meminfo
	f == 7 && $1 == "MemFree:" { out["mem_free_kb"] = $2 }
	f == 7 && $1 == "Buffers:" { out["mem_buffers_kb"] = $2 }
	f == 7 && $1 == "Cached:" { out["mem_cached_kb"] = $2 }
	f == 7 && $1 == "SwapTotal:" { swt = $2 }
	f == 7 && $1 == "SwapFree:" { swf = $2 }
	# proc/loadavg
	f == 8 { out["load1"] = $1; out["load5"] = $2; out["load15"] = $3 }
	# proc/net/dev
	(f == 9 || f == 10) && FNR > 2 {
		line = $0; sub(/^ */, "", line); n = index(line, ":")
		ifn = substr(line, 1, n - 1); split(substr(line, n + 1), a, " ")
		if (f == 9) {
			prx[ifn] = a[1]; prp[ifn] = a[2]
			ptx[ifn] = a[9]; ptp[ifn] = a[10]
		} else {
			crx[ifn] = a[1]; crp[ifn] = a[2]
			ctx[ifn] = a[9]; ctp[ifn] = a[10]; ifs[ifn] = 1
		}
	}
	# proc/PID/stat, before (under A) and after
	f >= 11 {
		before = index(FILENAME, A) == 1
		line = $0; o = index(line, "("); e = 0
		for (i = length(line); i > 0 && !e; i--)
			if (substr(line, i, 1) == ")") e = i
		comm = substr(line, o + 1, e - o - 1)
		split(substr(line, e + 2), a, " ")	# a[1]: field 3
		pid = $1; tk = a[12] + a[13]; st = a[20]; rss = a[22]
		if (before) { pt[comm, pid] = tk; pst[comm, pid] = st }
		else {
			np[comm]++; prss[comm] += rss
			if ((comm, pid) in pt && pst[comm, pid] == st)
				pcpu[comm] += tk - pt[comm, pid]
		}
	}
	END {
		dt = (m1 - m0) / 1e9
		tot = 0
		for (k in c) if (k ~ /^cpu/) { d[k] = c[k] - p[k]; tot += d[k] }
		out["cpu_user_pct"] = 100 * d["cpuu"] / tot
		out["cpu_system_pct"] = 100 * d["cpus"] / tot
		out["cpu_iowait_pct"] = 100 * d["cpuw"] / tot
		out["cpu_steal_pct"] = 100 * d["cpust"] / tot
		out["cpu_idle_pct"] = 100 * d["cpui"] / tot
		out["context_switches_ps"] = rate("ctxt")
		out["interrupts_ps"] = rate("intr")
		out["softirqs_ps"] = rate("softirq")
		out["blocks_in_ps"] = rate("pgpgin")
		out["blocks_out_ps"] = rate("pgpgout")
		out["pages_swapped_in_ps"] = rate("pswpin")
		out["pages_swapped_out_ps"] = rate("pswpout")
		out["swap_used_kb"] = swt - swf
		out["interval_s"] = dt
		for (k in out) printf "%s %.17g\n", k, out[k]
		for (i in ifs) {
			k = "net." i
			pr(k ".rx_bytes_ps", crx[i] - prx[i])
			pr(k ".rx_packets_ps", crp[i] - prp[i])
			pr(k ".tx_bytes_ps", ctx[i] - ptx[i])
			pr(k ".tx_packets_ps", ctp[i] - ptp[i])
		}
		split(names, nm, " ")
		for (i in nm) {
			n = nm[i]
			printf "procs.%s.pids %d\n", n, np[n]
			printf "procs.%s.rss_kb %.17g\n", n, prss[n] * ps / 1024
			# ticks at USER_HZ 100, in % of one CPU
			printf "procs.%s.cpu_pct %.17g\n", n, pcpu[n] / dt
		}
	}' "$1/clock" "$2/clock" "$1/proc/stat" "$2/proc/stat" \
	   "$1/proc/vmstat" "$2/proc/vmstat" "$2/proc/meminfo" \
	   "$2/proc/loadavg" "$1/proc/net/dev" "$2/proc/net/dev" \
	   $1/proc/[0-9]*/stat $2/proc/[0-9]*/stat
}

# got KEY JSONLINE: our value for "key", "net.IF.key" or "procs.NAME.key".
got() {
	case $1 in
	net.*|procs.*)
		sect=${1%%.*} rest=${1#*.} key=${rest##*.} name=${rest%.*}
		echo "$2" | sed -n "s/.*\"$sect\":{\(.*\)/\1/p" |
			sed -n "s/^\(.*[{,]\)\{0,1\}\"$name\":{\([^}]*\)}.*/\2/p" |
			tr ',' '\n' | sed -n "s/^\"$key\":\(.*\)/\1/p" ;;
	*)	echo "$2" | tr ',{}' '\n\n\n' |
			sed -n "s/^\"$1\":\(.*\)/\1/p" | head -n 1 ;;
	esac
}

# same GOT WANT: equal to 1e-9 relative (both are doubles).
same() {
	awk -v g="$1" -v w="$2" 'BEGIN {
		d = g - w; if (d < 0) d = -d; a = w < 0 ? -w : w
		exit !(g != "" && d <= 1e-9 * a + 1e-9) }'
}

nfix=0
for fix in payload/tests/fixtures/proc-*; do
	[ -d "$fix/0/proc" ] || continue
	nfix=$((nfix + 1))
	kernel=$(cat "$fix/kernel")
	out=$($TARGET_RUN "$BENCHBOOT" sample --replay "$fix" --json \
		--proc "$(echo $names | tr ' ' ,)" 2>"$tmp/err")
	check_eq "$kernel: replay exits 0" "$?" 0
	n=$(ls -d "$fix"/[0-9]* | wc -l)
	check_eq "$kernel: one record per interval, then a summary" \
		"$(echo "$out" | grep -c '"schema":"benchboot.sample/1"')" \
		"$((n - 1))"
	i=1
	while [ $i -lt "$n" ]; do
		line=$(echo "$out" | sed -n "${i}p")
		bad=0 checked=0
		expect "$fix/$((i - 1))" "$fix/$i" >"$tmp/want"
		while read -r key want; do
			g=$(got "$key" "$line")
			checked=$((checked + 1))
			if ! same "$g" "$want"; then
				bad=$((bad + 1))
				diag "  $key: got '$g', want $want"
			fi
		done <"$tmp/want"
		if [ $bad = 0 ] && [ $checked -ge 30 ]; then
			ok "$kernel interval $i: $checked figures match awk"
		else
			not_ok "$kernel interval $i: $bad of $checked differ"
		fi
		i=$((i + 1))
	done
	# nonzero where the snapshot had activity: a parser returning 0
	# everywhere must not pass by agreeing with an empty snapshot
	busy='context_switches_ps|interrupts_ps|cpu_user_pct|free_pages|load1'
	busy="$busy|procs.yes.cpu_pct|procs.sleep.rss_kb"
	nz=$(expect "$fix/0" "$fix/$((n - 1))" | awk '$2 != 0' |
		grep -cE "^($busy) ")
	check_eq "$kernel: the snapshot has activity to check" "$nz" 7

	sum=$(echo "$out" | tail -n 1)
	first=$(sed -n 's/^ctxt //p' "$fix/0/proc/stat")
	last=$(sed -n 's/^ctxt //p' "$fix/$((n - 1))/proc/stat")
	check_eq "$kernel: summary is a workload record" \
		"$(got workload "$sum")" '"sample"'
	check_eq "$kernel: summary counts context switches" \
		"$(got context_switches "$sum")" "$((last - first))"
	m0=$(cut -d' ' -f2 "$fix/0/clock")
	m1=$(cut -d' ' -f2 "$fix/$((n - 1))/clock")
	want=$(awk -v a="$first" -v b="$last" -v t0="$m0" -v t1="$m1" \
		'BEGIN { printf "%.17g", (b - a) / ((t1 - t0) / 1e9) }')
	means=$(echo "$sum" | sed 's/.*"means"://')
	if same "$(got context_switches_ps "$means")" "$want"; then
		ok "$kernel: summary mean of context switches/s is total/time"
	else
		not_ok "$kernel: summary mean of context switches/s"
		diag "  got $(got context_switches_ps "$means"), want $want"
	fi
done
check "fixtures from at least two kernels" test "$nfix" -ge 2

# A damaged snapshot: the error names the file and the line.
cp -r "$(ls -d payload/tests/fixtures/proc-* | head -n 1)" "$tmp/bad"
sed -i 's/^ctxt .*/ctxt many/' "$tmp/bad/1/proc/stat"
$TARGET_RUN "$BENCHBOOT" sample --replay "$tmp/bad" --json >/dev/null \
	2>"$tmp/err"
rc=$?
check_eq "damaged proc/stat: exit status 1" "$rc" 1
line=$(grep -n '^ctxt' "$tmp/bad/1/proc/stat" | cut -d: -f1)
if grep -q "1/proc/stat line $line: cannot parse 'ctxt many" "$tmp/err"; then
	ok "damaged proc/stat: the message names file and line"
else
	not_ok "damaged proc/stat: the message names file and line"
	diag "$(cat "$tmp/err")"
fi
rm "$tmp/bad/0/proc/meminfo"
$TARGET_RUN "$BENCHBOOT" sample --replay "$tmp/bad" >/dev/null 2>"$tmp/err"
check_eq "missing proc/meminfo: exit status 1" "$?" 1
check "missing proc/meminfo: named" grep -q "0/proc/meminfo: No such file" \
	"$tmp/err"
$TARGET_RUN "$BENCHBOOT" sample --interval 5ms >/dev/null 2>"$tmp/err"
check_eq "--interval 5ms refused with status 2" "$?" 2
check "--interval 5ms: the message says why" grep -q -- "--interval '5ms'" \
	"$tmp/err"
tap_done
