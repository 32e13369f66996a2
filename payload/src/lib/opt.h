/* lib/opt.h: one option table and parser for every command.  A command
 * declares each option once, as an entry of a static const table of
 * struct opt: its name, where it goes (an offset into the command's own
 * config struct), its bounds, its --help line (value, text, default,
 * allowed values) and whether a controller may send it to an agent.  It
 * parses with opt_parse(); --help is generated from the table
 * (opt_usage()); the agent's policy resolves a controller's argv with the
 * very same table through opt_walk() (agent/policy.h). */
#ifndef BB_OPT_H
#define BB_OPT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum opt_kind {
	OPT_FLAG,	/* int at off = val; takes no value */
	OPT_UINT,	/* unsigned at off: integer in [min, max] */
	OPT_U64,	/* uint64_t at off: integer in [min, max] */
	OPT_DUR,	/* uint64_t at off: duration in ns ("10s", "500ms"),
			 * in [min, max] (max 0: no upper bound) */
	OPT_RATE,	/* double at off: a number > 0 and <= max */
	OPT_STR,	/* const char * at off: the value as given */
	OPT_FN,		/* fn(base + off, value, err, errlen) */
	OPT_FN0,	/* fn(base + off, NULL, err, errlen); no value */
};

/* Where an option stores: an offset into the config struct the command
 * passes as opt_parse()'s base (fio's way), so that a table is static
 * const data other modules can read without a config of their own. */
#define OPT_AT(type, member) offsetof(type, member)
/* opt.seen: the int member set to 1 when the option is given. */
#define OPT_SEEN(type, member) (offsetof(type, member) + 1)

struct opt {
	const char *name;	/* long name, without "--" */
	int key;		/* short letter, 0: long only */
	enum opt_kind kind;
	size_t off;		/* OPT_AT(): the destination in base */
	uint64_t min, max;
	int val;		/* OPT_FLAG: what the int becomes */
	/* A bad value's message: a printf format given two strings, the
	 * value and the argument as typed (either may go unused).  NULL:
	 * the set's. */
	const char *bad;
	/* OPT_FN, OPT_FN0: 0, or a negative errno with the message in err
	 * (an empty err: the bad-value message is used).  dst is base +
	 * off. */
	int (*fn)(void *dst, const char *value, char *err, size_t errlen);
	size_t seen;		/* OPT_SEEN(), 0: none */
	/* What the option reads or writes on this host ("reads a local
	 * file"), NULL when nothing: the reason an agent gives when it
	 * refuses the option from a controller (docs/security.md). */
	const char *local;
	/* Its --help line: what the value is called ("N", "DUR"; NULL for
	 * an option without one), what the option does, its default as a
	 * user would write it (NULL: none to say), and its allowed values
	 * when they are a short list ("GET|HEAD"; NULL otherwise). */
	const char *arg, *help, *def, *values;
	/* 1: a controller may send it to an agent running the command as a
	 * workload; the agent refuses every other option (agent/policy.h). */
	int remote;
};

/* A command's whole option set. */
struct optset {
	const char *cmd;		/* "http": messages' prefix */
	const struct opt *opts;
	size_t nopts;			/* at most OPT_MAX */
	const char *bad;		/* default bad-value format */
	/* --help: what follows "usage: benchboot CMD " (the options in
	 * short, the operands), and what follows the options' lines (NULL:
	 * nothing), both as printed. */
	const char *synopsis, *notes;
};

#define OPT_MAX 32

/* The set of a table (an array, not a pointer) without a default
 * bad-value message. */
#define OPTSET(cmd, tab, synopsis, notes) \
	{ (cmd), (tab), sizeof(tab) / sizeof((tab)[0]), NULL, (synopsis), \
	  (notes) }

/* The --help text of set to out: the usage line, a line per option
 * (letter, name, value, its text, allowed values and default), wrapped
 * at 79 columns, then the notes. */
void opt_usage(const struct optset *set, FILE *out);

/* Called by opt_walk() for each option given, in the order given: o its
 * table entry, value its value (NULL for a flag), arg the last argument
 * getopt read ("--rate=5", "-jr", or the value when given apart).  Returns 0 to go on, or a negative
 * errno that ends the walk, with a message in err (an empty err: o's
 * bad-value message with value and arg). */
typedef int (*opt_each_fn)(const struct opt *o, const char *value,
			   const char *arg, void *ctx, char *err,
			   size_t errlen);

/* Resolves argv[1..argc) against set exactly as the command does, with
 * getopt_long (long names, any unique prefix of one, --opt=value, short
 * letters, bundled short letters, "--" ending the options, operands
 * anywhere) and calls each for every option given; -h/--help is always
 * there.  Returns 0 with *argi the index of the first operand (getopt
 * moves the operands to argv[*argi..argc), so argv's pointers are
 * permuted); 1 when -h/--help was given (the walk stops there); -ENOENT
 * for an unknown, ambiguous or valueless option; each's error; all with a
 * message in err (errlen bytes).  Uses getopt's globals: one walk at a
 * time in a process. */
int opt_walk(const struct optset *set, int argc, char **argv, int *argi,
	     opt_each_fn each, void *ctx, char *err, size_t errlen);

/* opt_walk() storing each value at base + its entry's off: 0 with *argi
 * the first operand, 1 after -h/--help, -EINVAL for a bad value, -ENOENT
 * for an unknown option or a missing value, with the message in err.
 * Writes only into base. */
int opt_parse(const struct optset *set, void *base, int argc, char **argv,
	      int *argi, char *err, size_t errlen);

/* opt_parse() and what every command does with its outcome: the usage on
 * stdout for --help, the message on stderr for bad input (and the usage
 * after it for an unknown option).  Returns 0 to go on, 1 when the command
 * should exit 0 (help given), -EINVAL when it should exit 2 (usage
 * error). */
int opt_main(const struct optset *set, void *base, int argc, char **argv,
	     int *argi);

#endif
