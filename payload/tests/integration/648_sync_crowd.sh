#!/bin/sh
# 648_sync_crowd.sh: a crowd of clients starts together.  48 client
# agents, each with its own deliberate clock error, one server agent and
# a controller on one bridge run one http step: every clock offset is
# measured to within 0.5 ms although all agents answer the same controller
# (its sync asks a few at a time), and on the host's one clock the
# clients woke within a few ms of each other (the gate's real-time wake).
# docs/discovery.md, "256 agents per controller".
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/servers.sh"
. "$(dirname "$0")/../lib/netns.sh"
. "$(dirname "$0")/../lib/agent.sh"
N=48
agent_test_start
netns_hub && netns_add srv 10.84.0.1 && netns_add ctl 10.84.0.2 &&
	netns_add cl 10.84.0.10 || { not_ok "namespaces"; tap_done; exit 1; }
netns_docroot "$RUN_DIR/www"
check "nginx on 10.84.0.1:80" netns_nginx srv 10.84.0.1 80 "$RUN_DIR/www" \
	"$RUN_DIR/nginx"
cat >"$RUN_DIR/crowd.suite" <<SUITE
suite crowd
version 1
clients $N
servers 1
wait 60s
repeats 1
warmup 0ms
duration 300ms
cooldown 100ms
step http-static
	concurrency $N
	run http -t 1 -c {conc} -d {duration} http://{server}:80/static/4050.html
SUITE

# Client i's clock is wrong by (i - 24) * 0.9 ms: -21.6 .. +20.7 ms.
err_ns() { echo $((($1 - 24) * 900000)); }
i=1
while [ $i -le $N ]; do
	netns_spawn cl "$RUN_DIR/c$i.log" env \
		BENCHBOOT_CLOCK_OFFSET_NS="$(err_ns $i)" $BB agent \
		--role=client --id "crowd-$i" --controller 10.84.0.2 \
		--target 10.84.0.1 --once
	i=$((i + 1))
done
netns_spawn srv "$RUN_DIR/server.log" $BB agent --role=server \
	--controller 10.84.0.2 --once --no-series
netns_exec ctl timeout 120 $BB agent --role=controller --id ctl-crowd \
	--listen 10.84.0.2:7407 --suite "$RUN_DIR/crowd.suite" \
	--spool "$RUN_DIR/spool" >"$RUN_DIR/ctl.out" 2>"$RUN_DIR/ctl.log"
rc=$?
check_eq "controller exit status" "$rc" 0
res=$(cat "$RUN_DIR/ctl.out")
[ -f "$res" ] || { tail -5 "$RUN_DIR/ctl.log" | sed 's/^/# /'; res=/dev/null; }
joined=$(jq '[.events[] | select(.type == "agent_joined")] | length' "$res")
check_eq "$N clients and the server joined" "$joined" $((N + 1))

# Each client's estimate against the error it was given, in us.
jq -r '.environment.hosts[] | select(.id | startswith("crowd-")) |
	"\(.id | ltrimstr("crowd-")) \(.clock.offset_ns)"' "$res" |
	while read -r i o; do
		echo $(((o - $(err_ns "$i")) / 1000))
	done | sort -n >"$RUN_DIR/offerr"
diag "offset errors (us): min $(head -1 "$RUN_DIR/offerr"),"\
" max $(tail -1 "$RUN_DIR/offerr") over $(grep -c . "$RUN_DIR/offerr")"
check_eq "every client's clock error measured" \
	"$(grep -c . "$RUN_DIR/offerr")" $N
check "each within 0.5 ms" awk '$1 > 500 || $1 < -500 { bad = 1 }
	END { exit bad }' "$RUN_DIR/offerr"

# When each client woke on the host's one clock: its own clock's reading
# less the error it was given.  The spread is the real start skew.
jq -r '.steps[0].repeats[0].clients[] | select(.records) |
	"\(.id | ltrimstr("crowd-")) \(.records[0].launched_ns)"' "$res" |
	while read -r i l; do
		echo $(((l - $(err_ns "$i")) / 1000))
	done | sort -n >"$RUN_DIR/woke"
spread=$(($(tail -1 "$RUN_DIR/woke") - $(head -1 "$RUN_DIR/woke")))
ctl_us=$(jq '.steps[0].repeats[0].skew_ns.launch / 1000 | floor' "$res")
diag "launch spread on the host's clock: $spread us over"\
" $(grep -c . "$RUN_DIR/woke") clients; the controller's figure: $ctl_us us"
check_eq "every client launched" "$(grep -c . "$RUN_DIR/woke")" $N
check "they woke within 10 ms of each other" test "$spread" -le 10000
tap_done
