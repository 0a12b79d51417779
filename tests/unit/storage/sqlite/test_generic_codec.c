/* The generic codec (storage/sqlite/generic_codec.c) with a kind of this test's
 * own: a binding kind that brings only encode and decode is stored, loaded
 * without its per-vertex bytes, read whole, and erased — no table or codec of
 * its own. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "storage/sqlite/binding_codec.h"
#include "tests/unit/storage/sqlite/bare_tx.h"

/* "dots": a label and n points; the head is "label|n", the mesh the doubles. */
struct dots {
	char label[16];
	size_t n;
	double *xy; /* 2 · n, NULL until the mesh is read */
};

static void dots_free(void *def)
{
	struct dots *d = def;
	if (d)
		free(d->xy);
	free(d);
}

static size_t dots_n_verts(const void *def)
{
	return ((const struct dots *)def)->n;
}
static size_t dots_n_tris(const void *def)
{
	return 0;
}

static int dots_encode(const void *def, unsigned char **head, size_t *n_head, unsigned char **mesh,
		       size_t *n_mesh)
{
	const struct dots *d = def;
	char text[64];
	int len = snprintf(text, sizeof text, "%s|%zu", d->label, d->n);
	*head = malloc((size_t)len);
	*mesh = malloc(d->n ? 16 * d->n : 1);
	if (!*head || !*mesh)
		return -RIG_INTERNAL;
	memcpy(*head, text, (size_t)len);
	*n_head = (size_t)len;
	memcpy(*mesh, d->xy, 16 * d->n);
	*n_mesh = 16 * d->n;
	return 0;
}

static void *dots_decode(const unsigned char *head, size_t n_head, const unsigned char *mesh,
			 size_t n_mesh)
{
	char text[64] = "";
	if (n_head >= sizeof text)
		return NULL;
	memcpy(text, head, n_head);
	struct dots *d = calloc(1, sizeof *d);
	char *bar = strchr(text, '|');
	if (!d || !bar || bar - text >= (long)sizeof d->label) {
		free(d);
		return NULL;
	}
	memcpy(d->label, text, (size_t)(bar - text));
	d->n = strtoul(bar + 1, NULL, 10);
	if (mesh) {
		if (n_mesh != 16 * d->n || !(d->xy = malloc(n_mesh ? n_mesh : 1))) {
			free(d);
			return NULL;
		}
		memcpy(d->xy, mesh, n_mesh);
	}
	return d;
}

static const struct rig_binding_type dots = {
	.name = "dots",
	.def_free = dots_free,
	.def_n_verts = dots_n_verts,
	.def_n_tris = dots_n_tris,
	.encode = dots_encode,
	.decode = dots_decode,
};

static const struct rig_binding_type *find_dots(const char *name)
{
	return strcmp(name, "dots") == 0 ? &dots : NULL;
}

static const struct rig_binding_type *find_none(const char *name)
{
	(void)name;
	return NULL;
}

static struct dots *new_dots(const char *label, size_t n)
{
	struct dots *d = calloc(1, sizeof *d);
	cr_assert_not_null(d);
	snprintf(d->label, sizeof d->label, "%s", label);
	d->n = n;
	d->xy = malloc(n ? 16 * n : 1);
	for (size_t i = 0; i < 2 * n; i++)
		d->xy[i] = 0.5 * (double)i - 3;
	return d;
}

/* A shot "s" whose layer "L" holds def. */
static void model_with(struct rig_shot_model *m, void *def)
{
	memset(m, 0, sizeof *m);
	snprintf(m->id, sizeof m->id, "s");
	struct rig_model_layer *l = rig_shot_model_add(m, "L", "L", RIG_LAYER_MESH, NULL);
	cr_assert_not_null(l);
	if (def)
		rig_model_binding_set(l, &dots, def);
}

Test(generic_codec, a_kind_with_encode_and_decode_is_stored_by_the_generic_codec)
{
	cr_assert_eq(rig_binding_codec_of(&dots), &rig_binding_codec_generic);
	cr_assert_eq(rig_binding_codec_of(&rig_binding_skin), &rig_binding_codec_skin,
		     "a kind with a table of its own keeps its codec");
}

Test(generic_codec, write_load_read_round_trip)
{
	struct rig_tx *tx = bare_tx_open(rig_n_migrations, false);
	struct rig_shot_model m;
	model_with(&m, new_dots("arm", 3));
	cr_assert_eq(rig_binding_generic_write(tx->conn, &m, &m.layers[0], 7), 0);

	struct rig_shot_model back;
	model_with(&back, NULL);
	cr_assert_eq(rig_binding_generic_load(&back, tx->conn, -1, find_dots), 0);
	const struct rig_model_binding *b = &back.layers[0].binding;
	cr_assert_eq(b->type, &dots);
	cr_assert(!b->loaded && !b->dirty);
	cr_assert_eq(b->revision, 7);
	cr_assert_eq(b->n_verts, 3);
	const struct dots *head = b->def;
	cr_assert_str_eq(head->label, "arm");
	cr_assert_null(head->xy, "the mesh is read on demand, not with the shot");

	void *whole = NULL;
	cr_assert_eq(rig_binding_generic_read(&whole, tx->conn, &back, &back.layers[0]), 0);
	const struct dots *d = whole, *orig = m.layers[0].binding.def;
	cr_assert_eq(d->n, 3);
	cr_assert_eq(memcmp(d->xy, orig->xy, 16 * 3), 0);
	dots_free(whole);

	rig_shot_model_release(&back);
	rig_shot_model_release(&m);
	bare_tx_close(tx);
}

Test(generic_codec, an_empty_mesh_reads_back_as_empty_not_missing)
{
	struct rig_tx *tx = bare_tx_open(rig_n_migrations, false);
	struct rig_shot_model m;
	model_with(&m, new_dots("none", 0));
	cr_assert_eq(rig_binding_generic_write(tx->conn, &m, &m.layers[0], 1), 0);
	m.layers[0].binding.revision = 1; /* what a load would set */
	void *whole = NULL;
	cr_assert_eq(rig_binding_generic_read(&whole, tx->conn, &m, &m.layers[0]), 0);
	cr_assert_not_null(whole);
	cr_assert_not_null(((struct dots *)whole)->xy);
	dots_free(whole);
	rig_shot_model_release(&m);
	bare_tx_close(tx);
}

Test(generic_codec, a_kind_the_binary_does_not_know_fails_the_load)
{
	struct rig_tx *tx = bare_tx_open(rig_n_migrations, false);
	struct rig_shot_model m, back;
	model_with(&m, new_dots("arm", 2));
	cr_assert_eq(rig_binding_generic_write(tx->conn, &m, &m.layers[0], 1), 0);
	model_with(&back, NULL);
	cr_assert_eq(rig_binding_generic_load(&back, tx->conn, -1, find_none), -RIG_INTERNAL);
	cr_assert_null(back.layers[0].binding.type);
	rig_shot_model_release(&back);
	rig_shot_model_release(&m);
	bare_tx_close(tx);
}

Test(generic_codec, erase_removes_the_row)
{
	struct rig_tx *tx = bare_tx_open(rig_n_migrations, false);
	struct rig_shot_model m, back;
	model_with(&m, new_dots("arm", 2));
	cr_assert_eq(rig_binding_generic_write(tx->conn, &m, &m.layers[0], 1), 0);
	cr_assert_eq(rig_binding_generic_erase(tx->conn, &m, "L", 2), 0);
	void *whole = NULL;
	cr_assert_eq(rig_binding_generic_read(&whole, tx->conn, &m, &m.layers[0]), -RIG_NOT_FOUND);
	cr_assert_null(whole);
	model_with(&back, NULL);
	cr_assert_eq(rig_binding_generic_load(&back, tx->conn, -1, find_dots), 0);
	cr_assert_null(back.layers[0].binding.type);
	rig_shot_model_release(&back);
	rig_shot_model_release(&m);
	bare_tx_close(tx);
}

/* A binding stored before migration 12 (its mesh in its row) reads as before;
 * erasing it for a new one keeps it readable at its revision (its mesh becomes
 * chunks, its row history), and a mesh over one chunk round-trips. */
Test(generic_codec, a_row_from_before_migration_12_stays_readable_after_erase)
{
	size_t before = 0;
	while (before < rig_n_migrations && rig_migrations[before].version < 12)
		before++;
	struct rig_tx *tx = bare_tx_open(before, false);
	struct dots *orig = new_dots("old", 3000); /* 48,000 mesh bytes: 3 chunks */
	unsigned char *head = NULL, *mesh = NULL;
	size_t n_head = 0, n_mesh = 0;
	cr_assert_eq(dots.encode(orig, &head, &n_head, &mesh, &n_mesh), 0);
	sqlite3_stmt *st = NULL;
	cr_assert_eq(sqlite3_prepare_v2(tx->conn,
					"INSERT INTO bindings(shot_id, layer_id, kind, revision,"
					" n_verts, n_tris, head, mesh) VALUES ('s', 'L', 'dots', 1,"
					" 3000, 0, ?, ?)",
					-1, &st, NULL),
		     SQLITE_OK);
	sqlite3_bind_blob64(st, 1, head, n_head, SQLITE_STATIC);
	sqlite3_bind_blob64(st, 2, mesh, n_mesh, SQLITE_STATIC);
	cr_assert_eq(sqlite3_step(st), SQLITE_DONE);
	sqlite3_finalize(st);
	free(head);
	free(mesh);
	char err[256] = "";
	cr_assert_geq(rig_migrate(tx->conn, rig_migrations, rig_n_migrations, err, sizeof err), 1,
		      "%s", err);

	struct rig_shot_model m;
	model_with(&m, NULL);
	cr_assert_eq(rig_binding_generic_load(&m, tx->conn, -1, find_dots), 0);
	void *whole = NULL;
	cr_assert_eq(rig_binding_generic_read(&whole, tx->conn, &m, &m.layers[0]), 0);
	cr_assert_eq(memcmp(((struct dots *)whole)->xy, orig->xy, 16 * 3000), 0, "legacy read");
	dots_free(whole);

	/* v2 replaces it; v1 still reads the old mesh, v2 the new. */
	cr_assert_eq(rig_binding_generic_erase(tx->conn, &m, "L", 2), 0);
	rig_model_binding_set(&m.layers[0], &dots, new_dots("new", 10));
	cr_assert_eq(rig_binding_generic_write(tx->conn, &m, &m.layers[0], 2), 0);
	for (long long v = 1; v <= 2; v++) {
		struct rig_shot_model at;
		model_with(&at, NULL);
		cr_assert_eq(rig_binding_generic_load(&at, tx->conn, v, find_dots), 0);
		cr_assert_eq(at.layers[0].binding.revision, v);
		cr_assert_eq(rig_binding_generic_read(&whole, tx->conn, &at, &at.layers[0]), 0);
		const struct dots *d = whole;
		cr_assert_str_eq(d->label, v == 1 ? "old" : "new");
		cr_assert_eq(d->n, v == 1 ? 3000 : 10);
		if (v == 1)
			cr_assert_eq(memcmp(d->xy, orig->xy, 16 * 3000), 0);
		dots_free(whole);
		rig_shot_model_release(&at);
	}
	dots_free(orig);
	rig_shot_model_release(&m);
	bare_tx_close(tx);
}
