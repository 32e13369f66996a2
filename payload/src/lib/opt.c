/* lib/opt.c: the commands' table-driven option parser (lib/opt.h): one
 * getopt_long walk, storing for a command, checking for the agent. */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "lib/opt.h"
#include "lib/util.h"

/* getopt_long's val for an option without a short letter: index + this,
 * above every letter. */
#define OPT_LONG_BASE 256

/* Stores value at base + o->off.  Returns 0, or -EINVAL (err empty: the
 * bad-value message applies; err set: a message of o->fn's). */
static int opt_store(const struct opt *o, const char *value, char *err,
		     size_t errlen, char *base)
{
	void *dst = base + o->off;
	uint64_t v;
	double d;
	char *end;

	switch (o->kind) {
	case OPT_FLAG:
		*(int *)dst = o->val;
		return 0;
	case OPT_UINT:
	case OPT_U64:
		if (util_parse_u64(value, o->min, o->max, &v) != 0)
			return -EINVAL;
		if (o->kind == OPT_UINT)
			*(unsigned *)dst = (unsigned)v;
		else
			*(uint64_t *)dst = v;
		return 0;
	case OPT_DUR:
		if (util_parse_duration(value, &v) != 0 || v < o->min ||
		    (o->max && v > o->max))
			return -EINVAL;
		*(uint64_t *)dst = v;
		return 0;
	case OPT_RATE:
		d = strtod(value, &end);
		if (end == value || *end || !(d > 0) || d > (double)o->max)
			return -EINVAL;
		*(double *)dst = d;
		return 0;
	case OPT_STR:
		*(const char **)dst = value;
		return 0;
	case OPT_FN:
	case OPT_FN0:
		return o->fn(dst, value, err, errlen);
	}
	return -EINVAL;
}

/* opt_parse's each: the value stored, and seen set. */
static int opt_store_each(const struct opt *o, const char *value,
			  const char *arg, void *ctx, char *err,
			  size_t errlen)
{
	int rc;

	(void)arg;
	rc = opt_store(o, value, err, errlen, ctx);
	if (rc == 0 && o->seen)
		*(int *)((char *)ctx + o->seen - 1) = 1;
	return rc;
}

static int opt_takes_value(const struct opt *o)
{
	return o->kind != OPT_FLAG && o->kind != OPT_FN0;
}

/* getopt_long's tables from set: short letters into shorts (":" first,
 * so that a missing value is told apart), every option into lopts. */
static void opt_tables(const struct optset *set, char *shorts,
		       struct option *lopts)
{
	const struct opt *o;
	size_t i, k = 0;

	shorts[k++] = ':';
	shorts[k++] = 'h';
	for (i = 0; i < set->nopts; i++) {
		o = &set->opts[i];
		lopts[i].name = o->name;
		lopts[i].has_arg = opt_takes_value(o) ? required_argument :
				   no_argument;
		lopts[i].flag = NULL;
		lopts[i].val = o->key ? o->key : OPT_LONG_BASE + (int)i;
		if (o->key) {
			shorts[k++] = (char)o->key;
			if (opt_takes_value(o))
				shorts[k++] = ':';
		}
	}
	shorts[k] = 0;
	lopts[i] = (struct option){ "help", no_argument, NULL, 'h' };
	lopts[i + 1] = (struct option){ NULL, 0, NULL, 0 };
}

/* The entry getopt_long's val c stands for, or NULL. */
static const struct opt *opt_find(const struct optset *set, int c)
{
	size_t i;

	if (c >= OPT_LONG_BASE && (size_t)(c - OPT_LONG_BASE) < set->nopts)
		return &set->opts[c - OPT_LONG_BASE];
	for (i = 0; c > 0 && i < set->nopts; i++)
		if (set->opts[i].key == c)
			return &set->opts[i];
	return NULL;
}

/* The message for what getopt_long refused ('?' or ':' in c). */
static int opt_refused(const struct optset *set, int c, char **argv,
		       char *err, size_t errlen)
{
	const struct opt *o = opt_find(set, optopt);

	if (c == ':' && o && o->key)
		return util_fail(err, errlen, -ENOENT, "option '-%c' (--%s) needs a value", o->key, o->name);
	if (c == ':' && o)
		return util_fail(err, errlen, -ENOENT, "option '--%s' needs a value", o->name);
	if (optopt && optopt < OPT_LONG_BASE)
		return util_fail(err, errlen, -ENOENT, "unknown option '-%c'", optopt);
	return util_fail(err, errlen, -ENOENT, "unknown option '%s'", argv[optind - 1]);
}

int opt_walk(const struct optset *set, int argc, char **argv, int *argi,
	     opt_each_fn each, void *ctx, char *err, size_t errlen)
{
	struct option lopts[OPT_MAX + 2];
	char shorts[2 * OPT_MAX + 3];
	const struct opt *o;
	int c, rc;

	if (set->nopts > OPT_MAX)
		return util_fail(err, errlen, -EINVAL, "%s: more than %d options in its table", set->cmd, OPT_MAX);
	opt_tables(set, shorts, lopts);
	if (err && errlen)
		err[0] = 0;
	optind = 0;	/* a full reset, also of a half-read "-abc" */
	opterr = 0;	/* our messages, not getopt's */
	while ((c = getopt_long(argc, argv, shorts, lopts, NULL)) != -1) {
		if (c == 'h')
			return 1;
		o = opt_find(set, c);
		if (c == '?' || c == ':' || !o)
			return opt_refused(set, c, argv, err, errlen);
		rc = each(o, opt_takes_value(o) ? optarg : NULL,
			  argv[optind - 1], ctx, err, errlen);
		if (rc == 0)
			continue;
		if (err && errlen && err[0])
			return rc;
		/* Two strings for the format: the value and the argument
		 * as typed ("--rate=x" or "x"). */
		return util_fail(err, errlen, rc, o->bad ? o->bad : set->bad ?
				 set->bad : "bad value '%s' in '%s'", optarg,
				 argv[optind - 1]);
	}
	*argi = optind;
	return 0;
}

int opt_parse(const struct optset *set, void *base, int argc, char **argv,
	      int *argi, char *err, size_t errlen)
{
	return opt_walk(set, argc, argv, argi, opt_store_each, base, err,
			errlen);
}

/* Column where an option's text starts, and the width it wraps at. */
#define OPT_HELP_COL 24
#define OPT_HELP_WIDTH 79

/* Writes text to out from column *col, wrapping at word boundaries to
 * OPT_HELP_WIDTH with continuation lines indented to indent. */
static void opt_wrap(FILE *out, const char *text, int *col, int indent)
{
	const char *p = text, *w;
	int n;

	while (*p) {
		while (*p == ' ')
			p++;
		for (w = p; *w && *w != ' '; w++)
			;
		n = (int)(w - p);
		if (!n)
			break;
		if (*col > indent && *col + 1 + n > OPT_HELP_WIDTH) {
			fprintf(out, "\n%*s", indent, "");
			*col = indent;
		} else if (*col > indent) {
			fputc(' ', out);
			(*col)++;
		}
		fprintf(out, "%.*s", n, p);
		*col += n;
		p = w;
	}
}

void opt_usage(const struct optset *set, FILE *out)
{
	const struct opt *o;
	char left[96], tail[256];
	size_t i;
	int col;

	fprintf(out, "usage: benchboot %s %s\n", set->cmd,
		set->synopsis ? set->synopsis : "[options]");
	for (i = 0; i < set->nopts; i++) {
		o = &set->opts[i];
		if (o->key)
			snprintf(left, sizeof(left), "  -%c, --%s%s%s", o->key,
				 o->name, o->arg ? " " : "",
				 o->arg ? o->arg : "");
		else
			snprintf(left, sizeof(left), "      --%s%s%s", o->name,
				 o->arg ? " " : "", o->arg ? o->arg : "");
		fputs(left, out);
		col = (int)strlen(left);
		/* A long name and value: the text on a line of its own. */
		if (col + 1 >= OPT_HELP_COL)
			fprintf(out, "\n%*s", OPT_HELP_COL, "");
		else
			fprintf(out, "%*s", OPT_HELP_COL - col, "");
		col = OPT_HELP_COL;
		opt_wrap(out, o->help ? o->help : "", &col, OPT_HELP_COL);
		tail[0] = 0;
		if (o->values && o->def)
			snprintf(tail, sizeof(tail), "(%s; default %s)",
				 o->values, o->def);
		else if (o->values)
			snprintf(tail, sizeof(tail), "(%s)", o->values);
		else if (o->def)
			snprintf(tail, sizeof(tail), "(default %s)", o->def);
		if (tail[0])
			opt_wrap(out, tail, &col, OPT_HELP_COL);
		fputc('\n', out);
	}
	if (set->notes)
		fputs(set->notes, out);
}

int opt_main(const struct optset *set, void *base, int argc, char **argv,
	     int *argi)
{
	char err[512];
	int rc;

	rc = opt_parse(set, base, argc, argv, argi, err, sizeof(err));
	if (rc == 1) {
		opt_usage(set, stdout);
		return 1;
	}
	if (rc == 0)
		return 0;
	util_err(set->cmd, -rc, "%s", err);
	if (rc == -ENOENT)
		opt_usage(set, stderr);
	return -EINVAL;
}
