# benchboot: the one entry point.  `make` builds everything for ARCH,
# `make test` runs every test; see README.md and docs/developer.md.
#
#   ARCH=x86_64|ppc64le|ppc  target architecture (configs/arch/$(ARCH).mk)
#   O=out                 out-of-tree output directory
#   DL_DIR=dl             download cache, kept across `make clean`
#   V=1                   show full commands

ARCH ?= x86_64
O ?= out
DL_DIR ?= dl
V ?= 0
JOBS ?= $(shell nproc 2>/dev/null || echo 2)

ifeq ($(wildcard configs/arch/$(ARCH).mk),)
$(error ARCH=$(ARCH): no configs/arch/$(ARCH).mk; known: $(patsubst configs/arch/%.mk,%,$(wildcard configs/arch/*.mk)))
endif
include configs/arch/$(ARCH).mk

ifeq ($(V),1)
Q :=
else
Q := @
endif

TOP := $(CURDIR)
# Absolute paths: recipes cd into source trees.
override O := $(abspath $(O))
override DL_DIR := $(abspath $(DL_DIR))
OUT := $(O)/$(ARCH)
BUILD := $(OUT)/build
SYSROOT := $(OUT)/sysroot
STAMPS := $(OUT)/stamps
IMAGES := $(OUT)/images
# The initramfs (image/image.mk builds it; firmware.mk adds to its rule,
# so the name is set before any recipe file, INITRAMFS=PATH included).
INITRAMFS := $(IMAGES)/initramfs.cpio.gz

# Reproducible builds (docs/reproducible.md): one commit gives the same
# bytes in any directory, at any time.  Every date stamped into an output
# (BusyBox's banner, cpio and ISO/FAT times) is the commit's; a tree
# without .git (`git archive` sets every file's mtime to the commit's)
# takes the Makefile's mtime.  Read once: a commit made during the build
# must not give its later outputs another date.
ifeq ($(origin SOURCE_DATE_EPOCH),undefined)
SOURCE_DATE_EPOCH := $(shell $(if $(wildcard $(TOP)/.git),\
	git -C $(TOP) log -1 --format=%ct 2>/dev/null ||) stat -c %Y $(TOP)/Makefile)
endif
export SOURCE_DATE_EPOCH
# The source tree's and the output tree's paths are not in any object:
# every C compile (musl, the libraries, BusyBox, the payload) maps them to
# fixed names in __FILE__ and debug info.  GCC tries the last map first,
# so the tree inside the other (out/ in the source tree, or a source tree
# under $(O)) comes last.
REPRO_MAP_TOP := -ffile-prefix-map=$(TOP)=.
REPRO_MAP_O := -ffile-prefix-map=$(O)=/O
REPRO_CFLAGS := $(if $(filter $(O)/%,$(TOP)),$(REPRO_MAP_O) $(REPRO_MAP_TOP),\
	$(REPRO_MAP_TOP) $(REPRO_MAP_O))
override ARCH_CFLAGS += $(REPRO_CFLAGS)

# musl's gcc wrapper: it calls $(CROSS_COMPILE)gcc with musl's specs.
TARGET_CC := $(SYSROOT)/bin/musl-gcc
export REALGCC := $(CROSS_COMPILE)gcc
TARGET_AR := $(CROSS_COMPILE)ar
TARGET_RANLIB := $(CROSS_COMPILE)ranlib
TARGET_STRIP := $(CROSS_COMPILE)strip

# Debian packages the build needs on the host; recipes add theirs.
HOST_PACKAGES := make gcc dpkg-dev file xz-utils bzip2 ca-certificates \
	$(ARCH_HOST_PACKAGES)
# Packages only `make test` needs.
TEST_PACKAGES :=
# Pinned inputs, in the order `benchboot --version` lists them.
DEPS :=

.PHONY: all deps test clean distclean pins help
all:

# The host-package check re-runs whenever a recipe changes what it needs.
HOST_DEPS_STAMP := $(OUT)/.host-deps
$(HOST_DEPS_STAMP): image/deps/host-packages.sh $(wildcard image/deps/*.mk) \
		configs/arch/$(ARCH).mk Makefile
	$(Q)image/deps/host-packages.sh $(sort $(HOST_PACKAGES))
	$(Q)mkdir -p $(@D) && touch $@

# `make deps`, as root once: what the build and `make run` need
# (RUN_PACKAGES: qemu-tests/run.mk).  No stamp, nothing written under
# $(O): a root-owned $(O) would stop the build that follows as another
# user, whose own stamps then find everything installed.
deps:
	$(Q)image/deps/host-packages.sh $(sort $(HOST_PACKAGES) $(RUN_PACKAGES))

# Recipes in build order (a recipe names the outputs of earlier ones);
# inputs not listed here (the kernel, the server stack) follow.
DEP_ORDER := musl busybox mbedtls curl mariadb cjson
include image/deps/common.mk
include $(DEP_ORDER:%=image/deps/%.mk)
include $(filter-out $(DEP_ORDER:%=image/deps/%.mk) image/deps/common.mk,\
	$(sort $(wildcard image/deps/*.mk)))
include payload/payload.mk
-include image/image.mk
-include qemu-tests/tests.mk
-include qemu-tests/run.mk

all: $(BENCHBOOT)

# --- tests -------------------------------------------------------------
TEST_PACKAGES += mariadb-server mariadb-client nginx-light curl clang \
	iproute2 procps
# mDNS interoperability tests (payload/tests/integration/3*_mdns_*).
TEST_PACKAGES += avahi-daemon avahi-utils dbus bind9-dnsutils socat
# benchboot http tests: JSON checks, stalling/garbage servers, TLS certs.
TEST_PACKAGES += jq python3 openssl
# benchboot sql/smtp tests and benchmarks: the peers they compare with.
TEST_PACKAGES += postfix sysbench
# Agent tests: JSON checks, busybox httpd as the CGI server, cJSON and
# mbedTLS for the control-protocol and lab-key fuzzers (host clang).
TEST_PACKAGES += jq busybox libcjson-dev libmbedtls-dev
# The server kit's test (680): the host's own Apache (no system service),
# nginx + fcgiwrap for the Perl CGI.
TEST_PACKAGES += apache2-bin fcgiwrap perl
# The other systems' sampler backends (686): Windows's with MinGW-w64.
TEST_PACKAGES += gcc-mingw-w64-x86-64
# benchboot report test: the HTML page loaded in headless Chromium.
TEST_PACKAGES += chromium
# make run without root (RUN_NET=vde) and its test 121_run_vde.
TEST_PACKAGES += vde2
TEST_DEPS_STAMP := $(OUT)/.test-deps
$(TEST_DEPS_STAMP): image/deps/host-packages.sh Makefile $(wildcard */*.mk)
	$(Q)image/deps/host-packages.sh $(sort $(TEST_PACKAGES))
	$(Q)mkdir -p $(@D) && touch $@
# As root once, so that `make test` then runs as any user (no stamp, as
# for deps).  Not part of `make deps`: it installs and starts servers
# (MariaDB, nginx, Postfix, Avahi) that a machine which only builds and
# runs the images has no use for.
.PHONY: test-deps
test-deps:
	$(Q)image/deps/host-packages.sh $(sort $(TEST_PACKAGES))

# The benchmarks (payload/bench/*.sh: not tests, run by hand) and the peer
# tools they measure against: wrk, sysbench, Postfix's smtp-source, avahi,
# cyclictest; /usr/bin/time measures both sides (taskset is util-linux's,
# on every Debian).  `make bench-deps`, as root once, installs them.
BENCH_PACKAGES := wrk time jq nginx-light mariadb-server \
	mariadb-client sysbench postfix avahi-daemon avahi-utils dbus \
	iproute2 busybox rt-tests
.PHONY: bench-deps
bench-deps:
	$(Q)image/deps/host-packages.sh $(sort $(BENCH_PACKAGES))

INTEGRATION_TESTS := $(sort $(wildcard payload/tests/integration/*.sh))
# The fuzzers are host programs (clang, libFuzzer) built from the same
# sources whatever ARCH is: a cross ARCH's run leaves them to the host's.
ifneq ($(TARGET_RUN),)
INTEGRATION_TESTS := $(filter-out %/900_fuzz.sh,$(INTEGRATION_TESTS))
endif
# A cross ARCH's `make test` runs the integration tests where its own
# byte order and word size meet real peers: each load engine against its
# real server, the mixed-architecture run, and the build's own checks.
# The others run the same scripts as the host's run, under qemu-user, and
# wait for `make ARCH=X test-long` (docs/developer.md).
CROSS_TESTS := 009_module_graph 010_build 020_libs 210_http_nginx \
	410_sql_mariadb 510_smtp_postfix 690_mixed_arch
CROSS_LONG_TESTS :=
ifneq ($(TARGET_RUN),)
CROSS_LONG_TESTS := $(filter-out $(addprefix %/,$(CROSS_TESTS:=.sh)),\
	$(INTEGRATION_TESTS))
INTEGRATION_TESTS := $(filter $(addprefix %/,$(CROSS_TESTS:=.sh)),\
	$(INTEGRATION_TESTS))
endif
# An ARCH may leave its images and boot tests to `make test-long`
# (BOOT_TESTS_IN := test-long in its configs/arch file: ppc).
# An ARCH whose make-test boots use only some of its media names them
# (TEST_IMAGES: ppc64le); the rest is built by `make test-long`.
TEST_PROGRAMS := $(BENCHBOOT) $(SQL_ENGINE_CHECK) unit-tests \
	$(if $(TARGET_RUN),,fuzzers)
TEST_PREREQS := $(if $(strip $(TEST_IMAGES)),$(TEST_IMAGES),all) \
	$(TEST_PROGRAMS)
TEST_BOOTS := $(QEMU_TESTS)
ifeq ($(BOOT_TESTS_IN),test-long)
CROSS_LONG_TESTS += $(QEMU_TESTS)
TEST_BOOTS :=
TEST_PREREQS := $(TEST_PROGRAMS)
endif
TESTS := $(UNIT_BINS) $(INTEGRATION_TESTS) $(TEST_BOOTS)
TEST_ENV := O=$(O) OUT=$(OUT) ARCH=$(ARCH) BENCHBOOT=$(BENCHBOOT) \
	BUSYBOX=$(BUSYBOX) IMAGES=$(IMAGES) PAYLOAD_BUILD=$(PAYLOAD_BUILD) \
	TARGET_RUN="$(TARGET_RUN)" TOP=$(TOP) NM=$(CROSS_COMPILE)nm

# `make test` tests every architecture the tree builds, the host's first,
# then each cross ARCH (its programs under qemu-user, its images under
# qemu-system).  Every architecture's packages are installed first; then
# the cross builds run in the background, at a low priority, while the
# host's builds and tests run (payload/tests/test-all.sh), so a fresh
# machine's two cores are both at work.  `make ARCH=X test`
# tests X alone; `make test T=http` only the tests whose path contains
# "http".  The last line sums the architectures' summaries.  A private
# payload build (PAYLOAD_BUILD= or BENCHBOOT= on the command line) is one
# architecture's, so it tests that one alone too.
ifneq ($(filter command line,$(origin ARCH) $(origin PAYLOAD_BUILD) \
	$(origin BENCHBOOT)),)
TEST_ARCHES ?= $(ARCH)
else
TEST_ARCHES ?= x86_64 ppc64le ppc
endif
TEST_TOTALS := $(O)/test-totals

# Every architecture's packages first, in one apt-get update and one
# install (one of each per architecture and kind took 2 min 27 s on an
# empty machine); each architecture's stamps then find them installed.
test:
	$(Q)fa=; pk=; for a in $(TEST_ARCHES); do \
		l=$$($(MAKE) -s --no-print-directory ARCH=$$a print-deps) && \
		fa="$$fa $${l%%|*}" && pk="$$pk $${l#*|}" || exit 1; done; \
	HOST_FOREIGN_ARCHS="$$(echo $$fa | tr ' ' '\n' | sort -u)" \
		image/deps/host-packages.sh \
		$$(echo $$pk | tr ' ' '\n' | sort -u)
	$(Q)for a in $(TEST_ARCHES); do \
		$(MAKE) --no-print-directory ARCH=$$a host-deps \
			$(O)/$$a/.test-deps || exit 1; done
	$(Q)MAKE="$(MAKE)" O=$(O) TEST_TOTALS=$(TEST_TOTALS) \
		payload/tests/test-all.sh $(TEST_ARCHES)

# The host packages one ARCH builds with.  `make test` installs every
# architecture's first: its builds then run side by side, and apt-get
# runs one at a time.
.PHONY: host-deps
host-deps: $(HOST_DEPS_STAMP)
# "FOREIGN-ARCHS|PACKAGES": what ARCH's build and tests install (`make test`
# installs every architecture's at once).
.PHONY: print-deps
print-deps:
	@echo "$(strip $(HOST_FOREIGN_ARCHS))|$(sort $(HOST_PACKAGES) \
		$(TEST_PACKAGES))"

# One architecture's builds for its tests (a cross ARCH builds no fuzzers).
.PHONY: test-prereqs
test-prereqs: $(TEST_PREREQS)

# One architecture's tests (its builds must be there: `test` makes them).
.PHONY: test-arch
test-arch: $(TEST_DEPS_STAMP)
	$(Q)$(TEST_ENV) HARNESS_LABEL=$(ARCH) \
		HARNESS_TOTALS=$(or $(HARNESS_TOTALS),/dev/null) \
		payload/tests/harness.sh \
		$(if $(T),$(foreach t,$(TESTS),$(if $(findstring $(T),$(t)),$(t))),\
		$(filter-out $(foreach x,$(TEST_EXCLUDE),%$(x).sh),$(TESTS)))

# `make test-long`: what does not fit `make test`'s hour on CI's two
# cores: each fuzzer for FUZZ_SECONDS (default 600) instead of 5, and the
# long cases in payload/tests/long/ and qemu-tests/long/ (full-length
# suites, soaks, fault matrices with real waits).  Host ARCH; by hand, its
# figures go in the docs that quote them.
LONG_TESTS := $(sort $(wildcard payload/tests/long/*.sh \
	qemu-tests/long/*/test.sh))
# A cross ARCH's long boot tests (qemu-tests/ARCH/long/NNN_name/).
CROSS_LONG_TESTS += $(sort $(wildcard qemu-tests/$(ARCH)/long/*/test.sh))
FUZZ_SECONDS ?= 600
.PHONY: test-long
test-long: $(TEST_DEPS_STAMP)
	$(Q)$(MAKE) --no-print-directory test-prereqs all
	$(Q)$(TEST_ENV) FUZZ_SECONDS=$(FUZZ_SECONDS) TEST_TIMEOUT=0 \
		HARNESS_LABEL=$(ARCH)-long payload/tests/harness.sh \
		$(if $(TARGET_RUN),$(CROSS_LONG_TESTS),\
		payload/tests/integration/900_fuzz.sh $(LONG_TESTS))

# `make reproducible-check`: the committed HEAD built twice, from two
# clones into two output trees under REPRO_WORK (sharing DL_DIR), and every
# output compared byte for byte; docs/reproducible.md.
REPRO_WORK ?= $(O)/reproducible-check
.PHONY: reproducible-check
reproducible-check: $(HOST_DEPS_STAMP)
	$(Q)image/reproducible-check.sh $(TOP) $(DL_DIR) $(ARCH) \
		$(abspath $(REPRO_WORK))

# One pin.sh per input: a source package, or a binary package (whose name
# may follow a metapackage, NAME_DEB_FROM, as the kernel's ABI does).
pins: $(HOST_DEPS_STAMP)
	$(Q)$(foreach d,$(DEPS),image/deps/pin.sh $(d) image/deps/$(d).mk \
		$(DL_DIR) $(if $($(d)_SRC),source $($(d)_SRC),binary \
		$($(d)_DEB) $($(d)_DEB_ARCH) $($(d)_DEB_FROM)) || exit 1;)

clean:
	rm -rf $(O)

distclean: clean
	rm -rf $(DL_DIR)

help:
	@echo 'make [ARCH=x86_64|ppc64le|ppc] [O=out] [DL_DIR=dl] [V=1] TARGET'
	@echo '  all      everything for ARCH (default)'
	@echo '  deps     install the Debian packages the build and `make run` need'
	@echo '  run      the smoke suite in QEMU: 1 server + 2 client VMs'
	@echo '           (SUITE=, CLIENTS=; TARGET=ADDR: clients only; docs/run.md)'
	@echo '  test     every test (unit, integration, fuzz, QEMU) of every ARCH,'
	@echo '           or of ARCH alone when ARCH= is given'
	@echo '  test-deps  install the Debian packages `make test` needs'
	@echo '  bench-deps install what payload/bench/*.sh and their peers need'
	@echo '  pins     re-pin every input to what the archive serves now'
	@echo '  test-long  long fuzzing and the long cases (hours; by hand)'
	@echo '  reproducible-check  build HEAD twice, compare every output'
	@echo '  clean    remove $$(O); distclean also removes $$(DL_DIR)'
