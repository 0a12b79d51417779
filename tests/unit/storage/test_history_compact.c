/* Compaction (rig_history_compact; docs/history.md "Retention and
 * compaction") over a long seeded history of one shot: layers created, edited,
 * deleted and created again under the same id, keys put and channels emptied,
 * renames, a skin (its own table) and a mesh binding (the generic one) moved,
 * grown and shrunk. Each compaction step must delete
 * exactly the rows the documented rule deletes — worked out here from every
 * row of the store, not by the statements that apply it — and every version
 * still retained must read back as it was written. */
#include <criterion/criterion.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bare_tx.h" /* the backend's: tests/unit/storage/<backend>/ */
#include "core/codes.h"
#include "core/mesh_binding.h"
#include "core/skin.h"
#include "history_fixture.h"
#include "storage/shot_repo.h"

/* Layers "a" … "f": four groups, "e" bound to a skin and "f" to a mesh
 * binding; the bound ones are drawn twice as often. */
#define N_IDS 6
#define N_VERSIONS 720
#define MAX_ROWS 20000

struct rng {
	unsigned long long s;
};

/* A draw in [0, n) (Knuth's MMIX generator, high bits). */
static unsigned draw(struct rng *r, unsigned n)
{
	r->s = r->s * 6364136223846793005ull + 1442695040888963407ull;
	return (unsigned)((r->s >> 33) % n);
}

/* FNV-1a over n bytes, going on from h. */
static unsigned long long mix(unsigned long long h, const void *p, size_t n)
{
	const unsigned char *b = p;
	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 1099511628211ull;
	return h;
}

static unsigned long long mix_skin(unsigned long long h, const struct rig_skin_def *d)
{
	h = mix(h, &d->n_verts, sizeof d->n_verts);
	h = mix(h, d->source, 2 * d->n_verts * sizeof *d->source);
	h = mix(h, d->triangles, 3 * d->n_tris * sizeof *d->triangles);
	h = mix(h, d->weight_offsets, (d->n_verts + 1) * sizeof *d->weight_offsets);
	for (uint32_t i = 0; i < d->weight_offsets[d->n_verts]; i++) {
		h = mix(h, &d->influences[i].joint, sizeof d->influences[i].joint);
		h = mix(h, &d->influences[i].weight, sizeof d->influences[i].weight);
	}
	for (size_t j = 0; j < d->n_joints; j++) {
		h = mix(h, d->joints[j].id, strlen(d->joints[j].id) + 1);
		h = mix(h, d->joints[j].bind.m, sizeof d->joints[j].bind.m);
	}
	return h;
}

static unsigned long long mix_mesh(unsigned long long h, const struct rig_mesh_def *d)
{
	h = mix(h, &d->n_verts, sizeof d->n_verts);
	h = mix(h, d->source, 2 * d->n_verts * sizeof *d->source);
	return mix(h, d->triangles, 3 * d->n_tris * sizeof *d->triangles);
}

/* A mesh binding of the strip's shape, n vertices (n = 2,500: three 16 KiB
 * chunks of its mesh string), vertex `moved` moved by one. */
static struct rig_mesh_def *strip_mesh(size_t n, size_t moved)
{
	struct rig_skin_def *skin = strip_skin(n);
	struct rig_mesh_def *d = calloc(1, sizeof *d);
	d->source = skin->source;
	d->n_verts = n;
	d->triangles = skin->triangles;
	d->n_tris = skin->n_tris;
	d->source[2 * moved] += 1;
	skin->source = NULL;
	skin->triangles = NULL;
	rig_binding_skin.def_free(skin);
	return d;
}

/* All that version v of the shot holds: per layer id its name, kind, static
 * values, keys and whole skin. */
static unsigned long long digest_at(struct rig_tx *tx, long long v)
{
	struct rig_shot_model m;
	cr_assert_eq(rig_shot_load_at(&m, tx, "s", v), 0, "version %lld", v);
	unsigned long long h = 14695981039346656037ull;
	for (char id[2] = "a"; id[0] < 'a' + N_IDS; id[0]++) {
		struct rig_model_layer *l = rig_shot_model_find(&m, id);
		h = mix(h, id, 1);
		if (!l)
			continue;
		h = mix(h, l->name, strlen(l->name) + 1);
		h = mix(h, &l->kind, sizeof l->kind);
		h = mix(h, l->statics.ch, sizeof l->statics.ch);
		for (int c = 0; c < RIG_CH_COUNT; c++) {
			h = mix(h, &l->keys[c].count, sizeof l->keys[c].count);
			for (size_t k = 0; k < l->keys[c].count; k++) {
				h = mix(h, &l->keys[c].items[k].frame, sizeof(double));
				h = mix(h, &l->keys[c].items[k].value, sizeof(double));
			}
		}
		if (l->binding.type) {
			void *def = NULL;
			cr_assert_eq(rig_shot_read_binding(&def, tx, &m, l), 0, "version %lld", v);
			h = l->binding.type == &rig_binding_skin ? mix_skin(h, def)
								 : mix_mesh(h, def);
			l->binding.type->def_free(def);
		}
	}
	rig_shot_model_release(&m);
	return h;
}

/* A new binding for layer "e" (a skin) or "f" (a mesh binding), of one of
 * two sizes: the larger has more chunks. */
static void bind(struct rig_model_layer *l, struct rng *r)
{
	bool large = draw(r, 2);
	if (l->id[0] == 'e')
		rig_model_binding_set(l, &rig_binding_skin, strip_skin(large ? 300 : 100));
	else
		rig_model_binding_set(l, &rig_binding_mesh,
				      strip_mesh(large ? 2500 : 300, draw(r, large ? 2500 : 300)));
}

/* One random change to one random layer of m. */
static void edit(struct rig_tx *tx, struct rig_shot_model *m, struct rng *r)
{
	unsigned pick = draw(r, N_IDS + 2);
	char id[2] = {(char)('a' + (pick < N_IDS ? pick : pick - 2)), 0};
	bool bound = id[0] >= 'a' + N_IDS - 2;
	struct rig_model_layer *l = rig_shot_model_find(m, id);
	if (l && l->deleted)
		return;
	if (!l) { /* created, or created again */
		l = rig_shot_model_add(m, id, id, bound ? RIG_LAYER_MESH : RIG_LAYER_GROUP, NULL);
		if (bound)
			bind(l, r);
		return;
	}
	struct rig_key key = {
		.frame = draw(r, 4), .value = draw(r, 1000), .interp = RIG_INTERP_LINEAR};
	/* rotation half the time: the same channel edited in versions close together */
	struct rig_key_list *list = &l->keys[draw(r, 2) ? RIG_CH_ROTATION : draw(r, RIG_CH_COUNT)];
	char name[16];
	struct rig_skin_def *next;
	switch (draw(r, bound ? 9 : 4)) { /* a bound layer's binding changes most */
	case 0:
		cr_assert_eq(rig_key_list_put(list, &key), 0);
		break;
	case 1: /* a channel emptied */
		free(list->items);
		memset(list, 0, sizeof *list);
		break;
	case 2:
		snprintf(name, sizeof name, "n%u", draw(r, 100));
		free(l->name);
		l->name = strdup(name);
		break;
	case 3:
		l->deleted = true;
		return;
	case 4:
	case 5:
	case 6: /* one vertex moves: one chunk */
		if (l->binding.type == &rig_binding_mesh) {
			size_t n = l->binding.n_verts > 300 ? 2500 : 300; /* its size */
			rig_model_binding_set(l, &rig_binding_mesh,
					      strip_mesh(n, draw(r, (unsigned)n)));
			return;
		}
		cr_assert_eq(rig_shot_load_binding(tx, m, l), 0);
		next = calloc(1, sizeof *next);
		cr_assert_eq(rig_skin_def_copy(next, l->binding.def), 0);
		next->source[2 * draw(r, (unsigned)next->n_verts)] += 1;
		rig_model_binding_set(l, &rig_binding_skin, next);
		return;
	default:
		bind(l, r);
		return;
	}
	l->dirty = true;
}

/* The rowids, in order, of the rows (rowid, layer, group, revision) the rule
 * keeps, given every (layer, revision) a retained head or history row still
 * refers to: a row stays while its layer has such a row and no newer row of
 * its group (a layer's channel, a binding's part and chunk index) has a
 * revision at or below the layer's oldest one (minrev). */
static size_t rule_keeps(long long *out, const long long *rows, size_t n, const long long *revs,
			 size_t n_revs)
{
	size_t kept = 0;
	for (size_t i = 0; i < n; i++) {
		const long long *row = rows + 4 * i;
		bool live = false;
		long long minrev = 0;
		for (size_t j = 0; j < n_revs; j++) {
			if (revs[2 * j] == row[1] && (!live || revs[2 * j + 1] < minrev)) {
				minrev = revs[2 * j + 1];
				live = true;
			}
		}
		bool hidden = false;
		for (size_t j = 0; live && !hidden && j < n; j++) {
			const long long *o = rows + 4 * j;
			hidden =
				o[1] == row[1] && o[2] == row[2] && o[3] > row[3] && o[3] <= minrev;
		}
		if (live && !hidden)
			out[kept++] = row[0];
	}
	return kept;
}

struct kind_of_rows {
	const char *rows_sql; /* rowid, layer, group, revision */
	const char *revs_fmt; /* layer, revision of the rows referring to them, %lld the floor */
	bool archived;        /* layer_archive entries refer to them too */
};

static const struct kind_of_rows key_rows = {
	"SELECT rowid, unicode(layer_id), channel, revision FROM layer_keys ORDER BY rowid",
	"SELECT unicode(id), since FROM layers UNION ALL SELECT unicode(layer_id), valid_from"
	" FROM layer_history WHERE valid_to > %lld",
	true};
static const struct kind_of_rows chunk_rows = {
	"SELECT rowid, unicode(layer_id), part * 1000000 + idx, revision FROM binding_chunks"
	" ORDER BY rowid",
	"SELECT unicode(layer_id), revision FROM skins UNION ALL SELECT unicode(layer_id), revision"
	" FROM bindings UNION ALL SELECT unicode(layer_id), valid_from FROM binding_history"
	" WHERE valid_to > %lld",
	false};

struct expected {
	long long *kept;
	size_t n_kept, n_before;
};

static void expect_rule(struct expected *out, struct rig_tx *tx, const struct kind_of_rows *k,
			long long floor)
{
	long long *rows = malloc(4 * MAX_ROWS * sizeof *rows);
	long long *revs = malloc(2 * MAX_ROWS * sizeof *revs);
	char sql[512];
	snprintf(sql, sizeof sql, k->revs_fmt, floor);
	out->n_before = bare_tx_rows(tx, k->rows_sql, 4, rows, MAX_ROWS);
	size_t n_revs = bare_tx_rows(tx, sql, 2, revs, MAX_ROWS);
	if (k->archived) {
		long long *entries = malloc(4 * MAX_ROWS * sizeof *entries);
		size_t n = bare_tx_archive(tx, 1, floor, entries, MAX_ROWS);
		for (size_t i = 0; i < n; i++)
			if (entries[4 * i + 1] >= 0) {
				cr_assert_lt(n_revs, MAX_ROWS);
				revs[2 * n_revs] = entries[4 * i];
				revs[2 * n_revs++ + 1] = entries[4 * i + 1];
			}
		free(entries);
	}
	out->kept = malloc((out->n_before + 1) * sizeof *out->kept);
	out->n_kept = rule_keeps(out->kept, rows, out->n_before, revs, n_revs);
	free(rows);
	free(revs);
}

static void check_rule(struct expected *e, struct rig_tx *tx, const struct kind_of_rows *k,
		       long long floor)
{
	long long *rows = malloc(4 * MAX_ROWS * sizeof *rows);
	size_t n = bare_tx_rows(tx, k->rows_sql, 4, rows, MAX_ROWS);
	cr_assert_eq(n, e->n_kept, "floor %lld: %zu rows kept, the rule keeps %zu of %zu", floor, n,
		     e->n_kept, e->n_before);
	for (size_t i = 0; i < n; i++)
		cr_assert_eq(rows[4 * i], e->kept[i],
			     "floor %lld: row %lld kept, the rule keeps %lld", floor, rows[4 * i],
			     e->kept[i]);
	free(rows);
	free(e->kept);
}

/* The history rows and archive entries valid past version above. */
static long long history_rows(struct rig_tx *tx, long long above)
{
	char sql[256];
	snprintf(sql, sizeof sql,
		 "SELECT (SELECT count(*) FROM layer_history WHERE valid_to > %lld)"
		 " + (SELECT count(*) FROM binding_history WHERE valid_to > %lld)",
		 above, above);
	long long *entries = malloc(4 * MAX_ROWS * sizeof *entries);
	long long n = (long long)bare_tx_archive(tx, 1, above, entries, MAX_ROWS);
	free(entries);
	return bare_tx_int(tx, sql) + n;
}

static long long all_rows(struct rig_tx *tx)
{
	return history_rows(tx, -1) + bare_tx_int(tx, "SELECT (SELECT count(*) FROM layer_keys)"
						      " + (SELECT count(*) FROM binding_chunks)");
}

/* Compacts to keep versions step by step, checking each step against the rule
 * and every retained version against digests. Returns the steps taken. */
static int compact_checked(struct rig_tx *tx, long long keep, const unsigned long long *digests)
{
	for (int steps = 0;; steps++) {
		long long from = 0, head = 0;
		cr_assert_eq(rig_shot_versions(tx, "s", &from, &head), 0);
		long long floor = head - keep + 1;
		if (floor > from + RIG_HISTORY_COMPACT_STEP)
			floor = from + RIG_HISTORY_COMPACT_STEP;
		struct expected keys, chunks;
		expect_rule(&keys, tx, &key_rows, floor);
		expect_rule(&chunks, tx, &chunk_rows, floor);
		long long before = all_rows(tx), history = history_rows(tx, floor);
		bool done = false;
		long long removed = 0;
		cr_assert_eq(rig_history_compact(tx, keep, &done, &removed), 0);
		if (!done) {
			cr_assert_lt(head - from, keep, "a shot that lags was not compacted");
			cr_assert_eq(removed, 0);
			free(keys.kept);
			free(chunks.kept);
			return steps;
		}
		cr_assert_eq(rig_shot_versions(tx, "s", &from, &head), 0);
		cr_assert_eq(from, floor);
		cr_assert_eq(history_rows(tx, -1), history, "exactly the history rows above %lld",
			     floor);
		check_rule(&keys, tx, &key_rows, floor);
		check_rule(&chunks, tx, &chunk_rows, floor);
		cr_assert_eq(removed, before - all_rows(tx), "the count of rows removed");
		struct rig_shot_model m;
		cr_assert_eq(rig_shot_load_at(&m, tx, "s", from - 1), -RIG_VERSION_COMPACTED);
		rig_shot_model_release(&m);
		for (long long v = from; v <= head; v++)
			cr_assert_eq(digest_at(tx, v), digests[v],
				     "version %lld after the step to %lld", v, floor);
	}
}

/* The seeded history, compacted as it grows; with legacy_until > 0, the
 * versions up to it are rewritten as layer_history rows then (a database
 * archived by schema versions 12-19, archiving the new way since). */
static void seeded_history(long long legacy_until)
{
	struct rig_tx *tx = bare_tx_with_shot();
	unsigned long long *digests = calloc(N_VERSIONS + 1, sizeof *digests);
	struct rng r = {20240531};
	struct rig_shot_model m;
	cr_assert_eq(rig_shot_load(&m, tx, "s"), 0);
	digests[0] = digest_at(tx, 0);
	int steps = 0;
	for (long long v = 1; v <= N_VERSIONS; v++) {
		for (unsigned e = 1 + draw(&r, 3); e > 0; e--)
			edit(tx, &m, &r);
		commit(tx, &m);
		if (v == legacy_until) {
			long long *entries = malloc(4 * MAX_ROWS * sizeof *entries);
			size_t n = bare_tx_archive(tx, 1, -1, entries, MAX_ROWS), rows = 0;
			for (size_t i = 0; i < n; i++)
				rows += entries[4 * i + 1] >= 0;
			free(entries);
			bare_tx_archive_to_history(tx, 1);
			cr_assert_gt(rows, 100);
			cr_assert_eq(bare_tx_int(tx, "SELECT count(*) FROM layer_history"),
				     (long long)rows);
			for (long long k = 0; k < v; k++)
				cr_assert_eq(digest_at(tx, k), digests[k], "version %lld as rows",
					     k);
		}
		digests[v] = digest_at(tx, v);
		/* First a backlog of several steps, then short windows of all sizes. */
		if (v == 560)
			steps += compact_checked(tx, 20, digests);
		else if (v > 560 && v % 3 == 0)
			steps += compact_checked(tx, (long long[]){1, 2, 3, 5, 30}[draw(&r, 5)],
						 digests);
	}
	rig_shot_model_release(&m);
	steps += compact_checked(tx, 1, digests);
	cr_assert_geq(steps, 20, "the history was compacted in %d steps", steps);
	cr_assert_eq(bare_tx_int(tx, "SELECT count(*) FROM layer_history"), 0);
	free(digests);
	bare_tx_close(tx);
}

Test(history_compact, every_step_deletes_exactly_what_the_rule_deletes)
{
	seeded_history(0);
}

/* The same across both forms of history: the steps that retire rows of
 * layer_history, then both, then archive values alone. */
Test(history_compact, every_step_deletes_exactly_what_the_rule_deletes_across_both_forms)
{
	seeded_history(400);
}

/* The value of the one rotation key of layer "g" at version v, or -1 when it
 * has none (or no layer g). */
static double rotation_at(struct rig_tx *tx, long long v)
{
	struct rig_shot_model m;
	cr_assert_eq(rig_shot_load_at(&m, tx, "s", v), 0, "version %lld", v);
	struct rig_model_layer *l = rig_shot_model_find(&m, "g");
	double value =
		l && l->keys[RIG_CH_ROTATION].count ? l->keys[RIG_CH_ROTATION].items[0].value : -1;
	rig_shot_model_release(&m);
	return value;
}

static void set_rotation(struct rig_model_layer *l, double value)
{
	struct rig_key key = {.frame = 0, .value = value, .interp = RIG_INTERP_LINEAR};
	cr_assert_eq(rig_key_list_put(&l->keys[RIG_CH_ROTATION], &key), 0);
	l->dirty = true;
}

/* A layer that did not exist at the floor and was created again after it:
 * its oldest retained row is found past the floor (not at it), and the key
 * rows of its first life go while every retained version reads its own. */
Test(history_compact, a_layer_created_again_after_the_floor_keeps_what_its_versions_read)
{
	struct rig_tx *tx = bare_tx_with_shot();
	struct rig_shot_model m;
	cr_assert_eq(rig_shot_load(&m, tx, "s"), 0);
	set_rotation(rig_shot_model_add(&m, "g", "g", RIG_LAYER_GROUP, NULL), 10);
	rig_shot_model_add(&m, "x", "x", RIG_LAYER_GROUP, NULL);
	commit(tx, &m); /* v1: g's first life, key 10 */
	rig_shot_model_find(&m, "g")->deleted = true;
	commit(tx, &m); /* v2: gone */
	set_rotation(rig_shot_model_add(&m, "g", "g", RIG_LAYER_GROUP, NULL), 30);
	commit(tx, &m); /* v3: again, key 30 */
	set_rotation(rig_shot_model_find(&m, "g"), 40);
	commit(tx, &m); /* v4 */
	struct rig_model_layer *x = rig_shot_model_find(&m, "x");
	free(x->name);
	x->name = strdup("renamed");
	x->dirty = true;
	commit(tx, &m); /* v5 */
	rig_shot_model_release(&m);
	cr_assert_eq(bare_tx_int(tx, "SELECT count(*) FROM layer_keys WHERE layer_id = 'g'"), 3);
	bool done = false;
	long long removed = 0;
	cr_assert_eq(rig_history_compact(tx, 4, &done, &removed), 0); /* keeps v2 … v5 */
	cr_assert(done);
	cr_assert_eq(bare_tx_int(tx, "SELECT count(*) FROM layer_keys WHERE layer_id = 'g'"), 2,
		     "the first life's key row is read by no retained version");
	cr_assert_eq(bare_tx_int(tx, "SELECT min(revision) FROM layer_keys WHERE layer_id = 'g'"),
		     3);
	double want[] = {-1, 30, 40, 40};
	for (long long v = 2; v <= 5; v++)
		cr_assert_eq(rotation_at(tx, v), want[v - 2], "version %lld", v);
	bare_tx_close(tx);
}
