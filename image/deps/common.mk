# image/deps/common.mk: the machinery every pinned-input recipe uses.
# A recipe NAME.mk sets NAME_SRC (Debian source package) or NAME_DEB
# (binary package), NAME_VERSION and NAME_SHA256 ("sum file" pairs) inside
# its pin block, then calls $(eval $(call debian_source,NAME)) or
# $(eval $(call debian_binary,NAME)) and writes its build rule.

HOST_PACKAGES += dpkg-dev apt

# $(call debian_source,NAME): NAME_FETCHED is a stamp proving every file of
# the pinned source package sits in $(DL_DIR) with its pinned sha256;
# NAME_DSC is the .dsc to unpack.
define debian_source
$(1)_FETCHED := $(STAMPS)/$(1).fetched
$(1)_DSC := $(DL_DIR)/$$(filter %.dsc,$$($(1)_SHA256))
$$($(1)_FETCHED): image/deps/$(1).mk image/deps/fetch.sh | $(HOST_DEPS_STAMP)
	$$(Q)image/deps/fetch.sh source $(1) $$($(1)_SRC) $$($(1)_VERSION) \
		$(DL_DIR) $$($(1)_SHA256)
	$$(Q)mkdir -p $$(@D) && touch $$@
.PHONY: fetch-$(1)
fetch-$(1): $$($(1)_FETCHED)
DEPS += $(1)
endef

# $(call debian_binary,NAME): the same for one binary .deb (NAME_DEB for
# architecture NAME_DEB_ARCH); NAME_DEBFILE is its path in $(DL_DIR).
define debian_binary
$(1)_FETCHED := $(STAMPS)/$(1).fetched
$(1)_DEBFILE := $(DL_DIR)/$$(filter %.deb,$$($(1)_SHA256))
$$($(1)_FETCHED): image/deps/$(1).mk image/deps/fetch.sh | $(HOST_DEPS_STAMP)
	$$(Q)image/deps/fetch.sh binary $(1) $$($(1)_DEB):$$($(1)_DEB_ARCH) \
		$$($(1)_VERSION) $(DL_DIR) $$($(1)_SHA256)
	$$(Q)mkdir -p $$(@D) && touch $$@
.PHONY: fetch-$(1)
fetch-$(1): $$($(1)_FETCHED)
DEPS += $(1)
endef

# $(call unpack_source,NAME,DIR): a fresh DIR holding the source package
# with Debian's patches applied (checksums were verified by fetch.sh).
unpack_source = rm -rf $(2) && mkdir -p $(dir $(2)) && \
	dpkg-source --no-check -x $($(1)_DSC) $(2) >$(2).unpack.log 2>&1 || \
	{ echo "error: $(1): unpacking $($(1)_DSC) failed, see $(2).unpack.log" >&2; exit 1; }
