# image/image.mk: the bootable outputs under $(IMAGES): the kernel, the
# initramfs, the hybrid ISO, the USB-stick image and the netboot tree.
# None of it needs root or loop devices.

HOST_PACKAGES += cpio gzip zstd xz-utils binutils kmod grub-common \
	grub-pc-bin grub-efi-amd64-bin xorriso mtools dosfstools \
	syslinux-common pxelinux faketime
TEST_PACKAGES += qemu-system-x86 qemu-utils ovmf ipxe-qemu mtools \
	dnsmasq-base iproute2 $(ARCH_TEST_PACKAGES)

# What differs per architecture comes from configs/arch/$(ARCH).mk:
# KERNEL_FILE      the kernel's name in the package's /boot (vmlinuz on
#                  x86_64; ppc64el ships an ELF vmlinux)
# GRUB_TARGET_DEB  GRUB's platform package when the host's cannot serve the
#                  target (grub-ieee1275-bin:ppc64el); GRUB_PLATFORM is
#                  the platform the ISO and the netboot tree then use
# NETBOOT_LOADERS  loader files copied into the netboot tree (pxelinux)
KERNEL_FILE ?= vmlinuz
GRUB_PLATFORM ?=
GRUB_NET_PLATFORM ?= x86_64-efi
NETBOOT_LOADERS ?= /usr/lib/PXELINUX/pxelinux.0 \
	/usr/lib/syslinux/modules/bios/ldlinux.c32

# The target's GRUB modules, unpacked (never installed: the ppc64el package
# conflicts with the host's grub-pc).  Its version is the host's
# grub-common's, as grub-mkrescue and grub-mknetdir require; apt checks it
# against the archive's signed index, as for every host package.
ifneq ($(GRUB_TARGET_DEB),)
# The package's architecture when it is not the target's (ppc takes
# ppc64el's, whose Open Firmware GRUB is 32-bit big-endian code).
GRUB_TARGET_DEB_ARCH ?= $(DEB_ARCH)
GRUB_LIB := $(BUILD)/grub-target/usr/lib/grub
GRUB_TARGET := $(STAMPS)/grub-target
$(GRUB_TARGET): | $(HOST_DEPS_STAMP)
	$(Q)v=$$(dpkg-query -W -f='$${Version}' grub-common) && \
	deb=$(DL_DIR)/$(GRUB_TARGET_DEB)_$$(echo $$v | sed 's/^[0-9]*://')_$(GRUB_TARGET_DEB_ARCH).deb && \
	if [ ! -f $$deb ]; then \
		echo "  FETCH   $(GRUB_TARGET_DEB):$(GRUB_TARGET_DEB_ARCH) $$v"; \
		mkdir -p $(DL_DIR) && t=$$(mktemp -d $(DL_DIR)/.fetch.XXXXXX) && \
		{ (cd $$t && apt-get download -qq -o APT::Sandbox::User=root \
			$(GRUB_TARGET_DEB):$(GRUB_TARGET_DEB_ARCH)=$$v) || \
		{ rm -rf $$t; echo "error: cannot download $(GRUB_TARGET_DEB):$(GRUB_TARGET_DEB_ARCH)" \
			"$$v (the host's grub-common version)" >&2; exit 1; }; } && \
		{ [ -f $$deb ] || mv $$t/$$(basename $$deb) $$deb; } && \
		rm -rf $$t; \
	fi && rm -rf $(BUILD)/grub-target && dpkg-deb -x $$deb $(BUILD)/grub-target
	$(Q)mkdir -p $(@D) && touch $@
else
GRUB_LIB := /usr/lib/grub
GRUB_TARGET :=
endif

# The modules grub-mknetdir puts in the netboot tree.  For Open Firmware
# they are the target's with ofnet.mod rebuilt from Debian's source:
# bookworm's finds no network card (image/grub-ofnet.sh says why), so a
# netbooted GRUB could not read its own config.  Checked by
# qemu-tests/ppc64le/030_pseries_netboot.
GRUB_NET_LIB := $(GRUB_LIB)/$(GRUB_NET_PLATFORM)
GRUB_NET :=
GRUB_NET_RELATIVE :=
ifeq ($(GRUB_NET_PLATFORM),powerpc-ieee1275)
# The tree may sit in a subdirectory of the TFTP root (netboot/serve puts
# it under ppc64le/): core.elf gets an empty prefix, so GRUB takes grub/
# from the bootfile's path, and grub.cfg's paths are relative to it.
GRUB_NET_RELATIVE := 1
HOST_PACKAGES += gcc-powerpc-linux-gnu gcc make bison flex
GRUB_NET_LIB := $(abspath $(BUILD))/grub-net/$(GRUB_NET_PLATFORM)
GRUB_NET := $(STAMPS)/grub-net
$(GRUB_NET): $(grub2_FETCHED) $(GRUB_TARGET) image/grub-ofnet.sh
	@echo "  BUILD   grub $(grub2_VERSION) ofnet.mod, see $(BUILD)/grub-ofnet.log"
	$(Q)v=$$(dpkg-query -W -f='$${Version}' grub-common) && \
	[ "$$v" = "$(grub2_VERSION)" ] || { echo "error: grub2 source is" \
		"pinned at $(grub2_VERSION), the host's grub-common is $$v:" \
		"run 'make pins'" >&2; exit 1; }
	$(Q)$(call unpack_source,grub2,$(BUILD)/grub2)
	$(Q)image/grub-ofnet.sh $(abspath $(BUILD))/grub2 \
		$(abspath $(BUILD))/grub-ofnet $(GRUB_LIB)/$(GRUB_NET_PLATFORM) \
		$(GRUB_NET_LIB) >$(BUILD)/grub-ofnet.log 2>&1 || \
		{ tail -n 20 $(BUILD)/grub-ofnet.log >&2; echo "error:" \
		  "rebuilding ofnet.mod failed, see $(BUILD)/grub-ofnet.log" >&2; \
		  exit 1; }
	$(Q)rm -rf $(BUILD)/grub2 $(BUILD)/grub-ofnet
	$(Q)mkdir -p $(@D) && touch $@
endif

# The kernel: vmlinuz and modules straight from the pinned Debian package,
# unless the arch builds its own (KERNEL_DEFCONFIG: image/deps/linux.mk
# then defines LINUX_KVER, LINUX_ROOT and LINUX_UNPACKED).
ifeq ($(KERNEL_DEFCONFIG),)
LINUX_KVER := $(patsubst linux-image-%,%,$(linux_DEB))
LINUX_ROOT := $(BUILD)/linux
LINUX_UNPACKED := $(STAMPS)/linux.unpacked
$(LINUX_UNPACKED): $(linux_FETCHED)
	@echo "  UNPACK  linux $(linux_VERSION) ($(LINUX_KVER))"
	$(Q)rm -rf $(LINUX_ROOT) && mkdir -p $(BUILD)
	$(Q)dpkg-deb -x $(linux_DEBFILE) $(LINUX_ROOT)
	$(Q)depmod -b $(LINUX_ROOT) $(LINUX_KVER)
	$(Q)mkdir -p $(@D) && touch $@
endif

# $(call image_size,FILE): the build's size line for one output.
image_size = echo "  SIZE    $(notdir $(1)) $$(du -k --apparent-size $(1) | \
	cut -f1) KiB"

VMLINUZ := $(IMAGES)/$(KERNEL_FILE)
$(VMLINUZ): $(LINUX_UNPACKED)
	$(Q)mkdir -p $(@D)
	$(Q)cp $(LINUX_ROOT)/boot/$(KERNEL_FILE)-$(LINUX_KVER) $@
	$(Q)$(call image_size,$@)

# The client initramfs; kernel + initramfs must stay under the budget:
# just above what the image with signed modules (Secure Boot's lockdown
# loads no other) and every listed driver's firmware needs, a bound that
# catches a module list or a payload grown by accident; at most 24 MiB
# (the sizes and boot times are in docs/drivers.md).  IMAGE_STRIP (the arch
# file's; empty: none) strips the image's benchboot and strips and
# compresses its modules (image/modules.sh); IMAGE_COMPRESS is the
# archive's compressor, gzip or zstd (the name stays .cpio.gz: every boot
# loader and menu knows it, and the kernel reads either).  INITRAMFS is
# named in the Makefile.
INITRAMFS_BUDGET_KB ?= 15360
IMAGE_STRIP ?=
IMAGE_COMPRESS ?= gzip
INITRAMFS_SRCS := $(shell find initramfs -type f 2>/dev/null) \
	$(wildcard configs/suite/*.suite)
IMAGE_RELEASE := benchboot $(BENCHBOOT_VERSION) $(ARCH) \
	$(shell git describe --always --dirty 2>/dev/null) \
	linux $(linux_VERSION) ($(LINUX_KVER))
# Its digest covers the kernel and the overlay too (image/image-digest.sh).
$(INITRAMFS): $(LINUX_UNPACKED) $(BUSYBOX) $(BENCHBOOT) $(INITRAMFS_SRCS) \
		configs/modules-$(ARCH).list image/modules.sh \
		image/mkinitramfs.sh image/image-digest.sh $(VMLINUZ) \
		$(SERVER_OVERLAY)
	@echo "  GEN     $@"
	$(Q)TARGET_RUN="$(TARGET_RUN)" IMAGE_RELEASE="$(IMAGE_RELEASE)" \
		IMAGE_STRIP="$(IMAGE_STRIP)" IMAGE_COMPRESS=$(IMAGE_COMPRESS) \
		IMAGE_KERNEL=$(VMLINUZ) \
		IMAGE_OVERLAY=$(SERVER_OVERLAY) \
		image/mkinitramfs.sh \
		$(BUILD)/initramfs $@ $(BUSYBOX) $(BENCHBOOT) $(LINUX_ROOT) \
		$(LINUX_KVER) configs/modules-$(ARCH).list
	$(Q)$(call image_size,$@)
	$(Q)total=$$(($$(stat -c %s $(VMLINUZ)) / 1024 + \
		$$(stat -c %s $@) / 1024)); \
	echo "  SIZE    kernel + initramfs $$total KiB" \
		"(budget $(INITRAMFS_BUDGET_KB) KiB)"; \
	if [ $$total -ge $(INITRAMFS_BUDGET_KB) ]; then \
		echo "error: kernel + initramfs is $$total KiB, over the" \
			"$(INITRAMFS_BUDGET_KB) KiB budget: trim" \
			"configs/modules-$(ARCH).list" >&2; rm -f $@; exit 1; fi

# The ISO: grub-mkrescue makes one image that boots as a CD and as a disk,
# on BIOS (El Torito + MBR) and UEFI (EFI system partition).
ISO := $(IMAGES)/benchboot-$(ARCH).iso
# $(call iso_tree,DIR[,ENV]): the file tree both images hold, built in a
# private directory (several makes may share $(O)); ENV goes to menu.sh
# (the stick's MENU_FIELD=1).  The server entries also load the server
# overlay (image/deps/server.mk), when ARCH has one.
server_initrd = $(if $(SERVER_OVERLAY),$(1)$(notdir $(SERVER_OVERLAY)))
iso_tree = rm -rf $(1) && mkdir -p $(1)/boot/grub && \
	cp $(VMLINUZ) $(INITRAMFS) $(SERVER_OVERLAY) $(1)/boot/ && \
	SERVER_INITRD=$(call server_initrd,/boot/) $(2) \
	netboot/menu.sh grub /boot/$(KERNEL_FILE) /boot/initramfs.cpio.gz \
		>$(1)/boot/grub/grub.cfg && \
	find $(1) -exec touch -h -d @$(SOURCE_DATE_EPOCH) {} +
# Default platforms: the host's i386-pc and x86_64-efi.  The menus are
# text on serial and console: no fonts, themes or translations (11 MB).
# Reproducible (docs/reproducible.md): xorriso and mtools take their dates
# and the EFI image's FAT serial from SOURCE_DATE_EPOCH, but grub-mkrescue
# derives the ISO's volume date, and the filesystem UUID its core images
# search for, from the clock: it runs on a clock stopped at that date.
REPRO_CLOCK := TZ=UTC faketime -f "$(shell date -u -d @$(SOURCE_DATE_EPOCH) \
	'+%Y-%m-%d %H:%M:%S')"
GRUB_MKRESCUE := $(REPRO_CLOCK) grub-mkrescue --fonts= --themes= --locales= \
	$(if $(GRUB_PLATFORM),-d $(GRUB_LIB)/$(GRUB_PLATFORM))
# x86_64 (UEFI Secure Boot, docs/secure-boot.md): grub-mkrescue makes the
# BIOS part only (i386-pc); the UEFI part is Debian's signed chain, shim
# then signed GRUB, on a FAT image of our own (image/efi.sh): the El
# Torito EFI entry of the ISO and, as a GPT/MBR partition of the hybrid
# image, the stick's EFI system partition.  Debian's signed kernel (the
# pinned package) is what GRUB then loads.  EFI_MARKER, a file of the ISO
# tree, is how the signed GRUB finds the tree (its config is built in).
EFI_IMG :=
ISO_EFI_ARGS :=
ifeq ($(DEB_ARCH),amd64)
SIGNED_ROOT := $(BUILD)/signed-boot
SIGNED_UNPACKED := $(STAMPS)/signed-boot.unpacked
SIGNED_SHIM := $(SIGNED_ROOT)/usr/lib/shim/shimx64.efi.signed
SIGNED_MM := $(SIGNED_ROOT)/usr/lib/shim/mmx64.efi.signed
SIGNED_GRUB_DIR := $(SIGNED_ROOT)/usr/lib/grub/x86_64-efi-signed
$(SIGNED_UNPACKED): $(shim_FETCHED) $(shimhelpers_FETCHED) \
		$(grubsigned_FETCHED)
	@echo "  UNPACK  shim $(shim_VERSION), grub-efi-amd64-signed" \
		"$(grubsigned_VERSION)"
	$(Q)rm -rf $(SIGNED_ROOT) && mkdir -p $(SIGNED_ROOT) && \
	for f in $(shim_DEBFILE) $(shimhelpers_DEBFILE) $(grubsigned_DEBFILE); \
	do dpkg-deb -x $$f $(SIGNED_ROOT) || exit 1; done
	$(Q)mkdir -p $(@D) && touch $@
EFI_MARKER := /.disk/benchboot-$(ARCH)
EFI_IMG := $(BUILD)/efi.img
$(EFI_IMG): $(SIGNED_UNPACKED) image/efi.sh
	@echo "  EFI     $@ (shim, signed GRUB)"
	$(Q)image/efi.sh $@ $(SIGNED_SHIM) $(SIGNED_GRUB_DIR)/gcdx64.efi.signed \
		$(SIGNED_MM) $(EFI_MARKER)
	$(Q)$(call image_size,$@)
GRUB_MKRESCUE += -d $(GRUB_LIB)/i386-pc
# iso_efi DIR: put the EFI image and the marker in the tree DIR; the
# xorriso commands after grub-mkrescue's own add the El Torito EFI entry
# and the partition pointing at it.
iso_efi = cp $(EFI_IMG) $(1)/efi.img && mkdir -p $(1)/.disk && \
	echo "$(IMAGE_RELEASE)" >$(1)$(EFI_MARKER) && \
	touch -h -d @$(SOURCE_DATE_EPOCH) $(1) $(1)/efi.img $(1)/.disk \
		$(1)$(EFI_MARKER) &&
ISO_EFI_ARGS := -boot_image any next -boot_image any efi_path=/efi.img \
	-boot_image any efi_boot_part=--efi-boot-image
endif
$(ISO): $(VMLINUZ) $(INITRAMFS) netboot/menu.sh image/image.mk $(GRUB_TARGET) \
		$(SERVER_OVERLAY) $(EFI_IMG)
	@echo "  ISO     $@"
	$(Q)mkdir -p $(BUILD) && d=$$(mktemp -d $(BUILD)/iso.XXXXXX) && \
	trap 'rm -rf $$d' EXIT && \
	$(call iso_tree,$$d/tree) && $(call iso_efi,$$d/tree) \
	{ $(GRUB_MKRESCUE) -o $$d/out.iso $$d/tree -- -volid BENCHBOOT \
		$(ISO_EFI_ARGS) >$(BUILD)/iso.log 2>&1 || \
		{ echo "error: grub-mkrescue failed, see $(BUILD)/iso.log" >&2; \
		  exit 1; }; } && \
	mv $$d/out.iso $@
	$(Q)$(call image_size,$@)

# The USB stick: the same hybrid image with a FAT32 partition labelled
# BBRESULTS appended, which the booted system mounts on /results; its menu
# starts with the field test's entries, and the partition holds the field
# test's parameter file, benchboot/params.txt, all comments
# (docs/boot-usb.md).
USB_IMG := $(IMAGES)/benchboot-$(ARCH).img
USB_RESULTS_MB := 64
# The FAT volume id is the creation time by default: the commit's instead;
# --invariant keeps the clock out of the label's directory entry, and
# README.TXT takes the commit's time (mcopy -m: the source's mtime).
FAT_VOLUME_ID := $(shell printf %08X $$(($(SOURCE_DATE_EPOCH) & 0xFFFFFFFF)))
$(USB_IMG): $(VMLINUZ) $(INITRAMFS) netboot/menu.sh image/image.mk \
		image/README-results.txt image/params.txt $(GRUB_TARGET) \
		$(SERVER_OVERLAY) $(EFI_IMG)
	@echo "  USB     $@"
	$(Q)mkdir -p $(BUILD) && d=$$(mktemp -d $(BUILD)/usb.XXXXXX) && \
	trap 'rm -rf $$d' EXIT && \
	$(call iso_tree,$$d/tree,MENU_FIELD=1) && $(call iso_efi,$$d/tree) \
	mkfs.vfat --invariant -F 32 -n BBRESULTS -i $(FAT_VOLUME_ID) \
		-C $$d/bbresults.fat $$(($(USB_RESULTS_MB) * 1024)) >/dev/null && \
	mkdir $$d/benchboot && \
	cp image/README-results.txt $$d/README.TXT && \
	cp image/params.txt $$d/benchboot/params.txt && \
	touch -d @$(SOURCE_DATE_EPOCH) $$d/README.TXT $$d/benchboot \
		$$d/benchboot/params.txt && \
	mcopy -m -i $$d/bbresults.fat $$d/README.TXT ::README.TXT && \
	mcopy -m -s -i $$d/bbresults.fat $$d/benchboot ::benchboot && \
	{ $(GRUB_MKRESCUE) -o $$d/out.img $$d/tree -- -volid BENCHBOOT \
		$(ISO_EFI_ARGS) -append_partition 3 0x0c $$d/bbresults.fat \
		>$(BUILD)/usb.log 2>&1 || \
		{ echo "error: grub-mkrescue failed, see $(BUILD)/usb.log" >&2; \
		  exit 1; }; } && \
	mv $$d/out.img $@
	$(Q)$(call image_size,$@)

# The netboot tree: pxelinux for BIOS, GRUB's network image for UEFI, an
# iPXE script for HTTP boot, and the kernel and initramfs they all load.
# x86_64 adds Debian's signed chain for UEFI PXE and UEFI HTTP boot with
# Secure Boot (docs/boot-pxe.md): bootx64.efi is shim, which loads
# grubx64.efi (Debian's signed network GRUB, grubnetx64) from the same
# directory by TFTP or HTTP; that GRUB reads grub/ beside it.
NETBOOT := $(IMAGES)/netboot
NETBOOT_STAMP := $(STAMPS)/netboot
NETBOOT_SIGNED :=
ifeq ($(DEB_ARCH),amd64)
NETBOOT_SIGNED := $(SIGNED_UNPACKED)
netboot_signed = cp $(SIGNED_SHIM) $(1)/bootx64.efi && \
	cp $(SIGNED_GRUB_DIR)/grubnetx64.efi.signed $(1)/grubx64.efi && \
	cp $(SIGNED_MM) $(1)/mmx64.efi &&
endif
$(NETBOOT_STAMP): $(VMLINUZ) $(INITRAMFS) netboot/menu.sh image/image.mk \
		$(GRUB_TARGET) $(GRUB_NET) $(SERVER_OVERLAY) $(NETBOOT_SIGNED)
	@echo "  NETBOOT $(NETBOOT)"
	$(Q)mkdir -p $(BUILD) && d=$$(mktemp -d $(BUILD)/netboot.XXXXXX) && \
	trap 'rm -rf $$d' EXIT && t=$$d/netboot && \
	mkdir -p $$t && \
	cp $(VMLINUZ) $(INITRAMFS) $(SERVER_OVERLAY) $$t/ && \
	$(if $(NETBOOT_LOADERS),cp $(NETBOOT_LOADERS) $$t/ &&) \
	$(call netboot_signed,$$t) \
	{ $(REPRO_CLOCK) grub-mknetdir --fonts= --themes= --locales= \
		--net-directory=$$t --subdir=grub \
		-d $(GRUB_NET_LIB) >$(BUILD)/netboot.log 2>&1 || \
		{ echo "error: grub-mknetdir failed, see $(BUILD)/netboot.log" >&2; \
		  exit 1; }; } && \
	$(if $(GRUB_NET_RELATIVE),\
	{ $(REPRO_CLOCK) grub-mkimage -d $(GRUB_NET_LIB) -O $(GRUB_NET_PLATFORM) -p '' \
		-o $$t/grub/$(GRUB_NET_PLATFORM)/core.elf tftp ofnet \
		>>$(BUILD)/netboot.log 2>&1 || \
		{ echo "error: grub-mkimage failed: see $(BUILD)/netboot.log" >&2; \
		  exit 1; }; } &&) \
	{ echo "KERNEL=$(KERNEL_FILE)"; echo "INITRD=initramfs.cpio.gz"; \
	  echo "SERVER_INITRD=$(call server_initrd,)"; \
	  echo "GRUB_RELATIVE=$(if $(GRUB_NET_RELATIVE),1,0)"; \
	  echo "BOOT_CONSOLE=$$BOOT_CONSOLE"; } >$$t/menu.env && \
	netboot/menu.sh tree $$t && \
	find $$t -exec touch -h -d @$(SOURCE_DATE_EPOCH) {} + && \
	rm -rf $(NETBOOT) && mv $$t $(NETBOOT)
	$(Q)echo "  SIZE    netboot/ $$(du -sk --apparent-size $(NETBOOT) | \
		cut -f1) KiB"
	$(Q)mkdir -p $(@D) && touch $@

.PHONY: kernel initramfs iso usb netboot images
kernel: $(VMLINUZ)
initramfs: $(INITRAMFS)
iso: $(ISO)
usb: $(USB_IMG)
netboot: $(NETBOOT_STAMP)
images: $(VMLINUZ) $(INITRAMFS) $(ISO) $(USB_IMG) $(NETBOOT_STAMP)
all: images
