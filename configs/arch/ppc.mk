# configs/arch/ppc.mk: every 32-bit PowerPC build setting (big-endian,
# G3/G4 "New World" Macs, the Xserve G4, QEMU -M mac99).  Cross-built on
# x86_64 Debian with Debian's cross gcc; target binaries run on the build
# host under qemu-user.  Debian has no 32-bit powerpc binary packages, so
# the kernel is built from Debian's linux-source (image/deps/linux.mk).

CROSS_COMPILE ?= powerpc-linux-gnu-
# Debian's name for the architecture (musl's and the payload's labels only:
# nothing is downloaded for it, so `make pins` resolves no server stack).
DEB_ARCH := powerpc
ARCH_NO_DEBS := 1
GNU_TRIPLET := powerpc-linux-gnu
# The cross toolchain's linux-libc-dev-powerpc-cross holds the UAPI headers.
KERNEL_HEADERS := /usr/powerpc-linux-gnu/include/linux \
	/usr/powerpc-linux-gnu/include/asm \
	/usr/powerpc-linux-gnu/include/asm-generic \
	/usr/powerpc-linux-gnu/include/mtd
# musl's powerpc port has a 64-bit long double, Debian's gcc defaults to
# IBM 128-bit double-double: every object must agree (as on ppc64le).
ARCH_CFLAGS := -mlong-double-64
# benchboot sql's connector engine (load/sql/sql_engine.h): one thread
# a connection, as musl has no context switch here for the connector's
# non-blocking API.
SQL_ENGINE := threads
ARCH_HOST_PACKAGES := gcc-powerpc-linux-gnu linux-libc-dev-powerpc-cross \
	qemu-user-static bc bison flex
# GRUB's Open Firmware modules come from the ppc64el package (below).
export HOST_FOREIGN_ARCHS := ppc64el
TARGET_RUN := qemu-ppc-static

# --- kernel and boot media (image/deps/linux.mk, image/image.mk) ---------
# The kernel is cross-built from Debian's linux-source-6.1 (pinned in
# linux.mk) from allnoconfig plus this fragment, which names everything
# the image needs on a G3/G4 and mac99: everything built in, no modules.
# KERNEL_ARCH is the kernel's ARCH=.
KERNEL_ARCH := powerpc
KERNEL_DEFCONFIG := allnoconfig
KERNEL_FRAGMENT := configs/kernel-ppc.fragment
KERNEL_FILE := vmlinux
# The built-in kernel is a 14 MB ELF (stripped), the initramfs 2 MB: over
# x86_64's 16 MB budget for kernel + initramfs.
INITRAMFS_BUDGET_KB := 24576
# The screen and the Mac's Zilog serial port, which pmac32_defconfig names
# ttyS0 (SERIAL_PMACZILOG_TTYS).
export BOOT_CONSOLE := console=tty0 console=ttyS0
# GRUB for Open Firmware: grub-ieee1275-bin:ppc64el holds 32-bit
# big-endian code (kernel.img and modules are "ELF 32-bit MSB, PowerPC"),
# so the ppc64le package also boots New World Macs and mac99's OpenBIOS.
GRUB_TARGET_DEB := grub-ieee1275-bin
GRUB_TARGET_DEB_ARCH := ppc64el
GRUB_PLATFORM := powerpc-ieee1275
GRUB_NET_PLATFORM := powerpc-ieee1275
NETBOOT_LOADERS :=
ARCH_TEST_PACKAGES := qemu-system-ppc
# `make test` builds no ppc image and boots none: the kernel from
# linux-source is the largest single build of the run (docs/developer.md)
# for 30 s of boot tests, and make test must fit 45 minutes on a fresh
# 2-core machine.  Its programs still run there under qemu-user (unit
# tests, CROSS_TESTS: big-endian against real peers); the images and
# qemu-tests/ppc/ are built and booted by `make ARCH=ppc test-long` (and
# `make ARCH=ppc boot-tests`).
BOOT_TESTS_IN := test-long
