/* mdns/mdns_cmd.c: `benchboot mdns publish` and `benchboot mdns browse`,
 * the responder and the browser driven from the shell. */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "mdns/mdns_browser.h"
#include "mdns/mdns_cmd.h"
#include "mdns/mdns_responder.h"
#include "mdns/mdns_socket.h"
#include "lib/opt.h"
#include "lib/stop.h"
#include "lib/util.h"

/* Prints s (len bytes) with tabs, backslashes and non-printables as
 * \DDD, so each browse line splits cleanly on tabs. */
static void print_esc(const uint8_t *s, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		if (s[i] < 0x20 || s[i] == 0x7f || s[i] == '\\')
			printf("\\%03u", s[i]);
		else
			putchar(s[i]);
	}
}

/* One browse line: name, host, address, port, interface, TXT strings. */
static void print_instance(const struct mdns_instance *in)
{
	size_t p = 0;

	print_esc((const uint8_t *)in->name, strlen(in->name));
	printf("\t%s\t%s\t%u\t%s", in->host, in->addr, in->port, in->ifname);
	while (p < in->txt_len) {
		size_t l = in->txt[p];

		if (l) {
			putchar('\t');
			print_esc(in->txt + p + 1, l);
		}
		p += 1 + l;
	}
	putchar('\n');
	fflush(stdout);
}

static void watch_event(void *arg, enum mdns_event ev,
			const struct mdns_instance *in)
{
	fputs(ev == MDNS_FOUND ? "+\t" : ev == MDNS_CHANGED ? "~\t" : "-\t",
	      stdout);
	print_instance(in);
}

/* --watch: every event as it happens until the timeout or a signal. */
static int mdns_watch(const char *type, const char *subtype,
		      const char *ifname, uint64_t timeout_ms)
{
	struct mdns_browse_conf conf = { .type = type, .subtype = subtype,
					 .ifname = ifname,
					 .cb = watch_event };
	uint64_t end = mdns_socket_now_ms() + timeout_ms;
	struct mdns_browser *b;
	char err[512];
	int rc = 0;

	b = mdns_browser_new(&conf, err, sizeof(err));
	if (!b) {
		util_err("mdns", EINVAL, "browse: %s", err);
		return 1;
	}
	stop_on_signals();
	while (!stop_requested && mdns_socket_now_ms() < end) {
		struct pollfd p = { mdns_browser_fd(b), POLLIN, 0 };
		uint64_t left = end - mdns_socket_now_ms();
		int to = mdns_browser_timeout_ms(b);

		if ((uint64_t)to > left)
			to = (int)left;
		if (poll(&p, 1, to) < 0 && errno != EINTR) {
			rc = util_err("mdns", errno, "poll: %s",
				      strerror(errno));
			break;
		}
		rc = mdns_browser_handle(b);
		if (rc != 0) {
			util_err("mdns", -rc, "receive: %s", strerror(-rc));
			break;
		}
	}
	mdns_browser_free(b);
	return rc ? 1 : 0;
}

/* --txt-stdin: each line read is a new TXT list, "k=v" words separated by
 * spaces, replacing the old one (as an agent's role changes). */
struct txt_in {
	int fd;
	char buf[1024];
	size_t len;
};

static void txt_in_read(struct txt_in *t, struct mdns_responder *r)
{
	ssize_t n = read(t->fd, t->buf + t->len, sizeof(t->buf) - 1 - t->len);
	char *nl;

	if (n <= 0) {
		if (n == 0 || (errno != EINTR && errno != EAGAIN))
			t->fd = -1;	/* EOF: keep publishing */
		return;
	}
	t->len += (size_t)n;
	t->buf[t->len] = 0;
	while ((nl = strchr(t->buf, '\n'))) {
		const char *kv[64];
		size_t nkv = 0;
		char *tok, *save = NULL;

		*nl = 0;
		for (tok = strtok_r(t->buf, " \t", &save); tok && nkv < 63;
		     tok = strtok_r(NULL, " \t", &save))
			kv[nkv++] = tok;
		kv[nkv] = NULL;
		if (mdns_responder_set_txt(r, kv) == 0)
			fprintf(stderr,
				"benchboot mdns: TXT replaced (%zu strings)\n",
				nkv);
		t->len -= (size_t)(nl + 1 - t->buf);
		memmove(t->buf, nl + 1, t->len + 1);
	}
	if (t->len == sizeof(t->buf) - 1)
		t->len = 0;	/* an over-long line: drop it */
}

/* Answers and announces until SIGINT/SIGTERM, taking TXT updates from
 * tin, and prints the name once it is ours.  Returns 0 or a negative
 * errno (reported). */
static int mdns_publish_loop(struct mdns_responder *r, struct txt_in *tin,
			     unsigned port)
{
	enum mdns_state shown = MDNS_PROBING;
	int rc = 0;

	while (!stop_requested) {
		struct pollfd p[2] = { { mdns_responder_fd(r), POLLIN, 0 },
				       { tin->fd, POLLIN, 0 } };

		if (poll(p, tin->fd >= 0 ? 2 : 1,
			 mdns_responder_timeout_ms(r)) < 0 &&
		    errno != EINTR)
			return util_err("mdns", errno, "poll: %s",
					strerror(errno));
		if (tin->fd >= 0 && p[1].revents)
			txt_in_read(tin, r);
		rc = mdns_responder_handle(r);
		if (rc != 0) {
			util_err("mdns", -rc, "socket: %s", strerror(-rc));
			return rc;
		}
		if (mdns_responder_state(r) == shown)
			continue;
		shown = mdns_responder_state(r);
		if (shown == MDNS_RUNNING) {
			printf("published '%s' on %s.local port %u\n",
			       mdns_responder_instance(r),
			       mdns_responder_host(r), port);
			fflush(stdout);
		}
	}
	return rc;
}

/* What `mdns publish`'s command line sets. */
struct mdns_publish_cmdline {
	struct mdns_service svc;
	const char *txt[64];
	size_t ntxt;
	const char *sub[MDNS_SUBTYPES_MAX + 1];
	size_t nsub;
	uint64_t port;
	int txt_stdin;
};

/* --txt KEY=VALUE: one more (dst: the command line). */
static int mdns_opt_txt(void *dst, const char *value, char *err,
			size_t errlen)
{
	struct mdns_publish_cmdline *cl = dst;

	if (cl->ntxt == 63)
		return util_fail(err, errlen, -EINVAL, "more than 63 --txt");
	cl->txt[cl->ntxt++] = value;
	return 0;
}

/* --subtype _SUB: one more (dst: the command line). */
static int mdns_opt_sub(void *dst, const char *value, char *err,
			size_t errlen)
{
	struct mdns_publish_cmdline *cl = dst;

	if (cl->nsub == MDNS_SUBTYPES_MAX)
		return util_fail(err, errlen, -EINVAL,
				 "more than %d --subtype", MDNS_SUBTYPES_MAX);
	cl->sub[cl->nsub++] = value;
	return 0;
}

#define MP(m) OPT_AT(struct mdns_publish_cmdline, m)

static const struct opt mdns_publish_opts[] = {
	{ .name = "name", .key = 'n', .kind = OPT_STR,
	  .off = MP(svc.instance), .arg = "NAME",
	  .help = "the instance name (required)" },
	{ .name = "port", .key = 'p', .kind = OPT_U64, .off = MP(port),
	  .min = 1, .max = 65535, .bad = "--port '%s': want 1..65535",
	  .arg = "PORT", .help = "the service's port (required)" },
	{ .name = "host", .key = 'H', .kind = OPT_STR, .off = MP(svc.host),
	  .arg = "HOST", .help = "the host name its A record gives",
	  .def = "this host's name" },
	{ .name = "type", .key = 't', .kind = OPT_STR, .off = MP(svc.type),
	  .arg = "TYPE", .help = "the service type",
	  .def = MDNS_SERVICE_TYPE },
	{ .name = "if", .key = 'i', .kind = OPT_STR, .off = MP(svc.ifname),
	  .arg = "IFACE", .help = "answer on this interface only",
	  .def = "every multicast interface" },
	{ .name = "txt", .key = 'x', .kind = OPT_FN, .fn = mdns_opt_txt,
	  .arg = "KEY=VALUE", .help = "a TXT record string (repeatable)" },
	{ .name = "txt-stdin", .key = 's', .kind = OPT_FLAG,
	  .off = MP(txt_stdin), .val = 1,
	  .help = "read new TXT sets from stdin, one line each, and announce "
		  "them" },
	{ .name = "subtype", .key = 'S', .kind = OPT_FN, .fn = mdns_opt_sub,
	  .arg = "_SUB", .help = "a subtype to answer for (repeatable)" },
};

static const struct optset mdns_publish_set = OPTSET("mdns",
	mdns_publish_opts, "publish --name NAME --port PORT [options]", NULL);

static int mdns_publish_main(int argc, char **argv)
{
	const struct optset *set = &mdns_publish_set;
	static struct mdns_publish_cmdline cl;
	struct mdns_service svc;
	struct txt_in tin = { .fd = -1 };
	const char **txt = cl.txt;
	struct mdns_responder *r;
	struct mdns_stats st;
	char err[512];
	uint64_t port;
	int argi, rc;

	memset(&cl, 0, sizeof(cl));
	rc = opt_main(set, &cl, argc, argv, &argi);
	if (rc != 0)
		return rc > 0 ? 0 : 2;
	svc = cl.svc;
	port = cl.port;
	if (cl.txt_stdin)
		tin.fd = 0;
	if (argi != argc || !svc.instance || !port) {
		opt_usage(set, stderr);
		return 2;
	}
	txt[cl.ntxt] = NULL;
	svc.txt = txt;
	cl.sub[cl.nsub] = NULL;
	svc.subtypes = cl.sub;
	svc.port = (uint16_t)port;
	r = mdns_responder_new(&svc, err, sizeof(err));
	if (!r) {
		util_err("mdns", EINVAL, "publish: %s", err);
		return 1;
	}
	stop_on_signals();
	rc = mdns_publish_loop(r, &tin, (unsigned)port);
	mdns_responder_stats(r, &st);
	fprintf(stderr,
		"benchboot mdns: rx %llu bad %llu ignored %llu queries %llu legacy %llu tx %llu conflicts %llu\n",
		(unsigned long long)st.rx, (unsigned long long)st.rx_bad,
		(unsigned long long)st.rx_ignored,
		(unsigned long long)st.queries, (unsigned long long)st.legacy,
		(unsigned long long)st.tx, (unsigned long long)st.conflicts);
	mdns_responder_free(r);
	return rc ? 1 : 0;
}

/* What `mdns browse`'s command line sets. */
struct mdns_browse_cmdline {
	uint64_t timeout;
	const char *ifname;
	const char *subtype;
	int watch;
};

#define MB(m) OPT_AT(struct mdns_browse_cmdline, m)

static const struct opt mdns_browse_opts[] = {
	{ .name = "timeout", .key = 't', .kind = OPT_DUR, .off = MB(timeout),
	  .max = 3600000000000ull,
	  .bad = "--timeout '%s': want a duration up to 1h", .arg = "DUR",
	  .help = "how long to look", .def = "3s" },
	{ .name = "if", .key = 'i', .kind = OPT_STR, .off = MB(ifname),
	  .arg = "IFACE", .help = "ask on this interface only",
	  .def = "every multicast interface" },
	{ .name = "watch", .key = 'w', .kind = OPT_FLAG, .off = MB(watch),
	  .val = 1, .help = "print every instance as it comes and goes, "
	  "until the timeout" },
	{ .name = "subtype", .key = 'S', .kind = OPT_STR,
	  .off = MB(subtype), .arg = "_SUB",
	  .help = "only the instances of this subtype" },
};

static const struct optset mdns_browse_set = OPTSET("mdns",
	mdns_browse_opts, "browse [options] [TYPE]", NULL);

/* Both subcommands' --help. */
static void mdns_usage(FILE *out)
{
	opt_usage(&mdns_publish_set, out);
	opt_usage(&mdns_browse_set, out);
}

static int mdns_browse_main(int argc, char **argv)
{
	const struct optset *set = &mdns_browse_set;
	static struct mdns_instance found[MDNS_BROWSER_MAX];
	struct mdns_browse_cmdline cl = { .timeout = 3000000000u };
	bool watch;
	const char *ifname, *type = NULL;
	uint64_t timeout;
	char err[512];
	size_t n, i;
	int argi, rc;

	rc = opt_main(set, &cl, argc, argv, &argi);
	if (rc != 0)
		return rc > 0 ? 0 : 2;
	watch = cl.watch;
	ifname = cl.ifname;
	timeout = cl.timeout;
	if (argi < argc)
		type = argv[argi++];
	if (argi != argc) {
		opt_usage(set, stderr);
		return 2;
	}
	if (watch)
		return mdns_watch(type, cl.subtype, ifname,
				  timeout / 1000000u);
	rc = mdns_browse(type, cl.subtype, ifname, (int)(timeout / 1000000u),
			 found, MDNS_BROWSER_MAX, &n, err, sizeof(err));
	if (rc != 0) {
		util_err("mdns", -rc, "browse: %s", err);
		return 1;
	}
	for (i = 0; i < n; i++)
		print_instance(&found[i]);
	return 0;
}

int mdns_main(int argc, char **argv)
{
	if (argc < 2) {
		mdns_usage(stderr);
		return 2;
	}
	if (strcmp(argv[1], "publish") == 0)
		return mdns_publish_main(argc - 1, argv + 1);
	if (strcmp(argv[1], "browse") == 0)
		return mdns_browse_main(argc - 1, argv + 1);
	if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0) {
		mdns_usage(stdout);
		return 0;
	}
	mdns_usage(stderr);
	return 2;
}
