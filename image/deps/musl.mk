# image/deps/musl.mk: musl, the C library every payload binary links
# statically.  Built from Debian's source for every ARCH (one recipe, the
# arch file's CROSS_COMPILE), installed with its gcc wrapper into $(SYSROOT).
musl_SRC := musl
# pin begin: written by 'make pins' on 2026-11-30 from the
# archive apt uses; apt verified each file against the archive's
# signed index, then pin.sh took the sha256 sums below.
musl_VERSION := 1.2.3-1
musl_SHA256 := \
	8f12cc808dbec030179a25ce2645a4c0b622ee8011c2afcec53b87ec5867a8cc musl_1.2.3-1.debian.tar.xz \
	243a7462e9c751da662c4c61d4c96b6318c796ba302b72f6cdf74ea5427a9b4f musl_1.2.3-1.dsc \
	7d5b0b6062521e4627e099e4c9dc8248d32a30285e959b7eecaa780cf8cfd4a4 musl_1.2.3.orig.tar.gz \
	eb83fe63629f569ca1bd2b52b852093c75656bc526ff19c1402151d7cd584ba2 musl_1.2.3.orig.tar.gz.asc
# pin end
$(eval $(call debian_source,musl))

MUSL_STAMP := $(STAMPS)/musl.built
# --enable-wrapper=gcc: configure builds musl-gcc only when the compiler
# has glibc headers, which a bare cross gcc lacks.
# `make ARCH=ppc64le` hands ARCH=ppc64le to every sub-make, where it would
# override musl's own ARCH (powerpc64): pass back what configure chose.
MUSL_MAKE_ARCH = ARCH=$$(sed -n 's/^ARCH = //p' config.mak)
$(TARGET_CC): $(MUSL_STAMP)
$(MUSL_STAMP): $(musl_FETCHED)
	@echo "  BUILD   musl $(musl_VERSION)"
	$(Q)$(call unpack_source,musl,$(BUILD)/musl)
	$(Q)cd $(BUILD)/musl && ./configure --prefix=$(SYSROOT) \
		--syslibdir=$(SYSROOT)/lib --target=$(GNU_TRIPLET) \
		--disable-shared --enable-wrapper=gcc \
		CROSS_COMPILE=$(CROSS_COMPILE) \
		CFLAGS="-O2 $(ARCH_CFLAGS)" >../musl.log 2>&1 && \
	$(MAKE) -j$(JOBS) $(MUSL_MAKE_ARCH) >>../musl.log 2>&1 && \
	$(MAKE) install $(MUSL_MAKE_ARCH) >>../musl.log 2>&1 || \
		{ echo "error: musl build failed, see $(BUILD)/musl.log" >&2; exit 1; }
	$(Q)touch $@

# Linux UAPI headers beside musl's (BusyBox and the payload need them).
SYSROOT_HEADERS := $(STAMPS)/kernel-headers
$(SYSROOT_HEADERS): $(MUSL_STAMP) configs/arch/$(ARCH).mk
	$(Q)cp -a $(KERNEL_HEADERS) $(SYSROOT)/include/
	$(Q)touch $@
