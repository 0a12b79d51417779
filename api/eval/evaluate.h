/* Evaluating a stored shot for one read request: the shot as one read
 * snapshot sees it, its scene view, and the binding evaluators (of any kind,
 * core/binding.h) the request needs.
 * Shared read-only by the threads that evaluate frames of the request; each
 * thread brings its own resolver (rig.h). The resolver and every evaluated
 * matrix and vertex are dropped at the end of the request; the decoded shot and
 * the prepared evaluators (inputs, named by their stored versions) are shared
 * with other requests through read_cache.h.
 */
#ifndef RIG_EVALUATE_H
#define RIG_EVALUATE_H

#include <stdbool.h>

#include "api/eval/read_cache.h"
#include "core/err.h"
#include "core/mesh_map.h"
#include "core/rig.h"
#include "storage/shot_model.h"
#include "storage/store.h"

/* The rest mesh of a prepared layer's binding, borrowed from its evaluator. */
struct rig_eval_mesh {
	size_t n_verts;
	const double *source;      /* 2 · n_verts */
	const uint32_t *triangles; /* 3 · n_tris */
	size_t n_tris;
	const double *uvs; /* 2 · n_verts, or NULL: the binding has none */
};

struct rig_eval {
	const struct rig_shot_model *model; /* held through model_ref; never changed */
	struct rig_read_ref *model_ref;
	struct rig_scene_view view;     /* the request's own */
	struct rig_read_ref **bindings; /* per scene layer: evaluators held; NULL until prepared */
	struct rig_eval_mesh *meshes;   /* per scene layer: set when prepared */
	/* per scene layer: the point-location index of a deformed ancestor (shot
	 * space), built per request (never cached: SPEC §4); NULL otherwise */
	struct rig_mesh_index **indexes;
	struct rig_read_cache *cache; /* borrowed */
	struct rig_tx *tx;            /* borrowed while preparing (read transaction open) */
	/* Only what the read cache holds: a miss answers RIG_EVAL_NOT_CACHED
	 * instead of loading (a light read on an I/O thread, exchange.h). */
	bool cached_only;
	/* The bytes of the evaluators prepared so far: about proportional to
	 * the cost of evaluating them (rig_api_run_here). */
	size_t work;
};

/* Returned (positive) by rig_eval_open_at and rig_eval_prepare under
 * cached_only when the shot or a binding would have to be loaded: nothing is
 * wrong, the request runs again where loading is allowed. */
#define RIG_EVAL_NOT_CACHED 1

/* Opens a read transaction on tx (left open, so bindings load from the same
 * snapshot) and takes the shot at the version it sees from cache, loading it on
 * a miss. Returns 0, or a negative rig code (-RIG_NOT_FOUND: no such shot).
 * Release with rig_eval_release() in every case. */
int rig_eval_open(struct rig_eval *ev, struct rig_tx *tx, struct rig_read_cache *cache,
		  const char *shot_id);

/* As rig_eval_open, at shot version `version` (the head when < 0):
 * -RIG_VERSION_COMPACTED past the retained history, -RIG_NOT_FOUND above the
 * head (docs/history.md). With cached_only, RIG_EVAL_NOT_CACHED where the
 * shot at that version is not in the cache, and rig_eval_prepare likewise. */
int rig_eval_open_at(struct rig_eval *ev, struct rig_tx *tx, struct rig_read_cache *cache,
		     const char *shot_id, long long version, bool cached_only);

/* The scene index of a bound mesh layer, or -RIG_NOT_FOUND for an unknown
 * layer, -RIG_MESH_BINDING_KIND for a layer without a binding. */
long rig_eval_find_bound(struct rig_eval *ev, const char *layer_id);

/* Builds the evaluators layer needs: its own binding's and, for shot space,
 * those of its deformed ancestors, each once per stored revision (shared
 * through the read cache), and for shot space the point-location index of
 * each deformed ancestor's source mesh (this request's own). The model layer
 * keeps what it had; read the rest mesh with rig_eval_mesh(). Returns 0, or
 * -1 with errs filled (or RIG_EVAL_NOT_CACHED under cached_only). */
int rig_eval_prepare(struct rig_eval *ev, long layer, bool shot_space, struct rig_errs *errs);

/* Evaluates prepared layer at shot frame into out_xy (2 · n_verts doubles) in
 * its local space, or in shot space (up through its ancestors, deformed ones
 * mapping points through their own deformation). Thread-safe for distinct
 * resolvers. Returns 0, or -1 with errs filled (each error names layer and frame). */
int rig_eval_frame(double *out_xy, struct rig_resolver *r, const struct rig_eval *ev, long layer,
		   double frame, bool shot_space, struct rig_errs *errs);

/* As rig_eval_frame, also filling note (zeroed by the caller; may be NULL:
 * core/binding.h's struct rig_frame_note) for the layer itself. */
int rig_eval_frame_noted(double *out_xy, struct rig_frame_note *note, struct rig_resolver *r,
			 const struct rig_eval *ev, long layer, double frame, bool shot_space,
			 struct rig_errs *errs);

/* Carries n points given in layer's source space to frame (the map-points
 * path), locating them through an index of layer's source mesh built for this
 * call. When out_sites is not NULL it receives each point's site in that
 * source mesh (n entries; mesh_map.h). Returns 0, or -1 with errs filled. */
int rig_eval_map_points(double *xy, struct rig_mesh_site *out_sites, size_t n,
			struct rig_resolver *r, const struct rig_eval *ev, long layer, double frame,
			bool shot_space, struct rig_errs *errs);

/* The rest mesh of a prepared layer, borrowed until rig_eval_release(). */
const struct rig_eval_mesh *rig_eval_mesh(const struct rig_eval *ev, long layer);

void rig_eval_release(struct rig_eval *ev);

#endif
