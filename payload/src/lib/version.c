/* lib/version.c: benchboot's version and its pinned inputs'
 * (lib/version.h; `benchboot version` is core/version_cmd.c).  The Debian
 * versions come from the recipes (bb_pins.h); the upstream versions from
 * the libraries' own headers, so a mismatch between recipe and build
 * shows. */
#include <cjson/cJSON.h>
#include <curl/curl.h>
#include <mariadb_version.h>
#include <ctype.h>
#include <mbedtls/version.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "bb_pins.h"
#include "lib/version.h"

struct pin {
	const char *name;
	const char *package;
	const char *version;
};

static const struct pin pins[] = { BB_PINS };

/* The upstream version as the library's own header states it; for inputs
 * without one (musl, BusyBox, the kernel), the Debian version stripped of
 * its epoch and Debian revision. */
static const char *upstream_of(const struct pin *p, char *buf, size_t len)
{
	const char *name = p->name, *v = p->version, *colon, *dash;

	if (strcmp(name, "curl") == 0)
		return "libcurl " LIBCURL_VERSION;
	if (strcmp(name, "mbedtls") == 0)
		return "mbedTLS " MBEDTLS_VERSION_STRING;
	if (strcmp(name, "mariadb") == 0)
		return "mariadb-connector-c " MARIADB_PACKAGE_VERSION;
	if (strcmp(name, "cjson") == 0) {
		snprintf(buf, len, "cJSON %s", cJSON_Version());
		return buf;
	}
	colon = strchr(v, ':');
	if (colon)
		v = colon + 1;
	dash = strrchr(v, '-');
	snprintf(buf, len, "%s %.*s", name, (int)(dash ? dash - v : 40), v);
	return buf;
}

const char *version_string(void)
{
	return BB_VERSION;
}

/* Written by image/mkinitramfs.sh into the initramfs's tail archive. */
#define VERSION_IMAGE_FILE "/etc/benchboot-image"

static char image_digest[sizeof("sha256:") + 64];
static pthread_once_t image_once = PTHREAD_ONCE_INIT;

/* Keeps the file's first line only when it is "sha256:" and 64 lowercase
 * hex digits: anything else is not an identity a result can carry. */
static void image_digest_read(void)
{
	char line[128];
	FILE *f = fopen(VERSION_IMAGE_FILE, "re");
	size_t i;

	if (!f)
		return;
	if (!fgets(line, sizeof(line), f))
		line[0] = '\0';
	fclose(f);
	line[strcspn(line, "\r\n")] = '\0';
	if (strncmp(line, "sha256:", 7) != 0 || strlen(line) != 7 + 64)
		return;
	for (i = 7; line[i]; i++)
		if (!isxdigit((unsigned char)line[i]) || isupper((unsigned char)line[i]))
			return;
	memcpy(image_digest, line, sizeof(image_digest));
}

const char *version_image_digest(void)
{
	pthread_once(&image_once, image_digest_read);
	return image_digest[0] ? image_digest : NULL;
}

void version_print(FILE *out)
{
	const struct pin *p;
	const char *digest = version_image_digest();
	char buf[64];

	fprintf(out, "benchboot %s (%s)\n", BB_VERSION, BB_ARCH);
	fprintf(out, "  image %s\n",
		digest ? digest : "none (not running from a benchboot image)");
	for (p = pins; p->name; p++)
		fprintf(out, "  %-28s Debian %s %s\n",
			upstream_of(p, buf, sizeof(buf)), p->package,
			p->version);
}

cJSON *version_to_json(void)
{
	cJSON *o = cJSON_CreateObject();
	const struct pin *p;
	char buf[64], val[160];

	if (!o)
		return NULL;
	for (p = pins; p->name; p++) {
		snprintf(val, sizeof(val), "%s (Debian %s %s)",
			 upstream_of(p, buf, sizeof(buf)), p->package,
			 p->version);
		if (!cJSON_AddStringToObject(o, p->name, val)) {
			cJSON_Delete(o);
			return NULL;
		}
	}
	return o;
}
