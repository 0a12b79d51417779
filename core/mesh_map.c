/* Point location and barycentric transfer of mesh_map.h: the reference scan,
 * the bounding-volume hierarchy that reproduces it, and the mapping itself.
 *
 * Exactness. Both paths decide with the same two functions (weights_of: the
 * containment predicate and the weights; distance2_of: the squared distance to
 * a triangle's edges), and the answer is order-free: the lowest containing
 * index, else the least (distance², index). The tree therefore only has to
 * skip triangles that provably lose, which takes two floating-point bounds:
 *   - a triangle that the computed predicate says contains p lies within
 *     26·κ·D of p (κ = ε·D²/|2A|, D its bounding-box side; the errors of the
 *     cross products and of the division scale the triangle by at most a few
 *     κ about a vertex). Its box is padded by (256·κ + 1e-9)·D, so the
 *     containment search visits every such triangle. Triangles with κ > 1e-3
 *     (far beyond SPEC's degeneracy limit) are "loose": tested for every point.
 *   - a computed distance² is at least (d − s)² · (1 − 1e-9), d the true
 *     distance to the triangle's box and s = 1e-9 · (largest |coordinate|):
 *     the rounding of a + t·(b − a) − p is a few ε of those magnitudes. A
 *     subtree whose bound exceeds the best distance² so far cannot win, not
 *     even a tie, and is skipped.
 * Coordinates above 1e150 (where squares could overflow) go to the scan.
 * Boxes are stored as floats rounded outwards: only ever larger.
 */
#include "core/mesh_map.h"

#include <assert.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Bit-identical answers need every copy of the predicate rounded alike: no
 * fused multiply-add in one inlined copy and not in another. GCC does not
 * contract under -std=c11; clang may, unless told. */
#ifdef __clang__
#pragma STDC FP_CONTRACT OFF
#endif

/* Above this magnitude the scan answers (squared distances could overflow). */
#define SAFE_COORDINATE 1e150
/* A leaf holds 1 to LEAF_MAX triangles; splitting at the middle of ≥ 9 leaves ≥ 4 per leaf. */
#define LEAF_MAX 8
/* A path down the tree splits on at most 32 Morton bits and halves at most 32
 * times; a traversal holds at most depth + 1 pending subtrees. */
#define STACK_DEPTH 72

/* ------------------------------------------------------------------------ */
/* The predicate and the distance both paths use                            */
/* ------------------------------------------------------------------------ */

/* Barycentric weights of p in triangle (a, b, c); area2 is twice its signed area. */
static void barycentric(double w[3], const double *a, const double *b, const double *c, double px,
			double py, double area2)
{
	w[1] = ((px - a[0]) * (c[1] - a[1]) - (py - a[1]) * (c[0] - a[0])) / area2;
	w[2] = ((b[0] - a[0]) * (py - a[1]) - (b[1] - a[1]) * (px - a[0])) / area2;
	w[0] = 1.0 - w[1] - w[2];
}

/* The weights of (x, y) in triangle t; true when all three are ≥ 0 (t contains the point). */
static bool weights_of(double w[3], const double *src, const uint32_t *tris, size_t t, double x,
		       double y)
{
	const double *a = &src[2 * tris[3 * t]];
	const double *b = &src[2 * tris[3 * t + 1]];
	const double *c = &src[2 * tris[3 * t + 2]];
	double area2 = (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]);
	barycentric(w, a, b, c, x, y, area2);
	return w[0] >= 0 && w[1] >= 0 && w[2] >= 0;
}

static double segment_distance2(const double *a, const double *b, double px, double py)
{
	double dx = b[0] - a[0], dy = b[1] - a[1];
	double len2 = dx * dx + dy * dy;
	double t = len2 > 0 ? ((px - a[0]) * dx + (py - a[1]) * dy) / len2 : 0;
	t = t < 0 ? 0 : t > 1 ? 1 : t;
	double ex = a[0] + t * dx - px, ey = a[1] + t * dy - py;
	return ex * ex + ey * ey;
}

/* Squared distance from (x, y) to the edges of triangle t. */
static double distance2_of(const double *src, const uint32_t *tris, size_t t, double x, double y)
{
	const double *a = &src[2 * tris[3 * t]];
	const double *b = &src[2 * tris[3 * t + 1]];
	const double *c = &src[2 * tris[3 * t + 2]];
	return fmin(segment_distance2(a, b, x, y),
		    fmin(segment_distance2(b, c, x, y), segment_distance2(c, a, x, y)));
}

static struct rig_mesh_site site_inside(const double w[3], size_t t)
{
	return (struct rig_mesh_site){(uint32_t)t, {w[0], w[1], w[2]}, true, 0};
}

struct rig_mesh_site rig_mesh_locate(const double *src, const uint32_t *tris, size_t n_tris,
				     double x, double y)
{
	struct rig_mesh_site best = {0, {1, 0, 0}, false, INFINITY};
	double best_d2 = INFINITY;
	for (size_t t = 0; t < n_tris; t++) {
		double w[3];
		if (weights_of(w, src, tris, t, x, y))
			return site_inside(w, t);
		double d2 = distance2_of(src, tris, t, x, y);
		if (d2 < best_d2) {
			best_d2 = d2;
			best = (struct rig_mesh_site){(uint32_t)t, {w[0], w[1], w[2]}, false, 0};
		}
	}
	best.distance = sqrt(best_d2);
	return best;
}

/* ------------------------------------------------------------------------ */
/* The index: a bounding-volume hierarchy over Morton-ordered triangles      */
/* ------------------------------------------------------------------------ */

/* A node's box covers the padded boxes of every triangle below it. Nodes are
 * in depth-first order: an inner node's left child follows it. */
struct node {
	float lo[2], hi[2];
	uint32_t first; /* leaf: first entry of order; inner: index of the right child */
	uint32_t count; /* leaf: 1..LEAF_MAX triangles; inner: 0 */
};

struct rig_mesh_index {
	const double *src;    /* borrowed */
	const uint32_t *tris; /* borrowed */
	size_t n_tris;
	bool scan_only;  /* coordinates too large for the bounds: every query scans */
	double scale;    /* the largest |coordinate| of the mesh */
	uint32_t *order; /* the tree's triangles in leaf order, then the loose ones */
	size_t n_tree, n_loose;
	struct node *nodes;
	size_t n_nodes, cap_nodes;
};

/* Minimum and maximum of finite values, inline (libm's fmin/fmax are calls). */
static inline double min_d(double a, double b)
{
	return b < a ? b : a;
}

static inline double max_d(double a, double b)
{
	return b > a ? b : a;
}

/* The nearest float ≤ v (or ≥ v): boxes only grow when stored. */
static float float_down(double v)
{
	if (v > FLT_MAX)
		return FLT_MAX;
	if (!(v >= -FLT_MAX))
		return -INFINITY;
	float f = (float)v;
	return (double)f > v ? nextafterf(f, -INFINITY) : f;
}

static float float_up(double v)
{
	if (v < -FLT_MAX)
		return -FLT_MAX;
	if (!(v <= FLT_MAX))
		return INFINITY;
	float f = (float)v;
	return (double)f < v ? nextafterf(f, INFINITY) : f;
}

/* The padded box of triangle t (see the file comment); false when t is loose. */
static bool padded_box(float box[4], const double *src, const uint32_t *tris, size_t t)
{
	const double *a = &src[2 * tris[3 * t]];
	const double *b = &src[2 * tris[3 * t + 1]];
	const double *c = &src[2 * tris[3 * t + 2]];
	double lo[2], hi[2];
	for (int k = 0; k < 2; k++) {
		lo[k] = min_d(a[k], min_d(b[k], c[k]));
		hi[k] = max_d(a[k], max_d(b[k], c[k]));
	}
	double side = max_d(hi[0] - lo[0], hi[1] - lo[1]);
	double area2 = (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]);
	double kappa = DBL_EPSILON * side * side / fabs(area2);
	if (!(side >= 1e-100) || !(kappa <= 1e-3))
		return false;
	double pad = (256 * kappa + 1e-9) * side;
	box[0] = float_down(lo[0] - pad);
	box[1] = float_down(lo[1] - pad);
	box[2] = float_up(hi[0] + pad);
	box[3] = float_up(hi[1] + pad);
	return true;
}

/* Spreads the low 16 bits of v to the even bits (Morton interleave). */
static uint32_t spread16(uint32_t v)
{
	v &= 0xffff;
	v = (v | (v << 8)) & 0x00ff00ff;
	v = (v | (v << 4)) & 0x0f0f0f0f;
	v = (v | (v << 2)) & 0x33333333;
	v = (v | (v << 1)) & 0x55555555;
	return v;
}

static uint32_t quantize(double v, double lo, double extent)
{
	if (!(extent > 0))
		return 0;
	double q = (v - lo) / extent * 65535.0; /* NaN when boxes went infinite */
	return q > 0 ? (q < 65535 ? (uint32_t)q : 65535) : 0;
}

/* Sorts keys (Morton code << 32 | triangle) by code, stably (four 8-bit LSD
 * passes): the triangle order among equal codes stays ascending. */
static int sort_keys(uint64_t *keys, size_t n)
{
	uint64_t *tmp = malloc((n ? n : 1) * sizeof *tmp);
	if (!tmp)
		return -1;
	for (int shift = 32; shift < 64; shift += 8) {
		size_t counts[257] = {0};
		for (size_t i = 0; i < n; i++)
			counts[((keys[i] >> shift) & 0xff) + 1]++;
		for (size_t k = 1; k <= 256; k++)
			counts[k] += counts[k - 1];
		for (size_t i = 0; i < n; i++)
			tmp[counts[(keys[i] >> shift) & 0xff]++] = keys[i];
		memcpy(keys, tmp, n * sizeof *keys);
	}
	free(tmp);
	return 0;
}

static void box_union(struct node *nd, const float *box)
{
	nd->lo[0] = box[0] < nd->lo[0] ? box[0] : nd->lo[0];
	nd->lo[1] = box[1] < nd->lo[1] ? box[1] : nd->lo[1];
	nd->hi[0] = box[2] > nd->hi[0] ? box[2] : nd->hi[0];
	nd->hi[1] = box[3] > nd->hi[1] ? box[3] : nd->hi[1];
}

/* Where to split keys[lo, hi) (sorted, more than LEAF_MAX): at the first key
 * with the highest bit in which the range's Morton codes differ set — the two
 * halves then lie on either side of a quadtree line, so their boxes barely
 * overlap — unless that leaves fewer than LEAF_MAX / 2 on a side (which keeps
 * every leaf at 4 or more, hence the node bound); then at the middle. */
static size_t split_at(const uint64_t *keys, size_t lo, size_t hi)
{
	size_t mid = lo + (hi - lo) / 2;
	uint32_t first = (uint32_t)(keys[lo] >> 32), last = (uint32_t)(keys[hi - 1] >> 32);
	if (first == last)
		return mid;
	uint32_t bit = UINT32_C(1) << (31 - __builtin_clz(first ^ last));
	size_t a = lo, b = hi - 1; /* keys[a] has the bit clear, keys[b] set */
	while (b - a > 1) {
		size_t m = a + (b - a) / 2;
		if ((uint32_t)(keys[m] >> 32) & bit)
			b = m;
		else
			a = m;
	}
	return b - lo >= LEAF_MAX / 2 && hi - b >= LEAF_MAX / 2 ? b : mid;
}

/* Builds the subtree over order[lo, hi) (keys sorted alike, boxes indexed by
 * triangle); returns its node. */
static uint32_t build(struct rig_mesh_index *ix, const uint64_t *keys, const float *boxes,
		      size_t lo, size_t hi)
{
	assert(ix->n_nodes < ix->cap_nodes);
	uint32_t id = (uint32_t)ix->n_nodes++;
	struct node *nd = &ix->nodes[id];
	*nd = (struct node){{INFINITY, INFINITY}, {-INFINITY, -INFINITY}, (uint32_t)lo, 0};
	if (hi - lo <= LEAF_MAX) {
		nd->count = (uint32_t)(hi - lo);
		for (size_t i = lo; i < hi; i++)
			box_union(nd, &boxes[4 * ix->order[i]]);
		return id;
	}
	size_t mid = split_at(keys, lo, hi);
	uint32_t left = build(ix, keys, boxes, lo, mid);
	uint32_t right = build(ix, keys, boxes, mid, hi);
	nd->first = right;
	const struct node *l = &ix->nodes[left], *r = &ix->nodes[right];
	box_union(nd, (const float[4]){l->lo[0], l->lo[1], l->hi[0], l->hi[1]});
	box_union(nd, (const float[4]){r->lo[0], r->lo[1], r->hi[0], r->hi[1]});
	return id;
}

/* Orders the tree's triangles along a Morton curve of their box centres and
 * builds the tree over that order. */
static int build_tree(struct rig_mesh_index *ix, const float *boxes, const bool *loose)
{
	size_t n = ix->n_tris;
	double lo[2] = {INFINITY, INFINITY}, hi[2] = {-INFINITY, -INFINITY};
	for (size_t t = 0; t < n; t++)
		for (int k = 0; !loose[t] && k < 2; k++) {
			double centre =
				0.5 * ((double)boxes[4 * t + k] + (double)boxes[4 * t + 2 + k]);
			lo[k] = min_d(lo[k], centre);
			hi[k] = max_d(hi[k], centre);
		}
	uint64_t *keys = malloc((n ? n : 1) * sizeof *keys);
	if (!keys)
		return -1;
	size_t n_keys = 0, n_loose = 0;
	for (size_t t = 0; t < n; t++) {
		if (loose[t]) {
			ix->order[n - 1 - n_loose++] = (uint32_t)t; /* reversed below */
			continue;
		}
		uint32_t q[2];
		for (int k = 0; k < 2; k++)
			q[k] = quantize(
				0.5 * ((double)boxes[4 * t + k] + (double)boxes[4 * t + 2 + k]),
				lo[k], hi[k] - lo[k]);
		uint64_t code = spread16(q[0]) | (spread16(q[1]) << 1);
		keys[n_keys++] = code << 32 | t;
	}
	if (sort_keys(keys, n_keys) != 0) {
		free(keys);
		return -1;
	}
	for (size_t i = 0; i < n_keys; i++)
		ix->order[i] = (uint32_t)keys[i];
	for (size_t i = 0; i < n_loose / 2; i++) { /* loose ones ascending, for readability */
		uint32_t s = ix->order[n_keys + i];
		ix->order[n_keys + i] = ix->order[n - 1 - i];
		ix->order[n - 1 - i] = s;
	}
	ix->n_tree = n_keys;
	ix->n_loose = n_loose;
	/* Leaves hold ≥ 4 triangles once there are more than LEAF_MAX, so at
	 * most n/4 leaves and n/2 nodes. */
	ix->cap_nodes = n_keys / 2 + 1;
	ix->nodes = malloc(ix->cap_nodes * sizeof *ix->nodes);
	if (ix->nodes && n_keys)
		build(ix, keys, boxes, 0, n_keys);
	free(keys);
	return ix->nodes ? 0 : -1;
}

struct rig_mesh_index *rig_mesh_index_new(const double *src, const uint32_t *tris, size_t n_tris)
{
	assert(n_tris <= UINT32_MAX);
	struct rig_mesh_index *ix = calloc(1, sizeof *ix);
	if (!ix)
		return NULL;
	*ix = (struct rig_mesh_index){.src = src, .tris = tris, .n_tris = n_tris};
	bool finite = true;
	for (size_t i = 0; i < 3 * n_tris; i++)
		for (int k = 0; k < 2; k++) {
			double v = fabs(src[2 * tris[i] + k]);
			finite = finite && isfinite(v);
			ix->scale = max_d(ix->scale, v);
		}
	ix->scan_only = n_tris == 0 || !finite || !(ix->scale <= SAFE_COORDINATE);
	if (ix->scan_only)
		return ix;
	float *boxes = malloc(4 * n_tris * sizeof *boxes);
	bool *loose = malloc(n_tris * sizeof *loose);
	ix->order = malloc(n_tris * sizeof *ix->order);
	int rc = boxes && loose && ix->order ? 0 : -1;
	for (size_t t = 0; rc == 0 && t < n_tris; t++)
		loose[t] = !padded_box(&boxes[4 * t], src, tris, t);
	if (rc == 0)
		rc = build_tree(ix, boxes, loose);
	free(boxes);
	free(loose);
	if (rc) {
		rig_mesh_index_free(ix);
		return NULL;
	}
	return ix;
}

void rig_mesh_index_free(struct rig_mesh_index *ix)
{
	if (!ix)
		return;
	free(ix->order);
	free(ix->nodes);
	free(ix);
}

size_t rig_mesh_index_bytes(const struct rig_mesh_index *ix)
{
	return sizeof *ix + (ix->order ? ix->n_tris * sizeof *ix->order : 0) +
	       (ix->nodes ? ix->cap_nodes * sizeof *ix->nodes : 0);
}

/* ------------------------------------------------------------------------ */
/* Queries                                                                  */
/* ------------------------------------------------------------------------ */

static bool box_holds(const struct node *nd, double x, double y)
{
	return nd->lo[0] <= x && x <= nd->hi[0] && nd->lo[1] <= y && y <= nd->hi[1];
}

/* The lowest triangle whose computed weights contain (x, y), or UINT32_MAX. */
static uint32_t first_containing(const struct rig_mesh_index *ix, double x, double y)
{
	uint32_t best = UINT32_MAX;
	double w[3];
	for (size_t i = ix->n_tree; i < ix->n_tree + ix->n_loose; i++)
		if (ix->order[i] < best && weights_of(w, ix->src, ix->tris, ix->order[i], x, y))
			best = ix->order[i];
	uint32_t stack[STACK_DEPTH];
	size_t top = 0;
	if (ix->n_nodes)
		stack[top++] = 0;
	while (top) {
		uint32_t id = stack[--top];
		const struct node *nd = &ix->nodes[id];
		if (!box_holds(nd, x, y))
			continue;
		if (nd->count) {
			for (uint32_t i = nd->first; i < nd->first + nd->count; i++)
				if (ix->order[i] < best &&
				    weights_of(w, ix->src, ix->tris, ix->order[i], x, y))
					best = ix->order[i];
			continue;
		}
		assert(top + 2 <= STACK_DEPTH);
		stack[top++] = nd->first;
		stack[top++] = id + 1;
	}
	return best;
}

/* A lower bound on the computed squared distance from (x, y) to any triangle
 * under nd (see the file comment); slack is s. */
static double box_bound2(const struct node *nd, double x, double y, double slack)
{
	double dx = max_d(max_d(nd->lo[0] - x, x - nd->hi[0]), 0);
	double dy = max_d(max_d(nd->lo[1] - y, y - nd->hi[1]), 0);
	double d = sqrt(dx * dx + dy * dy) - slack;
	return d > 0 ? d * d * (1 - 1e-9) : 0;
}

struct nearest {
	uint32_t triangle; /* UINT32_MAX until one is measured */
	double d2;
};

/* Keeps t when it is nearer than the best so far, or as near with a lower index. */
static void consider(struct nearest *best, const struct rig_mesh_index *ix, uint32_t t, double x,
		     double y)
{
	double d2 = distance2_of(ix->src, ix->tris, t, x, y);
	if (d2 < best->d2 || (d2 == best->d2 && t < best->triangle))
		*best = (struct nearest){t, d2};
}

/* A subtree still to visit and the bound it was pushed with. */
struct pending {
	uint32_t id;
	double bound2;
};

/* The least (distance², index) over every triangle; used when none contains (x, y). */
static struct nearest nearest_triangle(const struct rig_mesh_index *ix, double x, double y)
{
	struct nearest best = {UINT32_MAX, INFINITY};
	for (size_t i = ix->n_tree; i < ix->n_tree + ix->n_loose; i++)
		consider(&best, ix, ix->order[i], x, y);
	double slack = 1e-9 * (ix->scale + max_d(fabs(x), fabs(y))) + 1e-290;
	struct pending stack[STACK_DEPTH];
	size_t top = 0;
	if (ix->n_nodes)
		stack[top++] = (struct pending){0, 0};
	while (top) {
		top--;
		if (stack[top].bound2 > best.d2)
			continue;
		const struct node *nd = &ix->nodes[stack[top].id];
		if (nd->count) {
			for (uint32_t i = nd->first; i < nd->first + nd->count; i++)
				consider(&best, ix, ix->order[i], x, y);
			continue;
		}
		uint32_t near = stack[top].id + 1, far = nd->first;
		double near_b2 = box_bound2(&ix->nodes[near], x, y, slack);
		double far_b2 = box_bound2(&ix->nodes[far], x, y, slack);
		if (far_b2 < near_b2) {
			uint32_t s = near;
			near = far;
			far = s;
			double sb = near_b2;
			near_b2 = far_b2;
			far_b2 = sb;
		}
		assert(top + 2 <= STACK_DEPTH);
		if (far_b2 <= best.d2)
			stack[top++] = (struct pending){far, far_b2};
		if (near_b2 <= best.d2)
			stack[top++] = (struct pending){near, near_b2};
	}
	return best;
}

struct rig_mesh_site rig_mesh_index_locate(const struct rig_mesh_index *ix, double x, double y)
{
	if (ix->scan_only || !(fabs(x) <= SAFE_COORDINATE && fabs(y) <= SAFE_COORDINATE))
		return rig_mesh_locate(ix->src, ix->tris, ix->n_tris, x, y);
	double w[3];
	uint32_t t = first_containing(ix, x, y);
	if (t != UINT32_MAX) {
		weights_of(w, ix->src, ix->tris, t, x, y);
		return site_inside(w, t);
	}
	struct nearest best = nearest_triangle(ix, x, y);
	if (best.triangle == UINT32_MAX) /* every distance overflowed: the scan's default */
		return rig_mesh_locate(ix->src, ix->tris, ix->n_tris, x, y);
	weights_of(w, ix->src, ix->tris, best.triangle, x, y);
	return (struct rig_mesh_site){best.triangle, {w[0], w[1], w[2]}, false, sqrt(best.d2)};
}

void rig_mesh_map_points(double *xy, struct rig_mesh_site *out_sites, size_t n,
			 const struct rig_mesh_index *ix, const double *dst)
{
	for (size_t i = 0; i < n; i++) {
		struct rig_mesh_site s = rig_mesh_index_locate(ix, xy[2 * i], xy[2 * i + 1]);
		const uint32_t *t = &ix->tris[3 * s.triangle];
		double x = 0, y = 0;
		for (int k = 0; k < 3; k++) {
			x += s.w[k] * dst[2 * t[k]];
			y += s.w[k] * dst[2 * t[k] + 1];
		}
		xy[2 * i] = x;
		xy[2 * i + 1] = y;
		if (out_sites)
			out_sites[i] = s;
	}
}
