#!/bin/sh
# 015_reproducible.sh: the cheap form of `make reproducible-check`: the
# payload and the initramfs built again from a copy of the tree at another
# path into a private build directory come out byte for byte the same as
# make test's own build ($BENCHBOOT, $IMAGES), the initramfs carries the
# digest that image/image-digest.sh recomputes, and its benchboot shows
# it.  Both builds link the same sysroot and BusyBox ($O's); the full
# check rebuilds those too (docs/reproducible.md).  One build, not two
# side by side as before: make test's own is the other (a minute of CPU
# less in make test's 45).
set -u
. "$TOP/payload/tests/lib/tap.sh"

# The same compiler flags and archive rules make every ARCH's bytes: the
# host ARCH's run checks them in make test's hour; a cross ARCH is checked
# in full by hand (`make ARCH=X reproducible-check`, its figures in
# docs/reproducible.md), as its cross build would cost CI a minute more.
if [ -n "$TARGET_RUN" ]; then
	echo "1..0 # SKIP cross ARCH=$ARCH: make ARCH=$ARCH reproducible-check checks it in full"
	exit 0
fi

mkdir -p "$O/test-run"
w=$(mktemp -d "$O/test-run/repro.XXXXXX")

# One snapshot of the sources (others may be editing the tree), copied
# with its mtimes, so $O's stamps stay newer and no library is rebuilt.
mkdir -p "$w/a/src/payload/tests/fuzz"
(cd "$TOP" && cp -a Makefile configs image initramfs "$w/a/src/" &&
	cp -a payload/payload.mk payload/src "$w/a/src/payload/" &&
	cp -a payload/tests/fuzz/fuzz.mk "$w/a/src/payload/tests/fuzz/")
# The copy has no .git: it takes make test's SOURCE_DATE_EPOCH (the
# Makefile exports it; by hand, the Makefile's own rule gives it here).
[ -n "${SOURCE_DATE_EPOCH:-}" ] ||
	SOURCE_DATE_EPOCH=$(git -C "$TOP" log -1 --format=%ct 2>/dev/null ||
		stat -c %Y "$TOP/Makefile")
export SOURCE_DATE_EPOCH
# The build runs alone (this test is not marked parallel): both cores.
b=$w/a/build
env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -C "$w/a/src" -j2 \
	O="$O" ARCH="$ARCH" DL_DIR="${DL_DIR:-$TOP/dl}" PAYLOAD_BUILD="$b" \
	BENCHBOOT="$b/benchboot" INITRAMFS="$b/images/initramfs.cpio.gz" \
	"$b/benchboot" "$b/images/initramfs.cpio.gz" >"$w/a/build.log" 2>&1
rc=$?
check_eq "build in a copy of the tree (payload + initramfs) exits 0" "$rc" 0
[ $rc = 0 ] || tail -n 20 "$w/a/build.log" | sed 's/^/#   /'

a=$b
for f in benchboot images/initramfs.cpio.gz images/image-digest; do
	case $f in
	benchboot) mine=$BENCHBOOT ;;
	*) mine=$IMAGES/${f#images/} ;;
	esac
	if d=$(cmp "$mine" "$a/$f" 2>&1); then
		ok "$f is the same in make test's build and the copy's"
	else
		not_ok "$f is the same in make test's build and the copy's"
		diag "  $d (make test's build older than the tree?)"
	fi
done
check "benchboot holds no path of the tree or the build directory" \
	sh -c '! strings -a "$1" | grep -q "$2"' sh "$a/benchboot" "$w"

# The digest the initramfs carries is the one its files give.
mkdir -p "$w/images"
ln -s "$IMAGES"/* "$w/images/" 2>/dev/null
ln -sf "$a/images/initramfs.cpio.gz" "$w/images/initramfs.cpio.gz"
kernel=$(basename "$(sed -n 1p "$a/images/image-manifest" | cut -d' ' -f3)")
out=$("$TOP/image/image-digest.sh" check "$w/images" "$kernel" 2>&1)
rc=$?
check_eq "image-digest.sh check recomputes the carried digest" "$rc" 0
[ $rc = 0 ] || echo "$out" | sed 's/^/#   /'
check_eq "the carried digest is image-digest's" \
	"$(echo "$out" | sed -n 's/^carried *//p')" "$(cat "$a/images/image-digest")"

# The image's own benchboot reports that digest (chroot: root, and a
# native ARCH; the one file node.c reads for image_digest is the same).
r=$w/root
if [ "$(id -u)" = 0 ] && [ -z "$TARGET_RUN" ] &&
	"$TOP/image/image-digest.sh" unpack "$a/images/initramfs.cpio.gz" "$r"; then
	check_eq "benchboot --version in the image shows its digest" \
		"$(chroot "$r" /bin/benchboot --version | sed -n 's/^  image //p')" \
		"$(cat "$a/images/image-digest")"
else
	skip "benchboot --version in the image: needs root and a native ARCH"
fi

if tap_done; then
	rm -rf "$w"
else
	diag "builds kept in $w"
	exit 1
fi
