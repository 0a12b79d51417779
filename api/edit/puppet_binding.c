/* The puppet binding's ops and its row of the binding kinds (binding.h),
 * keeping its op rows itself (the op table knows nothing of it):
 *   layer.puppet                 installs {source, triangles, pins?, solver?,
 *                                maxRotationDeg?} or removes it (null);
 *   layer.puppet.pin.put         adds a pin or replaces the one of its id;
 *   layer.puppet.pin.delete      removes a pin;
 *   layer.puppet.pin.key.put     merges keys into one channel of a pin;
 *   layer.puppet.pin.key.delete  removes keys of one channel at frames;
 *   layer.puppet.bake            turns it into a mesh binding keyed at frames
 *                                (ops_bake.c, as layer.skin.bake).
 * Its layer.deformation.rest.apply refuses (the rest mesh is what the pins'
 * weights and the ARAP system are built on); its summary; its mesh-data
 * collections (vertices, triangles, pins, pinWeights); the arrays
 * layer.puppet takes from the compact body decoder.
 *
 * A pin on the wire is {id, x, y, rotation?, stiffness?, scale?, overlap?,
 * overlapExtent?, keys?: {channel: [key, …]}}, the form the pins collection
 * answers, so a puppet read back can be sent again. The rules are the core's
 * (core/puppet.h); this file maps JSON to definitions and violations to
 * pointers.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/edit/binding.h"
#include "api/edit/ops_internal.h"
#include "api/edit/pins.h"
#include "core/puppet.h"
#include "core/rig_limits.h"
#include "storage/shot_repo.h"

/* What the puppet's ops decode (op->u.kind_data). */
struct puppet_op {
	bool clear;                   /* layer.puppet with puppet: null */
	struct rig_puppet_def def;    /* layer.puppet, owned */
	struct rig_puppet_pin pin;    /* layer.puppet.pin.put, its keys owned */
	char pin_id[RIG_ID_MAX + 1];  /* the pin.delete and pin.key ops' pinId */
	enum rig_pin_channel channel; /* the pin.key ops' channel */
	struct rig_key *keys;         /* pin.key.put, n_keys, owned */
	size_t n_keys;
	double *frames; /* pin.key.delete, n_frames, owned */
	size_t n_frames;
};

static void puppet_op_release(struct rig_op *op)
{
	struct puppet_op *o = op->u.kind_data;
	if (!o)
		return;
	rig_puppet_def_release(&o->def);
	rig_puppet_pin_release(&o->pin);
	free(o->keys);
	free(o->frames);
	free(o);
	op->u.kind_data = NULL;
}

static struct puppet_op *puppet_op_new(struct rig_op *out, const struct rig_jr *jr)
{
	struct puppet_op *o = calloc(1, sizeof *o);
	if (!o)
		rig_jr_out_of_memory(jr, "");
	out->u.kind_data = o;
	return o;
}

/* Reads a pin's "channel" member into *out. */
static int decode_channel(const struct rig_jr *jr, json_t *obj, enum rig_pin_channel *out)
{
	const char *name = json_string_value(json_object_get(obj, "channel"));
	if (name && rig_pin_channel_parse(out, name) == 0)
		return 0;
	return rig_jr_fail(jr, "channel",
			   "channel must be one of position.x, position.y, rotation, stiffness,"
			   " scale, overlap");
}

/* Checks each key's value against its channel's range (the key rules
 * themselves are rig_op__decode_key_array's), at "<field>/<k>/value". */
static int check_key_values(const struct rig_jr *jr, const char *field, enum rig_pin_channel ch,
			    const struct rig_key *keys, size_t n)
{
	int rc = 0;
	for (size_t k = 0; k < n; k++) {
		if (rig_pin_channel_allows(ch, keys[k].value))
			continue;
		char key[64];
		snprintf(key, sizeof key, "%s/%zu/value", field, k);
		struct rig_jr pjr = {jr->errs, RIG_PUPPET_PINS, jr->base, jr->op_index};
		rc = rig_jr_fail(&pjr, key, "a %s key's value must be %s, not %.17g",
				 rig_pin_channel_name(ch), rig_pin_channel_rule(ch), keys[k].value);
	}
	return rc;
}

/* A pin object into *pin (its keys owned by pin), shapes only: the values'
 * rules are rig_puppet_pin_check's. */
static int decode_pin(const struct rig_jr *jr, json_t *obj, struct rig_puppet_pin *pin)
{
	if (!json_is_object(obj))
		return rig_jr_fail(jr, "",
				   "a pin must be {id, x, y, rotation?, stiffness?, scale?,"
				   " overlap?, overlapExtent?, keys?}");
	static const char *const fields[] = {"id",        "x",     "y",       "rotation",
					     "stiffness", "scale", "overlap", "overlapExtent",
					     "keys",      NULL};
	int rc = rig_jr_known(jr, obj, fields);
	char id[RIG_ID_MAX + 1] = "";
	double x = 0, y = 0;
	rc |= rig_jr_id(jr, obj, "id", true, false, id, NULL);
	rc |= rig_jr_number(jr, obj, "x", true, &x, NULL);
	rc |= rig_jr_number(jr, obj, "y", true, &y, NULL);
	*pin = rig_puppet_pin_default(id, x, y);
	rc |= rig_jr_number(jr, obj, "rotation", false, &pin->rotation_deg, NULL);
	rc |= rig_jr_number(jr, obj, "stiffness", false, &pin->stiffness, NULL);
	rc |= rig_jr_number(jr, obj, "scale", false, &pin->scale, NULL);
	rc |= rig_jr_number(jr, obj, "overlap", false, &pin->overlap, NULL);
	rc |= rig_jr_number(jr, obj, "overlapExtent", false, &pin->overlap_extent, NULL);
	json_t *keys = json_object_get(obj, "keys");
	if (!keys)
		return rc;
	if (!json_is_object(keys))
		return rig_jr_fail(jr, "keys", "a pin's keys must be {channel: [key, …]}");
	const char *name;
	json_t *list;
	json_object_foreach(keys, name, list)
	{
		enum rig_pin_channel ch;
		char field[64];
		snprintf(field, sizeof field, "keys/%.40s", name);
		if (rig_pin_channel_parse(&ch, name) != 0) {
			rc = rig_jr_fail(jr, field,
					 "'%.40s' is not a pin channel (position.x, position.y,"
					 " rotation, stiffness, scale, overlap)",
					 name);
			continue;
		}
		struct rig_key *items = NULL;
		size_t n = 0;
		if (rig_op__decode_key_array(jr, keys, name, &items, &n) != 0) {
			free(items);
			rc = -1;
			continue;
		}
		for (size_t k = 0; k < n && rc == 0; k++)
			if (rig_puppet_pin_key_put(pin, ch, &items[k]) != 0)
				rc = rig_jr_out_of_memory(jr, field);
		free(items);
	}
	return rc;
}

/* Runs rig_puppet_pin_check on a decoded pin, its pointers under base. */
static int check_pin(const struct rig_jr *jr, const struct rig_puppet_pin *pin, const char *base)
{
	size_t from = jr->errs->count;
	if (rig_puppet_pin_check(pin, jr->errs) == 0)
		return 0;
	rig_errs_scope(jr->errs, from, jr->op_index, base);
	return -1;
}

/* The pins l's binding carries, through its kind's row (binding.h: a
 * puppet's own, a skin's skin.puppet); NULL when it carries none, or (create)
 * when out of memory. */
static struct rig_puppet_def *pins_of(struct rig_model_layer *l, bool create)
{
	const struct rig_binding_kind *k = rig_binding_kind_of(l->binding.type);
	return k && k->pins ? k->pins(l, create) : NULL;
}

/* The op's mesh layer with its binding fully loaded and its pins in
 * *out_pins; NULL after an error (MESH_BINDING_KIND when its binding carries
 * no pins: none, a mesh binding, a skin without skin.puppet — unless create,
 * which gives a skin its first, empty set of pins). */
static struct rig_model_layer *puppet_target(struct rig_op_ctx *ctx, const struct rig_op *op,
					     struct rig_puppet_def **out_pins, bool create)
{
	struct rig_model_layer *l = rig_op__mesh_target(ctx, op);
	if (!l)
		return NULL;
	const struct rig_binding_kind *k = rig_binding_kind_of(l->binding.type);
	if (!k || !k->pins || (!create && !k->pins(l, false))) {
		struct rig_err *e =
			rig_op__fail_layer(ctx, op, RIG_MESH_BINDING_KIND, "layerId",
					   "layer '%s' has no puppet binding and no pins%s%s",
					   l->id, l->binding.type ? ": its binding is a " : "",
					   l->binding.type ? l->binding.type->name : "");
		if (l->binding.type)
			rig_err_extra(e, "bindingKind", l->binding.type->name);
		return NULL;
	}
	int rc = rig_shot_load_binding(ctx->conn, ctx->model, l);
	if (rc) {
		rig_op__fail_layer(ctx, op, (enum rig_code) - rc, "",
				   "cannot load the binding of layer '%s'", l->id);
		return NULL;
	}
	if (!(*out_pins = pins_of(l, create))) {
		rig_op__fail_layer(ctx, op, RIG_MEMORY_BUSY, "", "the server ran out of memory");
		return NULL;
	}
	return l;
}

/* The pin of the op's pinId in pins d of l, or NULL after PUPPET_PINS at "pinId". */
static struct rig_puppet_pin *pin_target(struct rig_op_ctx *ctx, const struct rig_op *op,
					 struct rig_model_layer *l, struct rig_puppet_def *d)
{
	const struct puppet_op *o = op->u.kind_data;
	long i = rig_puppet_def_pin_find(d, o->pin_id);
	if (i >= 0)
		return &d->pins[i];
	struct rig_err *e = rig_op__fail_layer(ctx, op, RIG_PUPPET_PINS, "pinId",
					       "layer '%s' has no pin '%s'", l->id, o->pin_id);
	rig_err_extra(e, "pinId", o->pin_id);
	return NULL;
}

/* ---- layer.puppet ---- */

static int puppet_decode(struct rig_op *out, json_t *op, const struct rig_jr *jr,
			 struct rig_bulk *bulk)
{
	static const char *const allowed[] = {"op", "layerId", "puppet", NULL};
	int rc = rig_jr_known(jr, op, allowed);
	rc |= rig_jr_id(jr, op, "layerId", true, false, out->layer_id, NULL);
	struct puppet_op *o = puppet_op_new(out, jr);
	if (!o)
		return -1;
	json_t *puppet = json_object_get(op, "puppet");
	if (!puppet)
		return rig_jr_fail(jr, "puppet",
				   "field 'puppet' is required (null removes the binding)");
	if (json_is_null(puppet)) {
		o->clear = true;
		return rc;
	}
	if (!json_is_object(puppet))
		return rig_jr_fail(jr, "puppet",
				   "field 'puppet' must be {source, triangles, pins, solver?,"
				   " maxRotationDeg?} or null");
	char base[64];
	snprintf(base, sizeof base, "%s/puppet", jr->base);
	struct rig_jr pjr = {jr->errs, RIG_OP_INVALID, base, jr->op_index};
	static const char *const fields[] = {"source",         "triangles", "pins", "solver",
					     "maxRotationDeg", "uvs",       NULL};
	size_t before = jr->errs->total;
	rig_jr_known(&pjr, puppet, fields);
	struct rig_puppet_def *d = &o->def;
	rig_op__decode_points(&pjr, puppet, "source", &d->source, &d->n_verts, bulk);
	rig_op__decode_triangles(&pjr, puppet, &d->triangles, &d->n_tris, bulk);
	rig_op__pins_decode(&pjr, puppet, d);
	if (jr->errs->total == before)
		rig_op__decode_uvs(&pjr, puppet, &d->uvs, d->n_verts);
	if (jr->errs->total > before)
		return -1; /* shapes are wrong; the rules would only echo them */
	size_t from = jr->errs->count;
	if (rig_puppet_def_check(d, jr->errs) != 0) {
		rig_errs_scope(jr->errs, from, jr->op_index, base);
		return -1;
	}
	return rc;
}

int rig_op__pins_decode(const struct rig_jr *pjr, json_t *puppet, struct rig_puppet_def *d)
{
	const struct rig_jr *jr = pjr;
	const char *base = pjr->base;
	json_t *solver = json_object_get(puppet, "solver");
	if (solver && (!json_is_string(solver) ||
		       rig_puppet_solver_parse(&d->solver, json_string_value(solver)) != 0))
		rig_jr_fail(pjr, "solver", "solver must be \"arap\" (the default) or \"lbs\"");
	d->has_max_rotation = json_object_get(puppet, "maxRotationDeg") != NULL;
	rig_jr_number(pjr, puppet, "maxRotationDeg", false, &d->max_rotation_deg, NULL);
	json_t *pins = json_object_get(puppet, "pins");
	if (pins && !json_is_array(pins)) {
		rig_jr_fail(pjr, "pins", "pins must be an array of pins");
	} else if (json_array_size(pins) > RIG_MAX_PUPPET_PINS) {
		struct rig_jr cjr = {jr->errs, RIG_PUPPET_PINS, base, jr->op_index};
		rig_jr_fail(&cjr, "pins", "%zu pins exceed the limit of %d", json_array_size(pins),
			    RIG_MAX_PUPPET_PINS);
	} else if (json_array_size(pins)) {
		d->pins = calloc(json_array_size(pins), sizeof *d->pins);
		if (!d->pins)
			return rig_jr_out_of_memory(pjr, "pins");
		for (size_t i = 0; i < json_array_size(pins); i++) {
			char pin_base[96];
			snprintf(pin_base, sizeof pin_base, "%s/pins/%zu", base, i);
			struct rig_jr ijr = {jr->errs, RIG_OP_INVALID, pin_base, jr->op_index};
			decode_pin(&ijr, json_array_get(pins, i), &d->pins[i]);
			d->n_pins = i + 1;
		}
	}
	return 0;
}

static int puppet_apply(struct rig_op_ctx *ctx, struct rig_op *op)
{
	struct rig_model_layer *l = rig_op__mesh_target(ctx, op);
	if (!l)
		return -1;
	struct puppet_op *o = op->u.kind_data;
	return rig_op__binding_install(ctx, op, l, &rig_binding_puppet, &o->def, sizeof o->def,
				       o->clear, "puppet");
}

/* ---- layer.puppet.pin.put ---- */

static int pin_put_decode(struct rig_op *out, json_t *op, const struct rig_jr *jr,
			  struct rig_bulk *bulk)
{
	(void)bulk;
	static const char *const allowed[] = {"op", "layerId", "pin", NULL};
	int rc = rig_jr_known(jr, op, allowed);
	rc |= rig_jr_id(jr, op, "layerId", true, false, out->layer_id, NULL);
	struct puppet_op *o = puppet_op_new(out, jr);
	if (!o)
		return -1;
	json_t *pin = json_object_get(op, "pin");
	if (!pin)
		return rig_jr_fail(jr, "pin", "field 'pin' is required");
	char base[64];
	snprintf(base, sizeof base, "%s/pin", jr->base);
	struct rig_jr pjr = {jr->errs, RIG_OP_INVALID, base, jr->op_index};
	if (decode_pin(&pjr, pin, &o->pin) != 0)
		return -1;
	return check_pin(jr, &o->pin, base) | rc;
}

/* Whether pin would anchor to the vertex of another pin of d (one of another
 * id): PUPPET_PIN_VERTEX at the op's "pin", naming both (the rule of
 * rig_puppet_def_check). */
static int check_anchor(struct rig_op_ctx *ctx, const struct rig_op *op,
			const struct rig_model_layer *l, const struct rig_puppet_def *d,
			const struct rig_puppet_pin *pin)
{
	/* The rest mesh is the binding's (a skin's pins have none of their own). */
	const struct rig_binding_type *type = l->binding.type;
	const double *source = type->def_source(l->binding.def);
	size_t n_verts = type->def_n_verts(l->binding.def);
	size_t v = rig_puppet_nearest_vertex(source, n_verts, pin->x, pin->y);
	for (size_t q = 0; q < d->n_pins; q++) {
		const struct rig_puppet_pin *other = &d->pins[q];
		if (strcmp(other->id, pin->id) == 0 ||
		    rig_puppet_nearest_vertex(source, n_verts, other->x, other->y) != v)
			continue;
		struct rig_err *e = rig_op__fail_layer(
			ctx, op, RIG_PUPPET_PIN_VERTEX, "pin",
			"pins '%s' and '%s' both anchor to vertex %zu", other->id, pin->id, v);
		e->vertex_index = (long)v;
		rig_err_extra(e, "pinId", pin->id);
		rig_err_extra(e, "otherPinId", other->id);
		return -1;
	}
	return 0;
}

static int pin_put_apply(struct rig_op_ctx *ctx, struct rig_op *op)
{
	struct rig_puppet_def *d = NULL;
	struct rig_model_layer *l = puppet_target(ctx, op, &d, true);
	if (!l)
		return -1;
	struct puppet_op *o = op->u.kind_data;
	bool is_new = rig_puppet_def_pin_find(d, o->pin.id) < 0;
	if (is_new && d->n_pins >= RIG_MAX_PUPPET_PINS) {
		struct rig_err *e = rig_op__fail_layer(
			ctx, op, RIG_PUPPET_PINS, "pin",
			"layer '%s' has %zu pins, the limit: another cannot be added", l->id,
			d->n_pins);
		rig_err_extra_number(e, "limit", RIG_MAX_PUPPET_PINS);
		return -1;
	}
	if (check_anchor(ctx, op, l, d, &o->pin) != 0)
		return -1;
	if (rig_puppet_def_pin_put(d, &o->pin) != 0) {
		rig_op__fail_layer(ctx, op, RIG_MEMORY_BUSY, "", "the server ran out of memory");
		return -1;
	}
	rig_op__binding_edited(ctx, op, l);
	return 0;
}

/* ---- layer.puppet.pin.delete ---- */

/* What every op naming one pin reads first: the members it allows, layerId
 * and pinId, with channel too when with_channel. Sets *out_o (NULL when out
 * of memory: -1). Returns 0 or -1. */
static int decode_pin_ref(struct rig_op *out, json_t *op, const struct rig_jr *jr,
			  const char *const *allowed, bool with_channel, struct puppet_op **out_o)
{
	int rc = rig_jr_known(jr, op, allowed);
	rc |= rig_jr_id(jr, op, "layerId", true, false, out->layer_id, NULL);
	struct puppet_op *o = *out_o = puppet_op_new(out, jr);
	if (!o)
		return -1;
	rc |= rig_jr_id(jr, op, "pinId", true, false, o->pin_id, NULL);
	if (with_channel)
		rc |= decode_channel(jr, op, &o->channel);
	return rc;
}

static int pin_delete_decode(struct rig_op *out, json_t *op, const struct rig_jr *jr,
			     struct rig_bulk *bulk)
{
	(void)bulk;
	static const char *const allowed[] = {"op", "layerId", "pinId", NULL};
	struct puppet_op *o;
	return decode_pin_ref(out, op, jr, allowed, false, &o);
}

static int pin_delete_apply(struct rig_op_ctx *ctx, struct rig_op *op)
{
	struct rig_puppet_def *d = NULL;
	struct rig_model_layer *l = puppet_target(ctx, op, &d, false);
	if (!l || !pin_target(ctx, op, l, d))
		return -1;
	const struct puppet_op *o = op->u.kind_data;
	rig_puppet_def_pin_delete(d, o->pin_id);
	rig_op__binding_edited(ctx, op, l);
	return 0;
}

/* ---- layer.puppet.pin.key.put ---- */

static int pin_key_put_decode(struct rig_op *out, json_t *op, const struct rig_jr *jr,
			      struct rig_bulk *bulk)
{
	(void)bulk;
	static const char *const allowed[] = {"op", "layerId", "pinId", "channel", "keys", NULL};
	struct puppet_op *o;
	int rc = decode_pin_ref(out, op, jr, allowed, true, &o);
	if (!o)
		return -1;
	if (rig_op__decode_key_array(jr, op, "keys", &o->keys, &o->n_keys) != 0)
		return -1;
	if (rc == 0)
		rc = check_key_values(jr, "keys", o->channel, o->keys, o->n_keys);
	return rc;
}

static int pin_key_put_apply(struct rig_op_ctx *ctx, struct rig_op *op)
{
	struct rig_puppet_def *d = NULL;
	struct rig_model_layer *l = puppet_target(ctx, op, &d, false);
	struct rig_puppet_pin *pin = l ? pin_target(ctx, op, l, d) : NULL;
	if (!pin)
		return -1;
	const struct puppet_op *o = op->u.kind_data;
	for (size_t k = 0; k < o->n_keys; k++)
		if (rig_puppet_pin_key_put(pin, o->channel, &o->keys[k]) != 0) {
			rig_op__fail_layer(ctx, op, RIG_MEMORY_BUSY, "",
					   "the server ran out of memory");
			return -1; /* MEMORY_BUSY fails the batch */
		}
	rig_op__binding_edited(ctx, op, l);
	return 0;
}

/* ---- layer.puppet.pin.key.delete ---- */

static int pin_key_delete_decode(struct rig_op *out, json_t *op, const struct rig_jr *jr,
				 struct rig_bulk *bulk)
{
	(void)bulk;
	static const char *const allowed[] = {"op", "layerId", "pinId", "channel", "frames", NULL};
	struct puppet_op *o;
	int rc = decode_pin_ref(out, op, jr, allowed, true, &o);
	if (!o)
		return -1;
	return rc | rig_op__decode_frames(jr, op, &o->frames, &o->n_frames);
}

static int pin_key_delete_apply(struct rig_op_ctx *ctx, struct rig_op *op)
{
	struct rig_puppet_def *d = NULL;
	struct rig_model_layer *l = puppet_target(ctx, op, &d, false);
	struct rig_puppet_pin *pin = l ? pin_target(ctx, op, l, d) : NULL;
	if (!pin)
		return -1;
	const struct puppet_op *o = op->u.kind_data;
	const struct rig_keys *keys = &pin->keys[o->channel];
	const char *channel = rig_pin_channel_name(o->channel);
	int rc = 0;
	/* Every frame must hold a key before any is deleted: all or nothing. */
	for (size_t i = 0; i < o->n_frames; i++) {
		bool found = false;
		for (size_t k = 0; k < keys->count && !found; k++)
			found = keys->items[k].frame == o->frames[i];
		if (found)
			continue;
		char field[32];
		snprintf(field, sizeof field, "frames/%zu", i);
		struct rig_err *e =
			rig_op__fail_layer(ctx, op, RIG_OP_INVALID, field,
					   "pin '%s' of layer '%s' has no %s key at frame %.17g",
					   pin->id, l->id, channel, o->frames[i]);
		e->has_frame = true;
		e->frame = o->frames[i];
		rig_err_extra(e, "pinId", pin->id);
		rig_err_extra(e, "channel", channel);
		rc = -1;
	}
	if (rc)
		return -1;
	for (size_t i = 0; i < o->n_frames; i++)
		rig_puppet_pin_key_delete(pin, o->channel, o->frames[i]);
	rig_op__binding_edited(ctx, op, l);
	return 0;
}

/* ---- layer.puppet.bake: the puppet into a mesh binding (ops_bake.c) ---- */

static int bake_apply(struct rig_op_ctx *ctx, struct rig_op *op)
{
	return rig_op__bake_apply(ctx, op, &rig_binding_puppet);
}

static const struct rig_op_type ops[] = {
	{"layer.puppet", puppet_decode, puppet_apply, puppet_op_release,
	 RIG_OP_STRUCTURAL | RIG_OP_BINDING, RIG_OP_LOCK_LAYER},
	{"layer.puppet.pin.put", pin_put_decode, pin_put_apply, puppet_op_release,
	 RIG_OP_STRUCTURAL | RIG_OP_BINDING, RIG_OP_LOCK_LAYER},
	{"layer.puppet.pin.delete", pin_delete_decode, pin_delete_apply, puppet_op_release,
	 RIG_OP_STRUCTURAL | RIG_OP_BINDING, RIG_OP_LOCK_LAYER},
	{"layer.puppet.pin.key.put", pin_key_put_decode, pin_key_put_apply, puppet_op_release,
	 RIG_OP_STRUCTURAL | RIG_OP_BINDING, RIG_OP_LOCK_LAYER},
	{"layer.puppet.pin.key.delete", pin_key_delete_decode, pin_key_delete_apply,
	 puppet_op_release, RIG_OP_STRUCTURAL | RIG_OP_BINDING, RIG_OP_LOCK_LAYER},
	{"layer.puppet.bake", rig_op__bake_decode, bake_apply, rig_op__bake_release,
	 RIG_OP_STRUCTURAL | RIG_OP_BINDING, RIG_OP_LOCK_LAYER},
};

/* ---- the kind's row ---- */

/* A puppet's rest mesh is what its pins' weights and its ARAP system are
 * built on, and its frames are the pins' doing: a new rest from a frame
 * would move every pin's meaning. Bake it into a mesh binding instead. */
static int rest_apply(struct rig_op_ctx *ctx, struct rig_op *op, struct rig_model_layer *l)
{
	struct rig_err *e = rig_op__fail_layer(
		ctx, op, RIG_MESH_BINDING_KIND, "layerId",
		"layer '%s' is a puppet: its rest mesh cannot be replaced by a frame's shape",
		l->id);
	rig_err_extra(e, "bindingKind", rig_binding_puppet.name);
	return -1;
}

static json_t *summary(const struct rig_model_layer *l)
{
	const struct rig_puppet_def *d = l->binding.def;
	json_t *s = rig_binding_summary_counts(l, "pinCount", d->n_pins);
	if (s)
		json_object_set_new(s, "solver", json_string(rig_puppet_solver_name(d->solver)));
	return s;
}

static size_t count_pins(const struct rig_binding_type *type, const void *def)
{
	(void)type;
	return ((const struct rig_puppet_def *)def)->n_pins;
}

/* A pin's members after its opening brace: id, the statics, the anchor
 * vertex when vertex ≥ 0, the keys; and the closing brace. */
static void pin_members(struct rig_buf *b, const struct rig_puppet_pin *pin, long vertex)
{
	rig_buf_puts(b, "\"id\":");
	rig_buf_json_string(b, pin->id);
	static const struct {
		const char *name;
		size_t offset;
	} statics[] = {
		{"x", offsetof(struct rig_puppet_pin, x)},
		{"y", offsetof(struct rig_puppet_pin, y)},
		{"rotation", offsetof(struct rig_puppet_pin, rotation_deg)},
		{"stiffness", offsetof(struct rig_puppet_pin, stiffness)},
		{"scale", offsetof(struct rig_puppet_pin, scale)},
		{"overlap", offsetof(struct rig_puppet_pin, overlap)},
		{"overlapExtent", offsetof(struct rig_puppet_pin, overlap_extent)},
	};
	for (size_t s = 0; s < sizeof statics / sizeof statics[0]; s++) {
		rig_buf_printf(b, ",\"%s\":", statics[s].name);
		double v;
		memcpy(&v, (const char *)pin + statics[s].offset, sizeof v);
		rig_buf_double(b, v);
	}
	if (vertex >= 0)
		rig_buf_printf(b, ",\"vertexIndex\":%ld", vertex);
	rig_buf_puts(b, ",\"keys\":{");
	bool first = true;
	for (int c = 0; c < RIG_PIN_CH_COUNT; c++) {
		const struct rig_keys *keys = &pin->keys[c];
		if (!keys->count)
			continue;
		rig_buf_printf(b, "%s\"%s\":[", first ? "" : ",",
			       rig_pin_channel_name((enum rig_pin_channel)c));
		first = false;
		for (size_t k = 0; k < keys->count; k++) {
			const struct rig_key *key = &keys->items[k];
			rig_buf_puts(b, k ? ",{\"frame\":" : "{\"frame\":");
			rig_buf_double(b, key->frame);
			rig_buf_puts(b, ",\"value\":");
			rig_buf_double(b, key->value);
			rig_buf_printf(b, ",\"interp\":\"%s\"", rig_interp_name(key->interp));
			if (key->interp == RIG_INTERP_BEZIER) {
				rig_buf_puts(b, ",\"ease\":[");
				for (int e = 0; e < 4; e++) {
					if (e)
						rig_buf_puts(b, ",");
					rig_buf_double(b, key->ease[e]);
				}
				rig_buf_puts(b, "]");
			}
			rig_buf_puts(b, "}");
		}
		rig_buf_puts(b, "]");
	}
	rig_buf_puts(b, "}}");
}

void rig_pins_json_pin(struct rig_buf *b, const struct rig_puppet_pin *pin)
{
	rig_buf_puts(b, "{");
	pin_members(b, pin, -1);
}

/* The pins collection's item, its members in the order they always had:
 * {pinIndex, id, x, y, rotation, stiffness, scale, overlap, overlapExtent,
 * vertexIndex, keys}. */
void rig_pins_json_item(struct rig_buf *b, const struct rig_puppet_def *d, const double *source,
			size_t n_verts, size_t i)
{
	const struct rig_puppet_pin *pin = &d->pins[i];
	rig_buf_printf(b, "{\"pinIndex\":%zu,", i);
	pin_members(b, pin, (long)rig_puppet_nearest_vertex(source, n_verts, pin->x, pin->y));
}

void rig_pins_json_settings(struct rig_buf *b, const struct rig_puppet_def *d)
{
	rig_buf_puts(b, "{\"pins\":[");
	for (size_t i = 0; i < d->n_pins; i++) {
		if (i)
			rig_buf_puts(b, ",");
		rig_pins_json_pin(b, &d->pins[i]);
	}
	rig_buf_printf(b, "],\"solver\":\"%s\"", rig_puppet_solver_name(d->solver));
	if (d->has_max_rotation) {
		rig_buf_puts(b, ",\"maxRotationDeg\":");
		rig_buf_double(b, d->max_rotation_deg);
	}
	rig_buf_puts(b, "}");
}

/* pins: the pins collection's item (rig_pins_json_item). */
static void encode_pin(struct rig_buf *b, const struct rig_binding_type *type, const void *def,
		       const double *xy, size_t i)
{
	const struct rig_puppet_def *d = def;
	(void)type;
	(void)xy;
	rig_pins_json_item(b, d, d->source, d->n_verts, i);
}

static size_t count_verts(const struct rig_binding_type *type, const void *def)
{
	(void)type;
	return ((const struct rig_puppet_def *)def)->n_verts;
}

/* pinWeights: {vertexIndex, weights: [{pinId, weight}, …]}, vertex v's
 * normalised harmonic weights, the pins with a weight above 0 in pin order
 * (the evaluator's, computed once per stored revision). */
void rig_pins_json_weights(struct rig_buf *b, const struct rig_puppet *pup, size_t v)
{
	const struct rig_puppet_def *d = rig_puppet_def_of(pup);
	const double *w = rig_puppet_weights(pup);
	rig_buf_printf(b, "{\"vertexIndex\":%zu,\"weights\":[", v);
	bool first = true;
	for (size_t p = 0; w && p < d->n_pins; p++) {
		double x = w[v * d->n_pins + p];
		if (!(x > 0))
			continue;
		rig_buf_puts(b, first ? "{\"pinId\":" : ",{\"pinId\":");
		first = false;
		rig_buf_json_string(b, d->pins[p].id);
		rig_buf_puts(b, ",\"weight\":");
		rig_buf_double(b, x);
		rig_buf_puts(b, "}");
	}
	rig_buf_puts(b, "]}");
}

static void encode_pin_weights(struct rig_buf *b, const struct rig_binding_type *type,
			       const void *eval, size_t v)
{
	(void)type;
	rig_pins_json_weights(b, eval, v);
}

static const struct rig_binding_collection collections[] = {
	RIG_BINDING_COLLECTION_VERTICES,
	RIG_BINDING_COLLECTION_TRIANGLES,
	RIG_BINDING_COLLECTION_UVS,
	{"pins", true, false, count_pins, encode_pin, NULL, NULL, NULL},
	{"pinWeights", false, false, count_verts, NULL, encode_pin_weights, NULL, NULL},
};

static const struct rig_bulk_member bulk_members[] = {
	{"layer.puppet", "puppet", "source", RIG_BULK_SOURCE},
	{"layer.puppet", "puppet", "triangles", RIG_BULK_TRIANGLES},
};

/* A puppet's pins are its definition. */
static struct rig_puppet_def *pins(struct rig_model_layer *l, bool create)
{
	(void)create;
	return l->binding.def;
}

/* layer.mesh.generate: the puppet keeps its pins and settings (when l is a
 * puppet already; they anchor to the nearest new vertex) on the new mesh. */
static int remesh(struct rig_op_ctx *ctx, struct rig_op *op, struct rig_model_layer *l,
		  struct rig_tess_mesh *mesh)
{
	struct rig_puppet_def d = {0};
	if (l->binding.type == &rig_binding_puppet) {
		if (rig_puppet_def_copy(&d, l->binding.def) != 0) {
			rig_op__fail_layer(ctx, op, RIG_MEMORY_BUSY, "",
					   "the server ran out of memory");
			return -1;
		}
		rig_puppet_def_release_arrays(&d);
	} else if (!(d.pins = calloc(1, sizeof *d.pins))) {
		rig_op__fail_layer(ctx, op, RIG_MEMORY_BUSY, "", "the server ran out of memory");
		return -1;
	}
	d.source = mesh->source;
	d.n_verts = mesh->n_verts;
	d.triangles = mesh->triangles;
	d.n_tris = mesh->n_tris;
	d.uvs = mesh->uvs;
	memset(mesh, 0, sizeof *mesh);
	return rig_op__binding_install(ctx, op, l, &rig_binding_puppet, &d, sizeof d, false, NULL);
}

const struct rig_binding_kind rig_binding_kind_puppet = {
	.type = &rig_binding_puppet,
	.pins = pins,
	.rest_apply = rest_apply,
	.summary = summary,
	.collections = collections,
	.n_collections = sizeof collections / sizeof collections[0],
	.bulk_members = bulk_members,
	.n_bulk_members = sizeof bulk_members / sizeof bulk_members[0],
	.ops = ops,
	.n_ops = sizeof ops / sizeof ops[0],
	.remesh = remesh,
};
