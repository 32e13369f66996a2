/* collector/collect.c: the results collector.  One request per connection, every
 * connection served from one poll loop with a deadline for the whole
 * request (docs/agent.md: why not threads); every upload is validated
 * whole before anything touches the directory, and stored by temporary
 * file, fsync and rename, so the directory only ever holds complete
 * results, each id at most once. */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "collector/collect.h"
#include "proto/control.h"
#include "collector/webui.h"
#include "lib/hostport.h"
#include "resultdb/resultdb_index.h"
#include "changes/changes_store.h"
#include "lib/opt.h"
#include "lib/stop.h"
#include "lib/util.h"

/* --- server ---------------------------------------------------------- */

/* One connection: its request head, then its body, then the answer. */
enum collect_state { CC_HEAD, CC_BODY, CC_WRITE };

struct collect_conn {
	int fd;				/* -1: free slot */
	enum collect_state st;
	char peer[80];			/* ADDR:PORT, for the log */
	char ip[INET6_ADDRSTRLEN];	/* ADDR, for --max-conns-per-peer */
	uint64_t deadline_ns;		/* whole request, from accept */
	size_t have;			/* head bytes read */
	int hl;				/* head length once parsed */
	struct collect_req req;
	char pid[200];			/* the PUT path's id, or "" */
	char *body;
	size_t blen, bhave;
	char *out;			/* the answer being sent */
	size_t olen, ooff;
	const char *hdr;		/* one more header line, or NULL */
	/* Last: a new connection clears everything before it. */
	char head[COLLECT_MAX_HEAD + 1];
};

struct collect_srv {
	const char *dir;
	const char *token;
	const char *view_token;		/* opens GET as a Basic password */
	long long max_size;
	uint64_t timeout_ns;
	int max_conns, max_per_peer, nconns;
	size_t inflight, max_inflight;	/* body bytes held, their cap */
	struct collect_conn *conns;	/* max_conns slots */
	uint64_t stored, duplicates, rejected, timeouts, busy;
	/* --db: the index, and whether files wait for it (then retried
	 * every retry_ns, not per upload: a database that is down costs an
	 * upload nothing). */
	struct resultdb *store;
	int pending, window;
	double threshold;
	uint64_t retry_ns, next_catchup, indexed;
};

static void collect_log(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));
static void collect_log(const char *fmt, ...)
{
	char ts[32];
	time_t now = time(NULL);
	struct tm tm;
	va_list ap;

	gmtime_r(&now, &tm);
	strftime(ts, sizeof(ts), "%H:%M:%S", &tm);
	fprintf(stderr, "%s benchboot collect: ", ts);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* Frees what c holds and gives its slot back. */
static void collect_close(struct collect_srv *s, struct collect_conn *c)
{
	if (c->fd < 0)
		return;
	close(c->fd);
	if (c->body)
		s->inflight -= c->blen;
	free(c->body);
	free(c->out);
	c->fd = -1;
	c->body = NULL;
	c->out = NULL;
	s->nconns--;
}

/* Sends what is left of c's answer without blocking; closes c when it is
 * all out or the peer is gone. */
static void collect_flush(struct collect_srv *s, struct collect_conn *c)
{
	while (c->ooff < c->olen) {
		ssize_t n = send(c->fd, c->out + c->ooff, c->olen - c->ooff,
				 MSG_NOSIGNAL | MSG_DONTWAIT);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return;
		if (n <= 0)
			break;
		c->ooff += (size_t)n;
	}
	collect_close(s, c);
}

/* Queues the answer (the request is over: no more reading) and starts
 * sending it. */
static void collect_reply(struct collect_srv *s, struct collect_conn *c,
			  int code, const char *reason, const char *ctype,
			  const char *body, size_t blen)
{
	char head[384];
	int hl;

	hl = snprintf(head, sizeof(head),
		      "HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n%sConnection: close\r\n\r\n",
		      code, reason, ctype, blen, c->hdr ? c->hdr : "");
	free(c->out);
	c->out = malloc((size_t)hl + blen);
	c->olen = c->out ? (size_t)hl + blen : 0;
	c->ooff = 0;
	if (c->out) {
		memcpy(c->out, head, (size_t)hl);
		if (blen)
			memcpy(c->out + hl, body, blen);
	}
	c->st = CC_WRITE;
	collect_flush(s, c);
}

static void collect_text(struct collect_srv *s, struct collect_conn *c,
			 int code, const char *reason, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
static void collect_text(struct collect_srv *s, struct collect_conn *c,
			 int code, const char *reason, const char *fmt, ...)
{
	char body[600];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(body, sizeof(body) - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		n = 0;
	if ((size_t)n > sizeof(body) - 2)
		n = sizeof(body) - 2;
	body[n++] = '\n';
	collect_reply(s, c, code, reason, "text/plain", body, (size_t)n);
}

static int collect_store(const struct collect_srv *s, const char *id,
			 const char *data, size_t len, int *existed)
{
	char dst[PATH_MAX], name[NAME_MAX + 1];
	struct stat st;
	int fd;

	snprintf(dst, sizeof(dst), "%s/%s.json", s->dir, id);
	*existed = 0;
	if (stat(dst, &st) == 0) {
		/* Same id: the same bytes are a retry, others a conflict. */
		char *old = malloc((size_t)st.st_size + 1);
		int same = 0;

		fd = open(dst, O_RDONLY | O_CLOEXEC);
		if (old && fd >= 0 && (size_t)st.st_size == len &&
		    read(fd, old, len) == (ssize_t)len)
			same = memcmp(old, data, len) == 0;
		if (fd >= 0)
			close(fd);
		free(old);
		*existed = 1;
		return same ? 0 : -EEXIST;
	}
	snprintf(name, sizeof(name), "%s.json", id);
	return util_write_atomic(s->dir, name, data, len);
}

static void collect_list(struct collect_srv *s, struct collect_conn *c)
{
	cJSON *o = cJSON_CreateObject(), *a = cJSON_AddArrayToObject(o,
								    "results");
	struct dirent *de;
	DIR *d = opendir(s->dir);
	char *txt;

	while (d && (de = readdir(d))) {
		size_t l = strlen(de->d_name);
		char path[PATH_MAX], id[256];
		struct stat st;
		cJSON *e;

		if (de->d_name[0] == '.' || l < 6 || l > 200 ||
		    strcmp(de->d_name + l - 5, ".json") != 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s", s->dir, de->d_name);
		if (stat(path, &st) != 0)
			continue;
		snprintf(id, sizeof(id), "%.*s", (int)(l - 5), de->d_name);
		e = cJSON_CreateObject();
		cJSON_AddStringToObject(e, "id", id);
		cJSON_AddNumberToObject(e, "bytes", (double)st.st_size);
		cJSON_AddNumberToObject(e, "mtime", (double)st.st_mtime);
		cJSON_AddItemToArray(a, e);
	}
	if (d)
		closedir(d);
	txt = cJSON_Print(o);
	cJSON_Delete(o);
	if (!txt) {
		collect_text(s, c, 500, "Internal Server Error",
			     "out of memory");
		return;
	}
	collect_reply(s, c, 200, "OK", "application/json", txt, strlen(txt));
	free(txt);
}

/* The whole file path into a new buffer *buf (*len bytes, plus a NUL
 * not counted).  Returns 0 or a negative errno (-ENOENT: no such file). */
static int collect_read_file(const char *path, char **buf, size_t *len)
{
	struct stat st;
	int f = open(path, O_RDONLY | O_CLOEXEC), rc = 0;

	*buf = NULL;
	if (f < 0 || fstat(f, &st) != 0)
		rc = -errno;
	else if (!(*buf = malloc((size_t)st.st_size + 1)))
		rc = -ENOMEM;
	else if (read(f, *buf, (size_t)st.st_size) != st.st_size)
		rc = -EIO;
	if (f >= 0)
		close(f);
	if (rc != 0) {
		free(*buf);
		*buf = NULL;
		return rc;
	}
	(*buf)[st.st_size] = 0;
	*len = (size_t)st.st_size;
	return 0;
}

static void collect_get(struct collect_srv *s, struct collect_conn *c)
{
	const char *path = c->req.path, *base = strrchr(path, '/') + 1;
	char id[256], file[PATH_MAX], *buf;
	size_t l = strlen(base), len;
	int rc;

	if (l < 6 || strcmp(base + l - 5, ".json") != 0 || l - 5 > 200) {
		collect_text(s, c, 404, "Not Found", "%s: not a result", path);
		return;
	}
	snprintf(id, sizeof(id), "%.*s", (int)(l - 5), base);
	if (!collect_id_ok(id)) {
		collect_text(s, c, 404, "Not Found", "%s: not a result id",
			     path);
		return;
	}
	snprintf(file, sizeof(file), "%s/%s.json", s->dir, id);
	rc = collect_read_file(file, &buf, &len);
	if (rc == -ENOENT) {
		collect_text(s, c, 404, "Not Found", "no result %s", id);
		return;
	}
	if (rc != 0) {
		collect_text(s, c, 500, "Internal Server Error", "read %s: %s",
			     file, strerror(-rc));
		return;
	}
	collect_reply(s, c, 200, "OK", "application/json", buf, len);
	free(buf);
}

/* What moved beyond noise, on the console (stdout) and in the log. */
static void collect_changes(const struct resultdb_changes *ch)
{
	int i;

	for (i = 0; i < ch->n; i++) {
		const struct resultdb_change *c = &ch->c[i];
		char line[400];

		snprintf(line, sizeof(line), "%s %s %s %s %s: %.6g -> %.6g (%+.1f %%) against the mean of %d previous comparable run%s",
			 c->worse ? "REGRESSION" : "improvement", ch->run,
			 c->step, c->wl, c->figure[0] == 't' ?
			 "throughput/s" : "p99 ns", c->base, c->now, c->pct,
			 c->nbase, c->nbase == 1 ? "" : "s");
		printf("benchboot collect: %s\n", line);
		collect_log("%s", line);
	}
	if (ch->dropped)
		collect_log("%s: %d more changes not listed", ch->run,
			    ch->dropped);
	fflush(stdout);
}

/* A change point the upload's pass found, on the console and in the
 * log. */
static void collect_change_point(void *arg, const struct resultdb_cpoint *p)
{
	char line[600];

	snprintf(line, sizeof(line), "CHANGE POINT %s %s v%s %s %s %s: %.6g -> %.6g (%+.1f %%, p %.2g, %s) from run %s on",
		 p->found_with, p->k.suite, p->k.version, p->k.step, p->k.wl,
		 p->k.figure[0] == 't' ? "throughput/s" : "p99 ns", p->before,
		 p->after, p->pct, p->p, p->worse ? "worse" : "better",
		 p->run);
	printf("benchboot collect: %s\n", line);
	collect_log("%s", line);
}

/* The change points of the series the indexed run id belongs to
 * (changes_store_run(), docs/collect.md): a failure is logged, the
 * upload stays indexed. */
static void collect_change_points(struct collect_srv *s, const char *id)
{
	struct changes_opts o = CHANGES_DEFAULT_OPTS;
	char err[300];
	int n = 0, rc;

	rc = changes_store_run(s->store, id, &o, collect_change_point, s, &n,
			       err, sizeof(err));
	if (rc != 0)
		collect_log("%s: change points not updated: %s", id, err);
	fflush(stdout);
}

/* Moves the stored document id out of the results into
 * DIR/quarantine/, with ID.reason beside it saying why, so that neither
 * the catch-up nor a restart reads it again.  The collector goes on
 * whatever this returns (0 or a negative errno, logged). */
static int collect_quarantine(struct collect_srv *s, const char *id,
			      const char *why)
{
	char from[PATH_MAX], qdir[PATH_MAX - 160], to[PATH_MAX], name[NAME_MAX];
	int rc;

	snprintf(from, sizeof(from), "%s/%s.json", s->dir, id);
	snprintf(qdir, sizeof(qdir), "%s/" COLLECT_QUARANTINE, s->dir);
	snprintf(to, sizeof(to), "%s/%s.json", qdir, id);
	snprintf(name, sizeof(name), "%s.reason", id);
	if (mkdir(qdir, 0700) != 0 && errno != EEXIST)
		rc = -errno;
	else if (rename(from, to) != 0)
		rc = -errno;
	else
		rc = util_write_atomic(qdir, name, why, strlen(why));
	if (rc == 0)
		collect_log("%s: quarantined in %s: %s", id, to, why);
	else
		collect_log("%s: cannot quarantine it (%s): %s", id,
			    strerror(-rc), why);
	return rc;
}

/* A document that stopped the collector while it was being indexed (a
 * crash, a kill) is quarantined at the next start, before the catch-up
 * would read it again: no document takes the collector down twice. */
static void collect_recover_marker(struct collect_srv *s)
{
	char path[PATH_MAX], *buf;
	size_t len;

	snprintf(path, sizeof(path), "%s/" COLLECT_MARKER, s->dir);
	if (collect_read_file(path, &buf, &len) != 0)
		return;
	if (len > 0 && len < 130 && memchr(buf, 0, len) == NULL) {
		char id[130];

		snprintf(id, sizeof(id), "%.*s", (int)len, buf);
		if (collect_id_ok(id))
			collect_quarantine(s, id, "the collector stopped while indexing it (crashed or was killed): set aside so that it cannot stop it again\n");
	}
	free(buf);
	unlink(path);
}

/* Indexes one stored document.  Returns resultdb_index()'s code; -EIO
 * (the database is away) leaves it for the catch-up; -EINVAL (it fails
 * validation) quarantines it.  While it runs, COLLECT_MARKER names it. */
static int collect_index(struct collect_srv *s, const char *id,
			 const char *data, size_t len)
{
	struct resultdb_changes *ch = malloc(sizeof(*ch));
	char err[400], file[PATH_MAX], why[460];
	int rc, marked;

	if (!ch)
		return -ENOMEM;
	snprintf(file, sizeof(file), "%s/%s.json", s->dir, id);
	marked = util_write_atomic(s->dir, COLLECT_MARKER, id,
				   strlen(id)) == 0;
	rc = resultdb_index(s->store, id, data, len, file, s->window,
			 s->threshold, ch, err, sizeof(err));
	if (marked) {
		snprintf(file, sizeof(file), "%s/" COLLECT_MARKER, s->dir);
		unlink(file);
	}
	if (rc == 0 || rc == -EINVAL)
		s->indexed++;
	if (rc == 0) {
		collect_changes(ch);
		collect_change_points(s, id);
	} else if (rc == -EINVAL) {
		collect_log("%s: indexed as unreadable: %s", id, err);
		snprintf(why, sizeof(why), "it fails validation: %s\n", err);
		collect_quarantine(s, id, why);
	} else
		collect_log("%s: not indexed now (%s); the file is stored and will be indexed when the database answers",
			    id, err);
	free(ch);
	return rc;
}

/* Stores the document id (c's body) and answers how that went.  The
 * loop is single-threaded, so two uploads of one id never race between
 * the check and the rename: exactly once, whatever the concurrency. */
static void collect_accept(struct collect_srv *s, struct collect_conn *c,
			   const char *id)
{
	int rc, existed;

	rc = collect_store(s, id, c->body, c->blen, &existed);
	if (rc == 0 && existed) {
		s->duplicates++;
		collect_log("%s: %s already held (same bytes); not stored again",
			    c->peer, id);
		collect_text(s, c, 200, "OK", "%s already stored", id);
	} else if (rc == 0) {
		char *body = c->body;
		size_t blen = c->blen;

		s->stored++;
		collect_log("%s: stored %s (%zu bytes)", c->peer, id, c->blen);
		/* Stored and answered first (the answer may free c): the
		 * index follows the files. */
		c->body = NULL;
		s->inflight -= blen;
		collect_text(s, c, 201, "Created", "stored %s", id);
		if (s->store && !s->pending &&
		    collect_index(s, id, body, blen) == -EIO)
			s->pending = 1;
		else if (s->store && s->pending)
			collect_log("%s: waits for the database's catch-up",
				    id);
		free(body);
	} else if (rc == -EEXIST) {
		s->rejected++;
		collect_log("%s: %s already held with other content; refused",
			    c->peer, id);
		collect_text(s, c, 409, "Conflict",
			     "%s is already stored with other content", id);
	} else {
		collect_log("%s: storing %s: %s", c->peer, id, strerror(-rc));
		collect_text(s, c, 500, "Internal Server Error",
			     "cannot store: %s", strerror(-rc));
	}
}

/* The whole body is in: validate and store it. */
static void collect_finish(struct collect_srv *s, struct collect_conn *c)
{
	char id[130], err[300];

	if (collect_check_doc(c->body, c->blen, &c->req, c->pid, id,
			      sizeof(id), err, sizeof(err)) != 0) {
		s->rejected++;
		collect_log("%s: upload refused, nothing stored: %s", c->peer,
			    err);
		collect_text(s, c, 400, "Bad Request", "%s", err);
		return;
	}
	collect_accept(s, c, id);
}

/* One file the index lacks: its id and creation time (the order). */
struct collect_todo {
	char id[130];
	char created[32];
};

static int collect_todo_cmp(const void *a, const void *b)
{
	const struct collect_todo *x = a, *y = b;
	int c = strcmp(x->created, y->created);

	return c ? c : strcmp(x->id, y->id);
}

static int collect_strp_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The stored files whose id is not among the n sorted ids into *todo
 * (caller frees), oldest first.  Returns their count, or -ENOMEM. */
static int collect_missing(struct collect_srv *s, char **ids, int n,
			   struct collect_todo **todo)
{
	struct collect_todo *t = NULL;
	int nt = 0, cap = 0, oom = 0;
	struct dirent *de;
	DIR *d = opendir(s->dir);

	while (d && (de = readdir(d))) {
		size_t l = strlen(de->d_name), len;
		char id[130], *key = id, *buf, path[PATH_MAX];
		const cJSON *cr;
		cJSON *doc;

		if (de->d_name[0] == '.' || l < 6 || l - 5 >= sizeof(id) ||
		    strcmp(de->d_name + l - 5, ".json") != 0)
			continue;
		snprintf(id, sizeof(id), "%.*s", (int)(l - 5), de->d_name);
		if (!collect_id_ok(id) || (n && bsearch(&key, ids, (size_t)n,
					sizeof(*ids), collect_strp_cmp)))
			continue;
		if (nt == cap) {
			void *np = realloc(t, (size_t)(cap * 2 + 16) *
					   sizeof(*t));

			if (!np) {
				oom = 1;
				break;
			}
			t = np;
			cap = cap * 2 + 16;
		}
		snprintf(t[nt].id, sizeof(t[nt].id), "%s", id);
		t[nt].created[0] = 0;
		snprintf(path, sizeof(path), "%s/%s", s->dir, de->d_name);
		if (collect_read_file(path, &buf, &len) == 0) {
			doc = cJSON_ParseWithLength(buf, len);
			cr = cJSON_GetObjectItemCaseSensitive(doc, "created");
			if (cJSON_IsString(cr))
				snprintf(t[nt].created, sizeof(t[nt].created),
					 "%s", cr->valuestring);
			cJSON_Delete(doc);
			free(buf);
		}
		nt++;
	}
	if (d)
		closedir(d);
	if (nt)
		qsort(t, (size_t)nt, sizeof(*t), collect_todo_cmp);
	*todo = t;
	return oom ? -ENOMEM : nt;
}

/* Indexes every stored file the index lacks, oldest first (each
 * regression check then sees the runs before it): at start, and on the
 * timer while uploads wait.  Returns 0 when all are in, -EIO when the
 * database is away (the next round retries), -ENOMEM. */
static int collect_catchup(struct collect_srv *s)
{
	char err[400], **ids = NULL, path[PATH_MAX], *buf;
	struct collect_todo *todo = NULL;
	int n = 0, nt, i, rc, done = 0;
	size_t len;

	collect_recover_marker(s);
	rc = resultdb_ids(s->store, &ids, &n, err, sizeof(err));
	if (rc != 0) {
		collect_log("%s%s", err, rc == -EPROTO ? "" :
			    "; indexing retried later");
		return rc;
	}
	nt = collect_missing(s, ids, n, &todo);
	for (i = 0; i < n; i++)
		free(ids[i]);
	free(ids);
	rc = nt < 0 ? nt : 0;
	for (i = 0; rc != -EIO && i < nt; i++) {
		snprintf(path, sizeof(path), "%s/%s.json", s->dir,
			 todo[i].id);
		if (collect_read_file(path, &buf, &len) != 0)
			continue;
		rc = collect_index(s, todo[i].id, buf, len);
		done += rc != -EIO;
		free(buf);
	}
	free(todo);
	if (nt > 0)
		collect_log("index: %d of %d waiting results indexed%s", done,
			    nt, rc == -EIO ? "; the rest when the database is back" : "");
	return rc == -EIO || rc == -ENOMEM ? rc : 0;
}

/* HTTP reason phrases of the refusals collect_route gives. */
static const char *collect_reason(int code)
{
	switch (code) {
	case 401: return "Unauthorized";
	case 405: return "Method Not Allowed";
	case 411: return "Length Required";
	case 413: return "Payload Too Large";
	case 404: return "Not Found";
	case 500: return "Internal Server Error";
	case 503: return "Service Unavailable";
	default: return "Bad Request";
	}
}

/* A page (GET /ui...): the request parsed strictly, then rendered from
 * the database and the files.  Runs in the loop, like an upload's
 * index: a page costs the others its queries' time. */
static void collect_page(struct collect_srv *s, struct collect_conn *c)
{
	struct webui_req r;
	char err[300], *body;
	size_t len;
	int rc;

	if (!s->store) {
		collect_text(s, c, 404, "Not Found",
			     "the pages read the database: start the collector with --db");
		return;
	}
	rc = webui_parse(c->req.path, &r, err, sizeof(err));
	if (rc != 0) {
		collect_text(s, c, rc == -ENOENT ? 404 : 400, rc == -ENOENT ?
			     "Not Found" : "Bad Request", "%s", err);
		return;
	}
	rc = webui_render(s->store, s->dir, &r, &body, &len, err, sizeof(err));
	if (rc != 200) {
		if (rc == 503)
			s->pending = 1;
		collect_log("%s: %s: %d: %s", c->peer, c->req.path, rc, err);
		collect_text(s, c, rc, collect_reason(rc), "%s", err);
		return;
	}
	collect_reply(s, c, 200, "OK", "text/html; charset=utf-8", body, len);
	free(body);
}

/* The head is parsed: answer a GET or a refusal, or make room for the
 * body (the token is checked before a byte of memory is given to it). */
static void collect_start_body(struct collect_srv *s, struct collect_conn *c)
{
	char err[300];
	size_t extra;
	int a;

	a = collect_route(&c->req, s->token, s->view_token, s->max_size,
			  c->pid, sizeof(c->pid), err, sizeof(err));
	if (a == COLLECT_LIST || a == COLLECT_GET) {
		if (a == COLLECT_LIST)
			collect_list(s, c);
		else if (webui_is_page(c->req.path))
			collect_page(s, c);
		else
			collect_get(s, c);
		return;
	}
	if (a != COLLECT_UPLOAD) {
		s->rejected++;
		collect_log("%s: %s %s: %d: %s", c->peer, c->req.method,
			    c->req.path, a, err);
		/* A browser asks its user for the viewer token on this. */
		if (a == 401 && s->view_token &&
		    strcmp(c->req.method, "GET") == 0)
			c->hdr = "WWW-Authenticate: Basic realm=\"benchboot results\", charset=\"UTF-8\"\r\n";
		collect_text(s, c, a, collect_reason(a), "%s", err);
		return;
	}
	c->blen = (size_t)c->req.content_length;
	if (s->inflight + c->blen > s->max_inflight) {
		s->busy++;
		collect_log("%s: %zu body bytes already in flight; upload of %zu asked to retry",
			    c->peer, s->inflight, c->blen);
		collect_text(s, c, 503, "Service Unavailable",
			     "busy receiving other uploads; retry shortly");
		return;
	}
	c->body = malloc(c->blen + 1);
	if (!c->body) {
		collect_text(s, c, 500, "Internal Server Error",
			     "out of memory");
		return;
	}
	s->inflight += c->blen;
	if (c->req.expect_continue)
		send(c->fd, "HTTP/1.1 100 Continue\r\n\r\n", 25,
		     MSG_NOSIGNAL | MSG_DONTWAIT);
	/* Body bytes that came with the head; anything past the announced
	 * length is ignored (one request per connection). */
	extra = c->have - (size_t)c->hl;
	if (extra > c->blen)
		extra = c->blen;
	memcpy(c->body, c->head + c->hl, extra);
	c->bhave = extra;
	c->st = CC_BODY;
	if (c->bhave == c->blen)
		collect_finish(s, c);
}

/* Reads what c's socket has for the head; parses it once complete. */
static void collect_read_head(struct collect_srv *s, struct collect_conn *c)
{
	char err[256];
	ssize_t n;
	int hl;

	n = recv(c->fd, c->head + c->have, COLLECT_MAX_HEAD - c->have,
		 MSG_DONTWAIT);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0) {
		if (c->have)
			collect_log("%s: connection ended inside the request head; nothing stored",
				    c->peer);
		collect_close(s, c);
		return;
	}
	c->have += (size_t)n;
	hl = collect_parse_head(c->head, c->have, &c->req, err, sizeof(err));
	if (hl == 0 && c->have == COLLECT_MAX_HEAD)
		hl = util_fail(err, sizeof(err), -EMSGSIZE,
			       "request head over %d bytes", COLLECT_MAX_HEAD);
	if (hl == 0)
		return;
	if (hl > 0) {
		c->hl = hl;
		collect_start_body(s, c);
		return;
	}
	s->rejected++;
	collect_log("%s: bad request: %s", c->peer, err);
	if (hl == -EMSGSIZE)
		collect_text(s, c, 431, "Request Header Fields Too Large",
			     "%s", err);
	else
		collect_text(s, c, 400, "Bad Request", "%s", err);
}

/* Reads what c's socket has of the body; stores it once complete. */
static void collect_read_body(struct collect_srv *s, struct collect_conn *c)
{
	ssize_t n;

	n = recv(c->fd, c->body + c->bhave, c->blen - c->bhave, MSG_DONTWAIT);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0) {
		s->rejected++;
		collect_log("%s: upload cut short (%s); nothing stored",
			    c->peer, n == 0 ? "connection closed" :
			    strerror(errno));
		collect_text(s, c, 400, "Bad Request",
			     "body shorter than Content-Length");
		return;
	}
	c->bhave += (size_t)n;
	if (c->bhave == c->blen)
		collect_finish(s, c);
}

/* A request past its deadline: whatever it sent so far, it is over. */
static void collect_expire(struct collect_srv *s, struct collect_conn *c)
{
	if (c->st == CC_WRITE) {
		collect_log("%s: answer not taken within the deadline; dropped",
			    c->peer);
		collect_close(s, c);
		return;
	}
	s->timeouts++;
	collect_log("%s: request not complete within %.3g s (%zu head and %zu body bytes read); nothing stored",
		    c->peer, (double)s->timeout_ns / 1e9, c->have, c->bhave);
	collect_text(s, c, 408, "Request Timeout",
		     "the whole request must arrive within %.3g s",
		     (double)s->timeout_ns / 1e9);
	/* A reader as slow as the writer does not get a second deadline. */
	collect_close(s, c);
}

/* A peer's address into ip (iplen bytes) and "ADDR:PORT" into b. */
static void collect_peer_name(const struct sockaddr_storage *ss, char *ip,
			      size_t iplen, char *b, size_t n)
{
	int port = 0;

	snprintf(ip, iplen, "?");
	if (ss->ss_family == AF_INET) {
		const struct sockaddr_in *v4 = (const void *)ss;

		inet_ntop(AF_INET, &v4->sin_addr, ip, (socklen_t)iplen);
		port = ntohs(v4->sin_port);
	} else if (ss->ss_family == AF_INET6) {
		const struct sockaddr_in6 *v6 = (const void *)ss;

		inet_ntop(AF_INET6, &v6->sin6_addr, ip, (socklen_t)iplen);
		port = ntohs(v6->sin6_port);
	}
	snprintf(b, n, "%s:%d", ip, port);
}

/* Answers a connection that gets no slot with 503 at once and closes it:
 * the uploader retries with backoff, rather than waiting silently in the
 * backlog behind whoever holds the slots. */
static void collect_refuse(struct collect_srv *s, int fd, const char *peer,
			   const char *why, int n)
{
	static const char busy[] =
		"HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain\r\nContent-Length: 21\r\nRetry-After: 1\r\nConnection: close\r\n\r\ntoo many connections\n";

	s->busy++;
	collect_log("%s: %d connections open (%s); refused with 503", peer,
		    n, why);
	send(fd, busy, sizeof(busy) - 1, MSG_NOSIGNAL | MSG_DONTWAIT);
	close(fd);
}

/* Takes the connections waiting on lfd, each into a free slot unless
 * --max-conns are open, or --max-conns-per-peer from its address (one
 * host alone cannot take every slot). */
static void collect_accept_all(struct collect_srv *s, int lfd)
{
	int i, k, same;

	for (k = 0; k < 64; k++) {
		struct sockaddr_storage ss;
		socklen_t sl = sizeof(ss);
		struct collect_conn *c = NULL;
		char peer[80], ip[INET6_ADDRSTRLEN];
		int fd;

		fd = accept4(lfd, (struct sockaddr *)&ss, &sl,
			     SOCK_CLOEXEC | SOCK_NONBLOCK);
		if (fd < 0)
			return;
		collect_peer_name(&ss, ip, sizeof(ip), peer, sizeof(peer));
		for (i = same = 0; i < s->max_conns; i++) {
			if (s->conns[i].fd < 0 && !c)
				c = &s->conns[i];
			else if (s->conns[i].fd >= 0 &&
				 strcmp(s->conns[i].ip, ip) == 0)
				same++;
		}
		if (!c) {
			collect_refuse(s, fd, peer, "--max-conns", s->nconns);
			continue;
		}
		if (same >= s->max_per_peer) {
			collect_refuse(s, fd, peer,
				       "--max-conns-per-peer from its address",
				       same);
			continue;
		}
		memset(c, 0, offsetof(struct collect_conn, head));
		c->fd = fd;
		c->st = CC_HEAD;
		c->deadline_ns = util_mono_ns() + s->timeout_ns;
		snprintf(c->peer, sizeof(c->peer), "%s", peer);
		snprintf(c->ip, sizeof(c->ip), "%s", ip);
		s->nconns++;
	}
}

/* Serves every connection from one poll loop until SIGINT/SIGTERM: no
 * thread, no lock, and a slow peer only ever costs its own slot. */
static void collect_loop(struct collect_srv *s, int lfd)
{
	struct pollfd *p = calloc((size_t)s->max_conns + 1, sizeof(*p));
	int *map = calloc((size_t)s->max_conns + 1, sizeof(*map));
	int i, n, np;

	while (p && map && !stop_requested) {
		uint64_t now = util_mono_ns(), next = now + 500000000ull;

		p[0] = (struct pollfd){ .fd = lfd, .events = POLLIN };
		for (i = 0, np = 1; i < s->max_conns; i++) {
			struct collect_conn *c = &s->conns[i];

			if (c->fd < 0)
				continue;
			if (c->deadline_ns < next)
				next = c->deadline_ns;
			p[np] = (struct pollfd){ .fd = c->fd, .events =
				c->st == CC_WRITE ? POLLOUT : POLLIN };
			map[np++] = i;
		}
		n = poll(p, (nfds_t)np, next > now ?
			 (int)((next - now) / 1000000 + 1) : 0);
		if (n < 0 && errno != EINTR)
			break;
		for (i = 1; n > 0 && i < np; i++) {
			struct collect_conn *c = &s->conns[map[i]];

			if (!p[i].revents || c->fd < 0)
				continue;
			if (c->st == CC_HEAD)
				collect_read_head(s, c);
			else if (c->st == CC_BODY)
				collect_read_body(s, c);
			else
				collect_flush(s, c);
		}
		now = util_mono_ns();
		for (i = 0; i < s->max_conns; i++)
			if (s->conns[i].fd >= 0 &&
			    s->conns[i].deadline_ns <= now)
				collect_expire(s, &s->conns[i]);
		if (n > 0 && (p[0].revents & POLLIN))
			collect_accept_all(s, lfd);
		if (s->store && s->pending && now >= s->next_catchup) {
			s->pending = collect_catchup(s) != 0;
			s->next_catchup = util_mono_ns() + s->retry_ns;
		}
	}
	for (i = 0; i < s->max_conns; i++)
		collect_close(s, &s->conns[i]);
	free(p);
	free(map);
}

/* What collect_main reads from the command line besides the server. */
struct collect_opts {
	const char *listen, *token_file, *view_token_file, *db, *db_pass_file;
	const char *user;		/* --user: who to drop to */
	int no_token, loopback, reindex;
	uid_t uid;			/* --user's, resolved up front */
	gid_t gid;
	char host[256];
	int port;
	char token[256], view_token[256];
	struct resultdb_url url;
};

/* Reads the first line of path into buf (len bytes); what names the
 * option in messages. */
static int collect_first_line(const char *path, char *buf, size_t len,
			      const char *what)
{
	FILE *f = fopen(path, "re");
	int ok;

	if (!f)
		return util_err("collect", errno, "%s %s: %s", what, path,
				strerror(errno));
	ok = fgets(buf, (int)len, f) != NULL;
	fclose(f);
	buf[strcspn(buf, "\r\n")] = 0;
	if (!ok || !buf[0])
		return util_err("collect", EINVAL,
				"%s %s: nothing on its first line", what,
				path);
	return 0;
}

/* --regress-threshold: a percentage 0..1000 (dst: a double). */
static int collect_opt_threshold(void *dst, const char *arg, char *err,
				 size_t errlen)
{
	char *e;
	double t = strtod(arg, &e);

	if (e == arg || *e || !(t >= 0 && t <= 1000))
		return -EINVAL;
	*(double *)dst = t;
	return 0;
}

/* Everything the command line sets: the base of collect_opt_tab[]. */
struct collect_cmdline {
	struct collect_srv s;
	struct collect_opts o;
};

#define CS(m) OPT_AT(struct collect_cmdline, s.m)
#define CO(m) OPT_AT(struct collect_cmdline, o.m)

static const struct opt collect_opt_tab[] = {
	{ .name = "dir", .kind = OPT_STR, .off = CS(dir), .arg = "DIR",
	  .help = "the store: one file per result (required)" },
	{ .name = "listen", .kind = OPT_STR, .off = CO(listen),
	  .arg = "ADDR:PORT",
	  .help = "where to serve: 127.0.0.1 (this host only), an "
		  "interface's address, or 0.0.0.0 / [::] (every address); "
		  "required but with --reindex" },
	{ .name = "token", .kind = OPT_STR, .off = CS(token), .arg = "T",
	  .help = "the uploaders' token (Authorization: Bearer T); beyond "
		  "loopback a token is required unless --no-token" },
	{ .name = "token-file", .kind = OPT_STR, .off = CO(token_file),
	  .arg = "F", .help = "the token, the first line of F" },
	{ .name = "no-token", .kind = OPT_FLAG, .off = CO(no_token),
	  .val = 1, .help = "anyone who reaches ADDR may upload" },
	{ .name = "view-token-file", .kind = OPT_STR,
	  .off = CO(view_token_file), .arg = "F",
	  .help = "a viewer's token, for GET alone (the password of Basic "
		  "credentials)" },
	{ .name = "max-size", .kind = OPT_U64, .off = CS(max_size),
	  .min = 1, .max = 1ull << 40,
	  .bad = "--max-size '%s': expected bytes (k/M/G allowed)",
	  .arg = "N", .help = "the largest upload, in bytes",
	  .def = "64M" },
	{ .name = "max-conns", .kind = OPT_UINT, .off = CS(max_conns),
	  .min = 1, .max = 4096, .bad = "--max-conns '%s': expected 1..4096",
	  .arg = "N", .help = "connections at once", .def = "64" },
	{ .name = "max-conns-per-peer", .kind = OPT_UINT,
	  .off = CS(max_per_peer), .min = 1, .max = 4096,
	  .bad = "--max-conns-per-peer '%s': expected 1..4096", .arg = "N",
	  .help = "connections one address may hold",
	  .def = "a quarter of --max-conns" },
	{ .name = "timeout", .kind = OPT_DUR, .off = CS(timeout_ns),
	  .min = 1000000,
	  .bad = "--timeout '%s': expected a duration of at least 1ms (10s, 500ms)",
	  .arg = "D", .help = "the longest a request may take", .def = "10s" },
	{ .name = "db", .kind = OPT_STR, .off = CO(db),
	  .arg = "mysql://USER@HOST[:PORT]/DB",
	  .help = "also record every stored result in MariaDB or MySQL "
		  "(docs/collect.md)" },
	{ .name = "db-password-file", .kind = OPT_STR,
	  .off = CO(db_pass_file), .arg = "F",
	  .help = "the database password, the first line of F" },
	{ .name = "db-retry", .kind = OPT_DUR, .off = CS(retry_ns),
	  .min = 100000000,
	  .bad = "--db-retry '%s': expected a duration of at least 100ms (30s, 1m)",
	  .arg = "D", .help = "how often results that wait for the database "
	  "are indexed again", .def = "30s" },
	{ .name = "reindex", .kind = OPT_FLAG, .off = CO(reindex), .val = 1,
	  .help = "rebuild the database's rows from DIR's files and exit" },
	{ .name = "user", .kind = OPT_STR, .off = CO(user), .arg = "NAME",
	  .help = "as root, required: the user to drop to once the socket is "
		  "bound and the files are read (it must reach and write DIR)" },
	{ .name = "regress-window", .kind = OPT_UINT, .off = CS(window),
	  .max = 1000, .bad = "--regress-window '%s': expected 0..1000",
	  .arg = "N", .help = "previous comparable runs a new result is "
	  "judged against (0: no regression check)", .def = "5" },
	{ .name = "regress-threshold", .kind = OPT_FN, .off = CS(threshold),
	  .fn = collect_opt_threshold,
	  .bad = "--regress-threshold '%s': expected a percentage 0..1000",
	  .arg = "PCT", .help = "the smallest change of a mean, in % of the "
	  "window's, that is reported", .def = "5" },
};

static const struct optset collect_optset = OPTSET("collect",
	collect_opt_tab,
	"--dir DIR --listen ADDR:PORT [--token-file F] [options]\n"
	"       benchboot collect --dir DIR --db URL [--db-password-file F] "
	"--reindex", NULL);

/* Whether every address host names is a loopback one. */
static int collect_loopback(const char *host)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM,
				  .ai_flags = AI_PASSIVE }, *res, *a;
	int lo = 1;

	if (getaddrinfo(host, "1", &hints, &res) != 0)
		return 0;
	for (a = res; a; a = a->ai_next) {
		if (a->ai_family == AF_INET) {
			const struct sockaddr_in *v4 = (const void *)a->ai_addr;

			lo &= (ntohl(v4->sin_addr.s_addr) >> 24) == 127;
		} else if (a->ai_family == AF_INET6) {
			const struct sockaddr_in6 *v6 =
				(const void *)a->ai_addr;

			lo &= IN6_IS_ADDR_LOOPBACK(&v6->sin6_addr);
		} else {
			lo = 0;
		}
	}
	freeaddrinfo(res);
	return lo;
}

/* The checks between the options and the socket: an explicit address, a
 * token beyond loopback.  Returns 0 or the exit status. */
static int collect_check(struct collect_srv *s, struct collect_opts *o)
{
	unsigned port;

	if (!o->listen) {
		opt_usage(&collect_optset, stderr);
		return 2;
	}
	/* The address must be spelled out: an empty one (":PORT") would
	 * listen everywhere without saying so. */
	if (hostport_parse(o->listen, HOSTPORT_NEED_PORT, 0, o->host,
			   sizeof(o->host), &port, NULL, 0) != 0) {
		util_err("collect", EINVAL, "--listen '%s': expected ADDR:PORT with the address spelled out: 127.0.0.1:PORT for this host only, 0.0.0.0:PORT or [::]:PORT for every address", o->listen);
		return 2;
	}
	o->port = (int)port;
	if ((s->token || o->token_file) + o->no_token > 1) {
		util_err("collect", EINVAL, "--no-token contradicts --token/--token-file; give one");
		return 2;
	}
	if (o->token_file) {
		if (collect_first_line(o->token_file, o->token,
				       sizeof(o->token), "--token-file") != 0)
			return 1;
		s->token = o->token;
	}
	if (o->view_token_file) {
		if (!s->token) {
			util_err("collect", EINVAL, "--view-token-file opens GET to a viewer token, which only means something beside --token or --token-file");
			return 2;
		}
		if (collect_first_line(o->view_token_file, o->view_token,
				       sizeof(o->view_token),
				       "--view-token-file") != 0)
			return 1;
		if (strcmp(o->view_token, s->token) == 0) {
			util_err("collect", EINVAL, "--view-token-file %s holds the upload token: a viewer must not be able to upload; give it a token of its own", o->view_token_file);
			return 2;
		}
		s->view_token = o->view_token;
	}
	o->loopback = collect_loopback(o->host);
	if (!s->token && !o->no_token && !o->loopback) {
		util_err("collect", EACCES, "--listen %s reaches beyond this host: anyone who can connect could upload; give --token T or --token-file F (the agents' --token, benchboot.token=), or --no-token to accept uploads from anyone on purpose", o->listen);
		return 2;
	}
	return 0;
}

/* --db: the URL, its password file and the directory into s->store.
 * Returns 0 or the exit status. */
static int collect_db(struct collect_srv *s, struct collect_opts *o)
{
	char err[300];
	struct stat st;

	if (!s->dir || (o->reindex && !o->db)) {
		opt_usage(&collect_optset, stderr);
		return 2;
	}
	if (stat(s->dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
		util_err("collect", ENOTDIR, "--dir %s: not a directory",
			 s->dir);
		return 1;
	}
	if (!o->db) {
		if (o->db_pass_file) {
			util_err("collect", EINVAL, "--db-password-file needs --db");
			return 2;
		}
		return 0;
	}
	if (resultdb_parse_url(o->db, &o->url, err, sizeof(err)) != 0) {
		util_err("collect", EINVAL, "%s", err);
		return 2;
	}
	if (o->db_pass_file &&
	    resultdb_password_file(&o->url, o->db_pass_file, err,
				sizeof(err)) != 0) {
		util_err("collect", EINVAL, "%s", err);
		return 1;
	}
	s->store = resultdb_new(&o->url, 5);
	memset(o->url.pass, 0, sizeof(o->url.pass));
	if (!s->store) {
		util_err("collect", ENOMEM, "out of memory");
		return 1;
	}
	return 0;
}

/* Root needs --user: a collector parses what anyone who can reach it
 * uploads, and must not do that as root.  The user is resolved here, before
 * anything is bound or read, so a wrong name costs nothing.  Returns 0 or
 * the exit status (2). */
static int collect_user(struct collect_opts *o)
{
	struct passwd *pw;

	if (!o->user) {
		if (geteuid() != 0)
			return 0;
		util_err("collect", EPERM, "running as root: give --user NAME, the user to drop to once the socket is bound and the files are read (e.g. --user nobody, with --dir writable by it; docs/collect.md)");
		return 2;
	}
	errno = 0;
	pw = getpwnam(o->user);
	if (!pw) {
		util_err("collect", errno ? errno : ENOENT,
			 "--user %s: no such user", o->user);
		return 2;
	}
	if (pw->pw_uid == 0) {
		util_err("collect", EINVAL, "--user %s: that is root; name the user to drop to",
			 o->user);
		return 2;
	}
	if (geteuid() != 0 && pw->pw_uid != geteuid()) {
		util_err("collect", EPERM, "--user %s: only root can become another user",
			 o->user);
		return 2;
	}
	o->uid = pw->pw_uid;
	o->gid = pw->pw_gid;
	return 0;
}

/* The first directory on DIR's path that the caller may not pass (no
 * search permission: a 0700 home such as /root above the store), written
 * to BUF.  Returns 0 when one was found, -ENOENT when every directory on
 * the way can be passed (the store itself is then what is refused). */
static int collect_path_blocker(const char *dir, char *buf, size_t len)
{
	size_t i, n = strlen(dir);

	if (n + 1 > len)
		return -ENAMETOOLONG;
	memcpy(buf, dir, n + 1);
	if (buf[0] != '/' && access(".", X_OK) != 0) {
		snprintf(buf, len, "the current directory");
		return 0;
	}
	for (i = 1; i < n; i++) {
		if (buf[i] != '/')
			continue;
		buf[i] = 0;
		if (access(buf, X_OK) != 0)
			return 0;
		buf[i] = '/';
	}
	if (buf[0] == '/' && access("/", X_OK) != 0) {
		snprintf(buf, len, "/");
		return 0;
	}
	return -ENOENT;
}

/* Becomes --user for good (groups: its own only), then checks that it can
 * write the store.  Called once the socket is bound and the token and
 * password files are read.  Returns 0 or the exit status (1). */
static int collect_drop(const struct collect_srv *s,
			const struct collect_opts *o)
{
	if (!o->user)
		return 0;
	if (geteuid() != 0)
		return 0;	/* --user named the caller: nothing to drop */
	if (setgroups(1, &o->gid) != 0 || setgid(o->gid) != 0 ||
	    setuid(o->uid) != 0) {
		util_err("collect", errno, "--user %s: cannot drop to uid %u gid %u: %s",
			 o->user, (unsigned)o->uid, (unsigned)o->gid,
			 strerror(errno));
		return 1;
	}
	/* For good: no way back. */
	if (setuid(0) == 0) {
		util_err("collect", EPERM, "--user %s: root could be taken back after dropping to it",
			 o->user);
		return 1;
	}
	if (access(s->dir, W_OK | X_OK) != 0) {
		char blocker[PATH_MAX];
		int err = errno;

		if (err == EACCES &&
		    collect_path_blocker(s->dir, blocker,
					 sizeof(blocker)) == 0) {
			util_err("collect", err, "--dir %s: --user %s (uid %u) cannot reach it: it may not pass %s (closed to other users, as a home directory of mode 0700 is); give a --dir outside it, in a directory every user can pass",
				 s->dir, o->user, (unsigned)o->uid, blocker);
			return 1;
		}
		errno = err;
		util_err("collect", errno, "--dir %s: not writable by --user %s (uid %u): %s; make the directory that user's (chown %s %s) or give another --user",
			 s->dir, o->user, (unsigned)o->uid, strerror(errno),
			 o->user, s->dir);
		return 1;
	}
	collect_log("running as user %s (uid %u, gid %u)", o->user,
		    (unsigned)o->uid, (unsigned)o->gid);
	return 0;
}

/* --reindex: every row out, every file in again.  Exit 0, or 1 when the
 * database failed. */
static int collect_reindex(struct collect_srv *s)
{
	char err[300];
	int rc;

	rc = resultdb_clear(s->store, err, sizeof(err));
	if (rc != 0) {
		util_err("collect", -rc, "--reindex: %s", err);
		resultdb_free(s->store);
		return 1;
	}
	rc = collect_catchup(s);
	collect_log("--reindex: %llu results indexed from %s%s",
		    (unsigned long long)s->indexed, s->dir,
		    rc ? " (stopped: the database failed)" : "");
	resultdb_free(s->store);
	return rc ? 1 : 0;
}

/* The server: slots, the socket, the index's first catch-up, the loop
 * until a signal.  Returns the exit status. */
static int collect_serve(struct collect_srv *s, struct collect_opts *o)
{
	int i, lfd, rc = 1;

	/* One address may hold a quarter of the slots by default: a lab's
	 * controllers each send one upload at a time. */
	if (!s->max_per_peer)
		s->max_per_peer = s->max_conns / 4 ? s->max_conns / 4 : 1;
	/* Bodies held at once: a few uploads of the largest size. */
	s->max_inflight = 4 * (size_t)s->max_size;
	s->conns = calloc((size_t)s->max_conns, sizeof(*s->conns));
	if (!s->conns) {
		util_err("collect", ENOMEM, "out of memory");
		goto out;
	}
	for (i = 0; i < s->max_conns; i++)
		s->conns[i].fd = -1;
	lfd = control_listen(o->host, o->port);
	if (lfd < 0) {
		util_err("collect", -lfd, "listen on %s: %s", o->listen,
			 strerror(-lfd));
		goto out;
	}
	if (collect_drop(s, o) != 0)
		goto out_fd;
	stop_on_signals();
	signal(SIGPIPE, SIG_IGN);
	collect_log("storing results in %s, listening on %s%s; at most %d connections, %d per address, %.3g s per request",
		    s->dir, o->listen, s->token ? " (token required)" :
		    o->loopback ? " (no token: this host only)" :
		    " (no token: anyone who reaches it may upload)",
		    s->max_conns, s->max_per_peer, (double)s->timeout_ns / 1e9);
	if (s->store) {
		collect_log("indexing into MariaDB/MySQL %s:%u/%s as %s; regressions against the last %d comparable runs beyond %.3g %%",
			    o->url.host, o->url.port, o->url.db, o->url.user,
			    s->window, s->threshold);
		rc = collect_catchup(s);
		if (rc == -EPROTO) {
			rc = 1;
			goto out_fd;
		}
		s->pending = rc != 0;
		s->next_catchup = util_mono_ns() + s->retry_ns;
	}
	collect_loop(s, lfd);
	collect_log("stopping: %llu stored, %llu duplicates, %llu rejected, %llu timed out, %llu refused busy",
		    (unsigned long long)s->stored,
		    (unsigned long long)s->duplicates,
		    (unsigned long long)s->rejected,
		    (unsigned long long)s->timeouts,
		    (unsigned long long)s->busy);
	if (s->store)
		collect_log("index: %llu results indexed%s",
			    (unsigned long long)s->indexed, s->pending ?
			    "; some wait for the database (indexed at the next start)" : "");
	rc = 0;
out_fd:
	close(lfd);
out:
	free(s->conns);
	return rc;
}

int collect_main(int argc, char **argv)
{
	struct collect_cmdline cl = { .s = {
		.max_size = 64ll << 20, .max_conns = 64,
		.timeout_ns = 10000000000ull, .window = 5, .threshold = 5,
		.retry_ns = 30000000000ull } };
	struct collect_srv *s = &cl.s;
	struct collect_opts *o = &cl.o;
	int argi, rc;

	rc = opt_main(&collect_optset, &cl, argc, argv, &argi);
	if (rc != 0)
		return rc > 0 ? 0 : 2;
	if (argi != argc) {
		opt_usage(&collect_optset, stderr);
		return 2;
	}
	rc = collect_user(o);
	if (rc == 0)
		rc = collect_db(s, o);
	if (rc == 0 && o->reindex) {
		rc = collect_drop(s, o);
		if (rc != 0)
			resultdb_free(s->store);
	}
	if (rc != 0 || o->reindex)
		return rc ? rc : collect_reindex(s);
	rc = collect_check(s, o);
	if (rc != 0) {
		resultdb_free(s->store);
		return rc;
	}
	rc = collect_serve(s, o);
	resultdb_free(s->store);
	return rc;
}
