#!/bin/sh
# 015_reproducible.sh: the cheap form of `make reproducible-check`: the
# payload and the initramfs built twice, from two copies of the tree at
# different paths into two private build directories, come out byte for
# byte the same, the initramfs carries the digest that
# image/image-digest.sh recomputes, and its benchboot shows it.  Both builds link the same sysroot and
# BusyBox ($O's); the full check rebuilds those too (docs/reproducible.md).
set -u
. "$TOP/payload/tests/lib/tap.sh"

# The same compiler flags and archive rules make every ARCH's bytes: the
# host ARCH's run checks them in make test's hour; a cross ARCH is checked
# in full by hand (`make ARCH=X reproducible-check`, its figures in
# docs/reproducible.md), as its two cross builds would cost CI 90 s more.
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
mkdir -p "$w/second-copy"
cp -a "$w/a/src" "$w/second-copy/src"

# The two builds run at once (each make is serial: a core each).
for d in a second-copy; do
	b=$w/$d/build
	{ env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -C "$w/$d/src" \
		O="$O" ARCH="$ARCH" PAYLOAD_BUILD="$b" BENCHBOOT="$b/benchboot" \
		INITRAMFS="$b/images/initramfs.cpio.gz" \
		"$b/benchboot" "$b/images/initramfs.cpio.gz" \
		>"$w/$d/build.log" 2>&1
	echo $? >"$w/$d/build.rc"; } &
done
wait
for d in a second-copy; do
	rc=$(cat "$w/$d/build.rc")
	check_eq "build in $d/ (payload + initramfs) exits 0" "$rc" 0
	[ $rc = 0 ] || tail -n 20 "$w/$d/build.log" | sed 's/^/#   /'
done

a=$w/a/build b=$w/second-copy/build
for f in benchboot images/initramfs.cpio.gz images/image-digest; do
	if d=$(cmp "$a/$f" "$b/$f" 2>&1); then
		ok "$f is the same in both builds"
	else
		not_ok "$f is the same in both builds"
		diag "  $d"
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
