/* How each binding kind (core/binding.h) is stored in SQLite: one codec row
 * per kind, generated from RIG_BINDING_KINDS, each in its own file beside
 * this one (skin_codec.c: the skins table). The shot repository dispatches
 * through these rows only; a new kind adds its codec file and a migration
 * creating its table.
 *
 * Every function runs inside the caller's transaction and returns 0 or a
 * negative enum rig_code.
 */
#ifndef RIG_BINDING_CODEC_H
#define RIG_BINDING_CODEC_H

#include <sqlite3.h>

#include "core/binding.h"
#include "storage/shot_model.h"

struct rig_binding_codec {
	const struct rig_binding_type *type;
	/* Gives every layer of m that has a stored binding of this kind its
	 * binding: type, a definition without per-vertex arrays, the stored
	 * counts and revision. */
	int (*load)(struct rig_shot_model *m, sqlite3 *db);
	/* Reads the whole stored binding of layer l (not new) into a new
	 * definition set in *out: l's definition completed with the per-vertex
	 * arrays. Changes neither m nor l. */
	int (*read)(void **out, sqlite3 *db, const struct rig_shot_model *m,
		    const struct rig_model_layer *l);
	/* Deletes the stored binding of this kind of layer layer_id, if any. */
	int (*erase)(sqlite3 *db, const char *shot_id, const char *layer_id);
	/* Stores l's binding (of this kind) with revision; the old one is erased. */
	int (*write)(sqlite3 *db, const char *shot_id, const struct rig_model_layer *l,
		     long long revision);
};

#define RIG_BINDING_CODEC_DECLARE(k) extern const struct rig_binding_codec rig_binding_codec_##k;
RIG_BINDING_KINDS(RIG_BINDING_CODEC_DECLARE)
#undef RIG_BINDING_CODEC_DECLARE

/* Every kind's codec, in RIG_BINDING_KINDS order. */
extern const struct rig_binding_codec *const rig_binding_codecs[];
extern const size_t rig_binding_n_codecs;

/* The codec of kind type; every kind has one (the table is generated from the
 * same list), so NULL means a type that is not in the list. */
const struct rig_binding_codec *rig_binding_codec_of(const struct rig_binding_type *type);

#endif
