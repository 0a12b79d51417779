/* The lists of a binding part's diff (binding_diff.h). Numbers compare
 * exactly (bit for bit, as stored): a diff says what an edit wrote, not what
 * it changed by more than some tolerance.
 */
#include "core/binding_diff.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/array.h"

int rig_runs_add(struct rig_index_runs *r, size_t i)
{
	if (r->count && r->items[r->count - 1].last + 1 == i) {
		r->items[r->count - 1].last = i;
		r->n_indices++;
		return 0;
	}
	if (!rig_array_grow((void **)&r->items, &r->cap, r->count, sizeof *r->items))
		return -1;
	r->items[r->count++] = (struct rig_index_run){i, i};
	r->n_indices++;
	return 0;
}

int rig_runs_add_range(struct rig_index_runs *r, size_t first, size_t end)
{
	if (first >= end)
		return 0;
	if (rig_runs_add(r, first))
		return -1;
	r->n_indices += end - 1 - first;
	r->items[r->count - 1].last = end - 1;
	return 0;
}

int rig_runs_compare(struct rig_index_runs *out, const void *a, size_t na, const void *b, size_t nb,
		     size_t row_bytes)
{
	size_t n = na < nb ? na : nb;
	const unsigned char *pa = a, *pb = b;
	for (size_t i = 0; i < n; i++)
		if (memcmp(pa + i * row_bytes, pb + i * row_bytes, row_bytes) &&
		    rig_runs_add(out, i))
			return -1;
	return rig_runs_add_range(out, n, na > nb ? na : nb);
}

int rig_frames_add(struct rig_frame_list *l, double frame)
{
	if (!rig_array_grow((void **)&l->items, &l->cap, l->count, sizeof *l->items))
		return -1;
	l->items[l->count++] = frame;
	return 0;
}

int rig_ids_add(struct rig_id_list *l, const char *id)
{
	if (!rig_array_grow((void **)&l->items, &l->cap, l->count, sizeof *l->items))
		return -1;
	snprintf(l->items[l->count++], RIG_ID_MAX + 1, "%s", id);
	return 0;
}

static bool same_doubles(const double *a, const double *b, size_t n)
{
	return memcmp(a, b, n * sizeof *a) == 0;
}

/* Everything a key holds besides its frame: value, interpolation, ease. */
static bool same_key(const struct rig_key *a, const struct rig_key *b)
{
	return same_doubles(&a->value, &b->value, 1) && a->interp == b->interp &&
	       same_doubles(a->ease, b->ease, 4);
}

int rig_keys_diff(struct rig_key_diff *out, const struct rig_key *a, size_t na,
		  const struct rig_key *b, size_t nb,
		  bool (*same)(const void *ctx, size_t i, size_t j), const void *ctx)
{
	size_t i = 0, j = 0;
	while (i < na || j < nb) {
		int rc = 0;
		if (j == nb || (i < na && a[i].frame < b[j].frame)) {
			rc = rig_frames_add(&out->removed, a[i++].frame);
		} else if (i == na || b[j].frame < a[i].frame) {
			rc = rig_frames_add(&out->added, b[j++].frame);
		} else {
			bool eq = same ? same(ctx, i, j) && same_key(&a[i], &b[j])
				       : same_key(&a[i], &b[j]);
			if (!eq)
				rc = rig_frames_add(&out->changed, a[i].frame);
			i++;
			j++;
		}
		if (rc)
			return -1;
	}
	return 0;
}

bool rig_key_diff_any(const struct rig_key_diff *k)
{
	return k->added.count || k->removed.count || k->changed.count;
}

bool rig_id_diff_any(const struct rig_id_diff *ids)
{
	return ids->added.count || ids->removed.count || ids->changed.count;
}

bool rig_part_diff_any(const struct rig_part_diff *d)
{
	return d->runs.count || rig_id_diff_any(&d->ids) || rig_key_diff_any(&d->frames) ||
	       d->value.from;
}

void rig_key_diff_release(struct rig_key_diff *k)
{
	free(k->added.items);
	free(k->removed.items);
	free(k->changed.items);
	memset(k, 0, sizeof *k);
}

void rig_id_diff_release(struct rig_id_diff *ids)
{
	free(ids->added.items);
	free(ids->removed.items);
	free(ids->changed.items);
	memset(ids, 0, sizeof *ids);
}

void rig_part_diff_release(struct rig_part_diff *d)
{
	free(d->runs.items);
	rig_id_diff_release(&d->ids);
	rig_key_diff_release(&d->frames);
	memset(d, 0, sizeof *d);
}
