/* A binding kind's row above the core: what the edit pipeline and the
 * handlers need of a kind besides its math (core/binding.h) and its stored
 * form (storage/sqlite/binding_codec.h). One row per kind, generated from
 * RIG_BINDING_KINDS, each beside its kind's ops (the skin's in
 * skin_binding.c): its layer.deformation.rest.apply, the "binding" summary of
 * a layer's JSON, its mesh-data collections, the large arrays its ops take
 * from the compact body decoder (bulk.h) and its ops' rows (the skin's and the
 * mesh binding's are rows of the op table, op_table.c, instead).
 *
 * Dispatch goes through the row; nothing switches on the kind. This header
 * includes nothing of the op pipeline (ops.h includes bulk.h, which reads
 * these rows), so the op structs are only declared here.
 */
#ifndef RIG_EDIT_BINDING_H
#define RIG_EDIT_BINDING_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "api/util/textbuf.h"
#include "core/binding.h"
#include "core/tessellate.h"
#include "storage/shot_model.h"

/* One mesh-data collection of a kind (GET …/mesh-data/{name}), paged by the
 * handler: count items, each encoded on its own. The route answers the names
 * of every kind's collections (rig_binding_collection_names); openapi.yaml's
 * MeshDataKind lists them, and the clients learn them from there. Every kind
 * has vertices and triangles (RIG_BINDING_COLLECTION_VERTICES, _TRIANGLES
 * below) and adds its own. */
struct rig_binding_collection {
	const char *name;  /* "vertices", "triangles", "joints", "weights", "keyframes" */
	bool needs_arrays; /* reads the per-vertex arrays (loaded for the page) */
	bool evaluates;    /* with ?frame the items are the evaluated vertices */
	/* The number of items of def (a definition of kind type, borrowed). */
	size_t (*count)(const struct rig_binding_type *type, const void *def);
	/* Appends item i as one JSON object to b. xy is the vertices to show:
	 * evaluated ones, or def's source. */
	void (*encode)(struct rig_buf *b, const struct rig_binding_type *type, const void *def,
		       const double *xy, size_t i);
	/* Optional, in place of encode: item i read from the prepared
	 * evaluator (what prepare computes from the definition, a puppet's
	 * harmonic weights), which the handler takes from the read cache;
	 * count then gets the evaluator's definition. */
	void (*encode_eval)(struct rig_buf *b, const struct rig_binding_type *type,
			    const void *eval, size_t i);
	/* Optional, with ?jointId=: one column of the collection (a skin's
	 * weights of one joint, for a heatmap). column gives the index of the
	 * column id names in def, or -1 when there is none; encode_column then
	 * encodes item i of that column in place of encode. */
	long (*column)(const struct rig_binding_type *type, const void *def, const char *id);
	void (*encode_column)(struct rig_buf *b, const struct rig_binding_type *type,
			      const void *def, long column, size_t i);
};

/* The collections every kind has: {"vertexIndex", "x", "y"} of xy's vertex i
 * (evaluated with ?frame) and {"triangleIndex", "indices"} of def's triangle
 * i, counted by the kind's rest mesh. */
size_t rig_binding_count_verts(const struct rig_binding_type *type, const void *def);
size_t rig_binding_count_tris(const struct rig_binding_type *type, const void *def);
void rig_binding_encode_vertex(struct rig_buf *b, const struct rig_binding_type *type,
			       const void *def, const double *xy, size_t i);
void rig_binding_encode_triangle(struct rig_buf *b, const struct rig_binding_type *type,
				 const void *def, const double *xy, size_t i);
#define RIG_BINDING_COLLECTION_VERTICES                                                            \
	{                                                                                          \
		"vertices", true, true, rig_binding_count_verts, rig_binding_encode_vertex, NULL,  \
			NULL, NULL                                                                 \
	}
/* The texture coordinates, {"vertexIndex", "u", "v"} of def's vertex i:
 * every kind's collection uvs, empty for a binding without them. */
size_t rig_binding_count_uvs(const struct rig_binding_type *type, const void *def);
void rig_binding_encode_uv(struct rig_buf *b, const struct rig_binding_type *type, const void *def,
			   const double *xy, size_t i);
#define RIG_BINDING_COLLECTION_UVS                                                                 \
	{                                                                                          \
		"uvs", true, false, rig_binding_count_uvs, rig_binding_encode_uv, NULL, NULL, NULL \
	}
#define RIG_BINDING_COLLECTION_TRIANGLES                                                           \
	{                                                                                          \
		"triangles", true, false, rig_binding_count_tris, rig_binding_encode_triangle,     \
			NULL, NULL, NULL                                                           \
	}

struct rig_op;
struct rig_op_ctx;
struct rig_puppet_def;
struct rig_op_type;

/* The shapes of array the compact body decoder (bulk.h) reads. */
enum rig_bulk_field {
	RIG_BULK_SOURCE,    /* [{x, y}, …]: 2 doubles an element */
	RIG_BULK_TRIANGLES, /* [[i, j, k], …]: 3 indices an element */
	RIG_BULK_WEIGHTS,   /* [[{jointId, weight}, …], …]: a skin's weight lists */
};

/* One large array a kind's op takes from the compact body decoder: under op
 * `op`, the op's member `holder` is the array itself (field NULL: the mesh
 * binding's layer.mesh.key.put "vertices") or an object whose member `field`
 * is (layer.skin's "skin" → "source"). The decoder keeps an array only for
 * the op a row names there, whatever the order of the op's members; under any
 * other op it stays in the body for that op's decoder. The op's decoder takes
 * it with rig_bulk_find (rig_op__decode_points and rig_op__decode_triangles
 * do, for the SOURCE and TRIANGLES shapes). */
struct rig_bulk_member {
	const char *op;
	const char *holder;
	const char *field;
	enum rig_bulk_field shape;
};

struct rig_binding_kind {
	const struct rig_binding_type *type;
	/* layer.deformation.rest.apply on layer l bound with this kind: makes the
	 * shape at op->u.rest.frame the new rest, or refuses. Returns 0, or -1
	 * with violations recorded and the model unchanged. */
	int (*rest_apply)(struct rig_op_ctx *ctx, struct rig_op *op, struct rig_model_layer *l);
	/* The "binding" object of l's JSON (a new reference). */
	json_t *(*summary)(const struct rig_model_layer *l);
	const struct rig_binding_collection *collections;
	size_t n_collections;
	/* The arrays its ops take from the compact body decoder. */
	const struct rig_bulk_member *bulk_members;
	size_t n_bulk_members;
	/* Its ops, when it keeps their rows (ops.h's struct rig_op_type) itself:
	 * rig_op_type_find looks them up after the op table's rows, and an unknown
	 * op's validOps lists them after those. The skin's and the mesh binding's
	 * ops are rows of the op table (op_table.c), where validOps' order has
	 * them; a later kind keeps its rows here and leaves op_table.c alone. */
	const struct rig_op_type *ops;
	size_t n_ops;
	/* Optional: the puppet pins l's binding carries (core/puppet.h), which
	 * the pin ops (layer.puppet.pin.put, .delete, .key.put, .key.delete,
	 * api/edit/puppet_binding.c) edit in place: a puppet's definition, a
	 * skin's skin.puppet. NULL when l carries none — unless create, which
	 * gives a kind that can carry pins an empty set first (NULL then only
	 * when out of memory). NULL member: the kind never carries pins. */
	struct rig_puppet_def *(*pins)(struct rig_model_layer *l, bool create);
	/* Optional: layer.mesh.generate's end (api/edit/ops_authoring.c).
	 * Installs on l a definition of this kind whose rest mesh is *mesh (its
	 * arrays taken, *mesh zeroed), keeping what the kind can keep of l's
	 * binding when it is of this kind already (a skin's joints, method and
	 * pins; a puppet's pins and settings) and dropping what indexes the old
	 * vertices (weights, keys): final validation then decides, so a skin's
	 * weights come from a later op of the batch. Returns 0, or -1 with
	 * violations recorded and the model unchanged. NULL: the kind cannot be
	 * generated. */
	int (*remesh)(struct rig_op_ctx *ctx, struct rig_op *op, struct rig_model_layer *l,
		      struct rig_tess_mesh *mesh);
};

/* The "binding" object of l's JSON every kind's summary is: its kind, its
 * vertexCount and triangleCount (as stored while the arrays are not loaded)
 * and one count of its own (count_name: count), a new reference. */
json_t *rig_binding_summary_counts(const struct rig_model_layer *l, const char *count_name,
				   size_t count);

#define RIG_BINDING_KIND_DECLARE(k) extern const struct rig_binding_kind rig_binding_kind_##k;
RIG_BINDING_KINDS(RIG_BINDING_KIND_DECLARE)
#undef RIG_BINDING_KIND_DECLARE

/* Every kind's row, in RIG_BINDING_KINDS order. */
extern const struct rig_binding_kind *const rig_binding_kinds[];
extern const size_t rig_binding_n_kinds;

/* The row of kind type; NULL for a type that is not in the list (or NULL). */
const struct rig_binding_kind *rig_binding_kind_of(const struct rig_binding_type *type);

/* The collection of kind named name, or NULL when the kind has none by that
 * name (its page is then empty). */
const struct rig_binding_collection *
rig_binding_collection_find(const struct rig_binding_kind *kind, const char *name);

/* At most this many distinct collection names over every kind. */
#define RIG_BINDING_MAX_COLLECTIONS 32

/* Every kind's collection names, each once, in the order of the kinds and of
 * each kind's collections, into out (borrowed strings, at most
 * RIG_BINDING_MAX_COLLECTIONS; a unit test holds the kinds to that). Returns
 * how many. */
size_t rig_binding_collection_names(const char *out[RIG_BINDING_MAX_COLLECTIONS]);

#endif
