/* The skin evaluator: definition copies, the SPEC §3 definition checks (the one
 * weights rule among them), the immutable evaluator built from a checked
 * definition, pose ordering, and the blend matrices the skinning kernel runs
 * on.
 *
 * What does not live here: the source/deformed mesh rules (mesh.c, and
 * mesh_check.c for their prepared pass), the kernel's vertex loop
 * (skin_kernel.c and its paths), resolving joint poses from a layer tree
 * (rig.c), and anything that parses or stores.
 *
 * Build once, run many: rig_skin_new() checks everything deep and lays the
 * influences out for the kernel (joint index as one byte, weight as a double,
 * vertex-major, in runs of vertices with equal counts), prepares the deformed-
 * mesh check and picks the instruction-set path both run; rig_skin_deform()
 * then only computes one blend matrix per joint (two for dqs) and hands the
 * loop to the kernel of the skin's method.
 */
#include "core/skin.h"

#include <assert.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/ids.h"
#include "core/mesh.h"
#include "core/mesh_check.h"
#include "core/rig_limits.h"
#include "core/skin_kernel.h"

/* The kernel's indices are one byte wide, and its loops exist for 1–8 influences. */
_Static_assert(RIG_MAX_JOINTS <= 256, "joint indices must fit in uint8_t");
_Static_assert(RIG_MAX_INFLUENCES == 8, "skin_kernel.h has loops for 1-8 influences");
_Static_assert(RIG_MAX_VERTICES < (1 << 28), "a kernel run counts its vertices in 28 bits");

struct rig_skin {
	struct rig_skin_def def;      /* the snapshot, weights normalised */
	struct rig_affine *inv_binds; /* inverse(bind) per joint */
	uint16_t *id_order;           /* joint indices sorted by id, for pose lookup */
	uint8_t *k_joints;            /* per influence, in def order */
	double *k_weights;            /* per influence, in def order */
	uint32_t *k_runs;             /* RIG_SKIN_RUN: vertices with equal counts, in order */
	size_t n_k_runs;
	enum rig_isa isa;            /* the path the kernel and the check run */
	struct rig_mesh_check check; /* the deformed-mesh check of the source */
	struct rig_puppet *puppet;   /* the pins over the rest mesh; NULL without */
};

/* ------------------------------------------------------------------------ */
/* Definitions: copy, release, lookup                                         */
/* ------------------------------------------------------------------------ */

/* malloc(n · size) with the product overflow-checked; a zero size gives NULL. */
static void *alloc_array(size_t n, size_t size)
{
	if (n == 0 || size == 0 || n > SIZE_MAX / size)
		return NULL;
	return malloc(n * size);
}

/* Duplicates n elements of size bytes into *out; true on success (also for n = 0). */
static bool dup_array(void **out, const void *src, size_t n, size_t size)
{
	*out = NULL;
	if (n == 0)
		return true;
	*out = alloc_array(n, size);
	if (!*out)
		return false;
	memcpy(*out, src, n * size);
	return true;
}

int rig_skin_def_copy(struct rig_skin_def *out, const struct rig_skin_def *src)
{
	struct rig_skin_def d = *src;
	size_t n_infl = src->weight_offsets ? src->weight_offsets[src->n_weight_lists] : 0;
	bool is_ok = src->n_verts <= SIZE_MAX / 2 && src->n_tris <= SIZE_MAX / 3;
	void *p[6] = {NULL, NULL, NULL, NULL, NULL, NULL};
	is_ok = is_ok && dup_array(&p[0], src->source, 2 * src->n_verts, sizeof(double));
	is_ok = is_ok &&
		(!src->uvs || dup_array(&p[5], src->uvs, 2 * src->n_verts, sizeof(double)));
	is_ok = is_ok && dup_array(&p[1], src->triangles, 3 * src->n_tris, sizeof(uint32_t));
	is_ok = is_ok &&
		dup_array(&p[2], src->joints, src->n_joints, sizeof(struct rig_skin_joint));
	is_ok = is_ok &&
		dup_array(&p[3], src->weight_offsets,
			  src->weight_offsets ? src->n_weight_lists + 1 : 0, sizeof(uint32_t));
	is_ok = is_ok &&
		dup_array(&p[4], src->influences, n_infl, sizeof(struct rig_skin_influence));
	d.source = p[0];
	d.triangles = p[1];
	d.joints = p[2];
	d.weight_offsets = p[3];
	d.influences = p[4];
	d.uvs = p[5];
	d.puppet = NULL;
	if (is_ok && src->puppet) {
		d.puppet = malloc(sizeof *d.puppet);
		if (!d.puppet || rig_puppet_def_copy(d.puppet, src->puppet) != 0) {
			free(d.puppet);
			d.puppet = NULL;
			is_ok = false;
		}
	}
	if (!is_ok) {
		rig_skin_def_release(&d);
		return -1;
	}
	*out = d;
	return 0;
}

void rig_skin_def_release_arrays(struct rig_skin_def *def)
{
	free(def->source);
	free(def->triangles);
	free(def->weight_offsets);
	free(def->influences);
	free(def->uvs);
	def->uvs = NULL;
	def->source = NULL;
	def->triangles = NULL;
	def->weight_offsets = NULL;
	def->influences = NULL;
	def->n_verts = def->n_tris = def->n_weight_lists = 0;
}

void rig_skin_def_release(struct rig_skin_def *def)
{
	rig_skin_def_release_arrays(def);
	free(def->joints);
	if (def->puppet)
		rig_puppet_def_release(def->puppet);
	free(def->puppet);
	memset(def, 0, sizeof *def);
}

int rig_skin_def_copy_head(struct rig_skin_def *out, const struct rig_skin_def *src)
{
	out->joints = NULL;
	out->n_joints = 0;
	out->puppet = NULL;
	out->method = src->method;
	out->has_uvs = src->has_uvs;
	if (src->n_joints) {
		out->joints = alloc_array(src->n_joints, sizeof *out->joints);
		if (!out->joints)
			return -1;
		memcpy(out->joints, src->joints, src->n_joints * sizeof *out->joints);
		out->n_joints = src->n_joints;
	}
	if (!src->puppet)
		return 0;
	out->puppet = malloc(sizeof *out->puppet);
	if (out->puppet && rig_puppet_def_copy(out->puppet, src->puppet) == 0)
		return 0;
	free(out->puppet);
	out->puppet = NULL;
	free(out->joints);
	out->joints = NULL;
	out->n_joints = 0;
	return -1;
}

static const char *const method_names[RIG_SKIN_METHOD_COUNT] = {"lbs", "dqs"};

const char *rig_skin_method_name(enum rig_skin_method method)
{
	return (unsigned)method < RIG_SKIN_METHOD_COUNT ? method_names[method] : NULL;
}

int rig_skin_method_parse(enum rig_skin_method *out, const char *name)
{
	for (int i = 0; name && i < RIG_SKIN_METHOD_COUNT; i++)
		if (strcmp(name, method_names[i]) == 0) {
			*out = (enum rig_skin_method)i;
			return 0;
		}
	return -1;
}

uint32_t rig_skin_def_joint_index(const struct rig_skin_def *def, const char *joint_id)
{
	if (strlen(joint_id) > RIG_ID_MAX)
		return RIG_JOINT_UNKNOWN;
	/* strncmp: a field of an unchecked def may lack its terminator. */
	for (size_t j = 0; j < def->n_joints; j++)
		if (strncmp(def->joints[j].id, joint_id, sizeof def->joints[j].id) == 0)
			return (uint32_t)j;
	return RIG_JOINT_UNKNOWN;
}

/* ------------------------------------------------------------------------ */
/* Definition checks                                                         */
/* ------------------------------------------------------------------------ */

/* Fills the indices and pointer of a SKIN_WEIGHTS entry: "/weights/<v>[/<k>]". */
static void at_influence(struct rig_err *e, size_t v, long k)
{
	e->vertex_index = (long)v;
	e->influence_index = k;
	if (k == RIG_NO_INDEX)
		snprintf(e->pointer, sizeof e->pointer, "/weights/%zu", v);
	else
		snprintf(e->pointer, sizeof e->pointer, "/weights/%zu/%ld", v, k);
}

/* The weights rule of SPEC §3 without side effects on the list: records every
 * SKIN_WEIGHTS violation of vertex v's list and, when valid, writes Σw (summed
 * in list order) to *out_sum. joints, when given, names joints in the details.
 * The repeated-joint scan is quadratic, so it runs only on lists within the
 * influence limit (a longer list is rejected for its length anyway). */
static bool check_list(double *out_sum, const struct rig_skin_influence *list, size_t n,
		       size_t n_joints, const struct rig_skin_joint *joints, size_t v,
		       struct rig_errs *errs)
{
	size_t before = errs->total;
	if (n < RIG_MIN_INFLUENCES)
		at_influence(
			rig_errs_add(errs, RIG_SKIN_WEIGHTS, "vertex %zu has no influences", v), v,
			RIG_NO_INDEX);
	if (n > RIG_MAX_INFLUENCES) {
		struct rig_err *e = rig_errs_add(errs, RIG_SKIN_WEIGHTS,
						 "vertex %zu has %zu influences, more than %d", v,
						 n, RIG_MAX_INFLUENCES);
		at_influence(e, v, RIG_NO_INDEX);
		rig_err_extra_number(e, "influenceCount", (double)n);
		rig_err_extra_number(e, "limit", RIG_MAX_INFLUENCES);
	}
	bool is_weights_ok = true;
	for (size_t k = 0; k < n; k++) {
		uint32_t j = list[k].joint;
		double w = list[k].weight;
		if (j >= n_joints) {
			at_influence(
				rig_errs_add(errs, RIG_SKIN_WEIGHTS,
					     "vertex %zu influence %zu names no joint of the skin",
					     v, k),
				v, (long)k);
		} else if (n <= RIG_MAX_INFLUENCES) {
			for (size_t i = 0; i < k; i++) {
				if (list[i].joint != j)
					continue;
				struct rig_err *e =
					rig_errs_add(errs, RIG_SKIN_WEIGHTS,
						     "vertex %zu lists joint '%s' twice "
						     "(influences %zu and %zu)",
						     v, joints ? joints[j].id : "?", i, k);
				at_influence(e, v, (long)k);
				rig_err_extra_number(e, "firstInfluenceIndex", (double)i);
				e->joint_index = (long)j;
				if (joints)
					rig_strlcpy(e->joint_id, joints[j].id, sizeof e->joint_id);
				break;
			}
		}
		if (!(isfinite(w) && w > 0)) {
			is_weights_ok = false;
			struct rig_err *e = rig_errs_add(errs, RIG_SKIN_WEIGHTS,
							 "vertex %zu influence %zu has weight "
							 "%.17g, not a finite number > 0",
							 v, k, w);
			at_influence(e, v, (long)k);
			rig_err_extra_number(e, "weight", w);
		}
	}
	if (is_weights_ok && n > 0) {
		double sum = 0;
		for (size_t k = 0; k < n; k++)
			sum += list[k].weight;
		double tol = RIG_WEIGHT_SUM_EPSILONS * DBL_EPSILON;
		if (!(fabs(sum - 1) <= tol)) {
			struct rig_err *e = rig_errs_add(
				errs, RIG_SKIN_WEIGHTS,
				"vertex %zu weights sum to %.17g (tolerance %.3g)", v, sum, tol);
			at_influence(e, v, RIG_NO_INDEX);
			rig_err_extra_number(e, "sum", sum);
			rig_err_extra_number(e, "tolerance", tol);
		}
		*out_sum = sum;
	}
	return errs->total == before;
}

int rig_skin_check_influences(struct rig_skin_influence *list, size_t n, size_t n_joints,
			      size_t vertex_index, struct rig_errs *errs)
{
	double sum = 1;
	if (!check_list(&sum, list, n, n_joints, NULL, vertex_index, errs))
		return -1;
	for (size_t k = 0; k < n; k++)
		list[k].weight /= sum;
	return 0;
}

bool rig_skin_normalize_influences(struct rig_skin_influence *list, size_t n)
{
	double sum = 0;
	for (size_t k = 0; k < n; k++) {
		if (!(isfinite(list[k].weight) && list[k].weight > 0))
			return false;
		sum += list[k].weight;
	}
	if (n == 0 || !isfinite(sum))
		return false;
	for (size_t k = 0; k < n; k++)
		list[k].weight /= sum;
	return true;
}

/* The id rule of ids.h on a RIG_ID_MAX + 1 field that may lack its terminator. */
static bool id_is_valid(const char *id)
{
	return rig_id_is_valid_n(id, strnlen(id, RIG_ID_MAX + 1));
}

static struct rig_err *joint_err(struct rig_errs *errs, enum rig_code code, size_t j,
				 const struct rig_skin_joint *joint, const char *suffix)
{
	char id[RIG_ID_MAX + 1]; /* the field may lack its terminator */
	size_t n = strnlen(joint->id, RIG_ID_MAX);
	memcpy(id, joint->id, n);
	id[n] = '\0';
	struct rig_err *e;
	if (code == RIG_SKIN_JOINTS)
		e = rig_errs_add(errs, code, "joint %zu id '%s' %s", j, id, suffix);
	else
		e = rig_errs_add(errs, code, "bind of joint '%s' %s", id, suffix);
	e->joint_index = (long)j;
	rig_strlcpy(e->joint_id, id, sizeof e->joint_id);
	return e;
}

static void check_joints(const struct rig_skin_def *def, struct rig_errs *errs)
{
	size_t n = def->n_joints;
	if (n < RIG_MIN_JOINTS || n > RIG_MAX_JOINTS) {
		struct rig_err *e =
			rig_errs_add(errs, RIG_SKIN_JOINTS, "skin has %zu joints, outside [%d, %d]",
				     n, RIG_MIN_JOINTS, RIG_MAX_JOINTS);
		rig_strlcpy(e->pointer, "/joints", sizeof e->pointer);
		rig_err_extra_number(e, "jointCount", (double)n);
		rig_err_extra_number(e, "minJoints", RIG_MIN_JOINTS);
		rig_err_extra_number(e, "maxJoints", RIG_MAX_JOINTS);
	}
	for (size_t j = 0; j < n; j++) {
		const struct rig_skin_joint *joint = &def->joints[j];
		struct rig_err *e = NULL;
		if (!id_is_valid(joint->id)) {
			e = joint_err(errs, RIG_SKIN_JOINTS, j, joint,
				      "is not 1-64 characters of [A-Za-z0-9_.:-] other than '.' and"
				      " '..'");
		} else if (n <= RIG_MAX_JOINTS) { /* quadratic: only within the limit */
			for (size_t i = 0; i < j && !e; i++)
				if (strcmp(def->joints[i].id, joint->id) == 0)
					e = joint_err(errs, RIG_SKIN_JOINTS, j, joint,
						      "is already used by an earlier joint");
		}
		if (e)
			snprintf(e->pointer, sizeof e->pointer, "/joints/%zu/id", j);

		e = NULL;
		if (!rig_affine_is_finite(&joint->bind))
			e = joint_err(errs, RIG_SKIN_BIND, j, joint, "has a non-finite entry");
		else if (!rig_affine_is_safely_invertible(&joint->bind))
			e = joint_err(errs, RIG_SKIN_BIND, j, joint, "is not safely invertible");
		if (e)
			snprintf(e->pointer, sizeof e->pointer, "/joints/%zu/bind", j);
	}
}

int rig_skin_check_def(const struct rig_skin_def *def, struct rig_errs *errs)
{
	size_t before = errs->total;
	bool is_mesh_sound = rig_mesh_check_source(def->source, def->n_verts, def->triangles,
						   def->n_tris, errs) == 0;
	rig_mesh_check_uvs(def->uvs, def->n_verts, errs);
	check_joints(def, errs);
	if (def->n_weight_lists != def->n_verts) {
		struct rig_err *e =
			rig_errs_add(errs, RIG_SKIN_WEIGHTS, "%zu weight lists for %zu vertices",
				     def->n_weight_lists, def->n_verts);
		rig_strlcpy(e->pointer, "/weights", sizeof e->pointer);
		rig_err_extra_number(e, "weightListCount", (double)def->n_weight_lists);
		rig_err_extra_number(e, "vertexCount", (double)def->n_verts);
	}
	if (!rig_skin_method_name(def->method)) {
		struct rig_err *e = rig_errs_add(
			errs, RIG_OP_INVALID, "skin method %d is not lbs or dqs", (int)def->method);
		rig_strlcpy(e->pointer, "/method", sizeof e->pointer);
	}
	for (size_t v = 0; v < def->n_weight_lists; v++) {
		uint32_t from = def->weight_offsets[v], to = def->weight_offsets[v + 1];
		assert(from <= to); /* offsets are built by our own code */
		double sum;
		/* An empty list may come with no influence array at all. */
		const struct rig_skin_influence *list = to > from ? &def->influences[from] : NULL;
		check_list(&sum, list, to - from, def->n_joints, def->joints, v, errs);
	}
	if (def->puppet && is_mesh_sound) {
		/* The pins over the skin's own mesh (source and triangles borrowed). */
		struct rig_puppet_def view = *def->puppet;
		view.source = def->source;
		view.n_verts = def->n_verts;
		view.triangles = def->triangles;
		view.n_tris = def->n_tris;
		size_t from = errs->count;
		if (rig_puppet_def_check(&view, errs) != 0)
			rig_errs_scope(errs, from, RIG_NO_INDEX, "/puppet");
	}
	return errs->total == before ? 0 : -1;
}

/* ------------------------------------------------------------------------ */
/* The evaluator                                                             */
/* ------------------------------------------------------------------------ */

/* Sorts joint indices by id (insertion sort: at most 256 joints, once per skin). */
static void sort_ids(uint16_t *order, const struct rig_skin_joint *joints, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		uint16_t cur = (uint16_t)i;
		size_t k = i;
		while (k > 0 && strcmp(joints[order[k - 1]].id, joints[cur].id) > 0) {
			order[k] = order[k - 1];
			k--;
		}
		order[k] = cur;
	}
}

/* The kernel's runs (core/skin_kernel.h) into out, or only counted when out
 * is NULL: vertices with equal counts, RIG_SKIN_MIN_RUN or more in a row,
 * get runs of their own; the rest, mixed runs between them. Returns how many. */
static size_t lay_runs(uint32_t *out, const uint32_t *offsets, size_t n_verts)
{
	size_t n_runs = 0, n_mixed = 0;
	for (size_t v = 0, end; v < n_verts; v = end) {
		uint32_t n_per = offsets[v + 1] - offsets[v];
		for (end = v + 1; end < n_verts && offsets[end + 1] - offsets[end] == n_per; end++)
			;
		if (end - v < RIG_SKIN_MIN_RUN) {
			n_mixed += end - v;
			continue;
		}
		if (n_mixed > 0 && out)
			out[n_runs] = RIG_SKIN_RUN(n_mixed, 0);
		n_runs += n_mixed > 0;
		n_mixed = 0;
		if (out)
			out[n_runs] = RIG_SKIN_RUN(end - v, n_per);
		n_runs++;
	}
	if (n_mixed > 0 && out)
		out[n_runs] = RIG_SKIN_RUN(n_mixed, 0);
	return n_runs + (n_mixed > 0);
}

/* Normalises the snapshot's weights (dividing by Σw summed in list order, as
 * rig_skin_check_influences does), lays them out for the kernel and fills
 * k_runs (n_k_runs entries). */
static void build_kernel_layout(struct rig_skin *skin)
{
	const struct rig_skin_def *d = &skin->def;
	for (size_t v = 0; v < d->n_verts; v++) {
		uint32_t from = d->weight_offsets[v], to = d->weight_offsets[v + 1];
		assert(to > from && to - from <= RIG_MAX_INFLUENCES);
		double sum = 0;
		for (uint32_t k = from; k < to; k++)
			sum += d->influences[k].weight;
		for (uint32_t k = from; k < to; k++) {
			d->influences[k].weight /= sum;
			skin->k_joints[k] = (uint8_t)d->influences[k].joint;
			skin->k_weights[k] = d->influences[k].weight;
		}
	}
	size_t n_runs = lay_runs(skin->k_runs, d->weight_offsets, d->n_verts);
	assert(n_runs == skin->n_k_runs);
	(void)n_runs;
}

/* The evaluator of the skin's pins over copies of its rest mesh: the
 * factorisation is the rest mesh's and the pins' static stiffness', built once
 * here and never from a pose. Returns 0 (nothing to build without pins), or -1
 * when out of memory or the pins are damaged. */
static int build_puppet(struct rig_skin *skin)
{
	const struct rig_skin_def *d = &skin->def;
	if (!d->puppet)
		return 0;
	struct rig_puppet_def pd;
	if (rig_puppet_def_copy(&pd, d->puppet) != 0)
		return -1;
	rig_puppet_def_release_arrays(&pd);
	pd.n_verts = d->n_verts;
	pd.n_tris = d->n_tris;
	pd.source = alloc_array(2 * d->n_verts, sizeof *pd.source);
	pd.triangles = alloc_array(3 * d->n_tris, sizeof *pd.triangles);
	struct rig_errs *errs = rig_errs_new();
	if (pd.source && pd.triangles && errs) {
		memcpy(pd.source, d->source, 2 * d->n_verts * sizeof *pd.source);
		memcpy(pd.triangles, d->triangles, 3 * d->n_tris * sizeof *pd.triangles);
		skin->puppet = rig_puppet_take(&pd, errs);
	}
	rig_errs_free(errs);
	rig_puppet_def_release(&pd);
	return skin->puppet ? 0 : -1;
}

/* Finishes an evaluator whose def is in place: inverse binds, the id order,
 * the kernel layout, the deformed-mesh check and the path they run, and the
 * pins' evaluator. Returns 0, or -1 when out of memory or a bind is not safely
 * invertible (only possible for stored data that bypassed the checks). */
static int finish(struct rig_skin *skin)
{
	const struct rig_skin_def *d = &skin->def;
	size_t n_infl = d->weight_offsets[d->n_verts];
	skin->isa = rig_isa_best();
	skin->n_k_runs = lay_runs(NULL, d->weight_offsets, d->n_verts);
	skin->inv_binds = alloc_array(d->n_joints, sizeof *skin->inv_binds);
	skin->id_order = alloc_array(d->n_joints, sizeof *skin->id_order);
	skin->k_joints = alloc_array(n_infl, sizeof *skin->k_joints);
	skin->k_weights = alloc_array(n_infl, sizeof *skin->k_weights);
	skin->k_runs = alloc_array(skin->n_k_runs, sizeof *skin->k_runs);
	if (!skin->inv_binds || !skin->id_order || !skin->k_joints || !skin->k_weights ||
	    !skin->k_runs ||
	    rig_mesh_check_init(&skin->check, d->source, d->n_verts, d->triangles, d->n_tris,
				skin->isa) != 0)
		return -1;
	for (size_t j = 0; j < d->n_joints; j++)
		if (rig_affine_invert(&skin->inv_binds[j], &d->joints[j].bind) != 0)
			return -1;
	sort_ids(skin->id_order, d->joints, d->n_joints);
	build_kernel_layout(skin);
	return build_puppet(skin);
}

struct rig_skin *rig_skin_new(const struct rig_skin_def *def, struct rig_errs *errs)
{
	if (rig_skin_check_def(def, errs) != 0)
		return NULL;
	struct rig_skin *skin = calloc(1, sizeof *skin);
	if (!skin)
		goto out_oom;
	if (rig_skin_def_copy(&skin->def, def) != 0 || finish(skin) != 0)
		goto out_free_skin;
	return skin;

out_free_skin:
	rig_skin_free(skin);
out_oom:
	rig_errs_add(errs, RIG_INTERNAL, "out of memory building the skin evaluator");
	return NULL;
}

/* What memory safety needs of a definition checked before it was stored: counts
 * within the limits, every index inside its array, offsets non-decreasing. */
static bool structurally_sound(const struct rig_skin_def *d)
{
	if (d->n_verts < RIG_MIN_VERTICES || d->n_verts > RIG_MAX_VERTICES ||
	    d->n_tris < RIG_MIN_TRIANGLES || d->n_tris > RIG_MAX_TRIANGLES ||
	    d->n_joints < RIG_MIN_JOINTS || d->n_joints > RIG_MAX_JOINTS ||
	    d->n_weight_lists != d->n_verts || !d->source || !d->triangles || !d->joints ||
	    !d->weight_offsets || !d->influences || d->weight_offsets[0] != 0 ||
	    !rig_skin_method_name(d->method))
		return false;
	for (size_t i = 0; i < 3 * d->n_tris; i++)
		if (d->triangles[i] >= d->n_verts)
			return false;
	for (size_t v = 0; v < d->n_verts; v++) {
		uint32_t from = d->weight_offsets[v], to = d->weight_offsets[v + 1];
		if (to <= from || to - from > RIG_MAX_INFLUENCES)
			return false;
		for (uint32_t k = from; k < to; k++)
			if (d->influences[k].joint >= d->n_joints ||
			    !isfinite(d->influences[k].weight))
				return false;
	}
	for (size_t i = 0; i < 2 * d->n_verts; i++)
		if (!isfinite(d->source[i]))
			return false;
	return true;
}

struct rig_skin *rig_skin_take(struct rig_skin_def *def, struct rig_errs *errs)
{
	if (!structurally_sound(def)) {
		rig_errs_add(errs, RIG_INTERNAL, "a stored skin definition is damaged");
		return NULL;
	}
	struct rig_skin *skin = calloc(1, sizeof *skin);
	struct rig_skin_joint *joints = alloc_array(def->n_joints, sizeof *joints);
	if (!skin || !joints) {
		free(skin);
		free(joints);
		rig_errs_add(errs, RIG_INTERNAL, "out of memory building the skin evaluator");
		return NULL;
	}
	memcpy(joints, def->joints, def->n_joints * sizeof *joints);
	skin->def = *def;
	skin->def.joints = joints;
	skin->def.puppet = NULL;
	if (def->puppet) { /* copied, like the joints: def keeps what the model keeps */
		skin->def.puppet = malloc(sizeof *skin->def.puppet);
		if (!skin->def.puppet || rig_puppet_def_copy(skin->def.puppet, def->puppet) != 0) {
			free(skin->def.puppet);
			free(joints);
			free(skin);
			rig_errs_add(errs, RIG_INTERNAL,
				     "out of memory building the skin evaluator");
			return NULL;
		}
	}
	def->source = NULL;
	def->triangles = NULL;
	def->weight_offsets = NULL;
	def->influences = NULL;
	def->uvs = NULL;
	if (finish(skin) != 0) {
		rig_skin_free(skin);
		rig_errs_add(errs, RIG_INTERNAL, "a stored skin definition is damaged");
		return NULL;
	}
	return skin;
}

size_t rig_skin_bytes(const struct rig_skin *skin)
{
	const struct rig_skin_def *d = &skin->def;
	size_t n_infl = d->weight_offsets[d->n_verts];
	return sizeof *skin + d->n_verts * 2 * sizeof *d->source +
	       d->n_tris * 3 * sizeof *d->triangles + rig_mesh_check_bytes(&skin->check) +
	       d->n_joints *
		       (sizeof *d->joints + sizeof *skin->inv_binds + sizeof *skin->id_order) +
	       (d->n_verts + 1) * sizeof *d->weight_offsets +
	       n_infl * (sizeof *d->influences + sizeof *skin->k_joints + sizeof *skin->k_weights) +
	       skin->n_k_runs * sizeof *skin->k_runs +
	       (skin->puppet ? rig_puppet_bytes(skin->puppet) : 0);
}

void rig_skin_free(struct rig_skin *skin)
{
	if (!skin)
		return;
	rig_skin_def_release(&skin->def);
	free(skin->inv_binds);
	free(skin->id_order);
	free(skin->k_joints);
	free(skin->k_weights);
	free(skin->k_runs);
	rig_mesh_check_release(&skin->check);
	rig_puppet_free(skin->puppet);
	free(skin);
}

const struct rig_puppet *rig_skin_puppet(const struct rig_skin *skin)
{
	return skin->puppet;
}

const struct rig_skin_def *rig_skin_def_of(const struct rig_skin *skin)
{
	return &skin->def;
}

/* ------------------------------------------------------------------------ */
/* Poses                                                                     */
/* ------------------------------------------------------------------------ */

/* Binary search of the sorted ids; RIG_JOINT_UNKNOWN when absent. */
static uint32_t find_joint(const struct rig_skin *skin, const char *id)
{
	if (!id || strlen(id) > RIG_ID_MAX)
		return RIG_JOINT_UNKNOWN;
	size_t lo = 0, hi = skin->def.n_joints;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		uint16_t j = skin->id_order[mid];
		int cmp = strcmp(skin->def.joints[j].id, id);
		if (cmp == 0)
			return j;
		if (cmp < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return RIG_JOINT_UNKNOWN;
}

static struct rig_err *pose_err(struct rig_errs *errs, const struct rig_skin *skin, uint32_t j,
				const char *fmt, size_t i)
{
	const char *id = skin->def.joints[j].id;
	struct rig_err *e = rig_errs_add(errs, RIG_SKIN_POSE, fmt, id, i);
	e->joint_index = (long)j;
	rig_strlcpy(e->joint_id, id, sizeof e->joint_id);
	return e;
}

int rig_skin_order_poses(struct rig_affine *out, const struct rig_skin *skin,
			 const struct rig_skin_pose *poses, size_t n_poses, struct rig_errs *errs)
{
	size_t before = errs->total;
	size_t n_joints = skin->def.n_joints;
	size_t posed_by[RIG_MAX_JOINTS]; /* pose index + 1, 0 when not posed yet */
	memset(posed_by, 0, sizeof posed_by);
	for (size_t i = 0; i < n_poses; i++) {
		uint32_t j = find_joint(skin, poses[i].joint_id);
		struct rig_err *e = NULL;
		if (j == RIG_JOINT_UNKNOWN) {
			e = rig_errs_add(errs, RIG_SKIN_POSE, "pose %zu names unknown joint '%s'",
					 i, poses[i].joint_id ? poses[i].joint_id : "");
			if (poses[i].joint_id)
				rig_strlcpy(e->joint_id, poses[i].joint_id, sizeof e->joint_id);
		} else if (posed_by[j]) {
			e = pose_err(errs, skin, j, "joint '%s' is posed again by pose %zu", i);
		} else {
			posed_by[j] = i + 1;
			if (!rig_affine_is_finite(&poses[i].matrix))
				e = pose_err(errs, skin, j,
					     "pose of joint '%s' (pose %zu) has a non-finite entry",
					     i);
		}
		if (e)
			snprintf(e->pointer, sizeof e->pointer, "/poses/%zu", i);
	}
	for (size_t j = 0; j < n_joints; j++) {
		if (posed_by[j])
			continue;
		struct rig_err *e = pose_err(errs, skin, (uint32_t)j,
					     "joint '%s' is not posed (%zu poses given)", n_poses);
		rig_strlcpy(e->pointer, "/poses", sizeof e->pointer);
	}
	if (errs->total != before)
		return -1;
	for (size_t j = 0; j < n_joints; j++)
		out[j] = poses[posed_by[j] - 1].matrix;
	return 0;
}

/* ------------------------------------------------------------------------ */
/* The kernel                                                                */
/* ------------------------------------------------------------------------ */

/* The two entries of a dqs skin's joint: D as lbs computes it (pose = bind
 * gives the identity exactly) and the dual complex number of the same skin
 * matrix. */
static void skin_matrix_blends(struct rig_skin_blend *lbs, struct rig_skin_blend *dqs,
			       struct rig_affine pose, struct rig_affine bind,
			       struct rig_affine inv_bind)
{
	const double *p = pose.m, *b = bind.m;
	bool is_rest = p[0] == b[0] && p[1] == b[1] && p[2] == b[2] && p[3] == b[3] &&
		       p[4] == b[4] && p[5] == b[5];
	struct rig_affine s = is_rest ? rig_affine_identity() : rig_affine_mul(pose, inv_bind);
	rig_skin__dqs_joint(dqs, s.m);
	s.m[0] -= 1;
	s.m[3] -= 1;
	memcpy(lbs->m, s.m, sizeof s.m);
	lbs->m[6] = lbs->m[7] = 0;
}

/* One blend matrix per joint, D = pose · bind⁻¹ − I (core/skin_kernel.h); for
 * a dqs skin, two entries per joint: D and the joint's dual complex number
 * and residual from the same skin matrix (RIG_SKIN_DQS_STRIDE). */
static void blend_matrices(struct rig_skin_blend *out, const struct rig_skin *skin,
			   const struct rig_affine *poses)
{
	const struct rig_skin_def *d = &skin->def;
	if (d->method == RIG_SKIN_DQS) {
		for (size_t j = 0; j < d->n_joints; j++) {
			struct rig_skin_blend *lbs = &out[RIG_SKIN_DQS_STRIDE * j];
			skin_matrix_blends(lbs, lbs + 1, poses[j], d->joints[j].bind,
					   skin->inv_binds[j]);
		}
		return;
	}
	for (size_t j = 0; j < d->n_joints; j++) {
		const double *p = poses[j].m, *b = d->joints[j].bind.m;
		bool is_rest = p[0] == b[0] && p[1] == b[1] && p[2] == b[2] && p[3] == b[3] &&
			       p[4] == b[4] && p[5] == b[5];
		/* pose = bind gives pose · bind⁻¹ = I exactly, not to rounding. */
		struct rig_affine s = is_rest ? rig_affine_identity()
					      : rig_affine_mul(poses[j], skin->inv_binds[j]);
		s.m[0] -= 1;
		s.m[3] -= 1;
		memcpy(out[j].m, s.m, sizeof s.m);
		out[j].m[6] = out[j].m[7] = 0;
	}
}

/* The kernel's view of the evaluator. */
static struct rig_skin_kernel kernel_view(const struct rig_skin *skin)
{
	const struct rig_skin_def *d = &skin->def;
	/* The influence arrays follow def's offsets, which need not start at 0. */
	size_t first = d->weight_offsets[0];
	return (struct rig_skin_kernel){
		.src = d->source,
		.joints = skin->k_joints + first,
		.weights = skin->k_weights + first,
		.offsets = d->weight_offsets,
		.base = (uint32_t)first,
		.runs = skin->k_runs,
		.n_verts = d->n_verts,
		.n_influences = d->weight_offsets[d->n_verts] - first,
		.n_runs = skin->n_k_runs,
	};
}

/* The kernel a skin runs on path isa: its method's (dqs: one loop for every
 * path). */
static rig_skin_kernel_fn *kernel_of(const struct rig_skin *skin, enum rig_isa isa)
{
	return skin->def.method == RIG_SKIN_DQS ? rig_skin__kernel_dqs : rig_skin__kernel(isa);
}

void rig_skin_deform_isa(double *out_xy, const struct rig_skin *skin,
			 const struct rig_affine *poses, enum rig_isa isa)
{
	struct rig_skin_blend mats[RIG_SKIN_DQS_STRIDE * RIG_MAX_JOINTS];
	blend_matrices(mats, skin, poses);
	struct rig_skin_kernel k = kernel_view(skin);
	struct rig_skin_cursor at = {0};
	rig_skin_kernel_fn *kernel = kernel_of(skin, isa);
	assert(kernel && rig_isa_is_supported(isa));
	kernel(out_xy, &k, mats, &at, skin->def.n_verts);
}

void rig_skin_deform(double *out_xy, const struct rig_skin *skin, const struct rig_affine *poses)
{
	rig_skin_deform_isa(out_xy, skin, poses, skin->isa);
}

/* Vertices the kernel writes before the check looks at the runs they
 * complete: 32 KiB of output, still in cache when the check reads it. */
#define EVALUATE_STRETCH 2048

/* The checks of poses every evaluation starts with: finite (SKIN_POSE). */
static int check_poses(const struct rig_skin *skin, const struct rig_affine *poses,
		       struct rig_errs *errs)
{
	const struct rig_skin_def *d = &skin->def;
	size_t before = errs->total;
	for (size_t j = 0; j < d->n_joints; j++)
		if (!rig_affine_is_finite(&poses[j]))
			pose_err(errs, skin, (uint32_t)j,
				 "pose of joint '%s' (joint %zu) has a non-finite entry", j);
	return errs->total != before ? -1 : 0;
}

/* The kernel over src (the rest source, or the pins' refinement of it) into
 * out_xy, checked stretch by stretch against the rest source. */
static inline int skin_and_check(double *out_xy, const struct rig_skin *skin,
				 const struct rig_affine *poses, const double *src,
				 struct rig_errs *errs)
{
	const struct rig_skin_def *d = &skin->def;
	struct rig_skin_blend mats[RIG_SKIN_DQS_STRIDE * RIG_MAX_JOINTS];
	blend_matrices(mats, skin, poses);
	struct rig_skin_kernel k = kernel_view(skin);
	k.src = src;
	rig_skin_kernel_fn *kernel = kernel_of(skin, skin->isa);
	struct rig_skin_cursor at = {0};
	struct rig_mesh_check_cursor check;
	rig_mesh_check_begin(&check);
	for (size_t end = 0; end < d->n_verts;) {
		end = d->n_verts - end > EVALUATE_STRETCH ? end + EVALUATE_STRETCH : d->n_verts;
		kernel(out_xy, &k, mats, &at, end);
		rig_mesh_check_advance(&check, &skin->check, out_xy, end);
	}
	return rig_mesh_check_finish(&check, &skin->check, out_xy, errs);
}

/* A skin with pins: the pins at local_frame refine the rest vertices into a
 * scratch array (rig_puppet_deform, unchecked: the result is what is
 * checked), which the kernel then maps. */
static int evaluate_pinned(double *out_xy, enum rig_puppet_ran *out_ran,
			   const struct rig_skin *skin, const struct rig_affine *poses,
			   double local_frame, struct rig_errs *errs)
{
	const struct rig_skin_def *d = &skin->def;
	if (check_poses(skin, poses, errs) != 0)
		return -1;
	size_t n_pins = rig_puppet_def_of(skin->puppet)->n_pins;
	double *refined = alloc_array(2 * d->n_verts, sizeof *refined);
	struct rig_puppet_pin_pose *pin_poses = malloc((n_pins + 1) * sizeof *pin_poses);
	enum rig_puppet_ran ran = RIG_PUPPET_RAN_LBS;
	int rc = -1;
	if (refined && pin_poses) {
		rig_puppet_pose_at(pin_poses, skin->puppet, local_frame);
		rc = rig_puppet_deform(refined, &ran, skin->puppet, pin_poses);
	}
	free(pin_poses);
	if (rc != 0) {
		free(refined);
		rig_errs_add(errs, RIG_INTERNAL, "out of memory evaluating the skin's pins");
		return -1;
	}
	if (out_ran)
		*out_ran = ran;
	rc = skin_and_check(out_xy, skin, poses, refined, errs);
	free(refined);
	return rc;
}

int rig_skin_evaluate_at(double *out_xy, enum rig_puppet_ran *out_ran, const struct rig_skin *skin,
			 const struct rig_affine *poses, double local_frame, struct rig_errs *errs)
{
	if (skin->puppet)
		return evaluate_pinned(out_xy, out_ran, skin, poses, local_frame, errs);
	if (check_poses(skin, poses, errs) != 0)
		return -1;
	return skin_and_check(out_xy, skin, poses, skin->def.source, errs);
}

int rig_skin_evaluate(double *out_xy, const struct rig_skin *skin, const struct rig_affine *poses,
		      struct rig_errs *errs)
{
	return rig_skin_evaluate_at(out_xy, NULL, skin, poses, 0, errs);
}
