/* controller/suite.c: suite file parser.  Line-oriented so every mistake can be
 * pinned to a line; see docs/suite-format.md for the format. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/fetch.h"
#include "controller/suite.h"
#include "lib/util.h"

/* Placeholders the runner always knows (besides set variables). */
static const char *const suite_builtins[] = {
	"conc", "total", "duration", "warmup", "cooldown", "server",
	"client", "clients", "id", "step", "repeat", NULL,
};

/* "FILE:LINE: message" (or "FILE: message" for line 0, a whole-file
 * mistake) through the one formatter; returns -EINVAL. */
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
	if (line > 0)
		return util_fail(err, errlen, -EINVAL, "%s:%d: %s", file, line,
				 msg);
	return util_fail(err, errlen, -EINVAL, "%s: %s", file, msg);
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

int suite_parse_scale(const char *text, double *f, char *err,
		      size_t errlen)
{
	char *end;
	double v, d;

	errno = 0;
	v = text && *text ? strtod(text, &end) : 0;
	if (!text || !*text || errno || end == text || !isfinite(v))
		goto bad;
	if (*end == '/') {
		d = strtod(end + 1, &end);
		if (!(d > 0) || !isfinite(d))
			goto bad;
		v /= d;
	} else if (*end == '%') {
		v /= 100;
		end++;
	}
	if (*end || !(v >= SUITE_SCALE_MIN) || !(v <= SUITE_SCALE_MAX))
		goto bad;
	*f = v;
	return 0;
bad:
	return util_fail(err, errlen, -EINVAL, "time scale '%s': expected a factor from %g to %g (0.1, 1/10 or 10%%: every warmup, duration, cooldown and wait multiplied by it)",
			 text ? text : "", SUITE_SCALE_MIN, SUITE_SCALE_MAX);
}

/* ns times f to the millisecond, at least lo. */
static uint64_t suite_scaled(uint64_t ns, double f, uint64_t lo)
{
	uint64_t v = (uint64_t)((double)ns * f / 1e6 + 0.5) * 1000000ull;

	return v < lo ? lo : v;
}

int suite_scale(struct suite *s, double f)
{
	uint64_t w;
	unsigned i;

	if (!(f >= SUITE_SCALE_MIN && f <= SUITE_SCALE_MAX))
		return -EINVAL;
	for (i = 0; i < s->nsteps; i++) {
		struct suite_step *st = &s->steps[i];

		if (!st->limit_ns)
			st->limit_ns = st->warmup_ns + st->duration_ns;
		st->warmup_ns = st->warmup_ns ?
				suite_scaled(st->warmup_ns, f, 1000000) : 0;
		st->duration_ns = suite_scaled(st->duration_ns, f, 100000000);
		st->cooldown_ns = st->cooldown_ns ?
				  suite_scaled(st->cooldown_ns, f, 1000000) : 0;
	}
	w = suite_scaled(s->wait_ns, f, SUITE_SCALE_WAIT_MIN_NS);
	s->wait_ns = w < s->wait_ns ? w : s->wait_ns;
	s->time_scale *= f;
	return 0;
}

static int suite_dur(const char *file, int line, const char *key,
		     const char *v, uint64_t *out, char *err, size_t errlen)
{
	if (util_parse_duration(v, out) != 0)
		return suite_fail(err, errlen, file, line,
				  "%s: expected a duration like 10s, 500ms or 2m, got '%s'",
				  key, v);
	return 0;
}

static int suite_uint(const char *file, int line, const char *key,
		      const char *v, uint64_t min, uint64_t max,
		      unsigned *out, char *err, size_t errlen)
{
	uint64_t x;

	if (util_parse_u64(v, min, max, &x) != 0)
		return suite_fail(err, errlen, file, line,
				  "%s: expected a whole number %llu..%llu, got '%s'",
				  key,
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

/* Which of a step's timings its own lines set (the rest are inherited). */
enum suite_stset {
	SUITE_SET_WARMUP,
	SUITE_SET_DURATION,
	SUITE_SET_COOLDOWN,
	SUITE_SET_REPEATS,
	SUITE_SET_MAXERR,
	SUITE_NSET,
};

/* Fills a step's unset timings from the suite defaults. */
static void suite_inherit(struct suite *s, struct suite_step *st,
			  const uint8_t *set)
{
	if (!set[SUITE_SET_WARMUP])
		st->warmup_ns = s->warmup_ns;
	if (!set[SUITE_SET_DURATION])
		st->duration_ns = s->duration_ns;
	if (!set[SUITE_SET_COOLDOWN])
		st->cooldown_ns = s->cooldown_ns;
	if (!set[SUITE_SET_REPEATS])
		st->repeats = s->repeats;
	if (!set[SUITE_SET_MAXERR])
		st->max_error_rate = s->max_error_rate;
}

/* Where a keyword may appear: before the first step, inside a step. */
enum suite_scope {
	SUITE_TOP = 1,
	SUITE_STEP = 2,
	SUITE_ANY = SUITE_TOP | SUITE_STEP,
};

/* The parser's state while it walks the lines. */
struct suite_pctx {
	struct suite *s;
	struct suite_step *st;		/* the current step, NULL before one */
	uint8_t (*stset)[SUITE_NSET];	/* per step: timings set explicitly */
	const char *file;
	int line;
	char **w;			/* the line's words; w[0] is the key */
	int nw;
	char *err;
	size_t errlen;
};

/* One keyword: where it may appear, how many arguments it takes (max -1:
 * any number), what the message on a wrong count says it expected
 * (NULL: the handler checks the count itself), and its handler, which
 * returns 0 or a negative errno with err set. */
struct suite_kw {
	const char *name;
	unsigned scope;
	int min, max;
	const char *shape;
	int (*fn)(struct suite_pctx *c);
};

static int suite_kw_step(struct suite_pctx *c)
{
	struct suite *s = c->s;
	struct suite_step *ns;
	uint8_t (*nset)[SUITE_NSET];
	unsigned i;

	if (!suite_name_ok(c->w[1], sizeof(ns->name) - 1))
		return suite_fail(c->err, c->errlen, c->file, c->line,
				  "step: expected a name of letters, digits, '-', '_', '.', got '%s'",
				  c->w[1]);
	for (i = 0; i < s->nsteps; i++)
		if (strcmp(s->steps[i].name, c->w[1]) == 0)
			return suite_fail(c->err, c->errlen, c->file, c->line,
					  "step: expected a new name, '%s' is already used on line %d",
					  c->w[1], s->steps[i].line);
	ns = realloc(s->steps, (s->nsteps + 1) * sizeof(*ns));
	if (!ns)
		return -ENOMEM;
	s->steps = ns;
	nset = realloc(c->stset, (s->nsteps + 1) * sizeof(*nset));
	if (!nset)
		return -ENOMEM;
	c->stset = nset;
	memset(c->stset[s->nsteps], 0, sizeof(c->stset[0]));
	c->st = &s->steps[s->nsteps++];
	memset(c->st, 0, sizeof(*c->st));
	snprintf(c->st->name, sizeof(c->st->name), "%s", c->w[1]);
	c->st->line = c->line;
	return 0;
}

static int suite_kw_suite(struct suite_pctx *c)
{
	if (c->st || !suite_name_ok(c->w[1], sizeof(c->s->name) - 1))
		return suite_fail(c->err, c->errlen, c->file, c->line,
				  "suite: expected one name before the first step");
	snprintf(c->s->name, sizeof(c->s->name), "%s", c->w[1]);
	return 0;
}

static int suite_kw_version(struct suite_pctx *c)
{
	if (c->st || !suite_name_ok(c->w[1], sizeof(c->s->version) - 1))
		return suite_fail(c->err, c->errlen, c->file, c->line,
				  "version: expected one version (like 1 or 2.1) before the first step");
	snprintf(c->s->version, sizeof(c->s->version), "%s", c->w[1]);
	return 0;
}

static int suite_kw_clients(struct suite_pctx *c)
{
	return suite_uint(c->file, c->line, c->w[0], c->w[1], 1, 4096,
			  &c->s->clients, c->err, c->errlen);
}

static int suite_kw_servers(struct suite_pctx *c)
{
	return suite_uint(c->file, c->line, c->w[0], c->w[1], 0, 1,
			  &c->s->servers, c->err, c->errlen);
}

static int suite_kw_wait(struct suite_pctx *c)
{
	return suite_dur(c->file, c->line, c->w[0], c->w[1], &c->s->wait_ns,
			 c->err, c->errlen);
}

static int suite_kw_set(struct suite_pctx *c)
{
	int k, rc;

	/* The value is the rest of the words, one blank apart. */
	for (k = 3; k < c->nw; k++)
		c->w[k][-1] = ' ';
	rc = suite_set_var(c->s, c->w[1], c->w[2]);
	if (rc == -EINVAL)
		return suite_fail(c->err, c->errlen, c->file, c->line,
				  "set: expected a name of letters, digits, '-', '_', got '%s'",
				  c->w[1]);
	if (rc == -ENOSPC)
		return suite_fail(c->err, c->errlen, c->file, c->line,
				  "set: expected at most %d variables",
				  SUITE_MAX_VARS);
	return rc;
}

/* warmup, duration, cooldown: the suite's default (top) before the first
 * step, the step's own value (step) inside one. */
static int suite_timing(struct suite_pctx *c, enum suite_stset idx,
			uint64_t *top, uint64_t *step)
{
	uint64_t *dst = c->st ? step : top;
	int rc;

	rc = suite_dur(c->file, c->line, c->w[0], c->w[1], dst, c->err,
		       c->errlen);
	if (rc != 0)
		return rc;
	if (idx == SUITE_SET_DURATION && *dst < 100000000ull)
		return suite_fail(c->err, c->errlen, c->file, c->line,
				  "duration: expected at least 100ms");
	if (c->st)
		c->stset[c->s->nsteps - 1][idx] = 1;
	return 0;
}

static int suite_kw_warmup(struct suite_pctx *c)
{
	return suite_timing(c, SUITE_SET_WARMUP, &c->s->warmup_ns,
			    c->st ? &c->st->warmup_ns : NULL);
}

static int suite_kw_duration(struct suite_pctx *c)
{
	return suite_timing(c, SUITE_SET_DURATION, &c->s->duration_ns,
			    c->st ? &c->st->duration_ns : NULL);
}

static int suite_kw_cooldown(struct suite_pctx *c)
{
	return suite_timing(c, SUITE_SET_COOLDOWN, &c->s->cooldown_ns,
			    c->st ? &c->st->cooldown_ns : NULL);
}

static int suite_kw_repeats(struct suite_pctx *c)
{
	int rc;

	rc = suite_uint(c->file, c->line, c->w[0], c->w[1], 1, 1000,
			c->st ? &c->st->repeats : &c->s->repeats, c->err,
			c->errlen);
	if (rc == 0 && c->st)
		c->stset[c->s->nsteps - 1][SUITE_SET_REPEATS] = 1;
	return rc;
}

/* max_error_rate R: a fraction 0..1 ("0.01") or a percentage ("1%"). */
static int suite_kw_maxerr(struct suite_pctx *c)
{
	const char *v = c->w[1];
	char *end;
	double x;

	errno = 0;
	x = strtod(v, &end);
	if (end != v && *end == '%' && end[1] == 0) {
		x /= 100;
		end++;
	}
	if (errno || end == v || *end || !(x >= 0 && x <= 1))
		return suite_fail(c->err, c->errlen, c->file, c->line,
				  "max_error_rate: expected a fraction 0..1 or a percentage like 1%%, got '%s'",
				  v);
	*(c->st ? &c->st->max_error_rate : &c->s->max_error_rate) = x;
	if (c->st)
		c->stset[c->s->nsteps - 1][SUITE_SET_MAXERR] = 1;
	return 0;
}

static int suite_kw_concurrency(struct suite_pctx *c)
{
	int k, rc;

	/* Checked here: the bound in the message is SUITE_MAX_CONC. */
	if (c->nw < 2 || c->nw - 1 > SUITE_MAX_CONC)
		return suite_fail(c->err, c->errlen, c->file, c->line,
				  "concurrency: expected 1..%d numbers",
				  SUITE_MAX_CONC);
	for (k = 1; k < c->nw; k++) {
		rc = suite_uint(c->file, c->line, c->w[0], c->w[k], 1, 100000,
				&c->st->conc[k - 1], c->err, c->errlen);
		if (rc != 0)
			return rc;
	}
	c->st->nconc = (unsigned)c->nw - 1;
	return 0;
}

static int suite_kw_sink(struct suite_pctx *c)
{
	return suite_uint(c->file, c->line, c->w[0], c->w[1], 1, 65535,
			  &c->st->sink_port, c->err, c->errlen);
}

static int suite_kw_run(struct suite_pctx *c)
{
	struct suite_step *st = c->st;
	struct suite_run *r;
	int k;

	if (st->nruns == SUITE_MAX_RUNS)
		return suite_fail(c->err, c->errlen, c->file, c->line,
				  "run: expected at most %d run lines in a step",
				  SUITE_MAX_RUNS);
	if (!suite_name_ok(c->w[1], 32))
		return suite_fail(c->err, c->errlen, c->file, c->line,
				  "run: expected a workload name (http, sql, smtp, ...), got '%s'",
				  c->w[1]);
	r = &st->runs[st->nruns++];
	r->line = c->line;
	for (k = 1; k < c->nw; k++) {
		r->argv[r->argc] = strdup(c->w[k]);
		if (!r->argv[r->argc])
			return -ENOMEM;
		r->argc++;
	}
	return 0;
}

/* The suite language (docs/suite-format.md).  A keyword outside its scope
 * is reported as an unknown one, listing what that scope accepts. */
static const struct suite_kw suite_kws[] = {
	{ "step", SUITE_ANY, 1, 1, "one step name", suite_kw_step },
	{ "suite", SUITE_ANY, 1, 1, "one suite name", suite_kw_suite },
	{ "version", SUITE_ANY, 1, 1, "one version", suite_kw_version },
	{ "clients", SUITE_TOP, 1, 1, "a number of clients",
	  suite_kw_clients },
	{ "servers", SUITE_TOP, 1, 1, "0 or 1", suite_kw_servers },
	{ "wait", SUITE_TOP, 1, 1, "a duration", suite_kw_wait },
	{ "set", SUITE_TOP, 2, -1, "a name and a value", suite_kw_set },
	{ "warmup", SUITE_ANY, 1, 1, "a duration", suite_kw_warmup },
	{ "duration", SUITE_ANY, 1, 1, "a duration", suite_kw_duration },
	{ "cooldown", SUITE_ANY, 1, 1, "a duration", suite_kw_cooldown },
	{ "repeats", SUITE_ANY, 1, 1, "a number of repeats",
	  suite_kw_repeats },
	{ "max_error_rate", SUITE_ANY, 1, 1, "a fraction or a percentage",
	  suite_kw_maxerr },
	{ "concurrency", SUITE_STEP, 0, -1, NULL, suite_kw_concurrency },
	{ "sink", SUITE_STEP, 1, 1, "a port", suite_kw_sink },
	{ "run", SUITE_STEP, 1, -1, "a workload and its arguments",
	  suite_kw_run },
};

/* The keyword for key in the current scope, or NULL. */
static const struct suite_kw *suite_kw_find(const char *key, unsigned scope)
{
	size_t i;

	for (i = 0; i < sizeof(suite_kws) / sizeof(suite_kws[0]); i++)
		if (strcmp(suite_kws[i].name, key) == 0)
			return (suite_kws[i].scope & scope) ? &suite_kws[i] :
							       NULL;
	return NULL;
}

/* One line, already split into c->w/c->nw (nw > 0). */
static int suite_line(struct suite_pctx *c)
{
	const struct suite_kw *kw;
	const char *key = c->w[0];
	int nargs = c->nw - 1;

	kw = suite_kw_find(key, c->st ? SUITE_STEP : SUITE_TOP);
	if (!kw && !c->st)
		return suite_fail(c->err, c->errlen, c->file, c->line,
				  "expected suite, version, repeats, clients, servers, wait, warmup, duration, cooldown, max_error_rate, set or step; got '%s'",
				  key);
	if (!kw)
		return suite_fail(c->err, c->errlen, c->file, c->line,
				  "expected a step setting (run, concurrency, warmup, duration, cooldown, repeats, max_error_rate) or the next step; got '%s'",
				  key);
	if (kw->shape && (nargs < kw->min ||
			  (kw->max >= 0 && nargs > kw->max)))
		return suite_fail(c->err, c->errlen, c->file, c->line,
				  "%s: expected %s", key, kw->shape);
	return kw->fn(c);
}

/* Splits and dispatches every line of text. */
static int suite_lines(struct suite_pctx *c, const char *text, size_t len)
{
	const char *p = text, *end = text + len;
	char *w[SUITE_MAX_ARGS + 2];
	char *line, *buf;
	int rc = 0;

	line = malloc(len + 1);
	buf = malloc(len + 2);
	if (!line || !buf) {
		rc = -ENOMEM;
		goto out;
	}
	c->w = w;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t ll = nl ? (size_t)(nl - p) : (size_t)(end - p);

		memcpy(line, p, ll);
		line[ll] = 0;
		p += ll + (nl ? 1 : 0);
		c->line++;
		c->nw = suite_words(line, buf, w, SUITE_MAX_ARGS + 1);
		if (c->nw == -1)
			rc = suite_fail(c->err, c->errlen, c->file, c->line,
					"expected a closing '\"'");
		else if (c->nw == -2)
			rc = suite_fail(c->err, c->errlen, c->file, c->line,
					"expected at most %d words on a line",
					SUITE_MAX_ARGS);
		else if (c->nw > 0)
			rc = suite_line(c);
		if (rc != 0)
			goto out;
	}
out:
	c->w = NULL;
	free(line);
	free(buf);
	return rc;
}

/* Every placeholder of a step's run lines must resolve, now rather than
 * mid-run. */
static int suite_check_runs(struct suite_pctx *c, const struct suite_step *st)
{
	unsigned j;
	int k, e;

	for (j = 0; j < st->nruns; j++) {
		const struct suite_run *r = &st->runs[j];

		for (k = 0; k < r->argc; k++) {
			char tmp[4096], bad[64];

			e = suite_expand(r->argv[k], tmp, sizeof(tmp),
					 suite_check_lookup, c->s, bad,
					 sizeof(bad));
			if (e == -ENOENT)
				return suite_fail(c->err, c->errlen, c->file,
						  r->line,
						  "run: unknown placeholder {%s}; expected a built-in (conc, total, duration, warmup, server, ...) or a 'set' variable",
						  bad);
			if (e != 0)
				return suite_fail(c->err, c->errlen, c->file,
						  r->line,
						  "run: expected '{NAME}' placeholders in '%s'",
						  r->argv[k]);
		}
	}
	return 0;
}

/* What only the whole file can tell: the header lines, at least one step,
 * each with a run line; then the steps inherit the suite's timings. */
static int suite_finish(struct suite_pctx *c)
{
	struct suite *s = c->s;
	unsigned i;
	int rc;

	if (!s->name[0])
		return suite_fail(c->err, c->errlen, c->file, 0,
				  "expected a 'suite NAME' line");
	if (!s->version[0])
		return suite_fail(c->err, c->errlen, c->file, 0,
				  "expected a 'version V' line");
	if (s->nsteps == 0)
		return suite_fail(c->err, c->errlen, c->file, c->line + 1,
				  "expected at least one step");
	for (i = 0; i < s->nsteps; i++) {
		struct suite_step *st = &s->steps[i];

		suite_inherit(s, st, c->stset[i]);
		if (st->nruns == 0)
			return suite_fail(c->err, c->errlen, c->file, st->line,
					  "step %s: expected at least one run line",
					  st->name);
		rc = suite_check_runs(c, st);
		if (rc != 0)
			return rc;
	}
	return 0;
}

int suite_parse(const char *text, size_t len, const char *fname,
		struct suite *s, char *err, size_t errlen)
{
	struct suite_pctx c = {
		.s = s, .file = fname, .err = err, .errlen = errlen,
	};
	int rc;

	memset(s, 0, sizeof(*s));
	snprintf(s->file, sizeof(s->file), "%s", fname);
	s->repeats = 1;
	s->max_error_rate = 0.01;
	s->time_scale = 1;
	s->clients = 1;
	s->servers = 1;
	s->wait_ns = 120000000000ull;
	s->warmup_ns = 2000000000ull;
	s->duration_ns = 10000000000ull;
	s->cooldown_ns = 2000000000ull;
	if (memchr(text, 0, len)) {
		rc = suite_fail(err, errlen, fname, 0,
				"expected text, found a NUL byte");
		goto out;
	}
	rc = suite_lines(&c, text, len);
	if (rc != 0)
		goto out;
	rc = suite_finish(&c);
out:
	free(c.stset);
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
	if (rc != 0)
		return util_fail(err, errlen, rc, "%s: %s", shown,
				 strerror(-rc));
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
			rc = -errno;
			return util_fail(err, errlen, rc, "%s: %s", tmp,
					 strerror(-rc));
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
		return util_fail(err, errlen, -EINVAL,
				 "suite '%s': expected a name, a path or a URL",
				 spec);
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
	return util_fail(err, errlen, -ENOENT, "suite '%s': no %s.suite in %s",
			 spec, spec, looked);
}
