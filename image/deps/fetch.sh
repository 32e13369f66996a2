#!/bin/sh
# fetch.sh source|binary NAME PKG VERSION DL_DIR [SHA256 FILE]...: make sure
# every file of a pinned Debian package is in the download cache with its
# pinned sha256.  Downloads only what is missing; never trusts a file whose
# sum differs.
set -eu

kind=$1 name=$2 pkg=$3 version=$4 dl=$5
shift 5
[ $# -gt 0 ] && [ $(($# % 2)) = 0 ] || {
	echo "error: $name: no sha256 pins in image/deps/$name.mk (run 'make pins')" >&2
	exit 1
}
mkdir -p "$dl"

missing=0
set -- "$@"
n=$#
i=0
while [ $i -lt $n ]; do
	eval "file=\${$((i + 2))}"
	[ -f "$dl/$file" ] || missing=1
	i=$((i + 2))
done

if [ $missing = 1 ]; then
	echo "  FETCH   $name ($pkg $version)"
	tmp=$(mktemp -d "$dl/.fetch.XXXXXX")
	trap 'rm -rf "$tmp"' EXIT
	if [ "$kind" = source ]; then
		cmd="apt-get source --download-only -qq $pkg=$version"
	else
		cmd="apt-get download -qq $pkg=$version"
	fi
	if ! (cd "$tmp" && $cmd) >"$tmp/log" 2>&1; then
		sed 's/^/  apt: /' "$tmp/log" >&2
		echo "error: $name: cannot download $pkg $version from the archive." >&2
		echo "error: Debian drops superseded versions; run 'make pins' to" >&2
		echo "error: re-pin every input to what the archive serves now." >&2
		exit 1
	fi
	rm -f "$tmp/log"
	for f in "$tmp"/*; do
		b=${f##*/}
		[ -f "$dl/$b" ] || mv "$f" "$dl/$b"
	done
fi

bad=0
while [ $# -gt 0 ]; do
	want=$1 file=$2
	shift 2
	if [ ! -f "$dl/$file" ]; then
		echo "error: $name: $dl/$file is pinned but $pkg $version has no such file" >&2
		bad=1
		continue
	fi
	got=$(sha256sum "$dl/$file" | cut -d' ' -f1)
	if [ "$got" != "$want" ]; then
		echo "error: $name: sha256 mismatch for $dl/$file" >&2
		echo "error:   pinned $want" >&2
		echo "error:   found  $got" >&2
		echo "error: delete the file to download it again, or run" >&2
		echo "error: 'make pins' if the archive really changed it." >&2
		bad=1
	fi
done
exit $bad
