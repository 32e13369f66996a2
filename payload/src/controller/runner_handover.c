/* controller/runner_handover.c: the lower id leads two controllers of a lab;
 * in a keyed lab only once it has proved the lab key, since anyone on the
 * LAN can announce role=controller with a copied lab name. */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>

#include "controller/runner_handover.h"
#include "lib/util.h"
#include "mdns/mdns.h"
#include "mdns/mdns_browser.h"
#include "node/node.h"
#include "node/peer.h"
#include "proto/control.h"

/* Controllers that failed the check, not asked again until "until". */
#define RUNNER_HANDOVER_REFUSED 32

static struct mdns_browser *runner_handover_b;
static uint64_t runner_handover_due;
static struct {
	char id[96], at[80];
	uint64_t until;
} runner_handover_refused[RUNNER_HANDOVER_REFUSED];
static unsigned runner_handover_nref;

static void runner_handover_log(void *arg, const char *msg)
{
	node_log("mdns: %s", msg);
}

static int runner_handover_keyed(const struct runner_opts *o)
{
	return o->key && o->key->len;
}

int runner_handover_start(const struct runner_opts *o)
{
	struct mdns_browse_conf conf = { .log = runner_handover_log };
	char err[256];

	if (!runner_handover_keyed(o))
		return peer_watch_start();
	if (runner_handover_b)
		return 0;
	runner_handover_b = mdns_browser_new(&conf, err, sizeof(err));
	if (!runner_handover_b) {
		node_log("not watching for other controllers: %s", err);
		return -EIO;
	}
	runner_handover_due = 0;
	return 0;
}

void runner_handover_stop(void)
{
	peer_watch_stop();
	mdns_browser_free(runner_handover_b);
	runner_handover_b = NULL;
}

/* Whether in's TXT key equals want ("" for an absent key). */
static int runner_handover_txt_is(const struct mdns_instance *in,
			       const char *key, const char *want)
{
	const char *v;
	int vl = mdns_txt_get(in->txt, in->txt_len, key, &v);

	if (vl < 0)
		return want[0] == 0;
	return (size_t)vl == strlen(want) && memcmp(v, want, (size_t)vl) == 0;
}

/* Whether id at "at" failed a check that is still fresh. */
static int runner_handover_was_refused(const char *id, const char *at)
{
	uint64_t now = util_mono_ns();
	unsigned i;

	for (i = 0; i < runner_handover_nref; i++)
		if (runner_handover_refused[i].until > now &&
		    strcmp(runner_handover_refused[i].id, id) == 0 &&
		    strcmp(runner_handover_refused[i].at, at) == 0)
			return 1;
	return 0;
}

/* Remembers a failed check (the oldest entry goes when full). */
static void runner_handover_refuse(const char *id, const char *at)
{
	unsigned i = 0, k;

	if (runner_handover_nref < RUNNER_HANDOVER_REFUSED)
		i = runner_handover_nref++;
	else
		for (k = 1; k < RUNNER_HANDOVER_REFUSED; k++)
			if (runner_handover_refused[k].until <
			    runner_handover_refused[i].until)
				i = k;
	snprintf(runner_handover_refused[i].id,
		 sizeof(runner_handover_refused[i].id), "%s", id);
	snprintf(runner_handover_refused[i].at,
		 sizeof(runner_handover_refused[i].at), "%s", at);
	runner_handover_refused[i].until = util_mono_ns() +
					RUNNER_HANDOVER_RETRY_S * 1000000000ull;
}

/* Reads c until its first whole line parses as a message into m, or the
 * deadline.  Returns 0, or a negative errno with the reason in why. */
static int runner_handover_read(struct control_conn *c, uint64_t deadline,
			     struct control_msg *m, char *why, size_t whylen)
{
	struct pollfd p = { .fd = c->fd, .events = POLLIN };
	const char *line;
	size_t len;
	uint64_t now;
	int rc;

	for (;;) {
		rc = control_conn_line(c, &line, &len);
		if (rc == 1)
			return control_msg_parse(line, len, m, why, whylen);
		if (rc < 0)
			return util_fail(why, whylen, rc, "a line too long");
		now = util_mono_ns();
		if (now >= deadline)
			return util_fail(why, whylen, -ETIMEDOUT, "no challenge within %d ms", RUNNER_HANDOVER_CHECK_MS);
		if (poll(&p, 1, (int)((deadline - now) / 1000000u) + 1) < 0)
			return util_fail(why, whylen, -errno, "poll: %s", strerror(errno));
		rc = control_conn_read(c);
		if (rc == -EPIPE)
			return util_fail(why, whylen, rc, "it closed the connection");
		if (rc < 0 && rc != -EAGAIN)
			return util_fail(why, whylen, rc, "%s", strerror(-rc));
	}
}

/* The key handshake's first half, as an agent starts it (auth.h): our
 * nonce out, the controller's proof over both nonces back, checked with
 * the lab; then closed, never joined.  Returns 0 when the controller at
 * host:port proved the key, or a negative errno with the reason in why. */
static int runner_handover_prove(const struct runner_opts *o, const char *host,
			      int port, char *why, size_t whylen)
{
	uint64_t deadline = util_mono_ns() +
			    RUNNER_HANDOVER_CHECK_MS * 1000000ull;
	struct control_msg m = { 0 };
	struct control_conn c;
	char nonce[AUTH_HEX_NONCE + 1];
	cJSON *a;
	int fd, rc;

	rc = auth_nonce(nonce);
	if (rc != 0)
		return util_fail(why, whylen, rc, "no randomness for a nonce");
	fd = control_connect(host, port, RUNNER_HANDOVER_CHECK_MS);
	if (fd < 0)
		return util_fail(why, whylen, fd, "connect: %s", strerror(-fd));
	control_conn_init(&c, fd);
	a = control_msg_new(CONTROL_AUTH);
	if (!a) {
		control_conn_close(&c);
		return util_fail(why, whylen, -ENOMEM, "out of memory");
	}
	cJSON_AddStringToObject(a, "nonce", nonce);
	if (o->lab && o->lab[0])
		cJSON_AddStringToObject(a, "lab", o->lab);
	rc = control_conn_send(&c, a);
	cJSON_Delete(a);
	/* What is left of the check's time, not another whole one. */
	if (rc == 0 && util_mono_ns() < deadline)
		rc = control_conn_drain(&c, (int)((deadline - util_mono_ns()) /
						  1000000u) + 1);
	if (rc != 0) {
		util_fail(why, whylen, rc, "send: %s", strerror(-rc));
		goto out;
	}
	rc = runner_handover_read(&c, deadline, &m, why, whylen);
	if (rc != 0)
		goto out;
	if (m.type != CONTROL_CHALLENGE)
		rc = util_fail(why, whylen, -EACCES, "it answered %s, not a challenge", control_type_name(m.type));
	else if (!m.proof)
		rc = util_fail(why, whylen, -EACCES, "it has no lab key");
	else if (!auth_proof_ok(o->key, AUTH_LABEL_CONTROLLER, nonce, m.nonce,
				m.proof))
		rc = util_fail(why, whylen, -EACCES, "its proof is wrong (another key?)");
	else if (strcmp(m.lab ? m.lab : "", o->lab ? o->lab : "") != 0)
		rc = util_fail(why, whylen, -EACCES, "it is of lab '%s'", m.lab ? m.lab : "");
	control_msg_free(&m);
out:
	control_conn_close(&c);
	return rc;
}

/* Runs the browser's due work, or reads what arrived. */
static void runner_handover_service(void)
{
	struct pollfd p = { .fd = mdns_browser_fd(runner_handover_b),
			    .events = POLLIN };
	uint64_t now = util_mono_ns();

	if (now < runner_handover_due && poll(&p, 1, 0) <= 0)
		return;
	mdns_browser_handle(runner_handover_b);
	runner_handover_due = now + (uint64_t)mdns_browser_timeout_ms(
					 runner_handover_b) * 1000000u;
}

/* A keyed lab: the first announced controller with a lower id that
 * proves the key (at most one check per call, so the caller's loop goes
 * on servicing its agents between checks). */
static int runner_handover_keyed_check(const struct runner_opts *o)
{
	const struct mdns_instance *in;
	char id[96], at[80], why[256];
	const char *v;
	size_t i;
	int vl;

	if (!runner_handover_b)
		return 0;
	runner_handover_service();
	for (i = 0; (in = mdns_browser_get(runner_handover_b, i)); i++) {
		vl = mdns_txt_get(in->txt, in->txt_len, "id", &v);
		if (vl <= 0 ||
		    !runner_handover_txt_is(in, "role", "controller") ||
		    !runner_handover_txt_is(in, "lab", o->lab ? o->lab : ""))
			continue;
		snprintf(id, sizeof(id), "%.*s", vl, v);
		if (strcmp(id, o->id) >= 0 || !in->addr[0])
			continue;
		snprintf(at, sizeof(at), "%s:%u", in->addr, in->port);
		if (runner_handover_was_refused(id, at))
			continue;
		if (runner_handover_prove(o, in->addr, in->port, why,
				       sizeof(why)) != 0) {
			node_log("controller %s (%s) announces a lower id but did not prove the lab key (%s): not yielding to it; asked again in %d s", id, at, why, RUNNER_HANDOVER_RETRY_S);
			runner_handover_refuse(id, at);
			return 0;
		}
		snprintf(o->yield_to, o->yield_len, "%s", at);
		node_log("controller %s (%s) is also running and proved the lab key: the lower id leads, this one yields", id, at);
		return 1;
	}
	return 0;
}

int runner_handover_check(const struct runner_opts *o)
{
	if (!o->yield_to)
		return 0;
	if (!runner_handover_keyed(o))
		return peer_watch_lower(o->id, o->lab, o->yield_to,
					o->yield_len) == 0;
	return runner_handover_keyed_check(o);
}
