# image/deps/musl.mk: musl, the C library every payload binary links
# statically, installed with its gcc wrapper into $(SYSROOT).  Where Debian
# builds it (amd64, ppc64el) it is Debian's musl-dev, pinned like the
# kernel; for 32-bit powerpc, which Debian does not build, it is built from
# the same Debian source (1.2.3-1) with the arch file's CROSS_COMPILE.
# Why binary where we can: the same version and patches, and three CPU
# minutes less of every fresh build (`make test`'s 45 minutes,
# docs/developer.md).
MUSL_TRIPLET := $(subst -gnu,-musl,$(GNU_TRIPLET))
MUSL_STAMP := $(STAMPS)/musl.built
$(TARGET_CC): $(MUSL_STAMP)

ifneq ($(filter amd64 ppc64el,$(DEB_ARCH)),)
musl_DEB_ARCH := $(DEB_ARCH)
ifeq ($(DEB_ARCH),amd64)
# pin begin amd64: written by 'make pins' on 2026-12-05 from the
# archive apt uses; apt verified each file against the archive's
# signed index, then pin.sh took the sha256 sums below.
musl_DEB := musl-dev
musl_VERSION := 1.2.3-1
musl_SHA256 := \
	7c34f29a0c1aa12f6da1d25ed6de6fe6bbd9e048ee76b3dcb88c5e51fb65507f musl-dev_1.2.3-1_amd64.deb
# pin end
else
# pin begin ppc64el: written by 'make pins' on 2026-12-05 from the
# archive apt uses; apt verified each file against the archive's
# signed index, then pin.sh took the sha256 sums below.
musl_DEB := musl-dev
musl_VERSION := 1.2.3-1
musl_SHA256 := \
	40441262fe16956718aa58e5d06686fef50b3ab7d58d2554f6e519f4bb7b15a6 musl-dev_1.2.3-1_ppc64el.deb
# pin end
endif
$(eval $(call debian_binary,musl))

# Debian's files go where the source build's `make install` puts them:
# headers in include/, crt objects and archives in lib/, the specs and the
# wrapper rewritten from /usr/.../$(MUSL_TRIPLET) to $(SYSROOT).  Debian
# leaves out musl's empty libcrypt.a (crypt() is in libc.a); BusyBox's
# link names -lcrypt, so an empty one stands in as in musl's own install.
# ppc64el's libc.a has musl's 64-bit long double (Tag_GNU_Power_ABI_FP),
# as ARCH_CFLAGS gives everything else.
$(MUSL_STAMP): $(musl_FETCHED)
	@echo "  UNPACK  musl-dev $(musl_VERSION) ($(DEB_ARCH))"
	$(Q)rm -rf $(BUILD)/musl-dev && mkdir -p $(BUILD)/musl-dev \
		$(SYSROOT)/include $(SYSROOT)/lib $(SYSROOT)/bin
	$(Q)dpkg-deb -x $(musl_DEBFILE) $(BUILD)/musl-dev
	$(Q)cd $(BUILD)/musl-dev/usr && \
	cp -R include/$(MUSL_TRIPLET)/. $(SYSROOT)/include/ && \
	cp lib/$(MUSL_TRIPLET)/*.o lib/$(MUSL_TRIPLET)/*.a $(SYSROOT)/lib/ && \
	sed -e 's|/usr/include/$(MUSL_TRIPLET)|$(SYSROOT)/include|g' \
		-e 's|/usr/lib/$(MUSL_TRIPLET)|$(SYSROOT)/lib|g' \
		lib/$(MUSL_TRIPLET)/musl-gcc.specs \
		>$(SYSROOT)/lib/musl-gcc.specs
	$(Q)rm -f $(SYSROOT)/lib/libcrypt.a && \
		$(CROSS_COMPILE)ar rcD $(SYSROOT)/lib/libcrypt.a
	$(Q)printf '#!/bin/sh\nexec "$${REALGCC:-%s}" "$$@" -specs "%s"\n' \
		$(or $(CROSS_COMPILE),$(GNU_TRIPLET)-)gcc \
		$(SYSROOT)/lib/musl-gcc.specs >$(TARGET_CC) && \
		chmod 755 $(TARGET_CC)
	$(Q)touch $@

else
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

# --enable-wrapper=gcc: configure builds musl-gcc only when the compiler
# has glibc headers, which a bare cross gcc lacks.
# `make ARCH=ppc` hands ARCH=ppc to every sub-make, where it would
# override musl's own ARCH (powerpc): pass back what configure chose.
MUSL_MAKE_ARCH = ARCH=$$(sed -n 's/^ARCH = //p' config.mak)
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
endif

# Linux UAPI headers beside musl's (BusyBox and the payload need them).
SYSROOT_HEADERS := $(STAMPS)/kernel-headers
$(SYSROOT_HEADERS): $(MUSL_STAMP) configs/arch/$(ARCH).mk
	$(Q)cp -a $(KERNEL_HEADERS) $(SYSROOT)/include/
	$(Q)touch $@
