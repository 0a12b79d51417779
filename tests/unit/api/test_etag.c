/* If-Match parsing and matching (api/util/etag.c, RFC 9110 §8.8.3, §13.1.1). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "api/util/etag.h"

Test(if_match, star_holds_for_any_version)
{
	struct rig_if_match m;
	cr_assert_eq(rig_if_match_parse(&m, " * "), 0);
	cr_assert(m.present && m.any && !rig_if_match_constrains(&m));
	cr_assert(rig_if_match_holds(&m, 0) && rig_if_match_holds(&m, 12345));
}

Test(if_match, a_list_names_its_strong_canonical_versions_once)
{
	struct rig_if_match m;
	cr_assert_eq(rig_if_match_parse(&m, ", \"3\" ,,\"12\",W/\"4\", \"05\", \"x\", \"3\","), 0);
	cr_assert_eq(m.n_versions, 2);
	cr_assert_eq(m.versions[0], 3);
	cr_assert_eq(m.versions[1], 12);
	cr_assert(rig_if_match_holds(&m, 3) && rig_if_match_holds(&m, 12));
	cr_assert(!rig_if_match_holds(&m, 4) && !rig_if_match_holds(&m, 5));
}

Test(if_match, weak_and_opaque_tags_are_valid_but_never_match)
{
	const char *never[] = {
		"W/\"1\"",  "\"\"",        "\"-1\"", "\"1.5\"", "\"99999999999999999999\"",
		"\"1-ab\"", "\"\xc3\xa9\""};
	for (size_t i = 0; i < sizeof never / sizeof *never; i++) {
		struct rig_if_match m;
		cr_assert_eq(rig_if_match_parse(&m, never[i]), 0, "%s", never[i]);
		cr_assert(rig_if_match_constrains(&m));
		cr_assert_eq(m.n_versions, 0, "%s", never[i]);
		cr_assert(!rig_if_match_holds(&m, 1));
	}
}

Test(if_match, refuses_what_is_no_list_of_entity_tags)
{
	const char *bad[] = {"",       " ",        ",",        "1",       "\"1",     "1\"",
			     "W/1",    "w/\"1\"",  "*, \"1\"", "**",      "\"a b\"", "\"1\" \"2\"",
			     "\"1\";", "W/ \"1\"", "\"1\"x",   "\"\x01\""};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		struct rig_if_match m;
		cr_assert_eq(rig_if_match_parse(&m, bad[i]), -1, "'%s'", bad[i]);
		cr_assert(m.present && !m.any && m.n_versions == 0);
	}
}

Test(if_match, names_at_most_sixteen_versions)
{
	char list[400] = "";
	for (int i = 0; i < 16; i++)
		snprintf(list + strlen(list), sizeof list - strlen(list), "%s\"%d\"", i ? "," : "",
			 i);
	struct rig_if_match m;
	cr_assert_eq(rig_if_match_parse(&m, list), 0);
	cr_assert_eq(m.n_versions, 16);
	strcat(list, ",\"3\",W/\"99\""); /* repeats and weak tags add no version */
	cr_assert_eq(rig_if_match_parse(&m, list), 0);
	strcat(list, ",\"16\"");
	cr_assert_eq(rig_if_match_parse(&m, list), -1);
}

Test(if_match, describes_what_failed)
{
	struct rig_if_match m;
	char why[160];
	rig_if_match_parse(&m, "\"7\"");
	rig_if_match_describe(why, sizeof why, &m);
	cr_assert_str_eq(why, ", not 7");
	rig_if_match_parse(&m, "\"7\", \"8\"");
	rig_if_match_describe(why, sizeof why, &m);
	cr_assert_str_eq(why, ", not any of 7, 8");
	rig_if_match_parse(&m, "W/\"7\"");
	rig_if_match_describe(why, sizeof why, &m);
	cr_assert(strstr(why, "names no version"));
	json_t *o = json_object();
	rig_if_match_expected_json(o, &m, "expectedVersion", "expectedVersions");
	cr_assert(json_is_array(json_object_get(o, "expectedVersions")));
	cr_assert_eq(json_array_size(json_object_get(o, "expectedVersions")), 0);
	json_decref(o);
}
