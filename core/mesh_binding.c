/* The mesh binding (mesh_binding.h): its definition's rules and key edits,
 * the evaluator, and its row of the binding table with its stored form and
 * the parts a diff compares (source, triangles, keys).
 *
 * The source rules are core/mesh.c's and the interpolation is core/keys.c's
 * (rig_keys_blend); this file only applies them per vertex.
 */
#include "core/mesh_binding.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/binding.h"
#include "core/binding_form.h"
#include "core/bytes.h"
#include "core/mesh.h"
#include "core/mesh_check.h"
#include "core/rig_limits.h"

/* ------------------------------------------------------------------------ */
/* The definition                                                            */
/* ------------------------------------------------------------------------ */

static void free_key_xy(struct rig_mesh_def *d)
{
	for (size_t k = 0; d->key_xy && k < d->n_keys; k++)
		free(d->key_xy[k]);
	free(d->key_xy);
	d->key_xy = NULL;
}

void rig_mesh_def_release_arrays(struct rig_mesh_def *d)
{
	free(d->source);
	free(d->triangles);
	free(d->uvs);
	d->source = NULL;
	d->triangles = NULL;
	d->uvs = NULL;
	free_key_xy(d);
}

void rig_mesh_def_release(struct rig_mesh_def *d)
{
	rig_mesh_def_release_arrays(d);
	free(d->times);
	memset(d, 0, sizeof *d);
}

int rig_mesh_check_key_vertices(const double *xy, size_t n, size_t n_verts, struct rig_errs *errs)
{
	if (n != n_verts) {
		struct rig_err *e =
			rig_errs_add(errs, RIG_MESH_GEOMETRY,
				     "key has %zu vertices; the mesh has %zu", n, n_verts);
		rig_err_extra_number(e, "keyVertexCount", (double)n);
		rig_err_extra_number(e, "vertexCount", (double)n_verts);
		return -1;
	}
	size_t before = errs->total;
	for (size_t v = 0; v < n; v++) {
		if (isfinite(xy[2 * v]) && isfinite(xy[2 * v + 1]))
			continue;
		struct rig_err *e = rig_errs_add(errs, RIG_MESH_GEOMETRY,
						 "key vertex %zu has a non-finite coordinate", v);
		e->vertex_index = (long)v;
		snprintf(e->pointer, sizeof e->pointer, "/%zu", v);
	}
	return errs->total == before ? 0 : -1;
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

int rig_mesh_def_check(const struct rig_mesh_def *d, struct rig_errs *errs)
{
	size_t before = errs->total;
	rig_mesh_check_source(d->source, d->n_verts, d->triangles, d->n_tris, errs);
	rig_mesh_check_uvs(d->uvs, d->n_verts, errs);
	if (d->n_keys && d->n_verts > RIG_MAX_MESH_KEY_VERTICES / d->n_keys) {
		struct rig_err *e =
			rig_errs_add(errs, RIG_MESH_GEOMETRY,
				     "%zu keys of %zu vertices exceed the limit of %d key vertices",
				     d->n_keys, d->n_verts, RIG_MAX_MESH_KEY_VERTICES);
		rig_err_extra_number(e, "keyCount", (double)d->n_keys);
		rig_err_extra_number(e, "vertexCount", (double)d->n_verts);
		rig_err_extra_number(e, "limit", RIG_MAX_MESH_KEY_VERTICES);
		rig_strlcpy(e->pointer, "/keys", sizeof e->pointer);
	}
	for (size_t k = 0; k < d->n_keys; k++) {
		char prefix[48];
		size_t from = errs->count;
		rig_key_check(&d->times[k], errs);
		if (k > 0 && !(d->times[k].frame > d->times[k - 1].frame)) {
			struct rig_err *e = rig_errs_add(
				errs, RIG_OP_INVALID,
				"key %zu at frame %.17g does not follow the key before", k,
				d->times[k].frame);
			rig_strlcpy(e->pointer, "/frame", sizeof e->pointer);
		}
		snprintf(prefix, sizeof prefix, "/keys/%zu", k);
		prefix_pointers(errs, from, prefix);
		from = errs->count;
		rig_mesh_check_key_vertices(d->key_xy[k], d->n_verts, d->n_verts, errs);
		snprintf(prefix, sizeof prefix, "/keys/%zu/vertices", k);
		prefix_pointers(errs, from, prefix);
		for (size_t i = from; i < errs->count; i++) {
			errs->items[i].has_frame = true;
			errs->items[i].frame = d->times[k].frame;
		}
	}
	return errs->total == before ? 0 : -1;
}

long rig_mesh_def_key_find(const struct rig_mesh_def *d, double frame)
{
	for (size_t k = 0; k < d->n_keys; k++)
		if (d->times[k].frame == frame)
			return (long)k;
	return -1;
}

int rig_mesh_def_key_put(struct rig_mesh_def *d, const struct rig_key *time, double *xy)
{
	long at = rig_mesh_def_key_find(d, time->frame);
	struct rig_key t = *time;
	t.value = 0;
	if (at >= 0) {
		free(d->key_xy[at]);
		d->key_xy[at] = xy;
		d->times[at] = t;
		return 0;
	}
	size_t n = d->n_keys + 1;
	struct rig_key *times = realloc(d->times, n * sizeof *times);
	if (!times)
		return -1;
	d->times = times;
	double **key_xy = realloc(d->key_xy, n * sizeof *key_xy);
	if (!key_xy)
		return -1; /* times only grew: d still reads the same */
	d->key_xy = key_xy;
	size_t pos = 0;
	while (pos < d->n_keys && d->times[pos].frame < t.frame)
		pos++;
	memmove(&d->times[pos + 1], &d->times[pos], (d->n_keys - pos) * sizeof *d->times);
	memmove(&d->key_xy[pos + 1], &d->key_xy[pos], (d->n_keys - pos) * sizeof *d->key_xy);
	d->times[pos] = t;
	d->key_xy[pos] = xy;
	d->n_keys = n;
	return 0;
}

bool rig_mesh_def_key_delete(struct rig_mesh_def *d, double frame)
{
	long at = rig_mesh_def_key_find(d, frame);
	if (at < 0)
		return false;
	size_t tail = d->n_keys - (size_t)at - 1;
	if (d->key_xy) {
		free(d->key_xy[at]);
		memmove(&d->key_xy[at], &d->key_xy[at + 1], tail * sizeof *d->key_xy);
	}
	memmove(&d->times[at], &d->times[at + 1], tail * sizeof *d->times);
	d->n_keys--;
	return true;
}

/* value = a + (b − a) · u per coordinate: rig_keys_eval's formula, vertex by
 * vertex, so a keyed vertex moves exactly as a keyed channel would. */
void rig_mesh_def_shape(double *out_xy, const struct rig_mesh_def *d, double local_frame)
{
	size_t n = 2 * d->n_verts;
	if (d->n_keys == 0) {
		memcpy(out_xy, d->source, n * sizeof *out_xy);
		return;
	}
	struct rig_key_blend bl = rig_keys_blend(d->times, d->n_keys, local_frame);
	const double *a = d->key_xy[bl.a];
	if (bl.a == bl.b) {
		memcpy(out_xy, a, n * sizeof *out_xy);
		return;
	}
	const double *b = d->key_xy[bl.b];
	double u = bl.u;
	for (size_t i = 0; i < n; i++)
		out_xy[i] = a[i] + (b[i] - a[i]) * u;
}

/* ------------------------------------------------------------------------ */
/* The evaluator                                                             */
/* ------------------------------------------------------------------------ */

struct rig_mesh_eval {
	struct rig_mesh_def def;
	struct rig_mesh_check check; /* the deformed-mesh check of the source */
};

static bool is_sound(const struct rig_mesh_def *d)
{
	if (!d->source || !d->triangles || d->n_verts == 0 || d->n_tris == 0 ||
	    (d->n_keys && (!d->key_xy || !d->times)))
		return false;
	for (size_t i = 0; i < 3 * d->n_tris; i++)
		if (d->triangles[i] >= d->n_verts)
			return false;
	for (size_t k = 0; k < d->n_keys; k++) {
		if (!d->key_xy[k] || !isfinite(d->times[k].frame) ||
		    (unsigned)d->times[k].interp > RIG_INTERP_BEZIER)
			return false;
		if (k > 0 && !(d->times[k].frame > d->times[k - 1].frame))
			return false;
	}
	return true;
}

struct rig_mesh_eval *rig_mesh_eval_take(struct rig_mesh_def *def, struct rig_errs *errs)
{
	if (!is_sound(def)) {
		rig_errs_add(errs, RIG_INTERNAL, "the stored mesh binding is damaged");
		return NULL;
	}
	struct rig_mesh_eval *ev = calloc(1, sizeof *ev);
	if (!ev || rig_mesh_check_init(&ev->check, def->source, def->n_verts, def->triangles,
				       def->n_tris, rig_isa_best()) != 0) {
		free(ev);
		rig_errs_add(errs, RIG_INTERNAL, "out of memory");
		return NULL;
	}
	ev->def = *def;
	/* def keeps its counts; its arrays are the evaluator's now. */
	def->source = NULL;
	def->triangles = NULL;
	def->uvs = NULL;
	def->key_xy = NULL;
	def->times = NULL;
	def->n_keys = 0;
	return ev;
}

const struct rig_mesh_def *rig_mesh_eval_def(const struct rig_mesh_eval *ev)
{
	return &ev->def;
}

size_t rig_mesh_eval_bytes(const struct rig_mesh_eval *ev)
{
	const struct rig_mesh_def *d = &ev->def;
	return sizeof *ev + rig_mesh_check_bytes(&ev->check) + d->n_verts * 2 * sizeof *d->source +
	       d->n_tris * 3 * sizeof *d->triangles +
	       d->n_keys *
		       (sizeof *d->times + sizeof *d->key_xy + d->n_verts * 2 * sizeof **d->key_xy);
}

void rig_mesh_eval_free(struct rig_mesh_eval *ev)
{
	if (!ev)
		return;
	rig_mesh_def_release(&ev->def);
	rig_mesh_check_release(&ev->check);
	free(ev);
}

int rig_mesh_eval_evaluate(double *out_xy, const struct rig_mesh_eval *ev, double local_frame,
			   struct rig_errs *errs)
{
	const struct rig_mesh_def *d = &ev->def;
	rig_mesh_def_shape(out_xy, d, local_frame);
	return rig_mesh_check_run(&ev->check, out_xy, errs);
}

/* ------------------------------------------------------------------------ */
/* The stored form: little-endian, head and arrays                           */
/* ------------------------------------------------------------------------ */
/* head: "MSH1", counts and per key its time (core/binding_form.h);
 * arrays: the rest mesh, then per key 2 · n_verts f64 vertices. */

static const char TAG[4] = {'M', 'S', 'H', '1'};

static int encode(const void *def, unsigned char **head, size_t *n_head, unsigned char **arrays,
		  size_t *n_arrays)
{
	const struct rig_mesh_def *d = def;
	*n_head = RIG_FORM_HEAD_FIXED + d->n_keys * RIG_FORM_KEY_TIME;
	*n_arrays = rig_form_rest_bytes(d->n_verts, d->n_tris) + d->n_keys * d->n_verts * 16 +
		    rig_form_uvs_bytes(d->uvs, d->n_verts);
	int rc = rig_form_alloc(head, *n_head, arrays, *n_arrays);
	if (rc)
		return rc;
	unsigned char *p = rig_form_head_put(*head, TAG, d->n_verts, d->n_tris, d->n_keys);
	for (size_t k = 0; k < d->n_keys; k++)
		p = rig_form_key_time_put(p, &d->times[k]);
	p = rig_form_rest_put(*arrays, d->source, d->n_verts, d->triangles, d->n_tris);
	for (size_t k = 0; k < d->n_keys; k++)
		for (size_t i = 0; i < 2 * d->n_verts; i++)
			p = rig_bytes_put_f64(p, d->key_xy[k][i]);
	rig_form_uvs_put(p, d->uvs, d->n_verts);
	return 0;
}

/* Reads the per-vertex arrays of d (counts set) from arrays; 0 or -1. */
static int decode_arrays(struct rig_mesh_def *d, const unsigned char *arrays, size_t n_arrays)
{
	size_t n2 = 2 * d->n_verts;
	size_t fixed = rig_form_rest_bytes(d->n_verts, d->n_tris) + d->n_keys * d->n_verts * 16;
	if (n_arrays < fixed)
		return -1;
	const unsigned char *p = arrays;
	if (rig_form_rest_get(&p, &d->source, d->n_verts, &d->triangles, d->n_tris) != 0 ||
	    !(d->key_xy = calloc(d->n_keys ? d->n_keys : 1, sizeof *d->key_xy)))
		return -1;
	for (size_t k = 0; k < d->n_keys; k++) {
		if (!(d->key_xy[k] = malloc((n2 ? n2 : 1) * sizeof **d->key_xy)))
			return -1;
		for (size_t i = 0; i < n2; i++)
			d->key_xy[k][i] = rig_bytes_get_f64(&p);
	}
	return rig_form_uvs_get(&p, n_arrays - fixed, &d->uvs, d->n_verts);
}

static void *decode(const unsigned char *head, size_t n_head, const unsigned char *arrays,
		    size_t n_arrays)
{
	const unsigned char *p;
	size_t n_verts, n_tris, n_keys;
	if (rig_form_head_get(&p, head, n_head, TAG, RIG_FORM_KEY_TIME, &n_verts, &n_tris,
			      &n_keys) != 0)
		return NULL;
	struct rig_mesh_def *d = calloc(1, sizeof *d);
	if (!d)
		return NULL;
	d->n_verts = n_verts;
	d->n_tris = n_tris;
	d->n_keys = n_keys;
	d->times = calloc(d->n_keys ? d->n_keys : 1, sizeof *d->times);
	if (!d->times)
		goto fail;
	for (size_t k = 0; k < d->n_keys; k++)
		rig_form_key_time_get(&p, &d->times[k]);
	if (arrays && decode_arrays(d, arrays, n_arrays) != 0)
		goto fail;
	return d;
fail:
	rig_mesh_def_release(d);
	free(d);
	return NULL;
}

/* ------------------------------------------------------------------------ */
/* The row                                                                   */
/* ------------------------------------------------------------------------ */

RIG_BINDING_REST_ACCESSORS(struct rig_mesh_def)

static int validate(const void *def, struct rig_errs *errs)
{
	return rig_mesh_def_check(def, errs);
}

static void def_free(void *def)
{
	if (!def)
		return;
	rig_mesh_def_release(def);
	free(def);
}

static void def_release_arrays(void *def)
{
	rig_mesh_def_release_arrays(def);
}

static size_t def_bytes(const void *def)
{
	const struct rig_mesh_def *d = def;
	return sizeof *d + d->n_keys * (sizeof *d->times + sizeof *d->key_xy);
}

static void *prepare(void *def, struct rig_errs *errs)
{
	return rig_mesh_eval_take(def, errs);
}

static const void *eval_def(const void *eval)
{
	return rig_mesh_eval_def(eval);
}

static int evaluate(double *out_xy, const void *eval, const struct rig_affine *poses,
		    double local_frame, struct rig_errs *errs)
{
	(void)poses;
	return rig_mesh_eval_evaluate(out_xy, eval, local_frame, errs);
}

static size_t bytes(const void *eval)
{
	return rig_mesh_eval_bytes(eval);
}

static void free_eval(void *eval)
{
	rig_mesh_eval_free(eval);
}

/* keys, by frame: added, removed, or changed (interp, ease or vertices). */
struct key_pair {
	const struct rig_mesh_def *a, *b;
};

static bool same_key_vertices(const void *ctx, size_t i, size_t j)
{
	const struct key_pair *p = ctx;
	if (p->a->n_verts != p->b->n_verts)
		return false;
	return !p->a->key_xy || !p->b->key_xy ||
	       memcmp(p->a->key_xy[i], p->b->key_xy[j], 2 * p->a->n_verts * sizeof(double)) == 0;
}

static int diff_keys(struct rig_part_diff *out, const struct rig_binding_type *type,
		     const void *def_a, const void *def_b)
{
	struct key_pair p = {def_a, def_b};
	(void)type;
	return rig_keys_diff(&out->frames, p.a->times, p.a->n_keys, p.b->times, p.b->n_keys,
			     same_key_vertices, &p);
}

static const struct rig_binding_part parts[] = {
	RIG_BINDING_PART_SOURCE,
	RIG_BINDING_PART_TRIANGLES,
	RIG_BINDING_PART_UVS,
	{"keys", RIG_DIFF_FRAMES, NULL, diff_keys},
};

/* The skin's figure (binding.h's diff_bytes; 108 B a vertex, 20 B a
 * triangle, a margin over the source, its runs and the triangles) and each
 * key's vertices (16 B a vertex per key). */
static size_t diff_bytes(const void *def, size_t n_verts, size_t n_tris)
{
	const struct rig_mesh_def *d = def;
	/* + 16 + 24: uvs and their runs (whether there are uvs is in the arrays) */
	return n_verts * (16 + 4 + 64 + 24 + 16 + 24 + 16 * d->n_keys) + n_tris * (12 + 8);
}

const struct rig_binding_type rig_binding_mesh = {
	.name = "mesh",
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
