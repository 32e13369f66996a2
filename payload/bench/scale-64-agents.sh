#!/bin/sh
# scale-64-agents.sh: one controller, one server and N (default 64) client
# agents as host processes in network namespaces on one bridge run the
# smoke suite's steps with short timings (http static, tree and CGI,
# smtp-in against smtp-sink; sql when the workload exists, else skipped),
# concurrency 64 split one connection per client.  Prints the controller's
# CPU time and peak RSS (getrusage, from the result), wall time, and the
# start skew between clients.  Needs root; a benchmark, not a test.
#   BENCHBOOT=out/x86_64/bin/benchboot payload/bench/scale-64-agents.sh [N]
set -u
N=${1:-64}
TOP=$(cd "$(dirname "$0")/../.." && pwd)
BB=${BENCHBOOT:-$TOP/out/x86_64/bin/benchboot}
BB=$(cd "$(dirname "$BB")" && pwd)/$(basename "$BB")
O=${O:-$TOP/out}
. "$TOP/payload/tests/lib/servers.sh"
. "$TOP/payload/tests/lib/netns.sh"
cleanup() { netns_cleanup; servers_stop; }
trap cleanup EXIT INT TERM

netns_available || { echo "needs root and ip netns" >&2; exit 1; }
cat >"$RUN_DIR/scale.suite" <<SUITE
# The smoke suite's steps, short, at concurrency 64.
suite scale
version 1
clients $N
servers 1
wait 120s
repeats 1
warmup 500ms
duration 2s
cooldown 300ms
step http-static
	concurrency 64
	run http -t 1 -c {conc} -d {duration} --warmup {warmup} http://{server}:80/static/4050.html
step http-tree
	concurrency 64
	run http -t 1 -c {conc} -d {duration} --warmup {warmup} http://{server}:80/tree/d{00..99}/f{0..9}.html
step http-cgi
	concurrency 64
	run http -t 1 -c {conc} -d {duration} --warmup {warmup} http://{server}:8080/cgi-bin/hello
step sql-mix
	concurrency 64
	run sql --workload=mix -c {conc} -d {duration} --host {server} --user bench --password bench --db bench
step smtp-in
	concurrency 64
	run smtp -c {conc} -d {duration} --from a@client.test --to b@bench.test {server}:25
SUITE

t0=$(date +%s)
netns_hub || exit 1
netns_add srv 10.77.0.1 && netns_add ctl 10.77.0.2 || exit 1
i=1
while [ $i -le "$N" ]; do
	netns_add c$i 10.77.1.$i || exit 1
	i=$((i + 1))
done
echo "# $((N + 2)) namespaces in $(($(date +%s) - t0)) s"
netns_docroot "$RUN_DIR/www"
netns_nginx srv 10.77.0.1 80 "$RUN_DIR/www" "$RUN_DIR/nginx" || exit 1
netns_spawn srv "$RUN_DIR/httpd.log" busybox httpd -f -p 10.77.0.1:8080 \
	-h "$RUN_DIR/www"
netns_spawn srv "$RUN_DIR/sink.log" "$BB" smtp-sink 10.77.0.1:25
netns_spawn srv "$RUN_DIR/server.log" "$BB" agent --role=server \
	--controller 10.77.0.2 --once
i=1
while [ $i -le "$N" ]; do
	netns_spawn c$i "$RUN_DIR/c$i.log" "$BB" agent --role=client \
		--controller 10.77.0.2 --once
	i=$((i + 1))
done
t1=$(date +%s.%N)
netns_exec ctl "$BB" agent --role=controller --id ctl-scale \
	--suite "$RUN_DIR/scale.suite" --spool "$RUN_DIR/spool" \
	>"$RUN_DIR/ctl.out" 2>"$RUN_DIR/ctl.log"
rc=$?
t2=$(date +%s.%N)
res=$(cat "$RUN_DIR/ctl.out")
if [ $rc != 0 ] || [ ! -f "$res" ]; then
	echo "controller failed (exit $rc):" >&2
	tail -20 "$RUN_DIR/ctl.log" >&2
	exit 1
fi
echo "# controller run: $(awk "BEGIN{print $t2 - $t1}") s wall for the suite"
jq -r --arg n "$N" '
  "clients found:          \(.peers.clients_found) of \($n)",
  "controller CPU:         \(.controller_usage.user_s + .controller_usage.system_s) s (user \(.controller_usage.user_s), system \(.controller_usage.system_s))",
  "controller peak RSS:    \(.controller_usage.maxrss_kb) kB",
  "launch skew (max):      \(.skew.launch_ns.max / 1000) us over \(.skew.launch_ns.n) steps (median \(.skew.launch_ns.median / 1000) us)",
  "workload start skew:    max \(.skew.record_ns.max / 1000) us, median \(.skew.record_ns.median / 1000) us",
  "clock offsets |max|:    \([.environment.hosts[].clock.offset_ns // 0 | fabs] | max / 1000) us, rtt max \([.environment.hosts[].clock.rtt_ns // 0] | max / 1000) us",
  (.steps[] | "step \(.name): \(if .skipped then "skipped (\(.skipped))" else "complete \(.complete_repeats)/\(.repeats | length), clients \([.repeats[0].clients[] | select(.records)] | length), \(.stats | to_entries | map("\(.key) \(.value | to_entries | map(select(.key | endswith("_per_s"))) | .[0] | "\(.key) \(.value.median | floor)")") | join(", "))" end)"),
  "events: \([.events[].type] | group_by(.) | map("\(.[0]) \(length)") | join(", "))"
' "$res"
echo "# result: $res (kept: KEEP_RUN_DIR=1)"
