# image/deps/busybox.mk: BusyBox, the image's whole userland, static against
# musl with the checked-in configs/busybox.config.
busybox_SRC := busybox
# pin begin: written by 'make pins' on 2026-11-30 from the
# archive apt uses; apt verified each file against the archive's
# signed index, then pin.sh took the sha256 sums below.
busybox_VERSION := 1:1.35.0-4+deb12u1
busybox_SHA256 := \
	1cacbe095ef4880ea7879933c8e3c5075d1527cd6fbcb626a9b41e5daefd1a46 busybox_1.35.0-4+deb12u1.debian.tar.xz \
	9c01fe128b0eeded371c70e37d474fdb5055f71b5d0a778db44c6b0c62d3a7fa busybox_1.35.0-4+deb12u1.dsc \
	faeeb244c35a348a334f4a59e44626ee870fb07b6884d68c10ae8bc19f83a694 busybox_1.35.0.orig.tar.bz2
# pin end
$(eval $(call debian_source,busybox))

BUSYBOX := $(OUT)/busybox/busybox
# Our patches (image/patches/busybox/, each says why) go on top of Debian's.
BUSYBOX_PATCHES := $(sort $(wildcard image/patches/busybox/*.patch))
HOST_PACKAGES += patch
# BusyBox is Kbuild: our own command-line O= reaches it through MAKEFLAGS
# and would make it build out of tree (into our O=), so it gets an empty O=.
$(BUSYBOX): $(busybox_FETCHED) $(SYSROOT_HEADERS) configs/busybox.config \
		$(BUSYBOX_PATCHES)
	@echo "  BUILD   busybox $(busybox_VERSION)"
	$(Q)$(call unpack_source,busybox,$(BUILD)/busybox)
	$(Q)for p in $(BUSYBOX_PATCHES); do \
		patch -s -p1 -d $(BUILD)/busybox <$$p || \
		{ echo "error: busybox: $$p does not apply" >&2; exit 1; }; \
	done
	$(Q)cp configs/busybox.config $(BUILD)/busybox/.config
	$(Q)cd $(BUILD)/busybox && \
	{ yes '' | $(MAKE) O= oldconfig && \
	  $(MAKE) O= -j$(JOBS) CC=$(TARGET_CC) HOSTCC=gcc \
		CROSS_COMPILE=$(CROSS_COMPILE) EXTRA_CFLAGS="$(ARCH_CFLAGS)" \
		busybox; } >../busybox.log 2>&1 || \
		{ echo "error: busybox build failed, see $(BUILD)/busybox.log" >&2; exit 1; }
	$(Q)mkdir -p $(@D) && cp $(BUILD)/busybox/busybox $@

all: $(BUSYBOX)
