/* fuzz_report.c: libFuzzer target for `benchboot report`'s reader: a
 * result file is anything anyone hands it.  Every input goes through
 * result_doc_parse's validation; what it accepts is rendered as tables, CSV
 * and HTML, so the renderers see every shape it lets by.  The page is
 * also checked: the report itself never writes a script, image, frame,
 * link or event handler, so one in the output is a string from the input
 * that was not escaped; and the terminal tables hold no control
 * character (corpus/report/hostile.json seeds these). */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/report_csv.h"
#include "report/report_html.h"
#include "report/report_text.h"
#include "result/result_doc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Whether buf (n bytes) holds a tag the page never writes, or an event
 * handler or javascript: inside one of its tags: every '<' from the
 * input is written as &lt; and every '"' as &quot;, so either is a
 * string that was not escaped. */
static int fuzz_injected(const char *buf, size_t n)
{
	static const char tags[] = " !DOCTYPE html head meta title style "
		"body h1 h2 h3 table tr th td p br section div figure "
		"figcaption svg path text rect circle span ";
	char name[16];
	size_t i, k, e;

	for (i = 0; i < n; i++) {
		if (buf[i] != '<')
			continue;
		k = i + 1 + (i + 1 < n && buf[i + 1] == '/');
		for (e = 0; k + e < n && e < sizeof(name) - 2 &&
		     buf[k + e] != ' ' && buf[k + e] != '>'; e++)
			name[1 + e] = buf[k + e];
		name[0] = ' ';
		name[1 + e] = ' ';
		if (!memmem(tags, sizeof(tags) - 1, name, e + 2))
			return 1;
		for (; i < n && buf[i] != '>'; i++)
			if ((buf[i] == ' ' && i + 3 < n &&
			     buf[i + 1] == 'o' && buf[i + 2] == 'n') ||
			    (i + 11 <= n && memcmp(buf + i, "javascript:",
						   11) == 0))
				return 1;
	}
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct result_doc r[2];
	char err[512], *buf = NULL;
	size_t n = 0, i;
	FILE *f;

	if (result_doc_parse((const char *)data, size, "fuzz.json", &r[0], err,
			     sizeof(err)) != 0)
		return 0;
	/* Compared with itself too: the ratio and significance paths. */
	r[1] = r[0];
	f = open_memstream(&buf, &n);
	report_text(f, r, 2);
	fclose(f);
	for (i = 0; i < n; i++)
		if ((unsigned char)buf[i] < 0x20 && buf[i] != '\n')
			__builtin_trap();
	free(buf);
	f = open_memstream(&buf, &n);
	report_csv(f, r, 1);
	fclose(f);
	free(buf);
	f = open_memstream(&buf, &n);
	report_html(f, r, 2);
	fclose(f);
	if (fuzz_injected(buf, n))
		__builtin_trap();
	free(buf);
	result_doc_free(&r[0]);
	return 0;
}
