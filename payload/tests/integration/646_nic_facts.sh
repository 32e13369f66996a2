#!/bin/sh
# 646_nic_facts.sh: every host's NICs in a real result (host_nic): a
# controller, a server agent and a client agent in network namespaces run
# the quick suite; each host of the result lists its veth in nics[] (the
# driver veth, its MAC, MTU, queues, up, its address) and suite_nic, the
# one holding the address it was reached at; `benchboot report` reads the
# document, and `benchboot collect --db` indexes it on a private MariaDB
# with the NIC facts kept in bb_hosts.facts.
# harness: parallel
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/servers.sh"
. "$(dirname "$0")/../lib/netns.sh"
. "$(dirname "$0")/../lib/agent.sh"
agent_test_start
netns_hub || { not_ok "hub namespace"; tap_done; exit 1; }
netns_add srv 10.77.0.1 && netns_add ctl 10.77.0.2 &&
	netns_add c1 10.77.0.11
ok "namespaces srv, ctl, c1 on one bridge"
netns_docroot "$RUN_DIR/www"
netns_spawn srv "$RUN_DIR/httpd.log" busybox httpd -f -p 10.77.0.1:80 \
	-h "$RUN_DIR/www"
check "busybox httpd on 10.77.0.1:80" \
	wait_for 10 netns_exec c1 curl -sf http://10.77.0.1/static/4050.html

netns_spawn c1 "$RUN_DIR/c1.log" $BB agent --role=client --id c1 \
	--controller 10.77.0.2 --once
netns_spawn srv "$RUN_DIR/srv.log" $BB agent --role=server --id srv \
	--controller 10.77.0.2 --once
netns_exec ctl $BB agent --role=controller --id ctl \
	--listen 10.77.0.2:7407 --suite "$SUITES/quick.suite" \
	--spool "$RUN_DIR/spool" --wait 30s >"$RUN_DIR/ctl.out" \
	2>"$RUN_DIR/ctl.log"
check_eq "the controller ran the quick suite" "$?" 0
R=$(cat "$RUN_DIR/ctl.out")
if ! [ -s "$R" ]; then
	not_ok "a result document"
	tail -n 20 "$RUN_DIR/ctl.log" | sed 's/^/#   /'
	tap_done
	exit 1
fi
h() { jq -c ".environment.hosts[] | select(.id == \"$1\") | $2" "$R"; }
for x in ctl:10.77.0.2:02 srv:10.77.0.1:01 c1:10.77.0.11:0b; do
	id=${x%%:*} a=${x#*:} m=${x##*:}
	a=${a%:*}
	check_eq "$id: nics[] is its veth, up, with its MAC, MTU, queues, address" \
		"$(h "$id" '[.nics[] | [.name, .driver, .mac, .operstate, .mtu, .rx_queues > 0, .ipv4]]')" \
		"[[\"eth0\",\"veth\",\"52:54:00:bb:00:$m\",\"up\",1500,true,[\"$a/16\"]]]"
	check_eq "$id: suite_nic is it, at $a" \
		"$(h "$id" '.suite_nic | [.name, .driver, .mac, .address]')" \
		"[\"eth0\",\"veth\",\"52:54:00:bb:00:$m\",\"$a\"]"
done
check "benchboot report reads and validates the document" \
	$BB report "$R"

# The collector's index keeps them.
if ! collect_db_start "$RUN_DIR"; then
	not_ok "mariadb starts"
	tap_done
	exit
fi
PORT=$(free_port)
$BB collect $CU --dir "$D" --listen 127.0.0.1:$PORT \
	--db "mysql://bench@127.0.0.1:$MARIADB_PORT/bench" \
	--db-password-file "$RUN_DIR/pw" >"$RUN_DIR/console" \
	2>"$RUN_DIR/collect.log" &
SERVER_PIDS="$SERVER_PIDS $!"
check "collector up" wait_for 10 curl -s -o /dev/null http://127.0.0.1:$PORT/
check_eq "upload: 201" "$(curl -s -o /dev/null -w '%{http_code}' -X PUT \
	--data-binary @"$R" "http://127.0.0.1:$PORT/results/$(jq -r .id "$R").json")" 201
hosts() { [ "$($M -e 'SELECT COUNT(*) FROM bb_hosts')" = 3 ]; }
check "indexed: three host rows" wait_for 10 hosts
check_eq "bb_hosts.facts keeps each host's suite_nic and nics" \
	"$($M -e "SELECT CONCAT_WS(' ', JSON_VALUE(facts, '$.suite_nic.driver'), JSON_VALUE(facts, '$.suite_nic.address'), JSON_LENGTH(facts, '$.nics')) FROM bb_hosts WHERE host_id = 'c1'")" \
	"veth 10.77.0.11 1"
tap_done
