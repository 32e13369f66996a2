#!/bin/sh
# reproducible-check.sh TOP DL_DIR ARCH WORK: build the commit TOP has
# checked out twice, from two clones at different paths into two output
# trees, one after the other, and compare every output byte for byte
# (docs/reproducible.md).  The downloads come from the shared DL_DIR.
# Prints each output's sha256 and each build's time; names every output
# that differs with the first differing byte (cmp) and exits 1.  WORK is
# removed when both builds agree (unless REPRO_KEEP=1: e.g. to boot
# them), kept for inspection otherwise.
set -eu
start=$(date +%s)

[ $# -eq 4 ] || { echo "usage: $0 TOP DL_DIR ARCH WORK" >&2; exit 2; }
top=$1 dl=$2 arch=$3 work=$4
rev=$(git -C "$top" rev-parse HEAD)
[ -z "$(git -C "$top" status --porcelain --untracked-files=no)" ] ||
	echo "note: $top has uncommitted changes; this checks $rev as committed"

# The outputs compared, relative to $(O)/$(ARCH).
outputs() {
	(cd "$1" && find bin/benchboot busybox/busybox images \
		\( -type f -o -type l \) | LC_ALL=C sort)
}

mkdir -p "$work"
# Different path lengths and names, so nothing that slips a path in can
# come out the same by luck.
set -- a "second-tree.$$"
for n in "$@"; do
	src=$work/src-$n out=$work/out-$n
	rm -rf "$src" "$out"
	git clone -q --shared --no-checkout "$top" "$src"
	git -C "$src" checkout -q --detach "$rev"
	echo "# build $n: $src, O=$out"
	t0=$(date +%s)
	# A clean environment: no date, no make variables from a parent make.
	if ! env -u SOURCE_DATE_EPOCH -u MAKEFLAGS -u MFLAGS -u MAKELEVEL \
		nice -n 10 make -C "$src" O="$out" DL_DIR="$dl" ARCH="$arch" \
		all >"$work/build-$n.log" 2>&1; then
		tail -n 20 "$work/build-$n.log" >&2
		echo "error: build $n failed, see $work/build-$n.log" >&2
		exit 1
	fi
	echo "# build $n: $(($(date +%s) - t0)) s"
done

a=$work/out-a/$arch b=$work/out-$2/$arch
outputs "$a" >"$work/list-a"
outputs "$b" >"$work/list-b"
rc=0
if ! cmp -s "$work/list-a" "$work/list-b"; then
	echo "DIFFER  the two builds made different files:"
	diff "$work/list-a" "$work/list-b" | sed -n 's/^[<>] /  /p'
	rc=1
fi
while read -r f; do
	[ -e "$b/$f" ] || continue
	if [ -L "$a/$f" ]; then
		[ "$(readlink "$a/$f")" = "$(readlink "$b/$f")" ] &&
			{ echo "SAME    $f -> $(readlink "$a/$f")"; continue; }
		echo "DIFFER  $f: links to $(readlink "$a/$f") and $(readlink "$b/$f")"
		rc=1
	elif d=$(cmp "$a/$f" "$b/$f" 2>&1); then
		# The netboot tree's GRUB modules are counted, not listed.
		case $f in images/netboot/grub/*) continue ;; esac
		echo "SAME    $(sha256sum <"$a/$f" | cut -c1-64)  $f"
	else
		echo "DIFFER  $f: ${d#"$a/$f" "$b/$f" }"
		rc=1
	fi
done <"$work/list-a"

if [ $rc = 0 ]; then
	echo "reproducible: $rev ($arch), $(wc -l <"$work/list-a") outputs" \
		"identical (GRUB's modules in images/netboot/grub too)"
	echo "image $(cat "$a/images/image-digest")"
	[ "${REPRO_KEEP:-0}" = 1 ] || rm -rf "$work"
else
	echo "NOT reproducible: $rev ($arch); both trees kept in $work" \
		"(diffoscope shows what differs)"
fi
echo "# reproducible-check: $(($(date +%s) - start)) s wall"
exit $rc
