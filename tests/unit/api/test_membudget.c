/* The memory budget: all-or-nothing reservations, settling, jansson's parse
 * charged to a claim and failing past the budget. */
#include <criterion/criterion.h>
#include <jansson.h>
#include <string.h>

#include "api/util/membudget.h"

Test(membudget, reserves_all_or_nothing_and_settles)
{
	struct rig_membudget *b = rig_membudget_new(1000);
	struct rig_mem_claim a = {0}, c = {0};
	cr_assert(rig_membudget_reserve(b, &a, 600));
	cr_assert_not(rig_membudget_reserve(b, &c, 500));
	cr_assert_eq(c.reserved, 0);
	cr_assert_eq(rig_membudget_used(b), 600);
	cr_assert(rig_membudget_reserve(b, &c, 400));
	rig_membudget_settle(b, &a);
	cr_assert_eq(a.reserved, 0);
	cr_assert_eq(rig_membudget_used(b), 400);
	cr_assert_not(rig_membudget_reserve(b, &a, 1001), "larger than the whole budget");
	rig_membudget_settle(b, &c);
	cr_assert_eq(rig_membudget_used(b), 0);
	rig_membudget_free(b);
}

Test(membudget, a_parse_past_the_budget_fails_and_says_so)
{
	struct rig_membudget *b = rig_membudget_new(64 << 10);
	struct rig_mem_claim claim = {0};
	size_t n = 20000;
	char *text = malloc(3 * n + 2);
	text[0] = '[';
	for (size_t i = 0; i < n; i++)
		memcpy(text + 1 + 3 * i, i + 1 < n ? "[]," : "[]]", 3);
	text[3 * n + 1] = '\0';
	rig_membudget_parse_begin(b, &claim);
	json_t *doc = json_loads(text, 0, NULL);
	cr_assert(rig_membudget_parse_end(), "the failed allocation is reported");
	cr_assert_null(doc);
	rig_membudget_settle(b, &claim);
	cr_assert_eq(rig_membudget_used(b), 0);
	/* small documents parse within the budget, and nothing fails */
	rig_membudget_parse_begin(b, &claim);
	doc = json_loads("[[],[],{\"a\":1}]", 0, NULL);
	cr_assert_not(rig_membudget_parse_end());
	cr_assert_not_null(doc);
	json_decref(doc);
	rig_membudget_settle(b, &claim);
	free(text);
	rig_membudget_free(b);
}

Test(membudget, unlimited_budget_admits_everything)
{
	struct rig_membudget *b = rig_membudget_new(0);
	struct rig_mem_claim a = {0};
	cr_assert(rig_membudget_reserve(b, &a, (size_t)1 << 40));
	rig_membudget_settle(b, &a);
	cr_assert(rig_membudget_reserve(NULL, &a, 5), "no budget at all admits too");
	rig_membudget_free(b);
}
