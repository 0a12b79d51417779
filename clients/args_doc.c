/* The documents of args.h's tables: the options part of a client's --help
 * and the markdown table of clients/README.md, both from the rows alone. The
 * parsing is args.c's.
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "clients/args.h"
#include "clients/args_internal.h"

#define HELP_WIDTH 80
#define HELP_INDENT 24

void rig_args__what(char *out, size_t size, const struct rig_arg_spec *o)
{
	size_t len = 0;
	out[0] = '\0';
	switch (o->shape) {
	case RIG_ARG_FLAG:
		break;
	case RIG_ARG_TEXT:
		if (o->max)
			snprintf(out, size, "%lld to %lld characters", o->min, o->max);
		else if (o->min)
			snprintf(out, size, "not empty");
		break;
	case RIG_ARG_INT:
		if (o->what)
			snprintf(out, size, "%s", o->what);
		else if (o->min == LLONG_MIN && o->max == LLONG_MAX)
			snprintf(out, size, "a whole number");
		else if (o->max == LLONG_MAX)
			snprintf(out, size, "a whole number of at least %lld", o->min);
		else
			snprintf(out, size, "a whole number from %lld to %lld", o->min, o->max);
		break;
	case RIG_ARG_NUMBER:
		snprintf(out, size, "%s", o->what ? o->what : "a number");
		break;
	case RIG_ARG_CHOICE:
		for (size_t i = 0; o->choices[i] && len < size; i++) {
			const char *sep = i == 0 ? "" : o->choices[i + 1] ? ", " : " or ";
			char word[64];
			rig_args__choice(word, sizeof word, o, o->choices[i]);
			len += (size_t)snprintf(out + len, size - len, "%s%s", sep, word);
		}
		break;
	}
}

void rig_args__choice(char *out, size_t size, const struct rig_arg_spec *o, const char *word)
{
	size_t k = 0;
	for (; *word && k + 2 < size; word++) {
		if (o->kebab && isupper((unsigned char)*word)) {
			out[k++] = '-';
			out[k++] = (char)tolower((unsigned char)*word);
		} else {
			out[k++] = *word;
		}
	}
	out[k] = '\0';
}

/* Row o's value as --help and the table show it: its metavar, a choice's
 * words joined by '|', nothing for a flag. */
static void metavar(char *out, size_t size, const struct rig_arg_spec *o)
{
	size_t len = 0;
	out[0] = '\0';
	if (o->shape == RIG_ARG_CHOICE && !o->metavar) {
		for (size_t i = 0; o->choices[i] && len < size; i++) {
			char word[64];
			rig_args__choice(word, sizeof word, o, o->choices[i]);
			len += (size_t)snprintf(out + len, size - len, "%s%s", i ? "|" : "", word);
		}
	} else if (o->metavar) {
		snprintf(out, size, "%s", o->metavar);
	}
}

/* Row o's default as the table documents it (markdown). */
static void def_doc(char *out, size_t size, const struct rig_arg_spec *o)
{
	if (o->def_doc)
		snprintf(out, size, "%s", o->def_doc);
	else if (o->def)
		snprintf(out, size, "`%s`", o->def);
	else
		snprintf(out, size, "%s", o->shape == RIG_ARG_FLAG ? "off" : "none");
}

/* Copies text without its backquotes (markdown's code marks). */
static void plain(char *out, size_t size, const char *text)
{
	size_t k = 0;
	for (; *text && k + 1 < size; text++)
		if (*text != '`')
			out[k++] = *text;
	out[k] = '\0';
}

/* Writes words to f, wrapped at HELP_WIDTH with every line but the first
 * indented by `indent` spaces; `col` is where the first starts. */
static void wrap(FILE *f, const char *words, size_t col, size_t indent)
{
	for (const char *p = words; *p;) {
		size_t len = strcspn(p, " ");
		if (col > indent && col + 1 + len > HELP_WIDTH) {
			fprintf(f, "\n%*s", (int)indent, "");
			col = indent;
		} else if (col > indent) {
			fputc(' ', f);
			col++;
		}
		fwrite(p, 1, len, f);
		col += len;
		p += len;
		while (*p == ' ')
			p++;
	}
	fputc('\n', f);
}

/* Writes whether row o is required among the commands of within (0: all)
 * into out: "required", "required by edit, frames" or "". */
static void required_note(char *out, size_t size, const struct rig_args_doc *doc,
			  const struct rig_arg_spec *o, rig_arg_cmds within)
{
	rig_arg_cmds applies = (o->scope ? o->scope : ~0ull) & (within ? within : ~0ull);
	rig_arg_cmds req = o->required == RIG_ARG_EVERY ? applies : o->required & applies;
	size_t len = 0;
	out[0] = '\0';
	if (!req)
		return;
	len = (size_t)snprintf(out, size, "required");
	if (req != applies && doc->scope_text && len + 4 < size) {
		snprintf(out + len, size - len, " by ");
		doc->scope_text(out + len + 4, size - len - 4, req);
	}
}

/* Appends "; "-separated part to the note in out. */
static void add_note(char *out, size_t size, const char *part)
{
	size_t len = strlen(out);
	if (part[0] && len < size)
		snprintf(out + len, size - len, "%s%s", len ? "; " : "", part);
}

/* Prints the --help line of row o, limited to the commands `limit` (0: no
 * note of commands). */
static void print_row(FILE *f, const struct rig_args_doc *doc, const struct rig_arg_spec *o,
		      rig_arg_cmds scope, rig_arg_cmds limit)
{
	char value[160], head[200], note[400] = "", part[240], text[1400];
	metavar(value, sizeof value, o);
	int col = snprintf(head, sizeof head, "  --%s%s%s", o->name, value[0] ? " " : "", value);
	if (limit && doc->scope_text) {
		char names[200];
		doc->scope_text(names, sizeof names, limit);
		snprintf(part, sizeof part, "%s only", names);
		add_note(note, sizeof note, part);
	}
	required_note(part, sizeof part, doc, o, scope);
	add_note(note, sizeof note, part);
	if (o->shape == RIG_ARG_INT || o->shape == RIG_ARG_TEXT) {
		rig_args__what(part, sizeof part, o);
		add_note(note, sizeof note, part);
	}
	if (o->env) {
		snprintf(part, sizeof part, "$%s", o->env);
		add_note(note, sizeof note, part);
	}
	if (o->def || o->def_doc) {
		char def[200];
		def_doc(def, sizeof def, o);
		plain(part, sizeof part, def);
		snprintf(def, sizeof def, "default: %s", part);
		add_note(note, sizeof note, def);
	}
	plain(text, sizeof text, o->help);
	if (note[0]) {
		size_t len = strlen(text);
		snprintf(text + len, sizeof text - len, " (%s)", note);
	}
	fputs(head, f);
	if (col + 1 >= HELP_INDENT) {
		fprintf(f, "\n%*s", HELP_INDENT, "");
		col = HELP_INDENT;
	} else {
		fprintf(f, "%*s", HELP_INDENT - col, "");
	}
	wrap(f, text, HELP_INDENT, HELP_INDENT);
}

void rig_args_print_help(FILE *f, const struct rig_args_doc *doc, rig_arg_cmds scope)
{
	for (size_t i = 0; i < doc->n; i++) {
		const struct rig_arg_spec *o = &doc->specs[i];
		if (scope == 0 ? o->scope != 0 : (o->scope & scope) == 0)
			continue;
		rig_arg_cmds limit = (o->scope & scope) == scope ? 0 : o->scope & scope;
		print_row(f, doc, o, scope, limit);
	}
}

/* Prints s with each '|' escaped, as a markdown table cell needs. */
static void cell(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '|')
			fputc('\\', f);
		fputc(*s, f);
	}
}

void rig_args_print_markdown(FILE *f, const struct rig_args_doc *doc)
{
	bool commands = doc->scope_text != NULL;
	fprintf(f, "| flag | env | default |%s meaning |\n| --- | --- | --- |%s --- |\n",
		commands ? " commands |" : "", commands ? " --- |" : "");
	for (size_t i = 0; i < doc->n; i++) {
		const struct rig_arg_spec *o = &doc->specs[i];
		char value[160], def[200], what[160], names[400], note[500];
		metavar(value, sizeof value, o);
		def_doc(def, sizeof def, o);
		fprintf(f, "| `--%s%s", o->name, value[0] ? " " : "");
		cell(f, value);
		fputs("` | ", f);
		if (o->env)
			fprintf(f, "`%s`", o->env);
		else
			fputs("—", f);
		fprintf(f, " | %s | ", def);
		if (commands) {
			if (o->scope)
				doc->scope_text(names, sizeof names, o->scope);
			else
				snprintf(names, sizeof names, "every command");
			fprintf(f, "%s | ", names);
		}
		cell(f, o->help);
		required_note(note, sizeof note, doc, o, 0);
		if (o->shape == RIG_ARG_INT || o->shape == RIG_ARG_TEXT) {
			rig_args__what(what, sizeof what, o);
			add_note(note, sizeof note, what);
		}
		if (note[0])
			fprintf(f, " (%s)", note);
		fputs(" |\n", f);
	}
}
