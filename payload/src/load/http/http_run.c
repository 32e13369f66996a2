/* load/http/http_run.c: what a `benchboot http` run counts, for both
 * engines: responses, errors (and the first one), the measured interval. */
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

#include "lib/hist.h"
#include "load/http/http_run.h"

const char *const http_run_err_names[HTTP_E_N] = {
	"connect", "read", "write", "timeout", "status_4xx", "status_5xx",
	"status_other", "parse",
};

void http_run_note_err(struct http_thread *th, int cls, const char *what,
		       int err)
{
	if (th->first_err[0])
		return;
	snprintf(th->first_err, sizeof(th->first_err), "%s: %s%s%s",
		 http_run_err_names[cls], what, err ? ": " : "",
		 err ? strerror(err) : "");
}

void http_run_count_response(struct http_thread *th, long st, uint64_t lat)
{
	int cls = http_status_class(st);

	th->st.responses++;
	if (cls < 0) {
		/* Only correct answers are throughput (and latency): a
		 * server answering 404 fast must not score. */
		hist_record(&th->hist, lat);
		th->st.requests++;
		return;
	}
	th->st.errors[cls]++;
	if (!th->first_err[0])
		snprintf(th->first_err, sizeof(th->first_err),
			 "%s: HTTP %ld", http_run_err_names[cls], st);
}

void http_run_begin_measure(struct http_thread *th)
{
	memset(&th->st, 0, sizeof(th->st));
	hist_init(&th->hist);
	th->first_err[0] = 0;
	getrusage(RUSAGE_THREAD, &th->ru0);
	th->measuring = 1;
}
