#!/bin/sh
# image-digest.sh: an image's identity, the sha256 of its manifest (the
# sums of the booted kernel, the initramfs's base archive and the server
# overlay); docs/reproducible.md says why the initramfs counts only up to
# its last archive, which carries the digest itself.
#
#   image-digest.sh manifest KERNEL BASE [OVERLAY]
#       print the manifest for these files (what the build hashes)
#   image-digest.sh check IMAGES_DIR [KERNEL_FILE]
#       recompute the digest of a built image from its files, print it and
#       the one its initramfs carries; exit 1 when they differ
#   image-digest.sh unpack INITRAMFS DIR
#       unpack both archives of INITRAMFS into DIR (zcat | cpio -i stops
#       at the first); as non-root, without the /dev/console node
set -eu

# manifest KERNEL BASE [OVERLAY]: one "sha256  name" line per file, in
# sha256sum's format, so a user can recompute it by hand.
manifest() {
	printf '%s  %s\n' "$(sha256sum <"$1" | cut -d' ' -f1)" "$(basename "$1")"
	printf '%s  %s\n' "$(sha256sum <"$2" | cut -d' ' -f1)" initramfs-base
	if [ -n "${3:-}" ]; then
		printf '%s  %s\n' "$(sha256sum <"$3" | cut -d' ' -f1)" \
			"$(basename "$3")"
	fi
}

# The initramfs is two members: the base archive (gzip or zstd,
# mkinitramfs.sh) and the tail with /etc/benchboot-image (gzip).
# gzip -9 -n writes every member header as these ten bytes (no name, no
# time, XFL 2, OS 3); the tail's is the last one.
tail_offset() {
	LC_ALL=C grep -obUaP '\x1f\x8b\x08\x00\x00\x00\x00\x00\x02\x03' "$1" |
		tail -n 1 | cut -d: -f1
}

# split INITRAMFS: the tail's offset, or an error.
split() {
	off=$(tail_offset "$1")
	if [ -z "$off" ] || [ "$off" = 0 ]; then
		echo "error: $1 has no digest archive after its base" >&2
		exit 1
	fi
	echo "$off"
}

case ${1:-} in
unpack)
	[ $# -eq 3 ] || { echo "usage: $0 unpack INITRAMFS DIR" >&2; exit 2; }
	i=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
	off=$(split "$i")
	mkdir -p "$3"
	cd "$3"
	# cpio exits non-zero when it may not create the device node.
	# The base's compressor by its magic number: zstd's, else gzip.
	if [ "$(head -c 4 "$i" | od -An -tx1 | tr -d ' \n')" = 28b52ffd ]; then
		unz='zstd -dcq'
	else
		unz='gzip -dc'
	fi
	head -c "$off" "$i" | $unz | cpio -idm --quiet 2>/dev/null ||
		[ "$(id -u)" != 0 ]
	tail -c +"$((off + 1))" "$i" | gzip -dc | cpio -idm --quiet
	;;
manifest)
	[ $# -ge 3 ] || { echo "usage: $0 manifest KERNEL BASE [OVERLAY]" >&2; exit 2; }
	manifest "$2" "$3" "${4:-}"
	;;
check)
	[ $# -ge 2 ] || { echo "usage: $0 check IMAGES_DIR [KERNEL_FILE]" >&2; exit 2; }
	d=$2 k=${3:-vmlinuz}
	i=$d/initramfs.cpio.gz
	o=$d/server-overlay.cpio.gz
	[ -f "$o" ] || o=
	off=$(split "$i")
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	head -c "$off" "$i" >"$tmp/initramfs-base"
	carried=$(tail -c +"$((off + 1))" "$i" | gzip -dc |
		cpio -i --quiet --to-stdout etc/benchboot-image)
	manifest "$d/$k" "$tmp/initramfs-base" "$o" >"$tmp/manifest"
	now=sha256:$(sha256sum <"$tmp/manifest" | cut -d' ' -f1)
	cat "$tmp/manifest"
	echo "computed  $now"
	echo "carried   $carried"
	[ "$now" = "$carried" ] || { echo "error: the digests differ" >&2; exit 1; }
	;;
*)
	echo "usage: $0 manifest KERNEL BASE [OVERLAY] | check IMAGES_DIR [KERNEL_FILE] | unpack INITRAMFS DIR" >&2
	exit 2
	;;
esac
