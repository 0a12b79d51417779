/* What the glTF exporter's files share (gltf_export.c: nodes, meshes, skins
 * and the .glb; gltf_anim.c: the animation). Internal to the exporter.
 *
 * One export is one struct rig_gltf: the document's arrays being filled
 * (owned), the BIN chunk growing behind them (owned), and per model layer the
 * node that carries its transform and the node its children hang under (its
 * pivot node, when it has a pivot). A glTF time is seconds from the origin
 * frame: t = (shot frame − origin) / fps, the origin the earliest of the
 * shot's frameStart and every key, so no time is negative.
 */
#ifndef RIG_GLTF_H
#define RIG_GLTF_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "api/interchange/interchange.h"
#include "api/util/textbuf.h"

/* glTF's componentType and bufferView target numbers. */
#define RIG_GLTF_UBYTE 5121
#define RIG_GLTF_UINT 5125
#define RIG_GLTF_FLOAT 5126
#define RIG_GLTF_ARRAY_BUFFER 34962
#define RIG_GLTF_ELEMENT_BUFFER 34963

/* A mesh binding's keys as morph targets: the node carrying the mesh, and
 * the keys' times (borrowed from the binding's definition). */
struct rig_gltf_morph {
	size_t layer; /* model layer index */
	long node;
	const struct rig_key *times;
	size_t n_keys;
};

struct rig_gltf {
	const struct rig_export_in *in;
	json_t *report; /* borrowed: the export's */
	json_t *nodes, *meshes, *accessors, *views, *skins, *samplers, *channels;
	json_t *scene_nodes;           /* the scene's root nodes */
	struct rig_buf bin;            /* the BIN chunk, unpadded */
	long *node_of;                 /* per model layer: its node, −1 for a deleted layer */
	long *attach_of;               /* per model layer: the node its children hang under */
	struct rig_gltf_morph *morphs; /* every mesh binding with keys, layer order */
	size_t n_morphs;
	double origin;         /* the shot frame at time 0 */
	bool oom;              /* an allocation failed somewhere: the export fails */
	struct rig_errs *errs; /* a frame the resolver refuses (REPLAY_LIMIT) lands here */
	bool refused;
};

/* One accessor's data: count elements of n_comp components each. */
struct rig_gltf_data {
	const void *bytes;
	size_t count;
	int component;    /* RIG_GLTF_FLOAT, _UINT or _UBYTE */
	const char *type; /* "SCALAR", "VEC2", "VEC3", "VEC4", "MAT4" */
	int n_comp;
	int target;   /* a bufferView target, or 0 */
	bool min_max; /* write min and max (floats only) */
};

/* Appends d's bytes to the BIN chunk (at a 4-byte boundary) with a bufferView
 * and an accessor of their own. Returns the accessor's index, or −1 when out
 * of memory (g->oom set). */
long rig_gltf__accessor(struct rig_gltf *g, const struct rig_gltf_data *d);

/* The glTF time of shot frame f, in seconds from the origin. */
double rig_gltf__time(const struct rig_gltf *g, double shot_frame);

/* Adds the shot's one animation's samplers and channels: every layer's keyed
 * channels, constrained layers baked, mesh bindings' morph weights
 * (g->morphs). Records what it could not say exactly in
 * g->report. Returns 0, or −1 when out of memory. */
int rig_gltf__animate(struct rig_gltf *g);

/* The morph weights of a mesh binding's n keys at local frame (out: n). */
void rig_gltf__morph_weights(float *out, const struct rig_key *times, size_t n, double frame);

#endif
