# image/deps/mariadb.mk: mariadb-connector-c (the libmariadb/ folder of
# Debian's mariadb source), static with its auth plugins built in, for the
# SQL workloads.  Only that folder is extracted from the 110 MB tarball.
mariadb_SRC := mariadb
HOST_PACKAGES += cmake
# pin begin: written by 'make pins' on 2026-11-30 from the
# archive apt uses; apt verified each file against the archive's
# signed index, then pin.sh took the sha256 sums below.
mariadb_VERSION := 1:10.11.18-0+deb12u1
mariadb_SHA256 := \
	b5e013be56bb9ff2d2bc3e18920686370e65fbfe38c040185f9044a09ed9ea76 mariadb_10.11.18-0+deb12u1.debian.tar.xz \
	bf86fbf8c9cf5d40329d63cbadfbc776e19d7caacef480befda181f10fbcd1f9 mariadb_10.11.18-0+deb12u1.dsc \
	a46852c68075be7c31c7b33fee233c5b5a00c8c28117f5204d124e4f2fd56fa8 mariadb_10.11.18.orig.tar.gz \
	43b4f664182b4fb1930ad209bcf5689903fbfc66b64f65838947c357d71dae70 mariadb_10.11.18.orig.tar.gz.asc
# pin end
$(eval $(call debian_source,mariadb))

MARIADB_LIB := $(SYSROOT)/lib/libmariadbclient.a
MARIADB_ORIG := $(DL_DIR)/$(filter %.orig.tar.gz,$(mariadb_SHA256))
# Without SSL the caching_sha2/sha256/ed25519 plugins do not exist: MariaDB
# servers are fine, MySQL 8 default accounts are not (docs/dependencies.md).
MARIADB_CMAKE := -DCMAKE_BUILD_TYPE=Release -DCMAKE_SYSTEM_NAME=Linux \
	-DWITH_SSL=OFF -DWITH_CURL=OFF -DWITH_UNIT_TESTS=OFF \
	-DWITH_EXTERNAL_ZLIB=OFF -DREMOTEIO_PLUGIN_TYPE=OFF \
	-DCLIENT_PLUGIN_DIALOG=STATIC \
	-DCLIENT_PLUGIN_MYSQL_CLEAR_PASSWORD=STATIC \
	-DCLIENT_PLUGIN_REMOTE_IO=OFF -DCLIENT_PLUGIN_ZSTD=OFF \
	-DCMAKE_COMPILE_WARNING_AS_ERROR=OFF

$(MARIADB_LIB): $(mariadb_FETCHED) $(MUSL_STAMP)
	@echo "  BUILD   mariadb-connector-c (mariadb $(mariadb_VERSION))"
	$(Q)rm -rf $(BUILD)/mariadb && mkdir -p $(BUILD)/mariadb/build
	$(Q)tar -xzf $(MARIADB_ORIG) -C $(BUILD)/mariadb --strip-components=1 \
		--wildcards '*/libmariadb/*'
	$(Q)cd $(BUILD)/mariadb/build && \
	{ PKG_CONFIG_LIBDIR= cmake ../libmariadb -DCMAKE_C_COMPILER=$(TARGET_CC) \
		-DCMAKE_C_FLAGS="-O2 $(ARCH_CFLAGS)" $(MARIADB_CMAKE) && \
	  $(MAKE) -j$(JOBS) mariadbclient; } >../../mariadb.log 2>&1 || \
		{ echo "error: mariadb-connector-c build failed, see $(BUILD)/mariadb.log" >&2; exit 1; }
	$(Q)mkdir -p $(SYSROOT)/include/mariadb && \
		cp $(BUILD)/mariadb/libmariadb/include/*.h \
		   $(BUILD)/mariadb/build/include/*.h $(SYSROOT)/include/mariadb/ && \
		cp $(BUILD)/mariadb/build/libmariadb/libmariadbclient.a $@
