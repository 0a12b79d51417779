/* The bounded error list of err.h. */
#include "core/err.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void rig_strlcpy(char *dst, const char *src, size_t size)
{
	if (size == 0)
		return;
	size_t n = strlen(src);
	if (n >= size)
		n = size - 1;
	memcpy(dst, src, n);
	dst[n] = '\0';
}

void rig_errs_init(struct rig_errs *errs)
{
	errs->count = 0;
	errs->total = 0;
}

struct rig_errs *rig_errs_new(void)
{
	/* malloc, not calloc: rig_errs_add clears each entry it hands out, so
	 * zeroing 144 KiB per request would be wasted. */
	struct rig_errs *errs = malloc(sizeof *errs);
	if (errs)
		rig_errs_init(errs);
	return errs;
}

void rig_errs_free(struct rig_errs *errs)
{
	free(errs);
}

static void clear_entry(struct rig_err *e, enum rig_code code)
{
	e->code = code;
	e->detail[0] = '\0';
	e->pointer[0] = '\0';
	e->op_index = RIG_NO_INDEX;
	e->vertex_index = RIG_NO_INDEX;
	e->triangle_index = RIG_NO_INDEX;
	e->joint_index = RIG_NO_INDEX;
	e->influence_index = RIG_NO_INDEX;
	e->joint_id[0] = '\0';
	e->layer_id[0] = '\0';
	e->has_frame = false;
	e->frame = 0;
	e->lock_id[0] = '\0';
	e->owner[0] = '\0';
	e->expires_ms = 0;
	e->n_extra = 0;
	e->list.name[0] = '\0';
	e->list.used = 0;
	e->list.n = 0;
}

void rig_err_extra(struct rig_err *e, const char *name, const char *value)
{
	if (e->n_extra >= RIG_ERR_EXTRAS)
		return;
	rig_strlcpy(e->extra[e->n_extra].name, name, sizeof e->extra[e->n_extra].name);
	rig_strlcpy(e->extra[e->n_extra].value, value, sizeof e->extra[e->n_extra].value);
	e->extra[e->n_extra].is_number = false;
	e->n_extra++;
}

void rig_err_extra_number(struct rig_err *e, const char *name, double value)
{
	if (e->n_extra >= RIG_ERR_EXTRAS || !isfinite(value))
		return;
	struct rig_err_extra *x = &e->extra[e->n_extra++];
	rig_strlcpy(x->name, name, sizeof x->name);
	x->value[0] = '\0';
	x->number = value;
	x->is_number = true;
}

bool rig_err_list_add(struct rig_err *e, const char *name, const char *item)
{
	struct rig_err_list *l = &e->list;
	if (l->name[0] == '\0')
		rig_strlcpy(l->name, name, sizeof l->name);
	else if (strcmp(l->name, name) != 0)
		return false;
	size_t len = strlen(item) + 1;
	if (l->n >= RIG_ERR_LIST_ITEMS || len > sizeof l->items - l->used)
		return false;
	memcpy(l->items + l->used, item, len);
	l->used += len;
	l->n++;
	return true;
}

struct rig_err *rig_errs_add(struct rig_errs *errs, enum rig_code code, const char *fmt, ...)
{
	/* Past the kept entries a violation is written to the scratch entry, which
	 * nobody reads: the list stays the first ones found. */
	struct rig_err *e =
		errs->count < RIG_ERRS_KEEP ? &errs->items[errs->count++] : &errs->overflow;
	errs->total++;
	clear_entry(e, code);
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(e->detail, sizeof e->detail, fmt, ap);
	va_end(ap);
	return e;
}

void rig_errs_append(struct rig_errs *dst, const struct rig_errs *src)
{
	for (size_t i = 0; i < src->count && dst->count < RIG_ERRS_KEEP; i++)
		dst->items[dst->count++] = src->items[i];
	dst->total += src->total;
}

void rig_errs_scope(struct rig_errs *errs, size_t from, long op_index, const char *prefix)
{
	for (size_t i = from; i < errs->count; i++) {
		struct rig_err *e = &errs->items[i];
		if (e->op_index == RIG_NO_INDEX)
			e->op_index = op_index;
		char joined[RIG_ERR_POINTER_MAX];
		snprintf(joined, sizeof joined, "%s%s", prefix, e->pointer);
		rig_strlcpy(e->pointer, joined, sizeof e->pointer);
	}
}
