# image/deps/linux.mk: the kernel, Debian's signed linux-image for bookworm,
# pinned by version and sha256.  Its name follows the linux-image-$(DEB_ARCH)
# metapackage, so `make pins` moves to the archive's current ABI.
linux_DEB_FROM := linux-image-$(DEB_ARCH)
linux_DEB_ARCH := $(DEB_ARCH)
# pin begin: written by 'make pins' on 2026-11-30 from the
# archive apt uses; apt verified each file against the archive's
# signed index, then pin.sh took the sha256 sums below.
linux_DEB := linux-image-6.1.0-57-amd64
linux_VERSION := 6.1.192-3
linux_SHA256 := \
	14d219d01e1283261817d961dbb3895cb5b4288d0de10e0ba0632a0d993e15bf linux-image-6.1.0-57-amd64_6.1.192-3_amd64.deb
# pin end
$(eval $(call debian_binary,linux))
