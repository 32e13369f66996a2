# image/deps/server.mk: the server role's reference stack (Apache httpd,
# MariaDB, Postfix) from pinned Debian bookworm binary packages, as an
# overlay archive the boot loader loads after the base initramfs for the
# server entries (docs/server-stack.md).  The pins are a lock list per
# Debian architecture, one package a line with version and sha256
# (configs/server/packages-$(DEB_ARCH).lock), written by `make pins`
# through image/deps/pin-list.sh.  An architecture without a lock builds
# no overlay (SERVER_OVERLAY stays empty; the images then carry none).

HOST_PACKAGES += binutils cpio gzip
# The server tests type into a VM's console and read its versions file.
TEST_PACKAGES += socat jq

SERVER_CONF := configs/server
SERVER_LOCK := $(SERVER_CONF)/packages-$(DEB_ARCH).lock
SERVER_OVERLAY := $(if $(wildcard $(SERVER_LOCK)),$(IMAGES)/server-overlay.cpio.gz)
SERVER_STAGE := $(BUILD)/server-overlay
SERVER_FETCHED := $(STAMPS)/server.fetched
# The overlay's budget (compressed) beside the base's: a 64 MB boot partition or a
# TFTP server must still take kernel + initramfs + overlay.
SERVER_OVERLAY_BUDGET_KB := 49152

# Every package of the lock in $(DL_DIR) with its pinned sha256; fetch.sh
# names any file whose sum differs.
$(SERVER_FETCHED): $(SERVER_LOCK) image/deps/fetch.sh image/deps/server.mk \
		| $(HOST_DEPS_STAMP)
	$(Q)grep -v '^#' $(SERVER_LOCK) | while read -r pkg arch ver sum file; do \
		[ -n "$$file" ] || continue; \
		image/deps/fetch.sh binary server $$pkg:$$arch $$ver \
			$(DL_DIR) $$sum $$file || exit 1; \
	done
	$(Q)mkdir -p $(@D) && touch $@

ifneq ($(SERVER_OVERLAY),)
$(SERVER_OVERLAY): $(SERVER_FETCHED) $(wildcard $(SERVER_CONF)/*) \
		image/mkserver-overlay.sh image/deps/elf-closure.sh
	@echo "  GEN     $@"
	$(Q)image/mkserver-overlay.sh $(SERVER_STAGE) $@ $(SERVER_LOCK) \
		$(SERVER_CONF)/files.list $(SERVER_CONF) $(DL_DIR)
	$(Q)kb=$$(($$(stat -c %s $@) / 1024)); \
	if [ $$kb -ge $(SERVER_OVERLAY_BUDGET_KB) ]; then \
		echo "error: the server overlay is $$kb KiB, over the" \
			"$(SERVER_OVERLAY_BUDGET_KB) KiB budget:" \
			"trim $(SERVER_CONF)/files.list" >&2; rm -f $@; exit 1; fi

all: $(SERVER_OVERLAY)
endif

.PHONY: server-overlay fetch-server pins-server
server-overlay: $(SERVER_OVERLAY)
fetch-server: $(SERVER_FETCHED)

# `make pins` re-resolves the lock too (pin.sh handles one package per
# recipe; the stack is a closure of packages), on every architecture that
# Debian's archive has binary packages for (ARCH_NO_DEBS: not ppc).
ifeq ($(ARCH_NO_DEBS),)
pins: pins-server
endif
pins-server: $(HOST_DEPS_STAMP)
	$(Q)image/deps/pin-list.sh server $(SERVER_CONF)/packages.list \
		$(SERVER_CONF)/files.list $(SERVER_LOCK) $(DL_DIR) $(DEB_ARCH)
