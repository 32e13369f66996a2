#!/bin/sh
# 010_build.sh: the build's promises: a static benchboot that lists every
# pinned input, and clear failures on a corrupted or vanished download.
set -u
. "$TOP/payload/tests/lib/tap.sh"
cd "$TOP"

tmp=$(mktemp -d "$O/test-run/build.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

case $(file -b "$BENCHBOOT") in
*"statically linked"*) ok "benchboot is statically linked" ;;
*) not_ok "benchboot is statically linked"; diag "$(file -b "$BENCHBOOT")" ;;
esac

ver=$($TARGET_RUN "$BENCHBOOT" --version)
check_eq "--version exits 0" "$?" 0
case $ARCH in
x86_64) deb_arch=amd64 ;;
ppc64le) deb_arch=ppc64el ;;
*) deb_arch=$ARCH ;;
esac
for mk in image/deps/*.mk; do
	name=${mk##*/}
	name=${name%.mk}
	[ "$name" = common ] && continue
	# A binary pin is per Debian architecture ("# pin begin amd64:"):
	# only this ARCH's block, or an untagged one, counts.
	pinned=$(awk -v v="${name}_VERSION" -v a="$deb_arch:" '
		/^# pin begin/ { tag = ($4 ~ /:$/) ? $4 : "" }
		$1 == v && $2 == ":=" && (tag == "" || tag == a) { print $3 }' "$mk")
	if echo "$ver" | grep -qF -- " $pinned"; then
		ok "--version lists $name $pinned"
	else
		not_ok "--version lists $name $pinned"
		diag "$ver"
	fi
done

# A corrupted file in the download cache stops the fetch, naming the file.
dl=$tmp/dl
mkdir -p "$dl"
cp dl/cjson_* "$dl/"
orig=$(ls "$dl"/cjson_*.orig.tar.gz)
printf 'corrupt' | dd of="$orig" bs=1 seek=100 conv=notrunc 2>/dev/null
out=$(make --no-print-directory O="$tmp/o" DL_DIR="$dl" fetch-cjson 2>&1)
rc=$?
check "corrupted download fails the build" [ $rc != 0 ]
if echo "$out" | grep -q "sha256 mismatch for $orig"; then
	ok "the error names the corrupted file"
else
	not_ok "the error names the corrupted file"
	diag "$out"
fi

# A version the archive no longer serves points the user to `make pins`.
out=$(make --no-print-directory O="$tmp/o" DL_DIR="$tmp/empty" \
	cjson_VERSION=0.0.0-0 fetch-cjson 2>&1)
rc=$?
check "a vanished pinned version fails the build" [ $rc != 0 ]
if echo "$out" | grep -q "cjson: cannot download cjson 0.0.0-0" &&
		echo "$out" | grep -q "make pins"; then
	ok "the error names the input and points to make pins"
else
	not_ok "the error names the input and points to make pins"
	diag "$out"
fi

# The intact cache verifies without downloading anything.
cp dl/cjson_* "$tmp/dl2" 2>/dev/null || { mkdir -p "$tmp/dl2"; cp dl/cjson_* "$tmp/dl2/"; }
out=$(make --no-print-directory O="$tmp/o2" DL_DIR="$tmp/dl2" fetch-cjson 2>&1)
rc=$?
check_eq "a complete cache fetches nothing" "$rc:$(echo "$out" | grep -c FETCH)" "0:0"

tap_done
