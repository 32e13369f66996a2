#!/bin/sh
# mkinitramfs.sh STAGE OUT BUSYBOX BENCHBOOT KROOT KVER MODLIST: assemble
# the initramfs in STAGE.XXXXXX (removed afterwards) from initramfs/
# (skeleton and /init), BusyBox with a link per applet, benchboot, the
# listed kernel modules and their firmware, then write OUT (newc cpio,
# compressed).  Needs no root: the one device node /init needs before
# devtmpfs is up is written into a second cpio member by hand.
# Environment: TARGET_RUN runs a target binary on the build host;
# IMAGE_RELEASE is the one line written to /etc/benchboot-release;
# IMAGE_KERNEL and IMAGE_OVERLAY (empty: none) are the kernel and server
# overlay the image ships, which its digest covers; IMAGE_STRIP (empty:
# none) is the target's strip, for the image's copies of benchboot (the
# build's keeps its debug information) and of the modules (modules.sh);
# IMAGE_COMPRESS is the base archive's compressor: gzip (the default) or
# zstd (smaller, and faster to unpack: docs/drivers.md).
#
# The image's identity (docs/reproducible.md): OUT is two members, the
# base archive (everything above, IMAGE_COMPRESS) and a tail archive (gzip)
# holding only /etc/benchboot-image, the sha256 of the manifest of kernel,
# base and overlay (image/image-digest.sh).  The tail cannot cover itself; the
# kernel unpacks both.  OUT's directory gets image-manifest and
# image-digest, the same facts outside the image.
set -eu
# The same modes whatever the caller's umask (docs/reproducible.md).
umask 022

stage=$1 out=$2 busybox=$3 benchboot=$4 kroot=$5 kver=$6 modlist=$7
top=$(cd "$(dirname "$0")/.." && pwd)
case $modlist in /*) ;; *) modlist=$PWD/$modlist ;; esac
# A fixed time stamp: the same inputs give the same archive.
epoch=${SOURCE_DATE_EPOCH:-$(git -C "$top" log -1 --format=%ct 2>/dev/null || echo 0)}

# A private stage: several makes sharing $(O) may build at once.
mkdir -p "$(dirname "$stage")"
stage=$(mktemp -d "$stage.XXXXXX")
trap 'rm -rf "$stage" "$stage.tail" "$stage.manifest" "$out.tmp.$$"' EXIT
cp -a "$top/initramfs/." "$stage/"
cd "$stage"
mkdir -p bin sbin usr/bin usr/sbin dev proc sys run tmp mnt root results \
	var etc lib/firmware
ln -sfn ../run var/run
ln -sfn ../tmp var/tmp

cp "$busybox" bin/busybox
chmod 0755 bin/busybox
# shellcheck disable=SC2086
for a in $(${TARGET_RUN:-} "$busybox" --list-full); do
	[ "$a" = bin/busybox ] && continue
	[ -e "$a" ] && continue	# the skeleton's own file wins (e.g. /init)
	d=$(dirname "$a")
	rel=$(echo "$d" | sed 's|[^/][^/]*|..|g')
	mkdir -p "$d"
	ln -s "$rel/bin/busybox" "$a"
done
if [ -n "${IMAGE_STRIP:-}" ]; then
	$IMAGE_STRIP -o bin/benchboot "$benchboot"
else
	cp "$benchboot" bin/benchboot
fi
chmod 0755 bin/benchboot

MODULES_STRIP=${IMAGE_STRIP:-} \
	"$top/image/modules.sh" "$kroot" "$kver" "$modlist" "$stage"
# The firmware those modules name, from Debian's pinned packages
# (FIRMWARE_LOCK, FIRMWARE_DL, FIRMWARE_MISSING_OK from
# image/deps/firmware.mk; unset: an architecture without firmware pins).
if [ -n "${FIRMWARE_LOCK:-}" ]; then
	"$top/image/firmware.sh" "$stage" "$FIRMWARE_LOCK" "$FIRMWARE_DL" \
		"$FIRMWARE_MISSING_OK"
fi

# The suites the agent looks for in /etc/benchboot/suite, and what this
# image is (the agent records it in every result).
mkdir -p etc/benchboot/suite
for f in "$top"/configs/suite/*.suite; do
	[ -f "$f" ] && cp "$f" etc/benchboot/suite/
done
echo "${IMAGE_RELEASE:-benchboot}" >etc/benchboot-release

# cpio_node NAME MODE MAJOR MINOR: one newc header (and name) for a
# device node; cpio_node TRAILER!!! 0 0 0 ends the archive.
cpio_node() {
	local n=$((${#1} + 1))
	printf '070701%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X' \
		$(($2 ? 1 : 0)) "$2" 0 0 1 "$epoch" 0 0 0 "$3" "$4" "$n" 0
	printf '%s\0' "$1"
	# header (110 bytes) + name padded to a multiple of 4
	printf '%*s' $(((4 - (110 + n) % 4) % 4)) '' | tr ' ' '\0'
}

# Modes as git has them (755 or 644), whatever the checkout's umask was.
chmod -R u=rwX,go=rX .
find . -exec touch -h -d "@$epoch" {} +
mkdir -p "$(dirname "$out")"
{
	find . ! -name . | LC_ALL=C sort |
		cpio --quiet -o -H newc -R 0:0 --reproducible
	cpio_node dev/console $((0020600)) 5 1
	cpio_node 'TRAILER!!!' 0 0 0
} | case ${IMAGE_COMPRESS:-gzip} in
	gzip) gzip -9 -n ;;
	# One thread: the same bytes on any machine.
	zstd) zstd -19 -q --single-thread ;;
	*) echo "error: IMAGE_COMPRESS '$IMAGE_COMPRESS': gzip or zstd" >&2
	   exit 1 ;;
esac >"$out.tmp.$$"

# The digest of what boots, then the tail archive that carries it.
"$top/image/image-digest.sh" manifest "$IMAGE_KERNEL" "$out.tmp.$$" \
	${IMAGE_OVERLAY:-} >"$stage.manifest"
digest=sha256:$(sha256sum <"$stage.manifest" | cut -d' ' -f1)
mkdir "$stage.tail" "$stage.tail/etc"
echo "$digest" >"$stage.tail/etc/benchboot-image"
chmod 0644 "$stage.tail/etc/benchboot-image"
find "$stage.tail" -exec touch -h -d "@$epoch" {} +
(cd "$stage.tail" && echo etc/benchboot-image |
	cpio --quiet -o -H newc -R 0:0 --reproducible) |
	gzip -9 -n >>"$out.tmp.$$"
mv "$stage.manifest" "$(dirname "$out")/image-manifest"
echo "$digest" >"$(dirname "$out")/image-digest"
mv "$out.tmp.$$" "$out"
echo "  DIGEST  $digest"
