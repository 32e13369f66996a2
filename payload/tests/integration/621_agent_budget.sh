#!/bin/sh
# 621_agent_budget.sh: the controller's per-agent budgets, sized from the
# suite (docs/protocol.md, "Limits"): a stranger is refused at 8 KiB
# before hello; a joined client that sends series (a client's budget for
# them is 0) and then more bytes than one short repeat allows is refused
# with its budget named; the run goes on with the real agents and ends.
# harness: parallel
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/servers.sh"
. "$(dirname "$0")/../lib/netns.sh"
. "$(dirname "$0")/../lib/agent.sh"
agent_test_start
netns_hub && netns_add srv 10.77.0.1 && netns_add ctl 10.77.0.2 &&
	netns_add c1 10.77.0.11 && netns_add x 10.77.0.20 ||
	{ not_ok "namespaces"; tap_done; exit 1; }
netns_docroot "$RUN_DIR/www"
check "nginx in srv" netns_nginx srv 10.77.0.1 80 "$RUN_DIR/www" \
	"$RUN_DIR/nginx"
netns_spawn ctl "$RUN_DIR/ctl.log" $BB agent --role=controller \
	--id ctl-621 --suite "$SUITES/quick.suite" --spool "$RUN_DIR/spool"
CTL=$NETNS_LAST_PID
netns_exec x python3 - >"$RUN_DIR/fake.log" 2>&1 <<'PY'
import json, socket, time
def conn():
    for n in range(50):
        try:
            return socket.create_connection(("10.77.0.2", 7407), 2)
        except OSError:
            time.sleep(0.2)
def gone(s):
    s.settimeout(10)
    try:
        while True:
            d = s.recv(65536)
            if not d:
                return True
    except ConnectionResetError:
        return True
    except OSError:
        return False
# A stranger: 20 KiB without a newline, no hello.
s = conn()
try:
    s.sendall(b"x" * 20000)
except OSError:
    pass
print("stranger", "closed" if gone(s) else "open", flush=True)
# A client that joins, sends series right behind its hello (12 KiB in
# one write: the controller may read them with the hello, and must still
# see the hello first), then 4 MiB of them.
s = conn()
rec = json.dumps({"v": 1, "type": "series", "source": "sample",
                  "rec": {"pad": "y" * 4000}}).encode() + b"\n"
s.sendall(json.dumps({"v": 1, "type": "hello", "id": "fat-621",
                      "role": "client", "ver": "0.1.0"}).encode() + b"\n" +
          rec * 3)
sent = 0
try:
    while sent < 4 << 20:
        s.sendall(rec)
        sent += len(rec)
except OSError:
    pass
print("fat", "closed" if gone(s) else "open", sent, flush=True)
PY
check_eq "the stranger was cut off" \
	"$(grep -c '^stranger closed' "$RUN_DIR/fake.log")" 1
check_eq "the client over its budget was cut off" \
	"$(grep -c '^fat closed' "$RUN_DIR/fake.log")" 1
check "the controller says why: the byte budget, sized for one repeat" \
	grep -q "refused .*fat-621: over its byte budget for this run (2112 KiB)" \
	"$RUN_DIR/ctl.log"
check "and that its series records were over budget" \
	grep -q "fat-621: over its budget of 0 series records" "$RUN_DIR/ctl.log"
# The run goes on with the real agents.
netns_spawn srv "$RUN_DIR/server.log" $BB agent --role=server \
	--controller 10.77.0.2 --once
netns_spawn c1 "$RUN_DIR/c1.log" $BB agent --role=client \
	--controller 10.77.0.2 --once
wait "$CTL"
check_eq "the controller finished the run" $? 0
res=$(ls "$RUN_DIR"/spool/results/*.json 2>/dev/null | head -1)
check "the step ran with the real client" jqt \
	'.steps[0].repeats[0].complete == true' "$res"
check "refused events name both reasons" jqt '[.events[] |
	select(.type == "refused") | .detail] |
	(any(test("over 8 KiB before hello")) and
	 any(test("over its byte budget for this run")))' "$res"
check "one over_budget event for the series" jqt '[.events[] |
	select(.type == "over_budget" and .id == "fat-621")] | length == 1' \
	"$res"
tap_done
