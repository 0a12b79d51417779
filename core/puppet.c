/* The puppet definition (puppet.h): pins and their channels, edits of pins
 * and keys, the anchoring rule and the definition's checks. The rest mesh's
 * rules are core/mesh.c's and the key rules core/keys.c's; this file adds the
 * pins'. The evaluator is puppet_eval.c, the math puppet_weights.c and
 * puppet_solve.c.
 */
#include "core/puppet.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/ids.h"
#include "core/mesh.h"
#include "core/rig_limits.h"

/* ------------------------------------------------------------------------ */
/* Names                                                                     */
/* ------------------------------------------------------------------------ */

/* The one table of pin channels: wire name, and the range its values keep
 * (the statics' rules and the keys' alike). */
enum value_rule { ANY_FINITE, NOT_NEGATIVE, POSITIVE, OVERLAP_RANGE };

static const struct {
	const char *name;
	enum value_rule rule;
} channels[RIG_PIN_CH_COUNT] = {
	[RIG_PIN_CH_POSITION_X] = {"position.x", ANY_FINITE},
	[RIG_PIN_CH_POSITION_Y] = {"position.y", ANY_FINITE},
	[RIG_PIN_CH_ROTATION] = {"rotation", ANY_FINITE},
	[RIG_PIN_CH_STIFFNESS] = {"stiffness", NOT_NEGATIVE},
	[RIG_PIN_CH_SCALE] = {"scale", POSITIVE},
	[RIG_PIN_CH_OVERLAP] = {"overlap", OVERLAP_RANGE},
};

static const char *const solver_names[] = {
	[RIG_PUPPET_SOLVER_ARAP] = "arap",
	[RIG_PUPPET_SOLVER_LBS] = "lbs",
};
#define N_SOLVERS (sizeof solver_names / sizeof solver_names[0])

const char *rig_pin_channel_name(enum rig_pin_channel ch)
{
	if ((unsigned)ch >= RIG_PIN_CH_COUNT)
		return NULL;
	return channels[ch].name;
}

int rig_pin_channel_parse(enum rig_pin_channel *out, const char *name)
{
	for (int i = 0; i < RIG_PIN_CH_COUNT; i++) {
		if (strcmp(channels[i].name, name) == 0) {
			*out = (enum rig_pin_channel)i;
			return 0;
		}
	}
	return -1;
}

const char *rig_puppet_solver_name(enum rig_puppet_solver s)
{
	if ((unsigned)s >= N_SOLVERS)
		return NULL;
	return solver_names[s];
}

int rig_puppet_solver_parse(enum rig_puppet_solver *out, const char *name)
{
	for (size_t i = 0; i < N_SOLVERS; i++) {
		if (strcmp(solver_names[i], name) == 0) {
			*out = (enum rig_puppet_solver)i;
			return 0;
		}
	}
	return -1;
}

/* ------------------------------------------------------------------------ */
/* Pins                                                                      */
/* ------------------------------------------------------------------------ */

struct rig_puppet_pin rig_puppet_pin_default(const char *id, double x, double y)
{
	struct rig_puppet_pin pin;
	memset(&pin, 0, sizeof pin);
	rig_strlcpy(pin.id, id, sizeof pin.id);
	pin.x = x;
	pin.y = y;
	pin.scale = 1;
	pin.overlap_extent = 1;
	return pin;
}

double rig_puppet_pin_static(const struct rig_puppet_pin *pin, enum rig_pin_channel ch)
{
	switch (ch) {
	case RIG_PIN_CH_POSITION_X:
		return pin->x;
	case RIG_PIN_CH_POSITION_Y:
		return pin->y;
	case RIG_PIN_CH_ROTATION:
		return pin->rotation_deg;
	case RIG_PIN_CH_STIFFNESS:
		return pin->stiffness;
	case RIG_PIN_CH_SCALE:
		return pin->scale;
	case RIG_PIN_CH_OVERLAP:
		return pin->overlap;
	default:
		return 0;
	}
}

double rig_puppet_pin_value(const struct rig_puppet_pin *pin, enum rig_pin_channel ch, double frame)
{
	return rig_keys_eval(&pin->keys[ch], frame, rig_puppet_pin_static(pin, ch));
}

bool rig_puppet_pin_is_oriented(const struct rig_puppet_pin *pin)
{
	return pin->rotation_deg != 0 || pin->scale != 1 || pin->keys[RIG_PIN_CH_ROTATION].count ||
	       pin->keys[RIG_PIN_CH_SCALE].count;
}

void rig_puppet_pin_release(struct rig_puppet_pin *pin)
{
	for (int c = 0; c < RIG_PIN_CH_COUNT; c++) {
		free(pin->keys[c].items);
		pin->keys[c].items = NULL;
		pin->keys[c].count = 0;
	}
}

int rig_puppet_pin_copy(struct rig_puppet_pin *out, const struct rig_puppet_pin *src)
{
	*out = *src;
	for (int c = 0; c < RIG_PIN_CH_COUNT; c++) {
		out->keys[c].items = NULL;
		out->keys[c].count = 0;
	}
	for (int c = 0; c < RIG_PIN_CH_COUNT; c++) {
		size_t n = src->keys[c].count;
		if (n == 0)
			continue;
		out->keys[c].items = malloc(n * sizeof *out->keys[c].items);
		if (!out->keys[c].items) {
			rig_puppet_pin_release(out);
			return -1;
		}
		memcpy(out->keys[c].items, src->keys[c].items, n * sizeof *src->keys[c].items);
		out->keys[c].count = n;
	}
	return 0;
}

int rig_puppet_pin_key_put(struct rig_puppet_pin *pin, enum rig_pin_channel ch,
			   const struct rig_key *k)
{
	struct rig_keys *keys = &pin->keys[ch];
	size_t pos = 0;
	while (pos < keys->count && keys->items[pos].frame < k->frame)
		pos++;
	if (pos < keys->count && keys->items[pos].frame == k->frame) {
		keys->items[pos] = *k;
		return 0;
	}
	struct rig_key *items = realloc(keys->items, (keys->count + 1) * sizeof *items);
	if (!items)
		return -1;
	memmove(&items[pos + 1], &items[pos], (keys->count - pos) * sizeof *items);
	items[pos] = *k;
	keys->items = items;
	keys->count++;
	return 0;
}

bool rig_puppet_pin_key_delete(struct rig_puppet_pin *pin, enum rig_pin_channel ch, double frame)
{
	struct rig_keys *keys = &pin->keys[ch];
	for (size_t k = 0; k < keys->count; k++) {
		if (keys->items[k].frame != frame)
			continue;
		memmove(&keys->items[k], &keys->items[k + 1],
			(keys->count - k - 1) * sizeof *keys->items);
		if (--keys->count == 0) {
			free(keys->items);
			keys->items = NULL;
		}
		return true;
	}
	return false;
}

/* ------------------------------------------------------------------------ */
/* The definition                                                            */
/* ------------------------------------------------------------------------ */

void rig_puppet_def_release_arrays(struct rig_puppet_def *d)
{
	free(d->source);
	free(d->triangles);
	free(d->uvs);
	d->source = NULL;
	d->triangles = NULL;
	d->uvs = NULL;
}

void rig_puppet_def_release(struct rig_puppet_def *d)
{
	rig_puppet_def_release_arrays(d);
	for (size_t p = 0; d->pins && p < d->n_pins; p++)
		rig_puppet_pin_release(&d->pins[p]);
	free(d->pins);
	memset(d, 0, sizeof *d);
}

int rig_puppet_def_copy(struct rig_puppet_def *out, const struct rig_puppet_def *src)
{
	*out = *src;
	out->source = NULL;
	out->triangles = NULL;
	out->uvs = NULL;
	out->pins = NULL;
	out->n_pins = 0;
	if (src->uvs) {
		out->uvs = malloc(2 * src->n_verts * sizeof *out->uvs);
		if (!out->uvs)
			goto fail;
		memcpy(out->uvs, src->uvs, 2 * src->n_verts * sizeof *src->uvs);
	}
	if (src->source) {
		out->source = malloc((2 * src->n_verts + 1) * sizeof *out->source);
		if (!out->source)
			goto fail;
		memcpy(out->source, src->source, 2 * src->n_verts * sizeof *src->source);
	}
	if (src->triangles) {
		out->triangles = malloc((3 * src->n_tris + 1) * sizeof *out->triangles);
		if (!out->triangles)
			goto fail;
		memcpy(out->triangles, src->triangles, 3 * src->n_tris * sizeof *src->triangles);
	}
	out->pins = calloc(src->n_pins + 1, sizeof *out->pins);
	if (!out->pins)
		goto fail;
	for (size_t p = 0; p < src->n_pins; p++) {
		if (rig_puppet_pin_copy(&out->pins[p], &src->pins[p]) != 0)
			goto fail;
		out->n_pins = p + 1;
	}
	return 0;
fail:
	rig_puppet_def_release(out);
	return -1;
}

long rig_puppet_def_pin_find(const struct rig_puppet_def *d, const char *id)
{
	for (size_t p = 0; p < d->n_pins; p++)
		if (strcmp(d->pins[p].id, id) == 0)
			return (long)p;
	return -1;
}

int rig_puppet_def_pin_put(struct rig_puppet_def *d, const struct rig_puppet_pin *pin)
{
	struct rig_puppet_pin copy;
	if (rig_puppet_pin_copy(&copy, pin) != 0)
		return -1;
	long at = rig_puppet_def_pin_find(d, pin->id);
	if (at >= 0) {
		rig_puppet_pin_release(&d->pins[at]);
		d->pins[at] = copy;
		return 0;
	}
	struct rig_puppet_pin *pins = realloc(d->pins, (d->n_pins + 1) * sizeof *pins);
	if (!pins) {
		rig_puppet_pin_release(&copy);
		return -1;
	}
	pins[d->n_pins++] = copy;
	d->pins = pins;
	return 0;
}

bool rig_puppet_def_pin_delete(struct rig_puppet_def *d, const char *id)
{
	long at = rig_puppet_def_pin_find(d, id);
	if (at < 0)
		return false;
	rig_puppet_pin_release(&d->pins[at]);
	memmove(&d->pins[at], &d->pins[at + 1], (d->n_pins - (size_t)at - 1) * sizeof *d->pins);
	d->n_pins--;
	return true;
}

size_t rig_puppet_nearest_vertex(const double *source, size_t n_verts, double x, double y)
{
	size_t best = 0;
	double best_d2 = INFINITY;
	for (size_t v = 0; v < n_verts; v++) {
		double dx = source[2 * v] - x, dy = source[2 * v + 1] - y;
		double d2 = dx * dx + dy * dy;
		if (d2 < best_d2) {
			best_d2 = d2;
			best = v;
		}
	}
	return best;
}

/* ------------------------------------------------------------------------ */
/* Checks                                                                    */
/* ------------------------------------------------------------------------ */

static bool keeps_rule(double v, enum value_rule rule)
{
	switch (rule) {
	case NOT_NEGATIVE:
		return isfinite(v) && v >= 0;
	case POSITIVE:
		return isfinite(v) && v > 0;
	case OVERLAP_RANGE:
		return v >= -RIG_PUPPET_OVERLAP_MAX && v <= RIG_PUPPET_OVERLAP_MAX;
	default:
		return isfinite(v);
	}
}

static const char *rule_text(enum value_rule rule)
{
	switch (rule) {
	case NOT_NEGATIVE:
		return "finite and not negative";
	case POSITIVE:
		return "finite and positive";
	case OVERLAP_RANGE:
		return "in [-100, 100]";
	default:
		return "finite";
	}
}

/* The JSON field of a pin's static value of channel ch. */
static const char *static_field(enum rig_pin_channel ch)
{
	static const char *const fields[RIG_PIN_CH_COUNT] = {
		[RIG_PIN_CH_POSITION_X] = "x",      [RIG_PIN_CH_POSITION_Y] = "y",
		[RIG_PIN_CH_ROTATION] = "rotation", [RIG_PIN_CH_STIFFNESS] = "stiffness",
		[RIG_PIN_CH_SCALE] = "scale",       [RIG_PIN_CH_OVERLAP] = "overlap",
	};
	return fields[ch];
}

static struct rig_err *pin_err(struct rig_errs *errs, size_t i, const struct rig_puppet_pin *pin,
			       const char *field)
{
	struct rig_err *e =
		rig_errs_add(errs, RIG_PUPPET_PINS, "pin %zu ('%s') %s", i, pin->id, field);
	snprintf(e->pointer, sizeof e->pointer, "/pins/%zu/%s", i, field);
	rig_err_extra(e, "pinId", pin->id);
	return e;
}

/* Prefixes the pointers of violations [from, count) with prefix. */
static void prefix_pointers(struct rig_errs *errs, size_t from, const char *prefix)
{
	for (size_t i = from; i < errs->count; i++) {
		struct rig_err *e = &errs->items[i];
		char p[RIG_ERR_POINTER_MAX];
		snprintf(p, sizeof p, "%s%s", prefix, e->pointer);
		rig_strlcpy(e->pointer, p, sizeof e->pointer);
	}
}

static void check_keys(const struct rig_puppet_pin *pin, size_t i, enum rig_pin_channel ch,
		       struct rig_errs *errs)
{
	const struct rig_keys *keys = &pin->keys[ch];
	for (size_t k = 0; k < keys->count; k++) {
		const struct rig_key *key = &keys->items[k];
		size_t from = errs->count;
		rig_key_check(key, errs);
		if (k > 0 && !(key->frame > keys->items[k - 1].frame)) {
			struct rig_err *e = rig_errs_add(
				errs, RIG_OP_INVALID,
				"key %zu at frame %.17g does not follow the key before", k,
				key->frame);
			rig_strlcpy(e->pointer, "/frame", sizeof e->pointer);
		}
		if (isfinite(key->value) && !keeps_rule(key->value, channels[ch].rule)) {
			struct rig_err *e = rig_errs_add(
				errs, RIG_PUPPET_PINS, "pin %zu ('%s') %s key %zu is %.17g, not %s",
				i, pin->id, channels[ch].name, k, key->value,
				rule_text(channels[ch].rule));
			rig_strlcpy(e->pointer, "/value", sizeof e->pointer);
			rig_err_extra(e, "pinId", pin->id);
			rig_err_extra(e, "channel", channels[ch].name);
		}
		char prefix[96];
		snprintf(prefix, sizeof prefix, "/pins/%zu/keys/%s/%zu", i, channels[ch].name, k);
		prefix_pointers(errs, from, prefix);
		for (size_t j = from; j < errs->count; j++) {
			errs->items[j].has_frame = isfinite(key->frame);
			errs->items[j].frame = key->frame;
		}
	}
}

/* Pin i's own fields and keys, as pin i of a definition; true when its rest
 * position is finite. */
static bool check_pin_fields(const struct rig_puppet_pin *pin, size_t i, struct rig_errs *errs)
{
	if (!rig_id_is_valid(pin->id)) {
		struct rig_err *e = rig_errs_add(errs, RIG_PUPPET_PINS,
						 "pin %zu id '%s' is not a valid id", i, pin->id);
		snprintf(e->pointer, sizeof e->pointer, "/pins/%zu/id", i);
	}
	for (int c = 0; c < RIG_PIN_CH_COUNT; c++) {
		double v = rig_puppet_pin_static(pin, (enum rig_pin_channel)c);
		if (keeps_rule(v, channels[c].rule))
			continue;
		struct rig_err *e = pin_err(errs, i, pin, static_field((enum rig_pin_channel)c));
		snprintf(e->detail, sizeof e->detail, "pin %zu ('%s') %s is %.17g, not %s", i,
			 pin->id, static_field((enum rig_pin_channel)c), v,
			 rule_text(channels[c].rule));
	}
	if (!(isfinite(pin->overlap_extent) && pin->overlap_extent > 0)) {
		struct rig_err *e = pin_err(errs, i, pin, "overlapExtent");
		snprintf(e->detail, sizeof e->detail,
			 "pin %zu ('%s') overlapExtent is %.17g, not finite and positive", i,
			 pin->id, pin->overlap_extent);
	}
	for (int c = 0; c < RIG_PIN_CH_COUNT; c++)
		check_keys(pin, i, (enum rig_pin_channel)c, errs);
	return isfinite(pin->x) && isfinite(pin->y);
}

/* Pin i of d: its fields and an id no earlier pin has. */
static bool check_pin(const struct rig_puppet_def *d, size_t i, struct rig_errs *errs)
{
	const struct rig_puppet_pin *pin = &d->pins[i];
	for (size_t j = 0; j < i; j++) {
		if (strcmp(d->pins[j].id, pin->id) == 0) {
			struct rig_err *e = pin_err(errs, i, pin, "id");
			snprintf(e->detail, sizeof e->detail,
				 "pin %zu repeats the id '%s' of pin %zu", i, pin->id, j);
			rig_err_extra_number(e, "otherPinIndex", (double)j);
			break;
		}
	}
	return check_pin_fields(pin, i, errs);
}

int rig_puppet_pin_check(const struct rig_puppet_pin *pin, struct rig_errs *errs)
{
	size_t before = errs->total, from = errs->count;
	check_pin_fields(pin, 0, errs);
	for (size_t k = from; k < errs->count; k++) { /* "/pins/0/stiffness" → "/stiffness" */
		char *p = errs->items[k].pointer;
		if (strncmp(p, "/pins/0", 7) == 0)
			memmove(p, p + 7, strlen(p + 7) + 1);
	}
	return errs->total == before ? 0 : -1;
}

bool rig_pin_channel_allows(enum rig_pin_channel ch, double v)
{
	return (unsigned)ch < RIG_PIN_CH_COUNT && keeps_rule(v, channels[ch].rule);
}

const char *rig_pin_channel_rule(enum rig_pin_channel ch)
{
	return (unsigned)ch < RIG_PIN_CH_COUNT ? rule_text(channels[ch].rule) : NULL;
}

/* Two pins anchored to one vertex: the later one is reported, naming both. */
static void check_anchors(const struct rig_puppet_def *d, struct rig_errs *errs)
{
	size_t *anchor = malloc((d->n_pins + 1) * sizeof *anchor);
	if (!anchor) {
		rig_errs_add(errs, RIG_INTERNAL, "out of memory");
		return;
	}
	for (size_t i = 0; i < d->n_pins; i++) {
		const struct rig_puppet_pin *pin = &d->pins[i];
		anchor[i] = rig_puppet_nearest_vertex(d->source, d->n_verts, pin->x, pin->y);
		for (size_t j = 0; j < i; j++) {
			if (anchor[j] != anchor[i])
				continue;
			struct rig_err *e =
				rig_errs_add(errs, RIG_PUPPET_PIN_VERTEX,
					     "pins '%s' and '%s' both anchor to vertex %zu",
					     d->pins[j].id, pin->id, anchor[i]);
			snprintf(e->pointer, sizeof e->pointer, "/pins/%zu", i);
			e->vertex_index = (long)anchor[i];
			rig_err_extra(e, "pinId", pin->id);
			rig_err_extra(e, "otherPinId", d->pins[j].id);
			break;
		}
	}
	free(anchor);
}

int rig_puppet_def_check(const struct rig_puppet_def *d, struct rig_errs *errs)
{
	size_t before = errs->total;
	bool is_mesh_sound =
		rig_mesh_check_source(d->source, d->n_verts, d->triangles, d->n_tris, errs) == 0;
	rig_mesh_check_uvs(d->uvs, d->n_verts, errs);
	if ((unsigned)d->solver >= N_SOLVERS) {
		struct rig_err *e = rig_errs_add(errs, RIG_OP_INVALID,
						 "solver %d is not arap or lbs", (int)d->solver);
		rig_strlcpy(e->pointer, "/solver", sizeof e->pointer);
	}
	if (d->has_max_rotation && !(isfinite(d->max_rotation_deg) && d->max_rotation_deg >= 0)) {
		struct rig_err *e = rig_errs_add(errs, RIG_OP_INVALID,
						 "maxRotationDeg is %.17g, not finite and >= 0",
						 d->max_rotation_deg);
		rig_strlcpy(e->pointer, "/maxRotationDeg", sizeof e->pointer);
	}
	if (d->n_pins > RIG_MAX_PUPPET_PINS) {
		struct rig_err *e =
			rig_errs_add(errs, RIG_PUPPET_PINS, "%zu pins exceed the limit of %d",
				     d->n_pins, RIG_MAX_PUPPET_PINS);
		rig_strlcpy(e->pointer, "/pins", sizeof e->pointer);
		rig_err_extra_number(e, "pinCount", (double)d->n_pins);
		rig_err_extra_number(e, "limit", RIG_MAX_PUPPET_PINS);
		return -1; /* a request past the limit is not read further */
	}
	bool are_pins_placed = true;
	for (size_t i = 0; i < d->n_pins; i++)
		are_pins_placed &= check_pin(d, i, errs);
	if (is_mesh_sound && are_pins_placed)
		check_anchors(d, errs);
	return errs->total == before ? 0 : -1;
}
