#!/bin/sh
# 065_nic_missing: a machine whose network controllers the image cannot
# drive says so on its console before READY, once per controller, with
# its PCI vendor:device ID and what to add (initramfs nics.sh): QEMU's
# AMD PCnet (1022:2000) and NE2000 (10ec:8029) beside the virtio NIC that
# works.  010_direct checks that a machine with every driver says nothing.
# harness: parallel
. "$(dirname "$0")/../lib.sh"
qt_init
qt_need "$IMAGES/vmlinuz" "$IMAGES/initramfs.cpio.gz"

QT_CASE="NICs with no driver"
qt_start nicmiss -kernel "$IMAGES/vmlinuz" \
	-initrd "$IMAGES/initramfs.cpio.gz" \
	-append "console=ttyS0,115200 benchboot.role=controller benchboot.id=nic-1 benchboot.suite=nosuch-suite benchboot.poweroff=1" \
	-nic "user,model=virtio-net-pci,mac=$(qt_mac 1)" \
	-device pcnet -device ne2k_pci
if qt_ready controller nic-1 30; then
	# Table: the controller's ID, as the console names it.
	for id in 1022:2000 10ec:8029; do
		check_eq "$id: named once, with what to add" "$(grep -ac \
			"^BENCHBOOT-NIC no-driver pci=[0-9a-f:.]* id=$id: no driver in this image .*add its module to configs/modules-x86_64.list" \
			"$QT_LOG")" 1
	done
	check "the lines come before READY" awk '
		/^BENCHBOOT-NIC / { nic = NR }
		/^BENCHBOOT-READY / { ready = NR }
		END { exit !(nic && ready && nic < ready) }' "$QT_LOG"
	check_eq "the virtio NIC, which has its driver, is not named" \
		"$(grep -ac '^BENCHBOOT-NIC .*id=1af4:' "$QT_LOG")" 0
	check "the machine still gets its address on the NIC that works" \
		test "$(qt_ip)" = 10.0.2.15
fi
tap_done
