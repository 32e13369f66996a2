# lib.sh: what every boot test shares: TAP output, the choice of
# accelerator, starting QEMU with its serial console in a log, waiting for
# a line in that log, and killing every QEMU (and helper) by PID on exit.
# Sourcing it only defines functions; a test.sh calls qt_init first.
#
# Environment (from `make test`): TOP, O, ARCH, IMAGES, BUSYBOX.
# QT_ACCEL=kvm|tcg forces an accelerator; by default KVM is used only when
# a short probe boot of the image under KVM reaches READY (a nested or
# broken /dev/kvm hangs the guest, and the probe then costs QT_PROBE_S,
# once: the answer is kept in $O/qemu-tests/accel).

# qt_init: what a boot test needs before its first case: the paths above
# (defaults for a test run by hand), the TAP functions, an empty QT_DIR
# ($O/qemu-tests/NAME, NAME the test's directory) for its logs, the traps
# that kill what it started on exit or Ctrl-C, and the accelerator
# (QT_ACCEL, QT_SLOW, QT_QEMU).  In a function, not at sourcing, so that
# sourcing the library (run.sh does, for the probe) removes nothing and
# traps nothing.  An architecture's lib.sh (ppc64le/, ppc/) defines its
# own qt_init around qt_init_base, to set its machine.
qt_init() { qt_init_base; }
qt_init_base() {
	TOP=${TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
	# qemu-tests/ARCH/NNN_name/test.sh is one level deeper.
	[ -f "$TOP/payload/tests/lib/tap.sh" ] || TOP=$(cd "$TOP/.." && pwd)
	O=${O:-$TOP/out}
	ARCH=${ARCH:-x86_64}
	IMAGES=${IMAGES:-$O/$ARCH/images}
	BUSYBOX=${BUSYBOX:-$O/$ARCH/busybox/busybox}
	. "$TOP/payload/tests/lib/tap.sh"

	QT_NAME=$(basename "$(dirname "$0")")
	case $QT_NAME in [0-9]*) ;; *) QT_NAME=adhoc ;; esac
	QT_DIR=$O/qemu-tests/$QT_NAME
	QT_PIDS=
	QT_PROBE_S=${QT_PROBE_S:-20}
	OVMF_CODE=/usr/share/OVMF/OVMF_CODE_4M.fd
	OVMF_VARS=/usr/share/OVMF/OVMF_VARS_4M.fd
	OVMF_SB_CODE=/usr/share/OVMF/OVMF_CODE_4M.ms.fd
	OVMF_SB_VARS=/usr/share/OVMF/OVMF_VARS_4M.ms.fd
	rm -rf "$QT_DIR"
	mkdir -p "$QT_DIR"
	trap qt_cleanup EXIT
	trap 'exit 130' INT TERM

	QT_ACCEL=$(qt_accel)
	# Software emulation is several times slower, and CI shares its cores.
	if [ "$QT_ACCEL" = kvm ]; then QT_SLOW=1; else QT_SLOW=4; fi
	diag "accelerator: $QT_ACCEL"
	# The QEMU program and machine qt_start runs (an architecture's
	# lib.sh sets its own before calling this).
	QT_QEMU=${QT_QEMU:-"qemu-system-x86_64 -accel $QT_ACCEL -m 512 -smp 1"}
}

# qt_shared_dir: sets QT_SHARED to an empty directory, removed on exit,
# for what a helper that drops root (the collector as nobody) must reach:
# QT_DIR is under the checkout, which may sit where other users cannot
# pass (/root, a mktemp -d directory).  Under the harness's TEST_TMP.
qt_shared_dir() {
	QT_SHARED=$(mktemp -d "${TEST_TMP:-/tmp}/qt-$QT_NAME.XXXXXX") &&
		chmod 755 "$QT_SHARED"
}

# qt_cleanup: kill what this test started (TERM, then KILL), by PID only;
# remove QT_SHARED.
qt_cleanup() {
	local p _lo
	for p in $QT_PIDS; do
		kill "$p" 2>/dev/null
	done
	for p in $QT_PIDS; do
		n=0
		while kill -0 "$p" 2>/dev/null && [ $n -lt 20 ]; do
			sleep 0.1
			n=$((n + 1))
		done
		kill -9 "$p" 2>/dev/null
	done
	QT_PIDS=
	[ -z "${QT_SHARED:-}" ] || rm -rf "$QT_SHARED"
}

# qt_need FILE...: stop with a clear message (and a failure) when an
# image or firmware file is missing.
qt_need() {
	local f
	for f in "$@"; do
		[ -e "$f" ] && continue
		not_ok "$f exists (run 'make images' and 'make deps' first)"
		tap_done
		exit 1
	done
}

# qt_accel: print kvm or tcg (decided once per output tree; needs O,
# IMAGES and the directory $O/qemu-tests).
qt_accel() {
	local cache=$O/qemu-tests/accel log pid t
	if [ -n "${QT_ACCEL:-}" ]; then
		echo "$QT_ACCEL"
		return
	fi
	# Whether KVM works is the host's property: probe once per $O, under a
	# lock, since tests booting side by side (the harness's parallel
	# ones) may ask at the same moment.
	mkdir -p "${cache%/*}"
	exec 9>"$cache.lock"
	flock 9
	if [ -s "$cache" ]; then
		cat "$cache"
		exec 9>&-
		return
	fi
	QT_ACCEL=tcg
	if [ -w /dev/kvm ]; then
		log=$O/qemu-tests/accel-probe.log
		qemu-system-x86_64 -accel kvm -m 512 -smp 1 -display none \
			-no-reboot -monitor none -serial "file:$log" -nic none \
			-kernel "$IMAGES/vmlinuz" -initrd "$IMAGES/initramfs.cpio.gz" \
			-append "console=ttyS0,115200 benchboot.poweroff=1" \
			>/dev/null 2>&1 &
		pid=$!
		t=0
		while [ $t -lt $((${QT_PROBE_S:-20} * 10)) ] &&
			kill -0 $pid 2>/dev/null; do
			grep -q BENCHBOOT-READY "$log" 2>/dev/null && {
				QT_ACCEL=kvm
				break
			}
			sleep 0.1
			t=$((t + 1))
		done
		kill $pid 2>/dev/null
		sleep 0.2
		kill -9 $pid 2>/dev/null
		wait $pid 2>/dev/null
	fi
	echo "$QT_ACCEL" >"$cache"
	exec 9>&-
	echo "$QT_ACCEL"
}
# qt_timeout SECONDS: SECONDS (as needed under KVM) scaled for the
# accelerator in use.
qt_timeout() { echo $(($1 * QT_SLOW)); }

# qt_start NAME QEMU-ARGS...: start one VM in the background; its serial
# console goes to $QT_DIR/NAME.log.  Sets QT_LOG, QT_PID and QT_T0 (start
# time in ms).  QT_WRAP (e.g. "ip netns exec NS") prefixes QEMU; it must
# exec QEMU, so that QT_PID is QEMU's.  QT_QEMU is the QEMU program and
# machine (qt_init).
qt_start() {
	local name=$1
	shift
	local serial
	QT_LOG=$QT_DIR/$name.log
	: >"$QT_LOG"
	QT_T0=$(date +%s%3N)
	# QT_SERIAL_SOCK: the console is also a socket the test can type into
	# (e.g. with socat), still logged to QT_LOG.
	serial="-serial file:$QT_LOG"
	[ -z "${QT_SERIAL_SOCK:-}" ] || serial="-chardev socket,id=ser0"\
",path=$QT_SERIAL_SOCK,server=on,wait=off,logfile=$QT_LOG"\
" -serial chardev:ser0"
	# shellcheck disable=SC2086
	${QT_WRAP:-} $QT_QEMU \
		-display none -no-reboot -monitor none $serial "$@" \
		>"$QT_DIR/$name.qemu.log" 2>&1 &
	QT_PID=$!
	QT_PIDS="$QT_PIDS $QT_PID"
	echo "$*" >"$QT_DIR/$name.cmd"
}

# qt_uefi NAME: the pflash options for OVMF, with a private copy of the
# variable store in $QT_DIR.
qt_uefi() {
	cp "$OVMF_VARS" "$QT_DIR/$1.vars.fd"
	echo "-drive if=pflash,format=raw,unit=0,readonly=on,file=$OVMF_CODE" \
		"-drive if=pflash,format=raw,unit=1,file=$QT_DIR/$1.vars.fd"
}

# qt_secureboot NAME: the machine and pflash options for OVMF with Secure
# Boot on and Microsoft's keys enrolled (Debian's ovmf: the .ms build and
# its variable store, a private copy in $QT_DIR), as a PC sold with
# Secure Boot on boots: SMM, and flash writable from SMM only.
qt_secureboot() {
	cp "$OVMF_SB_VARS" "$QT_DIR/$1.vars.fd"
	echo "-machine q35,smm=on" \
		"-global driver=cfi.pflash01,property=secure,value=on" \
		"-drive if=pflash,format=raw,unit=0,readonly=on,file=$OVMF_SB_CODE" \
		"-drive if=pflash,format=raw,unit=1,file=$QT_DIR/$1.vars.fd"
}

# qt_locked_down [LOG]: TAP cases on a Secure-Boot boot's console (LOG,
# default the current VM's): Secure Boot on, the kernel locked down, no
# module refused (a signature missing) and none tainting the kernel.
qt_locked_down() {
	local log=${1:-$QT_LOG}
	check "$QT_CASE: the kernel saw Secure Boot enabled" \
		grep -q 'secureboot: Secure boot enabled' "$log"
	check "$QT_CASE: the kernel locked itself down" \
		grep -q 'Kernel is locked down from EFI Secure Boot' "$log"
	check_eq "$QT_CASE: no module refused or tainting (kernel lines)" \
		"$(grep -aciE '^\[ *[0-9.]+\].*(rejected|taint|module verif)' \
		"$log")" 0
}

# qt_wait REGEX SECONDS: wait until the current VM's console log has a line
# matching REGEX (grep -E).  Fails when the time is up or QEMU exited
# first.  Sets QT_MS: milliseconds from qt_start to the match.
qt_wait() {
	local end=$(($(date +%s) + $2))
	while :; do
		if grep -qE "$1" "$QT_LOG" 2>/dev/null; then
			QT_MS=$(($(date +%s%3N) - QT_T0))
			return 0
		fi
		if ! kill -0 "$QT_PID" 2>/dev/null; then
			grep -qE "$1" "$QT_LOG" 2>/dev/null && {
				QT_MS=$(($(date +%s%3N) - QT_T0))
				return 0
			}
			diag "QEMU exited before '$1' appeared"
			return 1
		fi
		[ "$(date +%s)" -ge $end ] && {
			diag "no '$1' after $2 s"
			return 1
		}
		sleep 0.2
	done
}

# qt_exited SECONDS: wait until the current VM's QEMU exits by itself.
qt_exited() {
	local end=$(($(date +%s) + $1))
	while kill -0 "$QT_PID" 2>/dev/null; do
		[ "$(date +%s)" -ge $end ] && return 1
		sleep 0.2
	done
	return 0
}

# qt_stop: stop the current VM now.
qt_stop() {
	kill "$QT_PID" 2>/dev/null
	wait "$QT_PID" 2>/dev/null
	return 0
}

# qt_ready ROLE ID [SECONDS]: wait for "BENCHBOOT-READY role=ROLE id=ID"
# and report it as one TAP case with the time it took.
qt_ready() {
	local what="$QT_CASE: BENCHBOOT-READY role=$1 id=$2"
	if qt_wait "^BENCHBOOT-READY role=$1 id=$2 ip=" \
		"$(qt_timeout "${3:-30}")"; then
		ok "$what ($(qt_secs $QT_MS) s, $QT_ACCEL)"
		return 0
	fi
	not_ok "$what"
	qt_tail
	return 1
}

# qt_secs MS: milliseconds as seconds with one decimal.
qt_secs() { echo "$(($1 / 1000)).$(($1 % 1000 / 100))"; }

# qt_tail: the end of the current console log, as TAP diagnostics; it ends
# with a newline even when the console stopped mid-line (firmware and GRUB
# prompts), so the next TAP line stands.
qt_tail() { tail -n 15 "$QT_LOG" | sed -e 's/^/#   | /' -e '$a\'; }

# qt_ip: the address the READY line reported.
qt_ip() {
	grep -m1 '^BENCHBOOT-READY' "$QT_LOG" | sed 's/.* ip=//; s/ .*//' |
		tr -d '\r '
}

# qt_mac N: a fixed MAC per test VM, so its derived id is known.
qt_mac() { printf '52:54:00:bb:00:%02x' "$1"; }
# qt_macid N [ROLE]: the id /init derives from qt_mac N (ROLE-MAC).
qt_macid() { printf '%s-525400bb00%02x' "${2:-client}" "$1"; }

# qt_free_port: a TCP port free on 127.0.0.1.
qt_free_port() {
	local p _lo
	while :; do
		# Below the ephemeral range: a load test's client sockets hold
		# ports there, and a listener cannot bind one of those.
		_lo=$(cut -f1 /proc/sys/net/ipv4/ip_local_port_range 2>/dev/null)
		[ "${_lo:-0}" -gt 11000 ] 2>/dev/null || _lo=32768
		p=$((10000 + $(od -An -N2 -tu2 /dev/urandom) % (_lo - 10000)))
		ss -Htln "sport = :$p" | grep -q . || { echo "$p"; return; }
	done
}

# qt_part_offset IMAGE TYPE: byte offset of the first MBR partition of
# TYPE (hex, e.g. 0c) in IMAGE, for mtools' IMAGE@@OFFSET.
qt_part_offset() {
	local i t lba
	for i in 0 1 2 3; do
		t=$(od -An -tx1 -j $((446 + 16 * i + 4)) -N1 "$1" | tr -d ' ')
		[ "$t" = "$2" ] || continue
		lba=$(od -An -tu4 -j $((446 + 16 * i + 8)) -N4 "$1" | tr -d ' ')
		echo $((lba * 512))
		return 0
	done
	return 1
}

# qt_nic N [USER-NET-OPTIONS]: a virtio NIC with MAC N on QEMU's user
# network, without an option ROM (the firmware's own driver is enough, and
# the NIC is not tried as a boot device).
qt_nic() {
	echo "-netdev user,id=n$1${2:+,$2}" \
		"-device virtio-net-pci,netdev=n$1,mac=$(qt_mac "$1"),romfile="
}
