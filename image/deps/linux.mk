# image/deps/linux.mk: the kernel, Debian's signed linux-image for bookworm,
# pinned by version and sha256.  Its name follows the
# linux-image-$(KERNEL_FLAVOUR) metapackage (amd64, powerpc64le: from the
# arch file), so `make pins` moves to the archive's current ABI.  One pin
# block per Debian architecture; `make ARCH=... pins` rewrites its own.
KERNEL_FLAVOUR ?= $(DEB_ARCH)
linux_DEB_FROM := linux-image-$(KERNEL_FLAVOUR)
linux_DEB_ARCH := $(DEB_ARCH)
ifeq ($(DEB_ARCH),amd64)
# pin begin amd64: written by 'make pins' on 2026-11-30 from the
# archive apt uses; apt verified each file against the archive's
# signed index, then pin.sh took the sha256 sums below.
linux_DEB := linux-image-6.1.0-57-amd64
linux_VERSION := 6.1.192-3
linux_SHA256 := \
	14d219d01e1283261817d961dbb3895cb5b4288d0de10e0ba0632a0d993e15bf linux-image-6.1.0-57-amd64_6.1.192-3_amd64.deb
# pin end
else ifeq ($(DEB_ARCH),ppc64el)
# pin begin ppc64el: written by 'make pins' on 2026-11-30 from the
# archive apt uses; apt verified each file against the archive's
# signed index, then pin.sh took the sha256 sums below.
linux_DEB := linux-image-6.1.0-50-powerpc64le
linux_VERSION := 6.1.176-1
linux_SHA256 := \
	0513cb05cef43064db6e62e5b71f6a316cf4854ea4fb873263e8e50a1254999e linux-image-6.1.0-50-powerpc64le_6.1.176-1_ppc64el.deb
# pin end
endif
$(eval $(call debian_binary,linux))
