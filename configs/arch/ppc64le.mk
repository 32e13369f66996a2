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
ARCH_HOST_PACKAGES := gcc-powerpc64le-linux-gnu linux-libc-dev-ppc64el-cross \
	qemu-user-static
# Foreign architecture apt must know (image/deps/host-packages.sh adds it):
# the kernel and GRUB come as ppc64el binary packages.
export HOST_FOREIGN_ARCHS := ppc64el
# Runs target binaries on the build host (tests, `benchboot --version`).
TARGET_RUN := qemu-ppc64le-static
