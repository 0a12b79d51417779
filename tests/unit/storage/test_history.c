/* Shot history (docs/history.md): every retained version loads back as it was
 * written, an edit stores only the chunks it changed, and compaction keeps
 * exactly the retained versions readable. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bare_tx.h" /* the backend's: tests/unit/storage/<backend>/ */
#include "core/codes.h"
#include "core/skin.h"
#include "history_fixture.h"
#include "storage/blob.h"
#include "storage/chunks.h"
#include "storage/resources.h"
#include "storage/shot_repo.h"
#include "storage/skin_bytes.h"

static struct rig_tx *fresh(void)
{
	return bare_tx_with_shot();
}

static long long count(struct rig_tx *tx, const char *sql)
{
	return bare_tx_int(tx, sql);
}

/* The skin of layer "m" at version v, arrays included. */
static struct rig_skin_def *skin_at(struct rig_tx *tx, long long v)
{
	struct rig_shot_model m;
	cr_assert_eq(rig_shot_load_at(&m, tx, "s", v), 0);
	struct rig_model_layer *l = rig_shot_model_find(&m, "m");
	cr_assert_not_null(l);
	void *def = NULL;
	cr_assert_eq(rig_shot_read_binding(&def, tx, &m, l), 0);
	rig_shot_model_release(&m);
	return def;
}

Test(history, every_version_of_a_layer_reads_back_as_written)
{
	struct rig_tx *tx = fresh();
	struct rig_shot_model m;
	cr_assert_eq(rig_shot_load(&m, tx, "s"), 0);
	rig_shot_model_add(&m, "a", "first", RIG_LAYER_GROUP, NULL);
	commit(tx, &m); /* v1 */
	struct rig_model_layer *a = rig_shot_model_find(&m, "a");
	free(a->name);
	a->name = strdup("second");
	a->statics.ch[RIG_CH_ROTATION] = 45;
	a->dirty = true;
	rig_shot_model_add(&m, "b", "bee", RIG_LAYER_GROUP, "a");
	commit(tx, &m); /* v2 */
	m.layers[rig_shot_model_index(&m, "a")].deleted = true;
	m.layers[rig_shot_model_index(&m, "b")].deleted = true;
	commit(tx, &m); /* v3 */
	rig_shot_model_add(&m, "a", "again", RIG_LAYER_GROUP, NULL);
	commit(tx, &m); /* v4: the same id created again */
	rig_shot_model_release(&m);

	const char *names[5] = {NULL, "first", "second", NULL, "again"};
	for (long long v = 0; v <= 4; v++) {
		cr_assert_eq(rig_shot_load_at(&m, tx, "s", v), 0, "version %lld", v);
		cr_assert_eq(m.version, v);
		struct rig_model_layer *l = rig_shot_model_find(&m, "a");
		if (!names[v]) {
			cr_assert_null(l, "version %lld has no layer a", v);
		} else {
			cr_assert_not_null(l, "version %lld", v);
			cr_assert_str_eq(l->name, names[v]);
			cr_assert_eq(l->statics.ch[RIG_CH_ROTATION], v == 2 ? 45 : 0);
		}
		cr_assert_eq(rig_shot_model_find(&m, "b") != NULL, v == 2);
		rig_shot_model_release(&m);
	}
	cr_assert_eq(rig_shot_load_at(&m, tx, "s", 5), -RIG_NOT_FOUND, "above the head");
	rig_shot_model_release(&m);
	bare_tx_close(tx);
}

Test(history, one_vertex_of_a_large_skin_writes_one_chunk_and_a_rename_none)
{
	struct rig_tx *tx = fresh();
	struct rig_shot_model m;
	cr_assert_eq(rig_shot_load(&m, tx, "s"), 0);
	struct rig_model_layer *l = rig_shot_model_add(&m, "m", "Mesh", RIG_LAYER_MESH, NULL);
	const size_t n = 5000;
	rig_model_binding_set(l, &rig_binding_skin, strip_skin(n));
	commit(tx, &m); /* v1 */
	long long chunks_v1 = count(tx, "SELECT count(*) FROM binding_chunks");
	cr_assert_eq(chunks_v1, (long long)(1 + rig_chunks_count(n, RIG_CHUNK_VERTS) +
					    rig_chunks_count(n - 2, RIG_CHUNK_TRIS) +
					    rig_chunks_count(n, RIG_CHUNK_WEIGHTS)));

	/* v2: vertex 3000 gets two influences (its list grows). */
	l = rig_shot_model_find(&m, "m");
	cr_assert_eq(rig_shot_load_binding(tx, &m, l), 0);
	struct rig_skin_def *next = calloc(1, sizeof *next);
	cr_assert_eq(rig_skin_def_copy(next, l->binding.def), 0);
	struct rig_skin_influence *inf = malloc((n + 1) * sizeof *inf);
	memcpy(inf, next->influences, 3000 * sizeof *inf);
	inf[3000] = (struct rig_skin_influence){0, 0.25};
	inf[3001] = (struct rig_skin_influence){1, 0.75};
	memcpy(inf + 3002, next->influences + 3001, (n - 3001) * sizeof *inf);
	free(next->influences);
	next->influences = inf;
	for (size_t i = 3001; i <= n; i++)
		next->weight_offsets[i]++;
	rig_model_binding_set(l, &rig_binding_skin, next);
	commit(tx, &m); /* v2 */
	cr_assert_eq(count(tx, "SELECT count(*) FROM binding_chunks WHERE revision = 2"), 1,
		     "one weights chunk");
	cr_assert_eq(count(tx, "SELECT part FROM binding_chunks WHERE revision = 2"),
		     RIG_PART_WEIGHTS);
	cr_assert_leq(count(tx, "SELECT length(data) FROM binding_chunks WHERE revision = 2"),
		      RIG_CHUNK_WEIGHTS * (1 + 8 * 12));

	/* v3: a rename writes no chunk and keeps the binding's revision. */
	l = rig_shot_model_find(&m, "m");
	free(l->name);
	l->name = strdup("Renamed");
	l->dirty = true;
	commit(tx, &m);
	cr_assert_eq(count(tx, "SELECT count(*) FROM binding_chunks WHERE revision = 3"), 0);
	cr_assert_eq(count(tx, "SELECT count(*) FROM binding_history"), 1);
	rig_shot_model_release(&m);

	struct rig_skin_def *v1 = skin_at(tx, 1), *v2 = skin_at(tx, 2), *v3 = skin_at(tx, 3);
	struct rig_skin_def *orig = strip_skin(n);
	cr_assert_eq(v1->n_verts, n);
	cr_assert_eq(memcmp(v1->source, orig->source, 16 * n), 0);
	cr_assert_eq(memcmp(v1->triangles, orig->triangles, 12 * (n - 2)), 0);
	cr_assert_eq(memcmp(v1->weight_offsets, orig->weight_offsets, 4 * (n + 1)), 0);
	cr_assert_eq(v1->weight_offsets[n], n);
	cr_assert_eq(v2->weight_offsets[n], n + 1);
	cr_assert_eq(v2->weight_offsets[3001] - v2->weight_offsets[3000], 2);
	cr_assert_eq(v2->influences[3001].weight, 0.75);
	cr_assert_eq(v2->influences[4000].joint, orig->influences[3999].joint);
	cr_assert_eq(v3->weight_offsets[n], n + 1);
	cr_assert_eq(memcmp(v3->source, orig->source, 16 * n), 0);
	cr_assert_eq(v1->n_joints, 2);
	cr_assert_eq(v3->joints[1].bind.m[4], 1);
	rig_binding_skin.def_free(v1);
	rig_binding_skin.def_free(v2);
	rig_binding_skin.def_free(v3);
	rig_binding_skin.def_free(orig);
	bare_tx_close(tx);
}

Test(history, compaction_keeps_exactly_the_retained_versions)
{
	struct rig_tx *tx = fresh();
	struct rig_shot_model m;
	cr_assert_eq(rig_shot_load(&m, tx, "s"), 0);
	struct rig_model_layer *l = rig_shot_model_add(&m, "m", "v1", RIG_LAYER_MESH, NULL);
	rig_model_binding_set(l, &rig_binding_skin, strip_skin(300));
	commit(tx, &m);                /* v1 */
	for (int v = 2; v <= 6; v++) { /* each version moves one vertex and renames */
		l = rig_shot_model_find(&m, "m");
		cr_assert_eq(rig_shot_load_binding(tx, &m, l), 0);
		struct rig_skin_def *next = calloc(1, sizeof *next);
		cr_assert_eq(rig_skin_def_copy(next, l->binding.def), 0);
		next->source[0] = v;
		rig_model_binding_set(l, &rig_binding_skin, next);
		char name[8];
		snprintf(name, sizeof name, "v%d", v);
		free(l->name);
		l->name = strdup(name);
		l->dirty = true;
		commit(tx, &m);
	}
	rig_shot_model_release(&m);
	bool done = false;
	long long removed = 0;
	cr_assert_eq(rig_history_compact(tx, 10, &done, &removed), 0);
	cr_assert(!done, "nothing lags");
	cr_assert_eq(rig_history_compact(tx, 2, &done, &removed), 0);
	cr_assert(done);
	cr_assert_gt(removed, 0);
	long long oldest = 0, head = 0;
	cr_assert_eq(rig_shot_versions(tx, "s", &oldest, &head), 0);
	cr_assert_eq(oldest, 5);
	cr_assert_eq(head, 6);
	cr_assert_eq(rig_shot_load_at(&m, tx, "s", 4), -RIG_VERSION_COMPACTED);
	rig_shot_model_release(&m);
	for (long long v = 5; v <= 6; v++) {
		cr_assert_eq(rig_shot_load_at(&m, tx, "s", v), 0);
		char name[8];
		snprintf(name, sizeof name, "v%lld", v);
		cr_assert_str_eq(rig_shot_model_find(&m, "m")->name, name);
		rig_shot_model_release(&m);
		struct rig_skin_def *d = skin_at(tx, v);
		cr_assert_eq(d->source[0], (double)v);
		cr_assert_eq(d->source[2 * 299], 299);
		rig_binding_skin.def_free(d);
	}
	/* Only v5's and v6's source chunk 0 remain, beside one of each other chunk. */
	cr_assert_eq(count(tx, "SELECT count(*) FROM binding_chunks WHERE part = 1"), 2);
	cr_assert_eq(count(tx, "SELECT count(*) FROM layer_archive"), 1);
	cr_assert_eq(count(tx, "SELECT count(*) FROM binding_history"), 1);
	cr_assert_eq(rig_history_compact(tx, 2, &done, &removed), 0);
	cr_assert(!done, "compacting again finds nothing");
	bare_tx_close(tx);
}

/* A skin stored before migration 12 (its arrays in its skins row) reads as
 * before, and its first rewrite keeps the old version readable: the row's
 * arrays become chunks of its own revision. */
Test(history, a_skin_from_before_migration_12_stays_readable_across_its_rewrite)
{
	struct rig_tx *tx = bare_tx_add_shot(bare_tx_open_below(12, true));
	const size_t n = 2000;
	struct rig_skin_def *orig = strip_skin(n);
	size_t sizes[5];
	unsigned char *blobs[5] = {rig_blob_joints_encode(&sizes[0], orig),
				   rig_blob_source_encode(&sizes[1], orig),
				   rig_blob_triangles_encode(&sizes[2], orig),
				   rig_blob_offsets_encode(&sizes[3], orig),
				   rig_blob_influences_encode(&sizes[4], orig)};
	/* What the binary before migration 12 wrote at version 1. */
	bare_tx_exec(tx, "INSERT INTO layers(shot_id, id, ord, name, kind, parent_id,"
			 " position_x, position_y, rotation, scale_x, scale_y, pivot_x,"
			 " pivot_y, time_offset, keys) VALUES ('s', 'm', 0, 'Old', 'mesh',"
			 " NULL, 0, 0, 0, 1, 1, 0, 0, 0, x'');"
			 "UPDATE shots SET version = 1");
	const long long counts[3] = {(long long)n, (long long)(n - 2), 2};
	bare_tx_run(tx,
		    "INSERT INTO skins(shot_id, layer_id, n_verts, n_tris, n_joints, joints,"
		    " source, triangles, weight_offsets, influences, revision)"
		    " VALUES ('s', 'm', ?, ?, ?, ?, ?, ?, ?, ?, 1)",
		    counts, 3, (const void *const *)blobs, sizes, 5);
	for (int i = 0; i < 5; i++)
		free(blobs[i]);
	bare_tx_migrate(tx);
	cr_assert_eq(count(tx, "SELECT history_from FROM shots"), 1,
		     "versions before the upgrade are not readable, the head is");

	struct rig_skin_def *head = skin_at(tx, 1);
	cr_assert_eq(memcmp(head->source, orig->source, 16 * n), 0, "the legacy row reads");
	rig_binding_skin.def_free(head);

	/* v2: one vertex moves; v1 must still read as it was. */
	struct rig_shot_model m;
	cr_assert_eq(rig_shot_load(&m, tx, "s"), 0);
	struct rig_model_layer *l = rig_shot_model_find(&m, "m");
	cr_assert_eq(rig_shot_load_binding(tx, &m, l), 0);
	struct rig_skin_def *next = calloc(1, sizeof *next);
	cr_assert_eq(rig_skin_def_copy(next, l->binding.def), 0);
	next->source[2 * 1500] = -7;
	rig_model_binding_set(l, &rig_binding_skin, next);
	commit(tx, &m);
	rig_shot_model_release(&m);
	cr_assert_eq(count(tx, "SELECT count(*) FROM skins WHERE chunked = 0"), 0);
	cr_assert_eq(count(tx, "SELECT count(*) FROM binding_chunks WHERE revision = 2"), 1,
		     "the rewrite itself writes one source chunk");
	struct rig_skin_def *v1 = skin_at(tx, 1), *v2 = skin_at(tx, 2);
	cr_assert_eq(memcmp(v1->source, orig->source, 16 * n), 0);
	cr_assert_eq(memcmp(v1->weight_offsets, orig->weight_offsets, 4 * (n + 1)), 0);
	cr_assert_eq(v1->n_joints, 2);
	cr_assert_eq(v2->source[2 * 1500], -7);
	cr_assert_eq(v2->source[2 * 1499], 1499);
	rig_binding_skin.def_free(v1);
	rig_binding_skin.def_free(v2);
	rig_binding_skin.def_free(orig);
	bare_tx_close(tx);
}

/* Renames layer "x" as the next version. */
/* Renames layer id and commits the next version. */
static void rename_commit(struct rig_tx *tx, struct rig_shot_model *m, const char *id,
			  const char *name)
{
	struct rig_model_layer *l = rig_shot_model_find(m, id);
	free(l->name);
	l->name = strdup(name);
	l->dirty = true;
	commit(tx, m);
}

/* A layer id deleted and created again with the same skin reuses the chunks of
 * its first life (identical bytes are not written twice); compaction keeps
 * them while the new life reads them, and drops every chunk of a layer once
 * no retained version has it. */
Test(history, compaction_keeps_chunks_a_recreated_layer_shares_and_drops_dead_ones)
{
	struct rig_tx *tx = fresh();
	struct rig_shot_model m;
	cr_assert_eq(rig_shot_load(&m, tx, "s"), 0);
	rig_shot_model_add(&m, "x", "x", RIG_LAYER_GROUP, NULL);
	struct rig_model_layer *l = rig_shot_model_add(&m, "m", "m", RIG_LAYER_MESH, NULL);
	rig_model_binding_set(l, &rig_binding_skin, strip_skin(300));
	commit(tx, &m); /* v1 */
	long long chunks = count(tx, "SELECT count(*) FROM binding_chunks");
	m.layers[rig_shot_model_index(&m, "m")].deleted = true;
	commit(tx, &m); /* v2 */
	l = rig_shot_model_add(&m, "m", "m again", RIG_LAYER_MESH, NULL);
	rig_model_binding_set(l, &rig_binding_skin, strip_skin(300));
	commit(tx, &m); /* v3 */
	cr_assert_eq(count(tx, "SELECT count(*) FROM binding_chunks"), chunks,
		     "the same bytes are not stored twice");
	rename_commit(tx, &m, "x", "renamed"); /* v4 */
	rename_commit(tx, &m, "x", "renamed"); /* v5 */
	bool done = false;
	long long removed = 0;
	cr_assert_eq(rig_history_compact(tx, 1, &done, &removed), 0);
	cr_assert(done);
	cr_assert_eq(count(tx, "SELECT count(*) FROM binding_history"), 0);
	cr_assert_eq(count(tx, "SELECT count(*) FROM binding_chunks"), chunks,
		     "the second life still reads the first life's chunks");
	struct rig_skin_def *d = skin_at(tx, 5), *orig = strip_skin(300);
	cr_assert_eq(memcmp(d->source, orig->source, 16 * 300), 0);
	cr_assert_eq(memcmp(d->weight_offsets, orig->weight_offsets, 4 * 301), 0);
	rig_binding_skin.def_free(d);
	rig_binding_skin.def_free(orig);

	m.layers[rig_shot_model_index(&m, "m")].deleted = true;
	commit(tx, &m);                        /* v6 */
	rename_commit(tx, &m, "x", "renamed"); /* v7 */
	cr_assert_eq(rig_history_compact(tx, 1, &done, &removed), 0);
	cr_assert(done);
	cr_assert_eq(count(tx, "SELECT count(*) FROM binding_chunks"), 0,
		     "no retained version has layer m");
	cr_assert_eq(count(tx, "SELECT count(*) FROM layer_archive"), 0);
	rig_shot_model_release(&m);
	cr_assert_eq(rig_shot_load_at(&m, tx, "s", 6), -RIG_VERSION_COMPACTED);
	rig_shot_model_release(&m);
	cr_assert_eq(rig_shot_load_at(&m, tx, "s", 7), 0);
	cr_assert_null(rig_shot_model_find(&m, "m"));
	cr_assert_str_eq(rig_shot_model_find(&m, "x")->name, "renamed");
	rig_shot_model_release(&m);
	bare_tx_close(tx);
}

/* A backlog longer than one step goes in several transactions, each moving the
 * oldest readable version by at most RIG_HISTORY_COMPACT_STEP, and every
 * version still promised reads back as written in between. */
Test(history, a_long_backlog_is_compacted_in_steps)
{
	struct rig_tx *tx = fresh();
	struct rig_shot_model m;
	cr_assert_eq(rig_shot_load(&m, tx, "s"), 0);
	rig_shot_model_add(&m, "g", "n1", RIG_LAYER_GROUP, NULL);
	commit(tx, &m); /* v1 */
	const long long head = 2 * RIG_HISTORY_COMPACT_STEP + 50;
	for (long long v = 2; v <= head; v++) {
		struct rig_model_layer *l = rig_shot_model_find(&m, "g");
		char name[16];
		snprintf(name, sizeof name, "n%lld", v);
		free(l->name);
		l->name = strdup(name);
		l->dirty = true;
		commit(tx, &m);
	}
	rig_shot_model_release(&m);
	long long oldest = 0, top = 0;
	cr_assert_eq(rig_shot_versions(tx, "s", &oldest, &top), 0);
	cr_assert_eq(top, head);
	long long want[] = {oldest + RIG_HISTORY_COMPACT_STEP,
			    oldest + 2 * RIG_HISTORY_COMPACT_STEP, head};
	for (size_t step = 0; step < 3; step++) {
		bool done = false;
		long long removed = 0;
		cr_assert_eq(rig_history_compact(tx, 1, &done, &removed), 0);
		cr_assert(done);
		long long from = 0;
		cr_assert_eq(rig_shot_versions(tx, "s", &from, &top), 0);
		cr_assert_eq(from, want[step], "step %zu: oldest %lld", step, from);
		cr_assert_eq(rig_shot_load_at(&m, tx, "s", from - 1), -RIG_VERSION_COMPACTED);
		rig_shot_model_release(&m);
		cr_assert_eq(rig_shot_load_at(&m, tx, "s", from), 0);
		char name[16];
		snprintf(name, sizeof name, "n%lld", from);
		cr_assert_str_eq(rig_shot_model_find(&m, "g")->name, name);
		rig_shot_model_release(&m);
		cr_assert_eq(count(tx, "SELECT count(*) FROM layer_archive"), head - from,
			     "exactly the rows versions from..head-1 read");
	}
	bool done = true;
	long long removed = 0;
	cr_assert_eq(rig_history_compact(tx, 1, &done, &removed), 0);
	cr_assert(!done, "nothing lags after the last step");
	bare_tx_close(tx);
}

static void put_key(struct rig_model_layer *l, int channel, double frame, double value)
{
	struct rig_key k = {.frame = frame, .value = value, .interp = RIG_INTERP_LINEAR};
	cr_assert_eq(rig_key_list_put(&l->keys[channel], &k), 0);
	l->dirty = true;
}

/* The value of channel c's key at frame in version v of layer "g", or NAN. */
static double key_at(struct rig_tx *tx, long long v, int c, double frame)
{
	struct rig_shot_model m;
	cr_assert_eq(rig_shot_load_at(&m, tx, "s", v), 0);
	const struct rig_key_list *list = &rig_shot_model_find(&m, "g")->keys[c];
	double value = NAN;
	for (size_t i = 0; i < list->count; i++)
		if (list->items[i].frame == frame)
			value = list->items[i].value;
	size_t n = list->count;
	rig_shot_model_release(&m);
	return n ? value : NAN;
}

/* Keys are stored per channel (migration 14): a key edit writes the row of the
 * channel it changed, a rename writes none, and every retained version reads
 * the keys it had, an emptied channel included. */
Test(history, a_key_edit_stores_its_channel_and_a_rename_no_keys)
{
	struct rig_tx *tx = fresh();
	struct rig_shot_model m;
	cr_assert_eq(rig_shot_load(&m, tx, "s"), 0);
	struct rig_model_layer *l = rig_shot_model_add(&m, "g", "g", RIG_LAYER_GROUP, NULL);
	for (int f = 0; f < 100; f++) {
		put_key(l, RIG_CH_POSITION_X, f, f);
		put_key(l, RIG_CH_ROTATION, f, -f);
		put_key(l, RIG_CH_SCALE_Y, f, 1 + f);
	}
	commit(tx, &m); /* v1: three channel rows */
	cr_assert_eq(count(tx, "SELECT count(*) FROM layer_keys"), 3);
	l = rig_shot_model_find(&m, "g");
	free(l->name);
	l->name = strdup("renamed");
	l->dirty = true;
	commit(tx, &m); /* v2: a rename */
	cr_assert_eq(count(tx, "SELECT count(*) FROM layer_keys"), 3, "a rename writes no keys");
	cr_assert_lt(count(tx, "SELECT length(entries) FROM layer_archive WHERE key = (SELECT seq "
			       "FROM shots) * 4294967296 + 2"),
		     200, "the archived row carries no keys (300 of them stored as rows)");
	l = rig_shot_model_find(&m, "g");
	put_key(l, RIG_CH_ROTATION, 50, 1000);
	commit(tx, &m); /* v3: one channel */
	cr_assert_eq(count(tx, "SELECT count(*) FROM layer_keys WHERE revision = 3"), 1);
	cr_assert_eq(count(tx, "SELECT channel FROM layer_keys WHERE revision = 3"),
		     RIG_CH_ROTATION);
	cr_assert_eq(count(tx, "SELECT length(data) FROM layer_keys WHERE revision = 3"),
		     100 * RIG_KEY_RECORD_BYTES);
	l = rig_shot_model_find(&m, "g");
	free(l->keys[RIG_CH_SCALE_Y].items);
	memset(&l->keys[RIG_CH_SCALE_Y], 0, sizeof l->keys[RIG_CH_SCALE_Y]);
	l->dirty = true;
	commit(tx, &m); /* v4: a channel emptied */
	cr_assert_eq(count(tx, "SELECT length(data) FROM layer_keys WHERE revision = 4"), 0);
	rig_shot_model_release(&m);
	for (long long v = 1; v <= 4; v++) {
		cr_assert_eq(key_at(tx, v, RIG_CH_POSITION_X, 7), 7);
		cr_assert_eq(key_at(tx, v, RIG_CH_ROTATION, 50), v >= 3 ? 1000 : -50);
		if (v < 4)
			cr_assert_eq(key_at(tx, v, RIG_CH_SCALE_Y, 99), 100);
		else
			cr_assert(isnan(key_at(tx, v, RIG_CH_SCALE_Y, 99)), "emptied at v4");
		cr_assert(isnan(key_at(tx, v, RIG_CH_PIVOT_X, 0)), "never keyed");
	}
	bare_tx_close(tx);
}

Test(history, the_print_of_no_keys_is_that_of_zero_bytes)
{
	unsigned char print[RIG_KEYS_PRINT_BYTES];
	rig_blob_print(print, NULL, 0);
	cr_assert_arr_eq(print, rig_blob_print_none, sizeof print);
}

/* Saves m as the next version, moves the shot there and settles m without
 * reloading it, as the shot cache keeps a committed model. */
static void commit_kept(struct rig_tx *tx, struct rig_shot_model *m)
{
	long long v = m->version;
	cr_assert_eq(rig_shot_save(tx, m, v + 1), 0);
	cr_assert_eq(rig_shot_set_version(tx, m->id, v, v + 1), 0);
	rig_shot_model_settle(m, v + 1);
}

/* A model kept across saves (the shot cache's) knows what storage holds of
 * each channel from its own last save: it writes a channel whose keys changed
 * since, a channel changed back to older bytes included, and no other. */
Test(history, a_kept_model_writes_exactly_the_channels_changed_since_its_last_save)
{
	struct rig_tx *tx = fresh();
	struct rig_shot_model m;
	cr_assert_eq(rig_shot_load(&m, tx, "s"), 0);
	struct rig_model_layer *l = rig_shot_model_add(&m, "g", "g", RIG_LAYER_GROUP, NULL);
	put_key(l, RIG_CH_POSITION_X, 0, 1);
	put_key(l, RIG_CH_ROTATION, 0, 2);
	commit_kept(tx, &m); /* v1: two rows */
	cr_assert_eq(count(tx, "SELECT count(*) FROM layer_keys"), 2);
	l = rig_shot_model_find(&m, "g");
	put_key(l, RIG_CH_ROTATION, 0, 3);
	commit_kept(tx, &m); /* v2: rotation */
	cr_assert_eq(count(tx, "SELECT count(*) FROM layer_keys WHERE revision = 2"), 1);
	put_key(l, RIG_CH_ROTATION, 0, 2);
	commit_kept(tx, &m); /* v3: rotation back to v1's bytes is still a change */
	cr_assert_eq(count(tx, "SELECT count(*) FROM layer_keys WHERE revision = 3"), 1);
	cr_assert_eq(count(tx, "SELECT channel FROM layer_keys WHERE revision = 3"),
		     RIG_CH_ROTATION);
	l->statics.ch[RIG_CH_SCALE_X] = 2;
	l->dirty = true;
	commit_kept(tx, &m); /* v4: a static value only */
	cr_assert_eq(count(tx, "SELECT count(*) FROM layer_keys WHERE revision = 4"), 0);
	l->keys[RIG_CH_POSITION_X].count = 0; /* emptied in place, as no op does */
	l->dirty = true;
	commit_kept(tx, &m); /* v5 */
	cr_assert_eq(count(tx, "SELECT length(data) FROM layer_keys WHERE revision = 5"), 0);
	rig_shot_model_release(&m);
	double rotation[] = {2, 3, 2, 2, 2};
	for (long long v = 1; v <= 5; v++) {
		cr_assert_eq(key_at(tx, v, RIG_CH_ROTATION, 0), rotation[v - 1]);
		if (v < 5)
			cr_assert_eq(key_at(tx, v, RIG_CH_POSITION_X, 0), 1);
		else
			cr_assert(isnan(key_at(tx, v, RIG_CH_POSITION_X, 0)));
	}
	bare_tx_close(tx);
}

/* A layer created with a deleted layer's id reads none of its keys: its empty
 * channels are stored as empty rows where the old layer had keys. */
Test(history, a_layer_created_again_reads_none_of_the_deleted_ones_keys)
{
	struct rig_tx *tx = fresh();
	struct rig_shot_model m;
	cr_assert_eq(rig_shot_load(&m, tx, "s"), 0);
	put_key(rig_shot_model_add(&m, "g", "g", RIG_LAYER_GROUP, NULL), RIG_CH_ROTATION, 0, 7);
	commit_kept(tx, &m); /* v1 */
	rig_shot_model_find(&m, "g")->deleted = true;
	commit_kept(tx, &m); /* v2: gone */
	rig_shot_model_add(&m, "g", "g", RIG_LAYER_GROUP, NULL);
	commit_kept(tx, &m); /* v3: again, keyless */
	put_key(rig_shot_model_find(&m, "g"), RIG_CH_SCALE_Y, 0, 5);
	commit_kept(tx, &m); /* v4: kept model, new channel */
	rig_shot_model_release(&m);
	cr_assert_eq(key_at(tx, 1, RIG_CH_ROTATION, 0), 7);
	cr_assert(isnan(key_at(tx, 3, RIG_CH_ROTATION, 0)));
	cr_assert(isnan(key_at(tx, 4, RIG_CH_ROTATION, 0)));
	cr_assert_eq(key_at(tx, 4, RIG_CH_SCALE_Y, 0), 5);
	bare_tx_close(tx);
}

/* A layer row from before migration 14 keeps its keys in its own BLOB: it
 * reads as before, and its first rewrite stores its channels as rows while the
 * archived row still reads its BLOB. */
Test(history, a_layer_row_from_before_migration_14_keeps_its_keys_across_a_rewrite)
{
	struct rig_tx *tx = fresh();
	struct rig_shot_model m;
	cr_assert_eq(rig_shot_load(&m, tx, "s"), 0);
	struct rig_model_layer *l = rig_shot_model_add(&m, "g", "g", RIG_LAYER_GROUP, NULL);
	put_key(l, RIG_CH_POSITION_Y, 3, 30);
	put_key(l, RIG_CH_PIVOT_X, 4, 40);
	size_t size = 0;
	unsigned char *blob = rig_blob_keys_encode(&size, l->keys);
	commit(tx, &m); /* v1 */
	/* as an older rigd left it */
	const void *keys_blob = blob;
	bare_tx_run(tx, "UPDATE layers SET keys = ?, keys_rows = 0", NULL, 0, &keys_blob, &size, 1);
	free(blob);
	bare_tx_exec(tx, "DELETE FROM layer_keys");
	rig_shot_model_release(&m);
	cr_assert_eq(rig_shot_load(&m, tx, "s"), 0);
	cr_assert_eq(key_at(tx, 1, RIG_CH_POSITION_Y, 3), 30);
	l = rig_shot_model_find(&m, "g");
	put_key(l, RIG_CH_POSITION_Y, 5, 50);
	commit(tx, &m); /* v2 */
	rig_shot_model_release(&m);
	cr_assert_eq(count(tx, "SELECT count(*) FROM layer_keys"), 2, "both keyed channels");
	cr_assert_gt(count(tx, "SELECT length(entries) FROM layer_archive WHERE key = (SELECT seq "
			       "FROM shots) * 4294967296 + 2"),
		     2 * RIG_KEY_RECORD_BYTES, "the archived row keeps its keys in itself");
	cr_assert_eq(key_at(tx, 1, RIG_CH_PIVOT_X, 4), 40);
	cr_assert(isnan(key_at(tx, 1, RIG_CH_POSITION_Y, 5)));
	cr_assert_eq(key_at(tx, 2, RIG_CH_PIVOT_X, 4), 40);
	cr_assert_eq(key_at(tx, 2, RIG_CH_POSITION_Y, 5), 50);
	bare_tx_close(tx);
}

/* Compaction drops the key rows no retained version reads, keeps the rows a
 * later version shares, and drops every row of a layer gone from history. */
Test(history, compaction_keeps_exactly_the_key_rows_retained_versions_read)
{
	struct rig_tx *tx = fresh();
	struct rig_shot_model m;
	cr_assert_eq(rig_shot_load(&m, tx, "s"), 0);
	struct rig_model_layer *l = rig_shot_model_add(&m, "g", "g", RIG_LAYER_GROUP, NULL);
	put_key(l, RIG_CH_SCALE_X, 0, 1);
	put_key(l, RIG_CH_ROTATION, 0, 0);
	l = rig_shot_model_add(&m, "gone", "gone", RIG_LAYER_GROUP, NULL);
	put_key(l, RIG_CH_ROTATION, 0, 9);
	commit(tx, &m); /* v1 */
	for (int v = 2; v <= 5; v++) {
		put_key(rig_shot_model_find(&m, "g"), RIG_CH_ROTATION, 0, v);
		if (v == 2)
			rig_shot_model_find(&m, "gone")->deleted = true;
		commit(tx, &m);
	}
	rig_shot_model_release(&m);
	cr_assert_eq(count(tx, "SELECT count(*) FROM layer_keys"), 7);
	bool done = false;
	long long removed = 0;
	cr_assert_eq(rig_history_compact(tx, 2, &done, &removed), 0); /* keeps v4, v5 */
	cr_assert(done);
	/* g: scale.x of v1 (shared by v4 and v5), rotation of v4 and v5; gone: none */
	cr_assert_eq(count(tx, "SELECT count(*) FROM layer_keys WHERE layer_id = 'gone'"), 0);
	cr_assert_eq(count(tx, "SELECT count(*) FROM layer_keys WHERE channel = 3"), 1);
	cr_assert_eq(count(tx, "SELECT min(revision) FROM layer_keys WHERE channel = 2"), 4);
	cr_assert_eq(count(tx, "SELECT count(*) FROM layer_keys"), 3);
	for (long long v = 4; v <= 5; v++) {
		cr_assert_eq(key_at(tx, v, RIG_CH_ROTATION, 0), (double)v);
		cr_assert_eq(key_at(tx, v, RIG_CH_SCALE_X, 0), 1);
	}
	bare_tx_close(tx);
}

/* A layer a batch marks changed but leaves as storage holds it (a pose to the
 * values it has) keeps its row and the version that wrote it: no archive
 * entry, no rewrite, and every version reads the same. Any difference in its
 * row, a -0.0 for a 0.0 included, or in its keys writes it. */
Test(history, a_layer_written_as_it_is_stored_is_left_alone)
{
	struct rig_tx *tx = fresh();
	struct rig_shot_model m;
	cr_assert_eq(rig_shot_load(&m, tx, "s"), 0);
	rig_shot_model_add(&m, "g", "g", RIG_LAYER_GROUP, NULL)->statics.ch[RIG_CH_ROTATION] = 0.5;
	commit(tx, &m); /* v1 */
	rig_shot_model_find(&m, "g")->dirty = true;
	commit(tx, &m); /* v2: the same values */
	cr_assert_eq(count(tx, "SELECT since FROM layers WHERE id = 'g'"), 1);
	cr_assert_eq(count(tx, "SELECT count(*) FROM layer_archive WHERE key = (SELECT seq FROM "
			       "shots) * 4294967296 + 2"),
		     0);
	for (long long v = 1; v <= 2; v++) {
		struct rig_shot_model at;
		cr_assert_eq(rig_shot_load_at(&at, tx, "s", v), 0);
		cr_assert_eq(rig_shot_model_find(&at, "g")->statics.ch[RIG_CH_ROTATION], 0.5);
		rig_shot_model_release(&at);
	}

	struct rig_model_layer *l = rig_shot_model_find(&m, "g");
	l->statics.ch[RIG_CH_POSITION_X] = -0.0; /* stored: 0.0 */
	l->dirty = true;
	commit(tx, &m); /* v3 */
	cr_assert_eq(count(tx, "SELECT since FROM layers WHERE id = 'g'"), 3);
	cr_assert_eq(count(tx, "SELECT count(*) FROM layer_archive WHERE key = (SELECT seq FROM "
			       "shots) * 4294967296 + 3"),
		     1);

	put_key(rig_shot_model_find(&m, "g"), RIG_CH_SCALE_X, 2, 7);
	commit(tx, &m); /* v4: keys only */
	cr_assert_eq(count(tx, "SELECT since FROM layers WHERE id = 'g'"), 4);
	cr_assert(isnan(key_at(tx, 3, RIG_CH_SCALE_X, 2)));
	cr_assert_eq(key_at(tx, 4, RIG_CH_SCALE_X, 2), 7);

	l = rig_shot_model_find(&m, "g");
	free(l->name);
	l->name = strdup("g"); /* the same name again */
	l->dirty = true;
	commit(tx, &m); /* v5 */
	cr_assert_eq(count(tx, "SELECT since FROM layers WHERE id = 'g'"), 4);
	cr_assert_eq(key_at(tx, 5, RIG_CH_SCALE_X, 2), 7);
	rig_shot_model_release(&m);
	bare_tx_close(tx);
}

static int count_changes(void *ctx, long long version, const char *layer_id)
{
	(void)version;
	*(int *)ctx += layer_id && strcmp(layer_id, "g") == 0;
	return 0;
}

/* A layer_archive key holds 2^32 versions a shot; the versions past them keep
 * their rows in layer_history, and every read, the change list and
 * compaction go on across the edge. */
Test(history, versions_past_an_archive_key_keep_their_rows_in_layer_history)
{
	struct rig_tx *tx = fresh();
	bare_tx_exec(tx, "UPDATE shots SET version = 4294967293, history_from = 4294967293");
	struct rig_shot_model m;
	cr_assert_eq(rig_shot_load(&m, tx, "s"), 0);
	rig_shot_model_add(&m, "g", "v94", RIG_LAYER_GROUP, NULL);
	commit(tx, &m);                    /* 2^32 - 2 */
	rename_commit(tx, &m, "g", "v95"); /* 2^32 - 1: the last version a key holds */
	rename_commit(tx, &m, "g", "v96"); /* 2^32 */
	rename_commit(tx, &m, "g", "v97"); /* 2^32 + 1 */
	cr_assert_eq(m.version, 4294967297LL);
	cr_assert_eq(count(tx, "SELECT count(*) FROM layer_archive"), 2);
	cr_assert_eq(count(tx, "SELECT count(*) FROM layer_history"), 2);
	for (long long v = 4294967294LL; v <= 4294967297LL; v++) {
		struct rig_shot_model at;
		cr_assert_eq(rig_shot_load_at(&at, tx, "s", v), 0);
		char name[8];
		snprintf(name, sizeof name, "v%lld", v % 100);
		cr_assert_str_eq(rig_shot_model_find(&at, "g")->name, name, "version %lld", v);
		rig_shot_model_release(&at);
	}
	int changes = 0;
	cr_assert_eq(
		rig_history_changes(tx, "s", 4294967293LL, 4294967297LL, count_changes, &changes),
		0);
	cr_assert_eq(changes, 4, "each version once");
	bool done = false;
	long long removed = 0;
	cr_assert_eq(rig_history_compact(tx, 1, &done, &removed), 0);
	cr_assert(done);
	cr_assert_eq(count(tx, "SELECT count(*) FROM layer_archive") +
			     count(tx, "SELECT count(*) FROM layer_history"),
		     0);
	rig_shot_model_release(&m);
	cr_assert_eq(rig_shot_load_at(&m, tx, "s", 4294967297LL), 0);
	cr_assert_str_eq(rig_shot_model_find(&m, "g")->name, "v97");
	rig_shot_model_release(&m);
	bare_tx_close(tx);
}

/* A shot's archive values go with the shot (layer_archive's key is no
 * foreign key: migration 20's trigger). */
Test(history, deleting_a_shot_drops_its_archive)
{
	struct rig_tx *tx = fresh();
	struct rig_shot_model m;
	cr_assert_eq(rig_shot_load(&m, tx, "s"), 0);
	rig_shot_model_add(&m, "g", "g", RIG_LAYER_GROUP, NULL);
	commit(tx, &m);
	rename_commit(tx, &m, "g", "h");
	rig_shot_model_release(&m);
	cr_assert_eq(count(tx, "SELECT count(*) FROM layer_archive"), 2);
	cr_assert_eq(rig_shot_delete(tx, "s", -1), 0);
	cr_assert_eq(count(tx, "SELECT count(*) FROM layer_archive"), 0);
	bare_tx_close(tx);
}
