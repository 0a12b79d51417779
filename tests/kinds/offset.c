/* The offset binding (offset.h): its rules, its evaluator, and its row of the
 * binding table (core/binding.h) with its stored form and the parts a diff
 * compares (source, triangles, offsets). The source rules are core/mesh.c's,
 * the interpolation core/keys.c's.
 */
#include "tests/kinds/offset.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/binding.h"
#include "core/binding_form.h"
#include "core/bytes.h"
#include "core/mesh.h"
#include "core/rig_limits.h"

/* ---- the definition ---- */

void rig_offset_def_release(struct rig_offset_def *d)
{
	free(d->source);
	free(d->triangles);
	free(d->keys);
	free(d->dy);
	memset(d, 0, sizeof *d);
}

int rig_offset_def_check(const struct rig_offset_def *d, struct rig_errs *errs)
{
	size_t before = errs->total;
	rig_mesh_check_source(d->source, d->n_verts, d->triangles, d->n_tris, errs);
	for (size_t k = 0; k < d->n_keys; k++) {
		size_t from = errs->count;
		rig_key_check(&d->keys[k], errs);
		if (!isfinite(d->dy[k])) {
			struct rig_err *e =
				rig_errs_add(errs, RIG_OP_INVALID, "key %zu: y must be finite", k);
			rig_strlcpy(e->pointer, "/y", sizeof e->pointer);
		}
		if (k > 0 && !(d->keys[k].frame > d->keys[k - 1].frame)) {
			struct rig_err *e = rig_errs_add(
				errs, RIG_OP_INVALID,
				"key %zu at frame %.17g does not follow the key before", k,
				d->keys[k].frame);
			rig_strlcpy(e->pointer, "/frame", sizeof e->pointer);
		}
		for (size_t i = from; i < errs->count; i++) {
			struct rig_err *e = &errs->items[i];
			char p[RIG_ERR_POINTER_MAX];
			/* rig_key_check names the value "/value": the wire calls it x */
			snprintf(p, sizeof p, "/keys/%zu%s", k,
				 strcmp(e->pointer, "/value") == 0 ? "/x" : e->pointer);
			rig_strlcpy(e->pointer, p, sizeof e->pointer);
		}
	}
	return errs->total == before ? 0 : -1;
}

void rig_offset_at(const struct rig_offset_def *d, double local_frame, double out[2])
{
	out[0] = out[1] = 0;
	if (d->n_keys == 0)
		return;
	struct rig_key_blend bl = rig_keys_blend(d->keys, d->n_keys, local_frame);
	out[0] = d->keys[bl.a].value + (d->keys[bl.b].value - d->keys[bl.a].value) * bl.u;
	out[1] = d->dy[bl.a] + (d->dy[bl.b] - d->dy[bl.a]) * bl.u;
}

/* ---- the evaluator: the definition with the source areas precomputed ---- */

struct offset_eval {
	struct rig_offset_def def;
	double *src_area2; /* n_tris */
};

static bool is_sound(const struct rig_offset_def *d)
{
	if (!d->source || !d->triangles || d->n_verts == 0 || d->n_tris == 0 ||
	    (d->n_keys && (!d->keys || !d->dy)))
		return false;
	for (size_t i = 0; i < 3 * d->n_tris; i++)
		if (d->triangles[i] >= d->n_verts)
			return false;
	for (size_t k = 0; k < d->n_keys; k++)
		if (!isfinite(d->keys[k].frame) ||
		    (unsigned)d->keys[k].interp > RIG_INTERP_BEZIER ||
		    (k > 0 && !(d->keys[k].frame > d->keys[k - 1].frame)))
			return false;
	return true;
}

/* Takes every array of def (def keeps its counts). */
static void *prepare(void *def, struct rig_errs *errs)
{
	struct rig_offset_def *d = def;
	if (!is_sound(d)) {
		rig_errs_add(errs, RIG_INTERNAL, "the stored offset binding is damaged");
		return NULL;
	}
	struct offset_eval *ev = calloc(1, sizeof *ev);
	double *area2 = malloc(d->n_tris * sizeof *area2);
	if (!ev || !area2) {
		free(ev);
		free(area2);
		rig_errs_add(errs, RIG_INTERNAL, "out of memory");
		return NULL;
	}
	rig_mesh_areas2(area2, d->source, d->triangles, d->n_tris);
	ev->def = *d;
	ev->src_area2 = area2;
	d->source = NULL;
	d->triangles = NULL;
	d->keys = NULL;
	d->dy = NULL;
	d->n_keys = 0;
	return ev;
}

static const void *eval_def(const void *eval)
{
	return &((const struct offset_eval *)eval)->def;
}

/* An offset binding follows no joint: poses are unused. */
static int evaluate(double *out_xy, const void *eval, const struct rig_affine *poses,
		    double local_frame, struct rig_errs *errs)
{
	const struct offset_eval *ev = eval;
	const struct rig_offset_def *d = &ev->def;
	double o[2];
	(void)poses;
	rig_offset_at(d, local_frame, o);
	for (size_t v = 0; v < d->n_verts; v++) {
		out_xy[2 * v] = d->source[2 * v] + o[0];
		out_xy[2 * v + 1] = d->source[2 * v + 1] + o[1];
	}
	return rig_mesh_check_deformed_areas(d->source, ev->src_area2, out_xy, d->n_verts,
					     d->triangles, d->n_tris, errs);
}

static size_t bytes(const void *eval)
{
	const struct offset_eval *ev = eval;
	const struct rig_offset_def *d = &ev->def;
	return sizeof *ev + d->n_verts * 16 + d->n_tris * (12 + 8) +
	       d->n_keys * (sizeof *d->keys + sizeof *d->dy);
}

static void free_eval(void *eval)
{
	struct offset_eval *ev = eval;
	if (!ev)
		return;
	rig_offset_def_release(&ev->def);
	free(ev->src_area2);
	free(ev);
}

/* ---- the stored form: little-endian, head and arrays ---- */
/* head: "OFS1", counts and per key its time (core/binding_form.h), then
 *       f64 x, f64 y; arrays: the rest mesh. */

static const char TAG[4] = {'O', 'F', 'S', '1'};
#define HEAD_PER_KEY (RIG_FORM_KEY_TIME + 2 * 8)

static int encode(const void *def, unsigned char **head, size_t *n_head, unsigned char **arrays,
		  size_t *n_arrays)
{
	const struct rig_offset_def *d = def;
	*n_head = RIG_FORM_HEAD_FIXED + d->n_keys * HEAD_PER_KEY;
	*n_arrays = rig_form_rest_bytes(d->n_verts, d->n_tris);
	int rc = rig_form_alloc(head, *n_head, arrays, *n_arrays);
	if (rc)
		return rc;
	unsigned char *p = rig_form_head_put(*head, TAG, d->n_verts, d->n_tris, d->n_keys);
	for (size_t k = 0; k < d->n_keys; k++) {
		p = rig_form_key_time_put(p, &d->keys[k]);
		p = rig_bytes_put_f64(p, d->keys[k].value);
		p = rig_bytes_put_f64(p, d->dy[k]);
	}
	rig_form_rest_put(*arrays, d->source, d->n_verts, d->triangles, d->n_tris);
	return 0;
}

static void *decode(const unsigned char *head, size_t n_head, const unsigned char *arrays,
		    size_t n_arrays)
{
	const unsigned char *p;
	size_t n_verts, n_tris, n_keys;
	if (rig_form_head_get(&p, head, n_head, TAG, HEAD_PER_KEY, &n_verts, &n_tris, &n_keys) != 0)
		return NULL;
	struct rig_offset_def *d = calloc(1, sizeof *d);
	if (!d)
		return NULL;
	d->n_verts = n_verts;
	d->n_tris = n_tris;
	d->n_keys = n_keys;
	d->keys = calloc(d->n_keys ? d->n_keys : 1, sizeof *d->keys);
	d->dy = calloc(d->n_keys ? d->n_keys : 1, sizeof *d->dy);
	if (!d->keys || !d->dy)
		goto fail;
	for (size_t k = 0; k < d->n_keys; k++) {
		rig_form_key_time_get(&p, &d->keys[k]);
		d->keys[k].value = rig_bytes_get_f64(&p);
		d->dy[k] = rig_bytes_get_f64(&p);
	}
	if (arrays) {
		const unsigned char *a = arrays;
		if (n_arrays != rig_form_rest_bytes(d->n_verts, d->n_tris) ||
		    rig_form_rest_get(&a, &d->source, d->n_verts, &d->triangles, d->n_tris) != 0)
			goto fail;
	}
	return d;
fail:
	rig_offset_def_release(d);
	free(d);
	return NULL;
}

/* ---- the diff's parts ---- */

struct key_pair {
	const struct rig_offset_def *a, *b;
};

/* Keys at one frame hold the same y offset (rig_keys_diff compares the rest). */
static bool same_y(const void *ctx, size_t i, size_t j)
{
	const struct key_pair *p = ctx;
	return memcmp(&p->a->dy[i], &p->b->dy[j], sizeof(double)) == 0;
}

static int diff_offsets(struct rig_part_diff *out, const struct rig_binding_type *type,
			const void *def_a, const void *def_b)
{
	struct key_pair p = {def_a, def_b};
	(void)type;
	return rig_keys_diff(&out->frames, p.a->keys, p.a->n_keys, p.b->keys, p.b->n_keys, same_y,
			     &p);
}

static const struct rig_binding_part parts[] = {
	RIG_BINDING_PART_SOURCE,
	RIG_BINDING_PART_TRIANGLES,
	{"offsets", RIG_DIFF_FRAMES, NULL, diff_offsets},
};

/* The arrays read (16 B a vertex, 12 B a triangle) and runs of every second
 * index (8 B each), with the keys. */
static size_t diff_bytes(const void *def, size_t n_verts, size_t n_tris)
{
	const struct rig_offset_def *d = def;
	return n_verts * (16 + 8) + n_tris * (12 + 8) + d->n_keys * HEAD_PER_KEY;
}

/* ---- the row ---- */

RIG_BINDING_REST_ACCESSORS(struct rig_offset_def)

static int validate(const void *def, struct rig_errs *errs)
{
	return rig_offset_def_check(def, errs);
}

static void def_free(void *def)
{
	if (!def)
		return;
	rig_offset_def_release(def);
	free(def);
}

static void def_release_arrays(void *def)
{
	struct rig_offset_def *d = def;
	free(d->source);
	free(d->triangles);
	d->source = NULL;
	d->triangles = NULL;
}

static size_t def_bytes(const void *def)
{
	const struct rig_offset_def *d = def;
	return sizeof *d + d->n_keys * (sizeof *d->keys + sizeof *d->dy);
}

const struct rig_binding_type rig_binding_offset = {
	.name = "offset",
	.validate = validate,
	.def_free = def_free,
	.def_release_arrays = def_release_arrays,
	.def_bytes = def_bytes,
	RIG_BINDING_REST_ROW,
	RIG_BINDING_NO_JOINTS_ROW,
	.prepare = prepare,
	.eval_def = eval_def,
	.evaluate = evaluate,
	.bytes = bytes,
	.free = free_eval,
	.parts = parts,
	.n_parts = sizeof parts / sizeof parts[0],
	.diff_bytes = diff_bytes,
	.encode = encode,
	.decode = decode,
};
