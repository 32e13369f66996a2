#!/bin/sh
# 035_usb_field: the stick's field test, as in the field: two copies of
# the USB image, nothing typed at boot (as virtio disks: SeaBIOS reads a
# USB stick several times slower under software emulation; 030_usb boots
# the image on xHCI).  The server's copy has the role file
# benchboot/server (its GRUB then boots the field test's server entry) and
# a params.txt naming a suite file beside it; the client's is as built.  The two VMs
# share one Ethernet segment (a QEMU socket on loopback) with no DHCP
# server: link-local addresses, mDNS discovery, the server becomes the
# controller.  Both power off at the end; the result document is then
# read from the server's image file with mtools and checked.  Long: 3.5
# min under TCG on the 2-core host at load 7-13, 7 min at load 20-30 (the
# boots, the server's with its 30 MB overlay and stack, are most of it;
# the suite about 40 s), so `make test-long`, not `make test`'s budget.
. "$(dirname "$0")/../../lib.sh"
qt_init
IMG=$IMAGES/benchboot-$ARCH.img
qt_need "$IMG" "$IMAGES/image-digest"
if ! command -v mcopy >/dev/null || ! command -v jq >/dev/null; then
	not_ok "mtools and jq installed (make test-deps)"
	tap_done
	exit 1
fi

# The suite, a file on the stick as a lab would bring one: smoke's
# settings and its steps http-static, sql-mix and smtp-in (every
# workload; smoke's sql-ops inserts a fixed 2000 rows, a minute under
# emulation), for one client, at half smoke's times.
FIELD_SCALE=${FIELD_SCALE:-0.5}
awk '/^step / { keep = ($2 == "http-static" || $2 == "sql-mix" ||
	$2 == "smtp-in") } /^suite / { $2 = "field" } /^step /, 0 { if (!keep)
	next } { print }' "$TOP/configs/suite/smoke.suite" >"$QT_DIR/field.suite"

srv=$QT_DIR/server.img cli=$QT_DIR/client.img
cp --sparse=always "$IMG" "$srv"
cp --sparse=always "$IMG" "$cli"
off=$(qt_part_offset "$srv" 0c)
S="$srv@@$off"
# The server's stick, prepared on a laptop: the role file, the suite and
# the parameters (CRLF, as Notepad writes them).
: >"$QT_DIR/server.role"
printf '# field test\r\n%s\r\n%s\r\n%s\r\n' \
	benchboot.suite=/results/benchboot/field.suite benchboot.peers=1 \
	"benchboot.time_scale=$FIELD_SCALE" >"$QT_DIR/params.txt"
if mcopy -o -i "$S" "$QT_DIR/server.role" ::benchboot/server &&
	mcopy -o -i "$S" "$QT_DIR/field.suite" ::benchboot/field.suite &&
	mcopy -o -i "$S" "$QT_DIR/params.txt" ::benchboot/params.txt; then
	ok "server stick: benchboot/server, field.suite and params.txt" \
		"written with mtools"
else
	not_ok "server stick: benchboot/server and params.txt written"
	tap_done
	exit 1
fi

# field_vm NAME N IMAGE listen|connect [QEMU-ARGS...]: boot IMAGE as a
# disk, with MAC N on the segment (the server listens, the client
# connects).
port=$(qt_free_port)
field_vm() {
	local name=$1 n=$2 img=$3 side=$4
	shift 4
	qt_start "$name" "$@" \
		-drive "if=none,id=stick,format=raw,file=$img" \
		-device virtio-blk-pci,drive=stick,bootindex=1 \
		-netdev "socket,id=n0,$side=127.0.0.1:$port" \
		-device "virtio-net-pci,netdev=n0,mac=$(qt_mac "$n"),romfile="
}
t0=$(date +%s)
field_vm server 21 "$srv" listen -m 1024
SRV_LOG=$QT_LOG SRV_PID=$QT_PID
sleep 0.5
field_vm client 22 "$cli" connect
CLI_LOG=$QT_LOG CLI_PID=$QT_PID
QT_CASE="field client"
check "field client: the default entry (field test, client)" \
	qt_wait 'Command line: .*benchboot\.role=client benchboot\.field=1' \
	"$(qt_timeout 60)"
qt_ready client "$(qt_macid 22)" 60
QT_LOG=$SRV_LOG QT_PID=$SRV_PID QT_CASE="field server"
check "field server: GRUB took the role file (the field-server entry)" \
	qt_wait 'Command line: .*benchboot\.role=server benchboot\.field=1' \
	"$(qt_timeout 60)"
qt_ready server "$(qt_macid 21 server)" 90

# The run: the server powers off when the result is on its stick, the
# client after the controller's done.
if qt_exited "$(qt_timeout 150)"; then
	ok "field server: powered off by itself ($(($(date +%s) - t0)) s," \
		"$QT_ACCEL)"
else
	not_ok "field server: powered off by itself"
	qt_tail
	QT_LOG=$CLI_LOG qt_tail
fi
QT_PID=$CLI_PID
check "field client: powered off by itself" qt_exited "$(qt_timeout 20)"
qt_cleanup

# The result, from the server's image file.
mdir -b -i "$S" :: >"$QT_DIR/root.ls" 2>&1
R=$(grep -m1 '^::/.*\.json$' "$QT_DIR/root.ls")
if [ -n "$R" ] && mcopy -i "$S" "$R" "$QT_DIR/result.json" 2>/dev/null &&
	jq -e . "$QT_DIR/result.json" >/dev/null 2>&1; then
	ok "result: ${R#::/} on the stick, valid JSON"
else
	not_ok "result: a JSON document in the stick's root"
	sed 's/^/#   /' "$QT_DIR/root.ls"
	grep -a 'BENCHBOOT-\(ERROR\|STOPPED\)\|WARNING' "$SRV_LOG" |
		sed 's/^/#   | /'
	tap_done
	exit 1
fi
R=$QT_DIR/result.json
jqc() { jq -e "$@" "$R" >/dev/null; }
check_eq "result: the suite file params.txt names, time-scaled" \
	"$(jq -r '[.suite.name, .suite.file, .suite.time_scale] | join(" ")' \
	"$R")" "field /results/benchboot/field.suite $FIELD_SCALE"
check_eq "result: its steps" "$(jq -r '[.steps[].name] | join(" ")' "$R")" \
	"http-static/c8 sql-mix/c4 smtp-in/c4"
check "result: every step complete with throughput > 0" jqc \
	'.steps | length > 0 and all(.complete_repeats >= 1 and
	 ([.stats[] | (.requests_per_s // .statements_per_s //
	   .mails_per_s) | select(. != null) | .median] |
	  length > 0 and all(. > 0)))'
check "result: the server was the controller, one client" jqc \
	'[.environment.hosts[].role] | (index("server+controller") != null)
	 and (map(select(. == "client")) | length == 1)'
check "result: every host booted this image (its digest)" jqc \
	--arg d "$(cat "$IMAGES/image-digest")" \
	'[.environment.hosts[].image_digest] | length == 2 and all(. == $d)'
# The spool is on the stick: the result there too, nothing pending.
id=$(jq -r .id "$R")
check "spool: the result is in the stick's spool/results/" \
	sh -c "mcopy -n -i '$S' ::spool/results/$id.json '$QT_DIR/spooled.json' &&
	cmp -s '$QT_DIR/spooled.json' '$R'"
check_eq "spool: nothing pending (delivered to the stick)" \
	"$(mdir -b -i "$S" ::spool/pending 2>/dev/null | grep -c '\.json$')" 0
check "boot log: the server's and the client's boots on their sticks" \
	sh -c "mtype -i '$S' ::benchboot-boots.log | grep -q 'role=server' &&
	mtype -i '$cli@@$off' ::benchboot-boots.log | grep -q 'role=client'"
diag "field test: $(($(date +%s) - t0)) s from the server's start" \
	"($QT_ACCEL)"
tap_done
