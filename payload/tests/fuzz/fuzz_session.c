/* fuzz_session.c: libFuzzer target for an agent's run handling
 * (agent/session.c): lines as a controller sends them (RUN, START, ABORT,
 * RESET and the rest), through control_msg_parse, the session's gate, the
 * targets it decides itself, the policy and the step's setup, up to but
 * not including fork and exec: session_spawn is a stand-in that checks
 * each argv the agent would exec.  The first byte picks the agent's role
 * and lab (open or keyed, the handshake taken as done); the rest is one
 * message a line.
 *
 * It includes session.c for its statics.  The modules below the session
 * it does not link are stand-ins here: no mDNS (a target is announced
 * when it starts with 10.77.), no clock service, no series, and a
 * workload table of its own with each kind of target and option (the
 * policy with the real tables is test_policy's: they link every load
 * generator). */
#include <stdarg.h>
#include <sys/socket.h>
#include <stdint.h>

#include "agent/session.c"
#include "agent/workload.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* --- stand-ins for the modules not linked ------------------------------ */

char node_log_id[64];

void node_log(const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	/* FUZZ_SESSION_LOG=1: what a seed makes the agent say. */
	if (getenv("FUZZ_SESSION_LOG"))
		fprintf(stderr, "agent: %s\n", buf);
}

void node_status(const char *fmt, ...)
{
	char buf[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
}

const char *role_name(enum role role)
{
	return role == ROLE_SERVER ? "server" : "client";
}

cJSON *node_hostinfo(const char *id, const char *role)
{
	return cJSON_CreateObject();
}

void node_server_reset(cJSON *rs)
{
	cJSON_AddBoolToObject(rs, "ok", 1);
}

void node_relay_route(const char *sink)
{
	if (strlen(sink) > 4096)
		__builtin_trap();
}

int64_t node_clock(void)
{
	return 1000000000000000000ll;
}

int64_t node_clock_to_real(int64_t t)
{
	return t;
}

void peer_poll(void)
{
}

int peer_discover(uint64_t timeout_ns, const volatile sig_atomic_t *stop,
		  const char *lab, char *out, size_t outlen)
{
	return -ENOENT;
}

int peer_servers_watch(const char *lab)
{
	return 0;
}

int peer_server_announced(const char *addr, const char *lab, int timeout_ms)
{
	return strncmp(addr, "10.77.", 6) == 0 ? 0 : -ENOENT;
}

int series_start_server(struct series *s, const char *procs)
{
	return -ENOSYS;
}

int series_read(struct series *s, series_cb *cb, void *ctx)
{
	return 0;
}

void series_discard(void *ctx, const char *source, cJSON *rec)
{
	cJSON_Delete(rec);
}

void series_stop(struct series *s)
{
}

const char *version_string(void)
{
	return "fuzz";
}

/* The workloads: one of each kind of target, options of each kind. */
struct fuzz_cfg {
	int flag;
	unsigned n;
	uint64_t u, dur;
	double rate;
	const char *str, *file;
};

#define FA(m) OPT_AT(struct fuzz_cfg, m)

static const struct opt fuzz_opts[] = {
	{ .name = "threads", .key = 't', .kind = OPT_UINT, .off = FA(n),
	  .min = 1, .max = 1024, .remote = 1 },
	{ .name = "connections", .key = 'c', .kind = OPT_UINT, .off = FA(n),
	  .min = 1, .max = 65536, .remote = 1 },
	{ .name = "duration", .key = 'd', .kind = OPT_DUR, .off = FA(dur),
	  .remote = 1 },
	{ .name = "rate", .kind = OPT_RATE, .off = FA(rate), .max = 1000000,
	  .remote = 1 },
	{ .name = "count", .kind = OPT_U64, .off = FA(u), .max = 1ull << 40,
	  .remote = 1 },
	{ .name = "json", .key = 'j', .kind = OPT_FLAG, .off = FA(flag),
	  .val = 1, .remote = 1 },
	{ .name = "host", .kind = OPT_STR, .off = FA(str), .remote = 1 },
	{ .name = "from", .kind = OPT_STR, .off = FA(str), .remote = 1 },
	{ .name = "message", .key = 'm', .kind = OPT_STR, .off = FA(file),
	  .local = "reads a local file" },
	{ .name = "store", .kind = OPT_STR, .off = FA(file),
	  .local = "writes local files" },
	{ .name = "replay", .key = 'r', .kind = OPT_STR, .off = FA(file),
	  .local = "reads a local file" },
};

static const struct optset fuzz_set = OPTSET("fuzz", fuzz_opts, NULL,
					     NULL);

#define ON_BOTH (WORKLOAD_ROLE(ROLE_CLIENT) | WORKLOAD_ROLE(ROLE_SERVER))

const struct workload workload_table[] = {
	{ "http", ON_BOTH, &fuzz_set, WORKLOAD_TARGET_URL },
	{ "sql", ON_BOTH, &fuzz_set, WORKLOAD_TARGET_HOST },
	{ "smtp", ON_BOTH, &fuzz_set, WORKLOAD_TARGET_HOSTPORT },
	{ "smtp-sink", ON_BOTH, &fuzz_set, WORKLOAD_TARGET_LISTEN },
	{ "probe", ON_BOTH, &fuzz_set, WORKLOAD_TARGET_NONE },
	{ NULL, 0, NULL, WORKLOAD_TARGET_NONE },
};

const struct workload *workload_find(const char *name)
{
	const struct workload *w;

	for (w = workload_table; name && w->name; w++)
		if (strcmp(w->name, name) == 0)
			return w;
	return NULL;
}

/* --- the seam: what would be forked ------------------------------------ */

/* A refused option given after all: what the policy must have stopped. */
static int fuzz_local(const struct opt *o, const char *value, const char *arg,
		      void *ctx, char *err, size_t errlen)
{
	if (o->local)
		__builtin_trap();
	return 0;
}

/* Stands in for session_proc_spawn: the argv is what the policy let by,
 * so 1..258 strings naming a workload, resolved by its table (as the
 * workload will resolve it) to no option that touches this host;
 * nothing is forked. */
static int fuzz_spawn(struct session_proc *p, const cJSON *argv,
		      int64_t start_at, uint64_t budget_ms)
{
	const cJSON *a, *w0 = cJSON_GetArrayItem(argv, 0);
	const struct workload *w;
	char *args[260], err[256];
	int n = 0, argi;

	w = cJSON_IsString(w0) ? workload_find(w0->valuestring) : NULL;
	if (!w)
		__builtin_trap();
	cJSON_ArrayForEach(a, argv) {
		if (!cJSON_IsString(a) || !a->valuestring || n >= 258)
			__builtin_trap();
		args[n++] = a->valuestring;
	}
	args[n] = NULL;
	if (opt_walk(w->opts, n, args, &argi, fuzz_local, NULL, err,
		     sizeof(err)) != 0)
		__builtin_trap();
	memset(p, 0, sizeof(*p));
	p->out_fd = p->wake_fd = p->go_fd = -1;
	p->gated = budget_ms > 0;
	p->gstate = p->gated;
	p->exited = 1;
	p->argv = cJSON_Duplicate(argv, 1);
	return p->argv ? 0 : -ENOMEM;
}

/* --- the target -------------------------------------------------------- */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char sink[65536];
	int sv[2];
	static struct auth_key key = { .len = 16 };
	struct session_opts o = { .id = "fuzz-agent", .lab = "" };
	struct session s;
	const char *p, *end, *nl;

	if (size < 1)
		return 0;
	session_spawn = fuzz_spawn;
	o.role = data[0] & 1 ? ROLE_SERVER : ROLE_CLIENT;
	o.key = data[0] & 2 ? &key : NULL;
	o.target = data[0] & 4 ? "10.0.0.7" : NULL;
	o.workloads = cJSON_CreateArray();
	cJSON_AddItemToArray((cJSON *)o.workloads,
			     cJSON_CreateString("http"));
	cJSON_AddItemToArray((cJSON *)o.workloads,
			     cJSON_CreateString("smtp"));
	cJSON_AddItemToArray((cJSON *)o.workloads, cJSON_CreateString("sql"));
	cJSON_AddItemToArray((cJSON *)o.workloads,
			     cJSON_CreateString(data[0] & 8 ? "probe" :
						"smtp-sink"));
	memset(&s, 0, sizeof(s));
	s.o = &o;
	s.authed = o.key != NULL;
	s.welcomed = 1;
	s.ctl_host = data[0] & 16 ? "10.0.0.1" : NULL;
	snprintf(s.where, sizeof(s.where), "fuzz");
	/* The controller's end is read after every line: what the agent
	 * sends goes somewhere, as on a real connection. */
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
		__builtin_trap();
	control_conn_init(&s.c, sv[0]);
	p = (const char *)data + 1;
	end = (const char *)data + size;
	while (p < end && !s.done) {
		nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			nl = end;
		if (session_handle(&s, p, (size_t)(nl - p)) != 0)
			break;
		while (recv(sv[1], sink, sizeof(sink), MSG_DONTWAIT) > 0)
			;
		p = nl + 1;
	}
	session_step_free(&s.run);
	control_conn_close(&s.c);
	close(sv[1]);
	cJSON_Delete((cJSON *)o.workloads);
	return 0;
}
