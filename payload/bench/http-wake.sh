#!/bin/sh
# http-wake.sh SECONDS REPEATS 'LABEL=COMMAND' ...: what each HTTP client
# costs the *server*, for issue 19's experiments.  One nginx (one worker,
# 4050-byte file on 127.0.0.1) pinned to CPU 0; each COMMAND runs pinned
# to CPU 1, the commands alternating (A B C A B C ...), REPEATS rounds.
# In a COMMAND, @URL@ is the file's URL, @PORT@ nginx's port and @LUA@ a
# wrk script pipelining 8 requests.  Per run: requests/s counted by nginx
# (stub_status), nginx's CPU per request (its worker's /proc/PID/stat),
# the client's CPU per request and voluntary context switches (sleeps)
# per request (/usr/bin/time), TCP segments per request (nstat: the whole
# machine's, so other traffic adds a little); then the medians.
# Example: payload/bench/http-wake.sh 3 5 \
#   "bb=benchboot http -t 1 -c 32 -d 3s @URL@" \
#   "wrk=wrk -t 1 -c 32 -d 3s @URL@"
# Not a test: the figures depend on the machine and on what else runs.
set -u
[ $# -ge 3 ] || { echo "usage: $0 SECONDS REPEATS LABEL=CMD..." >&2; exit 2; }
secs=$1
reps=$2
shift 2
for t in nginx taskset nstat /usr/bin/time; do
	command -v $t >/dev/null || { echo "needs $t" >&2; exit 2; }
done
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/payload/bench/bench-servers.sh"
bench_nginx

# run LABEL COMMAND: one run, one row to stdout and $RUN_DIR/rows.
run() {
	cmd=$(echo "$2" | sed "s|@URL@|$url|g; s|@PORT@|$NGINX_PORT|g;
		s|@LUA@|$LUA8|g")
	s0=$(nginx_requests)
	k0=$(ticks)
	nstat -n >/dev/null
	/usr/bin/time -f "%U %S %w" -o "$RUN_DIR/time" \
		taskset -c 1 sh -c "$cmd" >"$RUN_DIR/out" 2>&1
	segs=$(nstat -z TcpOutSegs | awk '/TcpOutSegs/ { print $2 }')
	k1=$(ticks)
	s1=$(nginx_requests)
	read -r u s w <"$RUN_DIR/time"
	echo "$1 $((s1 - s0 - 1)) $u $s $w $((k1 - k0)) $segs" |
	awk -v secs="$secs" -v hz="$hz" '{ n = $2
		printf "%-12s %9.0f %9.3f %9.3f %8.3f %8.3f\n", $1,
			n / secs, $6 * 1e6 / hz / n, ($3 + $4) * 1e6 / n,
			$5 / n, $7 / n }' | tee -a "$RUN_DIR/rows"
}

echo "# http-wake: ${secs}s runs, $reps rounds, $(date -u +%FT%TZ)"
echo "# load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
hdr="%-12s %9s %9s %9s %8s %8s\n"
printf "$hdr" label "nginx/s" "ngx us/r" "cli us/r" "sleeps/r" "segs/r"
i=0
while [ $i -lt "$reps" ]; do
	for spec in "$@"; do
		run "${spec%%=*}" "${spec#*=}"
	done
	i=$((i + 1))
done
echo "# medians:"
for spec in "$@"; do
	l=${spec%%=*}
	printf "%-12s" "$l"
	for col in 2 3 4 5 6; do
		awk -v l="$l" -v c=$col '$1 == l { print $c }' \
			"$RUN_DIR/rows" | sort -n | awk '{ v[NR] = $1 }
			END { printf " %9s", (NR % 2) ? v[(NR + 1) / 2] :
				(v[NR / 2] + v[NR / 2 + 1]) / 2 }'
	done
	echo
done
echo "# load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
