# configs/arch/x86_64.mk: every x86_64-specific build setting.  The host is
# x86_64 Debian, so the native gcc is the "cross" compiler.

CROSS_COMPILE ?=
# Debian's name for the architecture (apt-get download pkg:$(DEB_ARCH)).
DEB_ARCH := amd64
# musl's --target and the GNU triplet autoconf wants for --host.
GNU_TRIPLET := x86_64-linux-gnu
# Linux UAPI headers copied into the musl sysroot: BusyBox and the payload
# include <linux/...>, which musl does not ship.
KERNEL_HEADERS := /usr/include/linux /usr/include/asm-generic \
	/usr/include/mtd /usr/include/x86_64-linux-gnu/asm
ARCH_CFLAGS :=
# benchboot sql's connector engine (load/sql/sql_engine.h): epoll, as
# musl has the context switch the connector's non-blocking API needs here.
SQL_ENGINE := epoll
# Host packages the toolchain for this arch needs.
ARCH_HOST_PACKAGES := gcc linux-libc-dev
# Runs target binaries on the build host (empty: natively).
TARGET_RUN :=
# image/image.mk: the initramfs's benchboot is stripped, its modules
# stripped, and the archive zstd-compressed, to keep
# kernel + initramfs in 12 MB (docs/drivers.md, "Size and boot time").
IMAGE_STRIP := strip
IMAGE_COMPRESS := zstd
