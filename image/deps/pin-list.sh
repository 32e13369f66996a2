#!/bin/sh
# pin-list.sh NAME PACKAGES FILES LOCK DL_DIR ARCH: pin a set of Debian
# binary packages as one input (the server stack).  PACKAGES lists the
# top-level packages; FILES the paths (globs) the image takes from them.
# The lock gets those packages plus exactly the packages that provide a
# library in the ELF closure of those paths (found from DT_NEEDED with
# elf-closure.sh, following each package's Depends one level at a time), so
# nothing is pinned that the image does not carry.  Each package is
# downloaded by apt (which checks it against the archive's signed index)
# and pinned by version and sha256; LOCK is rewritten and the change
# printed as a diff.  Lines: "package arch version sha256 filename".
set -eu

name=$1 pkgs=$2 files=$3 lock=$4 dl=$5 arch=$6
here=$(cd "$(dirname "$0")" && pwd)
pkgs=$(realpath "$pkgs") files=$(realpath "$files")
mkdir -p "$dl"
tmp=$(mktemp -d "$dl/.pin.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/deb" "$tmp/root" "$tmp/probe"

# list FILE: the non-comment words of FILE.
list() { sed 's/#.*//' "$1" | tr -s ' \t' '\n\n' | sed '/^$/d'; }

# fetch PKG: download PKG's candidate version into $tmp/deb (once); prints
# the .deb's path.
fetch() {
	local f
	f=$(ls "$tmp/deb/${1}_"*.deb 2>/dev/null | head -n 1)
	if [ -z "$f" ]; then
		(cd "$tmp/deb" && apt-get download -qq "$1:$arch") \
			>"$tmp/log" 2>&1 || {
			sed 's/^/  apt: /' "$tmp/log" >&2
			echo "error: $name: cannot download $1:$arch" >&2
			return 1
		}
		f=$(ls "$tmp/deb/${1}_"*.deb | head -n 1)
	fi
	echo "$f"
}

# depends PKG: PKG's direct Depends/Pre-Depends (every alternative),
# without architecture qualifiers or virtual packages.
depends() {
	apt-cache depends --no-recommends --no-suggests --no-conflicts \
		--no-breaks --no-replaces --no-enhances "$1:$arch" 2>/dev/null |
		awk '/^ *\|?(Pre)?Depends:/ && $2 !~ /^</ {print $2}' |
		sed 's/:.*//' | sort -u
}

# roots: the ELF closure's starting points, the FILES globs expanded
# inside the unpacked tree.
roots() {
	(cd "$tmp/root" && for g in $(list "$files"); do
		for p in $g; do
			[ -e "$p" ] || continue
			if [ -d "$p" ]; then find "$p" -type f; else echo "$p"; fi
		done
	done)
}

: >"$tmp/chosen"
for p in $(list "$pkgs"); do
	deb=$(fetch "$p")
	dpkg-deb -x "$deb" "$tmp/root"
	echo "$p" >>"$tmp/chosen"
done

# Grow the set until every soname resolves: a package needing libX
# depends (through its shlibs) directly on the package shipping libX.
tried=" "
while :; do
	# shellcheck disable=SC2046
	"$here/elf-closure.sh" "$tmp/root" $(roots) >"$tmp/closure"
	missing=$(awk '$1 == "missing" {print $2}' "$tmp/closure")
	[ -n "$missing" ] || break
	found=0
	for p in $(cat "$tmp/chosen"); do
		for d in $(depends "$p"); do
			case $tried in *" $d "*) continue ;; esac
			grep -qxF "$d" "$tmp/chosen" && continue
			tried="$tried$d "
			deb=$(fetch "$d") || continue
			rm -rf "$tmp/probe" && mkdir -p "$tmp/probe"
			dpkg-deb -x "$deb" "$tmp/probe"
			for so in $missing; do
				if [ -n "$(find "$tmp/probe" -name "$so" | head -n 1)" ]
				then
					dpkg-deb -x "$deb" "$tmp/root"
					echo "$d" >>"$tmp/chosen"
					found=1
					break
				fi
			done
		done
	done
	if [ $found = 0 ]; then
		echo "error: $name: no dependency provides:" >&2
		awk '$1 == "missing" {print "error:   " $2 " (needed by " $3 ")"}' \
			"$tmp/closure" >&2
		exit 1
	fi
done

new=$tmp/lock
{
	echo "# $lock: written by 'make pins' (image/deps/pin-list.sh) on"
	echo "# $(date -u +%F) from the archive apt uses; apt verified each .deb"
	echo "# against the archive's signed index, then pin-list.sh took the"
	echo "# sha256.  package arch version sha256 filename"
	sort -u "$tmp/chosen" | while read -r p; do
		deb=$(fetch "$p")
		f=${deb##*/}
		v=$(dpkg-deb -f "$deb" Version)
		a=$(dpkg-deb -f "$deb" Architecture)
		echo "$p $a $v $(sha256sum "$deb" | cut -d' ' -f1) $f"
		[ -f "$dl/$f" ] || cp "$deb" "$dl/$f"
	done
} >"$new"
if [ -f "$lock" ] && cmp -s "$lock" "$new"; then
	echo "pins: $name: $(grep -vc '^#' "$new") packages (unchanged)"
elif [ -f "$lock" ] && diff -u -I '^#' "$lock" "$new" >/dev/null; then
	echo "pins: $name: $(grep -vc '^#' "$new") packages (unchanged)"
else
	diff -u "$lock" "$new" 2>/dev/null || true
	mkdir -p "$(dirname "$lock")"
	cat "$new" >"$lock"
fi
