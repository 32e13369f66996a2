#!/bin/sh
# firmware.sh apt DIR: print an APT_CONFIG file (made in DIR) for Debian's
#   non-free-firmware component of the archive the host's apt uses.
# firmware.sh fetch LOCK DL_DIR APTDIR: every package of LOCK in DL_DIR
#   with its pinned sha256 (fetch.sh; apt only when one is missing).
# firmware.sh pin PACKAGES LOCK DL_DIR APTDIR: re-pin the packages named in
#   PACKAGES to the versions the archive serves now; LOCK is rewritten and
#   the change printed.
# LOCK lines are "package arch version sha256 filename", as the server
# stack's lock (image/deps/server.mk); the image takes from them only the
# files its drivers name (image/firmware.sh, docs/drivers.md).
#
# The firmware sits in a component the host's apt sources usually leave
# out; rather than edit the host's sources, apt gets a private
# configuration: the same archive and suites, component non-free-firmware,
# checked against the same Debian archive keyring, its lists in APTDIR.
set -eu

here=$(cd "$(dirname "$0")" && pwd)

# apt_setup DIR: write DIR/apt.conf and DIR/sources.list, update DIR's
# lists, print the config's path.  The archive's URIs and suites are those
# apt already uses for main (apt-get indextargets), so a mirror or proxy
# set up for the host serves the firmware too.
apt_setup() {
	local d=$1
	local keyring=/usr/share/keyrings/debian-archive-keyring.gpg
	mkdir -p "$d/lists/partial" "$d/cache/archives/partial" "$d/parts"
	apt-get indextargets --format '$(REPO_URI) $(RELEASE)' \
		'Created-By: Packages' 'COMPONENT: main' 2>/dev/null |
		LC_ALL=C sort -u | while read -r uri rel; do
		echo "deb [signed-by=$keyring] $uri $rel non-free-firmware"
	done >"$d/sources.list"
	[ -s "$d/sources.list" ] || {
		echo "error: firmware: apt has no Debian archive for main" \
			"(apt-get indextargets)" >&2
		exit 1
	}
	cat >"$d/apt.conf" <<-EOF
	Dir::Etc::SourceList "$d/sources.list";
	Dir::Etc::SourceParts "$d/parts";
	Dir::State::Lists "$d/lists";
	Dir::Cache "$d/cache";
	APT::Sandbox::User "root";
	EOF
	if ! APT_CONFIG=$d/apt.conf apt-get update -qq >"$d/update.log" 2>&1
	then
		sed 's/^/  apt: /' "$d/update.log" >&2
		echo "error: firmware: apt-get update of non-free-firmware failed" >&2
		exit 1
	fi
	echo "$d/apt.conf"
}

cmd=${1:-}
case $cmd in
apt)
	apt_setup "$2"
	;;
fetch)
	lock=$2 dl=$3 aptdir=$4
	missing=0
	while read -r pkg arch ver sum file; do
		case $pkg in '' | '#'*) continue ;; esac
		[ -f "$dl/$file" ] || missing=1
	done <"$lock"
	if [ $missing = 1 ]; then
		APT_CONFIG=$(apt_setup "$aptdir")
		export APT_CONFIG
	fi
	grep -v '^#' "$lock" | while read -r pkg arch ver sum file; do
		[ -n "$file" ] || continue
		"$here/fetch.sh" binary firmware "$pkg:$arch" "$ver" "$dl" \
			"$sum" "$file" || exit 1
	done
	;;
pin)
	pkgs=$2 lock=$3 dl=$4 aptdir=$5
	APT_CONFIG=$(apt_setup "$aptdir")
	export APT_CONFIG
	mkdir -p "$dl"
	tmp=$(mktemp -d "$dl/.pin.XXXXXX")
	trap 'rm -rf "$tmp" "$tmp.log" "$tmp.lock"' EXIT
	{
		echo "# $lock: the pinned firmware packages,"
		echo "# written by 'make pins' (image/deps/firmware.sh) on $(date -u +%F)"
		echo "# from the archive apt uses (non-free-firmware); apt verified"
		echo "# each .deb against the archive's signed index, then firmware.sh"
		echo "# took the sha256.  The image takes from them only the files its"
		echo "# drivers name (image/firmware.sh)."
		echo "# package arch version sha256 filename"
		sed 's/#.*//' "$pkgs" | tr -s ' \t' '\n\n' | sed '/^$/d' |
		while read -r p; do
			rm -rf "${tmp:?}"/*
			(cd "$tmp" && apt-get download -qq "$p") >"$tmp.log" 2>&1 || {
				sed 's/^/  apt: /' "$tmp.log" >&2
				echo "error: firmware: cannot download $p" >&2
				exit 1
			}
			f=$(ls "$tmp")
			v=$(dpkg-deb -f "$tmp/$f" Version)
			a=$(dpkg-deb -f "$tmp/$f" Architecture)
			echo "$p $a $v $(sha256sum "$tmp/$f" | cut -d' ' -f1) $f"
			[ -f "$dl/$f" ] || mv "$tmp/$f" "$dl/$f"
		done
	} >"$tmp.lock"
	# The date alone is no change.
	if [ -f "$lock" ] && [ "$(grep -v '^#' "$lock")" = \
		"$(grep -v '^#' "$tmp.lock")" ]; then
		echo "pins: firmware: $lock unchanged"
	else
		[ -f "$lock" ] && diff -u "$lock" "$tmp.lock" || true
		cat "$tmp.lock" >"$lock"
	fi
	;;
*)
	echo "usage: firmware.sh apt|fetch|pin ..." >&2
	exit 2
	;;
esac
