# image/deps/shimhelpers.mk: shim's MOK manager (mmx64.efi.signed from
# shim-helpers-amd64-signed, signed by Debian), which shim starts when a
# lab enrols its own key with mokutil (docs/secure-boot.md).
# x86_64 only; pinned like the kernel (image/deps/linux.mk): the
# sha256 below is pin.sh's, of the file apt fetched and checked against
# the archive's signed index.
ifeq ($(DEB_ARCH),amd64)
shimhelpers_DEB_ARCH := amd64
# pin begin amd64: written by 'make pins' on 2026-12-05 from the
# archive apt uses; apt verified each file against the archive's
# signed index, then pin.sh took the sha256 sums below.
shimhelpers_DEB := shim-helpers-amd64-signed
shimhelpers_VERSION := 1+16.1+2~deb12u1
shimhelpers_SHA256 := \
	26acac35133946c1642a09f3fda353ee3b849e5fc643fadb97a8dfec9e2b55fb shim-helpers-amd64-signed_1+16.1+2~deb12u1_amd64.deb
# pin end
$(eval $(call debian_binary,shimhelpers))
endif
