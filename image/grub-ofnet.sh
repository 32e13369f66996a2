#!/bin/sh
# grub-ofnet.sh SRC WORK MODS OUT: OUT = a copy of GRUB's module directory
# MODS (powerpc-ieee1275) whose ofnet.mod is rebuilt from Debian's GRUB
# source SRC (patches applied) with the allocation bookworm's security
# backport dropped; WORK is a scratch build directory.  Log on stdout.
#
# Why: GRUB's "net: Use safe math macros to prevent overflows" (upstream,
# January 2025 security series; Debian's
# debian/patches/cve-2025-jan, 2.06-13+deb12u1 on) replaced, in ofnet.c's
# search_net_devices(), `ofdata->path = grub_malloc (...)` by a grub_add()
# size check and lost the grub_malloc() itself, so ofdata->path stays
# whatever grub_malloc() left there: ofnet registers no card (SLOF's
# spapr-vlan and virtio-net alike), the boot location has no device,
# grub-mknetdir's image stops at "variable `root' isn't set" and net_bootp
# says "no network card found".  Upstream has since put the line back
# ("ieee1275/ofnet: Fix grub_malloc() removed after added safe math");
# Debian's bookworm package does not have that yet.  This restores the
# same line.  When SRC already has it, OUT is MODS unchanged.
#
# Only ofnet.module is compiled (with the 32-bit big-endian cross gcc, as
# GRUB for Open Firmware is 32-bit BE code), then wrapped as genmod.sh
# does.  The unpatched source is built first and compared with Debian's
# ofnet.mod: they are byte-identical with bookworm's gcc-12, which shows
# the toolchain reproduces Debian's build and the one line is the only
# difference.  A mismatch is reported, not fatal.
set -eu

src=$1 work=$2 mods=$3 out=$4
for d in "$src" "$work" "$mods" "$out"; do
	case $d in
	/*) ;;
	*) echo "error: grub-ofnet: $d: not an absolute path" >&2; exit 2;;
	esac
done
c=grub-core/net/drivers/ieee1275/ofnet.c
fix='  ofdata->path = grub_malloc (sz);'

rm -rf "$out.tmp" && mkdir -p "$(dirname "$out")"
cp -a "$mods" "$out.tmp"
if grep -qF "$fix" "$src/$c"; then
	echo "grub-ofnet: $c allocates ofdata->path already; ofnet.mod as shipped"
	rm -rf "$out" && mv "$out.tmp" "$out"
	exit 0
fi
if [ "$(grep -c '^  if (!ofdata->path)$' "$src/$c")" != 1 ]; then
	echo "error: grub-ofnet: $c does not have the expected code" >&2
	exit 1
fi

# One timestamp for every source file, so that make never tries to
# regenerate configure or Makefile.in (Debian's patches change the .def
# files they come from; dpkg-buildpackage reruns autoreconf, we do not
# need to: ofnet is in the shipped Makefile.in).
find "$src" -exec touch -h -d '2000-01-01 00:00:00' {} +
rm -rf "$work" && mkdir -p "$work" && cd "$work"
echo "grub-ofnet: configure"
"$src/configure" --target=powerpc-linux-gnu --with-platform=ieee1275 \
	--disable-werror TARGET_CC=powerpc-linux-gnu-gcc \
	TARGET_OBJCOPY=powerpc-linux-gnu-objcopy \
	TARGET_STRIP=powerpc-linux-gnu-strip TARGET_NM=powerpc-linux-gnu-nm \
	TARGET_RANLIB=powerpc-linux-gnu-ranlib
cd grub-core
make genmod.sh build-grub-module-verifier
grep '^ofnet:' "$mods/moddep.lst" >moddep.ofnet

# build NAME: ofnet.module from the source as it is now, wrapped as NAME.
build() {
	rm -f ofnet.module net/drivers/ieee1275/ofnet_module-ofnet.o
	make ofnet.module
	sh genmod.sh moddep.ofnet ofnet.module -o "$1"
}

build ofnet-debian.mod
if cmp ofnet-debian.mod "$mods/ofnet.mod"; then
	echo "grub-ofnet: unpatched build is identical to Debian's ofnet.mod"
else
	echo "warning: grub-ofnet: unpatched build differs from Debian's" \
		"ofnet.mod (another compiler?); using the patched build anyway" >&2
fi
cp "$src/$c" ofnet.c.debian
sed -i 's/^  if (!ofdata->path)$/'"$fix"'\n&/' "$src/$c"
diff -u ofnet.c.debian "$src/$c" || true
build ofnet-fixed.mod
cp ofnet-fixed.mod "$out.tmp/ofnet.mod"
rm -rf "$out" && mv "$out.tmp" "$out"
echo "grub-ofnet: $out/ofnet.mod allocates ofdata->path"
