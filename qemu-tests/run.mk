# qemu-tests/run.mk: `make run`: the whole suite in QEMU, end to end
# (qemu-tests/run.sh; docs/run.md).  SUITE names configs/suite/SUITE.suite
# (default smoke); CLIENTS is the number of client VMs (default 2).
SUITE ?= smoke
CLIENTS ?= 2

.PHONY: run
run: $(BENCHBOOT) $(VMLINUZ) $(INITRAMFS) $(SERVER_OVERLAY)
	$(Q)$(TEST_ENV) SUITE=$(SUITE) CLIENTS=$(CLIENTS) qemu-tests/run.sh
