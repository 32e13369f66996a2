/* host/host_kernel.h: the running kernel: release, build, command line
 * (its secrets cut out), Secure Boot and lockdown state, clocksource: the
 * system table's "kernel" (docs/result-schema.md). */
#ifndef BB_HOST_KERNEL_H
#define BB_HOST_KERNEL_H

#include <stddef.h>

#include <cjson/cJSON.h>

/* A new object of what root (see host_sysfs.h) tells of the kernel:
 * release, version, cmdline, secure_boot (true/false; absent without
 * EFI), lockdown (the selected mode: none, integrity or confidentiality),
 * clocksource.  NULL when memory runs out. */
cJSON *host_kernel_json(const char *root);

/* Copies the command line in to out (len bytes) with the value of every
 * parameter that holds a secret (a name ending in "key", "token" or
 * "secret", or containing "pass": benchboot.key, benchboot.token) replaced
 * by "(redacted)": the result is shared, the lab key is not.  Returns 0,
 * or -ENOSPC when out was too short (out is then cut). */
int host_kernel_redact(const char *in, char *out, size_t len);

#endif
