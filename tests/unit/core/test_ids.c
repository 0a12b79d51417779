/* The id rule (core/ids.c): 1-64 characters of [A-Za-z0-9_.:-], except the
 * dot segments "." and "..". */
#include <criterion/criterion.h>
#include <string.h>

#include "core/err.h"
#include "core/ids.h"

Test(ids, accepts_the_documented_characters)
{
	cr_expect(rig_id_is_valid("a"));
	cr_expect(rig_id_is_valid("Shot_010:take-2"));
	cr_expect(rig_id_is_valid("0"));
	cr_expect(rig_id_is_valid("-"));
}

Test(ids, rejects_the_dot_segments)
{
	cr_expect_not(rig_id_is_valid("."));
	cr_expect_not(rig_id_is_valid(".."));
	cr_expect_not(rig_id_is_valid_n("..", 2));
	cr_expect_not(rig_id_is_valid_n(".x", 1)); /* the first byte alone is "." */
	cr_expect_not(rig_id_is_valid_n("..x", 2));
}

Test(ids, keeps_other_ids_with_dots)
{
	cr_expect(rig_id_is_valid("..."));
	cr_expect(rig_id_is_valid(".a"));
	cr_expect(rig_id_is_valid("a."));
	cr_expect(rig_id_is_valid("a.."));
	cr_expect(rig_id_is_valid("..a"));
	cr_expect(rig_id_is_valid("v1.2"));
	cr_expect(rig_id_is_valid_n("...", 3));
	cr_expect(rig_id_is_valid_n(".ab", 2));
}

Test(ids, rejects_empty_long_and_foreign_characters)
{
	char long_id[RIG_ID_MAX + 2];
	memset(long_id, 'a', sizeof long_id - 1);
	long_id[sizeof long_id - 1] = '\0';
	cr_expect_not(rig_id_is_valid(""));
	cr_expect_not(rig_id_is_valid(long_id));
	long_id[RIG_ID_MAX] = '\0';
	cr_expect(rig_id_is_valid(long_id));
	cr_expect_not(rig_id_is_valid("a/b"));
	cr_expect_not(rig_id_is_valid("a b"));
	cr_expect_not(rig_id_is_valid("a%2e"));
	cr_expect_not(rig_id_is_valid_n("a\0b", 3));
}
