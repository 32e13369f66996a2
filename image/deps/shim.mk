# image/deps/shim.mk: Debian's shim (shim-signed), signed by Microsoft's
# UEFI CA: the first stage a Secure-Boot PC runs (shimx64.efi.signed; it
# then runs grubx64.efi beside it if Debian's key signed it).
# x86_64 only; pinned like the kernel (image/deps/linux.mk): the
# sha256 below is pin.sh's, of the file apt fetched and checked against
# the archive's signed index.
ifeq ($(DEB_ARCH),amd64)
shim_DEB_ARCH := amd64
# pin begin amd64: written by 'make pins' on 2026-12-05 from the
# archive apt uses; apt verified each file against the archive's
# signed index, then pin.sh took the sha256 sums below.
shim_DEB := shim-signed
shim_VERSION := 1.51~1+deb12u1+16.1-2~deb12u1
shim_SHA256 := \
	c2acf5e559664bbadb7ce5789f9a321f39754a34854d3097b8cc0369df513b3b shim-signed_1.51~1+deb12u1+16.1-2~deb12u1_amd64.deb
# pin end
$(eval $(call debian_binary,shim))
endif
