# image/deps/firmware.mk: the NIC firmware, from Debian's firmware packages
# (component non-free-firmware), pinned by version and sha256 in a lock
# per architecture (configs/firmware-$(ARCH).lock, written by `make pins`
# from configs/firmware-$(ARCH).packages).  The initramfs takes only the
# files its modules name (modinfo -F firmware): image/firmware.sh, called
# by image/mkinitramfs.sh, which fails naming the driver and the file when
# one is in no package and not in configs/firmware-$(ARCH).missing-ok.
# An architecture without a lock carries no firmware.  docs/drivers.md.

FIRMWARE_PACKAGES := configs/firmware-$(ARCH).packages
FIRMWARE_LOCK := configs/firmware-$(ARCH).lock
FIRMWARE_MISSING_OK := configs/firmware-$(ARCH).missing-ok
FIRMWARE_FETCHED := $(STAMPS)/firmware.fetched
# apt's private configuration and lists for non-free-firmware (the host's
# sources are left as they are): image/deps/firmware.sh.
FIRMWARE_APT := $(BUILD)/apt-firmware

ifneq ($(wildcard $(FIRMWARE_LOCK)),)
$(FIRMWARE_FETCHED): $(FIRMWARE_LOCK) image/deps/firmware.sh \
		image/deps/fetch.sh | $(HOST_DEPS_STAMP)
	$(Q)image/deps/firmware.sh fetch $(FIRMWARE_LOCK) $(DL_DIR) \
		$(abspath $(FIRMWARE_APT))
	$(Q)mkdir -p $(@D) && touch $@

# image.mk's initramfs rule runs mkinitramfs.sh; what it needs for the
# firmware step comes from here, as prerequisites and environment.
# $(INITRAMFS), not $(IMAGES)/...: one built elsewhere (INITRAMFS=PATH,
# as 015_reproducible's) carries the firmware too.
$(INITRAMFS): $(FIRMWARE_FETCHED) $(FIRMWARE_LOCK) \
	$(FIRMWARE_MISSING_OK) image/firmware.sh
$(INITRAMFS): export FIRMWARE_LOCK := $(abspath $(FIRMWARE_LOCK))
$(INITRAMFS): export FIRMWARE_DL := $(DL_DIR)
$(INITRAMFS): export FIRMWARE_MISSING_OK := \
	$(abspath $(FIRMWARE_MISSING_OK))
endif

.PHONY: fetch-firmware pins-firmware
fetch-firmware: $(FIRMWARE_FETCHED)
ifneq ($(wildcard $(FIRMWARE_PACKAGES)),)
pins: pins-firmware
endif
pins-firmware: $(HOST_DEPS_STAMP)
	$(Q)image/deps/firmware.sh pin $(FIRMWARE_PACKAGES) $(FIRMWARE_LOCK) \
		$(DL_DIR) $(abspath $(FIRMWARE_APT))
