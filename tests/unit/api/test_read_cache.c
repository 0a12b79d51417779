/* The read cache: keys, revisions, the byte bound, holds that outlive
 * eviction, and concurrent use. Values are skin evaluators, as in rigd. */
#include <criterion/criterion.h>
#include <pthread.h>

#include "api/eval/read_cache.h"
#include "core/skin.h"

/* A one-triangle skin whose first source x is x0, so tests can tell skins apart. */
static struct rig_skin *tiny_skin(double x0)
{
	double source[6] = {x0, 0, x0 + 1, 0, x0, 1};
	uint32_t tris[3] = {0, 1, 2};
	struct rig_skin_joint joint = {.id = "j", .bind = {{1, 0, 0, 1, 0, 0}}};
	uint32_t offsets[4] = {0, 1, 2, 3};
	struct rig_skin_influence infl[3] = {{0, 1.0}, {0, 1.0}, {0, 1.0}};
	struct rig_skin_def def = {.source = source,
				   .n_verts = 3,
				   .triangles = tris,
				   .n_tris = 1,
				   .joints = &joint,
				   .n_joints = 1,
				   .weight_offsets = offsets,
				   .influences = infl,
				   .n_weight_lists = 3};
	struct rig_errs *errs = rig_errs_new();
	cr_assert_not_null(errs);
	struct rig_skin *skin = rig_skin_new(&def, errs);
	cr_assert_not_null(skin);
	rig_errs_free(errs);
	return skin;
}

static double x0_of(const struct rig_read_ref *ref)
{
	return rig_skin_def_of(rig_read_ref_value(ref))->source[0];
}

static void free_skin(void *skin)
{
	rig_skin_free(skin);
}

/* Files a new tiny skin under (seq, name, rev). */
static struct rig_read_ref *put(struct rig_read_cache *c, long long seq, const char *name,
				long long rev, double x0)
{
	struct rig_skin *skin = tiny_skin(x0);
	return rig_read_cache_put(c, seq, name, rev, skin, rig_skin_bytes(skin), free_skin);
}

static size_t one_entry_bytes(void)
{
	struct rig_read_cache *c = rig_read_cache_new(1 << 20);
	rig_read_cache_release(c, put(c, 1, "m", 1, 0));
	size_t n, bytes;
	rig_read_cache_stats(c, &n, &bytes);
	rig_read_cache_free(c);
	return bytes;
}

Test(read_cache, a_put_skin_is_found_under_its_key_only)
{
	struct rig_read_cache *c = rig_read_cache_new(1 << 20);
	cr_assert_null(rig_read_cache_get(c, 1, "m", 3));
	struct rig_read_ref *filed = put(c, 1, "m", 3, 7);
	struct rig_read_ref *got = rig_read_cache_get(c, 1, "m", 3);
	cr_assert_eq(got, filed);
	cr_assert_eq(x0_of(got), 7);
	cr_assert_null(rig_read_cache_get(c, 1, "m", 4), "another revision");
	cr_assert_null(rig_read_cache_get(c, 2, "m", 3), "another shot (a re-created one)");
	cr_assert_null(rig_read_cache_get(c, 1, "n", 3), "another layer");
	rig_read_cache_release(c, filed);
	rig_read_cache_release(c, got);
	rig_read_cache_free(c);
}

Test(read_cache, a_second_put_of_the_same_row_shares_the_first)
{
	struct rig_read_cache *c = rig_read_cache_new(1 << 20);
	struct rig_read_ref *a = put(c, 1, "m", 3, 1);
	struct rig_read_ref *b = put(c, 1, "m", 3, 2);
	cr_assert_eq(a, b);
	cr_assert_eq(x0_of(b), 1, "the first prepared evaluator is kept");
	size_t n, bytes;
	rig_read_cache_stats(c, &n, &bytes);
	cr_assert_eq(n, 1);
	rig_read_cache_release(c, a);
	rig_read_cache_release(c, b);
	rig_read_cache_free(c);
}

Test(read_cache, a_newer_revision_replaces_the_older_and_an_older_one_stays_private)
{
	struct rig_read_cache *c = rig_read_cache_new(1 << 20);
	rig_read_cache_release(c, put(c, 1, "m", 3, 3));
	struct rig_read_ref *held_old = rig_read_cache_get(c, 1, "m", 3);
	rig_read_cache_release(c, put(c, 1, "m", 5, 5));
	cr_assert_null(rig_read_cache_get(c, 1, "m", 3));
	cr_assert_eq(x0_of(held_old), 3, "a held evaluator outlives its replacement");
	rig_read_cache_release(c, held_old);

	/* A reader in an older snapshot prepares revision 4 after 5 was filed. */
	struct rig_read_ref *late = put(c, 1, "m", 4, 4);
	cr_assert_eq(x0_of(late), 4);
	struct rig_read_ref *current = rig_read_cache_get(c, 1, "m", 5);
	cr_assert_not_null(current, "the newer revision stays filed");
	cr_assert_null(rig_read_cache_get(c, 1, "m", 4));
	size_t n, bytes;
	rig_read_cache_stats(c, &n, &bytes);
	cr_assert_eq(n, 1);
	rig_read_cache_release(c, late);
	rig_read_cache_release(c, current);
	rig_read_cache_free(c);
}

Test(read_cache, the_byte_bound_evicts_the_least_recently_used)
{
	size_t each = one_entry_bytes();
	struct rig_read_cache *c = rig_read_cache_new(2 * each);
	rig_read_cache_release(c, put(c, 1, "a", 1, 1));
	rig_read_cache_release(c, put(c, 1, "b", 1, 2));
	struct rig_read_ref *a = rig_read_cache_get(c, 1, "a", 1); /* a is now the newest */
	cr_assert_not_null(a);
	rig_read_cache_release(c, put(c, 1, "c", 1, 3));
	size_t n, bytes;
	rig_read_cache_stats(c, &n, &bytes);
	cr_assert_eq(n, 2);
	cr_assert_eq(bytes, 2 * each);
	cr_assert_null(rig_read_cache_get(c, 1, "b", 1), "b was the least recently used");
	struct rig_read_ref *c_ref = rig_read_cache_get(c, 1, "c", 1);
	cr_assert_not_null(c_ref);

	/* Evicting a held entry leaves it usable until released. */
	rig_read_cache_release(c, put(c, 1, "d", 1, 4));
	rig_read_cache_release(c, put(c, 1, "e", 1, 5));
	cr_assert_null(rig_read_cache_get(c, 1, "a", 1));
	cr_assert_eq(x0_of(a), 1);
	rig_read_cache_release(c, a);
	rig_read_cache_release(c, c_ref);
	rig_read_cache_free(c);
}

Test(read_cache, a_zero_bound_or_a_skin_larger_than_the_bound_stays_private)
{
	size_t each = one_entry_bytes();
	size_t bounds[2] = {0, each - 1};
	for (int i = 0; i < 2; i++) {
		struct rig_read_cache *c = rig_read_cache_new(bounds[i]);
		struct rig_read_ref *r = put(c, 1, "m", 1, 9);
		cr_assert_not_null(r);
		cr_assert_eq(x0_of(r), 9);
		cr_assert_null(rig_read_cache_get(c, 1, "m", 1));
		size_t n, bytes;
		rig_read_cache_stats(c, &n, &bytes);
		cr_assert_eq(n + bytes, 0);
		rig_read_cache_release(c, r);
		rig_read_cache_free(c);
	}
}

static void *churn(void *arg)
{
	struct rig_read_cache *c = arg;
	static const char *layers[] = {"a", "b", "c"};
	for (int i = 0; i < 2000; i++) {
		const char *layer = layers[i % 3];
		long long rev = 1 + i % 5;
		struct rig_read_ref *r = rig_read_cache_get(c, 1, layer, rev);
		if (!r)
			r = put(c, 1, layer, rev, (double)rev);
		cr_assert_eq(x0_of(r), (double)rev);
		rig_read_cache_release(c, r);
	}
	return NULL;
}

Test(read_cache, concurrent_users_always_get_the_skin_of_their_key)
{
	struct rig_read_cache *c = rig_read_cache_new(2 * one_entry_bytes());
	pthread_t t[4];
	for (int i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, churn, c);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	size_t n, bytes;
	rig_read_cache_stats(c, &n, &bytes);
	cr_assert_leq(n, 2);
	rig_read_cache_free(c);
}
