#!/bin/sh
# boot-time.sh DIR [N]: boot DIR/vmlinuz + DIR/initramfs.cpio.gz N times
# (default 5) under software emulation (TCG) with qemu-tests/010_direct's
# command, and print the seconds from QEMU's start to BENCHBOOT-READY for
# each boot, their median and the load average before the first.  The
# figures in docs/drivers.md ("Size and boot time") come from it.
set -eu

dir=${1:?usage: boot-time.sh DIR [N]} n=${2:-5}
for f in "$dir/vmlinuz" "$dir/initramfs.cpio.gz"; do
	[ -f "$f" ] || { echo "error: boot-time.sh: no $f" >&2; exit 1; }
done
case $n in '' | *[!0-9]*) echo "error: boot-time.sh: N '$n' is not a" \
	"number" >&2; exit 1 ;; esac
tmp=$(mktemp -d)
pid=
trap '[ -z "$pid" ] || kill "$pid" 2>/dev/null; rm -rf "$tmp"' EXIT
echo "# $dir: $(stat -c %s "$dir/vmlinuz") + $(stat -c %s \
	"$dir/initramfs.cpio.gz") bytes; loadavg $(cut -d' ' -f1-3 /proc/loadavg)"
i=0
while [ $i -lt "$n" ]; do
	i=$((i + 1))
	log=$tmp/boot$i.log
	: >"$log"
	t0=$(date +%s%3N)
	qemu-system-x86_64 -accel tcg -m 512 -smp 1 -display none -no-reboot \
		-monitor none -serial "file:$log" \
		-kernel "$dir/vmlinuz" -initrd "$dir/initramfs.cpio.gz" \
		-append "console=tty0 console=ttyS0,115200 benchboot.role=controller benchboot.id=direct-1 benchboot.suite=nosuch-suite benchboot.poweroff=1" \
		-nic "user,model=virtio-net-pci,mac=52:54:00:12:34:01" \
		>"$tmp/qemu$i.log" 2>&1 &
	pid=$!
	# Bounded: 240 s is 8x the boot test's software-emulation timeout.
	end=$((t0 + 240000)) ms=
	while kill -0 "$pid" 2>/dev/null && [ "$(date +%s%3N)" -lt $end ]; do
		if grep -q '^BENCHBOOT-READY' "$log"; then
			ms=$(($(date +%s%3N) - t0))
			break
		fi
		sleep 0.1
	done
	kill "$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || true
	pid=
	[ -n "$ms" ] || { echo "error: boot $i: no BENCHBOOT-READY" \
		"(see the console log below)" >&2; tail -n 20 "$log" >&2; exit 1; }
	echo "$ms" >>"$tmp/times"
	echo "boot $i: $(echo "$ms" | awk '{printf "%.1f", $1 / 1000}') s"
done
sort -n "$tmp/times" | awk '{t[NR] = $1} END {m = NR % 2 ? t[(NR + 1) / 2] :
	(t[NR / 2] + t[NR / 2 + 1]) / 2; printf "median of %d: %.1f s\n", NR,
	m / 1000}'
