# image/deps/curl.mk: libcurl, static and minimal (http, https, file, ftp)
# over mbedTLS: uploads, suite fetches and the optional HTTPS engine.
curl_SRC := curl
HOST_PACKAGES += autoconf automake libtool pkg-config patch
# pin begin: written by 'make pins' on 2026-11-30 from the
# archive apt uses; apt verified each file against the archive's
# signed index, then pin.sh took the sha256 sums below.
curl_VERSION := 7.88.1-10+deb12u15
curl_SHA256 := \
	961b78bc48492c5693e4decb352ddd176f343260a8956f48b2887874048ef23b curl_7.88.1-10+deb12u15.debian.tar.xz \
	2744f12e3aef161c0361743fa1b318296b122e566e47f381e4a63320fbcc23f4 curl_7.88.1-10+deb12u15.dsc \
	cdb38b72e36bc5d33d5b8810f8018ece1baa29a8f215b4495e495ded82bbf3c7 curl_7.88.1.orig.tar.gz \
	7a5a55d7123149a1b357f298cf895bd0a601e3a2807005ef6c95f3752803485f curl_7.88.1.orig.tar.gz.asc
# pin end
$(eval $(call debian_source,curl))

CURL_LIB := $(SYSROOT)/lib/libcurl.a
# Debian's last two patches rename the library for its gnutls/nss flavours;
# they are packaging, not fixes, so they are reversed.
CURL_REVERSE_PATCHES := 99_nss.patch 90_gnutls.patch
CURL_CONFIGURE := --disable-shared --enable-static \
	--with-mbedtls=$(SYSROOT) --without-zlib --without-brotli \
	--without-zstd --without-libpsl --without-libidn2 --without-nghttp2 \
	--without-libssh2 --without-librtmp --without-gssapi \
	--disable-ldap --disable-ldaps --disable-rtsp --disable-dict \
	--disable-telnet --disable-tftp --disable-pop3 --disable-imap \
	--disable-smb --disable-smtp --disable-gopher --disable-mqtt \
	--disable-manual --disable-ntlm --disable-alt-svc \
	--with-ca-bundle=/etc/ssl/certs/ca-certificates.crt

$(CURL_LIB): $(curl_FETCHED) $(MBEDTLS_STAMP)
	@echo "  BUILD   curl $(curl_VERSION)"
	$(Q)$(call unpack_source,curl,$(BUILD)/curl)
	$(Q)cd $(BUILD)/curl && \
	for p in $(CURL_REVERSE_PATCHES); do \
		patch -R -p1 -s <debian/patches/$$p || exit 1; done && \
	{ autoreconf -fi && \
	  ./configure --host=$(GNU_TRIPLET) --prefix=$(SYSROOT) \
		CC=$(TARGET_CC) CFLAGS="-O2 $(ARCH_CFLAGS)" \
		$(CURL_CONFIGURE) && \
	  $(MAKE) -C lib -j$(JOBS) LDFLAGS=-all-static && \
	  $(MAKE) -C lib install && $(MAKE) -C include install; \
	} >../curl.log 2>&1 || \
		{ echo "error: curl build failed, see $(BUILD)/curl.log" >&2; exit 1; }
