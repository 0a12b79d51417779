/* Typed field reads: each problem recorded with its pointer, valid fields pass. */
#include <criterion/criterion.h>
#include <jansson.h>

#include "api/util/jsonread.h"

static json_t *obj(const char *text)
{
	json_t *o = json_loads(text, 0, NULL);
	cr_assert_not_null(o);
	return o;
}

Test(jsonread, reports_each_bad_field_with_its_pointer)
{
	struct rig_errs *errs = rig_errs_new();
	cr_assert_not_null(errs);
	struct rig_jr jr = {errs, RIG_OP_INVALID, "/ops/2", 2};
	json_t *o = obj("{\"id\": \"bad id\", \"n\": \"3\", \"k\": 1.5, \"extra\": 1}");
	static const char *const allowed[] = {"id", "n", "k", NULL};
	char id[RIG_ID_MAX + 1] = "";
	double n;
	long long k;
	rig_jr_known(&jr, o, allowed);
	rig_jr_id(&jr, o, "id", true, false, id, NULL);
	rig_jr_number(&jr, o, "n", true, &n, NULL);
	rig_jr_int(&jr, o, "k", true, 0, 10, &k, NULL);
	rig_jr_string(&jr, o, "missing", true, 10, &(const char *){NULL});
	cr_assert_eq(errs->count, 5);
	const char *pointers[] = {"/ops/2/extra", "/ops/2/id", "/ops/2/n", "/ops/2/k",
				  "/ops/2/missing"};
	for (size_t i = 0; i < 5; i++) {
		cr_assert_str_eq(errs->items[i].pointer, pointers[i]);
		cr_assert_eq(errs->items[i].op_index, 2);
		cr_assert_eq(errs->items[i].code, RIG_OP_INVALID);
	}
	json_decref(o);
	rig_errs_free(errs);
}

Test(jsonread, accepts_valid_fields_and_integral_reals)
{
	struct rig_errs *errs = rig_errs_new();
	cr_assert_not_null(errs);
	struct rig_jr jr = {errs, RIG_INVALID_FIELD, "", RIG_NO_INDEX};
	json_t *o = obj("{\"id\": \"a-b_c.d:1\", \"k\": 3.0, \"p\": null}");
	char id[RIG_ID_MAX + 1] = "", p[RIG_ID_MAX + 1] = "";
	long long k = 0;
	bool is_null = false;
	cr_assert_eq(rig_jr_id(&jr, o, "id", true, false, id, NULL), 0);
	cr_assert_eq(rig_jr_int(&jr, o, "k", true, 0, 10, &k, NULL), 0);
	cr_assert_eq(rig_jr_id(&jr, o, "p", true, true, p, &is_null), 0);
	cr_assert_str_eq(id, "a-b_c.d:1");
	cr_assert_eq(k, 3);
	cr_assert(is_null);
	cr_assert_eq(errs->total, 0);
	json_decref(o);
	rig_errs_free(errs);
}

Test(jsonread, ids_stop_at_64_characters)
{
	struct rig_errs *errs = rig_errs_new();
	cr_assert_not_null(errs);
	struct rig_jr jr = {errs, RIG_INVALID_FIELD, "", RIG_NO_INDEX};
	char ok64[65], bad65[66], text[200];
	memset(ok64, 'a', 64);
	ok64[64] = '\0';
	memset(bad65, 'a', 65);
	bad65[65] = '\0';
	char out[RIG_ID_MAX + 1];
	snprintf(text, sizeof text, "{\"a\": \"%s\", \"b\": \"%s\"}", ok64, bad65);
	json_t *o = obj(text);
	cr_assert_eq(rig_jr_id(&jr, o, "a", true, false, out, NULL), 0);
	cr_assert_eq(rig_jr_id(&jr, o, "b", true, false, out, NULL), -1);
	json_decref(o);
	rig_errs_free(errs);
}

Test(jsonread, an_unknown_field_names_the_nearest_and_the_valid_ones)
{
	struct rig_errs *errs = rig_errs_new();
	cr_assert_not_null(errs);
	struct rig_jr jr = {errs, RIG_OP_INVALID, "/ops/0", 0};
	static const char *const allowed[] = {"op", "layerId", "vertexIndex", NULL};
	json_t *o = obj("{\"op\": 1, \"layerid\": 1, \"vertexIndx\": 1, \"q\": 1, \"zzzzzz\": 1}");
	cr_expect_eq(rig_jr_known(&jr, o, allowed), -1);
	cr_assert_eq(errs->count, 4);
	const char *want[4][2] = {{"/ops/0/layerid", "layerId"},
				  {"/ops/0/vertexIndx", "vertexIndex"},
				  {"", NULL},
				  {"", NULL}};
	for (size_t i = 0; i < errs->count; i++) {
		const struct rig_err *e = &errs->items[i];
		cr_expect_str_eq(e->list.name, "validFields");
		cr_expect_eq(e->list.n, 3);
		if (!want[i][1])
			continue;
		cr_expect_str_eq(e->pointer, want[i][0]);
		cr_assert_eq(e->n_extra, 1);
		cr_expect_str_eq(e->extra[0].name, "didYouMean");
		cr_expect_str_eq(e->extra[0].value, want[i][1]);
	}
	/* "q" and "zzzzzz" are nowhere near a valid name. */
	cr_expect_eq(errs->items[2].n_extra, 0);
	cr_expect_eq(errs->items[3].n_extra, 0);
	json_decref(o);
	rig_errs_free(errs);
}
