/* load/http/http_curl.h: the libcurl engine of `benchboot http`
 * (--engine=curl): https:// and a cross-check of the epoll engine. */
#ifndef BB_HTTP_CURL_H
#define BB_HTTP_CURL_H

#include "load/http/http_run.h"

/* Runs once before the threads: global libcurl init and the full URLs
 * into cfg->urls.  Returns 0 or -ENOMEM. */
int http_curl_setup(struct http_cfg *cfg);

/* A thread's whole run (pthread start routine; arg is its struct
 * http_thread).  Returns NULL. */
void *http_curl_thread(void *arg);

/* Frees what http_curl_setup() made. */
void http_curl_cleanup(struct http_cfg *cfg);

/* The curl engine's prepare phase (behind an agent's gate, keep-alive):
 * makes every thread's multi and easy handles now and has each easy
 * handle take one request of the first URL, so that the window starts
 * with its connections open (TLS handshakes done) in the thread's
 * connection cache, where its requests find them.  Bounded by --timeout
 * and the gate's budget; a request that fails or is not answered in
 * time is dropped with its connection, which is then opened in the
 * window and counted there as any.  Nothing it does is counted (the
 * window's counters start at zero).  Returns the connections ready. */
unsigned http_curl_prepare(struct http_cfg *cfg, struct http_thread *ths);

/* Frees th's handles and header list if it still has them (a thread
 * frees its own as it ends); safe to call twice. */
void http_curl_thread_free(struct http_thread *th);

#endif
