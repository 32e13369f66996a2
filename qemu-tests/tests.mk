# qemu-tests/tests.mk: the boot tests (qemu-tests/NNN_name/test.sh), part of
# `make test`; they boot the images, so the images come first (`all`
# includes them).  `make boot-tests` runs only these (TEST_DEPS_STAMP is
# defined after this file is read, hence its path here).
# qemu-tests/NNN_name/ boot the x86_64 images; another architecture's
# tests live in qemu-tests/ARCH/NNN_name/ and run when ARCH is that one
# (`make ARCH=ppc64le test` or `make ARCH=ppc64le boot-tests`).
ifeq ($(ARCH),x86_64)
QEMU_TESTS := $(sort $(wildcard qemu-tests/*/test.sh))
else
QEMU_TESTS := $(sort $(wildcard qemu-tests/$(ARCH)/*/test.sh))
endif

.PHONY: boot-tests
boot-tests: $(OUT)/.test-deps images
	$(Q)$(TEST_ENV) payload/tests/harness.sh $(QEMU_TESTS)
