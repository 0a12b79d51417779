/* The store-URL parser (storage/store_url.c): the forms a build with the
 * SQLite backend serves, what each part of a parsed URL holds, and the
 * refusals, each naming the forms that would do. A build with another backend
 * skips them. */
#include <criterion/criterion.h>
#include <string.h>

#include "storage/store_url.h"

/* Every test here is of the SQLite build. */
static void sqlite_build(void)
{
	if (strcmp(rig_store_url_backend(), "sqlite") != 0)
		cr_skip_test("this build stores in %s", rig_store_url_backend());
}

static struct rig_store_url parsed(const char *url)
{
	struct rig_store_url u;
	char err[600] = "";
	cr_assert_eq(rig_store_url_parse(&u, url, err, sizeof err), 0, "%s: %s", url, err);
	return u;
}

/* The message refusing url. */
static const char *refused(const char *url)
{
	static char err[600];
	struct rig_store_url u;
	err[0] = '\0';
	cr_assert_eq(rig_store_url_parse(&u, url, err, sizeof err), -1, "%s was accepted", url);
	cr_assert(strstr(err, "sqlite:PATH"), "'%s' does not name the forms", err);
	return err;
}

Test(store_url, this_build_serves_sqlite_and_its_default_parses, .init = sqlite_build)
{
	cr_assert_str_eq(rig_store_url_backend(), "sqlite");
	char forms[64];
	rig_store_url_forms(forms, sizeof forms);
	cr_assert_str_eq(forms, "sqlite:PATH");
	struct rig_store_url u = parsed(rig_store_url_default());
	cr_assert_str_eq(u.url, "sqlite:./rigd.db");
	cr_assert_str_eq(u.address, "./rigd.db");
}

Test(store_url, sqlite_takes_the_path_after_the_colon_as_it_is, .init = sqlite_build)
{
	const char *cases[][2] = {{"sqlite:/var/lib/rigd/rigd.db", "/var/lib/rigd/rigd.db"},
				  {"sqlite:rigd.db", "rigd.db"},
				  {"SQLite:rigd.db", "rigd.db"},
				  {"sqlite:a:b.db", "a:b.db"},
				  {"sqlite:///abs.db", "///abs.db"},
				  {"sqlite: spaced name.db", " spaced name.db"}};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct rig_store_url u = parsed(cases[i][0]);
		cr_assert_str_eq(u.backend, "sqlite");
		cr_assert_str_eq(u.address, cases[i][1]);
		cr_assert_str_eq(u.shown, cases[i][1]);
		cr_assert_str_eq(u.url, cases[i][0]);
		cr_assert(u.is_file);
	}
}

Test(store_url, refuses_other_schemes_naming_the_ones_it_serves, .init = sqlite_build)
{
	cr_assert(strstr(refused("postgres://rig@db/rig"), "unsupported scheme 'postgres'"));
	refused("postgresql://db/rig");
	refused("file:rigd.db");
}

Test(store_url, refuses_a_url_without_a_scheme_or_an_address, .init = sqlite_build)
{
	cr_assert(strstr(refused("./rigd.db"), "names no backend"));
	refused("/var/lib/rigd/rigd.db");
	refused("rigd.db");
	refused("");
	refused(":rigd.db");
	refused("9p:x");
	cr_assert(strstr(refused("sqlite:"), "the path is empty"));
}

Test(store_url, refuses_an_overlong_url, .init = sqlite_build)
{
	char url[RIG_STORE_URL_MAX + 1];
	memcpy(url, "sqlite:", 7);
	memset(url + 7, 'a', sizeof url - 8);
	url[sizeof url - 1] = '\0';
	struct rig_store_url u;
	char err[200];
	cr_assert_eq(rig_store_url_parse(&u, url, err, sizeof err), -1);
	cr_assert(strstr(err, "too long"), "%s", err);
	url[RIG_STORE_URL_MAX - 1] = '\0'; /* the longest that fits */
	cr_assert_eq(rig_store_url_parse(&u, url, err, sizeof err), 0, "%s", err);
}
