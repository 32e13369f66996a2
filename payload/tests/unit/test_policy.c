/* test_policy.c: what an agent lets a controller start (policy.h), one
 * table row per argv. */
#include <errno.h>
#include <string.h>

#include "agent/policy.h"
#include "tap.h"

static const struct {
	const char *argv;	/* JSON array */
	int rc;
	const char *why;	/* in the refusal */
} cases[] = {
	{ "[\"http\",\"-c\",\"4\",\"http://10.0.0.1:80/x.html\",\"--json\"]", 0, "" },
	{ "[\"http\",\"https://10.0.0.1/\"]", 0, "" },
	{ "[\"http\",\"http://[fd00::1]:8080/a\"]", 0, "" },
	{ "[\"http\",\"http://10.0.0.2/\"]", -EPERM, "target '10.0.0.2/'" },
	{ "[\"http\",\"http://10.0.0.10/\"]", -EPERM, "not a server of this run" },
	{ "[\"http\",\"--urls\",\"/etc/shadow\",\"http://10.0.0.1/\"]", -EPERM, "option --urls reads a local file" },
	{ "[\"http\",\"--urls=/etc/shadow\"]", -EPERM, "--urls" },
	{ "[\"sql\",\"--workload=mix\",\"--host\",\"10.0.0.1\",\"--port\",\"3306\"]", 0, "" },
	{ "[\"sql\",\"--host=10.0.0.1\"]", 0, "" },
	{ "[\"sql\",\"--host\",\"10.9.9.9\"]", -EPERM, "target '10.9.9.9'" },
	{ "[\"sql\",\"--socket\",\"/run/mysqld/mysqld.sock\"]", -EPERM, "--socket" },
	{ "[\"smtp\",\"--from\",\"a@b.test\",\"--to\",\"c@d.test\",\"10.0.0.1:25\"]", 0, "" },
	{ "[\"smtp\",\"--to\",\"c@d\",\"10.6.6.6:25\"]", -EPERM, "target '10.6.6.6:25'" },
	{ "[\"smtp\",\"--message\",\"/etc/shadow\",\"10.0.0.1:25\"]", -EPERM, "--message" },
	{ "[\"probe\",\"--json\"]", 0, "" },
	{ "[\"sample\",\"--root\",\"/\"]", -EPERM, "--root" },
	{ "[\"fetch\",\"-o\",\"/etc/passwd\",\"http://x/\"]", -EPERM, "'fetch' is not a workload" },
	{ "[\"agent\",\"--role=controller\"]", -EPERM, "'agent' is not a workload" },
	{ "[\"collect\"]", -EPERM, "'collect' is not a workload" },
	{ "[\"smtp-sink\",\"0.0.0.0:25\"]", -EPERM, "not a workload of this agent" },
	{ "[]", -EPERM, "no workload" },
	{ "[\"http\",7]", -EPERM, "not a string" },
};

int main(void)
{
	cJSON *wl = cJSON_Parse("[\"http\",\"sql\",\"smtp\",\"probe\",\"sample\"]");
	cJSON *tg = cJSON_Parse("[\"10.0.0.1\",\"fd00::1\"]");
	char err[256];
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		cJSON *argv = cJSON_Parse(cases[i].argv);
		int rc;

		err[0] = 0;
		rc = policy_check_argv(argv, wl, tg, err, sizeof(err));
		tap_ok(rc == cases[i].rc && strstr(err, cases[i].why),
		       "%s -> %s", cases[i].argv, rc ? err : "allowed");
		cJSON_Delete(argv);
	}
	cJSON_Delete(wl);
	cJSON_Delete(tg);
	return tap_done();
}
