#!/bin/sh
# 050_bad_param: benchboot.role=bogus and an unknown benchboot.* parameter
# each print a clear error naming them; no role starts, READY never comes,
# and the machine stays up (even with benchboot.poweroff=1).
# harness: parallel
. "$(dirname "$0")/../lib.sh"
qt_init
qt_need "$IMAGES/vmlinuz" "$IMAGES/initramfs.cpio.gz"

QT_CASE="bad parameters"
qt_start bad -kernel "$IMAGES/vmlinuz" \
	-initrd "$IMAGES/initramfs.cpio.gz" \
	-append "console=ttyS0,115200 benchboot.role=bogus benchboot.colour=blue benchboot.poweroff=1" \
	-nic "user,model=virtio-net-pci,mac=$(qt_mac 5)"
if qt_wait '^BENCHBOOT-STOPPED no role started' "$(qt_timeout 30)"; then
	ok "bad parameters: boot stops with BENCHBOOT-STOPPED ($(qt_secs $QT_MS) s)"
	check "bad parameters: the error names benchboot.role=bogus" \
		grep -q "^BENCHBOOT-ERROR benchboot: kernel parameter 'benchboot.role=bogus': role must be client, server or controller" "$QT_LOG"
	check "bad parameters: the error names the unknown benchboot.colour" \
		grep -q "^BENCHBOOT-ERROR .*'benchboot.colour=blue': unknown parameter" "$QT_LOG"
	sleep 3
	check "bad parameters: no READY line" \
		sh -c "! grep -q BENCHBOOT-READY '$QT_LOG'"
	check "bad parameters: no role (placeholder or agent) started" \
		sh -c "! grep -q 'placeholder role' '$QT_LOG'"
	check "bad parameters: the machine stays up despite benchboot.poweroff=1" \
		kill -0 "$QT_PID"
	check "no benchboot.debug=1: no shell or getty on the console" \
		sh -c "! grep -qE '^/ # |login:' '$QT_LOG'"
else
	not_ok "bad parameters: boot stops with BENCHBOOT-STOPPED"
	qt_tail
fi
tap_done
