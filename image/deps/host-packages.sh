#!/bin/sh
# host-packages.sh PKG...: install the Debian packages among PKG that are
# missing (apt-get, non-interactive), and make sure apt knows deb-src
# entries so `apt-get source` works on a stock Debian 12 machine.
# HOST_FOREIGN_ARCHS (from configs/arch/*.mk, e.g. ppc64el): Debian
# architectures added with `dpkg --add-architecture`, so that
# `apt-get download PKG:ARCH` finds the target's kernel and boot loader.
set -eu

new_archs=
for a in ${HOST_FOREIGN_ARCHS:-}; do
	[ "$a" = "$(dpkg --print-architecture)" ] && continue
	dpkg --print-foreign-architectures | grep -qx "$a" ||
		new_archs="$new_archs $a"
done

missing=
for p in "$@"; do
	st=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
	[ "$st" = installed ] || missing="$missing $p"
done

srcs=/etc/apt/sources.list.d/benchboot-src.sources
need_src=1
if grep -rqsE '^(deb-src|Types:.*deb-src)' /etc/apt/sources.list \
		/etc/apt/sources.list.d/; then
	need_src=0
fi

[ -z "$missing" ] && [ $need_src = 0 ] && [ -z "$new_archs" ] && exit 0

if [ "$(id -u)" != 0 ]; then
	echo "error: missing host packages:$missing" >&2
	[ $need_src = 1 ] && echo "error: and apt has no deb-src entry" >&2
	[ -n "$new_archs" ] &&
		echo "error: and dpkg lacks the architecture(s)$new_archs" >&2
	echo "error: run 'make deps' as root (or install them)" >&2
	exit 1
fi

if [ $need_src = 1 ]; then
	# Same mirrors as the binary entries, with deb-src added.
	echo "deps: adding deb-src entries ($srcs)"
	uris=$(grep -hE '^URIs:' /etc/apt/sources.list.d/*.sources 2>/dev/null |
		awk '{print $2}' | grep -m1 -v security || true)
	[ -n "$uris" ] || uris=http://deb.debian.org/debian
	cat >"$srcs" <<EOS
Types: deb-src
URIs: $uris
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb-src
URIs: ${uris%/debian}/debian-security
Suites: bookworm-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOS
fi
for a in $new_archs; do
	echo "deps: dpkg --add-architecture $a"
	dpkg --add-architecture "$a"
done
echo "deps: apt-get update"
# One index that fails (a mirror mid-sync, seen for bookworm-security's
# ppc64el index) must not stop the build: apt keeps the others, a missing
# package still fails below, and fetch.sh checks every pinned sum.
if ! apt-get update -qq; then
	echo "warning: deps: apt-get update reported errors (above);" \
		"continuing with the indexes it did fetch" >&2
fi
if [ -n "$missing" ]; then
	echo "deps: installing$missing"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
		-o DPkg::Lock::Timeout=600 \
		--no-install-recommends $missing >/dev/null
fi
