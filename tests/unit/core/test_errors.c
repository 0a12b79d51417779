/* Unit tests of core/codes.c and core/err.c: the code table lookups and the
 * bounded error list. */
#include <criterion/criterion.h>
#include <string.h>

#include "core/codes.h"
#include "core/err.h"

Test(codes, every_code_round_trips_through_its_name)
{
	for (int i = 1; i < RIG_CODE_COUNT; i++) {
		const char *name = rig_code_name((enum rig_code)i);
		cr_expect_eq(rig_code_from_name(name), (enum rig_code)i, "%s", name);
		cr_expect_gt(strlen(rig_code_title((enum rig_code)i)), 0);
		cr_expect_gt(strlen(rig_code_rule((enum rig_code)i)), 0);
		cr_expect_gt(strlen(rig_code_fix((enum rig_code)i)), 0);
	}
	cr_expect_eq(rig_code_from_name("NO_SUCH_CODE"), RIG_OK);
}

Test(codes, skin_codes_answer_422_and_out_of_range_is_internal)
{
	cr_expect_eq(rig_code_status(RIG_SKIN_WEIGHTS), 422);
	cr_expect_eq(rig_code_status(RIG_LAYER_LOCKED), 423);
	cr_expect_str_eq(rig_code_name(RIG_OK), "OK");
	cr_expect_str_eq(rig_code_name((enum rig_code)9999), "INTERNAL");
}

Test(errs, keeps_the_first_entries_and_counts_the_rest)
{
	struct rig_errs *errs = rig_errs_new();
	cr_assert_not_null(errs);
	cr_expect_not(rig_errs_any(errs));
	for (int i = 0; i < RIG_ERRS_KEEP + 10; i++) {
		struct rig_err *e = rig_errs_add(errs, RIG_SKIN_WEIGHTS, "vertex %d", i);
		cr_assert_not_null(e);
		e->vertex_index = i;
	}
	cr_expect(rig_errs_any(errs));
	cr_expect_eq(errs->count, RIG_ERRS_KEEP);
	cr_expect_eq(errs->total, RIG_ERRS_KEEP + 10);
	cr_expect_eq(errs->items[RIG_ERRS_KEEP - 1].vertex_index, RIG_ERRS_KEEP - 1);
	cr_expect_str_eq(errs->items[3].detail, "vertex 3");
	rig_errs_free(errs);
}

Test(errs, new_entries_start_with_no_indices)
{
	struct rig_errs *errs = rig_errs_new();
	cr_assert_not_null(errs);
	struct rig_err *e = rig_errs_add(errs, RIG_MESH_TOPOLOGY, "x");
	cr_expect_eq(e->triangle_index, RIG_NO_INDEX);
	cr_expect_eq(e->vertex_index, RIG_NO_INDEX);
	cr_expect_eq(e->joint_index, RIG_NO_INDEX);
	cr_expect_str_eq(e->pointer, "");
	cr_expect_not(e->has_frame);
	rig_errs_free(errs);
}

Test(errs, scope_prefixes_pointers_and_sets_the_op_index)
{
	struct rig_errs *errs = rig_errs_new();
	cr_assert_not_null(errs);
	struct rig_err *a = rig_errs_add(errs, RIG_SKIN_WEIGHTS, "a");
	rig_strlcpy(a->pointer, "/weights/2", sizeof a->pointer);
	struct rig_err *b = rig_errs_add(errs, RIG_SKIN_BIND, "b");
	rig_strlcpy(b->pointer, "/joints/0/bind", sizeof b->pointer);
	rig_errs_scope(errs, 1, 3, "/ops/3/skin");
	cr_expect_str_eq(errs->items[0].pointer, "/weights/2", "entries before from are untouched");
	cr_expect_eq(errs->items[0].op_index, RIG_NO_INDEX);
	cr_expect_str_eq(errs->items[1].pointer, "/ops/3/skin/joints/0/bind");
	cr_expect_eq(errs->items[1].op_index, 3);
	rig_errs_free(errs);
}

Test(errs, number_extras_skip_non_finite_values)
{
	struct rig_errs *errs = rig_errs_new();
	cr_assert_not_null(errs);
	struct rig_err *e = rig_errs_add(errs, RIG_SKIN_WEIGHTS, "x");
	rig_err_extra_number(e, "sum", 0.75);
	rig_err_extra_number(e, "weight", 1.0 / 0.0);
	rig_err_extra(e, "op", "a");
	cr_assert_eq(e->n_extra, 2);
	cr_expect(e->extra[0].is_number);
	cr_expect_eq(e->extra[0].number, 0.75);
	cr_expect_not(e->extra[1].is_number);
	cr_expect_str_eq(e->extra[1].value, "a");
	rig_errs_free(errs);
}

Test(errs, a_list_keeps_sixteen_items_of_the_longest_ids)
{
	struct rig_errs *errs = rig_errs_new();
	cr_assert_not_null(errs);
	struct rig_err *e = rig_errs_add(errs, RIG_SKIN_WEIGHTS, "x");
	char id[RIG_ID_MAX + 1];
	memset(id, 'j', RIG_ID_MAX);
	id[RIG_ID_MAX] = '\0';
	for (int i = 0; i < RIG_ERR_LIST_JOINTS; i++)
		cr_expect(rig_err_list_add(e, "validJointIds", id), "item %d", i);
	cr_expect_not(rig_err_list_add(e, "validJointIds", "one-more"));
	cr_expect_not(rig_err_list_add(e, "validOps", "x"));
	cr_expect_eq(e->list.n, RIG_ERR_LIST_JOINTS);
	cr_expect_str_eq(e->list.name, "validJointIds");
	cr_expect_str_eq(e->list.items + 15 * (RIG_ID_MAX + 1), id);
	/* Short names: up to RIG_ERR_LIST_ITEMS of them, then no more. */
	rig_errs_init(errs);
	e = rig_errs_add(errs, RIG_OP_UNKNOWN, "z");
	for (int i = 0; i < RIG_ERR_LIST_ITEMS; i++)
		cr_expect(rig_err_list_add(e, "validOps", "op"), "item %d", i);
	cr_expect_not(rig_err_list_add(e, "validOps", "op"));
	cr_expect_eq(e->list.n, RIG_ERR_LIST_ITEMS);
	/* A reused entry starts without a list. */
	rig_errs_init(errs);
	e = rig_errs_add(errs, RIG_SKIN_WEIGHTS, "y");
	cr_expect_eq(e->list.n, 0);
	cr_expect_str_eq(e->list.name, "");
	rig_errs_free(errs);
}
