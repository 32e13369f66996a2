/* suite.c: suite file parser.  Line-oriented so every mistake can be
 * pinned to a line; see docs/suite-format.md for the format. */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fetch.h"
#include "suite.h"
#include "util.h"

/* Placeholders the runner always knows (besides set variables). */
static const char *const suite_builtins[] = {
	"conc", "total", "duration", "warmup", "cooldown", "server",
	"client", "clients", "id", "step", "repeat", NULL,
};

static int suite_fail(char *err, size_t errlen, const char *file, int line,
		      const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
static int suite_fail(char *err, size_t errlen, const char *file, int line,
		      const char *fmt, ...)
{
	char msg[384];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (err && errlen) {
		if (line > 0)
			snprintf(err, errlen, "%s:%d: %s", file, line, msg);
		else
			snprintf(err, errlen, "%s: %s", file, msg);
	}
	return -EINVAL;
}

/* Splits a line into words: blanks separate, "..." quotes (with \" and
 * \\), # starts a comment outside quotes.  Words are written into buf
 * (NUL-separated).  Returns the word count, or -1 for an unclosed quote,
 * -2 for too many words. */
static int suite_words(const char *line, char *buf, char **words, int max)
{
	const char *p = line;
	char *o = buf;
	int n = 0;

	for (;;) {
		while (*p == ' ' || *p == '\t' || *p == '\r')
			p++;
		if (!*p || *p == '#')
			return n;
		if (n == max)
			return -2;
		words[n++] = o;
		while (*p && *p != ' ' && *p != '\t' && *p != '\r') {
			if (*p == '"') {
				p++;
				while (*p && *p != '"') {
					if (*p == '\\' && (p[1] == '"' ||
							   p[1] == '\\'))
						p++;
					*o++ = *p++;
				}
				if (*p != '"')
					return -1;
				p++;
			} else if (*p == '#') {
				break;
			} else {
				*o++ = *p++;
			}
		}
		*o++ = 0;
	}
}

static int suite_name_ok(const char *s, size_t max)
{
	size_t n;

	for (n = 0; s[n]; n++)
		if (n >= max || !((s[n] >= 'a' && s[n] <= 'z') ||
				  (s[n] >= 'A' && s[n] <= 'Z') ||
				  (s[n] >= '0' && s[n] <= '9') ||
				  s[n] == '-' || s[n] == '_' || s[n] == '.'))
			return 0;
	return n > 0;
}

const char *suite_var(const struct suite *s, const char *name)
{
	unsigned i;

	for (i = 0; i < s->nvars; i++)
		if (strcmp(s->vars[i].name, name) == 0)
			return s->vars[i].value;
	return NULL;
}

int suite_set_var(struct suite *s, const char *name, const char *value)
{
	char *v;
	unsigned i;

	if (!suite_name_ok(name, sizeof(s->vars[0].name) - 1))
		return -EINVAL;
	v = strdup(value);
	if (!v)
		return -ENOMEM;
	for (i = 0; i < s->nvars; i++) {
		if (strcmp(s->vars[i].name, name) == 0) {
			free(s->vars[i].value);
			s->vars[i].value = v;
			return 0;
		}
	}
	if (s->nvars == SUITE_MAX_VARS) {
		free(v);
		return -ENOSPC;
	}
	snprintf(s->vars[s->nvars].name, sizeof(s->vars[0].name), "%s", name);
	s->vars[s->nvars++].value = v;
	return 0;
}

/* [A-Za-z_][A-Za-z0-9_-]* of n bytes. */
static int suite_ident(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		char ch = s[i];

		if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
		      ch == '_' || (i > 0 && ((ch >= '0' && ch <= '9') ||
					      ch == '-'))))
			return 0;
	}
	return n > 0;
}

int suite_expand(const char *tmpl, char *out, size_t outlen,
		 const char *(*lookup)(void *ctx, const char *name),
		 void *ctx, char *err, size_t errlen)
{
	size_t o = 0;
	const char *p;

	for (p = tmpl; *p; p++) {
		const char *val, *end;
		char name[64];
		size_t n;

		if (*p != '{') {
			if (o + 1 >= outlen)
				return -ENOSPC;
			out[o++] = *p;
			continue;
		}
		end = strchr(p, '}');
		n = end ? (size_t)(end - p - 1) : 0;
		/* Only {identifier} is ours: the http workload's URL patterns
		 * ({00..99}, {a,b}) pass through untouched. */
		if (!end || n == 0 || n >= sizeof(name) ||
		    !suite_ident(p + 1, n)) {
			if (o + 1 >= outlen)
				return -ENOSPC;
			out[o++] = *p;
			continue;
		}
		memcpy(name, p + 1, n);
		name[n] = 0;
		val = lookup(ctx, name);
		if (!val) {
			if (err && errlen)
				snprintf(err, errlen, "%s", name);
			return -ENOENT;
		}
		n = strlen(val);
		if (o + n >= outlen)
			return -ENOSPC;
		memcpy(out + o, val, n);
		o += n;
		p = end;
	}
	if (o >= outlen)
		return -ENOSPC;
	out[o] = 0;
	return 0;
}

/* Parse-time lookup: built-ins and set variables resolve to a dummy. */
static const char *suite_check_lookup(void *ctx, const char *name)
{
	const struct suite *s = ctx;
	int i;

	for (i = 0; suite_builtins[i]; i++)
		if (strcmp(suite_builtins[i], name) == 0)
			return "";
	return suite_var(s, name) ? "" : NULL;
}

void suite_fmt_duration(uint64_t ns, char *out, size_t outlen)
{
	if (ns % 1000000000u == 0)
		snprintf(out, outlen, "%llus",
			 (unsigned long long)(ns / 1000000000u));
	else
		snprintf(out, outlen, "%llums",
			 (unsigned long long)(ns / 1000000u));
}

static int suite_dur(const char *file, int line, const char *key,
		     const char *v, uint64_t *out, char *err, size_t errlen)
{
	if (util_parse_duration(v, out) != 0)
		return suite_fail(err, errlen, file, line, "%s: expected a "
				  "duration like 10s, 500ms or 2m, got '%s'",
				  key, v);
	return 0;
}

static int suite_uint(const char *file, int line, const char *key,
		      const char *v, uint64_t min, uint64_t max,
		      unsigned *out, char *err, size_t errlen)
{
	uint64_t x;

	if (util_parse_u64(v, min, max, &x) != 0)
		return suite_fail(err, errlen, file, line, "%s: expected a "
				  "whole number %llu..%llu, got '%s'", key,
				  (unsigned long long)min,
				  (unsigned long long)max, v);
	*out = (unsigned)x;
	return 0;
}

void suite_free(struct suite *s)
{
	unsigned i, j;
	int k;

	for (i = 0; i < s->nvars; i++)
		free(s->vars[i].value);
	for (i = 0; i < s->nsteps; i++)
		for (j = 0; j < s->steps[i].nruns; j++)
			for (k = 0; k < s->steps[i].runs[j].argc; k++)
				free(s->steps[i].runs[j].argv[k]);
	free(s->steps);
	memset(s, 0, sizeof(*s));
}

/* Fills a step's unset timings from the suite defaults. */
static void suite_inherit(struct suite *s, struct suite_step *st,
			  const uint8_t *set)
{
	if (!set[0])
		st->warmup_ns = s->warmup_ns;
	if (!set[1])
		st->duration_ns = s->duration_ns;
	if (!set[2])
		st->cooldown_ns = s->cooldown_ns;
	if (!set[3])
		st->repeats = s->repeats;
}

int suite_parse(const char *text, size_t len, const char *fname,
		struct suite *s, char *err, size_t errlen)
{
	const char *p = text, *end = text + len;
	struct suite_step *st = NULL;
	uint8_t (*stset)[4] = NULL;
	char *line = NULL, *buf = NULL;
	char *w[SUITE_MAX_ARGS + 2];
	int lineno = 0, rc = 0, nw;
	unsigned i, j;
	int k;

	memset(s, 0, sizeof(*s));
	snprintf(s->file, sizeof(s->file), "%s", fname);
	s->repeats = 1;
	s->clients = 1;
	s->servers = 1;
	s->wait_ns = 120000000000ull;
	s->warmup_ns = 2000000000ull;
	s->duration_ns = 10000000000ull;
	s->cooldown_ns = 2000000000ull;
	line = malloc(len + 1);
	buf = malloc(len + 2);
	if (!line || !buf) {
		rc = -ENOMEM;
		goto out;
	}
	if (memchr(text, 0, len)) {
		rc = suite_fail(err, errlen, fname, 0, "expected text, found a "
				"NUL byte");
		goto out;
	}
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t ll = nl ? (size_t)(nl - p) : (size_t)(end - p);
		const char *key;

		memcpy(line, p, ll);
		line[ll] = 0;
		p += ll + (nl ? 1 : 0);
		lineno++;
		nw = suite_words(line, buf, w, SUITE_MAX_ARGS + 1);
		if (nw == -1) {
			rc = suite_fail(err, errlen, fname, lineno, "expected "
					"a closing '\"'");
			goto out;
		}
		if (nw == -2) {
			rc = suite_fail(err, errlen, fname, lineno, "expected "
					"at most %d words on a line",
					SUITE_MAX_ARGS);
			goto out;
		}
		if (nw == 0)
			continue;
		key = w[0];
#define NEED(n, what) do { if (nw != (n) + 1) { \
	rc = suite_fail(err, errlen, fname, lineno, "%s: expected %s", key, \
			what); goto out; } } while (0)
		if (strcmp(key, "step") == 0) {
			struct suite_step *ns;
			uint8_t (*nset)[4];

			NEED(1, "one step name");
			if (!suite_name_ok(w[1], sizeof(st->name) - 1)) {
				rc = suite_fail(err, errlen, fname, lineno,
						"step: expected a name of "
						"letters, digits, '-', '_', "
						"'.', got '%s'", w[1]);
				goto out;
			}
			for (i = 0; i < s->nsteps; i++)
				if (strcmp(s->steps[i].name, w[1]) == 0) {
					rc = suite_fail(err, errlen, fname,
							lineno, "step: expected"
							" a new name, '%s' is "
							"already used on line "
							"%d", w[1],
							s->steps[i].line);
					goto out;
				}
			ns = realloc(s->steps, (s->nsteps + 1) * sizeof(*ns));
			if (!ns) {
				rc = -ENOMEM;
				goto out;
			}
			s->steps = ns;
			nset = realloc(stset, (s->nsteps + 1) * sizeof(*nset));
			if (!nset) {
				rc = -ENOMEM;
				goto out;
			}
			stset = nset;
			memset(stset[s->nsteps], 0, sizeof(stset[0]));
			st = &s->steps[s->nsteps++];
			memset(st, 0, sizeof(*st));
			snprintf(st->name, sizeof(st->name), "%s", w[1]);
			st->line = lineno;
		} else if (strcmp(key, "suite") == 0) {
			NEED(1, "one suite name");
			if (st || !suite_name_ok(w[1], sizeof(s->name) - 1)) {
				rc = suite_fail(err, errlen, fname, lineno,
						"suite: expected one name "
						"before the first step");
				goto out;
			}
			snprintf(s->name, sizeof(s->name), "%s", w[1]);
		} else if (strcmp(key, "version") == 0) {
			NEED(1, "one version");
			if (st || !suite_name_ok(w[1],
						 sizeof(s->version) - 1)) {
				rc = suite_fail(err, errlen, fname, lineno,
						"version: expected one version "
						"(like 1 or 2.1) before the "
						"first step");
				goto out;
			}
			snprintf(s->version, sizeof(s->version), "%s", w[1]);
		} else if (strcmp(key, "clients") == 0 && !st) {
			NEED(1, "a number of clients");
			rc = suite_uint(fname, lineno, key, w[1], 1, 4096,
					&s->clients, err, errlen);
		} else if (strcmp(key, "servers") == 0 && !st) {
			NEED(1, "0 or 1");
			rc = suite_uint(fname, lineno, key, w[1], 0, 1,
					&s->servers, err, errlen);
		} else if (strcmp(key, "wait") == 0 && !st) {
			NEED(1, "a duration");
			rc = suite_dur(fname, lineno, key, w[1], &s->wait_ns,
				       err, errlen);
		} else if (strcmp(key, "set") == 0 && !st) {
			if (nw < 3) {
				rc = suite_fail(err, errlen, fname, lineno,
						"set: expected a name and a "
						"value");
				goto out;
			}
			/* The value is the rest of the words, one blank
			 * apart. */
			for (k = 3; k < nw; k++)
				w[k][-1] = ' ';
			rc = suite_set_var(s, w[1], w[2]);
			if (rc == -EINVAL)
				rc = suite_fail(err, errlen, fname, lineno,
						"set: expected a name of "
						"letters, digits, '-', '_', "
						"got '%s'", w[1]);
			else if (rc == -ENOSPC)
				rc = suite_fail(err, errlen, fname, lineno,
						"set: expected at most %d "
						"variables", SUITE_MAX_VARS);
		} else if (strcmp(key, "warmup") == 0 ||
			   strcmp(key, "duration") == 0 ||
			   strcmp(key, "cooldown") == 0) {
			int idx = key[0] == 'w' ? 0 : key[0] == 'd' ? 1 : 2;
			uint64_t *dst = st ? (idx == 0 ? &st->warmup_ns :
					      idx == 1 ? &st->duration_ns :
					      &st->cooldown_ns) :
				(idx == 0 ? &s->warmup_ns : idx == 1 ?
				 &s->duration_ns : &s->cooldown_ns);

			NEED(1, "a duration");
			rc = suite_dur(fname, lineno, key, w[1], dst, err,
				       errlen);
			if (rc == 0 && idx == 1 && *dst < 100000000ull)
				rc = suite_fail(err, errlen, fname, lineno,
						"duration: expected at least "
						"100ms");
			if (st)
				stset[s->nsteps - 1][idx] = 1;
		} else if (strcmp(key, "repeats") == 0) {
			NEED(1, "a number of repeats");
			rc = suite_uint(fname, lineno, key, w[1], 1, 1000,
					st ? &st->repeats : &s->repeats, err,
					errlen);
			if (st)
				stset[s->nsteps - 1][3] = 1;
		} else if (strcmp(key, "concurrency") == 0 && st) {
			if (nw < 2 || nw - 1 > SUITE_MAX_CONC) {
				rc = suite_fail(err, errlen, fname, lineno,
						"concurrency: expected 1..%d "
						"numbers", SUITE_MAX_CONC);
				goto out;
			}
			for (k = 1; k < nw && rc == 0; k++)
				rc = suite_uint(fname, lineno, key, w[k], 1,
						100000, &st->conc[k - 1], err,
						errlen);
			st->nconc = (unsigned)nw - 1;
		} else if (strcmp(key, "run") == 0 && st) {
			struct suite_run *r;

			if (nw < 2) {
				rc = suite_fail(err, errlen, fname, lineno,
						"run: expected a workload and "
						"its arguments");
				goto out;
			}
			if (st->nruns == SUITE_MAX_RUNS) {
				rc = suite_fail(err, errlen, fname, lineno,
						"run: expected at most %d run "
						"lines in a step",
						SUITE_MAX_RUNS);
				goto out;
			}
			if (!suite_name_ok(w[1], 32)) {
				rc = suite_fail(err, errlen, fname, lineno,
						"run: expected a workload name "
						"(http, sql, smtp, ...), got "
						"'%s'", w[1]);
				goto out;
			}
			r = &st->runs[st->nruns++];
			r->line = lineno;
			for (k = 1; k < nw; k++) {
				r->argv[r->argc] = strdup(w[k]);
				if (!r->argv[r->argc]) {
					rc = -ENOMEM;
					goto out;
				}
				r->argc++;
			}
		} else if (!st) {
			rc = suite_fail(err, errlen, fname, lineno, "expected "
					"suite, version, repeats, clients, "
					"servers, wait, warmup, duration, "
					"cooldown, set or step; got '%s'",
					key);
		} else {
			rc = suite_fail(err, errlen, fname, lineno, "expected "
					"a step setting (run, concurrency, "
					"warmup, duration, cooldown, repeats) "
					"or the next step; got '%s'", key);
		}
#undef NEED
		if (rc != 0)
			goto out;
	}
	if (!s->name[0]) {
		rc = suite_fail(err, errlen, fname, 0, "expected a 'suite NAME'"
				" line");
		goto out;
	}
	if (!s->version[0]) {
		rc = suite_fail(err, errlen, fname, 0, "expected a 'version "
				"V' line");
		goto out;
	}
	if (s->nsteps == 0) {
		rc = suite_fail(err, errlen, fname, lineno + 1, "expected at "
				"least one step");
		goto out;
	}
	for (i = 0; i < s->nsteps; i++) {
		st = &s->steps[i];
		suite_inherit(s, st, stset[i]);
		if (st->nruns == 0) {
			rc = suite_fail(err, errlen, fname, st->line, "step "
					"%s: expected at least one run line",
					st->name);
			goto out;
		}
		/* Every placeholder must resolve, now rather than mid-run. */
		for (j = 0; j < st->nruns; j++) {
			for (k = 0; k < st->runs[j].argc; k++) {
				char tmp[4096], bad[64];
				int e;

				e = suite_expand(st->runs[j].argv[k], tmp,
						 sizeof(tmp),
						 suite_check_lookup, s, bad,
						 sizeof(bad));
				if (e == -ENOENT)
					rc = suite_fail(err, errlen, fname,
							st->runs[j].line,
							"run: unknown "
							"placeholder {%s}; "
							"expected a built-in "
							"(conc, total, "
							"duration, warmup, "
							"server, ...) or a "
							"'set' variable", bad);
				else if (e != 0)
					rc = suite_fail(err, errlen, fname,
							st->runs[j].line,
							"run: expected '{NAME}'"
							" placeholders in '%s'",
							st->runs[j].argv[k]);
				if (rc != 0)
					goto out;
			}
		}
	}
out:
	free(line);
	free(buf);
	free(stset);
	if (rc != 0)
		suite_free(s);
	return rc;
}

static int suite_read_file(const char *path, char **text, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *b = NULL;
	size_t cap = 0, n = 0;

	if (!f)
		return -errno;
	for (;;) {
		size_t r;

		if (cap - n < 4096) {
			char *nb;

			cap = cap ? cap * 2 : 8192;
			if (cap > (16u << 20)) {
				fclose(f);
				free(b);
				return -EFBIG;
			}
			nb = realloc(b, cap);
			if (!nb) {
				fclose(f);
				free(b);
				return -ENOMEM;
			}
			b = nb;
		}
		r = fread(b + n, 1, cap - n, f);
		n += r;
		if (r == 0)
			break;
	}
	if (ferror(f)) {
		fclose(f);
		free(b);
		return -EIO;
	}
	fclose(f);
	*text = b;
	*len = n;
	return 0;
}

static int suite_load_file(const char *path, const char *shown,
			   struct suite *s, char *err, size_t errlen)
{
	char *text = NULL;
	size_t len = 0;
	int rc;

	rc = suite_read_file(path, &text, &len);
	if (rc != 0) {
		snprintf(err, errlen, "%s: %s", shown, strerror(-rc));
		return rc;
	}
	rc = suite_parse(text, len, shown, s, err, errlen);
	free(text);
	return rc;
}

int suite_load(const char *spec, const char *dir, struct suite *s,
	       char *err, size_t errlen)
{
	char path[PATH_MAX], exe[PATH_MAX], looked[1024] = "";
	const char *dirs[5];
	ssize_t n;
	int i, nd = 0, rc;

	if (strstr(spec, "://")) {
		char tmp[] = "/tmp/benchboot-suite.XXXXXX";
		int fd = mkstemp(tmp);

		if (fd < 0) {
			snprintf(err, errlen, "%s: %s", tmp, strerror(errno));
			return -errno;
		}
		close(fd);
		rc = fetch_to_file(spec, tmp, 60, err, errlen);
		if (rc == 0)
			rc = suite_load_file(tmp, spec, s, err, errlen);
		unlink(tmp);
		return rc;
	}
	n = (ssize_t)strlen(spec);
	if (strchr(spec, '/') || (n > 6 && strcmp(spec + n - 6, ".suite") == 0))
		return suite_load_file(spec, spec, s, err, errlen);
	if (!suite_name_ok(spec, 63)) {
		snprintf(err, errlen, "suite '%s': expected a name, a path or "
			 "a URL", spec);
		return -EINVAL;
	}
	if (dir)
		dirs[nd++] = dir;
	if (getenv("BENCHBOOT_SUITE_DIR"))
		dirs[nd++] = getenv("BENCHBOOT_SUITE_DIR");
	dirs[nd++] = "configs/suite";
	dirs[nd++] = "/etc/benchboot/suite";
	/* out/ARCH/bin/benchboot -> ../../../configs/suite */
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 40);
	if (n > 0) {
		exe[n] = 0;
		if (strrchr(exe, '/'))
			strcpy(strrchr(exe, '/'), "/../../../configs/suite");
		dirs[nd++] = exe;
	}
	for (i = 0; i < nd; i++) {
		snprintf(path, sizeof(path), "%s/%s.suite", dirs[i], spec);
		if (access(path, R_OK) == 0)
			return suite_load_file(path, path, s, err, errlen);
		snprintf(looked + strlen(looked), sizeof(looked) -
			 strlen(looked), "%s%s", i ? ", " : "", dirs[i]);
	}
	snprintf(err, errlen, "suite '%s': no %s.suite in %s", spec, spec,
		 looked);
	return -ENOENT;
}
