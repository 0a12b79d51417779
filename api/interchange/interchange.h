/* Interchange (issue 26): other tools' documents turned into rigd's ordinary
 * ops, and rigd's shots written as other tools' documents.
 *
 * One table holds the formats (interchange.c): a format may import (a
 * document into ops), export (a stored shot into bytes), or both. Importing
 * never touches the shot: it is a pure conversion whose ops then run in the
 * batch like any others (shot.import, api/edit/ops_import.c), so locks,
 * plans, dry runs, idempotency, checkFrames, receipts and history all hold.
 * Exporting reads one stored version of a shot, bindings loaded.
 *
 * Both answer a report of what became what and what the format could not
 * carry, each item with a JSON pointer into the source document (import) or
 * naming the layer or constraint (export):
 *   {"format": name,
 *    "mapped": [{"kind": "bone"|"mesh"|"slot"|"attachment"|"constraint"|
 *                "animation"|..., "source": pointer, "name"?: the source's
 *                name, "layerId"?: …, "constraintId"?: …}…],
 *    "unsupported": [{"feature": short name, "source"?: pointer,
 *                     "layerId"?: …, "detail": sentence}…],
 *    "adjusted": [{"feature", "source", "detail"}…]}  (renormalised weights,
 *                sampled curves: carried, but not bit for bit as written)
 */
#ifndef RIG_INTERCHANGE_H
#define RIG_INTERCHANGE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "api/util/jsonread.h"
#include "core/rig_limits.h"
#include "storage/shot_model.h"

/* What an import is given besides the document. */
struct rig_import_opts {
	/* Prepended to every id the import makes (layers, joints' layers,
	 * constraints), so one shot can hold two imports. */
	char id_prefix[RIG_ID_MAX + 1];
	char parent_id[RIG_ID_MAX + 1]; /* the imported roots' parent; "" the shot root */
	double fps;                     /* the shot's: document seconds × fps = frames */
	/* shot.import's "options" (borrowed, may be NULL): the format's own
	 * choices (Spine: which animation), read by its importer under
	 * options_pointer with OP_INVALID. */
	json_t *options;
	const char *options_pointer;
};

/* An import's result: ordinary ops (a JSON array of op objects, in the order
 * they must run) and the report above. Both owned; rig_import_release. */
struct rig_import {
	const struct rig_import_opts *opts;
	json_t *ops;
	json_t *report;
	/* Per op of ops, the pointer into the document it came from ("" the
	 * whole document): an expanded op's violations are reported there. */
	json_t *sources;
	json_t *taken; /* the layer ids made so far → the index of what made them */
};

/* An export's result: the body, its media type and the report. */
struct rig_export {
	unsigned char *body; /* malloc'd */
	size_t len;
	const char *content_type; /* static */
	json_t *report;           /* owned */
};

/* What an export reads: one stored version of a shot (shared: read only),
 * every binding's definition with its arrays, and a scene view of it (for
 * evaluating layers' matrices at frames: rig_resolver_new). */
struct rig_export_in {
	const struct rig_shot_model *model;
	const struct rig_scene_view *view;
	/* per model layer: its binding's definition (of model->layers[i]
	 * .binding.type) with its arrays, NULL when unbound or deleted */
	void *const *defs;
};

/* One row of the format table. */
struct rig_interchange_format {
	const char *name; /* the wire name: ?format= and shot.import's format */
	/* Converts doc into im->ops and im->report (both set by the caller to
	 * empty containers). Violations of the document are recorded under jr
	 * (jr->base points at the document) with IMPORT_INVALID, or
	 * IMPORT_VERSION for a version the format does not read. Returns 0, or
	 * -1 with violations recorded. NULL: the format is not imported. */
	int (*import)(struct rig_import *im, json_t *doc, const struct rig_jr *jr);
	/* Writes the shot into *out (report set by the caller to an empty
	 * report). Returns 0, or -1 with errs filled (MEMORY_BUSY, or the
	 * shot's own evaluation errors). NULL: the format is not exported. */
	int (*export)(struct rig_export *out, const struct rig_export_in *in,
		      struct rig_errs *errs);
	const char *content_type; /* of an export */
};

extern const struct rig_interchange_format rig_interchange_formats[];
extern const size_t rig_interchange_n_formats;

/* The row named name, or NULL. */
const struct rig_interchange_format *rig_interchange_find(const char *name);

/* Lists the formats that import (or export) as `key` members of e. */
void rig_interchange_list(struct rig_err *e, const char *key, bool importing);

/* Sets up im with empty ops, report and sources for format; returns 0, or -1
 * when out of memory (release it either way). */
int rig_import_init(struct rig_import *im, const char *format, const struct rig_import_opts *opts);
void rig_import_release(struct rig_import *im);

/* Appends op (a new reference, taken; NULL: out of memory) to im->ops, made
 * from the document's part at source. Returns 0, or -1 when out of memory. */
int rig_import_op(struct rig_import *im, json_t *op, const char *source);

/* The id an import gives the document's thing named name: the prefix and
 * name, with every character outside [A-Za-z0-9_.:-] replaced by '_' (and
 * '.' or '..' alone made '_'). Returns false when it would pass RIG_ID_MAX
 * bytes (never cut short: a cut id could repeat). */
bool rig_import_id(char out[RIG_ID_MAX + 1], const struct rig_import *im, const char *name);
/* The same with another prefix ("": a joint id, local to its skin). */
bool rig_import_id_with(char out[RIG_ID_MAX + 1], const char *prefix, const char *name);

/* Claims layer id for the document's thing at index (a bone's): −1, or
 * the index of the thing that claimed it first (nothing claimed then). */
long rig_import_claim(struct rig_import *im, const char *id, long index);

/* rig_import_claim for the document's bone i: 0, or -1 with IMPORT_INVALID
 * at bones/<i>/name naming the bone that made the id first. */
int rig_import_claim_bone(struct rig_import *im, const struct rig_jr *jr, const char *id, size_t i);

/* A mesh layer's id for the document's mesh named name, unclaimed: the
 * prefix and name, else name + "-mesh" (a document's meshes and bones have
 * names of their own, which may meet). Returns false when neither is free. */
bool rig_import_mesh_id(char out[RIG_ID_MAX + 1], struct rig_import *im, const char *name);

/* Report entries. key/value pairs name what it became ("layerId", id), NULL
 * name or id leaves them out. */
void rig_import_mapped(struct rig_import *im, const char *kind, const char *source,
		       const char *name, const char *id_key, const char *id);
void rig_import_unsupported(struct rig_import *im, const char *feature, const char *source,
			    const char *fmt, ...) __attribute__((format(printf, 4, 5)));
void rig_import_adjusted(struct rig_import *im, const char *feature, const char *source,
			 const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* The same for an export's report, naming a layer (or NULL). */
void rig_export_unsupported(json_t *report, const char *feature, const char *layer_id,
			    const char *fmt, ...) __attribute__((format(printf, 4, 5)));
json_t *rig_export_report_new(const char *format);

/* out's body as doc's compact text, every double in 17 digits (they read
 * back exactly); returns 0, or -1 when out of memory (or doc is NULL). */
int rig_export_json(struct rig_export *out, const json_t *doc);

/* The formats' functions (one file each). */
int rig_rig2d_import(struct rig_import *im, json_t *doc, const struct rig_jr *jr);
int rig_rig2d_export(struct rig_export *out, const struct rig_export_in *in, struct rig_errs *errs);
int rig_spine_import(struct rig_import *im, json_t *doc, const struct rig_jr *jr);
int rig_spine_export(struct rig_export *out, const struct rig_export_in *in, struct rig_errs *errs);
int rig_gltf_export(struct rig_export *out, const struct rig_export_in *in, struct rig_errs *errs);

#endif
