/* The parsing of args.h: the command line into the rows of a program's table,
 * then each value settled (flag, else variable, else default) and checked
 * against its row. The documents of a table are args_doc.c's.
 */
#include "clients/args.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clients/args_internal.h"

/* The first row named name[0..len), or n. */
static size_t find(const struct rig_arg_spec *specs, size_t n, const char *name, size_t len)
{
	for (size_t i = 0; i < n; i++)
		if (strlen(specs[i].name) == len && memcmp(specs[i].name, name, len) == 0)
			return i;
	return n;
}

static void clear(struct rig_arg *a)
{
	*a = (struct rig_arg){.choice = -1};
}

int rig_args_parse(struct rig_arg *out, const struct rig_arg_spec *specs, size_t n, int argc,
		   char **argv, const char **out_pos, size_t max_pos, size_t *out_n_pos, char *err,
		   size_t err_size)
{
	size_t n_pos = 0;
	bool options_done = false;
	int rc = -1;
	for (size_t i = 0; i < n; i++)
		clear(&out[i]);
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		bool is_option = !options_done && a[0] == '-' && a[1] != '\0';
		if (is_option && strcmp(a, "--") == 0) {
			options_done = true;
			continue;
		}
		if (!is_option) {
			if (n_pos == max_pos) {
				snprintf(err, err_size, "unexpected argument '%s'", a);
				goto out;
			}
			out_pos[n_pos++] = a;
			continue;
		}
		const char *name = strcmp(a, "-h") == 0 ? "help" : a + 2;
		if (a[1] != '-' && strcmp(a, "-h") != 0) {
			snprintf(err, err_size, "unknown option '%s' (options are --long)", a);
			goto out;
		}
		const char *eq = strchr(name, '=');
		size_t len = eq ? (size_t)(eq - name) : strlen(name);
		size_t k = find(specs, n, name, len);
		if (k == n) {
			snprintf(err, err_size, "unknown option '--%.*s'", (int)len, name);
			goto out;
		}
		bool has_value = specs[k].shape != RIG_ARG_FLAG;
		if (!has_value && eq) {
			snprintf(err, err_size, "option '--%s' takes no value", specs[k].name);
			goto out;
		}
		if (has_value && !eq && i + 1 == argc) {
			snprintf(err, err_size, "option '--%s' needs a value", specs[k].name);
			goto out;
		}
		out[k].given = true;
		if (has_value)
			out[k].text = eq ? eq + 1 : argv[++i];
	}
	rc = 0;
out:
	*out_n_pos = n_pos;
	return rc;
}

/* ---- reading values ---- */

/* A whole decimal number, optionally negative, into *out. Returns 0, or -1
 * when s is empty, has other text or is out of long long's range. */
static int read_int(long long *out, const char *s)
{
	if (!(isdigit((unsigned char)s[0]) || (s[0] == '-' && isdigit((unsigned char)s[1]))))
		return -1;
	char *end = NULL;
	errno = 0;
	long long v = strtoll(s, &end, 10);
	if (errno == ERANGE || *end != '\0')
		return -1;
	*out = v;
	return 0;
}

/* A finite number (strtod syntax) into *out. Returns 0 or -1. */
static int read_number(double *out, const char *s)
{
	if (!*s || isspace((unsigned char)s[0]))
		return -1;
	char *end = NULL;
	double v = strtod(s, &end);
	if (*end != '\0' || !isfinite(v))
		return -1;
	*out = v;
	return 0;
}

/* Whether v is word in kebab case: each capital letter of word as '-' and
 * its small letter ("pin-weights" for "pinWeights"). */
static bool kebab_eq(const char *word, const char *v)
{
	for (; *word; word++) {
		if (isupper((unsigned char)*word)) {
			if (*v++ != '-' || *v++ != tolower((unsigned char)*word))
				return false;
		} else if (*v++ != *word) {
			return false;
		}
	}
	return *v == '\0';
}

/* Reads a's value as row o says into a's fields. Returns 0, or -1 with the
 * problem in err, the value named by who ("--ttl", "RIGD_ACTOR"). */
static int read_value(struct rig_arg *a, const struct rig_arg_spec *o, const char *who, char *err,
		      size_t err_size)
{
	const char *v = a->value;
	size_t len = strlen(v);
	char what[160];
	rig_args__what(what, sizeof what, o);
	switch (o->shape) {
	case RIG_ARG_FLAG:
		return 0;
	case RIG_ARG_TEXT:
		if (len >= (size_t)o->min && (o->max == 0 || len <= (size_t)o->max))
			return 0;
		if (o->max == 0) /* then min is 1: see rig_args__what */
			snprintf(err, err_size, "%s must not be empty", who);
		else
			snprintf(err, err_size, "%s must be %s", who, what);
		return -1;
	case RIG_ARG_INT:
		if (read_int(&a->n, v) == 0 && a->n >= o->min && a->n <= o->max)
			return 0;
		break;
	case RIG_ARG_NUMBER:
		if (read_number(&a->x, v) == 0)
			return 0;
		break;
	case RIG_ARG_CHOICE:
		for (int i = 0; o->choices[i]; i++) {
			if (strcmp(o->choices[i], v) == 0 ||
			    (o->kebab && kebab_eq(o->choices[i], v))) {
				a->choice = i;
				return 0;
			}
		}
		break;
	}
	snprintf(err, err_size, "%s '%s' is not %s", who, v, what);
	return -1;
}

bool rig_args__applies(const struct rig_arg_spec *o, rig_arg_cmds cmd)
{
	return o->scope == 0 || (o->scope & cmd) != 0;
}

bool rig_args__required(const struct rig_arg_spec *o, rig_arg_cmds cmd)
{
	return o->required == RIG_ARG_EVERY || (o->required & cmd) != 0;
}

/* The row named like row k for cmd: one whose scope names cmd, else one for
 * every command; n when there is none. */
static size_t row_for(const struct rig_arg_spec *specs, size_t n, size_t k, rig_arg_cmds cmd)
{
	size_t general = n;
	for (size_t i = k; i < n; i++) {
		if (strcmp(specs[i].name, specs[k].name) != 0)
			continue;
		if (specs[i].scope & cmd)
			return i;
		if (specs[i].scope == 0 && general == n)
			general = i;
	}
	return general;
}

int rig_args_resolve(struct rig_arg *vals, const struct rig_arg_spec *specs, size_t n,
		     rig_arg_cmds cmd, const char *label, char *err, size_t err_size)
{
	for (size_t i = 0; i < n; i++) {
		if (!vals[i].given)
			continue;
		size_t k = row_for(specs, n, i, cmd);
		if (k == n) {
			snprintf(err, err_size, "option '--%s' does not apply to '%s'",
				 specs[i].name, label);
			return -1;
		}
		if (k != i) {
			vals[k] = vals[i];
			clear(&vals[i]);
		}
	}
	for (size_t i = 0; i < n; i++) {
		const struct rig_arg_spec *o = &specs[i];
		struct rig_arg *a = &vals[i];
		char who[80];
		if (!rig_args__applies(o, cmd))
			continue;
		if (!a->given && o->env) {
			const char *v = getenv(o->env);
			if (v && *v) {
				a->given = a->from_env = true;
				a->text = v;
			}
		}
		a->value = a->given ? a->text : o->def;
		if (!a->given && rig_args__required(o, cmd)) {
			snprintf(err, err_size, "--%s is required", o->name);
			return -1;
		}
		if (!a->value)
			continue;
		snprintf(who, sizeof who, "%s%s", a->from_env ? "" : "--",
			 a->from_env ? o->env : o->name);
		/* a default its own row refuses fails every run it applies to (the
		 * options-table test passes each documented one as a value) */
		if (read_value(a, o, who, err, err_size) != 0)
			return -1;
	}
	return 0;
}
