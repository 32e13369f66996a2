#!/bin/sh
# 010_direct: QEMU boots vmlinuz + initramfs directly; DHCP gives the
# address, the role and id come from the kernel command line, the role
# (agent, or the placeholder before there was one) gets the configuration,
# and benchboot.poweroff=1 powers off when it ends (a controller given a
# suite that does not exist ends at once).
# harness: parallel
. "$(dirname "$0")/../lib.sh"
qt_init
qt_need "$IMAGES/vmlinuz" "$IMAGES/initramfs.cpio.gz"

QT_CASE="direct boot"
qt_start direct -kernel "$IMAGES/vmlinuz" \
	-initrd "$IMAGES/initramfs.cpio.gz" \
	-append "console=tty0 console=ttyS0,115200 benchboot.role=controller benchboot.id=direct-1 benchboot.suite=nosuch-suite benchboot.poweroff=1" \
	-nic "user,model=virtio-net-pci,mac=$(qt_mac 1)"
if qt_ready controller direct-1 30; then
	check_eq "direct boot: DHCP address from QEMU's user network" \
		"$(qt_ip)" 10.0.2.15
	check_eq "direct boot: every NIC has its driver: no BENCHBOOT-NIC line" \
		"$(grep -ac '^BENCHBOOT-NIC ' "$QT_LOG")" 0
	check "direct boot: the role got the parsed configuration" \
		qt_wait "(placeholder role.* role=controller id=direct-1 .*suite=nosuch-suite|^benchboot agent: .*nosuch-suite)" 10
	check "direct boot: the role ended and /init powers off" \
		qt_wait "role controller finished \(status [0-9]+\); powering off" 10
	check "direct boot: benchboot.poweroff=1 powers off when the role ends" \
		qt_exited "$(qt_timeout 15)"
	check "direct boot: the power-off was clean (init ran its shutdown)" \
		grep -q 'reboot: Power down' "$QT_LOG"
	# Modules loaded: the address is virtio_net's, a module of
	# Debian's kernel.  Each kept Debian's signature (an unsigned one
	# taints the kernel: "module verification failed"), and none was
	# first handed to finit_module compressed, which this kernel
	# refuses aloud (image/patches/busybox/0001-*).
	check "direct boot: virtio_net (a module) brought the address up" \
		grep -aq '^BENCHBOOT-READY .* ip=10\.0\.2\.15 ' "$QT_LOG"
	check "direct boot: modules load signed, without 'Invalid ELF header magic'" \
		sh -c "! grep -aqE 'module verification failed|Invalid ELF header magic|unsigned module' '$QT_LOG'"
fi
tap_done
