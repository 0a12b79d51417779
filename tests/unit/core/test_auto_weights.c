/* core/auto_weights.c: the bones rule, the distances and the segment and
 * nearestJoint fields recomputed here independently, the per-vertex step
 * recomputed by hand, the harmonic method's properties (the solve itself is
 * checked against numpy/scipy by test_auto_weights_oracle.py), every list
 * through rig_skin_check_influences, determinism, and every error path at
 * and past its edge. */
#include <criterion/criterion.h>
#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "core/auto_weights.h"
#include "core/rig_limits.h"

/* ---- meshes and joints ------------------------------------------------ */

struct mesh {
	double *source;
	size_t n_verts;
	uint32_t *triangles;
	size_t n_tris;
};

typedef bool (*keep_cell_fn)(size_t x, size_t y);

static bool keep_all(size_t x, size_t y)
{
	(void)x, (void)y;
	return true;
}

/* A w × h grid of vertices spaced by step, two triangles per kept cell
 * (cell (x, y) spans [x, x + 1] × [y, y + 1]), vertices no kept cell uses
 * left out and the rest renumbered in row order. */
static struct mesh grid(size_t w, size_t h, double step, keep_cell_fn keep)
{
	struct mesh m = {0};
	int64_t *index = malloc(w * h * sizeof *index);
	bool *used = calloc(w * h, sizeof *used);
	m.triangles = malloc(6 * w * h * sizeof *m.triangles);
	m.source = malloc(2 * w * h * sizeof *m.source);
	cr_assert(index && used && m.triangles && m.source);
	for (size_t y = 0; y + 1 < h; y++)
		for (size_t x = 0; x + 1 < w; x++)
			if (keep(x, y))
				used[y * w + x] = used[y * w + x + 1] = used[(y + 1) * w + x] =
					used[(y + 1) * w + x + 1] = true;
	for (size_t i = 0; i < w * h; i++) {
		index[i] = used[i] ? (int64_t)m.n_verts : -1;
		if (used[i]) {
			m.source[2 * m.n_verts] = (double)(i % w) * step;
			m.source[2 * m.n_verts + 1] = (double)(i / w) * step;
			m.n_verts++;
		}
	}
	for (size_t y = 0; y + 1 < h; y++) {
		for (size_t x = 0; x + 1 < w; x++) {
			if (!keep(x, y))
				continue;
			uint32_t a = (uint32_t)index[y * w + x], b = (uint32_t)index[y * w + x + 1];
			uint32_t c = (uint32_t)index[(y + 1) * w + x],
				 d = (uint32_t)index[(y + 1) * w + x + 1];
			uint32_t *t = &m.triangles[3 * m.n_tris];
			t[0] = a, t[1] = b, t[2] = d, t[3] = a, t[4] = d, t[5] = c;
			m.n_tris += 2;
		}
	}
	free(index);
	free(used);
	return m;
}

static void mesh_release(struct mesh *m)
{
	free(m->source);
	free(m->triangles);
	memset(m, 0, sizeof *m);
}

/* A joint at (x, y) turned by deg, under parent; a length when len >= 0. */
static struct rig_auto_joint joint(double x, double y, double deg, long parent, double len)
{
	double c = cos(deg * M_PI / 180), s = sin(deg * M_PI / 180);
	struct rig_auto_joint j = {.bind = {{c, s, -s, c, x, y}}, .parent = parent};
	j.has_length = len >= 0;
	j.length = len >= 0 ? len : 0;
	return j;
}

/* ---- independent computations ---------------------------------------- */

/* Squared distance to a segment by another route: the perpendicular foot when
 * it falls inside (|cross|² / |ab|²), else the nearer endpoint. */
static double seg_d2(double ax, double ay, double bx, double by, double px, double py)
{
	double ux = bx - ax, uy = by - ay, l2 = ux * ux + uy * uy;
	double da = (px - ax) * (px - ax) + (py - ay) * (py - ay);
	double db = (px - bx) * (px - bx) + (py - by) * (py - by);
	if (l2 == 0)
		return da;
	double dot_a = (px - ax) * ux + (py - ay) * uy, dot_b = (px - bx) * ux + (py - by) * uy;
	if (dot_a <= 0)
		return da;
	if (dot_b >= 0)
		return db;
	double cross = (px - ax) * uy - (py - ay) * ux;
	return cross * cross / l2;
}

static bool near(double got, double want, double rel)
{
	return fabs(got - want) <= rel * fmax(1, fabs(want));
}

/* The per-vertex step by hand from a raw row: every joint sorted by weight
 * descending then joint ascending, those below eps · total dropped, the first
 * k kept, divided by their sum (summed strongest first). Returns the count. */
static size_t by_hand(struct rig_skin_influence *out, const double *row, size_t n_joints, int k)
{
	struct rig_skin_influence all[RIG_MAX_JOINTS];
	double total = 0;
	for (size_t j = 0; j < n_joints; j++) {
		all[j].joint = (uint32_t)j;
		all[j].weight = row[j];
		if (row[j] > 0)
			total += row[j];
	}
	for (size_t i = 1; i < n_joints; i++) /* insertion sort: stable */
		for (size_t p = i; p > 0 && all[p - 1].weight < all[p].weight; p--) {
			struct rig_skin_influence t = all[p];
			all[p] = all[p - 1];
			all[p - 1] = t;
		}
	size_t n = 0;
	for (size_t i = 0; i < n_joints && n < (size_t)k; i++)
		if (all[i].weight > 0 && all[i].weight >= RIG_AUTO_WEIGHT_EPSILON * total)
			out[n++] = all[i];
	if (n == 0) {
		out[0].joint = all[0].weight > 0 ? all[0].joint : 0;
		out[0].weight = 1;
		return 1;
	}
	double sum = 0;
	for (size_t i = 0; i < n; i++)
		sum += out[i].weight;
	for (size_t i = 0; i < n; i++)
		out[i].weight /= sum;
	return n;
}

/* Every list passes the one weights rule and holds at most k influences. */
static void expect_valid_lists(const struct rig_auto_result *r, size_t n_joints, int k)
{
	struct rig_errs *errs = rig_errs_new();
	cr_assert(errs);
	cr_assert_eq(r->offsets[0], 0);
	for (size_t v = 0; v < r->n_verts; v++) {
		uint32_t a = r->offsets[v], b = r->offsets[v + 1];
		cr_assert(b > a && b - a <= (uint32_t)k, "vertex %zu has %u influences", v, b - a);
		struct rig_skin_influence copy[RIG_MAX_INFLUENCES];
		memcpy(copy, &r->influences[a], (b - a) * sizeof *copy);
		cr_assert_eq(rig_skin_check_influences(copy, b - a, n_joints, v, errs), 0,
			     "vertex %zu: %s", v, errs->count ? errs->items[0].detail : "");
	}
	rig_errs_free(errs);
}

static struct rig_auto_result run(const struct mesh *m, const struct rig_auto_joint *joints,
				  size_t n_joints, enum rig_auto_method method, int k)
{
	struct rig_auto_result r;
	struct rig_errs *errs = rig_errs_new();
	cr_assert(errs);
	int rc = rig_auto_weights(&r, m->source, m->n_verts, m->triangles, m->n_tris, joints,
				  n_joints, method, k, errs);
	cr_assert_eq(rc, 0, "rc %d: %s", rc, errs->count ? errs->items[0].detail : "");
	rig_errs_free(errs);
	cr_assert_eq(r.n_verts, m->n_verts);
	return r;
}

static double *raw(const struct mesh *m, const struct rig_auto_joint *joints, size_t n_joints,
		   enum rig_auto_method method)
{
	double *w = calloc(m->n_verts * n_joints + 1, sizeof *w);
	struct rig_errs *errs = rig_errs_new();
	cr_assert(w && errs);
	cr_assert_eq(rig_auto_raw_weights(w, m->source, m->n_verts, m->triangles, m->n_tris, joints,
					  n_joints, method, errs),
		     0);
	rig_errs_free(errs);
	return w;
}

/* The weight of joint j in vertex v's list (0 when absent). */
static double weight_of(const struct rig_auto_result *r, size_t v, uint32_t j)
{
	for (uint32_t k = r->offsets[v]; k < r->offsets[v + 1]; k++)
		if (r->influences[k].joint == j)
			return r->influences[k].weight;
	return 0;
}

/* ---- names ------------------------------------------------------------- */

Test(auto_method, names_round_trip)
{
	for (int m = 0; m < 3; m++) {
		enum rig_auto_method got = 99;
		cr_assert_eq(rig_auto_method_parse(&got, rig_auto_method_name(m)), 0);
		cr_expect_eq((int)got, m);
	}
	cr_expect_str_eq(rig_auto_method_name(RIG_AUTO_NEAREST_JOINT), "nearestJoint");
	cr_expect_null(rig_auto_method_name(3));
	enum rig_auto_method got = RIG_AUTO_HARMONIC;
	cr_expect_eq(rig_auto_method_parse(&got, "Segment"), -1);
	cr_expect_eq(rig_auto_method_parse(&got, NULL), -1);
	cr_expect_eq(got, RIG_AUTO_HARMONIC);
}

/* ---- bones ------------------------------------------------------------- */

static void expect_bone(const struct rig_auto_bone *b, double x0, double y0, double x1, double y1)
{
	cr_expect(near(b->x0, x0, 1e-12) && near(b->y0, y0, 1e-12) && near(b->x1, x1, 1e-12) &&
			  near(b->y1, y1, 1e-12),
		  "bone (%g, %g)-(%g, %g), want (%g, %g)-(%g, %g)", b->x0, b->y0, b->x1, b->y1, x0,
		  y0, x1, y1);
}

Test(auto_bones, chain_runs_to_the_only_child_and_ends_in_a_point_or_its_length)
{
	struct rig_auto_joint j[3] = {joint(0, 0, 0, -1, 5), joint(3, 4, 0, 0, -1),
				      joint(3, 10, 0, 1, -1)};
	struct rig_auto_bone b[3];
	rig_auto_bones(b, j, 3);
	expect_bone(&b[0], 0, 0, 3, 4); /* a single child wins over a length */
	expect_bone(&b[1], 3, 4, 3, 10);
	expect_bone(&b[2], 3, 10, 3, 10); /* a leaf without a length: a point */
	j[2] = joint(3, 10, 90, 1, 2);    /* with one, along its bind +x (here +y) */
	rig_auto_bones(b, j, 3);
	expect_bone(&b[2], 3, 10, 3, 12);
}

Test(auto_bones, branching_joint_is_a_point_or_its_length)
{
	struct rig_auto_joint j[4] = {joint(1, 1, 0, -1, -1), joint(5, 1, 0, 0, -1),
				      joint(1, 5, 0, 0, -1), joint(5, 9, 0, 1, -1)};
	struct rig_auto_bone b[4];
	rig_auto_bones(b, j, 4);
	expect_bone(&b[0], 1, 1, 1, 1); /* two children */
	expect_bone(&b[1], 5, 1, 5, 9); /* one child */
	expect_bone(&b[2], 1, 5, 1, 5);
	expect_bone(&b[3], 5, 9, 5, 9);
	j[0] = joint(1, 1, 30, -1, 4);
	rig_auto_bones(b, j, 4);
	expect_bone(&b[0], 1, 1, 1 + 4 * cos(M_PI / 6), 1 + 4 * sin(M_PI / 6));
}

Test(auto_bones, lone_joint_with_and_without_length)
{
	struct rig_auto_joint j = joint(2, -3, 0, -1, -1);
	struct rig_auto_bone b;
	rig_auto_bones(&b, &j, 1);
	expect_bone(&b, 2, -3, 2, -3);
	/* +x scaled by 3 and sheared: only its direction counts. */
	j = (struct rig_auto_joint){
		.bind = {{0, 3, 1, 1, 2, -3}}, .parent = -1, .has_length = true, .length = 2};
	rig_auto_bones(&b, &j, 1);
	expect_bone(&b, 2, -3, 2, -1);
	j.length = 0;
	rig_auto_bones(&b, &j, 1);
	expect_bone(&b, 2, -3, 2, -3);
	j = (struct rig_auto_joint){
		.bind = {{0, 0, 1, 1, 2, -3}}, .parent = -1, .has_length = true, .length = 2};
	rig_auto_bones(&b, &j, 1); /* no +x direction: a point */
	expect_bone(&b, 2, -3, 2, -3);
}

Test(auto_bones, segment_distance_matches_the_perpendicular_and_endpoints)
{
	struct rig_auto_bone b = {1, 2, 7, -1};
	double pts[][2] = {{0, 0}, {4, 4}, {7, -1}, {10, -3}, {-5, 6}, {3, 1}, {4.5, 0.5}};
	for (size_t i = 0; i < sizeof pts / sizeof pts[0]; i++) {
		double got = rig_auto_segment_distance2(&b, pts[i][0], pts[i][1]);
		double want = seg_d2(1, 2, 7, -1, pts[i][0], pts[i][1]);
		cr_expect(near(got, want, 1e-12), "point %zu: %.17g against %.17g", i, got, want);
	}
	struct rig_auto_bone p = {1, 2, 1, 2};
	cr_expect_eq(rig_auto_segment_distance2(&p, 4, 6), 25);
}

/* ---- segment and nearestJoint ----------------------------------------- */

/* A 9 × 7 grid (spacing 1.5) and a chain of 3 joints plus a loose one. */
static void four_joints(struct rig_auto_joint *j)
{
	j[0] = joint(1, 1, 0, -1, -1);
	j[1] = joint(6, 2, 0, 0, -1);
	j[2] = joint(10, 7, 45, 1, 3);
	j[3] = joint(2, 8, 0, -1, -1);
}

Test(auto_segment, raw_field_is_inverse_squared_distance_to_each_bone)
{
	struct mesh m = grid(9, 7, 1.5, keep_all);
	struct rig_auto_joint j[4];
	four_joints(j);
	double ends[4][4] = {{1, 1, 6, 2},
			     {6, 2, 10, 7},
			     {10, 7, 10 + 3 * cos(M_PI / 4), 7 + 3 * sin(M_PI / 4)},
			     {2, 8, 2, 8}};
	double *w = raw(&m, j, 4, RIG_AUTO_SEGMENT);
	for (size_t v = 0; v < m.n_verts; v++) {
		for (size_t k = 0; k < 4; k++) {
			double d2 = seg_d2(ends[k][0], ends[k][1], ends[k][2], ends[k][3],
					   m.source[2 * v], m.source[2 * v + 1]);
			cr_assert(near(w[v * 4 + k], 1 / (d2 + 1e-6), 1e-9), "v %zu j %zu", v, k);
		}
	}
	free(w);
	mesh_release(&m);
}

Test(auto_nearest_joint, raw_field_is_inverse_squared_distance_to_each_origin)
{
	struct mesh m = grid(9, 7, 1.5, keep_all);
	struct rig_auto_joint j[4];
	four_joints(j);
	double *w = raw(&m, j, 4, RIG_AUTO_NEAREST_JOINT);
	for (size_t v = 0; v < m.n_verts; v++) {
		for (size_t k = 0; k < 4; k++) {
			double dx = m.source[2 * v] - j[k].bind.m[4],
			       dy = m.source[2 * v + 1] - j[k].bind.m[5];
			cr_assert(near(w[v * 4 + k], 1 / (dx * dx + dy * dy + 1e-6), 1e-12));
		}
	}
	free(w);
	mesh_release(&m);
}

/* The lists are the by-hand step of the raw rows, for every method and k. */
Test(auto_weights, lists_are_the_per_vertex_step_of_the_raw_field)
{
	struct mesh m = grid(9, 7, 1.5, keep_all);
	struct rig_auto_joint j[4];
	four_joints(j);
	for (int method = 0; method < 3; method++) {
		double *w = raw(&m, j, 4, method);
		for (int k = 1; k <= 8; k++) {
			struct rig_auto_result r = run(&m, j, 4, method, k);
			expect_valid_lists(&r, 4, k);
			for (size_t v = 0; v < m.n_verts; v++) {
				struct rig_skin_influence want[RIG_MAX_JOINTS];
				size_t n = by_hand(want, &w[v * 4], 4, k);
				uint32_t a = r.offsets[v];
				cr_assert_eq(r.offsets[v + 1] - a, n, "method %d k %d v %zu",
					     method, k, v);
				for (size_t i = 0; i < n; i++) {
					cr_assert_eq(r.influences[a + i].joint, want[i].joint);
					cr_assert_eq(r.influences[a + i].weight, want[i].weight);
				}
			}
			rig_auto_result_release(&r);
		}
		free(w);
	}
	mesh_release(&m);
}

Test(auto_weights, a_vertex_on_a_bone_drops_the_far_ones)
{
	/* Vertex 0 lies on bone 0: its raw 1e6 against about 1 for a bone at
	 * distance 1, a fraction below 1e-4, so it keeps bone 0 alone at 1. */
	double src[] = {0, 0, 1, 0, 0, 1};
	uint32_t tri[] = {0, 1, 2};
	struct mesh m = {src, 3, tri, 1};
	struct rig_auto_joint j[2] = {joint(0, 0, 0, -1, -1), joint(0, -1, 0, -1, -1)};
	struct rig_auto_result r = run(&m, j, 2, RIG_AUTO_SEGMENT, 4);
	cr_assert_eq(r.offsets[1], 1);
	cr_expect_eq(r.influences[0].joint, 0);
	cr_expect_eq(r.influences[0].weight, 1);
	rig_auto_result_release(&r);
}

Test(auto_weights, a_vertex_whose_every_weight_drops_keeps_its_strongest_at_one)
{
	/* So far away that every squared distance overflows: every raw weight is
	 * 0, they all tie and the lowest joint takes the vertex. */
	double src[] = {1e200, 1e200, 1e200 + 1e190, 1e200, 1e200, 1e200 + 1e190};
	uint32_t tri[] = {0, 1, 2};
	struct mesh m = {src, 3, tri, 1};
	struct rig_auto_joint j[3] = {joint(0, 0, 0, -1, -1), joint(1, 0, 0, -1, -1),
				      joint(0, 1, 0, -1, -1)};
	for (int method = 0; method < 2; method++) {
		struct rig_auto_result r = run(&m, j, 3, method, 4);
		expect_valid_lists(&r, 3, 4);
		for (size_t v = 0; v < 3; v++) {
			cr_expect_eq(r.offsets[v + 1] - r.offsets[v], 1);
			cr_expect_eq(r.influences[r.offsets[v]].joint, 0);
		}
		rig_auto_result_release(&r);
	}
}

Test(auto_weights, ties_keep_the_lower_joint)
{
	/* Vertex at the middle of two point joints: equal weights. With k = 1
	 * the lower joint stays. */
	double src[] = {0, 0, 2, 0, 1, 1};
	uint32_t tri[] = {0, 1, 2};
	struct mesh m = {src, 3, tri, 1};
	struct rig_auto_joint j[2] = {joint(1, 2, 0, -1, -1), joint(1, 0, 0, -1, -1)};
	/* vertex 2 at (1, 1) is 1 from both */
	struct rig_auto_result r = run(&m, j, 2, RIG_AUTO_NEAREST_JOINT, 1);
	cr_expect_eq(r.influences[r.offsets[2]].joint, 0);
	rig_auto_result_release(&r);
	r = run(&m, j, 2, RIG_AUTO_NEAREST_JOINT, 2);
	cr_assert_eq(r.offsets[3] - r.offsets[2], 2);
	cr_expect_eq(r.influences[r.offsets[2]].joint, 0);
	cr_expect_eq(r.influences[r.offsets[2]].weight, 0.5);
	rig_auto_result_release(&r);
}

/* ---- harmonic ---------------------------------------------------------- */

/* A U: a base two cells tall and two legs three cells wide with a one-cell
 * gap between them (cells x = 4, y >= 2 removed), 9 × 12 vertices. */
static bool keep_u(size_t x, size_t y)
{
	return y < 2 || x != 4;
}

/* Bones up the middle of each leg, from y = 4 to y = 10. */
static void u_joints(struct rig_auto_joint *j)
{
	j[0] = joint(1.5, 4, 90, -1, 6);
	j[1] = joint(6.5, 4, 90, -1, 6);
}

Test(auto_harmonic, weights_follow_the_artwork_not_the_distance)
{
	struct mesh m = grid(10, 12, 1, keep_u);
	struct rig_auto_joint j[2];
	u_joints(j);
	struct rig_auto_result h = run(&m, j, 2, RIG_AUTO_HARMONIC, 4);
	struct rig_auto_result s = run(&m, j, 2, RIG_AUTO_SEGMENT, 4);
	expect_valid_lists(&h, 2, 4);
	expect_valid_lists(&s, 2, 4);
	/* The inner edge of the left leg (x = 4, y >= 6): 2.5 from its own bone,
	 * 2.5 across the gap from the other's, 15+ edges away over the mesh. */
	size_t n_checked = 0;
	for (size_t v = 0; v < m.n_verts; v++) {
		if (m.source[2 * v] != 4 || m.source[2 * v + 1] < 6)
			continue;
		n_checked++;
		cr_expect_gt(weight_of(&h, v, 0), 0.95, "harmonic v %zu: %g", v,
			     weight_of(&h, v, 0));
		cr_expect_lt(weight_of(&s, v, 0), 0.6, "segment v %zu: %g", v, weight_of(&s, v, 0));
	}
	cr_expect_eq(n_checked, 6);
	rig_auto_result_release(&h);
	rig_auto_result_release(&s);
	mesh_release(&m);
}

Test(auto_harmonic, raw_fields_are_in_range_sum_to_one_and_fix_the_bones)
{
	struct mesh m = grid(10, 12, 1, keep_u);
	struct rig_auto_joint j[2];
	u_joints(j);
	double *w = raw(&m, j, 2, RIG_AUTO_HARMONIC);
	for (size_t v = 0; v < m.n_verts; v++) {
		double x = m.source[2 * v], y = m.source[2 * v + 1];
		cr_assert(w[2 * v] >= 0 && w[2 * v] <= 1 + 1e-12);
		cr_assert(near(w[2 * v] + w[2 * v + 1], 1, 1e-12), "v %zu", v);
		/* Bones lie half a cell from the grid lines x = 1, 2 and 6, 7:
		 * both lines are fixed along the bone's length (m = 0.5, tol 0.5). */
		bool on0 = (x == 1 || x == 2) && y >= 4 && y <= 10;
		bool on1 = (x == 6 || x == 7) && y >= 4 && y <= 10;
		if (on0)
			cr_expect_eq(w[2 * v], 1, "v %zu (%g, %g)", v, x, y);
		if (on1)
			cr_expect_eq(w[2 * v + 1], 1, "v %zu (%g, %g)", v, x, y);
	}
	free(w);
	mesh_release(&m);
}

Test(auto_harmonic, a_component_without_a_fixed_vertex_follows_the_nearest_one)
{
	/* Two triangles far apart; both joints sit by the first, so the second
	 * (vertices 3..5) takes the weights of the fixed vertex nearest it. */
	double src[] = {0, 0, 1, 0, 0, 1, 10, 10, 11, 10, 10, 11};
	uint32_t tri[] = {0, 1, 2, 3, 4, 5};
	struct mesh m = {src, 6, tri, 2};
	struct rig_auto_joint j[2] = {joint(0, 0, 0, -1, -1), joint(1.2, 0, 0, -1, -1)};
	double *w = raw(&m, j, 2, RIG_AUTO_HARMONIC);
	/* Joint 0 fixes vertex 0 (distance 0; vertex 2, at 1, is past 0 plus
	 * half the mean edge, 0.57), joint 1 vertex 1 (0.2): vertex 2 is free.
	 * The far triangle's nearest fixed vertex is 1 (|(10, 10) − (1, 0)|² =
	 * 181 against 200 from vertex 0), so it takes joint 1 whole. */
	for (size_t v = 3; v < 6; v++) {
		cr_expect_eq(w[2 * v], 0, "v %zu", v);
		cr_expect_eq(w[2 * v + 1], 1, "v %zu", v);
	}
	cr_expect(near(w[4], 0.5, 1e-15) && near(w[5], 0.5, 1e-15), "%g %g", w[4], w[5]);
	free(w);
}

Test(auto_harmonic, shadowed_bones_share_their_nearest_vertex)
{
	/* Joints 0 and 1 coincide: every vertex nearest to them names 0, so
	 * joint 1 fixes its own nearest vertex (the lowest of the ties), split
	 * 1/2 with joint 0. More joints than vertices works the same way. */
	struct mesh m = grid(4, 4, 1, keep_all);
	struct rig_auto_joint j[3] = {joint(0, 0, 0, -1, -1), joint(0, 0, 0, -1, -1),
				      joint(3, 3, 0, -1, -1)};
	double *w = raw(&m, j, 3, RIG_AUTO_HARMONIC);
	cr_expect_eq(w[0], 0.5);
	cr_expect_eq(w[1], 0.5);
	cr_expect_eq(w[2], 0);
	for (size_t v = 0; v < m.n_verts; v++)
		cr_expect(near(w[3 * v] + w[3 * v + 1] + w[3 * v + 2], 1, 1e-12));
	free(w);
	struct rig_auto_result r = run(&m, j, 3, RIG_AUTO_HARMONIC, 2);
	expect_valid_lists(&r, 3, 2);
	rig_auto_result_release(&r);
	mesh_release(&m);

	double src[] = {0, 0, 1, 0, 0, 1};
	uint32_t tri[] = {0, 1, 2};
	struct mesh t = {src, 3, tri, 1};
	struct rig_auto_joint many[6];
	for (size_t i = 0; i < 6; i++)
		many[i] = joint((double)i * 0.3, 0.1, 0, -1, -1);
	for (int method = 0; method < 3; method++) {
		r = run(&t, many, 6, method, 8);
		expect_valid_lists(&r, 6, 8);
		rig_auto_result_release(&r);
	}
}

/* ---- properties -------------------------------------------------------- */

Test(auto_weights, every_method_is_deterministic_and_obeys_the_weights_rule)
{
	struct mesh m = grid(17, 13, 0.75, keep_u);
	struct rig_auto_joint j[12];
	for (size_t i = 0; i < 12; i++) /* a chain, then a fork at joint 6 */
		j[i] = joint(0.5 + (double)(i % 6) * 1.9,
			     0.5 + (double)(i / 6) * 4 + (double)(i % 3) * 0.7, (double)i * 20,
			     i == 0   ? -1
			     : i == 6 ? 2
				      : (long)i - 1,
			     i % 4 == 3 ? 1.5 : -1);
	for (int method = 0; method < 3; method++) {
		for (int k = 1; k <= 8; k *= 2) {
			struct rig_auto_result a = run(&m, j, 12, method, k);
			struct rig_auto_result b = run(&m, j, 12, method, k);
			expect_valid_lists(&a, 12, k);
			cr_assert_eq(
				memcmp(a.offsets, b.offsets, (m.n_verts + 1) * sizeof *a.offsets),
				0);
			cr_assert_eq(memcmp(a.influences, b.influences,
					    a.offsets[m.n_verts] * sizeof *a.influences),
				     0, "method %d k %d", method, k);
			rig_auto_result_release(&a);
			rig_auto_result_release(&b);
		}
	}
	mesh_release(&m);
}

/* ---- errors ------------------------------------------------------------ */

/* Runs with one broken argument and expects exactly one INVALID_FIELD at
 * pointer, *out zeroed. */
static void expect_invalid(const struct mesh *m, const struct rig_auto_joint *joints,
			   size_t n_joints, int method, int k, const char *pointer)
{
	struct rig_errs *errs = rig_errs_new();
	cr_assert(errs);
	struct rig_auto_result r = {(uint32_t *)1, NULL, 7};
	cr_assert_eq(rig_auto_weights(&r, m->source, m->n_verts, m->triangles, m->n_tris, joints,
				      n_joints, method, k, errs),
		     -1);
	cr_expect_null(r.offsets);
	cr_expect_eq(r.n_verts, 0);
	cr_assert_eq(errs->total, 1, "%zu errors, first %s", errs->total,
		     errs->count ? errs->items[0].detail : "");
	cr_expect_eq(errs->items[0].code, RIG_INVALID_FIELD);
	cr_expect_str_eq(errs->items[0].pointer, pointer);
	double w[64 * 257];
	rig_errs_init(errs);
	if (m->n_verts * n_joints <= 64 * 257)
		cr_expect_eq(rig_auto_raw_weights(w, m->source, m->n_verts, m->triangles, m->n_tris,
						  joints, n_joints, method, errs),
			     k >= 1 && k <= 8 ? -1 : 0);
	rig_errs_free(errs);
}

static void expect_ok(const struct mesh *m, const struct rig_auto_joint *joints, size_t n_joints,
		      int method, int k)
{
	struct rig_auto_result r = run(m, joints, n_joints, method, k);
	expect_valid_lists(&r, n_joints, k);
	rig_auto_result_release(&r);
}

Test(auto_weights_errors, joint_count_max_influences_and_method_at_and_past_their_edges)
{
	struct mesh m = grid(3, 3, 1, keep_all);
	static struct rig_auto_joint j[RIG_MAX_JOINTS + 1];
	for (size_t i = 0; i <= RIG_MAX_JOINTS; i++)
		j[i] = joint((double)(i % 16) * 0.1, (double)(i / 16) * 0.1, 0, -1, -1);
	expect_invalid(&m, j, 0, RIG_AUTO_SEGMENT, 4, "/joints");
	expect_ok(&m, j, 1, RIG_AUTO_SEGMENT, 4);
	expect_ok(&m, j, RIG_MAX_JOINTS, RIG_AUTO_HARMONIC, 8);
	expect_invalid(&m, j, RIG_MAX_JOINTS + 1, RIG_AUTO_SEGMENT, 4, "/joints");
	expect_invalid(&m, j, 2, RIG_AUTO_SEGMENT, 0, "/maxInfluences");
	expect_ok(&m, j, 2, RIG_AUTO_SEGMENT, 1);
	expect_ok(&m, j, 2, RIG_AUTO_SEGMENT, 8);
	expect_invalid(&m, j, 2, RIG_AUTO_SEGMENT, 9, "/maxInfluences");
	expect_invalid(&m, j, 2, 3, 4, "/method");
	expect_invalid(&m, j, 2, -1, 4, "/method");
	mesh_release(&m);
}

Test(auto_weights_errors, joint_fields_at_and_past_their_edges)
{
	struct mesh m = grid(3, 3, 1, keep_all);
	struct rig_auto_joint j[3] = {joint(0, 0, 0, -1, -1), joint(1, 1, 0, 0, -1),
				      joint(2, 2, 0, 1, -1)};
	j[2].parent = 2;
	expect_invalid(&m, j, 3, RIG_AUTO_SEGMENT, 4, "/joints/2/parent");
	j[2].parent = 3;
	expect_invalid(&m, j, 3, RIG_AUTO_SEGMENT, 4, "/joints/2/parent");
	j[2].parent = -2;
	expect_invalid(&m, j, 3, RIG_AUTO_SEGMENT, 4, "/joints/2/parent");
	j[2].parent = -1;
	expect_ok(&m, j, 3, RIG_AUTO_SEGMENT, 4);
	j[1].parent = 2; /* the last joint as a parent: valid */
	expect_ok(&m, j, 3, RIG_AUTO_HARMONIC, 4);
	j[1].has_length = true;
	j[1].length = -1e-300;
	expect_invalid(&m, j, 3, RIG_AUTO_SEGMENT, 4, "/joints/1/length");
	j[1].length = NAN;
	expect_invalid(&m, j, 3, RIG_AUTO_SEGMENT, 4, "/joints/1/length");
	j[1].length = INFINITY;
	expect_invalid(&m, j, 3, RIG_AUTO_SEGMENT, 4, "/joints/1/length");
	j[1].length = 0;
	expect_ok(&m, j, 3, RIG_AUTO_SEGMENT, 4);
	j[1].bind.m[3] = NAN;
	expect_invalid(&m, j, 3, RIG_AUTO_SEGMENT, 4, "/joints/1/bind");
	mesh_release(&m);
}

Test(auto_weights_errors, source_and_triangles_at_and_past_their_edges)
{
	struct mesh m = grid(3, 3, 1, keep_all);
	struct rig_auto_joint j[1] = {joint(0, 0, 0, -1, -1)};
	m.source[7] = INFINITY;
	expect_invalid(&m, j, 1, RIG_AUTO_SEGMENT, 4, "/source/3");
	m.source[7] = DBL_MAX;
	expect_ok(&m, j, 1, RIG_AUTO_SEGMENT, 4);
	m.triangles[5] = (uint32_t)m.n_verts;
	expect_invalid(&m, j, 1, RIG_AUTO_HARMONIC, 4, "/triangles/1");
	m.triangles[5] = (uint32_t)m.n_verts - 1;
	expect_ok(&m, j, 1, RIG_AUTO_HARMONIC, 4);
	mesh_release(&m);
}
