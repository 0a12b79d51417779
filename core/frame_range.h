/* Frame ranges: the rules a range {from, to, step} must follow (one place for
 * the frame-range route, the check route and an edit's checkFrames), and
 * checking bound mesh layers over a range with the resolver.
 *
 * Frame i of a range is from + i·step (multiplied, never accumulated, so a
 * frame does not depend on where a range or a chunk of it starts). Checking a
 * layer at a frame is evaluating it exactly as the frame routes do
 * (rig_resolver_evaluate, the mesh layer's local space): the binding's own
 * result checks (finite, no collapsed or flipped triangle) decide. Pure: the
 * callers run spans of a range on whatever threads they have.
 */
#ifndef RIG_FRAME_RANGE_H
#define RIG_FRAME_RANGE_H

#include <stddef.h>

#include "core/err.h"
#include "core/rig.h"

/* Which rule a range breaks. */
enum rig_range_rule {
	RIG_RANGE_OK,
	RIG_RANGE_STEP,   /* step is not greater than 0 */
	RIG_RANGE_ORDER,  /* to is before from */
	RIG_RANGE_LENGTH, /* more than the limit's frames */
};

/* Decides the rules of from..to by step (finite numbers) against max_frames:
 * step > 0, to ≥ from, and at most max_frames frames (from, from + step, …
 * up to to, with a hair of slack so 0.1-style steps reach to). Sets *count to
 * the frame count (also when too long, for the message; it may exceed every
 * integer) and returns the first rule broken, or RIG_RANGE_OK. */
enum rig_range_rule rig_range_rules(double from, double to, double step, double max_frames,
				    double *count);

/* True when the same from..to at step 1 would fit max_frames: a range too
 * long only because of a small step, so a detail can name step. */
bool rig_range_step_caused(double from, double to, double step, double max_frames);

/* A range that passed the rules. */
struct rig_frame_range {
	double from, step;
	size_t n_frames;
};

static inline double rig_frame_at(const struct rig_frame_range *r, size_t i)
{
	return r->from + (double)i * r->step;
}

/* One failing (layer, frame): the first violation its evaluation recorded. */
struct rig_frame_fault {
	size_t layer;       /* position in the caller's list of layers */
	size_t frame_index; /* frame = rig_frame_at(range, frame_index) */
	struct rig_err err; /* code, detail, triangle_index…, layer_id and frame set */
};

/* The faults of one span, in order; owned (rig_frame_faults_release). keep
 * bounds the entries held; total counts every fault found. */
struct rig_frame_faults {
	struct rig_frame_fault *items;
	size_t count, cap;
	size_t keep;  /* entries held at most; 0 holds none (only counts) */
	size_t total; /* every fault found */
	bool oom;     /* an entry could not be held for want of memory */
};

/* Frees the held entries and zeroes the counts (keep stays). */
void rig_frame_faults_release(struct rig_frame_faults *f);

/* Moves src's entries after dst's (while dst may keep more) and adds its
 * total; src is emptied. */
void rig_frame_faults_append(struct rig_frame_faults *dst, struct rig_frame_faults *src);

/* Checks the layers (scene indices of bound mesh layers whose evaluators are
 * set, n_layers of them) over flat positions first … first + count − 1 of
 * range, position p being layer p / n_frames at frame index p % n_frames, so
 * faults come in layer order, then frame order. r is the caller's resolver
 * over the layers' scene, xy room for the largest layer (2 · n_verts
 * doubles), scratch a list to evaluate into (emptied per frame). Each fault
 * goes to out. Returns the faults found. */
size_t rig_frame_check_span(struct rig_frame_faults *out, struct rig_resolver *r, double *xy,
			    const long *layers, size_t n_layers,
			    const struct rig_frame_range *range, size_t first, size_t count,
			    struct rig_errs *scratch);

#endif
