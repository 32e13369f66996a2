# image/image.mk: the bootable outputs under $(IMAGES): the kernel, the
# initramfs, the hybrid ISO, the USB-stick image and the netboot tree.
# None of it needs root or loop devices.

HOST_PACKAGES += cpio gzip kmod grub-common grub-pc-bin grub-efi-amd64-bin \
	xorriso mtools dosfstools syslinux-common pxelinux
TEST_PACKAGES += qemu-system-x86 qemu-utils ovmf ipxe-qemu mtools \
	dnsmasq-base iproute2

# The kernel: vmlinuz and modules straight from the pinned Debian package.
LINUX_KVER := $(patsubst linux-image-%,%,$(linux_DEB))
LINUX_ROOT := $(BUILD)/linux
LINUX_UNPACKED := $(STAMPS)/linux.unpacked
$(LINUX_UNPACKED): $(linux_FETCHED)
	@echo "  UNPACK  linux $(linux_VERSION) ($(LINUX_KVER))"
	$(Q)rm -rf $(LINUX_ROOT)
	$(Q)dpkg-deb -x $(linux_DEBFILE) $(LINUX_ROOT)
	$(Q)depmod -b $(LINUX_ROOT) $(LINUX_KVER)
	$(Q)mkdir -p $(@D) && touch $@

# $(call image_size,FILE): the build's size line for one output.
image_size = echo "  SIZE    $(notdir $(1)) $$(du -k --apparent-size $(1) | \
	cut -f1) KiB"

VMLINUZ := $(IMAGES)/vmlinuz
$(VMLINUZ): $(LINUX_UNPACKED)
	$(Q)mkdir -p $(@D)
	$(Q)cp $(LINUX_ROOT)/boot/vmlinuz-$(LINUX_KVER) $@
	$(Q)$(call image_size,$@)

# The client initramfs; kernel + initramfs must stay under the budget
# (a small TFTP server or a 16 MB boot partition must take them).
INITRAMFS := $(IMAGES)/initramfs.cpio.gz
INITRAMFS_BUDGET_KB := 16384
INITRAMFS_SRCS := $(shell find initramfs -type f 2>/dev/null)
$(INITRAMFS): $(LINUX_UNPACKED) $(BUSYBOX) $(BENCHBOOT) $(INITRAMFS_SRCS) \
		configs/modules-$(ARCH).list image/modules.sh \
		image/mkinitramfs.sh | $(VMLINUZ)
	@echo "  GEN     $@"
	$(Q)TARGET_RUN="$(TARGET_RUN)" image/mkinitramfs.sh \
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
# $(call iso_tree,DIR): the file tree both images hold.
iso_tree = rm -rf $(1) && mkdir -p $(1)/boot/grub && \
	cp $(VMLINUZ) $(INITRAMFS) $(1)/boot/ && \
	netboot/menu.sh grub /boot/vmlinuz /boot/initramfs.cpio.gz \
		>$(1)/boot/grub/grub.cfg
$(ISO): $(VMLINUZ) $(INITRAMFS) netboot/menu.sh image/image.mk
	@echo "  ISO     $@"
	$(Q)$(call iso_tree,$(BUILD)/iso)
	$(Q)grub-mkrescue -o $@.tmp $(BUILD)/iso -- -volid BENCHBOOT \
		>$(BUILD)/iso.log 2>&1 || \
		{ echo "error: grub-mkrescue failed, see $(BUILD)/iso.log" >&2; \
		  exit 1; }
	$(Q)mv $@.tmp $@
	$(Q)$(call image_size,$@)

# The USB stick: the same hybrid image with a FAT32 partition labelled
# BBRESULTS appended, which the booted system mounts on /results.
USB_IMG := $(IMAGES)/benchboot-$(ARCH).img
USB_RESULTS_MB := 64
$(USB_IMG): $(VMLINUZ) $(INITRAMFS) netboot/menu.sh image/image.mk \
		image/README-results.txt
	@echo "  USB     $@"
	$(Q)$(call iso_tree,$(BUILD)/usb)
	$(Q)rm -f $(BUILD)/bbresults.fat
	$(Q)mkfs.vfat -F 32 -n BBRESULTS -C $(BUILD)/bbresults.fat \
		$$(($(USB_RESULTS_MB) * 1024)) >/dev/null
	$(Q)mcopy -i $(BUILD)/bbresults.fat image/README-results.txt ::README.TXT
	$(Q)grub-mkrescue -o $@.tmp $(BUILD)/usb -- -volid BENCHBOOT \
		-append_partition 3 0x0c $(BUILD)/bbresults.fat \
		>$(BUILD)/usb.log 2>&1 || \
		{ echo "error: grub-mkrescue failed, see $(BUILD)/usb.log" >&2; \
		  exit 1; }
	$(Q)rm -f $(BUILD)/bbresults.fat
	$(Q)mv $@.tmp $@
	$(Q)$(call image_size,$@)

# The netboot tree: pxelinux for BIOS, GRUB's network image for UEFI, an
# iPXE script for HTTP boot, and the kernel and initramfs they all load.
NETBOOT := $(IMAGES)/netboot
NETBOOT_STAMP := $(STAMPS)/netboot
PXELINUX_DIR := /usr/lib/PXELINUX
SYSLINUX_BIOS := /usr/lib/syslinux/modules/bios
$(NETBOOT_STAMP): $(VMLINUZ) $(INITRAMFS) netboot/menu.sh image/image.mk
	@echo "  NETBOOT $(NETBOOT)"
	$(Q)rm -rf $(NETBOOT) && mkdir -p $(NETBOOT)/pxelinux.cfg
	$(Q)cp $(VMLINUZ) $(INITRAMFS) $(NETBOOT)/
	$(Q)cp $(PXELINUX_DIR)/pxelinux.0 $(SYSLINUX_BIOS)/ldlinux.c32 \
		$(NETBOOT)/
	$(Q)netboot/menu.sh pxelinux vmlinuz initramfs.cpio.gz \
		>$(NETBOOT)/pxelinux.cfg/default
	$(Q)grub-mknetdir --net-directory=$(NETBOOT) --subdir=grub \
		-d /usr/lib/grub/x86_64-efi >$(BUILD)/netboot.log 2>&1 || \
		{ echo "error: grub-mknetdir failed, see $(BUILD)/netboot.log" >&2; \
		  exit 1; }
	$(Q)netboot/menu.sh grub /vmlinuz /initramfs.cpio.gz \
		>$(NETBOOT)/grub/grub.cfg
	$(Q)netboot/menu.sh ipxe vmlinuz initramfs.cpio.gz >$(NETBOOT)/boot.ipxe
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
