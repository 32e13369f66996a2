/* test_webui_query.c: the collector pages' request parser, table-driven:
 * which page, decoded filters, each refusal with its reason, and the
 * filters' encoding parsing back to themselves. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "collector/webui_query.h"
#include "tap.h"

static const struct {
	const char *target;
	int rc, kind;
	const char *suite, *host, *from;
} cases[] = {
	{ "/ui", 0, WEBUI_INDEX, "", "", "" },
	{ "/ui/", 0, WEBUI_INDEX, "", "", "" },
	{ "/ui/?suite=my+suite%21&host=srv-1&from=2026-12-01", 0, WEBUI_INDEX,
	  "my suite!", "srv-1", "2026-12-01" },
	{ "/ui/?&suite=&&host=h", 0, WEBUI_INDEX, "", "h", "" },
	{ "/ui/run?id=r1", 0, WEBUI_RUN, "", "", "" },
	{ "/ui/compare?a=r1&b=r.2", 0, WEBUI_COMPARE, "", "", "" },
	{ "/ui/trend?suite=s&version=2", 0, WEBUI_TREND, "s", "", "" },
	{ "/uix", -ENOENT, 0, NULL, NULL, NULL },
	{ "/ui/other", -ENOENT, 0, NULL, NULL, NULL },
	{ "/ui/?evil=1", -EINVAL, 0, NULL, NULL, NULL },
	{ "/ui/?suite=a&suite=b", -EINVAL, 0, NULL, NULL, NULL },
	{ "/ui/?suite=%4", -EINVAL, 0, NULL, NULL, NULL },
	{ "/ui/?suite=%zz", -EINVAL, 0, NULL, NULL, NULL },
	{ "/ui/?suite=%0a", -EINVAL, 0, NULL, NULL, NULL },
	{ "/ui/?suite=%00", -EINVAL, 0, NULL, NULL, NULL },
	{ "/ui/?from=2026-1-01", -EINVAL, 0, NULL, NULL, NULL },
	{ "/ui/?to=yesterday", -EINVAL, 0, NULL, NULL, NULL },
	{ "/ui/run", -EINVAL, 0, NULL, NULL, NULL },
	{ "/ui/run?id=../etc/passwd", -EINVAL, 0, NULL, NULL, NULL },
	{ "/ui/run?id=.hidden", -EINVAL, 0, NULL, NULL, NULL },
	{ "/ui/compare?a=r1", -EINVAL, 0, NULL, NULL, NULL },
	{ "/ui/trend?suite=s", -EINVAL, 0, NULL, NULL, NULL },
	{ "/ui/?host=aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	  "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
	  -EINVAL, 0, NULL, NULL, NULL },
};

int main(void)
{
	struct webui_req r, back;
	char err[256], q[1024], again[1100];
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int rc;

		err[0] = 0;
		rc = webui_parse(cases[i].target, &r, err, sizeof(err));
		if (!tap_ok(rc == cases[i].rc && (rc == 0 || err[0]),
			    "%.60s: %s", cases[i].target,
			    rc ? err : "parsed")) {
			printf("#   got %d (%s), want %d\n", rc, err,
			       cases[i].rc);
			continue;
		}
		if (rc != 0)
			continue;
		tap_ok((int)r.kind == cases[i].kind &&
		       strcmp(r.suite, cases[i].suite) == 0 &&
		       strcmp(r.host, cases[i].host) == 0 &&
		       strcmp(r.from, cases[i].from) == 0,
		       "  page %d, suite '%s', host '%s', from '%s'", r.kind,
		       r.suite, r.host, r.from);
	}
	webui_parse("/ui/?suite=a%26b+c&server=Apache%2F2.4%20(x)&to=2026-12-31",
		   &r, err, sizeof(err));
	webui_filter_query(&r, q, sizeof(q));
	TAP_EQ_STR(q, "suite=a%26b%20c&server=Apache%2F2.4%20%28x%29&to=2026-12-31",
		   "filters encoded, in order");
	snprintf(again, sizeof(again), "/ui/?%s", q);
	tap_ok(webui_parse(again, &back, err, sizeof(err)) == 0 &&
	       strcmp(back.suite, "a&b c") == 0 &&
	       strcmp(back.server, "Apache/2.4 (x)") == 0,
	       "and parse back to themselves");
	TAP_EQ_INT(webui_filter_query(&r, q, 8) >= 8, 1,
		   "a short buffer: the length it needed, cut");
	TAP_EQ_INT(strlen(q), 7, "  terminated within it");
	return tap_done();
}
