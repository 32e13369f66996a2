#!/bin/sh
# 036_secureboot_run: a suite between two machines with Secure Boot on
# (Debian's OVMF .ms build, Microsoft's keys): the server boots a copy of
# the USB image (its role file and params.txt, as 035_usb_field: nothing
# typed), the client the ISO's default entry, each through Debian's signed
# shim, GRUB and kernel, locked down.  On one Ethernet segment (a QEMU
# socket, link-local, mDNS), they run smoke's http-static, sql-mix and
# smtp-in steps; the result on the server's stick must show every step
# with throughput and the server's sampler and probe series in every
# repeat, under lockdown; neither console may show a module refused or a
# taint.  Long (two UEFI boots and a suite under TCG: 1 min 47 s at load
# 3-8, 4 min 12 s at load 11 on the 2-core host), so `make test-long`;
# 032_secureboot checks both media's boots in `make test`.
. "$(dirname "$0")/../../lib.sh"
qt_init
ISO=$IMAGES/benchboot-$ARCH.iso
IMG=$IMAGES/benchboot-$ARCH.img
qt_need "$ISO" "$IMG" "$OVMF_SB_CODE" "$OVMF_SB_VARS"
if ! command -v mcopy >/dev/null || ! command -v jq >/dev/null; then
	not_ok "mtools and jq installed (make test-deps)"
	tap_done
	exit 1
fi

SCALE=${SB_SCALE:-0.5}
awk '/^step / { keep = ($2 == "http-static" || $2 == "sql-mix" ||
	$2 == "smtp-in") } /^suite / { $2 = "secureboot" } /^step /, 0 {
	if (!keep) next } { print }' "$TOP/configs/suite/smoke.suite" \
	>"$QT_DIR/sb.suite"

srv=$QT_DIR/server.img
cp --sparse=always "$IMG" "$srv"
off=$(qt_part_offset "$srv" 0c)
S="$srv@@$off"
: >"$QT_DIR/server.role"
# Under emulation the server answers past the suite's timeouts (set for
# real servers): run.sh's longer ones, as make run gives it.
EMU=
[ "$QT_ACCEL" = kvm ] ||
	EMU=benchboot.set=http_timeout=10s,sql_timeout=60s,smtp_timeout=30s
printf '%s\n' benchboot.suite=/results/benchboot/sb.suite benchboot.peers=1 \
	"benchboot.time_scale=$SCALE" $EMU >"$QT_DIR/params.txt"
if mcopy -o -i "$S" "$QT_DIR/server.role" ::benchboot/server &&
	mcopy -o -i "$S" "$QT_DIR/sb.suite" ::benchboot/sb.suite &&
	mcopy -o -i "$S" "$QT_DIR/params.txt" ::benchboot/params.txt; then
	ok "server stick: role file, suite and params.txt written"
else
	not_ok "server stick: role file, suite and params.txt written"
	tap_done
	exit 1
fi

port=$(qt_free_port)
t0=$(date +%s)
# shellcheck disable=SC2046
qt_start server -m 1024 $(qt_secureboot server) \
	-drive "if=none,id=stick,format=raw,file=$srv" \
	-device ide-hd,drive=stick,bootindex=1 \
	-netdev "socket,id=n0,listen=127.0.0.1:$port" \
	-device "virtio-net-pci,netdev=n0,mac=$(qt_mac 36),romfile="
SRV_LOG=$QT_LOG SRV_PID=$QT_PID
sleep 0.5
# shellcheck disable=SC2046
qt_start client $(qt_secureboot client) \
	-drive "file=$ISO,media=cdrom,if=none,id=cd,readonly=on" \
	-device ide-cd,drive=cd,bootindex=1 \
	-netdev "socket,id=n0,connect=127.0.0.1:$port" \
	-device "virtio-net-pci,netdev=n0,mac=$(qt_mac 37),romfile="
CLI_LOG=$QT_LOG CLI_PID=$QT_PID
QT_CASE="ISO client, Secure Boot"
qt_ready client "$(qt_macid 37)" 150 && qt_locked_down
QT_LOG=$SRV_LOG QT_PID=$SRV_PID QT_CASE="USB server, Secure Boot"
check "$QT_CASE: GRUB took the role file (the field-server entry)" \
	qt_wait 'Command line: .*benchboot\.role=server benchboot\.field=1' \
	"$(qt_timeout 60)"
qt_ready server "$(qt_macid 36 server)" 150 && qt_locked_down

if qt_exited "$(qt_timeout 200)"; then
	ok "server: the run ended, powered off ($(($(date +%s) - t0)) s," \
		"$QT_ACCEL)"
else
	not_ok "server: the run ended, powered off"
	qt_tail
	QT_LOG=$CLI_LOG qt_tail
fi
# The ISO's client entry is no field test: it stays up for the next run.
qt_cleanup
for l in "$SRV_LOG" "$CLI_LOG"; do
	check_eq "${l##*/}: no module refused or tainting after READY" \
		"$(grep -aciE '^\[ *[0-9.]+\].*(rejected|taint|module verif)' \
		"$l")" 0
done

mdir -b -i "$S" :: >"$QT_DIR/root.ls" 2>&1
R=$(grep -m1 '^::/.*\.json$' "$QT_DIR/root.ls")
if [ -n "$R" ] && mcopy -i "$S" "$R" "$QT_DIR/result.json" 2>/dev/null &&
	jq -e . "$QT_DIR/result.json" >/dev/null 2>&1; then
	ok "result: ${R#::/} on the stick, valid JSON"
else
	not_ok "result: a JSON document in the stick's root"
	grep -a 'BENCHBOOT-\(ERROR\|STOPPED\)\|WARNING' "$SRV_LOG" |
		sed 's/^/#   | /'
	tap_done
	exit 1
fi
R=$QT_DIR/result.json
jqc() { jq -e "$@" "$R" >/dev/null; }
check_eq "result: its steps" "$(jq -r '[.steps[].name] | join(" ")' "$R")" \
	"http-static/c8 sql-mix/c4 smtp-in/c4"
check "result: HTTP, SQL and SMTP steps complete with throughput > 0" jqc \
	'.steps | length == 3 and all(.complete_repeats >= 1 and
	 ([.stats[] | (.requests_per_s // .statements_per_s //
	   .mails_per_s) | select(. != null) | .median] |
	  length > 0 and all(. > 0)))'
check "result: the sampler's series in every repeat (lockdown)" jqc \
	'[.steps[].repeats[] | select(.complete) |
	  .series.sample | length > 0] | all'
check "result: the probe's series in every repeat (lockdown)" jqc \
	'[.steps[] | .duration_s as $d | .repeats[] | select(.complete) |
	  (.series.probe | length) >= ($d / 2)] | all'
check "result: the server was the controller, one client" jqc \
	'[.environment.hosts[].role] | (index("server+controller") != null)
	 and (map(select(. == "client")) | length == 1)'
diag "Secure-Boot run: $(($(date +%s) - t0)) s from the server's start" \
	"($QT_ACCEL)"
tap_done
