#!/bin/sh
# modules.sh ROOT KVER LIST DEST: copy the modules named in LIST (one a line,
# '#' comments) plus every module they depend on from the unpacked kernel
# package ROOT into DEST/lib/modules/KVER, then index DEST with depmod so
# BusyBox modprobe finds them by name and by modalias.
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

sort -u "$paths" | while read -r p; do
	rel=${p#"$src"/}
	mkdir -p "$out/${rel%/*}"
	cp "$p" "$out/$rel"
done
rm -f "$paths"
for f in modules.order modules.builtin modules.builtin.modinfo; do
	[ -f "$src/$f" ] && cp "$src/$f" "$out/"
done
depmod -b "$dest" "$kver"
echo "  MODULES $(find "$out" -name '*.ko' | wc -l) modules," \
	"$(du -sk "$out" | cut -f1) KiB"
