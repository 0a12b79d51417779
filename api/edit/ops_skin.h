/* What the skin's files share: the LayerSkinInput decoder (layer.skin's, and
 * the skin's evaluate route's, api/handlers/skin_eval.c), the skin ops'
 * target and bind capture, and the joint ids of a bulk weights array
 * (bulk.h). Lives in ops_skin.c; included by the skin's op files
 * (ops_skin.c, ops_skin_weights.c, ops_skin_joints.c; layer.skin.bake is ops_bake.c) and
 * its routes, and by nothing that serves every kind.
 */
#ifndef RIG_OPS_SKIN_H
#define RIG_OPS_SKIN_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "api/edit/bulk.h"
#include "api/edit/ops.h"
#include "api/util/jsonread.h"
#include "core/skin.h"

/* Decodes a skin definition (LayerSkinInput) from JSON into d (which must be
 * zeroed; it owns the arrays afterwards even on failure — release it), then
 * checks every rule of SPEC §3 with the core. jointLayers is required when
 * with_joint_layers (and fills each joint's layer_id); extra_fields lists other
 * members the object may have; out_map_pos (may be NULL) receives a malloc'd
 * array: joint → its index in jointLayers. Violations carry pointers under sjr->base.
 * The arrays bulk (may be NULL) decoded for sjr->op_index replace the empty
 * source, triangles and weights left in the tree (moved out of bulk).
 * Returns 0 or -1 (an allocation failure records MEMORY_BUSY). */
int rig_skin_json_decode(struct rig_skin_def *d, json_t *skin, const struct rig_jr *sjr,
			 bool with_joint_layers, const char *const *extra_fields,
			 uint32_t **out_map_pos, struct rig_bulk *bulk);

/* Lists the skin's joint ids (the first RIG_ERR_LIST_JOINTS) as the
 * violation's validJointIds, so an unknown joint comes with the valid ones. */
void rig_op__list_joint_ids(struct rig_err *e, const struct rig_skin_def *d);

/* The op's target mesh layer with its skin fully loaded; NULL after
 * recording an error (LAYER_NOT_FOUND, LAYER_KIND, MESH_BINDING_KIND when it
 * has no skin). */
struct rig_model_layer *rig_op__skin_target(struct rig_op_ctx *ctx, const struct rig_op *op);

/* Every joint's pose_j of skinned layer l (loaded, as rig_op__skin_target
 * gives it) at its signed local frame, through the resolver: what
 * layer.skin.bind.capture makes the binds. Writes n_joints matrices to out.
 * Returns 0, or -1 with violations recorded under op (the frame members as
 * capture names them). */
int rig_op__capture_poses(struct rig_affine *out, struct rig_op_ctx *ctx, const struct rig_op *op,
			  struct rig_model_layer *l, double local_frame);

/* Turns the id indices of a's influences (a bulk WEIGHTS array) into joint
 * indices of def (unknown ids become RIG_JOINT_UNKNOWN, and a keeps id_of to
 * name them). Returns 0, or -1 when out of memory (a unchanged). */
int rig_op__skin_map_joints(struct rig_bulk_array *a, const struct rig_skin_def *def);

/* The jointId text of influence k of vertex v, once a's weights moved into def
 * (the joint's id when it is known, else the id a kept), or NULL. */
const char *rig_op__skin_joint_id(const struct rig_bulk_array *a, const struct rig_skin_def *def,
				  size_t v, size_t k);

#endif
