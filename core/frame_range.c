/* Frame ranges and checking layers over them (frame_range.h). */
#include "core/frame_range.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum rig_range_rule rig_range_rules(double from, double to, double step, double max_frames,
				    double *count)
{
	*count = 0;
	if (!(step > 0))
		return RIG_RANGE_STEP;
	if (!(to >= from))
		return RIG_RANGE_ORDER;
	*count = floor((to - from) / step + 1e-9) + 1;
	return *count > max_frames ? RIG_RANGE_LENGTH : RIG_RANGE_OK;
}

bool rig_range_step_caused(double from, double to, double step, double max_frames)
{
	return step < 1 && floor(to - from + 1e-9) + 1 <= max_frames;
}

void rig_frame_faults_release(struct rig_frame_faults *f)
{
	free(f->items);
	f->items = NULL;
	f->count = f->cap = f->total = 0;
	f->oom = false;
}

/* Room for one more held entry, or NULL (counted only). */
static struct rig_frame_fault *hold(struct rig_frame_faults *f)
{
	if (f->count >= f->keep)
		return NULL;
	if (f->count == f->cap) {
		size_t cap = f->cap ? 2 * f->cap : 8;
		if (cap > f->keep)
			cap = f->keep;
		struct rig_frame_fault *grown = realloc(f->items, cap * sizeof *grown);
		if (!grown) {
			f->oom = true;
			return NULL;
		}
		f->items = grown;
		f->cap = cap;
	}
	return &f->items[f->count++];
}

void rig_frame_faults_append(struct rig_frame_faults *dst, struct rig_frame_faults *src)
{
	for (size_t i = 0; i < src->count; i++) {
		struct rig_frame_fault *e = hold(dst);
		if (!e)
			break;
		*e = src->items[i];
	}
	dst->total += src->total;
	dst->oom = dst->oom || src->oom;
	size_t keep = src->keep;
	rig_frame_faults_release(src);
	src->keep = keep;
}

size_t rig_frame_check_span(struct rig_frame_faults *out, struct rig_resolver *r, double *xy,
			    const long *layers, size_t n_layers,
			    const struct rig_frame_range *range, size_t first, size_t count,
			    struct rig_errs *scratch)
{
	size_t found = 0;
	for (size_t p = first; p < first + count && range->n_frames > 0; p++) {
		size_t k = p / range->n_frames, i = p % range->n_frames;
		if (k >= n_layers)
			break;
		rig_errs_init(scratch);
		if (rig_resolver_evaluate(xy, r, layers[k], rig_frame_at(range, i), scratch) == 0)
			continue;
		found++;
		out->total++;
		struct rig_frame_fault *f = hold(out);
		if (!f)
			continue;
		f->layer = k;
		f->frame_index = i;
		f->err = scratch->items[0]; /* count ≥ 1: the list keeps the first 64 */
	}
	return found;
}
