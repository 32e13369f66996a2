/* proto/control.h: the control protocol between agents and the controller: one TCP
 * connection per agent carrying newline-delimited JSON (docs/protocol.md). */
#ifndef BB_CONTROL_H
#define BB_CONTROL_H

#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

/* Protocol version every message carries as "v". */
#define CONTROL_VERSION 1
/* Default TCP port of the controller. */
#define CONTROL_PORT 7407
/* Largest message (one line, without its newline).  A longer line closes
 * the connection: a peer that sends one is broken or hostile. */
#define CONTROL_MAX_MSG (1u << 20)
/* Liveness of a silent connection (control_conn_init): keepalive probes and
 * the unacknowledged-data limit bound how long a vanished peer goes
 * unnoticed to CONTROL_DEAD_S. */
#define CONTROL_KEEPIDLE_S 3
#define CONTROL_KEEPINTVL_S 2
#define CONTROL_KEEPCNT 3
#define CONTROL_USER_TIMEOUT_MS 6000
#define CONTROL_DEAD_S 12
/* Added to a prepare phase's own limit for the patience both ends give
 * each other while the workloads prepare (control_conn_patience). */
#define CONTROL_PATIENCE_MARGIN_S 10

enum control_type {
	CONTROL_HELLO = 1,	/* agent -> controller: who I am */
	CONTROL_WELCOME,	/* controller -> agent: accepted */
	CONTROL_TIME_REQ,	/* controller -> agent: clock probe */
	CONTROL_TIME_RESP,	/* agent -> controller: clock probe answer */
	CONTROL_RUN,	/* controller -> agent: start processes at a time */
	CONTROL_RESULT,	/* agent -> controller: what a run produced */
	CONTROL_SERIES,	/* agent -> controller: one sampler/probe record */
	CONTROL_ABORT,	/* controller -> agent: kill a run */
	CONTROL_DONE,	/* controller -> agent: the suite is over */
	CONTROL_AUTH,	/* agent -> controller: keyed lab, my nonce */
	CONTROL_CHALLENGE,	/* controller -> agent: my nonce, my proof */
	CONTROL_PROOF,	/* agent -> controller: my proof */
	CONTROL_CLOCK,	/* agent -> controller: my wall clock stepped */
	CONTROL_PREPARED,	/* agent -> controller: a run's processes prepared */
	CONTROL_START,	/* controller -> agent: start a prepared run */
	CONTROL_RELAY,	/* controller -> server: point the relay at a sink */
	CONTROL_RESET,	/* controller -> server, and its answer back: the
			 * server reset between steps */
};

/* A parsed, validated message.  json is the whole object (owned: free it
 * with control_msg_free); the other fields point into it or copy numbers. */
struct control_msg {
	enum control_type type;
	cJSON *json;
	const char *id;		/* hello: agent id */
	const char *role;	/* hello: client, server or controller */
	const char *step;	/* run, result, abort, prepared, start: step
				 * key; clock: the
				 * step, "forward:1.234s" */
	uint64_t seq;		/* time_req, time_resp */
	int64_t t1, t2, t3;	/* time_req (t1), time_resp (t1..t3) */
	int64_t start_at;	/* run, start: agent-clock CLOCK_REALTIME ns
				 * (run with prepare_s: unused, 0) */
	const cJSON *procs;	/* run: array of argv arrays (strings) */
	const cJSON *records;	/* result: array of objects */
	const cJSON *rec;	/* series: the record */
	const char *source;	/* series: "sample" or "probe" */
	const char *lab;	/* hello, auth, challenge: lab name or "" */
	const char *nonce;	/* auth, challenge: 32 hex digits */
	const char *proof;	/* challenge (may be NULL), proof: 64 hex */
	const char *sink;	/* relay: the smtp-sink's HOST:PORT */
};

/* Name of a message type as it appears in "type"; "?" if unknown. */
const char *control_type_name(enum control_type t);

/* Parses and validates one message (line of len bytes, no newline needed,
 * need not be NUL-terminated): JSON object, "v" == CONTROL_VERSION, a known
 * "type" and that type's required fields with the right JSON types (see
 * docs/protocol.md).  Returns 0 and fills *m (caller frees with
 * control_msg_free), or -EINVAL / -EMSGSIZE / -ENOMEM with a message naming the
 * offending field in err (errlen bytes). */
int control_msg_parse(const char *line, size_t len, struct control_msg *m,
		  char *err, size_t errlen);

/* Frees what control_msg_parse allocated; m may be zeroed or already freed. */
void control_msg_free(struct control_msg *m);

/* A new message object {"v":1,"type":NAME}; the caller adds fields and
 * owns it.  NULL when out of memory. */
cJSON *control_msg_new(enum control_type t);

/* Message authentication a connection applies once its handshake is
 * done (auth.h provides one): seal writes tag_len bytes put before an
 * outgoing message; open checks an incoming line's, returning 0 or
 * -EBADMSG.  Kept as hooks so framing needs no cryptography. */
struct control_auth {
	size_t tag_len;
	int (*seal)(void *ctx, const char *msg, size_t len, char *tag);
	int (*open)(void *ctx, const char *line, size_t len);
};

/* One end of a control connection: a non-blocking socket with a line
 * reassembly buffer and an output queue. */
struct control_conn {
	int fd;			/* -1 when closed */
	char *rbuf;
	size_t rlen, rcap, rpos;
	char *wbuf;
	size_t wlen, wcap, wpos;
	uint64_t rx_msgs, tx_msgs;
	uint64_t rx_bytes;	/* read from the socket, for byte budgets */
	const struct control_auth *auth;	/* NULL: lines go as they are */
	void *auth_ctx;
	unsigned patience_s;	/* 0: the normal CONTROL_DEAD_S liveness */
	/* Longest line taken, and most unread bytes buffered (plus one);
	 * 0: CONTROL_MAX_MSG.  Set with control_conn_limit(). */
	size_t rlimit;
};

/* Initialises c around fd (made non-blocking, TCP_NODELAY, keepalive and
 * a user timeout so a vanished peer is noticed within CONTROL_DEAD_S); c owns
 * fd. */
void control_conn_init(struct control_conn *c, int fd);

/* Sets how long c tolerates a peer that acknowledges nothing (neither
 * data nor keepalive probes): seconds > 0 while a prepare phase saturates
 * the server (a loaded machine, an emulated one above all, may not
 * answer for longer than CONTROL_DEAD_S while it is alive; docs/protocol.md),
 * so a vanished peer is noticed within seconds + CONTROL_KEEPINTVL_S;
 * 0 restores CONTROL_USER_TIMEOUT_MS.  Cheap when unchanged.  Returns 0 or
 * the setsockopt error (c not a socket: -ENOTSOCK, nothing changed). */
int control_conn_patience(struct control_conn *c, unsigned seconds);

/* Limits c's lines to max bytes (0: CONTROL_MAX_MSG, the most it ever
 * takes): control_conn_read then buffers at most max + 1 unread bytes
 * and control_conn_line refuses a longer line with -EMSGSIZE.  What the
 * controller holds for a peer that has not said hello yet (a few KiB,
 * not a whole message).  Buffered input is kept. */
void control_conn_limit(struct control_conn *c, size_t max);

/* Closes the socket and frees the buffers; c can be re-initialised. */
void control_conn_close(struct control_conn *c);

/* Reads what the socket holds.  Returns 0 (call control_conn_line next),
 * -EPIPE on orderly close by the peer, or another negative errno. */
int control_conn_read(struct control_conn *c);

/* Appends bytes received from elsewhere (the fuzzer, tests) as if read. */
int control_conn_feed(struct control_conn *c, const void *data, size_t len);

/* Takes the next complete line out of the buffer: returns 1 with *line
 * (valid until the next call on c) and *len, 0 when no whole line is
 * buffered, -EMSGSIZE when a line exceeds CONTROL_MAX_MSG (or the
 * control_conn_limit()), -EBADMSG when c
 * authenticates lines and this one's tag is wrong (forged, altered,
 * replayed or out of order). */
int control_conn_line(struct control_conn *c, const char **line, size_t *len);

/* Serialises msg (not consumed) plus a newline into the output queue and
 * tries to send.  Returns 0, -ENOMEM, or a negative errno from the socket
 * (the connection is then dead). */
int control_conn_send(struct control_conn *c, const cJSON *msg);

/* Sends queued output without blocking.  Returns 0 (possibly with output
 * still queued; poll for POLLOUT while control_conn_pending), or a negative
 * errno. */
int control_conn_flush(struct control_conn *c);

/* Bytes still queued for sending. */
size_t control_conn_pending(const struct control_conn *c);

/* Sends the queue, blocking up to timeout_ms.  Returns 0 or -ETIMEDOUT or
 * a negative errno. */
int control_conn_drain(struct control_conn *c, int timeout_ms);

/* Splits "HOST[:PORT]" (IPv6 as "[addr]:port" or bare without a port)
 * into host (hostlen bytes) and *port (default_port when absent):
 * hostport_parse() without flags or message (lib/hostport.h, which says
 * what a message-wanting caller gets).  Returns 0 or -EINVAL. */
int control_parse_hostport(const char *s, char *host, size_t hostlen,
		       int *port, int default_port);

/* Connects a TCP socket to host:port (numeric or a name), waiting at most
 * timeout_ms.  Returns the fd (blocking mode) or a negative errno. */
int control_connect(const char *host, int port, int timeout_ms);

/* Listens on TCP addr:port (addr NULL or "" = every address); port 0
 * picks one.  Returns the fd (non-blocking) or a negative errno. */
int control_listen(const char *addr, int port);

#endif
