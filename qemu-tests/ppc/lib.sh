# ppc/lib.sh: the shared boot-test library (../lib.sh) on QEMU's mac99
# machine (a G4 "New World" Mac: OpenBIOS, the Zilog serial port, sungem).
# Sourced by qemu-tests/ppc/NNN_name/test.sh, which `make ARCH=ppc test`
# runs.  The first serial port (-serial, the log) is the Zilog's channel
# A: OpenBIOS's console and the kernel's ttyS0.
#
# PowerPC on an x86_64 host is software emulation only: no KVM probe.
QT_ACCEL=tcg
QT_QEMU="qemu-system-ppc -M mac99 -accel tcg -m 512"
. "$(dirname "$0")/../../lib.sh"
QT_KERNEL=$IMAGES/vmlinux
QT_CONSOLE=console=ttyS0
