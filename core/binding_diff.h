/* What one part of a binding's diff finds (GET …/diff, issue 15): runs of
 * changed indices (vertices, triangles, a skin's weight lists), or ids (a
 * skin's joints) and frames (a mesh binding's keys) added, removed or
 * changed, or a setting's two values (a skin's method); and the list helpers
 * every kind's part compares fill them with.
 *
 * A kind names its parts in its row (struct rig_binding_part, binding.h);
 * comparing two shots is api/eval/model_diff.h, their JSON and paging
 * api/handlers/shot_diff.c. Pure data, no I/O; every list is owned by the
 * struct holding it.
 */
#ifndef RIG_BINDING_DIFF_H
#define RIG_BINDING_DIFF_H

#include <stdbool.h>
#include <stddef.h>

#include "core/err.h"
#include "core/keys.h"

/* An inclusive run of indices: first ≤ last. */
struct rig_index_run {
	size_t first, last;
};

/* Indices sorted ascending, adjacent ones merged into runs. Owned. */
struct rig_index_runs {
	struct rig_index_run *items;
	size_t count, cap;
	size_t n_indices; /* Σ (last − first + 1) */
};

/* Frames of one key list that were added, removed or changed (value,
 * interpolation or ease), each ascending. Owned. */
struct rig_frame_list {
	double *items;
	size_t count, cap;
};
struct rig_key_diff {
	struct rig_frame_list added, removed, changed;
};

/* Ids (of joints, constraints), in the order found. Owned. */
struct rig_id_list {
	char (*items)[RIG_ID_MAX + 1];
	size_t count, cap;
};
struct rig_id_diff {
	struct rig_id_list added, removed, changed;
};

/* A setting of a whole binding (a skin's method) that differs: its names at
 * the two versions, static strings (borrowed), both NULL when the same. */
struct rig_value_diff {
	const char *from, *to;
};

/* How a part reports, and so how the diff shows it. */
enum rig_diff_shape {
	RIG_DIFF_RUNS,   /* changed indices as runs: {total, <list>: [runs]}, paged per run */
	RIG_DIFF_IDS,    /* {added, removed, changed} ids */
	RIG_DIFF_FRAMES, /* {added, removed, changed} frames */
	RIG_DIFF_VALUE,  /* {from, to} names */
};

/* What one part of two definitions found; the member its shape names is
 * filled, the others stay empty. Zeroed means nothing found. */
struct rig_part_diff {
	struct rig_index_runs runs;  /* RIG_DIFF_RUNS */
	struct rig_id_diff ids;      /* RIG_DIFF_IDS */
	struct rig_key_diff frames;  /* RIG_DIFF_FRAMES */
	struct rig_value_diff value; /* RIG_DIFF_VALUE */
};

/* Adds index i, which must be above every index added before. Returns 0, or
 * -1 when out of memory (r unchanged). */
int rig_runs_add(struct rig_index_runs *r, size_t i);

/* Adds the indices [first, end), all above every index added before. Returns
 * 0 or -1 when out of memory. */
int rig_runs_add_range(struct rig_index_runs *r, size_t first, size_t end);

/* Adds to out the rows (row_bytes each, compared bit for bit) that differ
 * between a (na rows) and b (nb rows), and those that exist in one only.
 * Returns 0 or -1 when out of memory. */
int rig_runs_compare(struct rig_index_runs *out, const void *a, size_t na, const void *b, size_t nb,
		     size_t row_bytes);

/* Appends frame, or id (cut at RIG_ID_MAX bytes). Return 0 or -1 when out of
 * memory. */
int rig_frames_add(struct rig_frame_list *l, double frame);
int rig_ids_add(struct rig_id_list *l, const char *id);

/* Merges two key lists sorted by frame into out: frames in one list only are
 * added or removed; a frame in both is changed when its keys differ in value,
 * interpolation or ease (bit for bit), or when same (may be NULL) says keys i
 * of a and j of b differ in what they hold besides. Returns 0 or -1 when out
 * of memory. */
int rig_keys_diff(struct rig_key_diff *out, const struct rig_key *a, size_t na,
		  const struct rig_key *b, size_t nb,
		  bool (*same)(const void *ctx, size_t i, size_t j), const void *ctx);

/* True when k, ids or d lists anything. */
bool rig_key_diff_any(const struct rig_key_diff *k);
bool rig_id_diff_any(const struct rig_id_diff *ids);
bool rig_part_diff_any(const struct rig_part_diff *d);

/* Free the lists and zero them; safe on zeroed ones. */
void rig_key_diff_release(struct rig_key_diff *k);
void rig_id_diff_release(struct rig_id_diff *ids);
void rig_part_diff_release(struct rig_part_diff *d);

#endif
