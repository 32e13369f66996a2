# image/deps/mbedtls.mk: mbedTLS, curl's TLS library: small, static-friendly,
# no config step (why not OpenSSL: docs/dependencies.md).
mbedtls_SRC := mbedtls
# pin begin: written by 'make pins' on 2026-11-30 from the
# archive apt uses; apt verified each file against the archive's
# signed index, then pin.sh took the sha256 sums below.
mbedtls_VERSION := 2.28.3-1
mbedtls_SHA256 := \
	3e03c61f63c7bbcd0bf695b53e6663ab448cc2e15429cd67d0e4f32e699645a9 mbedtls_2.28.3-1.debian.tar.xz \
	a8bf91b5ffb40654efb0ebe0c962ac1e87b8eed5e104880982eaa70dd4bb33e3 mbedtls_2.28.3-1.dsc \
	3b4953aa55a681e084d31892d9904cc5328d6b4958ea57b90ae4b4f94ae69a8d mbedtls_2.28.3.orig.tar.gz
# pin end
$(eval $(call debian_source,mbedtls))

MBEDTLS_STAMP := $(STAMPS)/mbedtls.built
$(MBEDTLS_STAMP): $(mbedtls_FETCHED) $(MUSL_STAMP)
	@echo "  BUILD   mbedtls $(mbedtls_VERSION)"
	$(Q)$(call unpack_source,mbedtls,$(BUILD)/mbedtls)
	$(Q)$(MAKE) -C $(BUILD)/mbedtls/library -j$(JOBS) CC=$(TARGET_CC) \
		AR=$(TARGET_AR) CFLAGS="-O2 $(ARCH_CFLAGS)" static \
		>$(BUILD)/mbedtls.log 2>&1 || \
		{ echo "error: mbedtls build failed, see $(BUILD)/mbedtls.log" >&2; exit 1; }
	$(Q)cp $(BUILD)/mbedtls/library/*.a $(SYSROOT)/lib/ && \
		cp -r $(BUILD)/mbedtls/include/mbedtls $(SYSROOT)/include/ && \
		cp -r $(BUILD)/mbedtls/include/psa $(SYSROOT)/include/
	$(Q)touch $@
