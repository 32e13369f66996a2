#!/bin/sh
# 686_os_backends.sh: the other systems' sample_os.h backends
# (payload/src/sysmon/os/) where Debian has their toolchain: the Windows one with
# MinGW-w64, compiled with warnings as errors, its five functions
# exported, and a driver that calls them linked into a PE executable
# importing PDH, IP Helper and the process API (not run: no Windows
# here).  FreeBSD, macOS and Solaris have no toolchain in Debian: their
# files are documented code that is not compiled (docs/sample.md).
# harness: parallel
. "$(dirname "$0")/../lib/tap.sh"
TOP=$(cd "$(dirname "$0")/../../.." && pwd)
CC=x86_64-w64-mingw32-gcc
if [ -n "${TARGET_RUN:-}" ]; then
	skip "arch-independent: run for the host ARCH only"
	tap_done
	exit 0
fi
if ! command -v $CC >/dev/null 2>&1; then
	skip "no $CC (apt-get install gcc-mingw-w64-x86-64)"
	tap_done
	exit 0
fi
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
check "sample_windows.c compiles (-Wall -Wextra -Werror)" $CC -std=gnu11 \
	-O2 -Wall -Wextra -Wno-unused-parameter -Wmissing-prototypes -Werror \
	-c "$TOP/payload/src/sysmon/os/sample_windows.c" -o "$W/sw.o"
syms=$(x86_64-w64-mingw32-nm -g "$W/sw.o" 2>/dev/null | awk '$2 == "T" {print $3}' |
	sort | tr '\n' ' ')
check_eq "it exports sample_os.h's five functions" "$syms" \
	"sample_os_close sample_os_hz sample_os_open sample_os_pagesize sample_os_read "
cat >"$W/drv.c" <<'C'
/* Two readings a second apart, as sample.c takes them. */
#include <stdio.h>
#include <windows.h>
#include "sysmon/sample_os.h"
int main(void)
{
	static struct sample_raw a, b;
	const char *procs[] = { "httpd", "mysqld" };
	struct sample_os *os;
	char err[256];

	if (sample_os_open(&os, "/", procs, 2, err, sizeof(err)) != 0 ||
	    sample_os_read(os, &a, err, sizeof(err)) != 0)
		return fprintf(stderr, "%s\n", err), 1;
	Sleep(1000);
	if (sample_os_read(os, &b, err, sizeof(err)) != 0)
		return fprintf(stderr, "%s\n", err), 1;
	printf("ctxt/s %llu, hz %ld\n",
	       (unsigned long long)(b.ctxt - a.ctxt), sample_os_hz(os));
	sample_os_close(os);
	return 0;
}
C
check "a driver links into a Windows executable" $CC -std=gnu11 -O2 \
	-I"$TOP/payload/src" -o "$W/drv.exe" "$W/drv.c" "$W/sw.o" -lpdh \
	-liphlpapi -lpsapi
dlls=$(x86_64-w64-mingw32-objdump -p "$W/drv.exe" 2>/dev/null |
	sed -n 's/.*DLL Name: //p' | tr 'A-Z' 'a-z' | sort | tr '\n' ' ')
diag "imports: $dlls"
for d in pdh.dll iphlpapi.dll kernel32.dll; do
	check "it imports $d" sh -c "echo '$dlls' | grep -q '$d'"
done
check "the PE imports PdhGetRawCounterValue and GetIfTable2" sh -c \
	"x86_64-w64-mingw32-objdump -p '$W/drv.exe' | grep -q PdhGetRawCounterValue &&
	 x86_64-w64-mingw32-objdump -p '$W/drv.exe' | grep -q GetIfTable2"
tap_done
