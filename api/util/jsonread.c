/* Field reads of jsonread.h. */
#include "api/util/jsonread.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/ids.h"

static struct rig_err *vfail(const struct rig_jr *jr, const char *key, const char *fmt, va_list ap)
{
	struct rig_err *e = rig_errs_add(jr->errs, jr->code, "%s", "");
	vsnprintf(e->detail, sizeof e->detail, fmt, ap);
	if (key && key[0])
		snprintf(e->pointer, sizeof e->pointer, "%s/%s", jr->base, key);
	else
		snprintf(e->pointer, sizeof e->pointer, "%s", jr->base);
	e->op_index = jr->op_index;
	return e;
}

int rig_jr_fail(const struct rig_jr *jr, const char *key, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vfail(jr, key, fmt, ap);
	va_end(ap);
	return -1;
}

static struct rig_err *fail_entry(const struct rig_jr *jr, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static struct rig_err *fail_entry(const struct rig_jr *jr, const char *key, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	struct rig_err *e = vfail(jr, key, fmt, ap);
	va_end(ap);
	return e;
}

int rig_jr_out_of_memory(const struct rig_jr *jr, const char *key)
{
	struct rig_err *e = rig_errs_add(jr->errs, RIG_MEMORY_BUSY,
					 "the server ran out of memory decoding '%s'", key);
	e->op_index = jr->op_index;
	snprintf(e->pointer, sizeof e->pointer, "%s/%s", jr->base, key);
	return -1;
}

/* Edit distance between a and b (each at most NAME_MAX bytes), counting a
 * swap of neighbours as one edit: the usual typos of a field name. */
#define NAME_MAX_LEN 32
static size_t edit_distance(const char *a, size_t na, const char *b, size_t nb)
{
	size_t d[NAME_MAX_LEN + 1][NAME_MAX_LEN + 1];
	for (size_t i = 0; i <= na; i++)
		d[i][0] = i;
	for (size_t j = 0; j <= nb; j++)
		d[0][j] = j;
	for (size_t i = 1; i <= na; i++) {
		for (size_t j = 1; j <= nb; j++) {
			size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
			size_t best = d[i - 1][j - 1] + cost;
			if (d[i - 1][j] + 1 < best)
				best = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < best)
				best = d[i][j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    d[i - 2][j - 2] + 1 < best)
				best = d[i - 2][j - 2] + 1;
			d[i][j] = best;
		}
	}
	return d[na][nb];
}

/* The allowed name closest to key, or NULL when none is close: at most 2
 * edits, and fewer than half the name's length, so "x" suggests nothing. */
static const char *nearest(const char *key, const char *const *allowed)
{
	size_t nk = strlen(key);
	if (nk > NAME_MAX_LEN)
		return NULL;
	const char *best = NULL;
	size_t best_d = 3;
	for (const char *const *a = allowed; *a; a++) {
		size_t na = strlen(*a);
		if (na > NAME_MAX_LEN)
			continue;
		size_t dist = edit_distance(key, nk, *a, na);
		if (dist < best_d && 2 * dist < na) {
			best = *a;
			best_d = dist;
		}
	}
	return best;
}

int rig_jr_known(const struct rig_jr *jr, json_t *obj, const char *const *allowed)
{
	const char *key;
	json_t *value;
	int rc = 0;
	json_object_foreach(obj, key, value)
	{
		bool ok = false;
		for (const char *const *a = allowed; *a && !ok; a++)
			ok = strcmp(*a, key) == 0;
		if (ok)
			continue;
		const char *near = nearest(key, allowed);
		struct rig_err *e =
			near ? fail_entry(jr, key, "unknown field '%.60s'; did you mean '%s'", key,
					  near)
			     : fail_entry(jr, key, "unknown field '%.60s'", key);
		if (near)
			rig_err_extra(e, "didYouMean", near);
		for (const char *const *a = allowed; *a; a++)
			rig_err_list_add(e, "validFields", *a);
		rc = -1;
	}
	return rc;
}

static json_t *member(const struct rig_jr *jr, json_t *obj, const char *key, bool required, int *rc)
{
	json_t *v = json_object_get(obj, key);
	*rc = 0;
	if (!v && required)
		*rc = rig_jr_fail(jr, key, "field '%s' is required", key);
	return v;
}

int rig_jr_string(const struct rig_jr *jr, json_t *obj, const char *key, bool required,
		  size_t max_bytes, const char **out)
{
	int rc;
	json_t *v = member(jr, obj, key, required, &rc);
	if (!v)
		return rc;
	if (!json_is_string(v))
		return rig_jr_fail(jr, key, "field '%s' must be a string", key);
	size_t len = json_string_length(v);
	if (len < 1 || len > max_bytes)
		return rig_jr_fail(jr, key, "field '%s' must be 1 to %zu bytes long", key,
				   max_bytes);
	if (memchr(json_string_value(v), '\0', len))
		return rig_jr_fail(jr, key, "field '%s' must not contain NUL characters", key);
	*out = json_string_value(v);
	return 0;
}

int rig_jr_id(const struct rig_jr *jr, json_t *obj, const char *key, bool required, bool nullable,
	      char *out, bool *is_null)
{
	int rc;
	json_t *v = member(jr, obj, key, required, &rc);
	if (is_null)
		*is_null = false;
	if (!v)
		return rc;
	if (json_is_null(v) && nullable) {
		*is_null = true;
		return 0;
	}
	if (!json_is_string(v) || !rig_id_is_valid_n(json_string_value(v), json_string_length(v)))
		return rig_jr_fail(jr, key,
				   "field '%s' must be an id of 1-64 characters [A-Za-z0-9_.:-]"
				   " other than '.' and '..'%s",
				   key, nullable ? " or null" : "");
	memcpy(out, json_string_value(v), json_string_length(v) + 1);
	return 0;
}

int rig_jr_number(const struct rig_jr *jr, json_t *obj, const char *key, bool required, double *out,
		  bool *present)
{
	int rc;
	json_t *v = member(jr, obj, key, required, &rc);
	if (present)
		*present = v != NULL;
	if (!v)
		return rc;
	if (!json_is_number(v) || !isfinite(json_number_value(v)))
		return rig_jr_fail(jr, key, "field '%s' must be a finite number", key);
	*out = json_number_value(v);
	return 0;
}

int rig_jr_bool(const struct rig_jr *jr, json_t *obj, const char *key, bool required, bool *out)
{
	int rc;
	json_t *v = member(jr, obj, key, required, &rc);
	if (!v)
		return rc;
	if (!json_is_boolean(v))
		return rig_jr_fail(jr, key, "field '%s' must be true or false", key);
	*out = json_is_true(v);
	return 0;
}

int rig_jr_int(const struct rig_jr *jr, json_t *obj, const char *key, bool required, long long min,
	       long long max, long long *out, bool *present)
{
	int rc;
	json_t *v = member(jr, obj, key, required, &rc);
	if (present)
		*present = v != NULL;
	if (!v)
		return rc;
	return rig_jr_index(jr, v, key, min, max, out);
}

int rig_jr_index(const struct rig_jr *jr, json_t *value, const char *key, long long min,
		 long long max, long long *out)
{
	long long n;
	if (json_is_integer(value)) {
		n = json_integer_value(value);
	} else if (json_is_real(value)) {
		double d = json_real_value(value);
		if (!(d >= -9.2e18 && d <= 9.2e18) || d != floor(d))
			goto fail;
		n = (long long)d;
	} else {
		goto fail;
	}
	if (n < min || n > max)
		goto fail;
	*out = n;
	return 0;
fail:
	return rig_jr_fail(jr, key, "field '%s' must be an integer in [%lld, %lld]", key, min, max);
}
