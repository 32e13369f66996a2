#!/bin/sh
# 016_firmware.sh: the image's NIC firmware step (image/firmware.sh) on the
# pinned kernel's own modules and the pinned Debian firmware packages:
# every file a driver names goes in and nothing else; a file no package
# ships stops the build naming the driver and the file, unless
# configs/firmware-ARCH.missing-ok allows it; a stale allowance and a
# package whose sum differs stop it too; and the built image carries
# exactly the files its modules name.
# harness: parallel
set -u
. "$TOP/payload/tests/lib/tap.sh"
cd "$TOP"

LOCK=configs/firmware-$ARCH.lock
DL=${DL_DIR:-$TOP/dl}
KROOT=$OUT/build/linux
if [ ! -f "$LOCK" ]; then
	skip "$ARCH carries no firmware (no $LOCK)"
	tap_done
	exit 0
fi
kver=$(ls "$KROOT/lib/modules" 2>/dev/null | head -n 1)
if [ -z "$kver" ] || ! make --no-print-directory -s O="$O" ARCH="$ARCH" \
	fetch-firmware >/dev/null 2>&1; then
	not_ok "the unpacked kernel and the firmware packages (make images)"
	tap_done
	exit 1
fi
tmp=$(mktemp -d "$O/test-run/firmware.XXXXXX" 2>/dev/null ||
	mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# stage NAME: a fresh stage holding the kernel's own r8169, tg3, bnx2,
# bnx2x, ice and e1000e (which names no firmware).
stage() {
	local d=$tmp/$1/lib/modules/$kver m
	rm -rf "${tmp:?}/$1"
	mkdir -p "$d"
	for m in r8169 tg3 bnx2 bnx2x ice e1000e; do
		cp "$(find "$KROOT/lib/modules/$kver" -name "$m.ko*" | head -n 1)" "$d/"
	done
	echo "$tmp/$1"
}
# asked DIR: every firmware name DIR's modules give, sorted, once.
asked() {
	find "$1/lib/modules" -name '*.ko*' -exec modinfo -F firmware {} \; |
		LC_ALL=C sort -u
}
: >"$tmp/ok-empty"
grep -v '^firmware-realtek ' "$LOCK" >"$tmp/lock-no-realtek"

s=$(stage all)
out=$(image/firmware.sh "$s" "$LOCK" "$DL" "$tmp/ok-empty" 2>&1)
check_eq "every package pinned: exit status" "$?" 0
asked "$s" >"$tmp/asked"
(cd "$s/lib/firmware" && find . -type f -o -type l | sed 's|^\./||' |
	LC_ALL=C sort) >"$tmp/got"
check "every file a driver names is in lib/firmware, and nothing else" \
	cmp -s "$tmp/asked" "$tmp/got"
check_eq "no link among them (the file itself)" \
	"$(find "$s/lib/firmware" -type l | wc -l)" 0
check_eq "r8169, tg3, bnx2, bnx2x, ice: 36 files" "$(wc -l <"$tmp/got")" 36
check "the packages' copyright notices go with them" \
	test -s "$s/usr/share/doc/firmware-realtek/copyright"

s=$(stage norealtek)
out=$(image/firmware.sh "$s" "$tmp/lock-no-realtek" "$DL" "$tmp/ok-empty" 2>&1)
check "a file no package ships: the build fails" [ $? != 0 ]
if echo "$out" | grep -q "error: firmware: driver 'r8169' asks for 'rtl_nic/rtl8168d-1.fw'"
then
	ok "the error names the driver and the file"
else
	not_ok "the error names the driver and the file"
	diag "$out"
fi

asked "$(stage r8169only)" | grep '^rtl_nic/' |
	sed 's|^|r8169 |; s|$|	# test: allowed|' >"$tmp/ok-r8169"
s=$(stage allowed)
out=$(image/firmware.sh "$s" "$tmp/lock-no-realtek" "$DL" "$tmp/ok-r8169" 2>&1)
check_eq "allowed in missing-ok: exit status" "$?" 0
check "allowed in missing-ok: counted as such" \
	sh -c "echo \"\$1\" | grep -q '16 files from 3 packages, 20 allowed missing'" \
	- "$out"

echo "e1000e nosuch/fw.bin	# no driver asks for it" >"$tmp/ok-stale"
s=$(stage stale)
out=$(image/firmware.sh "$s" "$LOCK" "$DL" "$tmp/ok-stale" 2>&1)
check "an allowance no driver needs: the build fails" [ $? != 0 ]
check "... naming the line" \
	sh -c "echo \"\$1\" | grep -q \"lists 'e1000e nosuch/fw.bin', which no driver\"" \
	- "$out"

awk '!/^#/ && !done { $4 = "0000" substr($4, 5); done = 1 } 1' "$LOCK" \
	>"$tmp/lock-badsum"
s=$(stage badsum)
out=$(image/firmware.sh "$s" "$tmp/lock-badsum" "$DL" "$tmp/ok-empty" 2>&1)
check "a package whose sum differs from its pin: the build fails" [ $? != 0 ]
check "... naming the package" \
	sh -c "echo \"\$1\" | grep -q 'does not match its pin'" - "$out"

# The built image: its lib/firmware is exactly what its modules name.
if [ -f "$IMAGES/initramfs.cpio.gz" ]; then
	mkdir "$tmp/image"
	(cd "$tmp/image" && { zstd -dc "$IMAGES/initramfs.cpio.gz" 2>/dev/null ||
		gzip -dc "$IMAGES/initramfs.cpio.gz" 2>/dev/null; } |
		cpio -id --quiet 2>/dev/null)
	asked "$tmp/image" >"$tmp/image-asked"
	(cd "$tmp/image/lib/firmware" && find . -type f | sed 's|^\./||' |
		LC_ALL=C sort) >"$tmp/image-got"
	check "the image's lib/firmware: every file its modules name, nothing else" \
		cmp -s "$tmp/image-asked" "$tmp/image-got"
else
	skip "no built image ($IMAGES/initramfs.cpio.gz)"
fi
tap_done
