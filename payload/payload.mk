# payload/payload.mk: the multi-call binary `benchboot`, its unit tests and
# fuzz targets.  Every .c under payload/src/ (its subsystem folders, not
# sysmon/os/, the other systems' backends) is a module; core/main.c
# dispatches.

BENCHBOOT_VERSION := 0.1.0
BENCHBOOT := $(OUT)/bin/benchboot
PAYLOAD_BUILD := $(BUILD)/payload
PAYLOAD_GEN := $(PAYLOAD_BUILD)/gen

PAYLOAD_CFLAGS := -std=gnu11 -O2 -g -Wall -Wextra -Wshadow -Wvla \
	-Wstrict-prototypes -Wmissing-prototypes -Wno-unused-parameter \
	-Werror=implicit-function-declaration -D_GNU_SOURCE \
	-Ipayload/src -I$(PAYLOAD_GEN) -I$(SYSROOT)/include/mariadb \
	$(ARCH_CFLAGS) $(EXTRA_CFLAGS) \
	-ffile-prefix-map=$(abspath $(PAYLOAD_BUILD))=/payload-build
# (The last map: a private PAYLOAD_BUILD, wherever it is, leaves no trace
# of its path in the binary; docs/reproducible.md.)
PAYLOAD_LDLIBS := -lcurl -lmbedtls -lmbedx509 -lmbedcrypto \
	-lmariadbclient -lcjson -lpthread -lm
PAYLOAD_DEPLIBS := $(CURL_LIB) $(MARIADB_LIB) $(CJSON_LIB) $(SYSROOT_HEADERS)

# benchboot sql's connector engine (load/sql/sql_engine.h): SQL_ENGINE,
# epoll or threads, from configs/arch/$(ARCH).mk (make SQL_ENGINE=threads
# tries the other on x86_64).  The one it names is linked; the other is
# compiled by `payload` too, not linked, so that it keeps building.
SQL_ENGINES := epoll threads
ifneq ($(words $(filter $(SQL_ENGINE),$(SQL_ENGINES))),1)
$(error SQL_ENGINE='$(SQL_ENGINE)': want one of $(SQL_ENGINES) (configs/arch/$(ARCH).mk))
endif
SQL_ENGINE_OFF := $(filter-out $(SQL_ENGINE),$(SQL_ENGINES))
SQL_ENGINE_H := $(PAYLOAD_GEN)/bb_sql_engine.h

PAYLOAD_SRCS := $(sort $(filter-out payload/src/sysmon/os/% \
	payload/src/load/sql/sql_engine_$(SQL_ENGINE_OFF).c,\
	$(shell find payload/src -name '*.c')))
PAYLOAD_OBJS := $(PAYLOAD_SRCS:payload/src/%.c=$(PAYLOAD_BUILD)/%.o)
# Everything but main(): what unit tests link against.
PAYLOAD_LIB_OBJS := $(filter-out %/core/main.o,$(PAYLOAD_OBJS))

# The pinned inputs, as `benchboot --version` lists them; regenerated when
# a recipe changes.
$(PAYLOAD_GEN)/bb_pins.h: $(wildcard image/deps/*.mk) payload/payload.mk
	$(Q)mkdir -p $(@D)
	$(Q){ echo '/* Generated from the recipes in image/deps: do not edit. */'; \
	  echo '#define BB_VERSION "$(BENCHBOOT_VERSION)"'; \
	  echo '#define BB_ARCH "$(ARCH)"'; \
	  echo '#define BB_PINS \'; \
	  $(foreach d,$(DEPS),echo '	{ "$(d)", "$($(d)_SRC)$($(d)_DEB)", "$($(d)_VERSION)" }, \';) \
	  echo '	{ 0, 0, 0 }'; } >$@.tmp && mv $@.tmp $@

# SQL_NONBLOCK for load/sql/sql.h, rewritten only when SQL_ENGINE changes:
# what includes it is rebuilt then, and benchboot relinked with the other
# engine.
$(SQL_ENGINE_H): payload-sql-engine-force
	$(Q)mkdir -p $(@D)
	$(Q)echo '#define SQL_NONBLOCK $(if $(filter epoll,$(SQL_ENGINE)),1,0) /* SQL_ENGINE=$(SQL_ENGINE) */' >$@.tmp
	$(Q)if cmp -s $@.tmp $@; then rm $@.tmp; else mv $@.tmp $@; fi
payload-sql-engine-force:

$(PAYLOAD_BUILD)/%.o: payload/src/%.c | $(PAYLOAD_DEPLIBS) $(PAYLOAD_GEN)/bb_pins.h $(SQL_ENGINE_H)
	@echo "  CC      $<"
	$(Q)mkdir -p $(@D)
	$(Q)$(TARGET_CC) $(PAYLOAD_CFLAGS) -MMD -MP -c $< -o $@

$(BENCHBOOT): $(PAYLOAD_OBJS) $(PAYLOAD_DEPLIBS) $(SQL_ENGINE_H)
	@echo "  LD      $@"
	$(Q)mkdir -p $(@D)
	$(Q)$(TARGET_CC) -static -o $@ $(PAYLOAD_OBJS) $(PAYLOAD_LDLIBS)

# The engine not linked: an object of its own, for the build to fail when
# it no longer compiles.
SQL_ENGINE_CHECK := $(PAYLOAD_BUILD)/load/sql/sql_engine_$(SQL_ENGINE_OFF).o

-include $(PAYLOAD_OBJS:.o=.d) $(SQL_ENGINE_CHECK:.o=.d)
# Every build (make test's too: TEST_PREREQS) compiles the other engine,
# so that it cannot rot and 009's call graph sees every module's object.
all: $(SQL_ENGINE_CHECK)

# Unit tests: payload/tests/unit/test_NAME.c, one static program each,
# linked against every module; each prints TAP.
UNIT_SRCS := $(sort $(wildcard payload/tests/unit/test_*.c))
UNIT_BINS := $(UNIT_SRCS:payload/tests/unit/%.c=$(PAYLOAD_BUILD)/tests/%)
$(PAYLOAD_BUILD)/tests/%: payload/tests/unit/%.c payload/tests/tap.h \
		$(PAYLOAD_LIB_OBJS) $(PAYLOAD_DEPLIBS)
	@echo "  CC      $<"
	$(Q)mkdir -p $(@D)
	$(Q)$(TARGET_CC) $(PAYLOAD_CFLAGS) -Ipayload/tests -static -o $@ $< \
		$(PAYLOAD_LIB_OBJS) $(PAYLOAD_LDLIBS)

# Fuzz targets: payload/tests/fuzz/fuzz_NAME.c with the modules it needs
# listed in fuzz.mk (FUZZ_TARGETS += NAME, fuzz_NAME_SRCS := a.c b.c).
# Built with the host's clang (libFuzzer + ASan + UBSan), not musl.
FUZZ_TARGETS :=
-include payload/tests/fuzz/fuzz.mk
FUZZ_CC := clang
FUZZ_CFLAGS := -std=gnu11 -g -O1 -D_GNU_SOURCE -Ipayload/src \
	-I$(PAYLOAD_GEN) -fsanitize=fuzzer,address,undefined \
	-fno-sanitize-recover=undefined
FUZZ_BINS := $(FUZZ_TARGETS:%=$(PAYLOAD_BUILD)/fuzz/fuzz_%)
.SECONDEXPANSION:
$(PAYLOAD_BUILD)/fuzz/fuzz_%: payload/tests/fuzz/fuzz_%.c \
		$$(addprefix payload/src/,$$(fuzz_$$*_SRCS)) | $(PAYLOAD_GEN)/bb_pins.h
	@echo "  FUZZCC  $@"
	$(Q)mkdir -p $(@D)
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) -o $@ $^


.PHONY: payload unit-tests fuzzers
payload: $(BENCHBOOT) $(SQL_ENGINE_CHECK)
unit-tests: $(UNIT_BINS)
fuzzers: $(FUZZ_BINS)

# make fuzz FUZZ_S=N: every fuzz target for N seconds (default 60) from
# its seed corpus, one after another; what 900_fuzz.sh does in `make
# test` with its short FUZZ_SECONDS.  Crashes land in $(O)/fuzz-artifacts/.
FUZZ_S ?= 60
.PHONY: fuzz
fuzz: $(FUZZ_BINS)
	$(Q)TOP=$(CURDIR) O=$(O) PAYLOAD_BUILD=$(PAYLOAD_BUILD) \
		FUZZ_SECONDS=$(FUZZ_S) sh payload/tests/integration/900_fuzz.sh
