/* Unit tests of clients/args.c: reading a command line into a table's rows
 * (long options, values, positional words, -h, --) and settling them for a
 * command (the row of a shared name, does-not-apply, variables, defaults,
 * required options, every shape at and past its bounds). */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "clients/args.h"

enum { CMD_A = 1u << 0, CMD_B = 1u << 1 };

enum { O_URL, O_COUNT_, O_ALL, O_MODE, O_MODE_B, O_RATE, O_NAME, O_NEED, O_HELP, N_ROWS };

static const struct rig_arg_spec rows[N_ROWS] = {
	[O_URL] = {.name = "url",
		   .metavar = "URL",
		   .env = "ARGS_TEST_URL",
		   .def = "http://x",
		   .help = "u"},
	[O_COUNT_] = {.name = "count", .metavar = "N", RIG_ARG_AT_LEAST(1), .help = "c"},
	[O_ALL] = {.name = "all", .shape = RIG_ARG_FLAG, .scope = CMD_A, .help = "a"},
	[O_MODE] = {.name = "mode",
		    .shape = RIG_ARG_CHOICE,
		    .choices = RIG_ARG_CHOICES("x", "y"),
		    .def = "y",
		    .help = "m"},
	[O_MODE_B] = {.name = "mode",
		      .shape = RIG_ARG_CHOICE,
		      .choices = RIG_ARG_CHOICES("p", "q", "r"),
		      .scope = CMD_B,
		      .help = "mb"},
	[O_RATE] = {.name = "rate",
		    .metavar = "R",
		    .shape = RIG_ARG_NUMBER,
		    .def = "1.5",
		    .help = "r"},
	[O_NAME] = {.name = "name",
		    .metavar = "NAME",
		    .min = 1,
		    .max = 4,
		    .env = "ARGS_TEST_NAME",
		    .help = "n"},
	[O_NEED] = {.name = "need",
		    .metavar = "V",
		    .scope = CMD_A | CMD_B,
		    .required = CMD_B,
		    .help = "v"},
	[O_HELP] = {.name = "help", .shape = RIG_ARG_FLAG, .help = "h"},
};

struct parsed {
	struct rig_arg v[N_ROWS];
	const char *pos[4];
	size_t n_pos;
	char err[200];
};

/* Parses argv (NULL-terminated, after the program name) into p. */
static int parse(struct parsed *p, const char *const *words)
{
	char *argv[32] = {"prog"};
	int argc = 1;
	for (; words[argc - 1]; argc++)
		argv[argc] = (char *)words[argc - 1];
	p->err[0] = '\0';
	return rig_args_parse(p->v, rows, N_ROWS, argc, argv, p->pos, 4, &p->n_pos, p->err,
			      sizeof p->err);
}

/* Parses and settles words for cmd. */
static int settle(struct parsed *p, rig_arg_cmds cmd, const char *const *words)
{
	int rc = parse(p, words);
	return rc ? rc : rig_args_resolve(p->v, rows, N_ROWS, cmd, "cmd", p->err, sizeof p->err);
}

#define WORDS(...) ((const char *const[]){__VA_ARGS__, NULL})

/* ---- the command line ---- */

Test(args_parse, reads_both_value_forms_flags_and_words)
{
	struct parsed p;
	cr_assert_eq(parse(&p, WORDS("w1", "--count", "3", "--name=ab", "-", "--all")), 0, "%s",
		     p.err);
	cr_expect_str_eq(p.v[O_COUNT_].text, "3");
	cr_expect_str_eq(p.v[O_NAME].text, "ab");
	cr_expect(p.v[O_ALL].given);
	cr_expect_null(p.v[O_ALL].text);
	cr_assert_eq(p.n_pos, 2);
	cr_expect_str_eq(p.pos[0], "w1");
	cr_expect_str_eq(p.pos[1], "-"); /* stdin */
	cr_expect_not(p.v[O_URL].given);
}

Test(args_parse, keeps_the_last_value_and_ends_options_at_double_dash)
{
	struct parsed p;
	cr_assert_eq(parse(&p, WORDS("--count", "1", "--count", "2", "--", "--all", "-h")), 0);
	cr_expect_str_eq(p.v[O_COUNT_].text, "2");
	cr_expect_not(p.v[O_ALL].given);
	cr_expect_eq(p.n_pos, 2);
}

Test(args_parse, h_is_help)
{
	struct parsed p;
	cr_assert_eq(parse(&p, WORDS("-h")), 0);
	cr_expect(p.v[O_HELP].given);
}

Test(args_parse, a_shared_name_lands_in_its_first_row)
{
	struct parsed p;
	cr_assert_eq(parse(&p, WORDS("--mode", "q")), 0);
	cr_expect(p.v[O_MODE].given);
	cr_expect_not(p.v[O_MODE_B].given);
}

Test(args_parse, refuses_what_is_not_an_option_of_the_table)
{
	const struct {
		const char *const *words;
		const char *err;
	} cases[] = {
		{WORDS("--bogus"), "unknown option '--bogus'"},
		{WORDS("--bogus=1"), "unknown option '--bogus'"},
		{WORDS("-x"), "unknown option '-x' (options are --long)"},
		{WORDS("--all=1"), "option '--all' takes no value"},
		{WORDS("--count"), "option '--count' needs a value"},
		{WORDS("a", "b", "c", "d", "e"), "unexpected argument 'e'"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct parsed p;
		cr_expect_eq(parse(&p, cases[i].words), -1, "case %zu", i);
		cr_expect_str_eq(p.err, cases[i].err);
	}
}

/* ---- settling for a command ---- */

Test(args_resolve, the_command_picks_the_row_of_a_shared_name)
{
	struct parsed p;
	cr_assert_eq(settle(&p, CMD_B, WORDS("--mode", "r", "--need", "v")), 0, "%s", p.err);
	cr_expect(p.v[O_MODE_B].given);
	cr_expect_eq(p.v[O_MODE_B].choice, 2);
	cr_expect_not(p.v[O_MODE].given);
	cr_expect_eq(p.v[O_MODE].choice, 1); /* its default */
	/* another command gets the row for every command */
	cr_assert_eq(settle(&p, CMD_A, WORDS("--mode", "x")), 0, "%s", p.err);
	cr_expect_eq(p.v[O_MODE].choice, 0);
	cr_expect_not(p.v[O_MODE_B].given);
	cr_expect_eq(settle(&p, CMD_A, WORDS("--mode", "r")), -1);
	cr_expect_str_eq(p.err, "--mode 'r' is not x or y");
	cr_expect_eq(settle(&p, CMD_B, WORDS("--need", "v", "--mode", "x")), -1);
	cr_expect_str_eq(p.err, "--mode 'x' is not p, q or r");
}

Test(args_resolve, an_option_of_other_commands_does_not_apply)
{
	struct parsed p;
	cr_expect_eq(settle(&p, CMD_B, WORDS("--need", "v", "--all")), -1);
	cr_expect_str_eq(p.err, "option '--all' does not apply to 'cmd'");
	cr_expect_eq(settle(&p, CMD_A, WORDS("--all")), 0, "%s", p.err);
}

Test(args_resolve, a_default_is_read_but_not_given)
{
	struct parsed p;
	cr_assert_eq(settle(&p, CMD_A, WORDS("x")), 0, "%s", p.err);
	cr_expect_not(p.v[O_RATE].given);
	cr_expect_null(p.v[O_RATE].text);
	cr_expect_str_eq(p.v[O_RATE].value, "1.5");
	cr_expect_float_eq(p.v[O_RATE].x, 1.5, 0);
	cr_expect_str_eq(p.v[O_URL].value, "http://x");
	cr_expect_null(p.v[O_COUNT_].value);
	cr_expect_eq(p.v[O_COUNT_].n, 0);
	cr_expect_eq(p.v[O_MODE_B].choice, -1); /* not for this command */
}

Test(args_resolve, a_variable_stands_for_its_flag)
{
	struct parsed p;
	setenv("ARGS_TEST_URL", "http://env", 1);
	setenv("ARGS_TEST_NAME", "", 1); /* empty: not set */
	cr_assert_eq(settle(&p, CMD_A, WORDS("x")), 0, "%s", p.err);
	cr_expect(p.v[O_URL].given);
	cr_expect(p.v[O_URL].from_env);
	cr_expect_str_eq(p.v[O_URL].text, "http://env");
	cr_expect_not(p.v[O_NAME].given);
	/* the flag wins */
	cr_assert_eq(settle(&p, CMD_A, WORDS("--url", "http://flag")), 0);
	cr_expect_str_eq(p.v[O_URL].value, "http://flag");
	cr_expect_not(p.v[O_URL].from_env);
	/* a bad value is named by its variable */
	setenv("ARGS_TEST_NAME", "abcde", 1);
	cr_expect_eq(settle(&p, CMD_A, WORDS("x")), -1);
	cr_expect_str_eq(p.err, "ARGS_TEST_NAME must be 1 to 4 characters");
	cr_expect_eq(settle(&p, CMD_A, WORDS("--name", "abcd")), 0, "%s", p.err);
	unsetenv("ARGS_TEST_URL");
	unsetenv("ARGS_TEST_NAME");
}

Test(args_resolve, a_required_option_is_required_by_its_commands_only)
{
	struct parsed p;
	cr_expect_eq(settle(&p, CMD_B, WORDS("x")), -1);
	cr_expect_str_eq(p.err, "--need is required");
	cr_expect_eq(settle(&p, CMD_A, WORDS("x")), 0, "%s", p.err);
	cr_expect_eq(settle(&p, CMD_B, WORDS("--need", "")), 0, "%s", p.err); /* given */
}

Test(args_resolve, values_at_and_past_their_bounds)
{
	static const struct {
		const char *flag, *good, *bad, *err;
	} cases[] = {
		{"--count", "1", "0", "--count '0' is not a whole number of at least 1"},
		{"--count", "9223372036854775807", "9223372036854775808", "of at least 1"},
		{"--count", "007", "+7", "is not a whole number"},
		{"--count", "12", "1.0", "is not a whole number"},
		{"--count", "3", "", "--count '' is not"},
		{"--rate", "-2e3", "inf", "--rate 'inf' is not a number"},
		{"--rate", "0x10", "nan", "is not a number"},
		{"--rate", "1", " 1", "is not a number"},
		{"--rate", ".5", "1x", "is not a number"},
		{"--mode", "x", "X", "--mode 'X' is not x or y"},
		{"--name", "a", "", "--name must be 1 to 4 characters"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct parsed p;
		cr_expect_eq(settle(&p, CMD_A, WORDS(cases[i].flag, cases[i].good)), 0, "%s %s: %s",
			     cases[i].flag, cases[i].good, p.err);
		cr_expect_eq(settle(&p, CMD_A, WORDS(cases[i].flag, cases[i].bad)), -1, "%s %s",
			     cases[i].flag, cases[i].bad);
		cr_expect(strstr(p.err, cases[i].err), "%s", p.err);
	}
	struct parsed p;
	cr_assert_eq(settle(&p, CMD_A, WORDS("--count", "-0")), -1);
	cr_assert_eq(settle(&p, CMD_A, WORDS("--count", "42", "--rate", "-0.25")), 0);
	cr_expect_eq(p.v[O_COUNT_].n, 42);
	cr_expect_float_eq(p.v[O_RATE].x, -0.25, 0);
}
