# ppc/lib.sh: the shared boot-test library (../lib.sh) on QEMU's mac99
# machine (a G4 "New World" Mac: OpenBIOS, the Zilog serial port, sungem).
# Sourced by qemu-tests/ppc/NNN_name/test.sh, which `make ARCH=ppc test`
# runs.  The first serial port (-serial, the log) is the Zilog's channel
# A: OpenBIOS's console and the kernel's ttyS0.  A test.sh calls qt_init
# first; sourcing this only defines functions.
. "$(dirname "$0")/../../lib.sh"

# qt_init: ../lib.sh's, on mac99: PowerPC on an x86_64 host is software
# emulation only (no KVM probe); the kernel is the ELF vmlinux (QT_KERNEL)
# and the console ttyS0 (QT_CONSOLE).
qt_init() {
	QT_ACCEL=tcg
	QT_QEMU="qemu-system-ppc -M mac99 -accel tcg -m 512"
	qt_init_base
	QT_KERNEL=$IMAGES/vmlinux
	QT_CONSOLE=console=ttyS0
}
