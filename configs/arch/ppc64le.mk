# configs/arch/ppc64le.mk: every ppc64le-specific build setting (64-bit
# little-endian POWER, ELFv2: QEMU pseries, PowerVM LPARs, OpenPOWER).
# Cross-built on x86_64 Debian with Debian's cross gcc; target binaries run
# on the build host under qemu-user.

CROSS_COMPILE ?= powerpc64le-linux-gnu-
DEB_ARCH := ppc64el
GNU_TRIPLET := powerpc64le-linux-gnu
# The cross toolchain's linux-libc-dev-ppc64el-cross holds the UAPI headers.
KERNEL_HEADERS := /usr/powerpc64le-linux-gnu/include/linux \
	/usr/powerpc64le-linux-gnu/include/asm \
	/usr/powerpc64le-linux-gnu/include/asm-generic \
	/usr/powerpc64le-linux-gnu/include/mtd
# musl's powerpc64 port has a 64-bit long double (its float.h says
# LDBL_MANT_DIG 53), Debian's gcc defaults to IBM 128-bit double-double:
# every object, musl's own included, must agree or long double arguments
# (printf's %Lf, strtold) silently mean different things.
ARCH_CFLAGS := -mlong-double-64
# benchboot sql's connector engine (load/sql/sql_engine.h): one thread
# a connection, as musl has no context switch here for the connector's
# non-blocking API.
SQL_ENGINE := threads
ARCH_HOST_PACKAGES := gcc-powerpc64le-linux-gnu linux-libc-dev-ppc64el-cross \
	qemu-user-static
# Foreign architecture apt must know (image/deps/host-packages.sh adds it):
# the kernel and GRUB come as ppc64el binary packages.
export HOST_FOREIGN_ARCHS := ppc64el
# Runs target binaries on the build host (tests, `benchboot --version`).
TARGET_RUN := qemu-ppc64le-static

# --- kernel and boot media (image/deps/linux.mk, image/image.mk) ---------
# Debian's kernel metapackage for this arch: linux-image-powerpc64le.
KERNEL_FLAVOUR := powerpc64le
# Debian's ppc64el kernel is an ELF vmlinux (45 MB, 64K pages), loaded as
# is by SLOF, GRUB and petitboot's kexec; it alone exceeds x86_64's 16 MB
# kernel + initramfs budget, so this arch's budget is its own.
KERNEL_FILE := vmlinux
INITRAMFS_BUDGET_KB := 65536
# pseries and PowerNV firmware consoles are the hypervisor console hvc0.
export BOOT_CONSOLE := console=hvc0
# GRUB for Open Firmware (SLOF, PowerVM), unpacked from the ppc64el package.
GRUB_TARGET_DEB := grub-ieee1275-bin
GRUB_PLATFORM := powerpc-ieee1275
GRUB_NET_PLATFORM := powerpc-ieee1275
# petitboot reads pxelinux.cfg/ itself: no loader binary to serve.
NETBOOT_LOADERS :=
ARCH_TEST_PACKAGES := qemu-system-ppc
# `make test` boots the kernel with its initramfs (010) and the ISO (020)
# and builds only those: the USB image and the netboot tree (GRUB's
# ofnet.mod rebuilt from source, image/grub-ofnet.sh) are built and booted
# by `make ARCH=ppc64le test-long`, which keeps make test's 45 minutes
# (docs/developer.md).  Recursive: image/image.mk names them later.
TEST_IMAGES = $(VMLINUZ) $(INITRAMFS) $(ISO)
