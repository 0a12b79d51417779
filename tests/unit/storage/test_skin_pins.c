/* A skin's pins (skin.puppet) in its stored form (storage/skin_bytes.h): a
 * skin without pins keeps its bytes (the pinned hash of test_skin_method.c
 * holds; here: no trailer), a skin with pins ends its last joints chunk with
 * the puppet head's bytes after the method's trailer, for any joint count,
 * pins and keys read back bit for bit, damaged trailers are refused, and
 * through the SQLite history every version reads back its own pins. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bare_tx.h" /* the backend's: tests/unit/storage/<backend>/ */
#include "core/codes.h"
#include "core/puppet.h"
#include "core/skin.h"
#include "history_fixture.h"
#include "storage/chunks.h"
#include "storage/shot_repo.h"
#include "storage/skin_bytes.h"

/* n_joints joints; a tiny mesh (the joints part does not hold it). */
static struct rig_skin_def make(size_t n_joints)
{
	struct rig_skin_def d = {0};
	d.n_joints = n_joints;
	d.joints = calloc(d.n_joints, sizeof *d.joints);
	for (size_t j = 0; j < d.n_joints; j++) {
		snprintf(d.joints[j].id, sizeof d.joints[j].id, "j%zu", j);
		snprintf(d.joints[j].layer_id, sizeof d.joints[j].layer_id, "L%zu", j);
		for (int e = 0; e < 6; e++)
			d.joints[j].bind.m[e] = (double)(j + 1) / (double)(e + 3);
	}
	return d;
}

/* n pins with statics and keys on two channels; settings lbs, clamp 30°. */
static struct rig_puppet_def *pins(size_t n)
{
	struct rig_puppet_def *p = calloc(1, sizeof *p);
	p->pins = calloc(n + 1, sizeof *p->pins);
	p->n_pins = n;
	p->solver = RIG_PUPPET_SOLVER_LBS;
	p->has_max_rotation = true;
	p->max_rotation_deg = 30;
	for (size_t i = 0; i < n; i++) {
		char id[16];
		snprintf(id, sizeof id, "pin%zu", i);
		p->pins[i] = rig_puppet_pin_default(id, 0.1 * (double)i, -0.3 * (double)i);
		p->pins[i].stiffness = 0.25 * (double)i;
		p->pins[i].overlap = -(double)i;
		for (size_t k = 0; k < i % 4; k++) {
			struct rig_key key = {.frame = (double)k,
					      .value = 1.0 / (double)(k + 3),
					      .interp =
						      k % 2 ? RIG_INTERP_HOLD : RIG_INTERP_LINEAR};
			cr_assert_eq(rig_puppet_pin_key_put(&p->pins[i], RIG_PIN_CH_ROTATION, &key),
				     0);
			key.value = 1 + (double)k;
			cr_assert_eq(rig_puppet_pin_key_put(&p->pins[i], RIG_PIN_CH_SCALE, &key),
				     0);
		}
	}
	return p;
}

static bool same_bits(double a, double b)
{
	return memcmp(&a, &b, sizeof a) == 0;
}

static void expect_same_pins(const struct rig_puppet_def *a, const struct rig_puppet_def *b)
{
	cr_assert_not_null(b);
	cr_expect_eq(a->solver, b->solver);
	cr_expect_eq(a->has_max_rotation, b->has_max_rotation);
	cr_expect(same_bits(a->max_rotation_deg, b->max_rotation_deg));
	cr_assert_eq(a->n_pins, b->n_pins);
	for (size_t i = 0; i < a->n_pins; i++) {
		const struct rig_puppet_pin *x = &a->pins[i], *y = &b->pins[i];
		cr_expect_str_eq(x->id, y->id);
		for (int c = 0; c < RIG_PIN_CH_COUNT; c++) {
			cr_expect(same_bits(rig_puppet_pin_static(x, c),
					    rig_puppet_pin_static(y, c)));
			cr_assert_eq(x->keys[c].count, y->keys[c].count);
			for (size_t k = 0; k < x->keys[c].count; k++) {
				cr_expect(same_bits(x->keys[c].items[k].frame,
						    y->keys[c].items[k].frame));
				cr_expect(same_bits(x->keys[c].items[k].value,
						    y->keys[c].items[k].value));
				cr_expect_eq(x->keys[c].items[k].interp,
					     y->keys[c].items[k].interp);
			}
		}
		cr_expect(same_bits(x->overlap_extent, y->overlap_extent));
	}
}

Test(skin_pins_bytes, pins_end_the_last_joints_chunk_after_the_method_trailer)
{
	static const size_t counts[] = {1, 63, 64, 65, 128, 256};
	for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++) {
		for (int method = 0; method < RIG_SKIN_METHOD_COUNT; method++) {
			struct rig_skin_def d = make(counts[c]);
			d.method = (enum rig_skin_method)method;
			struct rig_chunk_bytes plain;
			cr_assert_eq(rig_chunks_skin_part_encode(&plain, RIG_PART_JOINTS, &d), 0);
			/* at 256 joints, 256 pins: a trailer longer than a chunk */
			d.puppet = pins(counts[c] == 256 ? 256 : 40 + counts[c]);
			struct rig_chunk_bytes b;
			cr_assert_eq(rig_chunks_skin_part_encode(&b, RIG_PART_JOINTS, &d), 0);
			size_t n_pins = 0;
			unsigned char *head = rig_puppet_pins_encode(d.puppet, &n_pins);
			cr_assert_not_null(head);
			cr_expect_eq(b.size, plain.size + n_pins);
			if (counts[c] == 256)
				cr_expect_gt(n_pins, 16384, "longer than a chunk");
			cr_expect_eq(memcmp(b.data, plain.data, plain.size), 0,
				     "the records and the method's trailer come first, unchanged");
			cr_expect_eq(memcmp(b.data + plain.size, head, n_pins), 0);
			cr_expect_eq(memcmp(b.data + plain.size, RIG_SKIN_PINS_TAG, 4), 0);
			cr_expect_eq(
				b.n,
				rig_chunks_skin_part_count(RIG_PART_JOINTS, 0, 0, counts[c], false),
				"%zu joints: the records' chunk count", counts[c]);
			for (size_t i = 0; i < b.n; i++)
				cr_expect_eq(b.bounds[i], plain.bounds[i]);
			cr_expect_eq(b.bounds[b.n], b.size);
			struct rig_skin_def back = {0};
			cr_assert_eq(rig_blob_joints_decode(&back, counts[c], b.data, b.size), 0);
			cr_expect_eq(back.method, d.method);
			cr_expect_eq(back.n_joints, counts[c]);
			expect_same_pins(d.puppet, back.puppet);
			cr_expect_null(back.puppet->source, "no rest mesh: the skin's is its");
			rig_skin_def_release(&back);
			/* without pins: no puppet */
			cr_assert_eq(
				rig_blob_joints_decode(&back, counts[c], plain.data, plain.size),
				0);
			cr_expect_null(back.puppet);
			cr_expect_eq(back.method, d.method);
			rig_skin_def_release(&back);
			free(head);
			rig_chunk_bytes_release(&b, 1);
			rig_chunk_bytes_release(&plain, 1);
			rig_skin_def_release(&d);
		}
	}
}

Test(skin_pins_bytes, an_empty_set_of_pins_is_kept_as_such)
{
	struct rig_skin_def d = make(2);
	d.puppet = calloc(1, sizeof *d.puppet); /* pins: [], solver arap */
	size_t size = 0;
	unsigned char *p = rig_blob_joints_encode(&size, &d);
	cr_assert_not_null(p);
	cr_expect_gt(size, 2 * RIG_JOINT_RECORD_BYTES);
	struct rig_skin_def back = {0};
	cr_assert_eq(rig_blob_joints_decode(&back, 2, p, size), 0);
	cr_assert_not_null(back.puppet);
	cr_expect_eq(back.puppet->n_pins, 0);
	cr_expect_eq(back.puppet->solver, RIG_PUPPET_SOLVER_ARAP);
	rig_skin_def_release(&back);
	free(p);
	rig_skin_def_release(&d);
}

Test(skin_pins_bytes, a_damaged_pins_trailer_is_refused)
{
	struct rig_skin_def d = make(3);
	d.method = RIG_SKIN_DQS;
	d.puppet = pins(5);
	size_t size = 0;
	unsigned char *p = rig_blob_joints_encode(&size, &d);
	cr_assert_not_null(p);
	size_t at = 3 * RIG_JOINT_RECORD_BYTES + RIG_SKIN_METHOD_TRAILER_BYTES;
	struct rig_skin_def back = {0};
	for (size_t cut = at + 1; cut < size; cut += 7) {
		cr_expect_eq(rig_blob_joints_decode(&back, 3, p, cut), -1, "cut at %zu", cut);
		rig_skin_def_release(&back);
	}
	unsigned char *bad = malloc(size + 1);
	memcpy(bad, p, size);
	bad[size] = 0;
	cr_expect_eq(rig_blob_joints_decode(&back, 3, bad, size + 1), -1, "a byte too many");
	rig_skin_def_release(&back);
	memcpy(bad, p, size);
	bad[at] = 'Q'; /* not a tag: read as a method's trailer, which it is not */
	cr_expect_eq(rig_blob_joints_decode(&back, 3, bad, size), -1, "a bad tag");
	rig_skin_def_release(&back);
	free(bad);
	free(p);
	rig_skin_def_release(&d);
}

/* ---- through the SQLite history ---- */

/* The pin count of layer "m"'s skin at version v (-1 without pins): as the
 * shot loads it and as its arrays read back. */
static long pins_at(struct rig_tx *tx, long long v)
{
	struct rig_shot_model m;
	cr_assert_eq(rig_shot_load_at(&m, tx, "s", v), 0);
	struct rig_model_layer *l = rig_shot_model_find(&m, "m");
	cr_assert_not_null(l);
	const struct rig_skin_def *loaded = l->binding.def;
	long n = loaded->puppet ? (long)loaded->puppet->n_pins : -1;
	void *def = NULL;
	cr_assert_eq(rig_shot_read_binding(&def, tx, &m, l), 0);
	const struct rig_skin_def *read = def;
	cr_expect_eq(read->puppet ? (long)read->puppet->n_pins : -1, n, "version %lld", v);
	if (read->puppet)
		expect_same_pins(loaded->puppet, read->puppet);
	rig_binding_skin.def_free(def);
	rig_shot_model_release(&m);
	return n;
}

/* Replaces layer "m"'s skin with a copy of the loaded one carrying n pins
 * (none when n < 0). */
static void set_pins(struct rig_tx *tx, struct rig_shot_model *m, long n)
{
	struct rig_model_layer *l = rig_shot_model_find(m, "m");
	cr_assert_eq(rig_shot_load_binding(tx, m, l), 0);
	struct rig_skin_def *next = calloc(1, sizeof *next);
	cr_assert_eq(rig_skin_def_copy(next, l->binding.def), 0);
	if (next->puppet) {
		rig_puppet_def_release(next->puppet);
		free(next->puppet);
		next->puppet = NULL;
	}
	if (n >= 0)
		next->puppet = pins((size_t)n);
	rig_model_binding_set(l, &rig_binding_skin, next);
}

Test(skin_pins_history, every_version_reads_back_its_own_pins)
{
	struct rig_tx *tx = bare_tx_with_shot();
	struct rig_shot_model m;
	cr_assert_eq(rig_shot_load(&m, tx, "s"), 0);
	struct rig_model_layer *l = rig_shot_model_add(&m, "m", "Mesh", RIG_LAYER_MESH, NULL);
	rig_model_binding_set(l, &rig_binding_skin, strip_skin(3000));
	commit(tx, &m); /* v1: no pins */
	set_pins(tx, &m, 3);
	commit(tx, &m); /* v2: three pins, the same arrays */
	cr_expect_eq(bare_tx_int(tx, "SELECT count(*) FROM binding_chunks WHERE revision = 2"), 1,
		     "one chunk: the joints with the pins' trailer");
	set_pins(tx, &m, 7);
	commit(tx, &m); /* v3: seven */
	set_pins(tx, &m, -1);
	commit(tx, &m); /* v4: none again */
	cr_expect_eq(bare_tx_int(tx, "SELECT length(data) FROM binding_chunks WHERE revision = 4"),
		     2 * RIG_JOINT_RECORD_BYTES, "no pins: the records alone");
	rig_shot_model_release(&m);
	static const long want[5] = {0, -1, 3, 7, -1};
	for (long long v = 1; v <= 4; v++)
		cr_expect_eq(pins_at(tx, v), want[v], "version %lld", v);
	bare_tx_close(tx);
}
