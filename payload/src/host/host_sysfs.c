/* host/host_sysfs.c: /sys and /proc files read under a root directory
 * (host_sysfs.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/host_sysfs.h"

int host_sysfs_read(const char *root, const char *path, char *buf,
		     size_t len)
{
	char full[1024];
	size_t n;
	FILE *f;

	buf[0] = 0;
	if (snprintf(full, sizeof(full), "%s%s", root, path) >=
	    (int)sizeof(full))
		return -ENAMETOOLONG;
	f = fopen(full, "re");
	if (!f)
		return -errno;
	n = fread(buf, 1, len - 1, f);
	fclose(f);
	buf[n] = 0;
	/* A file with a NUL in it (/proc/cmdline never, firmware strings
	 * seldom) ends there. */
	n = strlen(buf);
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' ' ||
			 buf[n - 1] == '\t' || buf[n - 1] == '\r'))
		buf[--n] = 0;
	return 0;
}

int host_sysfs_str(cJSON *o, const char *key, const char *root,
		    const char *path)
{
	char buf[512], *s = buf;

	if (host_sysfs_read(root, path, buf, sizeof(buf)) != 0)
		return 0;
	while (*s == ' ' || *s == '\t' || *s == '\n')
		s++;
	if (!*s)
		return 0;
	return cJSON_AddStringToObject(o, key, s) != NULL;
}

int host_sysfs_long(const char *root, const char *path, long long *v)
{
	char buf[64], *end;
	int rc = host_sysfs_read(root, path, buf, sizeof(buf));

	if (rc != 0)
		return rc;
	errno = 0;
	*v = strtoll(buf, &end, 10);
	if (end == buf || errno != 0)
		return -EINVAL;
	while (*end == ' ' || *end == '\n')
		end++;
	return *end ? -EINVAL : 0;
}
