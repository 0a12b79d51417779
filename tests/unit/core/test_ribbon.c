/* The ribbon binding (core/ribbon.c, core/ribbon_binding.c): generation
 * against hand-computed vertices (straight and bent chains, tangent
 * averaging, zero-length segments, Catmull–Rom subdivision, widths, caps),
 * every rule's error, and the row (stored form, evaluate, frame checks).
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/binding.h"
#include "core/ribbon.h"

#define EPS 1e-12

/* A definition of n chain points named c0…, widths w, its rest mesh
 * generated from points when points is not NULL. */
static struct rig_ribbon_def make(size_t n, const double *w, uint32_t segments, bool caps,
				  const double *points)
{
	struct rig_ribbon_def d = {0};
	d.chain = calloc(n ? n : 1, sizeof *d.chain);
	d.widths = calloc(n ? n : 1, sizeof *d.widths);
	cr_assert(d.chain && d.widths);
	d.n_chain = n;
	d.segments = segments;
	d.caps = caps;
	for (size_t i = 0; i < n; i++) {
		snprintf(d.chain[i], sizeof d.chain[i], "c%zu", i);
		d.widths[i] = w ? w[i] : 1;
	}
	if (points && n >= 2) {
		d.n_verts = rig_ribbon_n_verts(n, segments, caps);
		d.n_tris = rig_ribbon_n_tris(n, segments, caps);
		d.source = calloc(2 * d.n_verts, sizeof *d.source);
		d.triangles = calloc(3 * d.n_tris, sizeof *d.triangles);
		d.uvs = calloc(2 * d.n_verts, sizeof *d.uvs);
		cr_assert(d.source && d.triangles && d.uvs);
		rig_ribbon_topology(d.triangles, d.uvs, &d);
		rig_ribbon_generate(d.source, &d, points);
	}
	return d;
}

static void assert_verts(const double *got, const double *want, size_t n)
{
	for (size_t i = 0; i < 2 * n; i++)
		cr_assert(fabs(got[i] - want[i]) <= EPS, "coordinate %zu: %.17g, want %.17g", i,
			  got[i], want[i]);
}

static double area2(const double *xy, const uint32_t *t)
{
	const double *a = &xy[2 * t[0]], *b = &xy[2 * t[1]], *c = &xy[2 * t[2]];
	return (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]);
}

static const struct rig_err *find(const struct rig_errs *errs, enum rig_code code,
				  const char *pointer)
{
	for (size_t i = 0; i < errs->count; i++)
		if (errs->items[i].code == code && !strcmp(errs->items[i].pointer, pointer))
			return &errs->items[i];
	return NULL;
}

Test(ribbon_generate, a_straight_chain_is_its_points_plus_and_minus_the_widths)
{
	const double p[] = {0, 0, 10, 0, 20, 0}, w[] = {1, 2, 3};
	struct rig_ribbon_def d = make(3, w, 1, false, p);
	const double want[] = {0, 1, 0, -1, 10, 2, 10, -2, 20, 3, 20, -3};
	cr_assert_eq(d.n_verts, 6);
	cr_assert_eq(d.n_tris, 4);
	assert_verts(d.source, want, 6);
	const uint32_t tris[] = {1, 3, 2, 1, 2, 0, 3, 5, 4, 3, 4, 2};
	cr_assert(!memcmp(d.triangles, tris, sizeof tris));
	const double uvs[] = {0, 0, 0, 1, 0.5, 0, 0.5, 1, 1, 0, 1, 1};
	assert_verts(d.uvs, uvs, 6);
	for (size_t t = 0; t < d.n_tris; t++) /* counter-clockwise: positive area */
		cr_assert_gt(area2(d.source, &d.triangles[3 * t]), 0);
	rig_ribbon_def_release(&d);
}

Test(ribbon_generate, an_inner_point_takes_the_average_of_its_two_segment_tangents)
{
	const double p[] = {0, 0, 10, 0, 10, 10};
	struct rig_ribbon_def d = make(3, NULL, 1, false, p);
	const double s = 1 / sqrt(2);
	/* t0 = +x, t1 = (s, s) so n1 = (−s, s), t2 = +y so n2 = (−1, 0) */
	const double want[] = {0, 1, 0, -1, 10 - s, s, 10 + s, -s, 9, 10, 11, 10};
	assert_verts(d.source, want, 6);
	rig_ribbon_def_release(&d);
}

Test(ribbon_generate, a_zero_length_segment_keeps_the_previous_tangent)
{
	/* first segment without length: +x */
	const double p[] = {0, 0, 0, 0, 5, 0};
	struct rig_ribbon_def d = make(3, NULL, 1, false, p);
	const double want[] = {0, 1, 0, -1, 0, 1, 0, -1, 5, 1, 5, -1};
	assert_verts(d.source, want, 6);
	rig_ribbon_def_release(&d);
	/* a repeated point after going up: the up tangent carries over */
	const double q[] = {0, 0, 0, 10, 0, 10, 10, 10};
	d = make(4, NULL, 1, false, q);
	const double s = 1 / sqrt(2);
	const double want2[] = {-1, 0, 1, 0, -1, 10, 1, 10, -s, 10 + s, s, 10 - s, 10, 11, 10, 9};
	assert_verts(d.source, want2, 8);
	rig_ribbon_def_release(&d);
}

Test(ribbon_generate, catmull_rom_passes_through_every_chain_point)
{
	const double p[] = {0, 0, 10, 0, 20, 10, 30, 10};
	struct rig_ribbon_def d = make(4, NULL, 4, false, p);
	cr_assert_eq(d.n_verts, 2 * 13);
	cr_assert_eq(d.n_tris, 2 * 12);
	for (size_t k = 0; k < 4; k++) { /* curve point 4k is chain point k, exactly */
		const double *l = &d.source[4 * (4 * k)], *r = l + 2;
		cr_assert_eq((l[0] + r[0]) / 2, p[2 * k]);
		cr_assert_eq((l[1] + r[1]) / 2, p[2 * k + 1]);
	}
	/* span 1 at t = ½: ½ (2P₁ + (P₂ − P₀)/2 + (2P₀ − 5P₁ + 4P₂ − P₃)/4 + …/8) = (15, 5) */
	const double *m = &d.source[4 * 6];
	cr_assert(fabs((m[0] + m[2]) / 2 - 15) < EPS && fabs((m[1] + m[3]) / 2 - 5) < EPS);
	/* span 0 with P₋₁ = P₀, at t = ½: (4.375, −0.625) */
	m = &d.source[4 * 2];
	cr_assert(fabs((m[0] + m[2]) / 2 - 4.375) < EPS && fabs((m[1] + m[3]) / 2 + 0.625) < EPS);
	for (size_t t = 0; t < d.n_tris; t++)
		cr_assert_gt(area2(d.source, &d.triangles[3 * t]), 0);
	cr_assert_eq(d.uvs[2 * 2 * 6], 0.5); /* u = i / N = 6 / 12 */
	rig_ribbon_def_release(&d);
}

Test(ribbon_generate, widths_are_interpolated_along_the_subdivided_curve)
{
	const double p[] = {0, 0, 10, 0}, w[] = {2, 4};
	struct rig_ribbon_def d = make(2, w, 2, false, p);
	const double want[] = {0, 2, 0, -2, 5, 3, 5, -3, 10, 4, 10, -4};
	assert_verts(d.source, want, 6);
	rig_ribbon_def_release(&d);
}

Test(ribbon_generate, caps_add_a_tip_at_each_end_along_the_tangent)
{
	const double p[] = {0, 0, 10, 0}, w[] = {1, 2};
	struct rig_ribbon_def d = make(2, w, 1, true, p);
	cr_assert_eq(d.n_verts, 6);
	cr_assert_eq(d.n_tris, 4);
	const double want[] = {0, 1, 0, -1, 10, 2, 10, -2, -1, 0, 12, 0};
	assert_verts(d.source, want, 6);
	const uint32_t tris[] = {1, 3, 2, 1, 2, 0, 4, 1, 0, 3, 5, 2};
	cr_assert(!memcmp(d.triangles, tris, sizeof tris));
	cr_assert(d.uvs[8] == 0 && d.uvs[9] == 0.5 && d.uvs[10] == 1 && d.uvs[11] == 0.5);
	for (size_t t = 0; t < d.n_tris; t++)
		cr_assert_gt(area2(d.source, &d.triangles[3 * t]), 0);
	rig_ribbon_def_release(&d);
}

/* ---- the rules ---- */

static struct rig_errs *errs_new(void)
{
	struct rig_errs *e = malloc(sizeof *e);
	cr_assert(e);
	rig_errs_init(e);
	return e;
}

Test(ribbon_rules, each_rule_names_its_pointer)
{
	struct rig_errs *errs = errs_new();
	struct rig_ribbon_def d = make(1, NULL, 1, false, NULL);
	cr_assert_eq(rig_ribbon_def_check(&d, errs), -1);
	cr_assert(find(errs, RIG_OP_INVALID, "/chain"));
	rig_ribbon_def_release(&d);

	rig_errs_init(errs);
	d = make(257, NULL, 1, false, NULL);
	cr_assert_eq(rig_ribbon_def_check(&d, errs), -1);
	cr_assert(find(errs, RIG_OP_INVALID, "/chain"));
	rig_ribbon_def_release(&d);

	rig_errs_init(errs);
	const double w[] = {1, -1, NAN};
	d = make(3, w, 0, false, NULL);
	strcpy(d.chain[1], "bad id!");
	cr_assert_eq(rig_ribbon_def_check(&d, errs), -1);
	cr_assert(find(errs, RIG_OP_INVALID, "/chain/1"));
	cr_assert(find(errs, RIG_OP_INVALID, "/widths/1"));
	cr_assert(find(errs, RIG_OP_INVALID, "/widths/2"));
	cr_assert(find(errs, RIG_OP_INVALID, "/segments"));
	cr_assert_eq(errs->total, 4);
	rig_ribbon_def_release(&d);

	rig_errs_init(errs);
	d = make(3, NULL, 17, false, NULL);
	cr_assert_eq(rig_ribbon_def_check(&d, errs), -1);
	cr_assert(find(errs, RIG_OP_INVALID, "/segments"));
	rig_ribbon_def_release(&d);
	free(errs);
}

Test(ribbon_rules, the_rest_mesh_follows_the_source_rules)
{
	struct rig_errs *errs = errs_new();
	const double p[] = {0, 0, 10, 0, 20, 0}, w[] = {1, 0, 1};
	struct rig_ribbon_def d = make(3, w, 1, false, p);
	cr_assert_eq(rig_ribbon_def_check(&d, errs), -1); /* a zero width: no area */
	cr_assert(find(errs, RIG_MESH_DEGENERATE, "/triangles/0"));
	rig_ribbon_def_release(&d);

	rig_errs_init(errs);
	d = make(3, NULL, 1, false, p);
	cr_assert_eq(rig_ribbon_def_check(&d, errs), 0);
	d.n_verts--; /* counts that are not the chain's */
	cr_assert_eq(rig_ribbon_def_check(&d, errs), -1);
	cr_assert(find(errs, RIG_MESH_TOPOLOGY, "/source"));
	rig_ribbon_def_release(&d);
	free(errs);
}

/* ---- the row ---- */

Test(ribbon_row, stores_evaluates_and_checks_its_frames)
{
	const struct rig_binding_type *t = rig_binding_type_find("ribbon");
	cr_assert_eq(t, &rig_binding_ribbon);
	const double p[] = {0, 0, 10, 0, 20, 5}, w[] = {1, 2, 3};
	struct rig_ribbon_def d = make(3, w, 3, true, p);
	cr_assert_eq(t->def_n_joints(&d), 3);
	cr_assert_str_eq(t->def_joint_layer(&d, 2), "c2");
	/* the stored form: head alone, then whole */
	unsigned char *head, *arrays;
	size_t n_head, n_arrays;
	cr_assert_eq(t->encode(&d, &head, &n_head, &arrays, &n_arrays), 0);
	struct rig_ribbon_def *h = t->decode(head, n_head, NULL, 0);
	cr_assert(h && !h->source && h->n_chain == 3 && h->segments == 3 && h->caps);
	cr_assert_eq(h->widths[2], 3);
	cr_assert_str_eq(h->chain[1], "c1");
	t->def_free(h);
	cr_assert_null(t->decode(head, n_head - 1, NULL, 0));
	struct rig_ribbon_def *whole = t->decode(head, n_head, arrays, n_arrays);
	cr_assert(whole);
	cr_assert(!memcmp(whole->source, d.source, 2 * d.n_verts * sizeof(double)));
	cr_assert(!memcmp(whole->uvs, d.uvs, 2 * d.n_verts * sizeof(double)));
	free(head);
	free(arrays);
	/* evaluate: the poses' translations are the points */
	struct rig_errs *errs = errs_new();
	void *ev = t->prepare(whole, errs);
	cr_assert(ev);
	t->def_free(whole);
	struct rig_affine poses[3];
	for (int j = 0; j < 3; j++)
		poses[j] = (struct rig_affine){{0.5, 0, 0, 2, p[2 * j], p[2 * j + 1] + 1}};
	double *xy = malloc(2 * d.n_verts * sizeof *xy);
	cr_assert_eq(t->evaluate(xy, ev, poses, 0, errs), 0);
	const double moved[] = {0, 1, 10, 1, 20, 6};
	struct rig_ribbon_def e = make(3, w, 3, true, moved);
	cr_assert(!memcmp(xy, e.source, 2 * d.n_verts * sizeof(double)));
	/* folded straight back with wide widths: flipped triangles */
	poses[2].m[4] = 0;
	poses[2].m[5] = 2;
	cr_assert_eq(t->evaluate(xy, ev, poses, 0, errs), -1);
	bool winding = false;
	for (size_t i = 0; i < errs->count; i++)
		winding |= errs->items[i].code == RIG_MESH_WINDING &&
			   errs->items[i].triangle_index >= 0;
	cr_assert(winding);
	t->free(ev);
	free(xy);
	free(errs);
	rig_ribbon_def_release(&d);
	rig_ribbon_def_release(&e);
}
