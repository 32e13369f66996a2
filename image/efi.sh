#!/bin/sh
# efi.sh OUT SHIM GRUB MM MARKER: the UEFI boot image of the ISO (its El
# Torito EFI entry) and of the USB stick (its EFI system partition): a FAT
# file system holding Debian's signed boot chain, so a PC with Secure Boot
# on runs it (docs/secure-boot.md):
#   EFI/BOOT/BOOTX64.EFI  shim, signed by Microsoft's UEFI CA
#   EFI/BOOT/grubx64.efi  Debian's signed GRUB (gcdx64), which shim runs
#   EFI/BOOT/mmx64.efi    shim's MOK manager, for a lab's own key
#   boot/grub/grub.cfg    the signed GRUB's first config (below)
# Debian's GRUB has its config built in: it reads $prefix/grub.cfg, prefix
# being /boot/grub on the device it was loaded from, i.e. this image.  The
# stub there finds the ISO 9660 file system by MARKER (a file only
# benchboot's images hold) and reads the menu the BIOS GRUB reads too.
# Reproducible: fixed FAT serial, no clock in labels or entries
# (SOURCE_DATE_EPOCH, as the build's other images; docs/reproducible.md).
set -eu

[ $# = 5 ] || { echo "usage: efi.sh OUT SHIM GRUB MM MARKER" >&2; exit 2; }
out=$1 shim=$2 grub=$3 mm=$4 marker=$5
: "${SOURCE_DATE_EPOCH:?efi.sh: SOURCE_DATE_EPOCH unset}"
for f in "$shim" "$grub" "$mm"; do
	[ -f "$f" ] || { echo "error: efi.sh: no $f" >&2; exit 1; }
done

d=$(mktemp -d "${out%/*}/.efi.XXXXXX")
trap 'rm -rf "$d"' EXIT
mkdir -p "$d/EFI/BOOT" "$d/boot/grub"
cp "$shim" "$d/EFI/BOOT/BOOTX64.EFI"
cp "$grub" "$d/EFI/BOOT/grubx64.efi"
cp "$mm" "$d/EFI/BOOT/mmx64.efi"
cat >"$d/boot/grub/grub.cfg" <<EOT
# grub.cfg: written by image/efi.sh: the signed GRUB's first config; the
# menu is the ISO 9660 file system's /boot/grub/grub.cfg.
search --no-floppy --file --set=root $marker
set prefix=(\$root)/boot/grub
source \$prefix/grub.cfg
EOT
find "$d" -exec touch -h -d "@$SOURCE_DATE_EPOCH" {} +

# The size: the files, rounded up, plus room for FAT's tables (KiB).
kb=$(du -sk --apparent-size "$d" | cut -f1)
kb=$(((kb * 11 / 10 + 1023) / 1024 * 1024 + 256))
serial=$(printf %08X $((SOURCE_DATE_EPOCH & 0xFFFFFFFF)))
rm -f "$out"
mkfs.vfat --invariant -n BBEFI -i "$serial" -C "$out" "$kb" >/dev/null
# One file at a time, in a fixed order (mcopy -s would take readdir's,
# which differs between file systems); mmd dates the directories by
# SOURCE_DATE_EPOCH, which mtools honours.
for dir in EFI EFI/BOOT boot boot/grub; do
	mmd -i "$out" "::$dir"
done
for f in EFI/BOOT/BOOTX64.EFI EFI/BOOT/grubx64.efi EFI/BOOT/mmx64.efi \
		boot/grub/grub.cfg; do
	mcopy -m -i "$out" "$d/$f" "::$f"
done
