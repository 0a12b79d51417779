/* The puppet's row of the binding table (binding.h): its definition's rules,
 * the evaluator seen through the interface, its generic stored form and the
 * parts a diff compares (source, triangles, pins, settings).
 *
 * Not yet listed in RIG_BINDING_KINDS: a kind there needs its edit row
 * (api/edit) too. Until then the row is reached by its name only, by the
 * unit tests.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/binding.h"
#include "core/binding_form.h"
#include "core/bytes.h"
#include "core/puppet.h"
#include "core/rig_limits.h"

/* ------------------------------------------------------------------------ */
/* The stored form: little-endian, head and arrays                           */
/* ------------------------------------------------------------------------ */
/* head: "PUP1" and the counts (core/binding_form.h; n_keys is every pin's
 * keys together), u32 solver, u32 has_max_rotation, f64 max_rotation_deg,
 * u64 n_pins; per pin u32 id length, the id's bytes, 7 f64 (x, y, rotation,
 * stiffness, scale, overlap, overlapExtent) and 6 u32 key counts in channel
 * order; then per pin, per channel, per key its time (binding_form.h) and
 * f64 value. arrays: the rest mesh. */

static const char TAG[4] = {'P', 'U', 'P', '1'};
#define PIN_FIXED (4 + 7 * 8 + RIG_PIN_CH_COUNT * 4)
#define KEY_BYTES (RIG_FORM_KEY_TIME + 8)
#define SETTINGS_BYTES (4 + 4 + 8 + 8)

static size_t count_keys(const struct rig_puppet_def *d)
{
	size_t n = 0;
	for (size_t p = 0; p < d->n_pins; p++)
		for (int c = 0; c < RIG_PIN_CH_COUNT; c++)
			n += d->pins[p].keys[c].count;
	return n;
}

/* The head's size. */
static size_t head_bytes(const struct rig_puppet_def *d)
{
	size_t n = RIG_FORM_HEAD_FIXED + SETTINGS_BYTES + count_keys(d) * KEY_BYTES;
	for (size_t p = 0; p < d->n_pins; p++)
		n += PIN_FIXED + strlen(d->pins[p].id);
	return n;
}

/* Writes the head (head_bytes of d) at p. */
static void head_put(unsigned char *p, const struct rig_puppet_def *d)
{
	p = rig_form_head_put(p, TAG, d->n_verts, d->n_tris, count_keys(d));
	p = rig_bytes_put_u32(p, (uint32_t)d->solver);
	p = rig_bytes_put_u32(p, d->has_max_rotation);
	p = rig_bytes_put_f64(p, d->max_rotation_deg);
	p = rig_bytes_put_u64(p, d->n_pins);
	for (size_t i = 0; i < d->n_pins; i++) {
		const struct rig_puppet_pin *pin = &d->pins[i];
		size_t len = strlen(pin->id);
		p = rig_bytes_put_u32(p, (uint32_t)len);
		memcpy(p, pin->id, len);
		p += len;
		const double statics[7] = {
			pin->x,     pin->y,       pin->rotation_deg,  pin->stiffness,
			pin->scale, pin->overlap, pin->overlap_extent};
		for (int k = 0; k < 7; k++)
			p = rig_bytes_put_f64(p, statics[k]);
		for (int c = 0; c < RIG_PIN_CH_COUNT; c++)
			p = rig_bytes_put_u32(p, (uint32_t)pin->keys[c].count);
	}
	for (size_t i = 0; i < d->n_pins; i++) {
		for (int c = 0; c < RIG_PIN_CH_COUNT; c++) {
			const struct rig_keys *keys = &d->pins[i].keys[c];
			for (size_t k = 0; k < keys->count; k++) {
				p = rig_form_key_time_put(p, &keys->items[k]);
				p = rig_bytes_put_f64(p, keys->items[k].value);
			}
		}
	}
}

static int encode(const void *def, unsigned char **head, size_t *n_head, unsigned char **arrays,
		  size_t *n_arrays)
{
	const struct rig_puppet_def *d = def;
	*n_head = head_bytes(d);
	*n_arrays =
		rig_form_rest_bytes(d->n_verts, d->n_tris) + rig_form_uvs_bytes(d->uvs, d->n_verts);
	int rc = rig_form_alloc(head, *n_head, arrays, *n_arrays);
	if (rc)
		return rc;
	head_put(*head, d);
	unsigned char *p =
		rig_form_rest_put(*arrays, d->source, d->n_verts, d->triangles, d->n_tris);
	rig_form_uvs_put(p, d->uvs, d->n_verts);
	return 0;
}

unsigned char *rig_puppet_pins_encode(const struct rig_puppet_def *d, size_t *n)
{
	*n = head_bytes(d);
	unsigned char *p = malloc(*n);
	if (p)
		head_put(p, d);
	return p;
}

/* A reader that refuses to pass the end of its bytes. */
struct reader {
	const unsigned char *p, *end;
};

static bool has(const struct reader *r, size_t n)
{
	return (size_t)(r->end - r->p) >= n;
}

/* Reads the pins (n_pins of them, the array zeroed) from r; 0 or -1. */
static int decode_pins(struct rig_puppet_def *d, struct reader *r, size_t n_keys)
{
	size_t total = 0;
	for (size_t i = 0; i < d->n_pins; i++) {
		struct rig_puppet_pin *pin = &d->pins[i];
		if (!has(r, 4))
			return -1;
		uint32_t len = rig_bytes_get_u32(&r->p);
		if (len == 0 || len > RIG_ID_MAX || !has(r, len + PIN_FIXED - 4))
			return -1;
		memcpy(pin->id, r->p, len);
		pin->id[len] = '\0';
		r->p += len;
		double *statics[7] = {
			&pin->x,     &pin->y,       &pin->rotation_deg,  &pin->stiffness,
			&pin->scale, &pin->overlap, &pin->overlap_extent};
		for (int k = 0; k < 7; k++)
			*statics[k] = rig_bytes_get_f64(&r->p);
		for (int c = 0; c < RIG_PIN_CH_COUNT; c++) {
			size_t n = rig_bytes_get_u32(&r->p);
			if (n > n_keys - total)
				return -1;
			total += n;
			pin->keys[c].count = n;
		}
	}
	if (total != n_keys)
		return -1;
	for (size_t i = 0; i < d->n_pins; i++) {
		for (int c = 0; c < RIG_PIN_CH_COUNT; c++) {
			struct rig_keys *keys = &d->pins[i].keys[c];
			size_t n = keys->count;
			keys->count = 0;
			if (n == 0)
				continue;
			if (!has(r, n * KEY_BYTES) ||
			    !(keys->items = calloc(n, sizeof *keys->items)))
				return -1;
			keys->count = n;
			for (size_t k = 0; k < n; k++) {
				rig_form_key_time_get(&r->p, &keys->items[k]);
				keys->items[k].value = rig_bytes_get_f64(&r->p);
			}
		}
	}
	return 0;
}

static void *decode(const unsigned char *head, size_t n_head, const unsigned char *arrays,
		    size_t n_arrays)
{
	if (n_head < RIG_FORM_HEAD_FIXED + SETTINGS_BYTES || memcmp(head, TAG, 4) != 0)
		return NULL;
	struct reader r = {head + 4, head + n_head};
	uint64_t nv = rig_bytes_get_u64(&r.p), nt = rig_bytes_get_u64(&r.p);
	uint64_t nk = rig_bytes_get_u64(&r.p);
	uint32_t solver = rig_bytes_get_u32(&r.p), has_max = rig_bytes_get_u32(&r.p);
	double max_deg = rig_bytes_get_f64(&r.p);
	uint64_t np = rig_bytes_get_u64(&r.p);
	if (nv > RIG_MAX_VERTICES || nt > RIG_MAX_TRIANGLES || np > RIG_MAX_PUPPET_PINS ||
	    nk > n_head / KEY_BYTES || solver > RIG_PUPPET_SOLVER_LBS || has_max > 1)
		return NULL;
	struct rig_puppet_def *d = calloc(1, sizeof *d);
	if (!d)
		return NULL;
	d->n_verts = (size_t)nv;
	d->n_tris = (size_t)nt;
	d->solver = (enum rig_puppet_solver)solver;
	d->has_max_rotation = has_max;
	d->max_rotation_deg = max_deg;
	d->pins = calloc((size_t)np + 1, sizeof *d->pins);
	if (!d->pins)
		goto fail;
	d->n_pins = (size_t)np;
	if (decode_pins(d, &r, (size_t)nk) != 0 || r.p != r.end)
		goto fail;
	if (arrays) {
		const unsigned char *p = arrays;
		size_t rest = rig_form_rest_bytes(d->n_verts, d->n_tris);
		if (n_arrays < rest ||
		    rig_form_rest_get(&p, &d->source, d->n_verts, &d->triangles, d->n_tris) != 0 ||
		    rig_form_uvs_get(&p, n_arrays - rest, &d->uvs, d->n_verts) != 0)
			goto fail;
	}
	return d;
fail:
	rig_puppet_def_release(d);
	free(d);
	return NULL;
}

struct rig_puppet_def *rig_puppet_pins_decode(const unsigned char *p, size_t n)
{
	return decode(p, n, NULL, 0);
}

/* ------------------------------------------------------------------------ */
/* The row                                                                   */
/* ------------------------------------------------------------------------ */

RIG_BINDING_REST_ACCESSORS(struct rig_puppet_def)

static int validate(const void *def, struct rig_errs *errs)
{
	return rig_puppet_def_check(def, errs);
}

static void def_free(void *def)
{
	if (!def)
		return;
	rig_puppet_def_release(def);
	free(def);
}

static void *def_copy(const void *def)
{
	struct rig_puppet_def *copy = malloc(sizeof *copy);
	if (copy && rig_puppet_def_copy(copy, def) != 0) {
		free(copy);
		copy = NULL;
	}
	return copy;
}

static void def_release_arrays(void *def)
{
	rig_puppet_def_release_arrays(def);
}

size_t rig_puppet_pins_bytes(const struct rig_puppet_def *d)
{
	return sizeof *d + d->n_pins * sizeof *d->pins + count_keys(d) * sizeof(struct rig_key);
}

static size_t def_bytes(const void *def)
{
	return rig_puppet_pins_bytes(def);
}

static void *prepare(void *def, struct rig_errs *errs)
{
	return rig_puppet_take(def, errs);
}

static const void *eval_def(const void *eval)
{
	return rig_puppet_def_of(eval);
}

/* A puppet's shape follows its pins' keys only: no joint poses enter. */
static int evaluate(double *out_xy, const void *eval, const struct rig_affine *poses,
		    double local_frame, struct rig_errs *errs)
{
	(void)poses;
	return rig_puppet_evaluate(out_xy, NULL, eval, local_frame, errs);
}

/* The frame with the solver that ran and, when asked, the overlap order. */
static int evaluate_noted(double *out_xy, struct rig_frame_note *note, const void *eval,
			  const struct rig_affine *poses, double local_frame, struct rig_errs *errs)
{
	(void)poses;
	enum rig_puppet_ran ran = RIG_PUPPET_RAN_LBS;
	if (rig_puppet_evaluate(out_xy, &ran, eval, local_frame, errs) != 0)
		return -1;
	return rig_puppet_note(note, ran, eval, local_frame, errs);
}

int rig_puppet_note(struct rig_frame_note *note, enum rig_puppet_ran ran,
		    const struct rig_puppet *pup, double local_frame, struct rig_errs *errs)
{
	note->solver = rig_puppet_ran_name(ran);
	if (!note->order)
		return 0;
	const struct rig_puppet_def *d = rig_puppet_def_of(pup);
	struct rig_puppet_pin_pose *pin_poses = malloc((d->n_pins + 1) * sizeof *pin_poses);
	if (!pin_poses) {
		rig_errs_add(errs, RIG_INTERNAL, "out of memory");
		return -1;
	}
	rig_puppet_pose_at(pin_poses, pup, local_frame);
	int rc = rig_puppet_triangle_order(note->order, pup, pin_poses);
	free(pin_poses);
	if (rc < 0) {
		rig_errs_add(errs, RIG_INTERNAL, "out of memory");
		return -1;
	}
	note->reordered = rc == 1;
	return 0;
}

static size_t bytes(const void *eval)
{
	return rig_puppet_bytes(eval);
}

static void free_eval(void *eval)
{
	rig_puppet_free(eval);
}

/* ---- the diff's parts ---- */

static bool same_bits(double a, double b)
{
	return memcmp(&a, &b, sizeof a) == 0;
}

static bool same_keys(const struct rig_keys *a, const struct rig_keys *b)
{
	if (a->count != b->count)
		return false;
	for (size_t k = 0; k < a->count; k++) {
		const struct rig_key *x = &a->items[k], *y = &b->items[k];
		if (!same_bits(x->frame, y->frame) || !same_bits(x->value, y->value) ||
		    x->interp != y->interp)
			return false;
		for (int e = 0; e < 4; e++)
			if (!same_bits(x->ease[e], y->ease[e]))
				return false;
	}
	return true;
}

/* Two pins of one id alike: the rest position, every static and every key. */
static bool same_pin(const struct rig_puppet_pin *a, const struct rig_puppet_pin *b)
{
	if (!same_bits(a->overlap_extent, b->overlap_extent))
		return false;
	for (int c = 0; c < RIG_PIN_CH_COUNT; c++)
		if (!same_bits(rig_puppet_pin_static(a, (enum rig_pin_channel)c),
			       rig_puppet_pin_static(b, (enum rig_pin_channel)c)) ||
		    !same_keys(&a->keys[c], &b->keys[c]))
			return false;
	return true;
}

int rig_puppet_diff_pins(struct rig_part_diff *out, const struct rig_puppet_def *a,
			 const struct rig_puppet_def *b)
{
	for (size_t i = 0; i < a->n_pins; i++) {
		long j = rig_puppet_def_pin_find(b, a->pins[i].id);
		int rc = 0;
		if (j < 0)
			rc = rig_ids_add(&out->ids.removed, a->pins[i].id);
		else if (!same_pin(&a->pins[i], &b->pins[j]))
			rc = rig_ids_add(&out->ids.changed, a->pins[i].id);
		if (rc)
			return -1;
	}
	for (size_t j = 0; j < b->n_pins; j++)
		if (rig_puppet_def_pin_find(a, b->pins[j].id) < 0 &&
		    rig_ids_add(&out->ids.added, b->pins[j].id))
			return -1;
	return 0;
}

/* pins, matched by id: added, removed, and changed (position, statics, keys). */
static int diff_pins(struct rig_part_diff *out, const struct rig_binding_type *type,
		     const void *def_a, const void *def_b)
{
	(void)type;
	return rig_puppet_diff_pins(out, def_a, def_b);
}

int rig_puppet_diff_settings(struct rig_part_diff *out, const struct rig_puppet_def *a,
			     const struct rig_puppet_def *b)
{
	if (a->solver != b->solver && rig_ids_add(&out->ids.changed, "solver"))
		return -1;
	if ((a->has_max_rotation != b->has_max_rotation ||
	     (a->has_max_rotation && !same_bits(a->max_rotation_deg, b->max_rotation_deg))) &&
	    rig_ids_add(&out->ids.changed, "maxRotationDeg"))
		return -1;
	return 0;
}

/* settings: "solver" and "maxRotationDeg", changed when they differ. */
static int diff_settings(struct rig_part_diff *out, const struct rig_binding_type *type,
			 const void *def_a, const void *def_b)
{
	(void)type;
	return rig_puppet_diff_settings(out, def_a, def_b);
}

static const struct rig_binding_part parts[] = {
	RIG_BINDING_PART_SOURCE,
	RIG_BINDING_PART_TRIANGLES,
	RIG_BINDING_PART_UVS,
	{"pins", RIG_DIFF_IDS, NULL, diff_pins},
	{"settings", RIG_DIFF_IDS, NULL, diff_settings},
};

/* The mesh binding's figure for the rest mesh and its runs (108 B a vertex,
 * 20 B a triangle), and per pin its struct, its keys and three ids (added,
 * removed or changed, each list's entry). */
static size_t diff_bytes(const void *def, size_t n_verts, size_t n_tris)
{
	const struct rig_puppet_def *d = def;
	/* + 16 + 24: uvs and their runs (whether there are uvs is in the arrays) */
	return n_verts * (16 + 4 + 64 + 24 + 16 + 24) + n_tris * (12 + 8) +
	       d->n_pins * (sizeof *d->pins + 3 * (RIG_ID_MAX + 1)) +
	       count_keys(d) * sizeof(struct rig_key);
}

const struct rig_binding_type rig_binding_puppet = {
	.name = "puppet",
	.validate = validate,
	.def_free = def_free,
	.def_copy = def_copy,
	.def_release_arrays = def_release_arrays,
	.def_bytes = def_bytes,
	RIG_BINDING_REST_ROW,
	RIG_BINDING_NO_JOINTS_ROW,
	.prepare = prepare,
	.eval_def = eval_def,
	.evaluate = evaluate,
	.evaluate_noted = evaluate_noted,
	.bytes = bytes,
	.free = free_eval,
	.parts = parts,
	.n_parts = sizeof parts / sizeof parts[0],
	.diff_bytes = diff_bytes,
	.encode = encode,
	.decode = decode,
};
