# image/deps/cjson.mk: cJSON, the JSON library for results and the control
# protocol (small, one file, fuzzed upstream; see docs/dependencies.md).
cjson_SRC := cjson
# pin begin: written by 'make pins' on 2026-11-30 from the
# archive apt uses; apt verified each file against the archive's
# signed index, then pin.sh took the sha256 sums below.
cjson_VERSION := 1.7.15-1+deb12u4
cjson_SHA256 := \
	afd19a970966cf534ff1e9ec077d710a5e7e78eb4ec9b499c8bdc32e55da12cb cjson_1.7.15-1+deb12u4.debian.tar.xz \
	764c2de141d680f4fb4cada30c526dacaa30ead061b9b9c34f2b81e2df0f8439 cjson_1.7.15-1+deb12u4.dsc \
	5308fd4bd90cef7aa060558514de6a1a4a0819974a26e6ed13973c5f624c24b2 cjson_1.7.15.orig.tar.gz
# pin end
$(eval $(call debian_source,cjson))

CJSON_LIB := $(SYSROOT)/lib/libcjson.a
$(CJSON_LIB): $(cjson_FETCHED) $(MUSL_STAMP)
	@echo "  BUILD   cjson $(cjson_VERSION)"
	$(Q)$(call unpack_source,cjson,$(BUILD)/cjson)
	$(Q)cd $(BUILD)/cjson && $(TARGET_CC) -O2 $(ARCH_CFLAGS) -c cJSON.c \
		-o cJSON.o && $(TARGET_AR) rcs $@.tmp cJSON.o && \
		mkdir -p $(SYSROOT)/include/cjson && \
		cp cJSON.h $(SYSROOT)/include/cjson/ && mv $@.tmp $@
