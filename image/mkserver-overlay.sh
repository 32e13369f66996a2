#!/bin/sh
# mkserver-overlay.sh STAGE OUT LOCK FILES CONFDIR DL_DIR: assemble the
# server role's overlay archive.  Unpacks every package of LOCK (already
# fetched and checked into DL_DIR), takes the paths FILES names plus their
# shared-library closure (elf-closure.sh: DT_NEEDED of the unpacked
# packages, not the host's), adds the configuration from CONFDIR and the
# start scripts, and writes OUT (newc cpio, gzip) for the boot loader to
# load after the base initramfs.  Needs no root.
set -eu
# The same modes whatever the caller's umask (docs/reproducible.md).
umask 022

stage=$1 out=$2 lock=$3 files=$4 conf=$5 dl=$6
top=$(cd "$(dirname "$0")/.." && pwd)
epoch=${SOURCE_DATE_EPOCH:-$(git -C "$top" log -1 --format=%ct 2>/dev/null || echo 0)}
# A private work directory: several makes may build the overlay at once
# in a shared output tree.  STAGE keeps the last result for inspection.
mkdir -p "$(dirname "$stage")"
work=$(mktemp -d "$stage.XXXXXX")
trap 'rm -rf "$work"' EXIT
pkgs=$work/pkgs
root=$work/root
mkdir -p "$pkgs" "$root"
grep -v '^#' "$lock" | while read -r pkg arch ver sum file; do
	[ -n "$file" ] || continue
	dpkg-deb -x "$dl/$file" "$pkgs" || {
		echo "error: server overlay: cannot unpack $dl/$file ($pkg)" >&2
		exit 1
	}
done

# The listed paths (globs), directories whole.
list=$(sed 's/#.*//' "$files" | tr -s ' \t' '\n\n' | sed '/^$/d')
paths=$(cd "$pkgs" && for g in $list; do
	n=0
	for p in $g; do
		[ -e "$p" ] || [ -L "$p" ] || continue
		n=1
		if [ -d "$p" ] && [ ! -L "$p" ]; then
			find "$p" ! -type d
		else
			echo "$p"
		fi
	done
	[ $n = 1 ] || echo "MISSING $g"
done)
missing=$(echo "$paths" | sed -n 's/^MISSING //p')
if [ -n "$missing" ]; then
	for g in $missing; do
		echo "error: server overlay: $files: '$g' is in no package of" \
			"$lock" >&2
	done
	exit 1
fi
[ -n "$paths" ] || { echo "error: server overlay: nothing to copy" >&2; exit 1; }

# shellcheck disable=SC2086
"$top/image/deps/elf-closure.sh" "$pkgs" $paths >"$work/closure"
if grep -q '^missing ' "$work/closure"; then
	echo "error: server overlay: libraries no locked package provides:" >&2
	awk '$1 == "missing" {print "error:   " $2 " (needed by " $3 ")"}' \
		"$work/closure" >&2
	echo "error: run 'make pins' to re-resolve $lock" >&2
	exit 1
fi
libs=$(awk '$1 == "lib" {print $2}' "$work/closure")
# cp --parents keeps the directory layout and symlinks as symlinks.
(cd "$pkgs" && printf '%s\n' $paths $libs | sort -u |
	xargs cp -a --parents -t "$root")

# Configuration, content and scripts.
install -D -m 0644 "$conf/apache2.conf" "$root/etc/apache2/apache2.conf"
install -D -m 0755 "$conf/hello.cgi" "$root/usr/lib/cgi-bin/hello"
install -D -m 0644 "$conf/my.cnf" "$root/etc/mysql/my.cnf"
install -D -m 0644 "$conf/postfix-main.cf" "$root/etc/postfix/main.cf"
install -D -m 0644 "$conf/postfix-master.cf" "$root/etc/postfix/master.cf"
install -D -m 0755 "$conf/server-start" "$root/usr/lib/benchboot/server-start"
install -D -m 0755 "$conf/server-relay" "$root/usr/lib/benchboot/server-relay"
install -D -m 0755 "$conf/server-reset" "$root/usr/lib/benchboot/server-reset"
for f in passwd group bench.sql; do
	install -D -m 0644 "$conf/$f" "$root/usr/lib/benchboot/server/$f"
done
install -D -m 0644 "$lock" "$root/usr/lib/benchboot/server/packages.lock"
# postdrop and postqueue are setgid postdrop in Debian; nothing here runs
# them as another user, so they stay plain.
mkdir -p "$root/srv" "$root/var/lib" "$root/etc/postfix"

find "$root" -exec touch -h -d "@$epoch" {} +
mkdir -p "$(dirname "$out")"
(cd "$root" && find . ! -name . | LC_ALL=C sort |
	cpio --quiet -o -H newc -R 0:0 --reproducible) | gzip -9 -n >"$work/out"
echo "  SIZE    $(basename "$out") $(($(stat -c %s "$work/out") / 1024)) KiB" \
	"compressed, $(du -sk --apparent-size "$root" | cut -f1) KiB unpacked"
rm -rf "$stage.old"
[ -d "$stage" ] && mv "$stage" "$stage.old"
mv "$root" "$stage"
rm -rf "$stage.old"
mv "$work/out" "$out"
