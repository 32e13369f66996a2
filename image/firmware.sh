#!/bin/sh
# firmware.sh DEST LOCK DL_DIR MISSING_OK: put in DEST/lib/firmware every
# firmware file a kernel module under DEST/lib/modules names (modinfo -F
# firmware), taken from the pinned Debian firmware packages of LOCK (in
# DL_DIR), and nothing else of them but their copyright files (their
# licences ask for the notice to go with the files: docs/drivers.md).
# A name no package ships stops the build, naming the driver and the file,
# unless MISSING_OK lists it ("driver file", '#' starts the reason):
# drivers list optional and older names no Debian package carries, and the
# list keeps those few deliberate so a real gap still fails.
set -eu

dest=$1 lock=$2 dl=$3 okfile=$4
tmp=$(mktemp -d "${TMPDIR:-/tmp}/bbfw.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# The packages, unpacked side by side (fetch.sh checked their sums).
n=0
while read -r pkg arch ver sum file; do
	case $pkg in '' | '#'*) continue ;; esac
	[ -f "$dl/$file" ] || {
		echo "error: firmware: $dl/$file is missing (make fetch-firmware)" >&2
		exit 1
	}
	got=$(sha256sum "$dl/$file" | cut -d' ' -f1)
	[ "$got" = "$sum" ] || {
		echo "error: firmware: $dl/$file does not match its pin in $lock" >&2
		exit 1
	}
	dpkg-deb -x "$dl/$file" "$tmp/root"
	mkdir -p "$dest/usr/share/doc/$pkg"
	cp "$tmp/root/usr/share/doc/$pkg/copyright" "$dest/usr/share/doc/$pkg/"
	n=$((n + 1))
done <"$lock"

# "driver file" pairs the list allows to be missing.
sed 's/#.*//' "$okfile" | awk 'NF == 2 {print $1, $2}' >"$tmp/ok"

mkdir -p "$dest/lib/firmware"
: >"$tmp/asked"
bad=0 files=0 allowed=0
for ko in $(find "$dest/lib/modules" -name '*.ko*' | LC_ALL=C sort); do
	drv=$(basename "$ko")
	drv=${drv%%.ko*}
	for fw in $(modinfo -F firmware "$ko"); do
		echo "$drv $fw" >>"$tmp/asked"
		src=$tmp/root/lib/firmware/$fw
		if [ -e "$src" ]; then
			# The file itself, not a link into files left out.
			mkdir -p "$dest/lib/firmware/${fw%/*}"
			cp -L "$src" "$dest/lib/firmware/$fw"
			files=$((files + 1))
		elif grep -qxF "$drv $fw" "$tmp/ok"; then
			allowed=$((allowed + 1))
		else
			echo "error: firmware: driver '$drv' asks for '$fw'," \
				"which no package of $lock ships: add the package" \
				"that does, or list '$drv $fw' with the reason in" \
				"$okfile" >&2
			bad=1
		fi
	done
done
[ $bad = 0 ] || exit 1
# An allowance nothing asks for any more is dropped from the list, so the
# list stays what the drivers really lack.
while read -r drv fw; do
	grep -qxF "$drv $fw" "$tmp/asked" || {
		echo "error: firmware: $okfile lists '$drv $fw', which no driver" \
			"of the image asks for: remove the line" >&2
		bad=1
	}
done <"$tmp/ok"
[ $bad = 0 ] || exit 1
echo "  FIRMWARE $files files from $n packages, $allowed allowed missing," \
	"$(du -sk "$dest/lib/firmware" | cut -f1) KiB"
