/* A shot held in memory while one request reads or edits it.
 *
 * The edit pipeline loads the shot inside its transaction, applies ops to this
 * model (each op sees the ones before), validates the result and writes back only
 * what changed. A mesh layer has at most one binding (binding.h), held with its
 * kind; its per-vertex arrays (a skin's source, triangles, weights) are loaded
 * only for layers an op or a read needs, the rest (a skin's joints) always is.
 * The model owns everything it points to; release with rig_shot_model_release().
 */
#ifndef RIG_SHOT_MODEL_H
#define RIG_SHOT_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/binding.h"
#include "core/keys.h"
#include "core/rig.h"

/* The bytes of a stored channel's print (rig_blob_print). */
#define RIG_KEYS_PRINT_BYTES 16

/* A growable, owned list of keys of one channel, sorted by frame. */
struct rig_key_list {
	struct rig_key *items;
	size_t count;
	size_t cap;
};

/* A layer's one binding. */
struct rig_model_binding {
	const struct rig_binding_type *type; /* NULL: the layer has none */
	void *def;      /* owned, type's definition; per-vertex arrays only when loaded */
	bool loaded;    /* def holds the per-vertex arrays */
	size_t n_verts; /* counts as stored, valid even when not loaded */
	size_t n_tris;
	long long revision; /* the shot version that wrote the stored binding */
	bool dirty;         /* the stored binding must be rewritten or deleted */
};

struct rig_model_layer {
	char id[RIG_ID_MAX + 1];
	char *name;
	enum rig_layer_kind kind;
	char parent_id[RIG_ID_MAX + 1]; /* "" at the shot root */
	long long ord;                  /* creation order: siblings list in it */
	struct rig_transform statics;
	struct rig_key_list keys[RIG_CH_COUNT];
	/* Per channel, the print (storage/blob.h) of the key bytes storage holds
	 * for this layer as the model's version reads them, where bit c of
	 * keys_known says it is known: the loader knows unkeyed channels (reads
	 * do not pay for hashing), each save learns what it compared, and the
	 * next save compares prints it knows and reads the rest back. */
	unsigned char keys_stored[RIG_CH_COUNT][RIG_KEYS_PRINT_BYTES];
	unsigned keys_known;
	double time_offset;

	struct rig_model_binding binding;

	bool is_new; /* not in the database yet */
	bool dirty;  /* layer row must be written */
	bool deleted;
};

/* A shot-level constraint (core/constraint.h). c's scene indices and key
 * spans are not used here (rig_scene_view_init fills a copy); its keys live in
 * keys[RIG_CC_MIX] and keys[RIG_CC_SOFTNESS], an array of RIG_CH_COUNT lists
 * so the layer keys BLOB layout stores them too (the other lists stay empty). */
struct rig_model_constraint {
	struct rig_constraint c;
	struct rig_key_list keys[RIG_CH_COUNT];
};

struct rig_shot_model {
	char id[RIG_ID_MAX + 1];
	char project_id[RIG_ID_MAX + 1];
	char *name;
	double fps;
	double frame_start;
	double frame_end;
	long long version;
	long long seq; /* the shot row's never-reused rowid: tells a re-created shot apart */
	struct rig_model_layer *layers; /* deleted ones stay, flagged, until saved */
	size_t n_layers;
	size_t cap_layers;
	long long next_ord;
	uint32_t *slots; /* id index, open addressing: layer index + 1, 0 empty; may be NULL */
	size_t n_slots;  /* a power of two above twice the layers indexed */
	struct rig_model_constraint *constraints; /* sorted by id */
	size_t n_constraints;
	size_t cap_constraints;
	bool constraints_dirty; /* the stored constraints must be rewritten */
};

/* After the model's changes were written (rig_shot_save) and committed as
 * committed_version: drops deleted layers, clears every layer's change flags,
 * records the counts and revision of changed bindings and the new version, so the
 * model again mirrors the stored shot. */
void rig_shot_model_settle(struct rig_shot_model *m, long long committed_version);

/* The bytes the model holds (struct, layers, names, keys, bindings without
 * their per-vertex arrays), for caches that bound their memory. */
size_t rig_shot_model_bytes(const struct rig_shot_model *m);

/* Puts the layers in creation order (ord), for a loader that read them in
 * another order, and rebuilds the id index. */
void rig_shot_model_sort(struct rig_shot_model *m);

/* Replaces l's binding by def of kind type (NULL, NULL: none), taking
 * ownership of def; frees the old definition and marks the binding dirty and
 * loaded. Cannot fail. */
void rig_model_binding_set(struct rig_model_layer *l, const struct rig_binding_type *type,
			   void *def);

/* Frees everything the model owns and zeroes it. Safe on a zeroed model. */
void rig_shot_model_release(struct rig_shot_model *m);

/* The live (not deleted) layer with this id, or NULL. */
struct rig_model_layer *rig_shot_model_find(struct rig_shot_model *m, const char *id);

/* Its index in m->layers, or -1. */
long rig_shot_model_index(const struct rig_shot_model *m, const char *id);

/* Appends a new layer with default transform and the given id, kind and parent
 * (""/NULL = root); marks it new and dirty. name is copied. Returns it, or NULL
 * when out of memory. */
struct rig_model_layer *rig_shot_model_add(struct rig_shot_model *m, const char *id,
					   const char *name, enum rig_layer_kind kind,
					   const char *parent_id);

/* Upserts a key by frame into a channel's list (keeps it sorted). Returns 0, or -1
 * when out of memory. */
int rig_key_list_put(struct rig_key_list *list, const struct rig_key *key);

/* Removes the key at frame, if any; returns true when one was removed. */
bool rig_key_list_delete(struct rig_key_list *list, double frame);

/* The index of constraint id in m->constraints, or -1. */
long rig_shot_model_constraint_index(const struct rig_shot_model *m, const char *id);

/* Inserts or replaces the constraint c->c.id, taking ownership of c's key
 * lists (c is zeroed); marks the constraints dirty. Returns 0, or -1 when out
 * of memory (then c still owns its keys). */
int rig_shot_model_constraint_put(struct rig_shot_model *m, struct rig_model_constraint *c);

/* Removes constraint id; returns false when there is none. */
bool rig_shot_model_constraint_delete(struct rig_shot_model *m, const char *id);

/* Frees the key lists of c and zeroes it. */
void rig_model_constraint_release(struct rig_model_constraint *c);

/* The resolver's view of a model's live layers (see rig.h), owned. */
struct rig_scene_view {
	struct rig_scene scene;
	struct rig_layer *layers;           /* live layers in m->layers order */
	long *index_of;                     /* m->layers index → scene index, -1 for deleted */
	long *joint_layers;                 /* storage for every binding's joint → scene index */
	struct rig_constraint *constraints; /* the model's, ids resolved to scene indices */
};

/* Builds the view: parents resolved to scene indices, keys borrowed from the
 * model (valid while the model is not changed), deformed set for bound layers,
 * joint layers mapped (RIG_NO_LAYER when a joint's layer is missing), binding
 * evaluators NULL (callers that evaluate set them), constraints copied with
 * their layer ids resolved (RIG_NO_LAYER when missing) and keys borrowed.
 * Returns 0, or -1 when out of
 * memory or when the tree has a dangling parent (then the view is zeroed). */
int rig_scene_view_init(struct rig_scene_view *out, const struct rig_shot_model *m);

/* Frees the view; safe on a zeroed view. */
void rig_scene_view_release(struct rig_scene_view *v);

#endif
