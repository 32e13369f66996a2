#!/bin/sh
# 125_run_target: `make run TARGET=ADDR` (qemu-tests/run.sh): only a
# controller VM and a client VM boot from the image, against a server
# that runs nothing of ours: a network namespace with the host's Debian
# Apache, MariaDB and Postfix provisioned by the server kit alone
# (payload/tests/lib/kit_target.sh, as 680_kit_target.sh), which run.sh
# puts on the VMs' LAN (RUN_LAN_LINK) at 169.254.0.2.  The smoke suite,
# time-scaled x0.3: every step complete with throughput > 0 and no errors,
# the result's server_identity naming Apache's, MariaDB's and Postfix's
# versions and the target's MAC, no server figures claimed, and the relay
# step's mail at the sink on the first client, where run.sh had the kit
# point the target's route (RUN_TARGET_ROUTE).  docs/own-server.md.
. "$(dirname "$0")/../../lib.sh"
qt_init
. "$TOP/qemu-tests/run-checks.sh"
qt_need "$IMAGES/vmlinuz" "$IMAGES/initramfs.cpio.gz"
BENCHBOOT=${BENCHBOOT:-$O/$ARCH/bin/benchboot}
if [ "$(id -u)" != 0 ]; then
	skip "make run needs root (bridge and taps in a network namespace)"
	tap_done
	exit 0
fi
# The servers' data where Apache's www-data can reach it (servers.sh's
# RUN_DIR): QT_DIR is under the checkout, perhaps in /root.
qt_shared_dir
RUN_DIR=$QT_SHARED
. "$TOP/payload/tests/lib/servers.sh"
. "$TOP/payload/tests/lib/netns.sh"
. "$TOP/payload/tests/lib/kit_target.sh"
if [ -n "$(kt_missing)" ]; then
	skip "no $(kt_missing) on this host (apt-get install apache2 mariadb-server postfix)"
	tap_done
	exit 0
fi
TGT=169.254.0.2
LINK=bbt$$
D=$QT_SHARED/target
kt_versions
cleanup() {
	postfix -c "$D/postfix" abort >/dev/null 2>&1
	netns_cleanup
	ip link del "$LINK" 2>/dev/null
	qt_cleanup
}
trap cleanup EXIT

# --- the target: a stock system provisioned by the kit, no agent.
check "target namespace at $TGT, its link $LINK on the host" \
	netns_add_link tgt $TGT "$LINK"
check "stock MariaDB up" kt_stock tgt $TGT "$D"
check "the kit provisions (--no-enable)" kt_kit "$D/kit-install.log" \
	--no-enable
check "Apache serves the kit's site, Postfix listens" kt_start
# No relay route yet (the sink's client has no address before it boots):
# the kit's check says relay.test is refused, and nothing else.
kt_kit "$D/kit-check.log" --check-only
check_eq "the kit's check before the run: only relay.test missing" \
	"$(grep '^kit: MISSING' "$D/kit-check.log")" \
	"kit: MISSING: mail: $TGT:25 refuses relay.test"
sed 's/^/#   /' "$D/kit-check.log"
netns_exec tgt postsuper -c "$KT_PF" -d ALL >/dev/null 2>&1
kt_route_script "$D/route"

# --- make run TARGET=: a controller and a client, no server VM (one
# client: two VMs boot faster than three on two cores; 120_run_smoke
# covers two clients' merging).
QT_CASE="make run TARGET"
t0=$(date +%s)
RUN_DIR=$QT_DIR/run QT_ACCEL=$QT_ACCEL TARGET=$TGT RUN_LAN_LINK=$LINK \
	RUN_TARGET_ROUTE="ip netns exec ${NETNS_P}tgt $D/route" \
	CLIENTS=1 SUITE_SCALE=0.3 RUN_TIMEOUT=$(qt_timeout 240) "$TOP/qemu-tests/run.sh" \
	>"$QT_DIR/run.out" 2>&1
rc=$?
secs=$(($(date +%s) - t0))
D2=$QT_DIR/run
run_result "make run TARGET" "$rc" "$QT_DIR/run.out" "$D2" \
	"$secs s, $QT_ACCEL" || { tap_done; exit 1; }
R=$RUN_RESULT
check "no server VM booted: the VMs were a controller and a client" \
	test "$(sort "$D2/vms" | tr '\n' ' ')" = "client1 controller "
check "the LAN's link to the target went with the run" sh -c \
	"! ip link show '$LINK' >/dev/null 2>&1"
run_check_steps "$R" "$QT_DIR/run.out" "$D2"
check "no errors in any step" run_jq '[.steps[].repeats[] |
	select(.complete) | .merged[] | .errors // {} | .[]] | add // 0 | . == 0' \
	"$R"
check "hosts: the controller and the client, no server agent" run_jq \
	'[.environment.hosts[].role] | sort == ["client","controller"]' "$R"
check "every repeat says there are no server figures" run_jq \
	'[.steps[].repeats[] | .server_figures | startswith("none")] | all' "$R"

# What the server was, as the controller VM saw it over the LAN.
jq -c '.server_identity | {http: .http.server, sql: .sql.version,
	os: .sql.version_compile_os, smtp: .smtp.banner, mac: .net.mac,
	ttl: .net.ttl}' "$R" | sed 's/^/#   identity: /'
check_eq "server_identity: the Server header is apache2 -v's" \
	"$(jq -r '.server_identity.http.server' "$R" | cut -d' ' -f1)" \
	"$KT_APACHE_V"
check_eq "server_identity: SELECT VERSION() is mariadbd --version's" \
	"$(jq -r '.server_identity.sql.version' "$R")" "$KT_MARIADB_V"
check "server_identity: the SMTP banner names Postfix" run_jq \
	'.server_identity.smtp.banner | test("ESMTP Postfix")' "$R"
check_eq "server_identity: the kit's facts name Postfix's mail_version" \
	"$(jq -r '.server_identity.kit.mail.version' "$R")" "$KT_POSTFIX_V"
check_eq "server_identity: the target's MAC" \
	"$(jq -r '.server_identity.net.mac' "$R")" 52:54:00:bb:00:02

# The relay: at the first client's sink, where the kit's route points.
run_check_relay "$R"
relay() {
	jq -r '[.steps[] | select(.name | startswith("smtp-relay"))][0] |
		.repeats[0].relay.'"$1" "$R"
}
sink=$(relay sink)
check_eq "relay: the sink is the first client's (by id)" "$(relay client)" \
	client-525400bb1001
check_eq "relay: the kit's route names that sink (RUN_TARGET_ROUTE)" \
	"$(cat "$KT_PF/benchboot-transport")" "relay.test smtp:[${sink%:*}]:2525"
q=$(netns_exec tgt postqueue -c "$KT_PF" -j 2>/dev/null | grep -c relay.test)
check_eq "relay: received what the clients sent, less $q still queued" \
	"$(relay received)" "$(($(relay sent) - q))"
diag "make run TARGET took $secs s ($QT_ACCEL)"
tap_done
