/* Request-scoped evaluation of evaluate.h. */
#include "api/eval/evaluate.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/mesh_map.h"
#include "storage/resources.h"
#include "storage/shot_repo.h"
#include "storage/store.h"

static void free_model(void *m)
{
	rig_shot_model_release(m);
	free(m);
}

/* Takes the shot (seq, version) from the cache, else loads and files it. */
static int take_model(struct rig_eval *ev, const char *shot_id, long long seq, long long version)
{
	ev->model_ref = rig_read_cache_get(ev->cache, seq, "", version);
	if (!ev->model_ref && ev->cached_only)
		return RIG_EVAL_NOT_CACHED;
	if (!ev->model_ref) {
		struct rig_shot_model *m = malloc(sizeof *m);
		if (!m)
			return -RIG_INTERNAL;
		int rc = rig_shot_load_at(m, ev->tx, shot_id, version);
		if (rc) {
			free_model(m);
			return rc;
		}
		ev->model_ref = rig_read_cache_put(ev->cache, seq, "", version, m,
						   rig_shot_model_bytes(m), free_model);
		if (!ev->model_ref)
			return -RIG_INTERNAL;
	}
	ev->model = rig_read_ref_value(ev->model_ref);
	return 0;
}

int rig_eval_open(struct rig_eval *ev, struct rig_tx *tx, struct rig_read_cache *cache,
		  const char *shot_id)
{
	return rig_eval_open_at(ev, tx, cache, shot_id, -1, false);
}

int rig_eval_open_at(struct rig_eval *ev, struct rig_tx *tx, struct rig_read_cache *cache,
		     const char *shot_id, long long at, bool cached_only)
{
	memset(ev, 0, sizeof *ev);
	ev->tx = tx;
	ev->cache = cache;
	ev->cached_only = cached_only;
	long long seq = 0, version = 0, oldest = 0;
	int rc = rig_tx_snapshot(tx);
	if (!rc)
		rc = rig_shot_stamp(tx, shot_id, &seq, &version);
	/* Retention is checked before the cache, which may still hold a
	 * version compaction has since removed. */
	if (!rc && at >= 0 && !(rc = rig_shot_versions(tx, shot_id, &oldest, &version)))
		rc = at > version ? -RIG_NOT_FOUND : at < oldest ? -RIG_VERSION_COMPACTED : 0;
	if (!rc && at >= 0)
		version = at;
	if (!rc)
		rc = take_model(ev, shot_id, seq, version);
	if (!rc && rig_scene_view_init(&ev->view, ev->model) != 0)
		rc = -RIG_INTERNAL;
	size_t n = ev->view.scene.n_layers + 1;
	if (!rc && (!(ev->bindings = calloc(n, sizeof *ev->bindings)) ||
		    !(ev->meshes = calloc(n, sizeof *ev->meshes)) ||
		    !(ev->indexes = calloc(n, sizeof *ev->indexes))))
		rc = -RIG_INTERNAL;
	return rc;
}

long rig_eval_find_bound(struct rig_eval *ev, const char *layer_id)
{
	long i = rig_shot_model_index(ev->model, layer_id);
	if (i < 0)
		return -RIG_NOT_FOUND;
	if (!ev->model->layers[i].binding.type)
		return -RIG_MESH_BINDING_KIND;
	return ev->view.index_of[i];
}

/* The model layer behind scene index s. */
static const struct rig_model_layer *model_layer(const struct rig_eval *ev, long s)
{
	for (size_t i = 0; i < ev->model->n_layers; i++)
		if (ev->view.index_of[i] == s)
			return &ev->model->layers[i];
	return NULL;
}

/* The read cache frees values with one plain function; an evaluator goes with
 * its kind's free, so it is filed together with its kind. */
struct prepared {
	const struct rig_binding_type *type;
	void *eval;
};

static void free_prepared(void *p)
{
	struct prepared *pr = p;
	pr->type->free(pr->eval);
	free(pr);
}

/* Prepares the evaluator of a stored binding from its rows (cache miss). */
static struct prepared *prepare_binding(struct rig_eval *ev, const struct rig_model_layer *l,
					struct rig_errs *errs)
{
	const struct rig_binding_type *type = l->binding.type;
	void *def = NULL;
	int rc = rig_shot_read_binding(&def, ev->tx, ev->model, l);
	if (rc) {
		struct rig_err *e = rig_errs_add(errs, (enum rig_code) - rc,
						 "cannot load the %s of '%s'", type->name, l->id);
		rig_strlcpy(e->layer_id, l->id, sizeof e->layer_id);
		return NULL;
	}
	/* A stored binding passed every rule when it was written: the evaluator
	 * takes its arrays after a structural check instead of validating a copy. */
	size_t from = errs->count;
	struct prepared *pr = malloc(sizeof *pr);
	void *eval = pr ? type->prepare(def, errs) : NULL;
	type->def_free(def);
	if (!pr)
		rig_errs_add(errs, RIG_INTERNAL, "out of memory preparing '%s'", l->id);
	for (size_t k = from; !eval && k < errs->count; k++)
		rig_strlcpy(errs->items[k].layer_id, l->id, sizeof errs->items[k].layer_id);
	if (!eval) {
		free(pr);
		return NULL;
	}
	*pr = (struct prepared){type, eval};
	return pr;
}

static int prepare_one(struct rig_eval *ev, long s, struct rig_errs *errs)
{
	if (ev->bindings[s])
		return 0;
	const struct rig_model_layer *l = model_layer(ev, s);
	long long revision = l->binding.revision;
	ev->bindings[s] = rig_read_cache_get(ev->cache, ev->model->seq, l->id, revision);
	if (!ev->bindings[s] && ev->cached_only)
		return RIG_EVAL_NOT_CACHED;
	if (!ev->bindings[s]) {
		struct prepared *pr = prepare_binding(ev, l, errs);
		if (!pr)
			return -1;
		ev->bindings[s] = rig_read_cache_put(ev->cache, ev->model->seq, l->id, revision, pr,
						     pr->type->bytes(pr->eval), free_prepared);
		if (!ev->bindings[s]) {
			rig_errs_add(errs, RIG_INTERNAL, "out of memory sharing the %s of '%s'",
				     l->binding.type->name, l->id);
			return -1;
		}
	}
	const struct prepared *pr = rig_read_ref_value(ev->bindings[s]);
	const void *def = pr->type->eval_def(pr->eval);
	ev->work += pr->type->bytes(pr->eval);
	ev->view.layers[s].binding = pr->type;
	ev->view.layers[s].binding_eval = pr->eval;
	ev->meshes[s] = (struct rig_eval_mesh){
		.n_verts = pr->type->def_n_verts(def),
		.source = pr->type->def_source(def),
		.triangles = pr->type->def_triangles(def),
		.n_tris = pr->type->def_n_tris(def),
		.uvs = pr->type->def_uvs(def),
	};
	return 0;
}

/* A new index of prepared layer s's source mesh, or NULL with errs filled. */
static struct rig_mesh_index *new_index(const struct rig_eval *ev, long s, struct rig_errs *errs)
{
	const struct rig_eval_mesh *d = &ev->meshes[s];
	struct rig_mesh_index *ix = rig_mesh_index_new(d->source, d->triangles, d->n_tris);
	if (!ix)
		rig_errs_add(errs, RIG_INTERNAL, "out of memory indexing the mesh of '%s'",
			     ev->view.layers[s].id);
	return ix;
}

int rig_eval_prepare(struct rig_eval *ev, long layer, bool shot_space, struct rig_errs *errs)
{
	int rc = prepare_one(ev, layer, errs);
	if (rc)
		return rc;
	for (long p = ev->view.layers[layer].parent; shot_space && p != RIG_NO_LAYER;
	     p = ev->view.layers[p].parent) {
		if (!ev->view.layers[p].deformed)
			continue;
		if ((rc = prepare_one(ev, p, errs)))
			return rc;
		if (!ev->indexes[p] && !(ev->indexes[p] = new_index(ev, p, errs)))
			return -1;
	}
	return 0;
}

const struct rig_eval_mesh *rig_eval_mesh(const struct rig_eval *ev, long layer)
{
	return &ev->meshes[layer];
}

/* Carries points from layer's local space up to shot space: through each
 * ancestor's local matrix, and through each deformed ancestor's deformation. */
static int to_shot_space(double *xy, size_t n, struct rig_resolver *r, const struct rig_eval *ev,
			 long layer, double frame, struct rig_errs *errs)
{
	for (long x = layer; x != RIG_NO_LAYER; x = ev->view.layers[x].parent) {
		struct rig_affine m = rig_resolver_local(r, x, frame);
		for (size_t i = 0; i < n; i++)
			rig_affine_apply(&xy[2 * i], &xy[2 * i + 1], &m, xy[2 * i], xy[2 * i + 1]);
		long p = ev->view.layers[x].parent;
		if (p == RIG_NO_LAYER || !ev->view.layers[p].deformed)
			continue;
		const struct rig_eval_mesh *d = rig_eval_mesh(ev, p);
		double *deformed = malloc(2 * d->n_verts * sizeof *deformed);
		if (!deformed) {
			rig_errs_add(errs, RIG_INTERNAL, "out of memory");
			return -1;
		}
		int rc = rig_resolver_evaluate(deformed, r, p, frame, errs);
		if (rc == 0)
			rig_mesh_map_points(xy, NULL, n, ev->indexes[p], deformed);
		free(deformed);
		if (rc)
			return -1;
	}
	return 0;
}

/* Reports every point of xy (n points) that is not finite as MESH_GEOMETRY
 * naming layer and frame: the arithmetic after the checked evaluation (up to
 * shot space, mapping points) can still overflow. Vertices carry
 * vertex_index, mapped points the pointer of the request's point. Returns 0,
 * or -1 when one was found. */
static int check_finite(const double *xy, size_t n, bool are_vertices, const struct rig_eval *ev,
			long layer, double frame, struct rig_errs *errs)
{
	size_t before = errs->total;
	for (size_t i = 0; i < n; i++) {
		if (isfinite(xy[2 * i]) && isfinite(xy[2 * i + 1]))
			continue;
		struct rig_err *e =
			are_vertices
				? rig_errs_add(errs, RIG_MESH_GEOMETRY,
					       "deformed vertex %zu is not finite in shot space", i)
				: rig_errs_add(errs, RIG_MESH_GEOMETRY,
					       "mapped point %zu is not finite", i);
		if (are_vertices)
			e->vertex_index = (long)i;
		else
			snprintf(e->pointer, sizeof e->pointer, "/points/%zu", i);
		rig_strlcpy(e->layer_id, ev->view.layers[layer].id, sizeof e->layer_id);
		e->has_frame = true;
		e->frame = frame;
	}
	return errs->total == before ? 0 : -1;
}

/* Reports every site whose weights or distance are not finite (a point so far
 * from the source mesh that the squares overflow) as MESH_GEOMETRY with the
 * pointer of the request's point: the answer prints them. Returns 0, or -1. */
static int check_sites(const struct rig_mesh_site *sites, size_t n, const struct rig_eval *ev,
		       long layer, double frame, struct rig_errs *errs)
{
	size_t before = errs->total;
	for (size_t i = 0; sites && i < n; i++) {
		const struct rig_mesh_site *s = &sites[i];
		if (isfinite(s->w[0]) && isfinite(s->w[1]) && isfinite(s->w[2]) &&
		    isfinite(s->distance))
			continue;
		struct rig_err *e = rig_errs_add(
			errs, RIG_MESH_GEOMETRY,
			"point %zu is too far from the source mesh to locate in finite numbers", i);
		snprintf(e->pointer, sizeof e->pointer, "/points/%zu", i);
		rig_strlcpy(e->layer_id, ev->view.layers[layer].id, sizeof e->layer_id);
		e->has_frame = true;
		e->frame = frame;
	}
	return errs->total == before ? 0 : -1;
}

int rig_eval_frame(double *out_xy, struct rig_resolver *r, const struct rig_eval *ev, long layer,
		   double frame, bool shot_space, struct rig_errs *errs)
{
	return rig_eval_frame_noted(out_xy, NULL, r, ev, layer, frame, shot_space, errs);
}

int rig_eval_frame_noted(double *out_xy, struct rig_frame_note *note, struct rig_resolver *r,
			 const struct rig_eval *ev, long layer, double frame, bool shot_space,
			 struct rig_errs *errs)
{
	if (rig_resolver_evaluate_noted(out_xy, note, r, layer, frame, errs) != 0)
		return -1;
	if (!shot_space)
		return 0; /* the evaluator checked every vertex */
	size_t n = rig_eval_mesh(ev, layer)->n_verts;
	if (to_shot_space(out_xy, n, r, ev, layer, frame, errs) != 0)
		return -1;
	return check_finite(out_xy, n, true, ev, layer, frame, errs);
}

int rig_eval_map_points(double *xy, struct rig_mesh_site *out_sites, size_t n,
			struct rig_resolver *r, const struct rig_eval *ev, long layer, double frame,
			bool shot_space, struct rig_errs *errs)
{
	const struct rig_eval_mesh *d = rig_eval_mesh(ev, layer);
	double *deformed = malloc(2 * d->n_verts * sizeof *deformed);
	if (!deformed) {
		rig_errs_add(errs, RIG_INTERNAL, "out of memory");
		return -1;
	}
	int rc = rig_resolver_evaluate(deformed, r, layer, frame, errs);
	struct rig_mesh_index *ix = rc == 0 ? new_index(ev, layer, errs) : NULL;
	if (ix)
		rig_mesh_map_points(xy, out_sites, n, ix, deformed);
	else
		rc = -1;
	rig_mesh_index_free(ix);
	free(deformed);
	if (rc == 0 && shot_space)
		rc = to_shot_space(xy, n, r, ev, layer, frame, errs);
	if (rc == 0)
		rc = check_finite(xy, n, false, ev, layer, frame, errs);
	if (rc == 0)
		rc = check_sites(out_sites, n, ev, layer, frame, errs);
	return rc;
}

void rig_eval_release(struct rig_eval *ev)
{
	for (size_t i = 0; ev->bindings && i < ev->view.scene.n_layers; i++)
		rig_read_cache_release(ev->cache, ev->bindings[i]);
	for (size_t i = 0; ev->indexes && i < ev->view.scene.n_layers; i++)
		rig_mesh_index_free(ev->indexes[i]);
	free(ev->indexes);
	free(ev->bindings);
	free(ev->meshes);
	rig_scene_view_release(&ev->view);
	rig_read_cache_release(ev->cache, ev->model_ref);
	memset(ev, 0, sizeof *ev);
}
