/* host/host_kernel.c: the running kernel from /proc/sys/kernel,
 * /proc/cmdline, efivarfs and securityfs (host_kernel.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "host/host_kernel.h"
#include "host/host_sysfs.h"

/* UEFI's global variable: 4 bytes of attributes, then the value. */
#define IDENT_SECURE_BOOT "/sys/firmware/efi/efivars/" \
	"SecureBoot-8be4df61-93ca-11d2-aa0d-00e098032b8c"

/* Whether the parameter name (n bytes) holds a secret. */
static int host_kernel_secret(const char *name, size_t n)
{
	static const char *const ends[] = { "key", "token", "secret" };
	size_t i, l;

	for (i = 0; i + 4 <= n; i++)
		if (strncmp(name + i, "pass", 4) == 0)
			return 1;
	for (i = 0; i < sizeof(ends) / sizeof(ends[0]); i++) {
		l = strlen(ends[i]);
		if (n >= l && strncmp(name + n - l, ends[i], l) == 0)
			return 1;
	}
	return 0;
}

int host_kernel_redact(const char *in, char *out, size_t len)
{
	size_t o = 0, n, name;
	const char *t = in, *eq;
	int q, full = 0;

	if (len == 0)
		return -ENOSPC;
	while (*t) {
		if (*t == ' ') {
			if (o + 1 < len)
				out[o++] = *t;
			else
				full = 1;
			t++;
			continue;
		}
		/* One parameter: up to a space outside double quotes, as
		 * the kernel splits them. */
		for (n = 0, q = 0; t[n] && (q || t[n] != ' '); n++)
			if (t[n] == '"')
				q = !q;
		eq = memchr(t, '=', n);
		name = eq ? (size_t)(eq - t) : n;
		if (eq && host_kernel_secret(t, name)) {
			if (o + name + 12 < len) {
				memcpy(out + o, t, name);
				memcpy(out + o + name, "=(redacted)", 11);
				o += name + 11;
			} else {
				full = 1;
			}
		} else if (o + n < len) {
			memcpy(out + o, t, n);
			o += n;
		} else {
			full = 1;
		}
		t += n;
		if (full)
			break;
	}
	out[o] = 0;
	return full ? -ENOSPC : 0;
}

/* securityfs lists the modes and brackets the selected one. */
static void host_kernel_lockdown(cJSON *o, const char *root)
{
	char buf[128], *a, *b;

	if (host_sysfs_read(root, "/sys/kernel/security/lockdown", buf,
			     sizeof(buf)) != 0)
		return;
	a = strchr(buf, '[');
	b = a ? strchr(a, ']') : NULL;
	if (!b || b == a + 1)
		return;
	*b = 0;
	cJSON_AddStringToObject(o, "lockdown", a + 1);
}

static void host_kernel_secure_boot(cJSON *o, const char *root)
{
	unsigned char v[64];
	char path[1024];
	size_t n;
	FILE *f;

	snprintf(path, sizeof(path), "%s%s", root, IDENT_SECURE_BOOT);
	f = fopen(path, "re");
	if (!f)
		return;
	n = fread(v, 1, sizeof(v), f);
	fclose(f);
	/* Attributes and one byte of value: anything else is not the
	 * variable UEFI defines, and no state is guessed from it. */
	if (n == 5 && v[4] <= 1)
		cJSON_AddBoolToObject(o, "secure_boot", v[4] == 1);
}

cJSON *host_kernel_json(const char *root)
{
	cJSON *o = cJSON_CreateObject();
	char raw[4096], cmd[4096];

	if (!o)
		return NULL;
	host_sysfs_str(o, "release", root, "/proc/sys/kernel/osrelease");
	host_sysfs_str(o, "version", root, "/proc/sys/kernel/version");
	if (host_sysfs_read(root, "/proc/cmdline", raw, sizeof(raw)) == 0 &&
	    raw[0]) {
		host_kernel_redact(raw, cmd, sizeof(cmd));
		cJSON_AddStringToObject(o, "cmdline", cmd);
	}
	host_kernel_secure_boot(o, root);
	host_kernel_lockdown(o, root);
	host_sysfs_str(o, "clocksource", root,
		"/sys/devices/system/clocksource/clocksource0/current_clocksource");
	return o;
}
