/* The shot repository of shot_repo.h. */
#include "storage/shot_repo.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/codes.h"
#include "storage/blob.h"
#include "storage/layer_archive.h"
#include "storage/sqlite/binding_codec.h"
#include "storage/sqlite/sqlite_tx.h"

static char *column_strdup(sqlite3_stmt *st, int col)
{
	const unsigned char *s = sqlite3_column_text(st, col);
	return strdup(s ? (const char *)s : "");
}

static void column_copy(char *dst, size_t size, sqlite3_stmt *st, int col)
{
	const unsigned char *s = sqlite3_column_text(st, col);
	rig_strlcpy(dst, s ? (const char *)s : "", size);
}

#define LAYER_COLUMNS                                                                              \
	"ord, name, kind, parent_id, position_x, position_y, rotation, scale_x, scale_y, pivot_x," \
	" pivot_y, time_offset, keys, keys_rows"

void rig_sqlite__bind_shot_at(sqlite3_stmt *st, const struct rig_shot_model *m, long long at)
{
	sqlite3_bind_text(st, 1, m->id, -1, SQLITE_STATIC);
	if (at >= 0) {
		sqlite3_bind_int64(st, 2, m->seq);
		sqlite3_bind_int64(st, 3, at);
	}
}

/* Adds the keys a layer row written at `since` has in layer_keys (migration
 * 14): per channel, the row with the greatest revision <= since. A keyed
 * channel's print stays unknown (the first save reads its row back). */
static int load_key_rows(struct rig_model_layer *l, sqlite3_stmt *st, long long seq,
			 long long since)
{
	sqlite3_reset(st);
	sqlite3_bind_int64(st, 1, seq);
	sqlite3_bind_text(st, 2, l->id, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 3, since);
	int s;
	while ((s = sqlite3_step(st)) == SQLITE_ROW) {
		const unsigned char *data = sqlite3_column_blob(st, 0);
		size_t size = (size_t)sqlite3_column_bytes(st, 0);
		int c = sqlite3_column_int(st, 2);
		if (c < 0 || c >= RIG_CH_COUNT || rig_blob_keys_decode(l->keys, data, size) != 0)
			return -RIG_INTERNAL;
		l->keys_known &= ~(1u << c);
	}
	return s == SQLITE_DONE ? 0 : rig_sqlite__fail(s);
}

/* The row of a SELECT of id, LAYER_COLUMNS and the row's since (valid_from),
 * pointing into the statement's current row. */
static void row_of_columns(struct rig_layer_row *row, sqlite3_stmt *st)
{
	const char *kind = (const char *)sqlite3_column_text(st, 3);
	const char *parent = (const char *)sqlite3_column_text(st, 4);
	row->id = (const char *)sqlite3_column_text(st, 0);
	row->ord = sqlite3_column_int64(st, 1);
	row->name = (const char *)sqlite3_column_text(st, 2);
	row->kind = kind && strcmp(kind, "mesh") == 0 ? RIG_LAYER_MESH : RIG_LAYER_GROUP;
	row->parent_id = parent ? parent : "";
	for (int c = 0; c < RIG_CH_COUNT; c++)
		row->statics[c] = sqlite3_column_double(st, 5 + c);
	row->time_offset = sqlite3_column_double(st, 12);
	row->keys = sqlite3_column_blob(st, 13);
	row->keys_size = (size_t)sqlite3_column_bytes(st, 13);
	row->flags = RIG_ARCHIVE_ROW | (sqlite3_column_int(st, 14) ? RIG_ARCHIVE_KEYS_ROWS : 0);
	row->valid_from = sqlite3_column_int64(st, 15);
}

/* Adds the layer of a stored row (head, history or archive) to m, with its
 * keys (keys_st: load_key_rows's statement). */
static int add_row(struct rig_shot_model *m, const struct rig_layer_row *row, sqlite3_stmt *keys_st)
{
	struct rig_model_layer *l = rig_shot_model_add(m, row->id, row->name ? row->name : "",
						       row->kind, row->parent_id);
	if (!l)
		return -RIG_INTERNAL;
	l->ord = row->ord;
	if (l->ord >= m->next_ord)
		m->next_ord = l->ord + 1;
	for (int c = 0; c < RIG_CH_COUNT; c++)
		l->statics.ch[c] = row->statics[c];
	l->time_offset = row->time_offset;
	/* No row reads as no keys: a legacy row's keys get rows on its next save. */
	for (int c = 0; c < RIG_CH_COUNT; c++)
		memcpy(l->keys_stored[c], rig_blob_print_none, RIG_KEYS_PRINT_BYTES);
	l->keys_known = (1u << RIG_CH_COUNT) - 1;
	l->is_new = false;
	l->dirty = false;
	if (row->flags & RIG_ARCHIVE_KEYS_ROWS)
		return load_key_rows(l, keys_st, m->seq, row->valid_from);
	return rig_blob_keys_decode(l->keys, row->keys, row->keys_size) ? -RIG_INTERNAL : 0;
}

struct past_read {
	struct rig_shot_model *m;
	sqlite3_stmt *keys_st;
	long long at;
};

/* An archive entry's row is the layer's at `at` when valid_from <= at (the
 * walk gives only entries replaced after it). */
static int add_archived(void *ctx, long long valid_to, const struct rig_layer_row *row)
{
	(void)valid_to;
	struct past_read *r = ctx;
	if (!(row->flags & RIG_ARCHIVE_ROW) || row->valid_from > r->at)
		return 0;
	return add_row(r->m, row, r->keys_st);
}

/* The layers at version `at` (the head when at < 0): of every stored row of a
 * layer (head, layer_history, layer_archive), the one valid at it. */
static int load_layers(struct rig_shot_model *m, sqlite3 *db, long long at)
{
	sqlite3_stmt *st = NULL, *keys_st = NULL;
	/* sorted in C: SQLite's sorter copies every keys blob */
	int rc = rig_sqlite__prepare(
		&st, db,
		at < 0 ? "SELECT id, " LAYER_COLUMNS ", since FROM layers WHERE shot_id = ?1"
		       : "SELECT id, " LAYER_COLUMNS ", since"
			 " FROM layers WHERE shot_id = ?1 AND since <= ?3"
			 " UNION ALL SELECT layer_id, " LAYER_COLUMNS ", valid_from"
			 " FROM layer_history WHERE shot_seq = ?2 AND valid_to > ?3 AND valid_from "
			 "<= ?3");
	if (rc)
		return rc;
	/* SQLite takes data from the row that gave max(revision). */
	rc = rig_sqlite__prepare(
		&keys_st, db,
		"SELECT data, max(revision), channel FROM layer_keys WHERE shot_seq = ?1"
		" AND layer_id = ?2 AND revision <= ?3 GROUP BY channel");
	if (rc) {
		rig_sqlite__finish(st);
		return rc;
	}
	rig_sqlite__bind_shot_at(st, m, at);
	int s;
	while ((s = sqlite3_step(st)) == SQLITE_ROW) {
		struct rig_layer_row row;
		row_of_columns(&row, st);
		if ((rc = add_row(m, &row, keys_st)))
			goto out;
	}
	if (s != SQLITE_DONE) {
		rc = rig_sqlite__fail(s);
		goto out;
	}
	if (at >= 0) {
		struct past_read r = {m, keys_st, at};
		rc = rig_sqlite__archive_walk(db, m->seq, at, LLONG_MAX, add_archived, &r);
	}
	if (!rc)
		rig_shot_model_sort(m);
out:
	rig_sqlite__finish(keys_st);
	rig_sqlite__finish(st);
	return rc;
}

/* Splits a stored chain ("a b c") into c's chain ids; false when malformed. */
static bool chain_decode(struct rig_constraint *c, const char *text)
{
	c->n_chain = 0;
	while (text && *text) {
		const char *end = strchr(text, ' ');
		size_t len = end ? (size_t)(end - text) : strlen(text);
		if (c->n_chain == RIG_CONSTRAINT_MAX_CHAIN || len == 0 || len > RIG_ID_MAX)
			return false;
		memcpy(c->chain_ids[c->n_chain], text, len);
		c->chain_ids[c->n_chain++][len] = '\0';
		text = end ? end + 1 : NULL;
	}
	return c->n_chain > 0 || c->kind == RIG_CONSTRAINT_FOOTSTEP;
}

#define CONSTRAINT_COLUMNS                                                                         \
	"id, chain, target_id, pole_id, bend_positive, tip_length, mix, softness, stretch,"        \
	" compress, ord, keys, limits, kind, params"

/* Reads stored limits ("cw acw cw acw …", one pair per chain layer) into c;
 * NULL: none. False when malformed. */
static bool limits_decode(struct rig_constraint *c, const char *text)
{
	c->has_limits = text != NULL;
	for (size_t i = 0; text && i < c->n_chain; i++)
		for (int k = 0; k < 2; k++) {
			char *end;
			c->limits[i][k] = strtod(text, &end);
			if (end == text)
				return false;
			text = end;
		}
	return true;
}

/* The stored form limits_decode reads, into out (17 digits: exact). */
static void limits_encode(char *out, size_t size, const struct rig_constraint *c)
{
	size_t n = 0;
	out[0] = '\0';
	for (size_t i = 0; i < c->n_chain && n < size; i++)
		n += (size_t)snprintf(out + n, size - n, "%s%.17g %.17g", i ? " " : "",
				      c->limits[i][0], c->limits[i][1]);
}

/* Reads the next space-separated number of *text into *out; false when
 * there is none. */
static bool next_number(const char **text, double *out)
{
	char *end;
	if (!*text)
		return false;
	*out = strtod(*text, &end);
	if (end == *text)
		return false;
	*text = end;
	return true;
}

/* Reads a walker's stored parameters ("threshold stepFrames height n", then
 * per foot "ikConstraintId restX restY group") into c; false when malformed. */
static bool walk_decode(struct rig_constraint *c, const char *text)
{
	struct rig_footstep_spec *w = &c->walk;
	double v[4];
	for (int i = 0; i < 4; i++)
		if (!next_number(&text, &v[i]))
			return false;
	w->threshold = v[0];
	w->step_frames = (int)v[1];
	w->height = v[2];
	if (!(v[3] >= 1 && v[3] <= RIG_FOOTSTEP_MAX_FEET))
		return false;
	w->n_feet = (size_t)v[3];
	for (size_t f = 0; f < w->n_feet; f++) {
		while (*text == ' ')
			text++;
		size_t len = strcspn(text, " ");
		double group;
		if (len == 0 || len > RIG_ID_MAX)
			return false;
		memcpy(w->ik_ids[f], text, len);
		w->ik_ids[f][len] = '\0';
		text += len;
		if (!next_number(&text, &w->rest[f][0]) || !next_number(&text, &w->rest[f][1]) ||
		    !next_number(&text, &group))
			return false;
		w->group[f] = (int)group;
	}
	return true;
}

/* Reads a follow chain's stored parameters ("smoothing substeps maxAngleDeg
 * length…", maxAngleDeg -1 for none) or a walker's (walk_decode) into c
 * (after its chain is read); false when malformed. */
static bool params_decode(struct rig_constraint *c, const char *text)
{
	if (c->kind == RIG_CONSTRAINT_FOOTSTEP)
		return text && walk_decode(c, text);
	if (c->kind != RIG_CONSTRAINT_CHAIN)
		return true;
	double v[3 + RIG_CONSTRAINT_MAX_CHAIN - 1];
	size_t want = 3 + c->n_chain - 1;
	for (size_t i = 0; i < want; i++) {
		char *end;
		v[i] = text ? strtod(text, &end) : 0;
		if (!text || end == text)
			return false;
		text = end;
	}
	struct rig_chain_params *f = &c->follow;
	f->smoothing = v[0];
	f->substeps = (int)v[1];
	f->has_max_angle = v[2] >= 0;
	f->max_angle_deg = f->has_max_angle ? v[2] : 0;
	memcpy(f->lengths, v + 3, (c->n_chain - 1) * sizeof *v);
	return true;
}

/* The stored form params_decode reads, into out (17 digits: exact). */
static void params_encode(char *out, size_t size, const struct rig_constraint *c)
{
	if (c->kind == RIG_CONSTRAINT_FOOTSTEP) {
		const struct rig_footstep_spec *w = &c->walk;
		size_t n = (size_t)snprintf(out, size, "%.17g %d %.17g %zu", w->threshold,
					    w->step_frames, w->height, w->n_feet);
		for (size_t f = 0; f < w->n_feet && n < size; f++)
			n += (size_t)snprintf(out + n, size - n, " %s %.17g %.17g %d", w->ik_ids[f],
					      w->rest[f][0], w->rest[f][1], w->group[f]);
		return;
	}
	const struct rig_chain_params *f = &c->follow;
	size_t n = (size_t)snprintf(out, size, "%.17g %d %.17g", f->smoothing, f->substeps,
				    f->has_max_angle ? f->max_angle_deg : -1.0);
	for (size_t i = 0; i + 1 < c->n_chain && n < size; i++)
		n += (size_t)snprintf(out + n, size - n, " %.17g", f->lengths[i]);
}

/* The constraint set of version (-1: the head). The head set was written by
 * version since; an older version's set is in constraint_history. */
static int load_constraints(struct rig_shot_model *m, sqlite3 *db, long long version,
			    long long since)
{
	sqlite3_stmt *st = NULL;
	bool past = version >= 0 && version < since;
	int rc = rig_sqlite__prepare(
		&st, db,
		past ? "SELECT " CONSTRAINT_COLUMNS " FROM constraint_history"
		       " WHERE shot_seq = ?1 AND valid_from <= ?2 AND ?2 < valid_to ORDER BY id"
		     : "SELECT " CONSTRAINT_COLUMNS " FROM constraints WHERE shot_id = ?3"
		       " ORDER BY id");
	if (rc)
		return rc;
	if (past) {
		sqlite3_bind_int64(st, 1, m->seq);
		sqlite3_bind_int64(st, 2, version);
	} else {
		sqlite3_bind_text(st, 3, m->id, -1, SQLITE_STATIC);
	}
	int s;
	while ((s = sqlite3_step(st)) == SQLITE_ROW) {
		struct rig_model_constraint mc;
		memset(&mc, 0, sizeof mc);
		struct rig_constraint *c = &mc.c;
		column_copy(c->id, sizeof c->id, st, 0);
		column_copy(c->target_id, sizeof c->target_id, st, 2);
		column_copy(c->pole_id, sizeof c->pole_id, st, 3);
		c->bend = sqlite3_column_int(st, 4) ? 1 : -1;
		c->tip_length = sqlite3_column_double(st, 5);
		c->statics[RIG_CC_MIX] = sqlite3_column_double(st, 6);
		c->statics[RIG_CC_SOFTNESS] = sqlite3_column_double(st, 7);
		c->stretch = sqlite3_column_int(st, 8) != 0;
		c->compress = sqlite3_column_int(st, 9) != 0;
		c->order = sqlite3_column_int64(st, 10);
		const char *kind = (const char *)sqlite3_column_text(st, 13);
		c->kind = rig_constraint_kind_of(kind ? kind : "");
		if (c->kind == RIG_CONSTRAINT_KIND_COUNT ||
		    !chain_decode(c, (const char *)sqlite3_column_text(st, 1)) ||
		    !params_decode(c, (const char *)sqlite3_column_text(st, 14)) ||
		    !limits_decode(c, (const char *)sqlite3_column_text(st, 12)) ||
		    rig_blob_keys_decode(mc.keys, sqlite3_column_blob(st, 11),
					 (size_t)sqlite3_column_bytes(st, 11)) != 0 ||
		    rig_shot_model_constraint_put(m, &mc) != 0) {
			rig_model_constraint_release(&mc);
			rc = -RIG_INTERNAL;
			goto out;
		}
	}
	if (s != SQLITE_DONE)
		rc = rig_sqlite__fail(s);
	m->constraints_dirty = false;
out:
	rig_sqlite__finish(st);
	return rc;
}

/* Rewrites the shot's constraints as version to_version wrote them: the old
 * set moves to constraint_history (valid until to_version), the model's set
 * becomes the head. */
static int write_constraints(sqlite3 *db, const struct rig_shot_model *m, long long to_version)
{
	static const char *const steps[] = {
		"INSERT INTO constraint_history(shot_seq, valid_to, valid_from, " CONSTRAINT_COLUMNS
		") SELECT s.seq, ?2, s.constraints_since, c.id, c.chain,"
		" c.target_id, c.pole_id, c.bend_positive, c.tip_length, c.mix, c.softness,"
		" c.stretch, c.compress, c.ord, c.keys, c.limits, c.kind, c.params"
		" FROM constraints c JOIN shots s"
		" ON s.id = c.shot_id WHERE c.shot_id = ?1",
		"DELETE FROM constraints WHERE shot_id = ?1",
		"UPDATE shots SET constraints_since = ?2 WHERE id = ?1",
	};
	int rc = 0;
	for (size_t k = 0; k < sizeof steps / sizeof *steps && !rc; k++) {
		sqlite3_stmt *st = NULL;
		rc = rig_sqlite__prepare(&st, db, steps[k]);
		if (rc)
			return rc;
		sqlite3_bind_text(st, 1, m->id, -1, SQLITE_STATIC);
		if (sqlite3_bind_parameter_count(st) >= 2)
			sqlite3_bind_int64(st, 2, to_version);
		rc = rig_sqlite__step_done(st);
		rig_sqlite__finish(st);
	}
	for (size_t i = 0; i < m->n_constraints && !rc; i++) {
		const struct rig_model_constraint *mc = &m->constraints[i];
		const struct rig_constraint *c = &mc->c;
		char chain[RIG_CONSTRAINT_MAX_CHAIN * (RIG_ID_MAX + 1)] = "";
		for (size_t j = 0; j < c->n_chain; j++) {
			if (j)
				strcat(chain, " ");
			strcat(chain, c->chain_ids[j]);
		}
		size_t keys_size = 0;
		unsigned char *keys = rig_blob_keys_encode(&keys_size, mc->keys);
		if (!keys)
			return -RIG_INTERNAL;
		sqlite3_stmt *st = NULL;
		rc = rig_sqlite__prepare(
			&st, db,
			"INSERT INTO constraints(shot_id, id, kind, chain, target_id, pole_id,"
			" bend_positive, tip_length, mix, softness, stretch, compress, ord, keys,"
			" limits, params) VALUES (?1, ?2, ?15, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, "
			"?11,"
			" ?12, ?13, ?14, ?16)");
		if (!rc) {
			sqlite3_bind_text(st, 1, m->id, -1, SQLITE_STATIC);
			sqlite3_bind_text(st, 2, c->id, -1, SQLITE_STATIC);
			sqlite3_bind_text(st, 3, chain, -1, SQLITE_STATIC);
			sqlite3_bind_text(st, 4, c->target_id, -1, SQLITE_STATIC);
			if (c->pole_id[0])
				sqlite3_bind_text(st, 5, c->pole_id, -1, SQLITE_STATIC);
			sqlite3_bind_int(st, 6, c->bend >= 0);
			sqlite3_bind_double(st, 7, c->tip_length);
			sqlite3_bind_double(st, 8, c->statics[RIG_CC_MIX]);
			sqlite3_bind_double(st, 9, c->statics[RIG_CC_SOFTNESS]);
			sqlite3_bind_int(st, 10, c->stretch);
			sqlite3_bind_int(st, 11, c->compress);
			sqlite3_bind_int64(st, 12, c->order);
			sqlite3_bind_blob(st, 13, keys, (int)keys_size, SQLITE_STATIC);
			char limits[RIG_IK_MAX_BONES * 2 * 26];
			if (c->has_limits) {
				limits_encode(limits, sizeof limits, c);
				sqlite3_bind_text(st, 14, limits, -1, SQLITE_TRANSIENT);
			}
			sqlite3_bind_text(st, 15, rig_constraint_kind_name(c->kind), -1,
					  SQLITE_STATIC);
			char params[RIG_FOOTSTEP_MAX_FEET * (RIG_ID_MAX + 64) + 1024];
			if (c->kind != RIG_CONSTRAINT_IK) {
				params_encode(params, sizeof params, c);
				sqlite3_bind_text(st, 16, params, -1, SQLITE_TRANSIENT);
			}
			rc = rig_sqlite__step_done(st);
			rig_sqlite__finish(st);
		}
		free(keys);
	}
	return rc;
}

int rig_shot_load_at(struct rig_shot_model *out, struct rig_tx *tx, const char *shot_id,
		     long long version)
{
	sqlite3 *db = tx->conn;
	memset(out, 0, sizeof *out);
	sqlite3_stmt *st = NULL;
	int rc = rig_sqlite__prepare(
		&st, db,
		"SELECT id, project_id, name, fps, frame_start, frame_end, version, seq,"
		" history_from, constraints_since FROM shots WHERE id = ?");
	if (rc)
		return rc;
	sqlite3_bind_text(st, 1, shot_id, -1, SQLITE_STATIC);
	int s = sqlite3_step(st);
	if (s != SQLITE_ROW) {
		rc = s == SQLITE_DONE ? -RIG_NOT_FOUND : rig_sqlite__fail(s);
		goto out;
	}
	column_copy(out->id, sizeof out->id, st, 0);
	column_copy(out->project_id, sizeof out->project_id, st, 1);
	out->name = column_strdup(st, 2);
	out->fps = sqlite3_column_double(st, 3);
	out->frame_start = sqlite3_column_double(st, 4);
	out->frame_end = sqlite3_column_double(st, 5);
	out->version = sqlite3_column_int64(st, 6);
	out->seq = sqlite3_column_int64(st, 7);
	long long oldest = sqlite3_column_int64(st, 8);
	long long constraints_since = sqlite3_column_int64(st, 9);
	if (!out->name) {
		rc = -RIG_INTERNAL;
		goto out;
	}
	if (version == out->version)
		version = -1; /* the head's own, cheaper path */
	if (version >= 0 && version > out->version) {
		rc = -RIG_NOT_FOUND;
		goto out;
	}
	if (version >= 0 && version < oldest) {
		rc = -RIG_VERSION_COMPACTED;
		goto out;
	}
	if (version >= 0)
		out->version = version;
	rc = load_layers(out, db, version);
	if (rc == 0)
		rc = load_constraints(out, db, version, constraints_since);
	for (size_t k = 0; rc == 0 && k < rig_binding_n_codecs; k++)
		rc = rig_binding_codecs[k]->load(out, db, version);
out:
	rig_sqlite__finish(st);
	return rc;
}

int rig_shot_load(struct rig_shot_model *out, struct rig_tx *tx, const char *shot_id)
{
	return rig_shot_load_at(out, tx, shot_id, -1);
}

int rig_shot_versions(struct rig_tx *tx, const char *shot_id, long long *oldest, long long *head)
{
	sqlite3_stmt *st = NULL;
	int rc = rig_sqlite__prepare(&st, tx->conn,
				     "SELECT history_from, version FROM shots WHERE id = ?");
	if (rc)
		return rc;
	sqlite3_bind_text(st, 1, shot_id, -1, SQLITE_STATIC);
	int s = sqlite3_step(st);
	if (s == SQLITE_ROW) {
		*oldest = sqlite3_column_int64(st, 0);
		*head = sqlite3_column_int64(st, 1);
	} else {
		rc = s == SQLITE_DONE ? -RIG_NOT_FOUND : rig_sqlite__fail(s);
	}
	rig_sqlite__finish(st);
	return rc;
}

int rig_shot_read_binding(void **out, struct rig_tx *tx, const struct rig_shot_model *m,
			  const struct rig_model_layer *l)
{
	*out = NULL;
	const struct rig_binding_codec *codec = rig_binding_codec_of(l->binding.type);
	if (!codec)
		return -RIG_INTERNAL;
	return codec->read(out, tx->conn, m, l);
}

int rig_shot_load_binding(struct rig_tx *tx, const struct rig_shot_model *m,
			  struct rig_model_layer *l)
{
	struct rig_model_binding *b = &l->binding;
	if (b->loaded || !b->type || b->dirty)
		return 0;
	void *def = NULL;
	int rc = rig_shot_read_binding(&def, tx, m, l);
	if (rc)
		return rc;
	/* The full definition replaces the one without arrays: same snapshot,
	 * same row. */
	b->type->def_free(b->def);
	b->def = def;
	b->loaded = true;
	return 0;
}

/* Rewrites or deletes the stored binding of l: every kind's row goes (a
 * layer whose kind changed keeps no stale one), then l's own is written. */
static int erase_bindings(sqlite3 *db, const struct rig_shot_model *m, const char *layer_id,
			  long long to_version)
{
	int rc = 0;
	for (size_t k = 0; rc == 0 && k < rig_binding_n_codecs; k++)
		rc = rig_binding_codecs[k]->erase(db, m, layer_id, to_version);
	return rc;
}

static int write_binding(sqlite3 *db, const struct rig_shot_model *m,
			 const struct rig_model_layer *l, long long revision)
{
	int rc = erase_bindings(db, m, l->id, revision);
	if (rc || !l->binding.type)
		return rc;
	const struct rig_binding_codec *codec = rig_binding_codec_of(l->binding.type);
	return codec ? codec->write(db, m, l, revision) : -RIG_INTERNAL;
}

/* Whether the save archives l's head row: a stored layer rewritten or deleted. */
static bool archived(const struct rig_model_layer *l)
{
	return !l->is_new && (l->dirty || l->deleted);
}

/* rig_shot_save's per-layer state. */
enum { KEYS_WRITTEN = 1, ROW_STORED = 2 };

/* Whether a head row (keys in layer_keys) holds l's values bit for bit: then a
 * save leaves it, and the version that wrote it, alone, as SQLite leaves a
 * page an identical overwrite would not change. Its keys must be unchanged
 * too (the row's since says which key rows it reads). */
static bool row_holds(const struct rig_layer_row *row, const struct rig_model_layer *l)
{
	return row->flags & RIG_ARCHIVE_KEYS_ROWS && row->ord == l->ord && row->kind == l->kind &&
	       strcmp(row->name, l->name) == 0 && strcmp(row->parent_id, l->parent_id) == 0 &&
	       memcmp(row->statics, l->statics.ch, sizeof row->statics) == 0 &&
	       memcmp(&row->time_offset, &l->time_offset, sizeof row->time_offset) == 0;
}

/* Stores the archive of to_version (storage/layer_archive.h): the head rows of
 * every layer archived() names, read in one statement (one id as a parameter,
 * several as a JSON array through json_each, which costs more than one lookup
 * and less than a statement a layer from two layers on), and an entry for
 * each layer created. A row written by to_version itself is never visible, so
 * it is not kept; a row that holds what its layer has (row_holds, keys
 * unwritten per state) is marked ROW_STORED in state and neither archived nor
 * rewritten. One value, however many layers; none when no entry remains. */
static int write_archive(sqlite3 *db, const struct rig_shot_model *m, long long to_version,
			 unsigned char *state)
{
	size_t n = 0, bytes = 3, created = 0;
	const char *one = NULL;
	for (size_t i = 0; i < m->n_layers; i++) {
		const struct rig_model_layer *l = &m->layers[i];
		created += l->is_new && !l->deleted;
		if (archived(l)) {
			n++;
			bytes += strlen(l->id) + 3;
			one = l->id;
		}
	}
	if (!n && !created)
		return 0;
	struct rig_archive_buf a = {0};
	char *ids = NULL, *p = NULL;
	sqlite3_stmt *st = NULL;
	int rc = 0;
	if (n > 1) {
		if (!(ids = p = malloc(bytes))) {
			rc = -RIG_INTERNAL;
			goto out;
		}
		*p++ = '[';
		for (size_t i = 0; i < m->n_layers; i++)
			if (archived(
				    &m->layers[i])) /* ids are [A-Za-z0-9_.:-]: nothing to escape */
				p += sprintf(p, "%s\"%s\"", p == ids + 1 ? "" : ",",
					     m->layers[i].id);
		*p++ = ']';
	}
	if (n) {
		rc = rig_sqlite__prepare(
			&st, db,
			n > 1 ? "SELECT id, " LAYER_COLUMNS ", since FROM layers WHERE shot_id = ?1"
				" AND id IN (SELECT value FROM json_each(?2)) AND since < ?3"
			      : "SELECT id, " LAYER_COLUMNS ", since FROM layers WHERE shot_id = ?1"
				" AND id = ?2 AND since < ?3");
		if (rc)
			goto out;
		sqlite3_bind_text(st, 1, m->id, -1, SQLITE_STATIC);
		if (ids)
			sqlite3_bind_text(st, 2, ids, (int)(p - ids), SQLITE_STATIC);
		else
			sqlite3_bind_text(st, 2, one, -1, SQLITE_STATIC);
		sqlite3_bind_int64(st, 3, to_version);
		int s = SQLITE_DONE;
		while (!rc && (s = sqlite3_step(st)) == SQLITE_ROW) {
			struct rig_layer_row row;
			row_of_columns(&row, st);
			long i = rig_shot_model_index(m, row.id);
			if (i < 0 || m->layers[i].is_new) {
				row.flags |= RIG_ARCHIVE_DELETED;
			} else if (!(state[i] & KEYS_WRITTEN) && row_holds(&row, &m->layers[i])) {
				state[i] |= ROW_STORED; /* nothing to archive, nothing to write */
				continue;
			}
			if (rig_archive_put(&a, &row))
				rc = -RIG_INTERNAL;
		}
		if (!rc && s != SQLITE_DONE)
			rc = rig_sqlite__fail(s);
		rig_sqlite__finish(st);
		st = NULL;
	}
	for (size_t i = 0; i < m->n_layers && !rc; i++) {
		const struct rig_model_layer *l = &m->layers[i];
		if (l->is_new && !l->deleted &&
		    rig_archive_put(&a, &(struct rig_layer_row){.id = l->id}))
			rc = -RIG_INTERNAL;
	}
	if (!rc)
		rc = rig_sqlite__archive_insert(db, m->seq, to_version, a.bytes, a.size);
out:
	rig_sqlite__finish(st);
	free(ids);
	free(a.bytes);
	return rc;
}

static int delete_layer(sqlite3 *db, const struct rig_shot_model *m, const char *layer_id,
			long long to_version)
{
	int rc = erase_bindings(db, m, layer_id, to_version);
	return rc ? rc
		  : rig_sqlite__run2(db, "DELETE FROM layers WHERE shot_id = ? AND id = ?", m->id,
				     layer_id);
}

/* Whether the row a reader finds for channel c of layer l before to_version
 * holds bytes (none: no keys): for a channel whose print is unknown, and for
 * a new layer, whose id may have been a deleted layer's (a reader would still
 * find its rows). */
static int same_as_found(bool *same, sqlite3_stmt *get, const struct rig_shot_model *m,
			 const struct rig_model_layer *l, int c, long long to_version,
			 const unsigned char *bytes, size_t size)
{
	sqlite3_reset(get);
	sqlite3_bind_int64(get, 1, m->seq);
	sqlite3_bind_text(get, 2, l->id, -1, SQLITE_STATIC);
	sqlite3_bind_int(get, 3, c);
	sqlite3_bind_int64(get, 4, to_version);
	int s = sqlite3_step(get);
	if (s == SQLITE_ROW)
		*same = (size_t)sqlite3_column_bytes(get, 0) == size &&
			(size == 0 || memcmp(sqlite3_column_blob(get, 0), bytes, size) == 0);
	else if (s == SQLITE_DONE)
		*same = size == 0;
	else
		return rig_sqlite__fail(s);
	return 0;
}

/* Writes the channels of l's keys whose bytes differ from those storage holds
 * for them before to_version (the prints say, where known; else the row is
 * read), as rows of to_version, and records the prints of what now stands. */
static int write_key_rows(sqlite3 *db, const struct rig_shot_model *m, struct rig_model_layer *l,
			  long long to_version, bool *wrote)
{
	sqlite3_stmt *get = NULL, *put = NULL;
	int rc = 0;
	for (int c = 0; c < RIG_CH_COUNT && !rc; c++) {
		bool known = !l->is_new && (l->keys_known >> c & 1u);
		/* An unkeyed channel stored as unkeyed: nothing to encode. */
		if (known && l->keys[c].count == 0 &&
		    memcmp(l->keys_stored[c], rig_blob_print_none, RIG_KEYS_PRINT_BYTES) == 0)
			continue;
		size_t size = 0;
		unsigned char *bytes = rig_blob_channel_keys_encode(&size, &l->keys[c], c);
		if (!bytes) {
			rc = -RIG_INTERNAL;
			break;
		}
		unsigned char print[RIG_KEYS_PRINT_BYTES];
		rig_blob_print(print, bytes, size);
		bool same = false;
		if (known) {
			same = memcmp(print, l->keys_stored[c], sizeof print) == 0;
		} else {
			if (!get)
				rc = rig_sqlite__prepare(
					&get, db,
					"SELECT data FROM layer_keys WHERE shot_seq = ?1"
					" AND layer_id = ?2 AND channel = ?3 AND"
					" revision < ?4 ORDER BY revision DESC LIMIT 1");
			if (!rc)
				rc = same_as_found(&same, get, m, l, c, to_version, bytes, size);
		}
		if (!rc && !same && !put)
			rc = rig_sqlite__prepare(
				&put, db,
				"INSERT INTO layer_keys(shot_seq, layer_id, channel,"
				" revision, data) VALUES (?1, ?2, ?3, ?4, ?5)");
		if (!rc && !same) {
			sqlite3_bind_int64(put, 1, m->seq);
			sqlite3_bind_text(put, 2, l->id, -1, SQLITE_STATIC);
			sqlite3_bind_int(put, 3, c);
			sqlite3_bind_int64(put, 4, to_version);
			sqlite3_bind_blob(put, 5, bytes, (int)size, SQLITE_STATIC);
			rc = rig_sqlite__step_done(put);
			sqlite3_reset(put);
			*wrote = true;
		}
		if (!rc) {
			memcpy(l->keys_stored[c], print, sizeof print);
			l->keys_known |= 1u << c;
		}
		free(bytes);
	}
	rig_sqlite__finish(get);
	rig_sqlite__finish(put);
	return rc;
}

static int write_layer(sqlite3 *db, const struct rig_shot_model *m, struct rig_model_layer *l,
		       long long to_version)
{
	sqlite3_stmt *st = NULL;
	int rc = rig_sqlite__prepare(
		&st, db,
		l->is_new ? "INSERT INTO layers(name, kind, parent_id, position_x,"
			    " position_y, rotation, scale_x, scale_y, pivot_x, pivot_y,"
			    " time_offset, keys, keys_rows, shot_id, id, ord, since)"
			    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, x'', 1, ?, ?, ?, ?)"
			  : "UPDATE layers SET name = ?1, kind = ?2, parent_id = ?3,"
			    " position_x = ?4, position_y = ?5, rotation = ?6, scale_x = ?7,"
			    " scale_y = ?8, pivot_x = ?9, pivot_y = ?10, time_offset = ?11,"
			    " keys = x'', keys_rows = 1, since = ?15 WHERE shot_id = ?12"
			    " AND id = ?13 AND ord = ?14"); /* ord binds too: one statement shape */
	if (rc)
		goto out;
	sqlite3_bind_text(st, 1, l->name, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, l->kind == RIG_LAYER_MESH ? "mesh" : "group", -1, SQLITE_STATIC);
	if (l->parent_id[0])
		sqlite3_bind_text(st, 3, l->parent_id, -1, SQLITE_STATIC);
	else
		sqlite3_bind_null(st, 3);
	for (int c = 0; c < RIG_CH_COUNT; c++)
		sqlite3_bind_double(st, 4 + c, l->statics.ch[c]);
	sqlite3_bind_double(st, 11, l->time_offset);
	sqlite3_bind_text(st, 12, m->id, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 13, l->id, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 14, l->ord);
	sqlite3_bind_int64(st, 15, to_version);
	rc = rig_sqlite__step_done(st);
out:
	rig_sqlite__finish(st);
	return rc;
}

int rig_shot_save(struct rig_tx *tx, struct rig_shot_model *m, long long to_version)
{
	sqlite3 *db = tx->conn;
	/* Per layer: 1 its keys wrote rows, 2 storage holds its row as it is. */
	unsigned char *state = calloc(m->n_layers ? m->n_layers : 1, 1);
	if (!state)
		return -RIG_INTERNAL;
	/* The keys first, so the archive knows the layers nothing changed in;
	 * then the head rows as they were; then deletions, so an id deleted and
	 * created again in one batch is free. */
	int rc = 0;
	for (size_t i = 0; i < m->n_layers && !rc; i++) {
		struct rig_model_layer *l = &m->layers[i];
		bool wrote = false;
		if (l->dirty && !l->deleted)
			rc = write_key_rows(db, m, l, to_version, &wrote);
		state[i] = wrote ? KEYS_WRITTEN : 0;
	}
	if (!rc)
		rc = write_archive(db, m, to_version, state);
	for (size_t i = 0; i < m->n_layers && !rc; i++) {
		const struct rig_model_layer *l = &m->layers[i];
		if (l->deleted && !l->is_new)
			rc = delete_layer(db, m, l->id, to_version);
	}
	for (size_t i = 0; i < m->n_layers && !rc; i++) {
		struct rig_model_layer *l = &m->layers[i];
		if (l->deleted)
			continue;
		if (l->dirty && !(state[i] & ROW_STORED))
			rc = write_layer(db, m, l, to_version);
		if (!rc && l->binding.dirty)
			rc = write_binding(db, m, l, to_version);
	}
	if (!rc && m->constraints_dirty)
		rc = write_constraints(db, m, to_version);
	free(state);
	return rc;
}

int rig_shot_set_version(struct rig_tx *tx, const char *shot_id, long long from, long long to)
{
	sqlite3 *db = tx->conn;
	sqlite3_stmt *st = NULL;
	int rc = rig_sqlite__prepare(&st, db,
				     "UPDATE shots SET version = ? WHERE id = ? AND version = ?");
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, to);
	sqlite3_bind_text(st, 2, shot_id, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 3, from);
	rc = rig_sqlite__step_done(st);
	if (rc == 0 && sqlite3_changes(db) != 1)
		rc = -RIG_VERSION_CONFLICT;
	rig_sqlite__finish(st);
	return rc;
}
