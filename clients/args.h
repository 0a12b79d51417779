/* Command-line options of the clients, read from one table per program: each
 * row (struct rig_arg_spec) is an option's name, the shape of its value with
 * its bounds, the environment variable read in its place, its default, the
 * commands it applies to and its help. From the rows come the parsing
 * (args.c: long options `--name value`, `--name=value`, `-h` for `--help`,
 * `--` to end the options, positional words in any order between them; each
 * value checked against its row) and the documents (args_doc.c: the options
 * part of `--help` and the markdown table of clients/README.md). The tables,
 * and which command a command line names, are each program's.
 */
#ifndef RIG_ARGS_H
#define RIG_ARGS_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* What an option's value looks like. */
enum rig_arg_shape {
	RIG_ARG_TEXT,   /* any string, of min to max bytes when max is not 0 */
	RIG_ARG_FLAG,   /* no value: given or not */
	RIG_ARG_INT,    /* a whole decimal number in [min, max] */
	RIG_ARG_NUMBER, /* a finite number (strtod syntax) */
	RIG_ARG_CHOICE, /* one of the words of choices */
};

/* A set of a program's commands, one bit each (rigctl has more than 32). */
typedef unsigned long long rig_arg_cmds;

/* A row's .required when every command it applies to needs it. */
#define RIG_ARG_EVERY (~0ull)

/* The shape of an INT row taking a whole number of at least lo. */
#define RIG_ARG_AT_LEAST(lo) .shape = RIG_ARG_INT, .min = (lo), .max = LLONG_MAX

/* The words of a RIG_ARG_CHOICE row, as its .choices. */
#define RIG_ARG_CHOICES(...) ((const char *const[]){__VA_ARGS__, NULL})

/* One option of a program: a row of its table, which the program owns
 * (static const). Zero is the default of every field but name and help. */
struct rig_arg_spec {
	const char *name; /* the flag without "--" */
	const char
		*metavar; /* what the value looks like in --help ("ID"); a choice shows its words */
	enum rig_arg_shape shape;
	long long min, max;         /* INT: the bounds; TEXT: the length in bytes (max 0: any) */
	const char *what;           /* INT, NUMBER: what a bad value is not ("a version number");
				     * NULL: said from the shape and the bounds */
	const char *const *choices; /* CHOICE: the words, NULL-terminated (RIG_ARG_CHOICES) */
	bool kebab;      /* CHOICE: a camelCase word is also taken in kebab case ("pinWeights" as
			  * "pin-weights"), the spelling the documents show */
	const char *env; /* read when the flag is not given (empty counts as not set), or NULL */
	const char *def; /* the value when neither is given, read as a given one; or NULL */
	const char *def_doc;   /* the default as documented, when def does not say it (markdown) */
	rig_arg_cmds scope;    /* the program's commands it applies to, as bits; 0: every one */
	rig_arg_cmds required; /* the commands that need it, as bits; RIG_ARG_EVERY: all it
				* applies to */
	const char *help;      /* what it does, markdown (`code` shows plain in --help) */
};

/* One option's value, the row's of the same index; the caller owns the array. */
struct rig_arg {
	bool given;        /* on the command line, or (env) in the environment */
	bool from_env;     /* given by the row's env variable */
	const char *text;  /* the value given, borrowed from argv or the environment; NULL: none */
	const char *value; /* text, else the row's default; NULL when neither */
	long long n;       /* INT: value, read */
	double x;          /* NUMBER: value, read */
	int choice;        /* CHOICE: value's index among the choices (the word as the row
			    * spells it, whichever spelling was given); -1 without a value */
};

/* Reads argv[1..argc) against the n rows of specs into out (n entries),
 * storing positional words (borrowed from argv, in order) in out_pos. "-"
 * alone is a positional word (stdin), "-h" is "--help" when specs has a
 * "help" row. A flag is kept in the first row of its name (see
 * rig_args_resolve); values are not checked yet. Returns 0, or -1 with a
 * one-line message in err (unknown option, missing value, value on a flag, too
 * many words); out may then be partly filled. */
int rig_args_parse(struct rig_arg *out, const struct rig_arg_spec *specs, size_t n, int argc,
		   char **argv, const char **out_pos, size_t max_pos, size_t *out_n_pos, char *err,
		   size_t err_size);

/* Settles vals (filled by rig_args_parse) for the command bit cmd (0 for a
 * program without commands), named label in messages: moves each flag given
 * to the row of its name whose scope names cmd, else to one for every command
 * (so two rows may share a name with different meanings); reads each
 * applicable row's env variable when its flag was not given, else its
 * default; and checks and reads every value against its row. Returns 0, or
 * -1 with a one-line message in err (an option that does not apply to cmd, a
 * required one missing, a value out of its shape or bounds, naming the flag or
 * the variable). */
int rig_args_resolve(struct rig_arg *vals, const struct rig_arg_spec *specs, size_t n,
		     rig_arg_cmds cmd, const char *label, char *err, size_t err_size);

/* How a program's table is described. */
struct rig_args_doc {
	const struct rig_arg_spec *specs;
	size_t n;
	/* Writes the names of the commands of scope (not 0) into out ("edit,
	 * plan apply"); NULL for a program without commands. */
	void (*scope_text)(char *out, size_t size, rig_arg_cmds scope);
};

/* Prints the --help lines of the rows for the commands of scope: for scope 0
 * the rows for every command, else those whose scope shares a bit with it,
 * each followed by the commands it is limited to when they are not all of
 * scope's. Each line is "  --name VALUE" and the help, the value's shape, its
 * variable and its default, wrapped at 80 columns. */
void rig_args_print_help(FILE *f, const struct rig_args_doc *doc, rig_arg_cmds scope);

/* Prints the options table of clients/README.md: flag, env, default,
 * commands (when doc has scope_text) and meaning, a row per option in table
 * order. */
void rig_args_print_markdown(FILE *f, const struct rig_args_doc *doc);

#endif
