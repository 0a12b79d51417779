/* The puppet evaluator (puppet.h): built once from a stored definition
 * (rig_puppet_take: the graph, the anchors, the weights, the ARAP
 * factorisation, the deformed-mesh checks' layout), then read by every frame
 * (rig_puppet_pose_at, rig_puppet_evaluate). What a frame computes is a pure
 * function of the evaluator and the frame: nothing is cached between frames.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/isa.h"
#include "core/puppet_impl.h"
#include "core/rig_limits.h"

#define PI 3.14159265358979323846

static const char *const ran_names[] = {
	[RIG_PUPPET_RAN_LBS] = "lbs",
	[RIG_PUPPET_RAN_ARAP] = "arap",
	[RIG_PUPPET_RAN_LBS_FALLBACK] = "lbs-fallback",
};

const char *rig_puppet_ran_name(enum rig_puppet_ran ran)
{
	if ((unsigned)ran >= sizeof ran_names / sizeof ran_names[0])
		return "unknown";
	return ran_names[ran];
}

/* ------------------------------------------------------------------------ */
/* Building                                                                  */
/* ------------------------------------------------------------------------ */

/* What memory safety and the math need of a stored definition. */
static bool is_sound(const struct rig_puppet_def *d)
{
	if (!d->source || !d->triangles || d->n_verts == 0 || d->n_tris == 0 ||
	    d->n_verts > RIG_MAX_VERTICES || d->n_tris > RIG_MAX_TRIANGLES ||
	    d->n_pins > RIG_MAX_PUPPET_PINS || (d->n_pins && !d->pins) ||
	    (unsigned)d->solver > RIG_PUPPET_SOLVER_LBS)
		return false;
	for (size_t i = 0; i < 3 * d->n_tris; i++)
		if (d->triangles[i] >= d->n_verts)
			return false;
	for (size_t i = 0; i < 2 * d->n_verts; i++)
		if (!isfinite(d->source[i]))
			return false;
	for (size_t p = 0; p < d->n_pins; p++) {
		const struct rig_puppet_pin *pin = &d->pins[p];
		if (!isfinite(pin->x) || !isfinite(pin->y) || !(pin->overlap_extent > 0))
			return false;
		for (int c = 0; c < RIG_PIN_CH_COUNT; c++) {
			const struct rig_keys *k = &pin->keys[c];
			if (k->count && !k->items)
				return false;
			for (size_t i = 0; i < k->count; i++) {
				if (!isfinite(k->items[i].frame) ||
				    (unsigned)k->items[i].interp > RIG_INTERP_BEZIER ||
				    (i > 0 && !(k->items[i].frame > k->items[i - 1].frame)))
					return false;
			}
		}
	}
	return true;
}

/* Anchors every pin; false when two share a vertex. */
static bool anchor_pins(struct rig_puppet *pup)
{
	const struct rig_puppet_def *d = &pup->def;
	for (size_t v = 0; v < d->n_verts; v++)
		pup->pin_of[v] = -1;
	for (size_t p = 0; p < d->n_pins; p++) {
		size_t v = rig_puppet_nearest_vertex(d->source, d->n_verts, d->pins[p].x,
						     d->pins[p].y);
		if (pup->pin_of[v] >= 0)
			return false;
		pup->pin_vertex[p] = (uint32_t)v;
		pup->pin_of[v] = (int32_t)p;
	}
	return true;
}

static void release(struct rig_puppet *pup)
{
	rig_mesh_graph_release(&pup->graph);
	free(pup->pin_vertex);
	free(pup->pin_of);
	free(pup->slot);
	free(pup->free_verts);
	free(pup->weights);
	free(pup->is_oriented);
	rig_sparse_symbolic_release(&pup->sym);
	free(pup->entry_edge);
	free(pup->cot);
	rig_sparse_numeric_release(&pup->arap);
	free(pup->static_sigma);
	rig_mesh_check_release(&pup->check);
}

/* Everything but the weights' and the graph's own arrays; -1 when out of
 * memory, -2 when the pins share a vertex or the system is not definite. */
static int build(struct rig_puppet *pup)
{
	const struct rig_puppet_def *d = &pup->def;
	size_t n = d->n_verts, n_pins = d->n_pins;
	pup->pin_vertex = malloc((n_pins + 1) * sizeof *pup->pin_vertex);
	pup->pin_of = malloc(n * sizeof *pup->pin_of);
	pup->is_oriented = calloc(n_pins + 1, sizeof *pup->is_oriented);
	pup->static_sigma = calloc(n_pins + 1, sizeof *pup->static_sigma);
	if (!pup->pin_vertex || !pup->pin_of || !pup->is_oriented || !pup->static_sigma)
		return -1;
	if (!anchor_pins(pup))
		return -2;
	if (rig_mesh_graph_build(&pup->graph, d->triangles, d->n_tris, n) != 0 ||
	    rig_puppet__weights_build(pup) != 0)
		return -1;
	pup->max_rotation_rad = d->has_max_rotation ? d->max_rotation_deg * (PI / 180) : INFINITY;
	for (size_t p = 0; p < n_pins; p++) {
		pup->is_oriented[p] = rig_puppet_pin_is_oriented(&d->pins[p]);
		pup->static_sigma[p] = d->pins[p].stiffness > 0 ? d->pins[p].stiffness : 0;
	}
	size_t ne = pup->graph.n_edges, nz = (size_t)pup->sym.ap[pup->n_free];
	pup->cot = malloc((ne + 1) * sizeof *pup->cot);
	if (!pup->cot)
		return -1;
	rig_puppet__cotangents(pup->cot, pup);
	if (d->solver == RIG_PUPPET_SOLVER_ARAP && n_pins >= 2 && pup->n_free > 0) {
		double *w = malloc((ne + 1) * sizeof *w), *ax = malloc((nz + 1) * sizeof *ax);
		int rc =
			w && ax ? rig_puppet__arap_factor(&pup->arap, w, ax, pup, pup->static_sigma)
				: -1;
		free(w);
		free(ax);
		if (rc)
			return rc;
		pup->has_arap = true;
	}
	if (rig_mesh_check_init(&pup->check, d->source, n, d->triangles, d->n_tris,
				rig_isa_best()) != 0)
		return -1;
	return 0;
}

struct rig_puppet *rig_puppet_take(struct rig_puppet_def *def, struct rig_errs *errs)
{
	if (!is_sound(def)) {
		rig_errs_add(errs, RIG_INTERNAL, "the stored puppet is damaged");
		return NULL;
	}
	struct rig_puppet *pup = calloc(1, sizeof *pup);
	if (!pup) {
		rig_errs_add(errs, RIG_INTERNAL, "out of memory");
		return NULL;
	}
	pup->def = *def; /* borrowed until the build succeeds */
	int rc = build(pup);
	if (rc) {
		release(pup);
		free(pup);
		rig_errs_add(errs, RIG_INTERNAL,
			     rc == -1 ? "out of memory" : "the stored puppet is damaged");
		return NULL;
	}
	/* def keeps its counts; its arrays and pins are the evaluator's now. */
	def->source = NULL;
	def->triangles = NULL;
	def->uvs = NULL;
	def->pins = NULL;
	def->n_pins = 0;
	return pup;
}

void rig_puppet_free(struct rig_puppet *pup)
{
	if (!pup)
		return;
	release(pup);
	rig_puppet_def_release(&pup->def);
	free(pup);
}

const struct rig_puppet_def *rig_puppet_def_of(const struct rig_puppet *pup)
{
	return &pup->def;
}

uint32_t rig_puppet_pin_vertex(const struct rig_puppet *pup, size_t p)
{
	return pup->pin_vertex[p];
}

const double *rig_puppet_weights(const struct rig_puppet *pup)
{
	return pup->def.n_pins ? pup->weights : NULL;
}

size_t rig_puppet_bytes(const struct rig_puppet *pup)
{
	const struct rig_puppet_def *d = &pup->def;
	size_t n = d->n_verts, ne = pup->graph.n_edges, n_pins = d->n_pins;
	size_t keys = 0;
	for (size_t p = 0; p < n_pins; p++)
		for (int c = 0; c < RIG_PIN_CH_COUNT; c++)
			keys += d->pins[p].keys[c].count;
	size_t b = sizeof *pup + n * 16 + d->n_tris * 12 + n_pins * sizeof *d->pins +
		   keys * sizeof(struct rig_key);
	b += (n + 1) * 4 + ne * 2 * 8 + ne * 8;                 /* graph */
	b += n_pins * (4 + 1 + 8) + n * (4 + 4 + 4);            /* anchors, classes */
	b += n * n_pins * sizeof(double) + ne * sizeof(double); /* weights, cotangents */
	b += rig_sparse_symbolic_bytes(&pup->sym) + (size_t)pup->sym.ap[pup->n_free] * 4;
	if (pup->has_arap)
		b += rig_sparse_numeric_bytes(&pup->sym);
	return b + rig_mesh_check_bytes(&pup->check);
}

/* ------------------------------------------------------------------------ */
/* A frame                                                                   */
/* ------------------------------------------------------------------------ */

void rig_puppet_pose_at(struct rig_puppet_pin_pose *out, const struct rig_puppet *pup,
			double local_frame)
{
	const struct rig_puppet_def *d = &pup->def;
	for (size_t p = 0; p < d->n_pins; p++) {
		const struct rig_puppet_pin *pin = &d->pins[p];
		struct rig_puppet_pin_pose *q = &out[p];
		double deg = rig_puppet_pin_value(pin, RIG_PIN_CH_ROTATION, local_frame);
		if (d->has_max_rotation)
			deg = deg > d->max_rotation_deg    ? d->max_rotation_deg
			      : deg < -d->max_rotation_deg ? -d->max_rotation_deg
							   : deg;
		double stiff = rig_puppet_pin_value(pin, RIG_PIN_CH_STIFFNESS, local_frame);
		double over = rig_puppet_pin_value(pin, RIG_PIN_CH_OVERLAP, local_frame);
		q->x = rig_puppet_pin_value(pin, RIG_PIN_CH_POSITION_X, local_frame);
		q->y = rig_puppet_pin_value(pin, RIG_PIN_CH_POSITION_Y, local_frame);
		q->rotation = deg * (PI / 180);
		q->scale = rig_puppet_pin_value(pin, RIG_PIN_CH_SCALE, local_frame);
		q->stiffness = stiff > 0 ? stiff : 0;
		q->overlap = over > RIG_PUPPET_OVERLAP_MAX    ? RIG_PUPPET_OVERLAP_MAX
			     : over < -RIG_PUPPET_OVERLAP_MAX ? -RIG_PUPPET_OVERLAP_MAX
							      : over;
		q->is_translation = q->rotation == 0 && q->scale == 1;
	}
}

int rig_puppet_evaluate(double *out_xy, enum rig_puppet_ran *out_ran, const struct rig_puppet *pup,
			double local_frame, struct rig_errs *errs)
{
	enum rig_puppet_ran ran = RIG_PUPPET_RAN_LBS;
	struct rig_puppet_pin_pose *poses = malloc((pup->def.n_pins + 1) * sizeof *poses);
	int rc = -1;
	if (poses) {
		rig_puppet_pose_at(poses, pup, local_frame);
		rc = rig_puppet_deform(out_xy, &ran, pup, poses);
		free(poses);
	}
	if (rc) {
		rig_errs_add(errs, RIG_INTERNAL, "out of memory");
		return -1;
	}
	if (out_ran)
		*out_ran = ran;
	return rig_mesh_check_run(&pup->check, out_xy, errs);
}
