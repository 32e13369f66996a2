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
else ifeq ($(DEB_ARCH),powerpc)
# No Debian binary kernel for 32-bit powerpc: the pin is the source tree
# (linux-source-6.1, architecture all), built below.
linux_DEB_FROM :=
linux_DEB_ARCH := all
# pin begin all: written by 'make pins' on 2026-12-01 from the
# archive apt uses; apt verified each file against the archive's
# signed index, then pin.sh took the sha256 sums below.
linux_DEB := linux-source-6.1
linux_VERSION := 6.1.192-3
linux_SHA256 := \
	5259c57ca92092da39bd2ea803046da0e3c28f2b6a11ea20f6297468188ceb67 linux-source-6.1_6.1.192-3_all.deb
# pin end
endif
$(eval $(call debian_binary,linux))

# --- a kernel built from source (KERNEL_DEFCONFIG set by the arch file) ---
# The arch file names the defconfig (or allnoconfig) and a fragment of
# options laid over it (KERNEL_FRAGMENT); everything is built in, no
# modules.  The result takes
# the place of the unpacked binary package for image/image.mk: vmlinux in
# $(LINUX_ROOT)/boot/ and an empty lib/modules/$(LINUX_KVER)/.  The tree
# and the objects stay in $(BUILD)/linux-src and $(BUILD)/linux-obj, so a
# changed fragment rebuilds only what it touches; a new pin starts afresh.
ifneq ($(KERNEL_DEFCONFIG),)
# The fragment sets CONFIG_LOCALVERSION to $(KERNEL_LOCALVERSION).
KERNEL_LOCALVERSION := $(shell sed -n 's/^CONFIG_LOCALVERSION="\(.*\)"$$/\1/p' \
	$(KERNEL_FRAGMENT))
LINUX_KVER := $(firstword $(subst -, ,$(linux_VERSION)))$(KERNEL_LOCALVERSION)
LINUX_ROOT := $(BUILD)/linux
LINUX_SRC := $(BUILD)/linux-src
LINUX_OBJ := $(BUILD)/linux-obj
LINUX_UNPACKED := $(STAMPS)/linux.built
# Keyed by the pinned version: only a new pin unpacks afresh (and so
# rebuilds everything); an edit of this recipe does not.
LINUX_SRC_STAMP := $(STAMPS)/linux.src-$(linux_VERSION)
# Its version string (uname -v) takes the commit's date and build number
# 1, not the build's (docs/reproducible.md).
LINUX_MAKE := $(MAKE) -C $(LINUX_SRC) O=$(LINUX_OBJ) ARCH=$(KERNEL_ARCH) \
	CROSS_COMPILE=$(CROSS_COMPILE) KBUILD_BUILD_USER=benchboot \
	KBUILD_BUILD_HOST=benchboot KBUILD_BUILD_VERSION=1 \
	KBUILD_BUILD_TIMESTAMP="$(shell date -u -d @$(SOURCE_DATE_EPOCH))"
# allnoconfig with the fragment as KCONFIG_ALLCONFIG: the fragment is the
# whole configuration and every option it does not name stays off (a
# small kernel, a short build).  Any other defconfig: the fragment laid
# over it, the rest at the defconfig's values.
ifeq ($(KERNEL_DEFCONFIG),allnoconfig)
KERNEL_CONFIGURE = KCONFIG_ALLCONFIG=$(TOP)/$(KERNEL_FRAGMENT) \
	$(LINUX_MAKE) allnoconfig
else
KERNEL_CONFIGURE = $(LINUX_MAKE) $(KERNEL_DEFCONFIG) && \
	cat $(KERNEL_FRAGMENT) >>$(LINUX_OBJ)/.config && \
	$(LINUX_MAKE) olddefconfig
endif
# The kernel build is long (docs/ppc32.md), so it runs niced; KERNEL_LOCK
# may wrap it (e.g. KERNEL_LOCK='flock /tmp/bench.lock' keeps it off a
# shared machine's benchmarks).
KERNEL_LOCK ?=

$(LINUX_SRC_STAMP): | $(linux_FETCHED)
	@echo "  UNPACK  linux-source $(linux_VERSION)"
	$(Q)rm -rf $(LINUX_SRC) $(LINUX_OBJ) $(STAMPS)/linux.src-* && \
	mkdir -p $(LINUX_SRC)
	$(Q)dpkg-deb --fsys-tarfile $(linux_DEBFILE) | \
		tar -xO --wildcards './usr/src/linux-source-*.tar.xz' | \
		tar -xJ -C $(LINUX_SRC) --strip-components=1
	$(Q)mkdir -p $(@D) && touch $@

$(LINUX_UNPACKED): $(LINUX_SRC_STAMP) $(KERNEL_FRAGMENT) \
		configs/arch/$(ARCH).mk image/deps/linux.mk \
		image/deps/kconfig-check.sh
	@echo "  KERNEL  linux $(linux_VERSION) $(KERNEL_DEFCONFIG) +" \
		"$(notdir $(KERNEL_FRAGMENT)), see $(BUILD)/linux-build.log"
	$(Q)mkdir -p $(LINUX_OBJ) && \
	$(KERNEL_CONFIGURE) >$(BUILD)/linux-build.log 2>&1 || \
	{ tail -n 20 $(BUILD)/linux-build.log >&2; exit 1; }
	$(Q)image/deps/kconfig-check.sh $(KERNEL_FRAGMENT) $(LINUX_OBJ)/.config
	$(Q)$(KERNEL_LOCK) nice -n 10 $(LINUX_MAKE) -j$(JOBS) vmlinux \
		>>$(BUILD)/linux-build.log 2>&1 || \
		{ tail -n 30 $(BUILD)/linux-build.log >&2; echo "error: the" \
		  "kernel build failed, see $(BUILD)/linux-build.log" >&2; \
		  exit 1; }
	$(Q)r=$$(cat $(LINUX_OBJ)/include/config/kernel.release) && \
	[ "$$r" = "$(LINUX_KVER)" ] || { echo "error: the kernel calls" \
		"itself $$r, image.mk expects $(LINUX_KVER)" >&2; exit 1; }
	$(Q)rm -rf $(LINUX_ROOT) && \
	mkdir -p $(LINUX_ROOT)/boot $(LINUX_ROOT)/lib/modules/$(LINUX_KVER) && \
	$(CROSS_COMPILE)strip -o $(LINUX_ROOT)/boot/$(KERNEL_FILE)-$(LINUX_KVER) \
		$(LINUX_OBJ)/vmlinux && \
	cp $(LINUX_OBJ)/.config $(LINUX_ROOT)/boot/config-$(LINUX_KVER) && \
	cd $(LINUX_ROOT)/lib/modules/$(LINUX_KVER) && \
	touch modules.order modules.builtin modules.builtin.modinfo && \
	depmod -b $(LINUX_ROOT) $(LINUX_KVER)
	$(Q)mkdir -p $(@D) && touch $@
endif
