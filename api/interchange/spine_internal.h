/* What the Spine 4.2 importer's two files share (spine_import.c: skeleton,
 * slots, attachments, IK; spine_anim.c: the chosen animation's bone
 * timelines as layer keys). Not a public interface.
 */
#ifndef RIG_SPINE_INTERNAL_H
#define RIG_SPINE_INTERNAL_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "api/interchange/interchange.h"
#include "core/affine.h"

/* Pointers into the document: a bone's name can make them long. */
#define SPINE_PATH_MAX 512

struct spine_bone {
	const char *name; /* borrowed from the document */
	long parent;      /* index, −1 for a root */
	double length, x, y, rotation_deg, scale_x, scale_y;
	/* the setup pose's world matrix, composed as rigd's resolver composes
	 * layers (rig_transform_matrix, rig_affine_mul): a bind made from it is
	 * bit for bit the joint's pose at rest, so the rest mesh is its source */
	struct rig_affine world;
	char id[RIG_ID_MAX + 1];    /* the group layer */
	char joint[RIG_ID_MAX + 1]; /* the joint id in skins */
};

struct spine_reader {
	struct rig_import *im;
	const struct rig_jr *jr;
	json_t *doc;
	struct spine_bone *bones;
	size_t n_bones;
	json_t *animation; /* the one imported (borrowed), or NULL */
	const char *animation_name;
};

/* A finite JSON number into *out. */
bool spine__finite(json_t *v, double *out);

/* obj[key] as a finite number (def when absent) or boolean; a violation at
 * path/key otherwise. Return 0 or -1. */
int spine__opt_number(const struct spine_reader *r, json_t *obj, const char *key, const char *path,
		      double def, double *out);
int spine__opt_bool(const struct spine_reader *r, json_t *obj, const char *key, const char *path,
		    bool def, bool *out);

/* Reports obj[key] (a colour at path) unless absent or opaque white. */
void spine__report_color(struct spine_reader *r, json_t *obj, const char *key, const char *path);

/* out = m · (x, y). */
static inline void spine__affine_apply(const struct rig_affine *m, double x, double y,
				       double out[2])
{
	rig_affine_apply(&out[0], &out[1], m, x, y);
}

/* The slot's setup attachment att (at path, "skins/<k>/attachments/…") on
 * bone as a mesh layer (id from the slot's name, rig_import_mesh_id), or
 * reported when its type is not carried. Returns 0 or -1. */
int spine__import_attachment(struct spine_reader *r, json_t *att, const char *path, size_t bone,
			     const char *slot_name);

/* The document's IK constraints as constraint.put ops. Returns 0 or -1. */
int spine__import_ik(struct spine_reader *r);

/* The bone named name, or −1. */
long spine__bone_index(const struct spine_reader *r, const char *name);

/* Appends "/" and seg, escaped as a JSON pointer token (~0, ~1), to path. */
void spine__path_add(char path[SPINE_PATH_MAX], const char *seg);

/* Reads options.animation and picks the animation (r->animation; NULL when
 * the document has none); the others are reported unsupported. Returns 0,
 * or -1 with OP_INVALID recorded at the options. */
int spine__choose_animation(struct spine_reader *r);

/* Whether the chosen animation keys bone i's scale. */
bool spine__scale_keyed(const struct spine_reader *r, size_t i);

/* The chosen animation's bone timelines as layer.key.put ops; every other
 * timeline reported unsupported. Returns 0, or -1 with violations. */
int spine__import_animation(struct spine_reader *r);

#endif
