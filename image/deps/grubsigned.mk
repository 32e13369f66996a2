# image/deps/grubsigned.mk: Debian's UEFI GRUB (grub-efi-amd64-signed),
# signed by Debian's key, which shim trusts: gcdx64.efi.signed for the CD
# and the stick, grubnetx64.efi.signed for network boot (image/efi.sh).
# x86_64 only; pinned like the kernel (image/deps/linux.mk): the
# sha256 below is pin.sh's, of the file apt fetched and checked against
# the archive's signed index.
ifeq ($(DEB_ARCH),amd64)
grubsigned_DEB_ARCH := amd64
# pin begin amd64: written by 'make pins' on 2026-12-05 from the
# archive apt uses; apt verified each file against the archive's
# signed index, then pin.sh took the sha256 sums below.
grubsigned_DEB := grub-efi-amd64-signed
grubsigned_VERSION := 1+2.06+13+deb12u2
grubsigned_SHA256 := \
	fbe2b28166a6dca8111bbf6a30d52d4781973c3a0440d8080f901e039b1f83f2 grub-efi-amd64-signed_1+2.06+13+deb12u2_amd64.deb
# pin end
$(eval $(call debian_binary,grubsigned))
endif
