/* Unit tests of clients/args_doc.c: a table's --help lines (the rows of a
 * page's commands, their limits, shapes, variables, defaults and what is
 * required, wrapped at 80 columns) and its markdown table. */
#define _GNU_SOURCE /* open_memstream */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clients/args.h"

enum { CMD_A = 1u << 0, CMD_B = 1u << 1 };

static const struct rig_arg_spec rows[] = {
	{.name = "url",
	 .metavar = "URL",
	 .env = "X_URL",
	 .def = "http://x",
	 .help = "the `server`"},
	{.name = "mode",
	 .shape = RIG_ARG_CHOICE,
	 .choices = RIG_ARG_CHOICES("x", "y"),
	 .def_doc = "`x` on a terminal",
	 .help = "how | it prints"},
	{.name = "count",
	 .metavar = "N",
	 RIG_ARG_AT_LEAST(1),
	 .scope = CMD_A | CMD_B,
	 .required = CMD_B,
	 .help = "a long help text that goes on and on, so that it has to wrap onto the next "
		 "line of the terminal at least once, maybe twice"},
	{.name = "all", .shape = RIG_ARG_FLAG, .scope = CMD_A, .help = "every page"},
};

static void names(char *out, size_t size, rig_arg_cmds scope)
{
	snprintf(out, size, "%s%s%s", scope & CMD_A ? "a" : "", scope == (CMD_A | CMD_B) ? "/" : "",
		 scope & CMD_B ? "b" : "");
}

static const struct rig_args_doc doc = {rows, sizeof rows / sizeof rows[0], names};

/* What print prints for scope, in a new string (free it). */
static char *printed(void (*print)(FILE *, const struct rig_args_doc *, rig_arg_cmds),
		     rig_arg_cmds scope)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	cr_assert_not_null(f);
	print(f, &doc, scope);
	fclose(f);
	return text;
}

static void markdown(FILE *f, const struct rig_args_doc *d, rig_arg_cmds scope)
{
	(void)scope;
	rig_args_print_markdown(f, d);
}

Test(args_doc, help_lists_the_rows_of_the_page)
{
	char *every = printed(rig_args_print_help, 0);
	cr_expect_str_eq(every,
			 "  --url URL             the server ($X_URL; default: http://x)\n"
			 "  --mode x|y            how | it prints (default: x on a terminal)\n");
	free(every);
	char *b = printed(rig_args_print_help, CMD_B);
	cr_expect(strstr(b, "--count N") && !strstr(b, "--all"), "%s", b);
	cr_expect(strstr(b, "(required; a whole number of at least 1)"), "%s", b);
	free(b);
	char *both = printed(rig_args_print_help, CMD_A | CMD_B);
	cr_expect(strstr(both, "(required by b; a whole"), "%s", both);
	cr_expect(strstr(both, "  --all                 every page (a only)\n"), "%s", both);
	for (char *line = both; *line;) {
		size_t len = strcspn(line, "\n");
		cr_expect_leq(len, 80, "%.*s", (int)len, line);
		cr_expect(len == 0 || strncmp(line, "  --", 4) == 0 || strspn(line, " ") == 24,
			  "%.*s", (int)len, line);
		line += len + (line[len] == '\n');
	}
	free(both);
}

Test(args_doc, markdown_has_a_row_per_option)
{
	char *md = printed(markdown, 0);
	cr_expect_str_eq(
		md,
		"| flag | env | default | commands | meaning |\n"
		"| --- | --- | --- | --- | --- |\n"
		"| `--url URL` | `X_URL` | `http://x` | every command | the `server` |\n"
		"| `--mode x\\|y` | — | `x` on a terminal | every command | how \\| it prints |\n"
		"| `--count N` | — | none | a/b | a long help text that goes on and on, so that "
		"it has to wrap onto the next line of the terminal at least once, maybe twice "
		"(required by b; a whole number of at least 1) |\n"
		"| `--all` | — | off | a | every page |\n");
	free(md);
}
