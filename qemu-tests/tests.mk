# qemu-tests/tests.mk: the boot tests (qemu-tests/NNN_name/test.sh), part of
# `make test`; they boot the images, so the images come first (`all`
# includes them).  `make boot-tests` runs only these (TEST_DEPS_STAMP is
# defined after this file is read, hence its path here).
QEMU_TESTS := $(sort $(wildcard qemu-tests/*/test.sh))

.PHONY: boot-tests
boot-tests: $(O)/.test-deps images
	$(Q)$(TEST_ENV) payload/tests/harness.sh $(QEMU_TESTS)
