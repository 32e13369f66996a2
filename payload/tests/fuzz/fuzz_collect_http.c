/* fuzz_collect_http.c: libFuzzer target for the results collector's HTTP
 * request head parser (collect_parse_head), fed the raw bytes a client
 * sends; also checks what it reports stays within the input. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "collect.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct collect_req r;
	char err[256];
	int rc;

	err[0] = 0;
	rc = collect_parse_head((const char *)data, size, &r, err,
				sizeof(err));
	if (rc > 0 && (size_t)rc > size)
		__builtin_trap();
	if (rc < 0 && err[0] == 0)
		__builtin_trap();
	if (rc > 0) {
		(void)strlen(r.method);
		(void)strlen(r.path);
		(void)collect_id_ok(r.result_id);
	}
	return 0;
}
