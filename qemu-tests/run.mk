# qemu-tests/run.mk: `make run`: the whole suite in QEMU, end to end
# (qemu-tests/run.sh; docs/run.md).  SUITE names configs/suite/SUITE.suite
# (default smoke); CLIENTS is the number of client VMs (default 2);
# SUITE_SCALE=F multiplies every time of the suite by F (0.01-10), every
# step, concurrency and repeat kept (benchboot.time_scale=).
# SUITE_SET=A=1,B=2 sets suite variables (benchboot.set=, --set each);
# without it an emulated server gets longer timeouts (RUN_EMU_SET, run.sh).
# RUN_SERVER_ARCH=ppc64le boots the server VM from that architecture's
# images (built first) with the x86_64 clients (docs/powerpc.md).
# TARGET=ADDR: no server VM; a controller VM and the clients measure the
# server at ADDR (docs/own-server.md); the server overlay is not built.
SUITE ?= smoke
CLIENTS ?= 2
SUITE_SCALE ?=
SUITE_SET ?=
RUN_SERVER_ARCH ?= $(ARCH)
TARGET ?=

# The host packages run.sh needs, installed before it runs: a fresh
# machine has none of them (`make run` used to build everything and then
# stop at "run: qemu-system-x86_64 missing", as only `make test` installed
# QEMU).  qemu-system-x86: the VMs and qemu-tests/lib.sh's KVM probe;
# iproute2: the root LAN (ip netns, bridge, tuntap) and ss (free ports);
# vde2: the LAN without root (vde_switch, slirpvde), installed either way
# since RUN_NET is chosen when run.sh starts.  No OVMF and no dnsmasq: the
# VMs boot their kernel directly (-kernel) and nobody serves them DHCP.
# A ppc64le server boots on qemu-system-ppc64, hence a stamp of its own.
# payload/tests/integration/007_run_deps.sh checks that every command
# run.sh calls comes from this list (or from an essential package).
RUN_PACKAGES := qemu-system-x86 iproute2 vde2 \
	$(if $(filter ppc64le,$(RUN_SERVER_ARCH)),qemu-system-ppc)
RUN_DEPS_STAMP := $(OUT)/.run-deps$(if $(filter-out $(ARCH),\
	$(RUN_SERVER_ARCH)),-$(RUN_SERVER_ARCH))
$(RUN_DEPS_STAMP): image/deps/host-packages.sh qemu-tests/run.mk
	$(Q)image/deps/host-packages.sh $(sort $(RUN_PACKAGES))
	$(Q)mkdir -p $(@D) && touch $@

# `make deps` (as root, once) installs RUN_PACKAGES too (Makefile).
.PHONY: run run-server-images
run: $(RUN_DEPS_STAMP) $(BENCHBOOT) $(VMLINUZ) $(INITRAMFS) \
		$(if $(TARGET),,$(SERVER_OVERLAY)) \
		$(if $(filter-out $(ARCH),$(RUN_SERVER_ARCH)),run-server-images)
	$(Q)$(TEST_ENV) SUITE=$(SUITE) CLIENTS=$(CLIENTS) \
		SUITE_SCALE=$(SUITE_SCALE) SUITE_SET=$(SUITE_SET) \
		$(if $(filter undefined,$(origin RUN_EMU_SET)),,\
			RUN_EMU_SET="$(RUN_EMU_SET)") \
		TARGET=$(TARGET) \
		RUN_SERVER_ARCH=$(RUN_SERVER_ARCH) qemu-tests/run.sh
run-server-images:
	$(Q)$(MAKE) --no-print-directory ARCH=$(RUN_SERVER_ARCH) kernel \
		initramfs server-overlay
