#!/bin/sh
# modules.sh ROOT KVER LIST DEST: copy the modules named in LIST (one a line,
# '#' comments) plus every module they depend on from the unpacked kernel
# package ROOT into DEST/lib/modules/KVER, then index DEST with depmod so
# BusyBox modprobe finds them by name and by modalias.
# MODULES_STRIP (empty: copy as they are) is the target's strip: each module
# then loses its symbols no relocation needs, its BTF type data and its
# signature -- except on a kernel that locks itself down under UEFI Secure
# Boot (CONFIG_LOCK_DOWN_IN_EFI_SECURE_BOOT, Debian's amd64): it refuses
# every module without Debian's signature, so a signed module is copied
# byte for byte (docs/secure-boot.md).  They stay uncompressed: the
# archive's compression takes them together (smaller than one by one with
# xz, and nothing for modprobe to unpack at boot; docs/drivers.md, "Size
# and boot time").
set -eu

root=$1 kver=$2 list=$3 dest=$4
src=$root/lib/modules/$kver
[ -d "$src" ] || { echo "error: modules.sh: no $src" >&2; exit 1; }
# The .deb ships no modules.dep: build one for the whole tree first.
[ -f "$src/modules.dep" ] || depmod -b "$root" "$kver"

out=$dest/lib/modules/$kver
rm -rf "$dest/lib/modules"
mkdir -p "$out"
paths=$dest/.modules.paths
: >"$paths"
n=0 bad=0
while IFS= read -r line; do
	n=$((n + 1))
	m=${line%%#*}
	m=$(echo "$m" | tr -d ' \t')
	[ -n "$m" ] || continue
	if ! deps=$(modprobe -d "$root" -S "$kver" --show-depends "$m" 2>&1); then
		echo "error: $list:$n: module '$m' is not in kernel $kver" >&2
		bad=1
		continue
	fi
	echo "$deps" | awk '$1 == "insmod" {print $2}' >>"$paths"
done <"$list"
[ $bad = 0 ] || exit 1

# Signed modules are kept whole where lockdown would refuse them stripped.
keep_signed=0
grep -qx 'CONFIG_LOCK_DOWN_IN_EFI_SECURE_BOOT=y' "$root/boot/config-$kver" \
	2>/dev/null && keep_signed=1
# signed FILE: FILE ends with the kernel's module signature marker.
signed() {
	[ "$(tail -c 28 "$1" | tr -d '\n')" = '~Module signature appended~' ]
}
sort -u "$paths" | while read -r p; do
	rel=${p#"$src"/}
	mkdir -p "$out/${rel%/*}"
	if [ $keep_signed = 1 ] && signed "$p"; then
		cp "$p" "$out/$rel"
	elif [ -n "${MODULES_STRIP:-}" ]; then
		# The kernel's own signature is lost with any edit; the kernel
		# does not require one (MODULE_SIG_FORCE unset) and only
		# taints itself.  Gone too: the BTF types (for BPF tools) and
		# the ORC unwind tables (an oops in a module shows a guessed
		# call trace).
		$MODULES_STRIP --strip-unneeded -R .BTF -R .comment \
			-R .orc_unwind -R .orc_unwind_ip -R .rela.orc_unwind_ip \
			-o "$out/$rel" "$p"
	else
		cp "$p" "$out/$rel"
	fi
done
rm -f "$paths"
for f in modules.builtin modules.builtin.modinfo; do
	[ -f "$src/$f" ] && cp "$src/$f" "$out/"
done
# modules.order (depmod's order for equal aliases), cut to what is here.
if [ -f "$src/modules.order" ]; then
	(cd "$out" && find kernel -name '*.ko*' | sed 's/\.xz$//') |
		grep -Fxf - "$src/modules.order" >"$out/modules.order" || true
fi
depmod -b "$dest" "$kver"
# BusyBox's modprobe reads the text indexes only; the binary ones are kmod's.
[ -z "${MODULES_STRIP:-}" ] ||
	rm -f "$out"/modules.*.bin "$out/modules.builtin.modinfo"
nsig=0
for f in $(find "$out" -name '*.ko'); do signed "$f" && nsig=$((nsig + 1)); done
echo "  MODULES $(find "$out" -name '*.ko*' | wc -l) modules ($nsig signed)," \
	"$(du -sk "$out" | cut -f1) KiB"
