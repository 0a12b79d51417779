/* The option parser and number parsers of args.h. */
#include "clients/args.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct rig_opt *find(struct rig_opt *opts, size_t n_opts, const char *name, size_t len)
{
	for (size_t i = 0; i < n_opts; i++)
		if (strlen(opts[i].name) == len && memcmp(opts[i].name, name, len) == 0)
			return &opts[i];
	return NULL;
}

int rig_args_parse(struct rig_opt *opts, size_t n_opts, int argc, char **argv, const char **out_pos,
		   size_t max_pos, size_t *out_n_pos, char *err, size_t err_size)
{
	size_t n_pos = 0;
	bool options_done = false;
	int rc = -1;
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
		struct rig_opt *o = find(opts, n_opts, name, len);
		if (!o) {
			snprintf(err, err_size, "unknown option '--%.*s'", (int)len, name);
			goto out;
		}
		if (!o->has_value && eq) {
			snprintf(err, err_size, "option '--%s' takes no value", o->name);
			goto out;
		}
		if (o->has_value && !eq && i + 1 == argc) {
			snprintf(err, err_size, "option '--%s' needs a value", o->name);
			goto out;
		}
		o->seen = true;
		if (o->has_value)
			o->value = eq ? eq + 1 : argv[++i];
	}
	rc = 0;
out:
	*out_n_pos = n_pos;
	return rc;
}

int rig_args_llong(long long *out, const char *s, bool positive_only)
{
	if (!s || !(isdigit((unsigned char)s[0]) || (!positive_only && s[0] == '-')))
		return -1;
	char *end = NULL;
	errno = 0;
	long long v = strtoll(s, &end, 10);
	if (errno == ERANGE || *end != '\0' || (positive_only && v < 1))
		return -1;
	*out = v;
	return 0;
}

int rig_args_double(double *out, const char *s)
{
	if (!s || !*s || isspace((unsigned char)s[0]))
		return -1;
	char *end = NULL;
	double v = strtod(s, &end);
	if (*end != '\0' || !isfinite(v))
		return -1;
	*out = v;
	return 0;
}
