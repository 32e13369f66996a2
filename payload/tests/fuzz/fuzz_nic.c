/* fuzz_nic.c: libFuzzer target for host_nic's suite_nic choice over an
 * agent's host object (its hello's "host", which the controller marks:
 * untrusted JSON of any shape), the hello's budget (host_nic_fit) and
 * the sysfs text parsers.  Checks its invariants, not just crashes:
 * suite_nic is added exactly when the call says so, is an object with
 * only the copied keys and the address; nics fits once fitted (or is
 * empty) and the NICs that went are counted; a speed kept is a positive
 * number of Mb/s.  Seeds: corpus/nic, a host
 * as 067_two_nics' client sends it and odd shapes of it. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "host/host_nic.h"

static const char *const fuzz_keys[] = { "name", "mac", "driver",
	"firmware_version", "speed_mbps", "duplex", "address" };

static void fuzz_suite_nic_ok(const cJSON *h, int rc, const char *addr)
{
	const cJSON *s = cJSON_GetObjectItemCaseSensitive(h, "suite_nic"), *k;
	size_t i;

	if (rc != 0 && rc != -ENOENT && rc != -ENOMEM)
		abort();
	if (rc != 0)
		return;
	if (!cJSON_IsObject(s))
		abort();
	cJSON_ArrayForEach(k, s) {
		for (i = 0; i < sizeof(fuzz_keys) / sizeof(fuzz_keys[0]); i++)
			if (k->string && strcmp(k->string, fuzz_keys[i]) == 0)
				break;
		if (i == sizeof(fuzz_keys) / sizeof(fuzz_keys[0]))
			abort();
	}
	k = cJSON_GetObjectItemCaseSensitive(s, "address");
	if (!cJSON_IsString(k) || !strstr(addr, k->valuestring))
		abort();
}

/* host_nic_fit on whatever "nics" is: an array afterwards fits or is
 * empty, and nics_cut counts what went. */
static void fuzz_fit_ok(cJSON *h)
{
	cJSON *a = cJSON_GetObjectItemCaseSensitive(h, "nics");
	int before = cJSON_IsArray(a) ? cJSON_GetArraySize(a) : 0, gone;
	char *t;

	gone = host_nic_fit(h, 256);
	if (!cJSON_IsArray(a)) {
		if (gone != 0)
			abort();
		return;
	}
	if (gone < 0 || cJSON_GetArraySize(a) + gone != before)
		abort();
	t = cJSON_PrintUnformatted(a);
	if (t && strlen(t) > 256 && cJSON_GetArraySize(a) > 0)
		abort();
	free(t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const addrs[] = { "10.0.0.2", "169.254.3.4",
		"::ffff:10.0.0.2" };
	char *text = malloc(size + 1);
	cJSON *h;
	long mbps = 0;
	size_t i;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = 0;
	if (host_nic_speed(text, &mbps) == 0 &&
	    (mbps <= 0 || mbps > INT32_MAX))
		abort();
	host_nic_duplex(text);
	host_nic_told(text);
	h = cJSON_Parse(text);
	for (i = 0; h && i < sizeof(addrs) / sizeof(addrs[0]); i++)
		fuzz_suite_nic_ok(h, host_nic_mark_suite(h, addrs[i]),
				  addrs[i]);
	if (h)
		fuzz_fit_ok(h);
	cJSON_Delete(h);
	free(text);
	return 0;
}
