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

/* ---- the stored form: little-endian, head and mesh ---- */
/* head: "OFS1", u64 n_verts, u64 n_tris, u64 n_keys, then per key f64 frame,
 *       u32 interp, 4 × f64 ease, f64 x, f64 y;
 * mesh: 2 · n_verts f64 source, 3 · n_tris u32 triangles. */

#define HEAD_FIXED (4 + 3 * 8)
#define HEAD_PER_KEY (8 + 4 + 4 * 8 + 2 * 8)

static int encode(const void *def, unsigned char **head, size_t *n_head, unsigned char **mesh,
		  size_t *n_mesh)
{
	const struct rig_offset_def *d = def;
	*n_head = HEAD_FIXED + d->n_keys * HEAD_PER_KEY;
	*n_mesh = d->n_verts * 16 + d->n_tris * 12;
	*head = malloc(*n_head);
	*mesh = malloc(*n_mesh ? *n_mesh : 1);
	if (!*head || !*mesh) {
		free(*head);
		free(*mesh);
		*head = *mesh = NULL;
		return -RIG_MEMORY_BUSY;
	}
	unsigned char *p = *head;
	memcpy(p, "OFS1", 4);
	p = rig_bytes_put_u64(p + 4, d->n_verts);
	p = rig_bytes_put_u64(p, d->n_tris);
	p = rig_bytes_put_u64(p, d->n_keys);
	for (size_t k = 0; k < d->n_keys; k++) {
		p = rig_bytes_put_f64(p, d->keys[k].frame);
		p = rig_bytes_put_u32(p, (uint32_t)d->keys[k].interp);
		for (int e = 0; e < 4; e++)
			p = rig_bytes_put_f64(p, d->keys[k].ease[e]);
		p = rig_bytes_put_f64(p, d->keys[k].value);
		p = rig_bytes_put_f64(p, d->dy[k]);
	}
	p = *mesh;
	for (size_t i = 0; i < 2 * d->n_verts; i++)
		p = rig_bytes_put_f64(p, d->source[i]);
	for (size_t i = 0; i < 3 * d->n_tris; i++)
		p = rig_bytes_put_u32(p, d->triangles[i]);
	return 0;
}

static void *decode(const unsigned char *head, size_t n_head, const unsigned char *mesh,
		    size_t n_mesh)
{
	if (n_head < HEAD_FIXED || memcmp(head, "OFS1", 4) != 0)
		return NULL;
	const unsigned char *p = head + 4;
	uint64_t n_verts = rig_bytes_get_u64(&p), n_tris = rig_bytes_get_u64(&p),
		 n_keys = rig_bytes_get_u64(&p);
	if (n_verts > RIG_MAX_VERTICES || n_tris > RIG_MAX_TRIANGLES ||
	    n_keys > (n_head - HEAD_FIXED) / HEAD_PER_KEY ||
	    n_head != HEAD_FIXED + n_keys * HEAD_PER_KEY)
		return NULL;
	struct rig_offset_def *d = calloc(1, sizeof *d);
	if (!d)
		return NULL;
	d->n_verts = (size_t)n_verts;
	d->n_tris = (size_t)n_tris;
	d->n_keys = (size_t)n_keys;
	d->keys = calloc(d->n_keys ? d->n_keys : 1, sizeof *d->keys);
	d->dy = calloc(d->n_keys ? d->n_keys : 1, sizeof *d->dy);
	if (!d->keys || !d->dy)
		goto fail;
	for (size_t k = 0; k < d->n_keys; k++) {
		d->keys[k].frame = rig_bytes_get_f64(&p);
		d->keys[k].interp = (enum rig_interp)rig_bytes_get_u32(&p);
		for (int e = 0; e < 4; e++)
			d->keys[k].ease[e] = rig_bytes_get_f64(&p);
		d->keys[k].value = rig_bytes_get_f64(&p);
		d->dy[k] = rig_bytes_get_f64(&p);
	}
	if (mesh) {
		if (n_mesh != d->n_verts * 16 + d->n_tris * 12)
			goto fail;
		d->source = malloc((d->n_verts ? 2 * d->n_verts : 1) * sizeof *d->source);
		d->triangles = malloc((d->n_tris ? 3 * d->n_tris : 1) * sizeof *d->triangles);
		if (!d->source || !d->triangles)
			goto fail;
		p = mesh;
		for (size_t i = 0; i < 2 * d->n_verts; i++)
			d->source[i] = rig_bytes_get_f64(&p);
		for (size_t i = 0; i < 3 * d->n_tris; i++)
			d->triangles[i] = rig_bytes_get_u32(&p);
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

static void def_release_mesh(void *def)
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

static size_t def_n_verts(const void *def)
{
	return ((const struct rig_offset_def *)def)->n_verts;
}

static size_t def_n_tris(const void *def)
{
	return ((const struct rig_offset_def *)def)->n_tris;
}

static const double *def_source(const void *def)
{
	return ((const struct rig_offset_def *)def)->source;
}

static const uint32_t *def_triangles(const void *def)
{
	return ((const struct rig_offset_def *)def)->triangles;
}

static size_t def_n_joints(const void *def)
{
	(void)def;
	return 0;
}

static const char *def_joint_none(const void *def, size_t j)
{
	(void)def;
	(void)j;
	return "";
}

const struct rig_binding_type rig_binding_offset = {
	.name = "offset",
	.validate = validate,
	.def_free = def_free,
	.def_release_mesh = def_release_mesh,
	.def_bytes = def_bytes,
	.def_n_verts = def_n_verts,
	.def_n_tris = def_n_tris,
	.def_source = def_source,
	.def_triangles = def_triangles,
	.def_n_joints = def_n_joints,
	.def_joint_id = def_joint_none,
	.def_joint_layer = def_joint_none,
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
