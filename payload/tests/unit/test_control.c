/* test_control.c: control protocol validation and framing: every message
 * type's required fields, wrong versions and types, oversized lines, lines
 * split across reads; the liveness a connection's socket gets. */
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "proto/control.h"
#include "tap.h"

static const struct {
	const char *line;
	int rc;
	const char *err;	/* substring of the message */
} cases[] = {
	{ "{\"v\":1,\"type\":\"hello\",\"id\":\"client-1\",\"role\":\"client\"}",
	  0, NULL },
	{ "{\"v\":1,\"type\":\"hello\",\"id\":\"client-1\",\"role\":\"boss\"}",
	  -EINVAL, "hello: field \"role\": want client, server or controller" },
	{ "{\"v\":1,\"type\":\"hello\",\"id\":\"a b\",\"role\":\"client\"}",
	  -EINVAL, "hello: field \"id\"" },
	{ "{\"v\":1,\"type\":\"hello\",\"role\":\"client\"}",
	  -EINVAL, "field \"id\": missing" },
	{ "{\"v\":1,\"type\":\"hello\",\"id\":\"x\",\"role\":\"client\","
	  "\"workloads\":[1]}", -EINVAL, "not all strings" },
	{ "{\"v\":2,\"type\":\"hello\"}", -EINVAL, "field \"v\": want 1" },
	{ "{\"type\":\"hello\"}", -EINVAL, "field \"v\"" },
	{ "{\"v\":1,\"type\":\"bogus\"}", -EINVAL, "unknown message type" },
	{ "{\"v\":1}", -EINVAL, "field \"type\": missing" },
	{ "[1,2]", -EINVAL, "not a JSON object" },
	{ "{\"v\":1,", -EINVAL, "not valid JSON" },
	{ "", -EINVAL, "not valid JSON" },
	{ "{\"v\":1,\"type\":\"time_req\",\"seq\":1,\"t1\":5}", 0, NULL },
	{ "{\"v\":1,\"type\":\"time_req\",\"seq\":-1,\"t1\":5}", -EINVAL,
	  "negative" },
	{ "{\"v\":1,\"type\":\"time_req\",\"seq\":1,\"t1\":1.5}", -EINVAL,
	  "field \"t1\": 1.5 is not an integer" },
	{ "{\"v\":1,\"type\":\"time_req\",\"seq\":1,\"t1\":\"5\"}", -EINVAL,
	  "field \"t1\": not a number" },
	/* An agent from before exact numbers: its rounded double taken. */
	{ "{\"v\":1,\"type\":\"time_req\",\"seq\":1,"
	  "\"t1\":1.79615122659021e+18}", 0, NULL },
	{ "{\"v\":1,\"type\":\"time_resp\",\"seq\":1,\"t1\":5,\"t2\":6}",
	  -EINVAL, "time_resp: field \"t3\"" },
	{ "{\"v\":1,\"type\":\"time_resp\",\"seq\":1,\"t1\":5,\"t2\":6,"
	  "\"t3\":1e300}", -EINVAL, "out of range" },
	{ "{\"v\":1,\"type\":\"run\",\"step\":\"a/c2/r1\",\"start_at\":1,"
	  "\"procs\":[[\"http\",\"-c\",\"2\"]]}", 0, NULL },
	{ "{\"v\":1,\"type\":\"run\",\"step\":\"a\",\"start_at\":1,"
	  "\"procs\":[[]]}", -EINVAL, "procs[0]: empty argv" },
	{ "{\"v\":1,\"type\":\"run\",\"step\":\"a\",\"start_at\":1,"
	  "\"procs\":[[\"x\",3]]}", -EINVAL, "procs[0][1]: not a string" },
	{ "{\"v\":1,\"type\":\"run\",\"step\":\"a\",\"start_at\":1,"
	  "\"procs\":{}}", -EINVAL, "field \"procs\"" },
	{ "{\"v\":1,\"type\":\"result\",\"step\":\"a\",\"records\":[{}]}", 0,
	  NULL },
	{ "{\"v\":1,\"type\":\"result\",\"step\":\"a\",\"records\":[1]}",
	  -EINVAL, "not all objects" },
	{ "{\"v\":1,\"type\":\"series\",\"source\":\"sample\",\"rec\":{}}", 0,
	  NULL },
	{ "{\"v\":1,\"type\":\"series\",\"source\":\"sample\",\"rec\":3}",
	  -EINVAL, "field \"rec\"" },
	{ "{\"v\":1,\"type\":\"welcome\",\"controller\":\"c\"}", 0, NULL },
	{ "{\"v\":1,\"type\":\"abort\",\"step\":\"a\"}", 0, NULL },
	{ "{\"v\":1,\"type\":\"done\"}", 0, NULL },
};

/* The TCP_USER_TIMEOUT fd has now, in ms; -1 when unreadable. */
static long uto_ms(int fd)
{
	unsigned int v = 0;
	socklen_t l = sizeof(v);

	return getsockopt(fd, IPPROTO_TCP, TCP_USER_TIMEOUT, &v, &l) ? -1 :
	       (long)v;
}

/* Patience: a real loopback connection's user timeout through a prepare
 * phase and back; a pipe (the fuzzer's and tests' feed) is refused. */
/* control_conn_limit: a peer before hello is buffered a few KiB, not a
 * whole message, whatever it sends; lifted, whole messages come through. */
static void test_limit(void)
{
	static char big[100000];
	struct control_conn c;
	const char *line;
	size_t len;
	int p[2];

	if (!tap_ok(socketpair(AF_UNIX, SOCK_STREAM, 0, p) == 0,
		    "socketpair"))
		return;
	control_conn_init(&c, p[0]);
	control_conn_limit(&c, 8192);
	TAP_EQ_INT(write(p[1], "{\"v\":1}\n", 8), 8, "a short line sent");
	TAP_EQ_INT(control_conn_read(&c), 0, "read under the limit");
	TAP_EQ_INT(control_conn_line(&c, &line, &len), 1,
		   "a line under the limit is taken");
	memset(big, 'x', sizeof(big));
	TAP_EQ_INT(write(p[1], big, sizeof(big)), (int)sizeof(big),
		   "100000 bytes without a newline sent");
	TAP_EQ_INT(control_conn_read(&c), 0, "read stops at the limit");
	tap_ok(c.rx_bytes == 8 + 8193, "8192 + 1 bytes read, the rest left "
	       "in the socket");
	tap_ok(c.rcap <= 16384, "the buffer stays small");
	TAP_EQ_INT(control_conn_line(&c, &line, &len), -EMSGSIZE,
		   "the long line is -EMSGSIZE at the limit");
	control_conn_close(&c);
	close(p[1]);

	if (!tap_ok(socketpair(AF_UNIX, SOCK_STREAM, 0, p) == 0,
		    "socketpair"))
		return;
	control_conn_init(&c, p[0]);
	control_conn_limit(&c, 8192);
	big[20000] = '\n';
	TAP_EQ_INT(write(p[1], big, 20001), 20001, "a 20000-byte line sent");
	control_conn_limit(&c, 0);
	TAP_EQ_INT(control_conn_read(&c), 0, "read with the limit lifted");
	TAP_EQ_INT(control_conn_line(&c, &line, &len), 1,
		   "a joined peer's long line is taken");
	TAP_EQ_INT((int)len, 20000, "whole");
	control_conn_close(&c);
	close(p[1]);
	big[20000] = 'x';
}

static void test_patience(void)
{
	struct sockaddr_in a;
	socklen_t al = sizeof(a);
	struct control_conn c;
	int l, fd, p[2];

	l = control_listen("127.0.0.1", 0);
	if (!tap_ok(l >= 0 && getsockname(l, (struct sockaddr *)&a, &al) == 0,
		    "listen on loopback"))
		return;
	fd = control_connect("127.0.0.1", ntohs(a.sin_port), 2000);
	control_conn_init(&c, fd);
	TAP_EQ_INT(uto_ms(fd), CONTROL_USER_TIMEOUT_MS, "init: the normal user timeout");
	TAP_EQ_INT(control_conn_patience(&c, 130), 0, "patience 130 s");
	TAP_EQ_INT(uto_ms(fd), 130000, "user timeout 130 s");
	TAP_EQ_INT(control_conn_patience(&c, 130), 0, "the same again: no change");
	TAP_EQ_INT(control_conn_patience(&c, 0), 0, "patience 0");
	TAP_EQ_INT(uto_ms(fd), CONTROL_USER_TIMEOUT_MS, "back to the normal user timeout");
	control_conn_close(&c);
	close(l);
	if (pipe(p) != 0)
		return;
	control_conn_init(&c, p[0]);
	TAP_EQ_INT(control_conn_patience(&c, 5), -ENOTSOCK, "a pipe: -ENOTSOCK");
	TAP_EQ_INT(c.patience_s, 0, "a pipe: nothing changed");
	control_conn_close(&c);
	close(p[1]);
}

int main(void)
{
	struct control_conn c;
	struct control_msg m;
	const char *line;
	char err[256], *big;
	size_t i, len;
	int rc;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		err[0] = 0;
		rc = control_msg_parse(cases[i].line, strlen(cases[i].line), &m,
				   err, sizeof(err));
		if (!tap_ok(rc == cases[i].rc && (!cases[i].err ||
						 strstr(err, cases[i].err)),
			    "case %zu: %.50s", i, cases[i].line))
			printf("#   rc %d, err \"%s\"\n", rc, err);
		control_msg_free(&m);
	}
	{
		/* Not NUL-terminated where it ends: trailing junk past len. */
		static const char tr[] = "{\"v\":1,\"type\":\"time_resp\","
			"\"seq\":7,\"t1\":100,\"t2\":1796131028425257517,"
			"\"t3\":260}junk";

		rc = control_msg_parse(tr, sizeof(tr) - 5, &m, err, sizeof(err));
	}
	TAP_EQ_INT(rc, 0, "time_resp parses (length-bounded input)");
	TAP_EQ_INT(m.type, CONTROL_TIME_RESP, "type");
	TAP_EQ_INT(m.seq, 7, "seq");
	TAP_EQ_INT(m.t3, 260, "t3");
	TAP_EQ_INT(m.t2, 1796131028425257517LL, "t2 exact (a real ns time)");
	control_msg_free(&m);

	/* Framing: lines split anywhere, CRLF, several per read. */
	control_conn_init(&c, -1);
	control_conn_feed(&c, "{\"v\":1,\"ty", 10);
	TAP_EQ_INT(control_conn_line(&c, &line, &len), 0, "partial line waits");
	control_conn_feed(&c, "pe\":\"done\"}\r\n{\"v\":1}\n{", 24);
	TAP_EQ_INT(control_conn_line(&c, &line, &len), 1, "first line");
	TAP_EQ_INT(len, 21, "CR stripped");
	TAP_EQ_INT(control_msg_parse(line, len, &m, err, sizeof(err)), 0,
		   "reassembled message parses");
	control_msg_free(&m);
	TAP_EQ_INT(control_conn_line(&c, &line, &len), 1, "second line");
	TAP_EQ_INT(len, 7, "second length");
	TAP_EQ_INT(control_conn_line(&c, &line, &len), 0, "third incomplete");
	control_conn_close(&c);

	/* Oversized: a line longer than CONTROL_MAX_MSG is refused. */
	big = malloc(CONTROL_MAX_MSG + 2);
	memset(big, 'x', CONTROL_MAX_MSG + 2);
	control_conn_init(&c, -1);
	rc = control_conn_feed(&c, big, CONTROL_MAX_MSG + 1);
	TAP_EQ_INT(rc, 0, "buffer takes max + 1 bytes");
	TAP_EQ_INT(control_conn_line(&c, &line, &len), -EMSGSIZE,
		   "line over the limit is -EMSGSIZE");
	control_conn_close(&c);
	TAP_EQ_INT(control_msg_parse(big, CONTROL_MAX_MSG + 1, &m, err, sizeof(err)),
		   -EMSGSIZE, "parse refuses an oversized message");
	free(big);

	/* Host:port. */
	{
		char h[64];
		int port;

		TAP_EQ_INT(control_parse_hostport("10.0.0.1", h, sizeof(h), &port,
					      7407), 0, "host only");
		TAP_EQ_INT(port, 7407, "default port");
		TAP_EQ_INT(control_parse_hostport("ctl.local:99", h, sizeof(h),
					      &port, 7407), 0, "host:port");
		TAP_EQ_STR(h, "ctl.local", "host part");
		TAP_EQ_INT(port, 99, "port part");
		TAP_EQ_INT(control_parse_hostport("[fe80::1]:5", h, sizeof(h),
					      &port, 7407), 0, "[v6]:port");
		TAP_EQ_STR(h, "fe80::1", "v6 host");
		TAP_EQ_INT(control_parse_hostport("h:0", h, sizeof(h), &port, 1),
			   -EINVAL, "port 0 refused");
		TAP_EQ_INT(control_parse_hostport("h:x", h, sizeof(h), &port, 1),
			   -EINVAL, "junk port refused");
		TAP_EQ_INT(control_parse_hostport("", h, sizeof(h), &port, 1),
			   -EINVAL, "empty refused");
	}
	test_patience();
	test_limit();
	return tap_done();
}
