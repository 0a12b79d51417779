/* The puppet's pins on the wire, for every kind that has pins: the puppet's
 * own (layer.puppet) and a skin's (skin.puppet, core/skin.h). Lives in
 * puppet_binding.c, beside the puppet's ops; a kind carrying pins reaches
 * the pin ops through its row's pins member (binding.h) and uses these to
 * decode and encode them, so the pins read and write the same everywhere.
 */
#ifndef RIG_EDIT_PINS_H
#define RIG_EDIT_PINS_H

#include <jansson.h>
#include <stddef.h>

#include "api/util/jsonread.h"
#include "api/util/textbuf.h"
#include "core/puppet.h"

/* Decodes the members pins, solver and maxRotationDeg of obj (a
 * PuppetInput, or a skin's puppet) into d (zeroed; it owns the pins
 * afterwards even on failure), shapes only, violations under jr->base
 * ("…/pins/2/x"). The caller checks the members obj may have and the rules
 * (rig_puppet_def_check). Returns 0, or -1 after recording a violation. */
int rig_op__pins_decode(const struct rig_jr *jr, json_t *obj, struct rig_puppet_def *d);

/* One pin as a PuppetPin: {id, x, y, rotation, stiffness, scale, overlap,
 * overlapExtent, keys: {channel: [key, …]}}, what layer.puppet.pin.put takes. */
void rig_pins_json_pin(struct rig_buf *b, const struct rig_puppet_pin *pin);

/* One item of the pins collection: pin i of d as a PuppetPin with its
 * pinIndex and its anchor vertexIndex over the rest source (n_verts ≥ 1). */
void rig_pins_json_item(struct rig_buf *b, const struct rig_puppet_def *d, const double *source,
			size_t n_verts, size_t i);

/* One item of the pinWeights collection: {vertexIndex, weights: [{pinId,
 * weight}, …]}, vertex v's harmonic weights read from the evaluator. */
void rig_pins_json_weights(struct rig_buf *b, const struct rig_puppet *pup, size_t v);

/* {pins: [PuppetPin, …], solver, maxRotationDeg?}: a skin's puppet as
 * layer.skin takes it back. */
void rig_pins_json_settings(struct rig_buf *b, const struct rig_puppet_def *d);

#endif
