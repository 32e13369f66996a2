/* load/http/http_curl.c: the libcurl engine of `benchboot http` (--engine=curl),
 * for https:// and as a cross-check of the epoll engine: one multi handle
 * per thread, one easy handle per connection, one request in flight on
 * each.  It costs several times the epoll engine's CPU per request. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <curl/curl.h>

#include "load/http/http_curl.h"
#include "load/http/http_run.h"
#include "lib/stop.h"
#include "lib/util.h"
#include "lib/version.h"

int http_curl_setup(struct http_cfg *cfg)
{
	const struct http_target_set *ts = &cfg->ts;
	uint32_t i;

	if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
		return -ENOMEM;
	cfg->urls = calloc(ts->npaths, sizeof(*cfg->urls));
	if (!cfg->urls)
		return -ENOMEM;
	for (i = 0; i < ts->npaths; i++)
		if (asprintf(&cfg->urls[i], "%s://%s%s", ts->scheme,
			     ts->hosthdr, ts->paths[i]) < 0) {
			cfg->urls[i] = NULL;
			return -ENOMEM;
		}
	return 0;
}

void http_curl_cleanup(struct http_cfg *cfg)
{
	uint32_t i;

	for (i = 0; cfg->urls && i < cfg->ts.npaths; i++)
		free(cfg->urls[i]);
	free(cfg->urls);
	cfg->urls = NULL;
	curl_global_cleanup();
}

/* Heads and bodies as libcurl hands them over: the bytes counter. */
static size_t count_cb(char *ptr, size_t size, size_t n, void *arg)
{
	struct http_conn *c = arg;

	(void)ptr;
	c->th->st.bytes += size * n;
	return size * n;
}

static int easy_setup(struct http_conn *c, struct curl_slist *hdrs)
{
	const struct http_cfg *cfg = c->th->cfg;
	long ms = (long)(cfg->timeout / 1000000);
	char ua[64];
	CURL *e = curl_easy_init();

	if (!e)
		return -ENOMEM;
	c->easy = e;
	snprintf(ua, sizeof(ua), "benchboot/%s", version_string());
	curl_easy_setopt(e, CURLOPT_PRIVATE, c);
	curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, count_cb);
	curl_easy_setopt(e, CURLOPT_WRITEDATA, c);
	curl_easy_setopt(e, CURLOPT_HEADERFUNCTION, count_cb);
	curl_easy_setopt(e, CURLOPT_HEADERDATA, c);
	curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, ms);
	curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, ms);
	curl_easy_setopt(e, CURLOPT_USERAGENT, ua);
	curl_easy_setopt(e, CURLOPT_HTTPHEADER, hdrs);
	curl_easy_setopt(e, CURLOPT_FORBID_REUSE, cfg->keepalive ? 0L : 1L);
	curl_easy_setopt(e, CURLOPT_NOBODY, cfg->head ? 1L : 0L);
	curl_easy_setopt(e, CURLOPT_TCP_NODELAY, 1L);
	curl_easy_setopt(e, CURLOPT_HTTP_VERSION, CURL_HTTP_VERSION_1_1);
	if (cfg->insecure) {
		curl_easy_setopt(e, CURLOPT_SSL_VERIFYPEER, 0L);
		curl_easy_setopt(e, CURLOPT_SSL_VERIFYHOST, 0L);
	}
	return 0;
}

/* Starts c's next request if it is idle and one is due (closed loop:
 * always; open loop: its next slot has come). */
static void issue(struct http_conn *c, uint64_t now)
{
	struct http_thread *th = c->th;
	const struct http_cfg *cfg = th->cfg;
	uint64_t start;
	uint32_t i = 0;

	if (c->state != C_IDLE || now < c->retry_at)
		return;
	if (cfg->rate) {
		if (c->next_j >= th->pace.k)
			return;
		start = http_slot_time(th, c->next_j);
		c->next_j += th->nconns;
	} else {
		start = now;
	}
	if (cfg->ts.npaths > 1)
		i = http_pick(&c->rng, cfg->ts.npaths);
	curl_easy_setopt(c->easy, CURLOPT_URL, cfg->urls[i]);
	c->starts[0] = start;
	c->inflight = 1;
	c->state = C_OPEN;
	th->st.sent++;
	curl_multi_add_handle(th->multi, c->easy);
}

static int classify(CURLcode res)
{
	switch (res) {
	case CURLE_COULDNT_RESOLVE_HOST:
	case CURLE_COULDNT_CONNECT:
	case CURLE_SSL_CONNECT_ERROR:
	case CURLE_PEER_FAILED_VERIFICATION:
	case CURLE_SSL_CACERT_BADFILE:
	case CURLE_SSL_CERTPROBLEM:
		return HTTP_E_CONNECT;
	case CURLE_OPERATION_TIMEDOUT:
		return HTTP_E_TIMEOUT;
	case CURLE_SEND_ERROR:
		return HTTP_E_WRITE;
	case CURLE_RECV_ERROR:
	case CURLE_GOT_NOTHING:
	case CURLE_PARTIAL_FILE:
		return HTTP_E_READ;
	default:
		return HTTP_E_PARSE;
	}
}

static void done(struct http_conn *c, CURLcode res, uint64_t now)
{
	struct http_thread *th = c->th;
	long code = 0, nconn = 0;
	int cls;

	curl_multi_remove_handle(th->multi, c->easy);
	c->state = C_IDLE;
	c->inflight = 0;
	c->retry_at = 0;
	curl_easy_getinfo(c->easy, CURLINFO_NUM_CONNECTS, &nconn);
	th->st.connections += (uint64_t)nconn;
	if (res == CURLE_OK) {
		curl_easy_getinfo(c->easy, CURLINFO_RESPONSE_CODE, &code);
		http_run_count_response(th, code, now > c->starts[0] ?
					      now - c->starts[0] : 0);
		return;
	}
	cls = classify(res);
	th->st.errors[cls]++;
	http_run_note_err(th, cls, curl_easy_strerror(res), 0);
	if (cls == HTTP_E_CONNECT)
		c->retry_at = now + HTTP_BACKOFF_NS;
}

/* The thread's header list (-H lines, no keep-alive), its multi handle
 * and one easy handle per connection, unless it has them (made in the
 * prepare phase).  Returns 0 or -ENOMEM. */
static int curl_thread_setup(struct http_thread *th)
{
	const struct http_cfg *cfg = th->cfg;
	struct curl_slist *l, *hdrs = NULL;
	unsigned i;
	size_t k;

	if (th->multi)
		return 0;
	for (k = 0; k < cfg->nheaders; k++) {
		l = curl_slist_append(hdrs, cfg->headers[k]);
		if (l)
			hdrs = l;
	}
	if (!cfg->keepalive && (l = curl_slist_append(hdrs,
						      "Connection: close")))
		hdrs = l;
	th->curl_hdrs = hdrs;
	th->multi = curl_multi_init();
	if (!th->multi)
		return -ENOMEM;
	curl_multi_setopt(th->multi, CURLMOPT_MAXCONNECTS, (long)th->nconns);
	for (i = 0; i < th->nconns; i++) {
		th->conns[i].state = C_IDLE;
		if (easy_setup(&th->conns[i], hdrs) != 0)
			return -ENOMEM;
	}
	return 0;
}

/* One round of the prepare phase on th: performs, takes the finished
 * first requests (*ready more for each success), and waits up to
 * wait_ms for more while any is still running.  Returns how many
 * finished. */
static unsigned curl_prepare_round(struct http_thread *th, unsigned *ready,
				   int wait_ms)
{
	struct http_conn *c;
	CURLMsg *msg;
	unsigned finished = 0;
	long code;
	int running, n;

	curl_multi_perform(th->multi, &running);
	while ((msg = curl_multi_info_read(th->multi, &n))) {
		if (msg->msg != CURLMSG_DONE)
			continue;
		curl_easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE,
				  (char **)&c);
		code = 0;
		curl_easy_getinfo(c->easy, CURLINFO_RESPONSE_CODE, &code);
		if (msg->data.result == CURLE_OK && code > 0)
			(*ready)++;
		curl_multi_remove_handle(th->multi, c->easy);
		c->state = C_IDLE;
		finished++;
	}
	if (running)
		curl_multi_poll(th->multi, NULL, 0, wait_ms, NULL);
	return finished;
}

unsigned http_curl_prepare(struct http_cfg *cfg, struct http_thread *ths)
{
	uint64_t budget = lg_gate_budget_ns(cfg->timeout);
	uint64_t end = util_mono_ns() + (budget < cfg->timeout ? budget :
					 cfg->timeout);
	/* Threads' multi handles are polled in turn: a short wait each. */
	int wait_ms = cfg->threads > 10 ? 1 : (int)(10 / cfg->threads);
	unsigned i, k, left = 0, ready = 0;
	struct http_conn *c;

	for (i = 0; i < cfg->threads; i++) {
		if (curl_thread_setup(&ths[i]) != 0)
			break;
		for (k = 0; k < ths[i].nconns; k++) {
			c = &ths[i].conns[k];
			curl_easy_setopt(c->easy, CURLOPT_URL, cfg->urls[0]);
			if (curl_multi_add_handle(ths[i].multi, c->easy) !=
			    CURLM_OK)
				continue;
			c->state = C_OPEN;
			left++;
		}
	}
	while (left > 0 && util_mono_ns() < end)
		for (i = 0; i < cfg->threads && ths[i].multi; i++)
			left -= curl_prepare_round(&ths[i], &ready, wait_ms);
	/* Not answered in time: dropped, opened again in the window. */
	for (i = 0; i < cfg->threads && ths[i].multi; i++)
		for (k = 0; k < ths[i].nconns; k++) {
			c = &ths[i].conns[k];
			if (c->state != C_OPEN)
				continue;
			curl_multi_remove_handle(ths[i].multi, c->easy);
			c->state = C_IDLE;
		}
	return ready;
}

/* Performs until nothing completes: a perform that sends the next request
 * may also read its answer.  Returns the clock after the last round. */
static uint64_t curl_thread_perform(struct http_thread *th)
{
	struct http_conn *c;
	CURLMsg *msg;
	uint64_t now;
	int running, left, finished;
	unsigned i;

	do {
		curl_multi_perform(th->multi, &running);
		/* Not the epoll engine's one read per batch: a request can
		 * start and end within this loop. */
		now = util_mono_ns();
		finished = 0;
		while ((msg = curl_multi_info_read(th->multi, &left))) {
			if (msg->msg != CURLMSG_DONE)
				continue;
			curl_easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE,
					  (char **)&c);
			done(c, msg->data.result, now);
			finished++;
		}
		for (i = 0; i < th->nconns; i++)
			issue(&th->conns[i], now);
	} while (finished);
	return now;
}

void http_curl_thread_free(struct http_thread *th)
{
	struct http_conn *c;
	unsigned i;

	for (i = 0; th->conns && i < th->nconns; i++) {
		c = &th->conns[i];
		if (!c->easy)
			continue;
		if (c->state != C_IDLE)
			curl_multi_remove_handle(th->multi, c->easy);
		curl_easy_cleanup(c->easy);
		c->easy = NULL;
	}
	if (th->multi)
		curl_multi_cleanup(th->multi);
	th->multi = NULL;
	curl_slist_free_all(th->curl_hdrs);
	th->curl_hdrs = NULL;
}

void *http_curl_thread(void *arg)
{
	struct http_thread *th = arg;
	const struct http_cfg *cfg = th->cfg;
	uint64_t now, deadline;
	unsigned i;

	if (curl_thread_setup(th) != 0)
		goto out;
	now = util_mono_ns();
	if (th->measure_start <= now)
		http_run_begin_measure(th);
	for (i = 0; i < th->nconns; i++)
		issue(&th->conns[i], now);
	for (;;) {
		deadline = th->end;
		if (!th->measuring && th->measure_start < deadline)
			deadline = th->measure_start;
		if (cfg->rate && lg_pace_next(&th->pace) < deadline)
			deadline = lg_pace_next(&th->pace);
		if (now + HTTP_SCAN_NS < deadline)	/* retries */
			deadline = now + HTTP_SCAN_NS;
		curl_multi_poll(th->multi, NULL, 0,
				(int)((deadline - now + 999999) / 1000000),
				NULL);
		now = util_mono_ns();
		if (!th->measuring && now >= th->measure_start)
			http_run_begin_measure(th);
		if (now >= th->end || stop_requested)
			break;
		/* Slots past are taken: each connection's own next slot
		 * (issue()) runs behind the thread's. */
		if (cfg->rate)
			while (lg_pace_take(&th->pace, now))
				;
		now = curl_thread_perform(th);
	}
out:
	th->stopped_at = util_mono_ns();
	getrusage(RUSAGE_THREAD, &th->ru1);
	http_curl_thread_free(th);
	return NULL;
}
