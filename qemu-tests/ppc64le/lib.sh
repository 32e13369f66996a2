# ppc64le/lib.sh: the shared boot-test library (../lib.sh) on QEMU's pseries
# machine (SLOF firmware, PowerVM's virtual devices).  Sourced by
# qemu-tests/ppc64le/NNN_name/test.sh, which `make ARCH=ppc64le test` runs,
# and which calls qt_init first (and by qemu-tests/ppc64le/long/NNN_name/
# for `make ARCH=ppc64le test-long`).  Sourcing it only defines functions.
case $0 in
*/long/*) . "$(dirname "$0")/../../../lib.sh" ;;
*) . "$(dirname "$0")/../../lib.sh" ;;
esac

# qt_init: ../lib.sh's, on pseries: POWER on an x86_64 host is software
# emulation only (no KVM probe); the kernel is the ELF vmlinux (QT_KERNEL)
# and the console hvc0 (QT_CONSOLE).
qt_init() {
	QT_ACCEL=tcg
	qt_init_base
	QT_KERNEL=$IMAGES/vmlinux
	QT_CONSOLE=console=hvc0
}

# qt_start NAME QEMU-ARGS...: as ../lib.sh's, on qemu-system-ppc64
# -M pseries; the serial console (SLOF's and the kernel's hvc0) goes to
# $QT_DIR/NAME.log.  With QT_CONSOLE_SOCK set, the console is also that
# socket, for qt_type (QEMU logs it whether or not anyone is connected).
qt_start() {
	local name=$1 serial
	shift
	QT_LOG=$QT_DIR/$name.log
	: >"$QT_LOG"
	QT_T0=$(date +%s%3N)
	serial="-serial file:$QT_LOG"
	[ -n "${QT_CONSOLE_SOCK:-}" ] && serial="-chardev socket,id=con,\
path=$QT_CONSOLE_SOCK,server=on,wait=off,logfile=$QT_LOG -serial chardev:con"
	# shellcheck disable=SC2086
	${QT_WRAP:-} qemu-system-ppc64 -M pseries -accel tcg -m 1024 -smp 1 \
		-display none -vga none -no-reboot -monitor none \
		$serial "$@" >"$QT_DIR/$name.qemu.log" 2>&1 &
	QT_PID=$!
	QT_PIDS="$QT_PIDS $QT_PID"
	echo "$*" >"$QT_DIR/$name.cmd"
}

# qt_tail: as ../lib.sh's, but ends with a newline even when the console
# stopped mid-line (SLOF and GRUB prompts), so the next TAP line stands.
qt_tail() { tail -n 15 "$QT_LOG" | sed -e 's/^/#   | /' -e '$a\'; }

# qt_type TEXT: type TEXT (printf %b escapes: '\033[B' is the down arrow)
# into the console of the VM started with QT_CONSOLE_SOCK: on pseries
# GRUB and SLOF read their keys from there, not from a keyboard.
qt_type() {
	printf '%b' "$1" | socat -t 1 - "UNIX-CONNECT:$QT_CONSOLE_SOCK" \
		>/dev/null 2>&1
}
