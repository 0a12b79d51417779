/* How each binding kind (core/binding.h) is stored in SQLite. A kind listed
 * in RIG_BINDING_OWN_CODECS has a codec row of its own in a file beside this
 * one (skin_codec.c: the skins table); every other kind is stored by the
 * generic codec (generic_codec.c: the bindings table, holding the two byte
 * strings of the kind's encode). The shot repository dispatches through these
 * rows only, so a new kind needs nothing here: its encode and decode are
 * enough.
 *
 * The rows are SQLite's: their SQL, the tables they read, and the rows from
 * before migration 12 that only an SQLite database holds. The bytes they
 * store are every backend's — the parts and chunk boundaries of
 * storage/chunks.h in the layouts of storage/blob.h — so another backend
 * writes rows of its own over the same bytes.
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
	 * counts and revision; at version `at` (the head when at < 0). */
	int (*load)(struct rig_shot_model *m, sqlite3 *db, long long at);
	/* Reads the whole stored binding of layer l (not new) at its revision
	 * into a new definition set in *out: l's definition completed with the
	 * per-vertex arrays. Changes neither m nor l. */
	int (*read)(void **out, sqlite3 *db, const struct rig_shot_model *m,
		    const struct rig_model_layer *l);
	/* Ends the head binding of this kind of layer layer_id of m, if any, at
	 * version to_version: it moves to binding_history (valid until
	 * to_version, its arrays staying in chunks) and leaves the head. */
	int (*erase)(sqlite3 *db, const struct rig_shot_model *m, const char *layer_id,
		     long long to_version);
	/* Stores l's binding (of this kind) as the head with revision, its
	 * arrays as chunks of that revision; the old one is erased. */
	int (*write)(sqlite3 *db, const struct rig_shot_model *m, const struct rig_model_layer *l,
		     long long revision);
};

/* Binds what a shot's load query reads: ?1 the shot's id and, at a version
 * (at >= 0; the head when at < 0), ?2 its seq and ?3 the version. The layer
 * loader and every codec's load share this numbering. */
void rig_sqlite__bind_shot_at(sqlite3_stmt *st, const struct rig_shot_model *m, long long at);

/* The kinds stored in tables of their own, X(name): their codec row is
 * rig_binding_codec_<name>. */
#define RIG_BINDING_OWN_CODECS(X) X(skin)

#define RIG_BINDING_CODEC_DECLARE(k) extern const struct rig_binding_codec rig_binding_codec_##k;
RIG_BINDING_OWN_CODECS(RIG_BINDING_CODEC_DECLARE)
#undef RIG_BINDING_CODEC_DECLARE

/* The bindings table's codec, for every kind with encode and decode; its
 * .type is NULL (it serves many) and load gives each layer the kind its row
 * names. */
extern const struct rig_binding_codec rig_binding_codec_generic;

/* Every codec: the own ones in RIG_BINDING_OWN_CODECS order, then the generic. */
extern const struct rig_binding_codec *const rig_binding_codecs[];
extern const size_t rig_binding_n_codecs;

/* The codec storing kind type: its own, else the generic one when the kind
 * has encode and decode; NULL for NULL or a kind that cannot be stored. */
const struct rig_binding_codec *rig_binding_codec_of(const struct rig_binding_type *type);

/* The generic codec's functions with the kind lookup given (rig_binding_type_find
 * for the table; tests pass their own kinds): load fills every layer of m
 * whose binding row names a kind find knows (-RIG_INTERNAL for one it does
 * not); read, erase and write as struct rig_binding_codec says. */
int rig_binding_generic_load(struct rig_shot_model *m, sqlite3 *db, long long at,
			     const struct rig_binding_type *(*find)(const char *name));
int rig_binding_generic_read(void **out, sqlite3 *db, const struct rig_shot_model *m,
			     const struct rig_model_layer *l);
int rig_binding_generic_erase(sqlite3 *db, const struct rig_shot_model *m, const char *layer_id,
			      long long to_version);
int rig_binding_generic_write(sqlite3 *db, const struct rig_shot_model *m,
			      const struct rig_model_layer *l, long long revision);

#endif
