/* The ribbon binding's row of the binding table (core/binding.h): its
 * evaluator (the mesh generated from the chain layers' poses, then the shared
 * frame checks against the rest mesh), its stored form through the generic
 * codec (core/binding_form.h) and the parts a diff compares (source,
 * triangles, uvs, chain). The math is ribbon.c.
 *
 * Its joints are its chain: joint j is chain layer j (its id is the layer's),
 * so the resolver hands evaluate one pose per chain layer,
 * inverse(P(C→M)) · P(C→J), whose translation is the chain point.
 */
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "core/binding.h"
#include "core/binding_form.h"
#include "core/bytes.h"
#include "core/mesh.h"
#include "core/ribbon.h"
#include "core/rig_limits.h"

/* ---- the evaluator: the definition with the rest areas precomputed ---- */

struct ribbon_eval {
	struct rig_ribbon_def def;
	double *src_area2; /* n_tris */
};

static bool is_sound(const struct rig_ribbon_def *d)
{
	if (!d->source || !d->triangles || !d->uvs || !d->chain || !d->widths ||
	    d->n_chain < RIG_RIBBON_MIN_CHAIN || d->n_chain > RIG_RIBBON_MAX_CHAIN ||
	    d->segments < RIG_RIBBON_MIN_SEGMENTS || d->segments > RIG_RIBBON_MAX_SEGMENTS ||
	    d->n_verts != rig_ribbon_n_verts(d->n_chain, d->segments, d->caps) ||
	    d->n_tris != rig_ribbon_n_tris(d->n_chain, d->segments, d->caps))
		return false;
	for (size_t i = 0; i < 3 * d->n_tris; i++)
		if (d->triangles[i] >= d->n_verts)
			return false;
	return true;
}

/* Takes every array of def but the chain and widths' copies it makes. */
static void *prepare(void *def, struct rig_errs *errs)
{
	struct rig_ribbon_def *d = def;
	if (!is_sound(d)) {
		rig_errs_add(errs, RIG_INTERNAL, "the stored ribbon binding is damaged");
		return NULL;
	}
	struct ribbon_eval *ev = calloc(1, sizeof *ev);
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
	d->chain = NULL;
	d->widths = NULL;
	d->source = NULL;
	d->triangles = NULL;
	d->uvs = NULL;
	d->n_chain = 0;
	return ev;
}

static const void *eval_def(const void *eval)
{
	return &((const struct ribbon_eval *)eval)->def;
}

/* The chain points are the poses' translations (e, f). */
static int evaluate(double *out_xy, const void *eval, const struct rig_affine *poses,
		    double local_frame, struct rig_errs *errs)
{
	const struct ribbon_eval *ev = eval;
	const struct rig_ribbon_def *d = &ev->def;
	double points[2 * RIG_RIBBON_MAX_CHAIN];
	(void)local_frame;
	for (size_t j = 0; j < d->n_chain; j++) {
		points[2 * j] = poses[j].m[4];
		points[2 * j + 1] = poses[j].m[5];
	}
	rig_ribbon_generate(out_xy, d, points);
	return rig_mesh_check_deformed_areas(d->source, ev->src_area2, out_xy, d->n_verts,
					     d->triangles, d->n_tris, errs);
}

static size_t bytes(const void *eval)
{
	const struct ribbon_eval *ev = eval;
	const struct rig_ribbon_def *d = &ev->def;
	return sizeof *ev + d->n_verts * 32 + d->n_tris * (12 + 8) +
	       d->n_chain * (sizeof *d->chain + sizeof *d->widths);
}

static void free_eval(void *eval)
{
	struct ribbon_eval *ev = eval;
	if (!ev)
		return;
	rig_ribbon_def_release(&ev->def);
	free(ev->src_area2);
	free(ev);
}

/* ---- the stored form: little-endian, head and arrays ---- */
/* head: "RIB1" and the counts (core/binding_form.h, no keys), u32 segments,
 *       u32 caps, u64 n_chain, then per chain layer u32 id length, the id's
 *       bytes and f64 width. arrays: the rest mesh, then its uvs. */

static const char TAG[4] = {'R', 'I', 'B', '1'};
#define SETTINGS_BYTES (4 + 4 + 8)

static size_t head_bytes(const struct rig_ribbon_def *d)
{
	size_t n = RIG_FORM_HEAD_FIXED + SETTINGS_BYTES;
	for (size_t i = 0; i < d->n_chain; i++)
		n += 4 + strlen(d->chain[i]) + 8;
	return n;
}

static int encode(const void *def, unsigned char **head, size_t *n_head, unsigned char **arrays,
		  size_t *n_arrays)
{
	const struct rig_ribbon_def *d = def;
	*n_head = head_bytes(d);
	*n_arrays =
		rig_form_rest_bytes(d->n_verts, d->n_tris) + rig_form_uvs_bytes(d->uvs, d->n_verts);
	int rc = rig_form_alloc(head, *n_head, arrays, *n_arrays);
	if (rc)
		return rc;
	unsigned char *p = rig_form_head_put(*head, TAG, d->n_verts, d->n_tris, 0);
	p = rig_bytes_put_u32(p, d->segments);
	p = rig_bytes_put_u32(p, d->caps);
	p = rig_bytes_put_u64(p, d->n_chain);
	for (size_t i = 0; i < d->n_chain; i++) {
		size_t len = strlen(d->chain[i]);
		p = rig_bytes_put_u32(p, (uint32_t)len);
		memcpy(p, d->chain[i], len);
		p += len;
		p = rig_bytes_put_f64(p, d->widths[i]);
	}
	unsigned char *a =
		rig_form_rest_put(*arrays, d->source, d->n_verts, d->triangles, d->n_tris);
	rig_form_uvs_put(a, d->uvs, d->n_verts);
	return 0;
}

static void *decode(const unsigned char *head, size_t n_head, const unsigned char *arrays,
		    size_t n_arrays)
{
	const unsigned char *end = head + n_head;
	if (n_head < RIG_FORM_HEAD_FIXED + SETTINGS_BYTES || memcmp(head, TAG, 4) != 0)
		return NULL;
	const unsigned char *p = head + 4;
	uint64_t nv = rig_bytes_get_u64(&p), nt = rig_bytes_get_u64(&p), nk = rig_bytes_get_u64(&p);
	uint32_t segments = rig_bytes_get_u32(&p), caps = rig_bytes_get_u32(&p);
	uint64_t nc = rig_bytes_get_u64(&p);
	if (nv > RIG_MAX_VERTICES || nt > RIG_MAX_TRIANGLES || nk != 0 ||
	    nc > RIG_RIBBON_MAX_CHAIN || caps > 1)
		return NULL;
	struct rig_ribbon_def *d = calloc(1, sizeof *d);
	if (!d)
		return NULL;
	d->n_verts = (size_t)nv;
	d->n_tris = (size_t)nt;
	d->segments = segments;
	d->caps = caps != 0;
	d->chain = calloc((size_t)nc + 1, sizeof *d->chain);
	d->widths = calloc((size_t)nc + 1, sizeof *d->widths);
	if (!d->chain || !d->widths)
		goto fail;
	d->n_chain = (size_t)nc;
	for (size_t i = 0; i < d->n_chain; i++) {
		if (end - p < 4)
			goto fail;
		uint32_t len = rig_bytes_get_u32(&p);
		if (len > RIG_ID_MAX || (size_t)(end - p) < len + 8)
			goto fail;
		memcpy(d->chain[i], p, len);
		d->chain[i][len] = '\0';
		p += len;
		d->widths[i] = rig_bytes_get_f64(&p);
	}
	if (p != end)
		goto fail;
	if (arrays) {
		const unsigned char *a = arrays;
		size_t rest = rig_form_rest_bytes(d->n_verts, d->n_tris);
		if (n_arrays < rest ||
		    rig_form_rest_get(&a, &d->source, d->n_verts, &d->triangles, d->n_tris) != 0 ||
		    rig_form_uvs_get(&a, n_arrays - rest, &d->uvs, d->n_verts) != 0)
			goto fail;
	}
	return d;
fail:
	rig_ribbon_def_release(d);
	free(d);
	return NULL;
}

/* ---- the diff's parts ---- */

static long chain_index(const struct rig_ribbon_def *d, const char *id)
{
	for (size_t i = 0; i < d->n_chain; i++)
		if (strcmp(d->chain[i], id) == 0)
			return (long)i;
	return -1;
}

/* chain: layers added to or removed from the chain, and those in both whose
 * first place or width there changed. */
static int diff_chain(struct rig_part_diff *out, const struct rig_binding_type *type,
		      const void *def_a, const void *def_b)
{
	const struct rig_ribbon_def *a = def_a, *b = def_b;
	(void)type;
	for (size_t i = 0; i < a->n_chain; i++) {
		if (chain_index(a, a->chain[i]) != (long)i)
			continue; /* listed once, at its first place */
		long j = chain_index(b, a->chain[i]);
		if (j < 0) {
			if (rig_ids_add(&out->ids.removed, a->chain[i]) != 0)
				return -1;
		} else if ((size_t)j != i ||
			   memcmp(&a->widths[i], &b->widths[j], sizeof(double)) != 0) {
			if (rig_ids_add(&out->ids.changed, a->chain[i]) != 0)
				return -1;
		}
	}
	for (size_t j = 0; j < b->n_chain; j++)
		if (chain_index(b, b->chain[j]) == (long)j && chain_index(a, b->chain[j]) < 0 &&
		    rig_ids_add(&out->ids.added, b->chain[j]) != 0)
			return -1;
	return 0;
}

static const struct rig_binding_part parts[] = {
	RIG_BINDING_PART_SOURCE,
	RIG_BINDING_PART_TRIANGLES,
	RIG_BINDING_PART_UVS,
	{"chain", RIG_DIFF_IDS, NULL, diff_chain},
};

/* The arrays read (source and uvs 32 B a vertex, 12 B a triangle), runs of
 * every second index (8 B each) and the chain's ids three times over. */
static size_t diff_bytes(const void *def, size_t n_verts, size_t n_tris)
{
	const struct rig_ribbon_def *d = def;
	return n_verts * (32 + 16) + n_tris * (12 + 8) + d->n_chain * 3 * (RIG_ID_MAX + 1 + 8);
}

/* ---- the row ---- */

RIG_BINDING_REST_ACCESSORS(struct rig_ribbon_def)

static int validate(const void *def, struct rig_errs *errs)
{
	return rig_ribbon_def_check(def, errs);
}

static void def_free(void *def)
{
	if (!def)
		return;
	rig_ribbon_def_release(def);
	free(def);
}

static void def_release_arrays(void *def)
{
	struct rig_ribbon_def *d = def;
	free(d->source);
	free(d->triangles);
	free(d->uvs);
	d->source = NULL;
	d->triangles = NULL;
	d->uvs = NULL;
}

static size_t def_bytes(const void *def)
{
	const struct rig_ribbon_def *d = def;
	return sizeof *d + d->n_chain * (sizeof *d->chain + sizeof *d->widths);
}

static size_t n_joints(const void *def)
{
	return ((const struct rig_ribbon_def *)def)->n_chain;
}

static const char *joint_layer(const void *def, size_t j)
{
	const struct rig_ribbon_def *d = def;
	return j < d->n_chain ? d->chain[j] : "";
}

const struct rig_binding_type rig_binding_ribbon = {
	.name = "ribbon",
	.validate = validate,
	.def_free = def_free,
	.def_release_arrays = def_release_arrays,
	.def_bytes = def_bytes,
	RIG_BINDING_REST_ROW,
	.def_n_joints = n_joints,
	.def_joint_id = joint_layer,
	.def_joint_layer = joint_layer,
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
