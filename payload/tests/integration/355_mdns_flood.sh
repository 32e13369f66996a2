#!/bin/sh
# 355_mdns_flood.sh: a flood of 2500 fake instances (more than the
# browser's table of 2048; long TTLs, every role, controllers of other
# labs among them, all listed under the subtype _controller too)
# announced again and again on one link does not hide the real
# controller: `benchboot mdns browse` lists it, and an agent of its lab
# discovers it (docs/discovery.md, "Many instances").
set -u
. "$TOP/payload/tests/lib/tap.sh"
. "$TOP/payload/tests/lib/servers.sh"
. "$TOP/payload/tests/lib/mdns.sh"
trap mdns_stop EXIT
trap 'exit 1' INT TERM
mdns_need python3

N=2500
mdns_net 4 || { not_ok "network namespaces"; tap_done; exit 1; }
mdns_bg "$MDNS_NS2" "$RUN_DIR/flood.log" python3 \
	"$TOP/payload/tests/lib/mdnsflood.py" $N 90
check "the flood of $N instances is on the link" \
	wait_for 20 grep -q "^flooding $N" "$RUN_DIR/flood.log"

# A browser that starts into the flood: its table fills with fakes
# before the controller answers.
mdns_bg "$MDNS_NS3" "$RUN_DIR/browse1.log" $TARGET_RUN "$BENCHBOOT" mdns \
	browse --timeout 12
B1=$MDNS_LAST_PID
sleep 3
check "the real controller publishes into the flood" mdns_publish \
	"$MDNS_NS1" ctl-real 7407 --host ctl-real --txt role=controller \
	--txt id=ctl-real --txt lab=rack --subtype _controller
t0=$(date +%s)
mdns_bg "$MDNS_NS4" "$RUN_DIR/agent.log" $TARGET_RUN "$BENCHBOOT" agent \
	--role=client --id c-355 --lab rack
check "an agent of lab rack discovers the real controller" wait_for 30 \
	grep -q "discovered controller ctl-real at $MDNS_IP1:7407" \
	"$RUN_DIR/agent.log"
diag "discovered $(($(date +%s) - t0)) s after the controller published"
check "and no fake (other labs, no lab) instead" sh -c \
	"! grep -q 'discovered controller fake-' '$RUN_DIR/agent.log'"
wait "$B1"
got=$(grep -c '^fake-' "$RUN_DIR/browse1.log")
diag "the first browse listed $got fakes"
check "the first browse's table was full (2047 fakes beside it)" \
	test "$got" -ge 2047
check "and it lists the real controller" \
	grep -q "^ctl-real	" "$RUN_DIR/browse1.log"
bb_browse "$MDNS_NS3" --timeout 4 >"$RUN_DIR/browse2.log" 2>&1
diag "the second browse listed $(grep -c '^fake-' "$RUN_DIR/browse2.log") fakes"
check "a browse started after it lists it too" \
	grep -q "^ctl-real	" "$RUN_DIR/browse2.log"
tap_done
