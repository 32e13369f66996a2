#!/bin/sh
# pin.sh NAME RECIPE DL_DIR source PKG
# pin.sh NAME RECIPE DL_DIR binary PKG ARCH [METAPKG]
# Re-pin one input to the newest version the archive really serves: the
# files are downloaded into DL_DIR (apt checks them against the signed
# index), their sha256 taken, and RECIPE's pin block rewritten.  With
# METAPKG the binary package name follows METAPKG's first dependency (the
# kernel ABI moves with it).  Prints the change as a diff.
# A binary pin is per architecture: RECIPE may hold one block per ARCH
# ("# pin begin ARCH: ..."), and only ARCH's block is rewritten.
set -eu

name=$1 recipe=$2 dl=$3 kind=$4 pkg=$5
arch=${6:-} meta=${7:-}
mkdir -p "$dl"
tmp=$(mktemp -d "$dl/.pin.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

if [ "$kind" = binary ] && [ -n "$meta" ]; then
	pkg=$(apt-cache depends "$meta:$arch" 2>/dev/null |
		awk '/Depends:/ {print $2; exit}' | sed 's/:.*//')
	[ -n "$pkg" ] || { echo "error: $name: cannot resolve $meta:$arch" >&2; exit 1; }
fi

if [ "$kind" = source ]; then
	versions=$(apt-cache showsrc "$pkg" | awk -v p="$pkg" \
		'/^Package:/ {ok = ($2 == p)} ok && /^Version:/ {print $2}')
else
	versions=$(apt-cache madison "$pkg:$arch" 2>/dev/null | awk '{print $3}')
	[ -n "$versions" ] || versions=$(apt-cache madison "$pkg" | awk '{print $3}')
fi
# Newest first (sort -V orders Debian versions without '~' correctly);
# the archive may list a version it no longer serves.
sorted=$(printf '%s\n' $versions | sort -V -r -u)

got=
for v in $sorted; do
	rm -rf "${tmp:?}"/*
	if [ "$kind" = source ]; then
		cmd="apt-get source --download-only -qq $pkg=$v"
	else
		cmd="apt-get download -qq $pkg:$arch=$v"
	fi
	if (cd "$tmp" && $cmd) >/dev/null 2>&1; then
		got=$v
		break
	fi
	echo "pins: $name: $pkg $v is listed but not served, trying older" >&2
done
[ -n "$got" ] || { echo "error: $name: no version of $pkg downloads" >&2; exit 1; }

tag=
[ "$kind" = binary ] && tag=" $arch"
block=$tmp.block
{
	echo "# pin begin$tag: written by 'make pins' on $(date -u +%F) from the"
	echo "# archive apt uses; apt verified each file against the archive's"
	echo "# signed index, then pin.sh took the sha256 sums below."
	[ "$kind" = binary ] && echo "${name}_DEB := $pkg"
	echo "${name}_VERSION := $got"
	echo "${name}_SHA256 := \\"
	ls "$tmp" | LC_ALL=C sort | while read -r f; do
		echo "	$(sha256sum "$tmp/$f" | cut -d' ' -f1) $f \\"
	done | sed '$ s/ \\$//'
	echo "# pin end"
} >"$block"
for f in "$tmp"/*; do
	[ -f "$dl/${f##*/}" ] || mv "$f" "$dl/"
done

new=$tmp.recipe
awk -v blk="$block" -v begin="# pin begin$tag:" '
	index($0, begin) == 1 {
		while ((getline l < blk) > 0) print l; skip = 1; next }
	skip && /^# pin end/ { skip = 0; next }
	!skip { print }' "$recipe" >"$new"
if ! grep -qF "# pin begin$tag:" "$recipe"; then
	echo "error: $name: $recipe has no '# pin begin$tag:' block" >&2
	exit 1
fi
if cmp -s "$recipe" "$new"; then
	echo "pins: $name: $pkg $got (unchanged)"
else
	diff -u "$recipe" "$new" || true
	cat "$new" >"$recipe"
fi
rm -f "$block" "$new"
