/* host/host_sysfs.h: small files of /sys and /proc read under a root
 * directory, for the system table's readers (host_dmi.h, host_cpu.h,
 * host_smbios.h, host_kernel.h): "" reads the live system, a test's
 * temporary tree stands in for it. */
#ifndef BB_HOST_SYSFS_H
#define BB_HOST_SYSFS_H

#include <stddef.h>

#include <cjson/cJSON.h>

/* Reads root/path (path starts with '/') into buf (len bytes, at least 2),
 * NUL-terminated, cut at len - 1 bytes, without its trailing white space.
 * Returns 0 or a negative errno (-ENOENT: the machine does not have it). */
int host_sysfs_read(const char *root, const char *path, char *buf,
		     size_t len);

/* Adds root/path's text to o as a string named key when the file exists
 * and holds something other than white space; else adds nothing.
 * Returns 1 when added, 0 when not. */
int host_sysfs_str(cJSON *o, const char *key, const char *root,
		    const char *path);

/* Reads root/path as one decimal integer (white space around it allowed)
 * into *v.  Returns 0, or -ENOENT/-EINVAL when absent or not a number. */
int host_sysfs_long(const char *root, const char *path, long long *v);

#endif
