/* A shot's layer tree as the resolver sees it (rig.h): a borrowed, read-only
 * view, layers in any order, each with its parent's index, and the shot's
 * constraints. Its own header so the resolver's private one (rig_internal.h)
 * can hold a scene without depending on the resolver's interface.
 */
#ifndef RIG_SCENE_H
#define RIG_SCENE_H

#include <stdbool.h>
#include <stddef.h>

#include "core/binding.h"
#include "core/constraint.h"
#include "core/keys.h"

#define RIG_NO_LAYER (-1L)

enum rig_layer_kind { RIG_LAYER_GROUP, RIG_LAYER_MESH };

struct rig_layer {
	char id[RIG_ID_MAX + 1];
	enum rig_layer_kind kind;
	long parent; /* index in the scene, RIG_NO_LAYER at the shot root */
	struct rig_transform statics;
	struct rig_keys keys[RIG_CH_COUNT];
	double time_offset; /* local frame = shot frame − time_offset */
	bool deformed;      /* has a binding (of any kind) */
	/* The prepared binding, borrowed; both NULL unless set by a caller that
	 * evaluates (binding_eval is binding's evaluator). */
	const struct rig_binding_type *binding;
	const void *binding_eval;
	const long
		*joint_layers; /* per binding joint: its layer's index, RIG_NO_LAYER if missing */
};

/* Borrowed view of a shot; parents must form a forest (no cycles). The
 * constraints (any order; the resolver runs them by order, then id) may be
 * NULL/0. */
struct rig_scene {
	const struct rig_layer *layers;
	size_t n_layers;
	const struct rig_constraint *constraints;
	size_t n_constraints;
	double frame_start; /* the shot's: where follow chains start replaying */
};

#endif
