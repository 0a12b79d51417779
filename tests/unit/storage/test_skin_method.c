/* A skin's method in its stored form (storage/skin_bytes.h): an lbs skin's
 * parts are the bytes they were before methods existed (pinned), a dqs skin's
 * joints part ends with the method's trailer inside its last chunk, damaged
 * trailers are refused, and through the SQLite history every version reads
 * back its own method. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bare_tx.h" /* the backend's: tests/unit/storage/<backend>/ */
#include "core/codes.h"
#include "core/skin.h"
#include "history_fixture.h"
#include "storage/chunks.h"
#include "storage/shot_repo.h"
#include "storage/skin_bytes.h"

/* n_joints joints with ids, layers and binds; 300 vertices of 1–8 influences. */
static struct rig_skin_def make(size_t n_joints)
{
	struct rig_skin_def d = {0};
	size_t n = 300;
	d.n_verts = d.n_weight_lists = n;
	d.source = malloc(2 * n * sizeof(double));
	for (size_t i = 0; i < 2 * n; i++)
		d.source[i] = (double)i / 4.0;
	d.n_tris = n - 2;
	d.triangles = malloc(3 * d.n_tris * sizeof(uint32_t));
	for (size_t t = 0; t < 3 * d.n_tris; t++)
		d.triangles[t] = (uint32_t)(t / 3 + t % 3);
	d.n_joints = n_joints;
	d.joints = calloc(d.n_joints, sizeof *d.joints);
	for (size_t j = 0; j < d.n_joints; j++) {
		snprintf(d.joints[j].id, sizeof d.joints[j].id, "j%zu", j);
		snprintf(d.joints[j].layer_id, sizeof d.joints[j].layer_id, "L%zu", j);
		for (int e = 0; e < 6; e++)
			d.joints[j].bind.m[e] = (double)(j + 1) / (double)(e + 3);
	}
	d.weight_offsets = malloc((n + 1) * sizeof(uint32_t));
	d.influences = malloc(8 * n * sizeof *d.influences);
	uint32_t k = 0;
	for (size_t v = 0; v < n; v++) {
		d.weight_offsets[v] = k;
		for (size_t i = 0; i < 1 + v % 8; i++, k++)
			d.influences[k] =
				(struct rig_skin_influence){(uint32_t)i, 1.0 / (double)(1 + v % 8)};
	}
	d.weight_offsets[n] = k;
	return d;
}

static uint64_t fnv(const unsigned char *p, size_t n, uint64_t h)
{
	for (size_t i = 0; i < n; i++) {
		h ^= p[i];
		h *= 0x100000001b3u;
	}
	return h;
}

Test(skin_method_bytes, an_lbs_skin_stores_the_bytes_it_stored_before_methods)
{
	/* The hash of every part's bytes and bounds, computed with the encoder of
	 * the commit before skin methods (main at 70dbb08) on this definition. */
	struct rig_skin_def d = make(70);
	uint64_t h = 0xcbf29ce484222325u;
	for (size_t i = 0; i < RIG_SKIN_N_PARTS; i++) {
		struct rig_chunk_bytes b;
		cr_assert_eq(rig_chunks_skin_part_encode(&b, rig_chunks_skin_parts[i], &d), 0);
		h = fnv(b.data, b.size, h);
		for (size_t c = 0; c <= b.n; c++) {
			uint64_t x = b.bounds[c]; /* as the pinning run hashed them: LE host */
			h = fnv((const unsigned char *)&x, 8, h);
		}
		rig_chunk_bytes_release(&b, 1);
	}
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	cr_expect_eq(h, 0x85cbe266365e5161u);
#endif
	size_t size = 0;
	unsigned char *joints = rig_blob_joints_encode(&size, &d);
	cr_assert_not_null(joints);
	cr_expect_eq(size, 70 * RIG_JOINT_RECORD_BYTES, "records only");
	free(joints);
	rig_skin_def_release(&d);
}

Test(skin_method_bytes, a_dqs_skin_ends_its_last_joints_chunk_with_the_trailer)
{
	static const size_t counts[] = {1, 63, 64, 65, 70, 128, 256};
	for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++) {
		struct rig_skin_def d = make(counts[c]);
		d.method = RIG_SKIN_DQS;
		struct rig_chunk_bytes b;
		cr_assert_eq(rig_chunks_skin_part_encode(&b, RIG_PART_JOINTS, &d), 0);
		size_t records = counts[c] * RIG_JOINT_RECORD_BYTES;
		cr_expect_eq(b.size, records + RIG_SKIN_METHOD_TRAILER_BYTES);
		cr_expect_eq(b.n,
			     rig_chunks_skin_part_count(RIG_PART_JOINTS, 0, 0, counts[c], false),
			     "%zu joints: the records' chunk count", counts[c]);
		cr_expect_eq(b.bounds[b.n], b.size);
		for (size_t i = 0; i < b.n; i++)
			cr_expect_eq(b.bounds[i], i * RIG_CHUNK_JOINTS * RIG_JOINT_RECORD_BYTES);
		cr_expect_leq(b.bounds[b.n] - b.bounds[b.n - 1], 16384);
		cr_expect_eq(memcmp(b.data + records, "dqs\0\0\0\0\0", 8), 0);
		struct rig_skin_def back = {0};
		cr_assert_eq(rig_blob_joints_decode(&back, counts[c], b.data, b.size), 0);
		cr_expect_eq(back.method, RIG_SKIN_DQS);
		cr_expect_str_eq(back.joints[counts[c] - 1].id, d.joints[counts[c] - 1].id);
		rig_skin_def_release(&back);
		/* the same skin as lbs: the records alone, bytes for bytes */
		d.method = RIG_SKIN_LBS;
		struct rig_chunk_bytes l;
		cr_assert_eq(rig_chunks_skin_part_encode(&l, RIG_PART_JOINTS, &d), 0);
		cr_expect_eq(l.size, records);
		cr_expect_eq(memcmp(l.data, b.data, records), 0);
		cr_assert_eq(rig_blob_joints_decode(&back, counts[c], l.data, l.size), 0);
		cr_expect_eq(back.method, RIG_SKIN_LBS);
		rig_skin_def_release(&back);
		rig_chunk_bytes_release(&l, 1);
		rig_chunk_bytes_release(&b, 1);
		rig_skin_def_release(&d);
	}
}

Test(skin_method_bytes, a_damaged_or_unknown_trailer_is_refused)
{
	struct rig_skin_def d = make(3);
	size_t records = 3 * RIG_JOINT_RECORD_BYTES;
	unsigned char buf[3 * RIG_JOINT_RECORD_BYTES + 16];
	size_t size = 0;
	unsigned char *joints = rig_blob_joints_encode(&size, &d);
	cr_assert_not_null(joints);
	memcpy(buf, joints, records);
	free(joints);
	static const char *const bad[] = {"lbs", "xyz", "DQS", "dqs\0x", "", "dqsdqsdq"};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		memset(buf + records, 0, 8);
		memcpy(buf + records, bad[i], i == 3 ? 5 : strlen(bad[i]));
		struct rig_skin_def back = {0};
		cr_expect_eq(rig_blob_joints_decode(&back, 3, buf, records + 8), -1, "trailer %zu",
			     i);
		rig_skin_def_release(&back);
	}
	struct rig_skin_def back = {0};
	cr_expect_eq(rig_blob_joints_decode(&back, 3, buf, records + 4), -1, "a short trailer");
	rig_skin_def_release(&back);
	d.method = (enum rig_skin_method)9;
	cr_expect_null(rig_blob_joints_encode(&size, &d), "no bytes for an unknown method");
	struct rig_chunk_bytes b;
	cr_expect_eq(rig_chunks_skin_part_encode(&b, RIG_PART_JOINTS, &d), -RIG_INTERNAL);
	rig_chunk_bytes_release(&b, 1);
	rig_skin_def_release(&d);
}

/* ---- through the SQLite history ---- */

/* The method of layer "m"'s skin at version v: as the shot loads it (joints
 * only) and as its arrays read back. */
static enum rig_skin_method method_at(struct rig_tx *tx, long long v)
{
	struct rig_shot_model m;
	cr_assert_eq(rig_shot_load_at(&m, tx, "s", v), 0);
	struct rig_model_layer *l = rig_shot_model_find(&m, "m");
	cr_assert_not_null(l);
	enum rig_skin_method loaded = ((const struct rig_skin_def *)l->binding.def)->method;
	void *def = NULL;
	cr_assert_eq(rig_shot_read_binding(&def, tx, &m, l), 0);
	cr_expect_eq(((struct rig_skin_def *)def)->method, loaded, "version %lld", v);
	rig_binding_skin.def_free(def);
	rig_shot_model_release(&m);
	return loaded;
}

/* Replaces layer "m"'s skin with a copy of the loaded one of this method. */
static void set_method(struct rig_tx *tx, struct rig_shot_model *m, enum rig_skin_method method)
{
	struct rig_model_layer *l = rig_shot_model_find(m, "m");
	cr_assert_eq(rig_shot_load_binding(tx, m, l), 0);
	struct rig_skin_def *next = calloc(1, sizeof *next);
	cr_assert_eq(rig_skin_def_copy(next, l->binding.def), 0);
	next->method = method;
	rig_model_binding_set(l, &rig_binding_skin, next);
}

Test(skin_method_history, every_version_reads_back_its_own_method)
{
	struct rig_tx *tx = bare_tx_with_shot();
	struct rig_shot_model m;
	cr_assert_eq(rig_shot_load(&m, tx, "s"), 0);
	struct rig_model_layer *l = rig_shot_model_add(&m, "m", "Mesh", RIG_LAYER_MESH, NULL);
	rig_model_binding_set(l, &rig_binding_skin, strip_skin(3000));
	commit(tx, &m); /* v1: lbs */
	set_method(tx, &m, RIG_SKIN_DQS);
	commit(tx, &m); /* v2: dqs, the same arrays */
	cr_expect_eq(bare_tx_int(tx, "SELECT count(*) FROM binding_chunks WHERE revision = 2"), 1,
		     "one chunk: the joints with their trailer");
	cr_expect_eq(bare_tx_int(tx, "SELECT part FROM binding_chunks WHERE revision = 2"),
		     RIG_PART_JOINTS);
	cr_expect_eq(bare_tx_int(tx, "SELECT length(data) FROM binding_chunks WHERE revision = 2"),
		     2 * RIG_JOINT_RECORD_BYTES + RIG_SKIN_METHOD_TRAILER_BYTES);
	l = rig_shot_model_find(&m, "m");
	free(l->name);
	l->name = strdup("Renamed");
	l->dirty = true;
	commit(tx, &m); /* v3: a rename keeps the skin's revision and method */
	set_method(tx, &m, RIG_SKIN_LBS);
	commit(tx, &m); /* v4: lbs again */
	cr_expect_eq(bare_tx_int(tx, "SELECT length(data) FROM binding_chunks WHERE revision = 4"),
		     2 * RIG_JOINT_RECORD_BYTES, "lbs: the records alone");
	rig_shot_model_release(&m);
	static const enum rig_skin_method want[5] = {0, RIG_SKIN_LBS, RIG_SKIN_DQS, RIG_SKIN_DQS,
						     RIG_SKIN_LBS};
	for (long long v = 1; v <= 4; v++)
		cr_expect_eq(method_at(tx, v), want[v], "version %lld", v);
	bare_tx_close(tx);
}
