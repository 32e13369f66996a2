/* version.c: `benchboot --version`.  The Debian versions come from the
 * recipes (bb_pins.h); the upstream versions from the libraries' own
 * headers, so a mismatch between recipe and build shows. */
#include <cjson/cJSON.h>
#include <curl/curl.h>
#include <mariadb_version.h>
#include <mbedtls/version.h>
#include <stdio.h>
#include <string.h>

#include "bb_pins.h"
#include "version.h"

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

void version_print(FILE *out)
{
	const struct pin *p;
	char buf[64];

	fprintf(out, "benchboot %s (%s)\n", BB_VERSION, BB_ARCH);
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

int version_main(int argc, char **argv)
{
	version_print(stdout);
	return 0;
}
