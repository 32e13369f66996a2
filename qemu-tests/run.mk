# qemu-tests/run.mk: `make run`: the whole suite in QEMU, end to end
# (qemu-tests/run.sh; docs/run.md).  SUITE names configs/suite/SUITE.suite
# (default smoke); CLIENTS is the number of client VMs (default 2).
# RUN_SERVER_ARCH=ppc64le boots the server VM from that architecture's
# images (built first) with the x86_64 clients (docs/powerpc.md).
SUITE ?= smoke
CLIENTS ?= 2
RUN_SERVER_ARCH ?= $(ARCH)

.PHONY: run run-server-images
run: $(BENCHBOOT) $(VMLINUZ) $(INITRAMFS) $(SERVER_OVERLAY) \
		$(if $(filter-out $(ARCH),$(RUN_SERVER_ARCH)),run-server-images)
	$(Q)$(TEST_ENV) SUITE=$(SUITE) CLIENTS=$(CLIENTS) \
		RUN_SERVER_ARCH=$(RUN_SERVER_ARCH) qemu-tests/run.sh
run-server-images:
	$(Q)$(MAKE) --no-print-directory ARCH=$(RUN_SERVER_ARCH) kernel \
		initramfs server-overlay
