/* fuzz_report.c: libFuzzer target for `benchboot report`'s reader: a
 * result file is anything anyone hands it.  Every input goes through
 * report_parse's validation; what it accepts is rendered as tables, CSV
 * and HTML (to /dev/null), so the renderers see every shape it lets by. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "report.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *null;
	struct report_res r[2];
	char err[512];

	if (!null)
		null = fopen("/dev/null", "w");
	if (report_parse((const char *)data, size, "fuzz.json", &r[0], err,
			 sizeof(err)) != 0)
		return 0;
	/* Compared with itself too: the ratio and significance paths. */
	r[1] = r[0];
	report_text(null, r, 2);
	report_csv(null, r, 1);
	report_html(null, r, 2);
	report_free(&r[0]);
	return 0;
}
