/* What the op families share, and each op's decode/apply/release that the op
 * table (op_table.c) names. Internal to api/edit: nothing outside the op files
 * includes it. The helpers live in ops_common.c.
 */
#ifndef RIG_OPS_INTERNAL_H
#define RIG_OPS_INTERNAL_H

#include "api/edit/ops.h"

/* ---- shared helpers (ops_common.c) ---- */

/* Records a layer id in ctx->changed once and makes the current op the last
 * one that changed it. */
void rig_op__changed(struct rig_op_ctx *ctx, const char *layer_id);

/* Marks a layer an op changed: its row is rewritten on save and it is listed
 * as changed. */
void rig_op__touched(struct rig_op_ctx *ctx, struct rig_model_layer *l);

/* Records a violation of op at op->pointer + "/" + field (the pointer itself
 * when field is ""). The layer id is left to the caller. Returns the entry. */
struct rig_err *rig_op__fail(struct rig_op_ctx *ctx, const struct rig_op *op, enum rig_code code,
			     const char *field, const char *detail);

/* As rig_op__fail with a printf detail, and names op->layer_id as the layer:
 * the form of binding ops, whose every violation concerns their layer. */
struct rig_err *rig_op__fail_layer(struct rig_op_ctx *ctx, const struct rig_op *op,
				   enum rig_code code, const char *field, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

/* Decodes and applies value (a new reference, taken) as an op expanded from
 * op (layer.rig.auto, shot.import), listing it in listed as {op, layerId?}.
 * Its violations carry op's index, their pointers the expanded op's members
 * under op's pointer. Returns 0 or -1. */
int rig_op__run_expanded(struct rig_op_ctx *ctx, const struct rig_op *op, json_t *value,
			 json_t *listed);

/* Scopes violations [from, count) to the op's layer: its id, the op's index
 * and pointer prefix (rig_errs_scope). */
void rig_op__scope_layer(struct rig_op_ctx *ctx, const struct rig_op *op, size_t from,
			 const char *prefix);

/* The live layer id names, or NULL after recording LAYER_NOT_FOUND at field
 * (its layer id set to id). */
struct rig_model_layer *rig_op__target(struct rig_op_ctx *ctx, const struct rig_op *op,
				       const char *id, const char *field);

/* The op's layer when it exists and is a mesh layer; NULL after recording
 * LAYER_NOT_FOUND or LAYER_KIND. */
struct rig_model_layer *rig_op__mesh_target(struct rig_op_ctx *ctx, const struct rig_op *op);

/* True when candidate is layer itself or lies below it. */
bool rig_op__is_self_or_descendant(struct rig_shot_model *m, const char *layer,
				   const char *candidate);

/* Reads an optional "transform" {position, rotation, scale, pivot} of op. */
void rig_op__decode_transform(const struct rig_jr *op_jr, json_t *op, struct rig_transform_in *out);

/* Sets the static value of every channel t gives. */
void rig_op__set_statics(struct rig_model_layer *l, const struct rig_transform_in *t);

/* Reads obj's member field, an array of {x, y}, into *out (malloc'd, 2 · *out_n
 * doubles; moved out of bulk when it decoded the array for this op), checking
 * shapes (OP_INVALID at "<field>/<i>") and the vertex limit (MESH_GEOMETRY).
 * *out is set whenever it was allocated, even on failure (the caller frees
 * it). Returns 0 or -1. (ops_skin.c) */
int rig_op__decode_points(const struct rig_jr *jr, json_t *obj, const char *field, double **out,
			  size_t *out_n, struct rig_bulk *bulk);

/* Reads obj's optional "uvs", one [u, v] of finite numbers per vertex
 * (n_verts of them), into *out (malloc'd; untouched when absent). Returns 0
 * or -1 with OP_INVALID at "uvs" or "uvs/<v>". (ops_skin.c) */
int rig_op__decode_uvs(const struct rig_jr *jr, json_t *obj, double **out, size_t n_verts);

/* The same for obj's "triangles", an array of [i, j, k]: indices outside
 * [0, 2^32) become UINT32_MAX for the core to report. (ops_skin.c) */
int rig_op__decode_triangles(const struct rig_jr *jr, json_t *obj, uint32_t **out, size_t *out_n,
			     struct rig_bulk *bulk);

/* Reads "interp" (default linear) and "ease" (required with bezier, refused
 * otherwise) of obj into *key; *given (may be NULL) tells whether interp was
 * sent. Returns 0 or -1 with a violation recorded. (ops_keys.c) */
int rig_op__decode_interp(const struct rig_jr *jr, json_t *obj, struct rig_key *key, bool *given);

/* Reads obj's member field, a non-empty array of keys {frame, value, interp?,
 * ease?} as layer.key.put takes them, into *out (calloc'd, *out_n entries; set
 * whenever allocated, even on failure: the caller frees it), each checked by
 * rig_op__check_key. Violations point at "<field>/<i>". Returns 0 or -1.
 * (ops_keys.c) */
int rig_op__decode_key_array(const struct rig_jr *jr, json_t *obj, const char *field,
			     struct rig_key **out, size_t *out_n);

/* The bakes (ops_bake.c): a bake op's decode ({layerId, frames: [f, …] |
 * {from, to, step}}) and release, shared by every kind's bake row, and its
 * apply, which turns the op's layer's binding of kind from into a mesh
 * binding keyed at each frame (MESH_BINDING_KIND for another kind). */
struct rig_binding_type;
int rig_op__bake_decode(struct rig_op *out, json_t *op, const struct rig_jr *jr,
			struct rig_bulk *bulk);
int rig_op__bake_apply(struct rig_op_ctx *ctx, struct rig_op *op,
		       const struct rig_binding_type *from);
void rig_op__bake_release(struct rig_op *op);

/* Reads op's "frames", a non-empty array of numbers, into *out (calloc'd,
 * *out_n entries; set whenever allocated, even on failure: the caller frees
 * it), as layer.key.delete takes them. Returns 0 or -1. (ops_keys.c) */
int rig_op__decode_frames(const struct rig_jr *jr, json_t *op, double **out, size_t *out_n);

/* LAYER_LOCKED (at field, naming the layer, lock, owner and expiry) when
 * layer_id is held by someone else's lock. Returns 0 or -1. (op_table.c) */
int rig_op__check_layer_unlocked(struct rig_op_ctx *ctx, const struct rig_op *op,
				 const char *layer_id, const char *field);

/* Checks a decoded key with the core's key rule (rig_key_check), reporting
 * OP_INVALID under jr->base. Returns 0 or -1. (ops_keys.c) */
int rig_op__check_key(const struct rig_jr *jr, const struct rig_key *key);

/* The release of an op that owns nothing. */
void rig_op__release_nothing(struct rig_op *op);

/* ---- the ops, one block per family file ---- */

/* Declares rig_op__<op>_decode and rig_op__<op>_apply, the two functions every
 * op's row names (a release of its own is declared beside them). */
#define RIG_OP_FUNCTIONS(op)                                                                       \
	int rig_op__##op##_decode(struct rig_op *out, json_t *value, const struct rig_jr *jr,      \
				  struct rig_bulk *bulk);                                          \
	int rig_op__##op##_apply(struct rig_op_ctx *ctx, struct rig_op *op)

/* ops_layer.c: the tree */
int rig_op__create_decode(struct rig_op *out, json_t *value, const struct rig_jr *jr,
			  struct rig_bulk *bulk);
int rig_op__create_apply(struct rig_op_ctx *ctx, struct rig_op *op);
int rig_op__delete_decode(struct rig_op *out, json_t *value, const struct rig_jr *jr,
			  struct rig_bulk *bulk);
int rig_op__delete_apply(struct rig_op_ctx *ctx, struct rig_op *op);
int rig_op__parent_decode(struct rig_op *out, json_t *value, const struct rig_jr *jr,
			  struct rig_bulk *bulk);
int rig_op__parent_apply(struct rig_op_ctx *ctx, struct rig_op *op);
int rig_op__rename_decode(struct rig_op *out, json_t *value, const struct rig_jr *jr,
			  struct rig_bulk *bulk);
int rig_op__rename_apply(struct rig_op_ctx *ctx, struct rig_op *op);

/* ops_keys.c: motion */
int rig_op__pose_decode(struct rig_op *out, json_t *value, const struct rig_jr *jr,
			struct rig_bulk *bulk);
int rig_op__pose_apply(struct rig_op_ctx *ctx, struct rig_op *op);
int rig_op__key_put_decode(struct rig_op *out, json_t *value, const struct rig_jr *jr,
			   struct rig_bulk *bulk);
int rig_op__key_put_apply(struct rig_op_ctx *ctx, struct rig_op *op);
void rig_op__key_put_release(struct rig_op *op);
int rig_op__key_delete_decode(struct rig_op *out, json_t *value, const struct rig_jr *jr,
			      struct rig_bulk *bulk);
int rig_op__key_delete_apply(struct rig_op_ctx *ctx, struct rig_op *op);
void rig_op__key_delete_release(struct rig_op *op);

/* ops_skin.c: skin bindings */
RIG_OP_FUNCTIONS(skin);
void rig_op__skin_release(struct rig_op *op);
RIG_OP_FUNCTIONS(capture);

/* ops_skin_weights.c: layer.skin.weights.put */
RIG_OP_FUNCTIONS(weights_put);
void rig_op__weights_put_release(struct rig_op *op);

/* ops_skin_joints.c: a skin's joints one at a time */
RIG_OP_FUNCTIONS(joint_add);
RIG_OP_FUNCTIONS(joint_remove);
RIG_OP_FUNCTIONS(joint_remap);

/* ops_constraint.c: shot-level constraints */
RIG_OP_FUNCTIONS(constraint_put);
RIG_OP_FUNCTIONS(constraint_delete);
void rig_op__constraint_release(struct rig_op *op);

/* ops_mesh.c: mesh bindings (its other ops are declared in op_table.c), and
 * ops_layer.c's layer.deformation.rest.apply */
int rig_op__mesh_key_put_decode(struct rig_op *out, json_t *value, const struct rig_jr *jr,
				struct rig_bulk *bulk);
int rig_op__mesh_key_put_apply(struct rig_op_ctx *ctx, struct rig_op *op);
int rig_op__rest_apply_decode(struct rig_op *out, json_t *value, const struct rig_jr *jr,
			      struct rig_bulk *bulk);
int rig_op__rest_apply_apply(struct rig_op_ctx *ctx, struct rig_op *op);

#endif
