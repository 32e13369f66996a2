#!/bin/sh
# 620_agent_faults.sh: faults around a run, in network namespaces with the
# real http workload against nginx: malformed control messages (controller
# and agent side), a client killed mid-step (that repeat is incomplete,
# never averaged in, the run goes on), the collector stopped during an
# upload and restarted (the result arrives exactly once, intact), and the
# controller restarted with a result in its spool.
# harness: parallel
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/servers.sh"
. "$(dirname "$0")/../lib/netns.sh"
. "$(dirname "$0")/../lib/agent.sh"
agent_test_start
netns_hub && netns_add srv 10.77.0.1 && netns_add ctl 10.77.0.2 &&
	netns_add col 10.77.0.3 && netns_add c1 10.77.0.11 &&
	netns_add c2 10.77.0.12 && netns_add x 10.77.0.20 ||
	{ not_ok "namespaces"; tap_done; exit 1; }
netns_docroot "$RUN_DIR/www"
check "nginx in srv" netns_nginx srv 10.77.0.1 80 "$RUN_DIR/www" \
	"$RUN_DIR/nginx"
mkdir -p "$RUN_DIR/collected"
collector_start() {
	netns_spawn col "$RUN_DIR/collect.log.$1" $BB collect \
		--dir "$RUN_DIR/collected" --listen 10.77.0.3:8080 \
		--token t0ken-620 $(collect_user "$RUN_DIR/collected")
	COL_PID=$NETNS_LAST_PID
	wait_for 10 netns_exec col curl -sf \
		-H 'Authorization: Bearer t0ken-620' http://10.77.0.3:8080/
}
check "collector up" collector_start 1
UP="--upload http://10.77.0.3:8080/results/ --upload-timeout 3s --token t0ken-620"

# --- an agent refuses a malformed controller --------------------------
netns_spawn x "$RUN_DIR/fake.log" python3 -c '
import socket
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("10.77.0.20", 7407)); s.listen(1); s.settimeout(20)
c, _ = s.accept(); c.recv(65536)
c.sendall(b"{\"v\":1,\"type\":\"run\",\"step\":\"x\"}\n")
c.settimeout(5); print("closed" if c.recv(100) == b"" else "open")'
netns_spawn c1 "$RUN_DIR/c1-fake.log" $BB agent --role=client \
	--controller 10.77.0.20 --id victim
check "agent closes a connection carrying a malformed run message" \
	wait_for 15 grep -q "closing control connection: malformed message: run: field \"start_at\": missing" "$RUN_DIR/c1-fake.log"
check "the fake controller saw the connection closed" \
	wait_for 10 grep -q closed "$RUN_DIR/fake.log"
check "the agent goes on (reconnecting)" wait_for 10 grep -q \
	"retrying in" "$RUN_DIR/c1-fake.log"
kill "$NETNS_LAST_PID"

# --- run A: malformed messages to the controller, a client killed -----
for c in c1 c2; do
	netns_spawn $c "$RUN_DIR/$c.log" $BB agent --role=client \
		--controller 10.77.0.2
	eval "PID_$c=\$NETNS_LAST_PID"
done
netns_spawn srv "$RUN_DIR/server.log" $BB agent --role=server \
	--controller 10.77.0.2
netns_spawn ctl "$RUN_DIR/ctlA.log" $BB agent --role=controller \
	--id ctl-a --suite "$SUITES/faults.suite" --spool "$RUN_DIR/spool" $UP
CTL=$NETNS_LAST_PID
# Malformed input: bad JSON, wrong version, unknown type, a message
# before hello, a line over 1 MiB (refused at 8 KiB: nobody sends that
# much before hello).  Each must close just that connection.
netns_exec x python3 - >"$RUN_DIR/bad.log" 2>&1 <<'PY'
import socket, time
bad = [b"{not json\n", b'{"v":2,"type":"hello","id":"a","role":"client"}\n',
       b'{"v":1,"type":"boom"}\n',
       b'{"v":1,"type":"result","step":"s","records":[]}\n',
       b"x" * (1 << 20 | 100) + b"\n"]
for i, b in enumerate(bad):
    for n in range(50):
        try:
            s = socket.create_connection(("10.77.0.2", 7407), 2); break
        except OSError:
            time.sleep(0.2)
    try:
        s.sendall(b)
    except OSError:
        pass
    s.settimeout(5)
    try:
        r = s.recv(100)
    except ConnectionResetError:
        r = b""
    print(i, "closed" if r == b"" else "open")
PY
check_eq "controller closed each malformed connection" \
	"$(grep -c closed "$RUN_DIR/bad.log")" 5
# Kill client c2 (agent and its workload) 1 s into the first repeat.
wait_for 30 grep -q "step http-static/c4/r1: 1 process" "$RUN_DIR/c2.log"
sleep 1.2
kids=$(ps -o pid= --ppid "$PID_c2")
kill -9 "$PID_c2" $kids
# The machine comes back: same id, it takes its old slot for repeat 2.
netns_spawn c2 "$RUN_DIR/c2b.log" $BB agent --role=client \
	--controller 10.77.0.2
tA=$(date +%s)
wait "$CTL"
check_eq "controller A finished despite the lost client" $? 0
# Not held up waiting for the dead client's result (the step's own
# deadline is a minute past its end).
check "controller A did not wait for the lost client's result" \
	test $(($(date +%s) - tA)) -lt 30
resA=$(ls "$RUN_DIR"/spool/results/faults-*ctl-a*.json)
st='.steps[0]'
check_eq "repeat 1 incomplete" "$(jq "$st.repeats[0].complete" "$resA")" false
check "repeat 1 says why: a client lost, not over the time limit" jqt \
	"$st.repeats[0].incomplete_reason | test(\"^1 client\\\\(s\\\\) lost, \")
	 and (test(\"time limit\") | not)" "$resA"
check_eq "repeat 2 complete, with the rejoined client" \
	"$(jq "$st.repeats[1].complete, ($st.repeats[1].clients | length)" \
	"$resA" | tr '\n' ' ')" "true 2 "
check_eq "stats over complete repeats only (n = 1)" \
	"$(jq "$st.stats.http.requests_per_s.n" "$resA")" 1
check_eq "step histogram = repeat 2's only" \
	"$(jq "$st.merged.http.latency.count" "$resA")" \
	"$(jq "$st.repeats[1].merged.http.latency.count" "$resA")"
check "agent_lost event for c2" jqt '[.events[] | select(.type ==
	"agent_lost" and .id == "client-525400bb000c")] | length == 1' "$resA"
check_eq "malformed messages recorded" \
	"$(jq '.controller_usage.malformed_messages' "$resA")" 4
check "malformed events name the reason" jqt '[.events[] |
	select(.type == "malformed_message") | .detail] |
	any(test("field \"v\": want 1"))' "$resA"
check "the long line was refused at the pre-hello budget" jqt '[.events[] |
	select(.type == "refused") | .detail] |
	any(test("over 8 KiB before hello"))' "$resA"
check "agent_rejoined event for c2" jqt '[.events[] | select(.type ==
	"agent_rejoined" and .id == "client-525400bb000c")] | length == 1' \
	"$resA"
check "c2 listed once in the environment, not lost" jqt '[.environment.hosts[] |
	select(.id == "client-525400bb000c")] | length == 1 and
	(.[0].lost | not)' "$resA"
check "result A uploaded" cmp "$resA" "$RUN_DIR/collected/$(jq -r .id "$resA").json"

# --- run B: the collector stopped during the upload, then restarted ----
netns_spawn ctl "$RUN_DIR/ctlB.log" $BB agent --role=controller \
	--id ctl-b --suite "$SUITES/quick.suite" --spool "$RUN_DIR/spool" $UP
CTL=$NETNS_LAST_PID
wait_for 30 grep -q "step http-static/c2/r1: " "$RUN_DIR/ctlB.log"
kill -STOP "$COL_PID"
check "upload attempt times out against the stopped collector" \
	wait_for 30 grep -q "still pending" "$RUN_DIR/ctlB.log"
kill -9 "$COL_PID"
check "collector restarted" collector_start 2
wait "$CTL"
check_eq "controller B delivered after the restart" $? 0
resB=$(ls "$RUN_DIR"/spool/results/quick-*ctl-b*.json)
idB=$(jq -r .id "$resB")
check "result B arrived intact" cmp "$resB" "$RUN_DIR/collected/$idB.json"
check_eq "no temporary files left in the collector" \
	"$(ls -A "$RUN_DIR/collected" | grep -c '^\.')" 0

# --- runs C, D: the controller restarted with a result in its spool ----
kill "$COL_PID"
netns_exec ctl $BB agent --role=controller --id ctl-c \
	--suite "$SUITES/quick.suite" --spool "$RUN_DIR/spool" $UP \
	--upload-deadline 4s >/dev/null 2>"$RUN_DIR/ctlC.log"
check_eq "controller C gives up after its upload deadline (exit 3)" $? 3
resC=$(ls "$RUN_DIR"/spool/results/quick-*ctl-c*.json)
idC=$(jq -r .id "$resC")
check "result C waits in the spool" test -f "$RUN_DIR/spool/pending/$idC.json"
check "collector restarted" collector_start 3
netns_exec ctl $BB agent --role=controller --id ctl-d \
	--suite "$SUITES/quick.suite" --spool "$RUN_DIR/spool" $UP \
	>/dev/null 2>"$RUN_DIR/ctlD.log"
check_eq "controller D ran and uploaded" $? 0
check "the spooled result C arrived intact on restart" \
	cmp "$resC" "$RUN_DIR/collected/$idC.json"
check_eq "spool empty" "$(ls "$RUN_DIR/spool/pending" | wc -l)" 0
check_eq "collector holds A, B, C, D once each" \
	"$(ls "$RUN_DIR/collected" | wc -l)" 4
check_eq "no result stored twice" "$(cat "$RUN_DIR"/collect.log.* |
	grep -c 'stored ')" 4
tap_done
