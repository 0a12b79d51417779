/* Command-line parsing for the clients: long options (`--name value`,
 * `--name=value`), `-h` for `--help`, `--` to end the options, and positional
 * words in any order between them. Plus the strict number parsers the option
 * values go through. Usage text and which options a command accepts belong to
 * each program, not here.
 */
#ifndef RIG_ARGS_H
#define RIG_ARGS_H

#include <stdbool.h>
#include <stddef.h>

/* One option of a program. The caller owns the array (usually a local in
 * main) and reads value/seen after rig_args_parse. */
struct rig_opt {
	const char *name;  /* long name without the leading "--" */
	bool has_value;    /* takes a value; otherwise it is a flag */
	unsigned scope;    /* program-defined mask of commands it applies to; 0 = all */
	const char *value; /* out: the last value given, borrowed from argv */
	bool seen;         /* out: given at least once */
};

/* Parses argv[1..argc) against opts, storing positional words (borrowed from
 * argv, in order) in out_pos. "-" alone is a positional word (stdin), "-h" is
 * "--help" when opts has a "help" option. Returns 0, or -1 with a one-line
 * message in err (unknown option, missing value, value on a flag, too many
 * words); opts may then be partly filled. */
int rig_args_parse(struct rig_opt *opts, size_t n_opts, int argc, char **argv, const char **out_pos,
		   size_t max_pos, size_t *out_n_pos, char *err, size_t err_size);

/* Parses a whole decimal integer (no sign, at least 1, when positive_only). Returns 0, or -1
 * when s is empty, has trailing text, is out of range or (positive_only) is
 * below 1. *out is unchanged on failure. */
int rig_args_llong(long long *out, const char *s, bool positive_only);

/* Parses a whole finite number (strtod syntax). Returns 0, or -1 when s is
 * empty, has trailing text or is not finite. *out is unchanged on failure. */
int rig_args_double(double *out, const char *s);

#endif
