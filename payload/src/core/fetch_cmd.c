/* core/fetch_cmd.c: `benchboot fetch`, a URL to a file or to stdout with
 * the image's own libcurl (lib/fetch.h does the work). */
#include <curl/curl.h>
#include <stdint.h>
#include <stdio.h>

#include "core/fetch_cmd.h"
#include "lib/fetch.h"
#include "lib/opt.h"
#include "lib/util.h"

/* What the command line sets. */
struct fetch_cmdline {
	const char *path;	/* -o */
	uint64_t timeout;	/* seconds */
};

static const struct opt fetch_opt_tab[] = {
	{ .name = "output", .key = 'o', .kind = OPT_STR,
	  .off = OPT_AT(struct fetch_cmdline, path), .arg = "FILE",
	  .help = "write to FILE, whole or not at all", .def = "stdout" },
	{ .name = "timeout", .key = 't', .kind = OPT_U64,
	  .off = OPT_AT(struct fetch_cmdline, timeout), .min = 1,
	  .max = 86400, .bad = "--timeout '%s': want seconds 1..86400",
	  .arg = "SECONDS", .help = "the whole transfer's limit",
	  .def = "60" },
};

int fetch_main(int argc, char **argv)
{
	static const struct optset set = OPTSET("fetch", fetch_opt_tab,
						"[-o FILE] [--timeout SECONDS] URL",
						NULL);
	struct fetch_cmdline cl = { .timeout = 60 };
	const char *path;
	uint64_t timeout;
	char err[512];
	int argi, rc;

	rc = opt_main(&set, &cl, argc, argv, &argi);
	if (rc != 0)
		return rc > 0 ? 0 : 2;
	path = cl.path;
	timeout = cl.timeout;
	if (argi != argc - 1) {
		opt_usage(&set, stderr);
		return 2;
	}
	curl_global_init(CURL_GLOBAL_DEFAULT);
	if (path)
		rc = fetch_to_file(argv[argi], path, (long)timeout, err,
				   sizeof(err));
	else
		rc = fetch_to_stream(argv[argi], stdout, (long)timeout, err,
			      sizeof(err));
	curl_global_cleanup();
	if (rc != 0) {
		util_err("fetch", -rc, "%s", err);
		return 1;
	}
	return 0;
}
