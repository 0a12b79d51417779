/* libFuzzer target over the skin definition validator and the evaluator:
 * whatever passes validation must never fault when run (cgltf's rule). The
 * input bytes are read as a small definition — counts, then doubles, indices
 * and weights — so the fuzzer reaches deep into the rules quickly.
 * Parse → rig_skin_new → evaluate with poses from the input → free; also the
 * stored-definition path (rig_skin_take) on a copy of every accepted one.
 * Both methods (lbs, dqs) and an invalid one.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/skin.h"

struct cursor {
	const uint8_t *p;
	size_t left;
};

static uint8_t take_u8(struct cursor *c)
{
	if (!c->left)
		return 0;
	c->left--;
	return *c->p++;
}

static double take_f64(struct cursor *c)
{
	double v = 0;
	if (c->left >= 8) {
		memcpy(&v, c->p, 8);
		c->p += 8;
		c->left -= 8;
	}
	return v;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cursor c = {data, size};
	struct rig_skin_def d;
	memset(&d, 0, sizeof d);
	uint8_t first = take_u8(&c);
	d.n_verts = first % 40;
	/* The method from the first byte's high part (2: not a method, refused),
	 * so the corpus reads as it did. */
	d.method = (enum rig_skin_method)(first / 40 % 3);
	d.n_tris = take_u8(&c) % 40;
	d.n_joints = take_u8(&c) % 12;
	d.n_weight_lists = d.n_verts + (take_u8(&c) % 3 == 0); /* sometimes one too many */
	d.source = calloc(2 * d.n_verts + 1, sizeof *d.source);
	d.triangles = calloc(3 * d.n_tris + 1, sizeof *d.triangles);
	d.joints = calloc(d.n_joints + 1, sizeof *d.joints);
	d.weight_offsets = calloc(d.n_weight_lists + 1, sizeof *d.weight_offsets);
	d.influences = calloc(10 * d.n_weight_lists + 1, sizeof *d.influences);
	for (size_t i = 0; i < 2 * d.n_verts; i++)
		d.source[i] = take_f64(&c);
	for (size_t i = 0; i < 3 * d.n_tris; i++)
		d.triangles[i] = take_u8(&c) % (d.n_verts + 2);
	for (size_t j = 0; j < d.n_joints; j++) {
		d.joints[j].id[0] = (char)('a' + take_u8(&c) % 8); /* collisions on purpose */
		for (int e = 0; e < 6; e++)
			d.joints[j].bind.m[e] = take_f64(&c);
	}
	uint32_t at = 0;
	for (size_t v = 0; v < d.n_weight_lists; v++) {
		d.weight_offsets[v] = at;
		size_t k = take_u8(&c) % 10; /* 0 and 9 break the 1–8 rule */
		for (size_t i = 0; i < k; i++) {
			d.influences[at].joint = take_u8(&c) % (uint32_t)(d.n_joints + 1);
			d.influences[at].weight = take_f64(&c);
			at++;
		}
	}
	d.weight_offsets[d.n_weight_lists] = at;

	struct rig_errs *errs = rig_errs_new();
	if (!errs)
		abort(); /* the fuzzer's own memory, not an input's fault */
	struct rig_skin *skin = rig_skin_new(&d, errs);
	if (skin) {
		const struct rig_skin_def *snap = rig_skin_def_of(skin);
		struct rig_affine *poses = calloc(snap->n_joints, sizeof *poses);
		double *out = calloc(2 * snap->n_verts, sizeof *out);
		for (size_t j = 0; j < snap->n_joints; j++)
			for (int e = 0; e < 6; e++)
				poses[j].m[e] = take_f64(&c);
		rig_errs_init(errs);
		rig_skin_evaluate(out, skin, poses, errs);
		struct rig_skin_def copy;
		if (rig_skin_def_copy(&copy, snap) == 0) {
			struct rig_skin *taken = rig_skin_take(&copy, errs);
			if (!taken)
				abort(); /* a checked definition is structurally sound */
			rig_skin_free(taken);
			rig_skin_def_release(&copy);
		}
		free(poses);
		free(out);
		rig_skin_free(skin);
	} else if (!rig_errs_any(errs)) {
		abort(); /* a rejection always says why */
	}
	rig_errs_free(errs);
	rig_skin_def_release(&d);
	return 0;
}
