/* Edit operations: decoding from JSON and applying to an in-memory shot, through
 * the op table (op_table.c) whose rows name each op's functions; the functions
 * live in one file per family (ops_layer.c, ops_keys.c, ops_skin.c, ops_mesh.c)
 * and the shot's final validation in ops_validate.c.
 *
 * A batch runs in two passes. Decoding checks every op's fields without looking
 * at the shot and reports every problem of every op (OP_UNKNOWN, OP_INVALID and
 * the pure skin rules). Applying then runs the decoded ops in order against the
 * shot model, each seeing the ones before; an op that breaks a rule of the shot
 * records its errors (with opIndex and pointer) and leaves the model as it was,
 * so the batch goes on past it and reports every independent error at once.
 */
#ifndef RIG_OPS_H
#define RIG_OPS_H

#include <jansson.h>
#include <stdbool.h>

#include "api/edit/bulk.h"
#include "api/util/jsonread.h"
#include "core/err.h"
#include "core/keys.h"
#include "core/rig_limits.h"
#include "storage/receipts.h"
#include "storage/shot_model.h"
#include "storage/store.h"

/* A transform with a mask of the channels given. */
struct rig_transform_in {
	double ch[RIG_CH_COUNT];
	bool set[RIG_CH_COUNT];
};

struct rig_op;
struct rig_op_ctx;

/* What an op's row declares about it (bits of rig_op_type.flags). */
enum rig_op_flag {
	/* The op can change what final validation reads (the tree, which layers
	 * exist, the bindings): a batch with one such op runs rig_ops_validate_shot.
	 * Every committed shot passed it, so a batch without one cannot fail it. */
	RIG_OP_STRUCTURAL = 1u << 0,
	/* The op writes its layer's binding (of any kind). */
	RIG_OP_BINDING = 1u << 1,
};

/* Which layers an op must find free of someone else's lock (LAYER_LOCKED). */
enum rig_op_lock_scope {
	RIG_OP_LOCK_NONE,    /* creates a layer, so changes none that exists */
	RIG_OP_LOCK_LAYER,   /* the layer its layerId names (joints stay free) */
	RIG_OP_LOCK_SUBTREE, /* that layer and every layer below it */
};

/* One row of the op table: an op's wire name and its functions.
 *
 * decode checks the op's fields (never the shot) and records every violation
 * under jr; it may allocate into out->u whether or not it succeeds. apply runs
 * the decoded op against ctx->model after the lock check and returns 0, or -1
 * with violations recorded and the model unchanged. release frees what decode
 * left in out->u (never the op itself) and must accept a partly decoded op. */
struct rig_op_type {
	const char *name;
	int (*decode)(struct rig_op *out, json_t *value, const struct rig_jr *jr,
		      struct rig_bulk *bulk);
	int (*apply)(struct rig_op_ctx *ctx, struct rig_op *op);
	void (*release)(struct rig_op *op);
	unsigned flags; /* enum rig_op_flag bits */
	enum rig_op_lock_scope lock_scope;
};

/* The op table (op_table.c): one row per op, rig_op_n_types rows; a binding
 * kind may keep its ops' rows in its own row (api/edit/binding.h). */
extern const struct rig_op_type rig_op_types[];
extern const size_t rig_op_n_types;

/* The row of the op named name (the op table's, else a binding kind's), or
 * NULL when there is none. */
const struct rig_op_type *rig_op_type_find(const char *name);

/* One vertex of layer.skin.weights.put: its influences are
 * influences[first .. first + n) of the op. */
struct rig_weights_entry {
	long long vertex_index;
	uint32_t first;
	uint32_t n;
};

struct rig_weights_influence {
	const char *joint_id; /* borrowed from the op's JSON */
	double weight;
};

/* One decoded op. Strings are copied; arrays are owned (rig_op_release). */
struct rig_op {
	const struct rig_op_type *type; /* its row; NULL until decoded */
	bool failed;                    /* decoding recorded violations: the batch skips it */
	const char *name;               /* the wire name, static (type->name) */
	long index;
	char pointer[32]; /* "/ops/<index>" */
	char layer_id[RIG_ID_MAX + 1];
	bool has_layer_id;
	union {
		struct {
			char name[RIG_MAX_NAME_BYTES + 1];
			enum rig_layer_kind kind;
			char parent_id[RIG_ID_MAX + 1];
			struct rig_transform_in transform;
			double time_offset;
		} create;
		struct {
			char parent_id[RIG_ID_MAX + 1]; /* "" = root */
		} parent;
		struct {
			char name[RIG_MAX_NAME_BYTES + 1];
		} rename;
		struct {
			bool has_frame;
			double frame;
			struct rig_transform_in transform;
			bool has_interp;
			struct rig_key key_style; /* interp and ease for new keys */
		} pose;
		struct {
			enum rig_channel channel;
			struct rig_key *keys;
			size_t n_keys;
		} key_put;
		struct {
			enum rig_channel channel;
			double *frames;
			size_t n_frames;
		} key_delete;
		struct {
			double frame;
		} capture;
		struct {
			double frame; /* layer.mesh.key.delete */
		} mesh;
		struct {
			double frame; /* layer.deformation.rest.apply, for every kind's rest_apply
				       */
		} rest;
		/* What a binding kind's op decoded, when its fields fit none of
		 * the above: allocated by its decode, freed by its release. */
		void *kind_data;
		/* layer.skin.weights.put: one entry per vertex addressed (the
		 * single-vertex form is one entry), owned; joint ids are
		 * borrowed from json, which the op holds a reference to. */
		struct {
			struct rig_weights_entry *entries;
			size_t n_entries;
			struct rig_weights_influence *influences; /* the entries' lists */
			json_t *json;   /* the op's JSON (a reference held) */
			bool is_list;   /* the vertices form: entry i is /vertices/i */
			bool normalize; /* rescale positive finite weights to sum 1 */
		} weights;
		/* receipt.revert (ops_revert.c) */
		struct {
			char receipt_id[RIG_RECEIPT_ID_MAX];
			bool force; /* overwrite what later batches changed */
		} revert;
		/* layer.skin.joint.add / .remove / .remap */
		struct {
			char joint_id[RIG_ID_MAX + 1];
			char layer_id[RIG_ID_MAX + 1];    /* add: its layer; remap: toLayerId */
			char reassign_to[RIG_ID_MAX + 1]; /* remove: "" spreads proportionally */
			struct rig_affine bind;           /* add: when has_bind */
			bool has_bind;
			bool has_capture; /* add: capture the bind at capture_frame */
			double capture_frame;
		} joint;
	} u;
};

/* A layer held by someone else's live lock. */
struct rig_foreign_lock {
	char layer_id[RIG_ID_MAX + 1];
	char lock_id[RIG_ID_MAX + 1];
	char owner[RIG_ACTOR_MAX + 1];
	long long expires_ms;
};

/* Everything an op needs while it applies. */
struct rig_op_ctx {
	struct rig_shot_model *model;
	struct rig_tx *conn; /* for loading skin arrays on demand */
	struct rig_errs *errs;
	json_t *changed; /* array of changed layer ids, in first-change order */
	json_t *last_op; /* object: layer id → index of the last op that changed it */
	long current_op; /* index of the op being applied */
	const struct rig_foreign_lock *locks; /* layers the caller may not change */
	size_t n_locks;
	/* object: layer id → the op that last changed its binding, as
	 * {"op": index, "member": the op's member holding the definition it
	 * installed, if it did}: final validation points a binding's violations
	 * into that op. */
	json_t *binding_ops;
	/* object: constraint id → the op of this batch that last put it; final
	 * validation points the constraint's violations into that op. */
	json_t *constraint_ops;
	/* object: op index (decimal) → members the op adds to its entry of the
	 * receipt's ops (rig_op__receipt_note): which vertices it changed, the
	 * ops it expanded to. */
	json_t *receipt_notes;
};

/* Sets up ctx for a batch on model (borrowed, as conn and errs): no op
 * applied yet, no locks. Returns 0, or -1 when out of memory (release ctx
 * either way). */
int rig_op_ctx_init(struct rig_op_ctx *ctx, struct rig_shot_model *model, struct rig_tx *conn,
		    struct rig_errs *errs);

/* Frees what rig_op_ctx_init allocated. */
void rig_op_ctx_release(struct rig_op_ctx *ctx);

/* Records that op op_index changed layer_id's binding: installed a definition
 * held in its member def_member (layer.skin's "skin"), or, with def_member
 * NULL, edited the definition in place. Final validation points the
 * definition's violations there. */
void rig_op__binding_changed(struct rig_op_ctx *ctx, const char *layer_id, long op_index,
			     const char *def_member);

/* Adds member key (value, a new reference taken; NULL is ignored) to op's
 * entry of the receipt's ops. */
void rig_op__receipt_note(struct rig_op_ctx *ctx, const struct rig_op *op, const char *key,
			  json_t *value);

/* The end of an op that edited l's binding in place: marks it dirty and
 * records the change (rig_op__binding_changed with no member). */
void rig_op__binding_edited(struct rig_op_ctx *ctx, const struct rig_op *op,
			    struct rig_model_layer *l);

/* The end of an op installing a binding (layer.skin, layer.mesh, …) on layer
 * l: unless clear, moves the decoded definition *def (size bytes, of kind
 * type; zeroed after) into a new heap copy the model owns as l's binding,
 * else clears l's binding; records the change with def_member as
 * rig_op__binding_changed does. Returns 0, or -1 (MEMORY_BUSY recorded, the
 * model unchanged). */
int rig_op__binding_install(struct rig_op_ctx *ctx, const struct rig_op *op,
			    struct rig_model_layer *l, const struct rig_binding_type *type,
			    void *def, size_t size, bool clear, const char *def_member);

/* Decodes op i of a batch (value borrowed) with the row its "op" names. bulk
 * (may be NULL) holds the arrays rig_bulk_extract decoded from the body; the op
 * moves out those of its skin. Records violations (OP_UNKNOWN for a name with
 * no row) and returns -1, or fills *out and returns 0. Either way release *out
 * with rig_op_release. */
int rig_op_decode(struct rig_op *out, json_t *value, long index, struct rig_bulk *bulk,
		  struct rig_errs *errs);

/* Frees what a decoded op owns and zeroes it; safe on a zeroed or failed op. */
void rig_op_release(struct rig_op *op);

/* Releases the n ops of an array (rig_batch_decode's) and frees it; NULL is a no-op. */
void rig_ops_free(struct rig_op *ops, size_t n);

/* Applies a decoded op to ctx->model: checks the locks its row's scope names,
 * then runs its apply. Returns 0, or -1 with violations recorded (and the
 * model unchanged). */
int rig_op_apply(struct rig_op_ctx *ctx, struct rig_op *op);

/* Final validation of the whole shot after the last op: every skin's joint
 * mapping and deformation boundary, and the full definition of every skin an op
 * changed, and every constraint against the tree (IK_CHAIN, IK_TARGET,
 * IK_CYCLE). Violations carry the layer id and pointer "" (op_index unset),
 * except a constraint's, which point into the op of the batch that put it.
 * Returns 0 or -1. */
int rig_ops_validate_shot(struct rig_op_ctx *ctx);

#endif
