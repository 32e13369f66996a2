/* test_changes_history.c: what changed at a change point, from two runs'
 * hosts: the image line, the server's versions, every fact that differs
 * as ROLE.FIELD (nested system-table fields included), the controller,
 * addresses and clocks left out, clients numbered, a removed fact, the
 * column's size kept. */
#include <stdlib.h>
#include <string.h>

#include "changes/changes_history.h"
#include "resultdb/resultdb_changes.h"
#include "tap.h"

static const char base[] =
	"[{\"role\":\"controller\",\"id\":\"ctl\",\"kernel\":\"k1\"},"
	"{\"role\":\"client\",\"id\":\"c-1\",\"address\":\"10.0.0.2\","
	"\"clock\":{\"offset_ns\":5},\"kernel\":\"k1\"},"
	"{\"role\":\"client\",\"id\":\"c-2\",\"kernel\":\"k1\"},"
	"{\"role\":\"server\",\"id\":\"s\",\"kernel\":\"k1\","
	"\"apache_version\":\"2.4.62\",\"mariadb_version\":\"10.11.6\","
	"\"system\":{\"cpu\":{\"microcode\":\"0x10\",\"governor\":\"performance\"}},"
	"\"nics\":[{\"driver\":\"virtio_net\",\"mtu\":1500}]}]";

static const struct {
	const char *name;
	const char *hosts_b;	/* NULL: base */
	const char *digest_b;
	const char *want[4];	/* lines the text must hold */
	const char *never[3];	/* nor these */
} cases[] = {
	{ "nothing differs", NULL, "sha256:a",
	  { "image sha256:a (unchanged)",
	    "server srv: apache 2.4.62, mariadb 10.11.6",
	    "hosts: no fact differs from the run before" },
	  { "client", "ctl" } },
	{ "a new image", NULL, "sha256:b",
	  { "image sha256:b (before: sha256:a)" }, { "unchanged" } },
	{ "the controller, an address and a clock are not the machine",
	  "[{\"role\":\"controller\",\"id\":\"ctl2\",\"kernel\":\"k9\"},"
	  "{\"role\":\"client\",\"id\":\"c-1\",\"address\":\"10.0.0.9\","
	  "\"clock\":{\"offset_ns\":99},\"kernel\":\"k1\"},"
	  "{\"role\":\"client\",\"id\":\"c-2\",\"kernel\":\"k1\"},"
	  "{\"role\":\"server\",\"id\":\"s\",\"kernel\":\"k1\","
	  "\"apache_version\":\"2.4.62\",\"mariadb_version\":\"10.11.6\","
	  "\"system\":{\"cpu\":{\"microcode\":\"0x10\",\"governor\":\"performance\"}},"
	  "\"nics\":[{\"driver\":\"virtio_net\",\"mtu\":1500}]}]", "sha256:a",
	  { "hosts: no fact differs from the run before" },
	  { "ctl2", "10.0.0.9", "offset" } },
	{ "the second client's kernel, the server's microcode and MTU",
	  "[{\"role\":\"client\",\"id\":\"c-1\",\"kernel\":\"k1\"},"
	  "{\"role\":\"client\",\"id\":\"c-2\",\"kernel\":\"k2\"},"
	  "{\"role\":\"server\",\"id\":\"s\",\"kernel\":\"k1\","
	  "\"apache_version\":\"2.4.63\",\"mariadb_version\":\"10.11.6\","
	  "\"system\":{\"cpu\":{\"microcode\":\"0x12\",\"governor\":\"performance\"}},"
	  "\"nics\":[{\"driver\":\"virtio_net\",\"mtu\":9000}]}]", "sha256:a",
	  { "client2.kernel: k1 -> k2",
	    "server.system.cpu.microcode: 0x10 -> 0x12",
	    "server.nics[0].mtu: 1500 -> 9000",
	    "server srv: apache 2.4.63, mariadb 10.11.6" },
	  { "client1.kernel", "governor" } },
	{ "a fact gone, a fact new",
	  "[{\"role\":\"client\",\"id\":\"c-1\",\"kernel\":\"k1\"},"
	  "{\"role\":\"client\",\"id\":\"c-2\",\"kernel\":\"k1\"},"
	  "{\"role\":\"server\",\"id\":\"s\",\"kernel\":\"k1\","
	  "\"apache_version\":\"2.4.62\",\"mariadb_version\":\"10.11.6\","
	  "\"postfix_version\":\"3.7.11\","
	  "\"system\":{\"cpu\":{\"governor\":\"performance\"}},"
	  "\"nics\":[{\"driver\":\"virtio_net\",\"mtu\":1500}]}]", "sha256:a",
	  { "server.postfix_version: (none) -> 3.7.11",
	    "server.system.cpu.microcode: 0x10 -> (none)",
	    "server srv: apache 2.4.62, mariadb 10.11.6, postfix 3.7.11" },
	  { NULL } },
};

static char *what(const char *hb, const char *db)
{
	struct changes_hist h = { 0 };
	struct changes_run r[2];
	char err[200], *w;

	memset(r, 0, sizeof(r));
	strcpy(r[0].id, "a");
	strcpy(r[1].id, "b");
	strcpy(r[0].digest, "sha256:a");
	snprintf(r[1].digest, sizeof(r[1].digest), "%s", db);
	strcpy(r[0].server, "srv");
	strcpy(r[1].server, "srv");
	r[0].hosts = (char *)base;
	r[1].hosts = (char *)hb;
	h.runs = r;
	h.nruns = 2;
	w = changes_history_what(&h, 0, 1, err, sizeof(err));
	return w;
}

int main(void)
{
	size_t i, k;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *w = what(cases[i].hosts_b ? cases[i].hosts_b : base,
			       cases[i].digest_b);
		int ok = w != NULL;

		for (k = 0; ok && k < 4 && cases[i].want[k]; k++) {
			const char *p = strstr(w, cases[i].want[k]);
			size_t l = strlen(cases[i].want[k]);

			/* A whole line: from a line start to a line end. */
			ok = p && (p == w || p[-1] == '\n') &&
				(p[l] == 0 || p[l] == '\n');
		}
		for (k = 0; ok && k < 3 && cases[i].never[k]; k++)
			ok = !strstr(w, cases[i].never[k]);
		if (!tap_ok(ok, "%s", cases[i].name))
			printf("#   got:\n%s\n", w ? w : "(null)");
		free(w);
	}
	{
		/* 400 differing facts: the text stops within the column. */
		size_t n = 400 * 40 + 100, off;
		char *a = malloc(n), *b = malloc(n), *w;
		int j;

		off = (size_t)sprintf(a, "[{\"role\":\"server\"");
		for (j = 0; j < 400; j++)
			off += (size_t)sprintf(a + off, ",\"f%d\":\"old\"", j);
		strcpy(a + off, "}]");
		strcpy(b, a);
		for (char *p = b; (p = strstr(p, "old")); p += 3)
			memcpy(p, "new", 3);
		{
			struct changes_hist h = { 0 };
			struct changes_run r[2];
			char err[200];

			memset(r, 0, sizeof(r));
			r[0].hosts = a;
			r[1].hosts = b;
			h.runs = r;
			h.nruns = 2;
			w = changes_history_what(&h, 0, 1, err, sizeof(err));
		}
		tap_ok(w && strlen(w) <= RESULTDB_CHANGED_MAX &&
		       strlen(w) > RESULTDB_CHANGED_MAX - 40 &&
		       strstr(w, "server.f0: old -> new"),
		       "400 differing facts: cut at the column (%zu bytes)",
		       w ? strlen(w) : 0);
		free(w);
		free(a);
		free(b);
	}
	return tap_done();
}
