/* The bootstrap admin token (api/http/auth.c, rig_auth_bootstrap): written
 * once, mode 0600, to the file the configuration names; a store without any
 * token and no file to write one to is refused and left as it was. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "api/http/auth.h"
#include "storage/store.h"
#include "storage/tokens.h"
#include "store_fixture.h" /* the backend's: tests/unit/storage/<backend>/ */

struct fixture {
	char dir[64];
	char url[128];
	char token_file[128];
	struct rig_store *store;
};

static void open_fixture(struct fixture *f)
{
	snprintf(f->dir, sizeof f->dir, "/tmp/rig-test-auth-XXXXXX");
	cr_assert_not_null(mkdtemp(f->dir));
	store_fixture_url(f->url, sizeof f->url, f->dir);
	snprintf(f->token_file, sizeof f->token_file, "%s/admin.token", f->dir);
	char err[512] = "";
	struct rig_store_options opt = {.url = f->url, .pool_size = 1};
	f->store = rig_store_open(&opt, err, sizeof err);
	cr_assert_not_null(f->store, "%s", err);
}

static void close_fixture(struct fixture *f)
{
	rig_store_close(f->store);
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", f->dir);
	cr_assert_eq(system(cmd), 0);
}

static long long n_tokens(struct rig_store *store)
{
	long long n = -1;
	struct rig_tx *tx = rig_store_read(store);
	cr_assert_eq(rig_token_count(tx, &n), 0);
	rig_tx_end(tx);
	return n;
}

static char *read_file(const char *path)
{
	static char text[256];
	FILE *fp = fopen(path, "r");
	cr_assert_not_null(fp, "%s", path);
	size_t n = fread(text, 1, sizeof text - 1, fp);
	text[n] = '\0';
	fclose(fp);
	return text;
}

Test(auth_bootstrap, writes_the_admin_token_once_to_the_file_it_is_given)
{
	struct fixture f;
	open_fixture(&f);
	bool created = false;
	char err[512] = "";
	cr_assert_eq(rig_auth_bootstrap(f.store, f.token_file, &created, err, sizeof err), 0, "%s",
		     err);
	cr_assert(created);
	cr_assert_eq(n_tokens(f.store), 1);
	struct stat st;
	cr_assert_eq(stat(f.token_file, &st), 0);
	cr_assert_eq(st.st_mode & 0777, 0600);
	char first[256];
	snprintf(first, sizeof first, "%s", read_file(f.token_file));
	cr_assert(strncmp(first, "rigd_", 5) == 0 && strchr(first, '\n'), "%s", first);

	cr_assert_eq(rig_auth_bootstrap(f.store, f.token_file, &created, err, sizeof err), 0, "%s",
		     err);
	cr_assert_not(created);
	cr_assert_str_eq(read_file(f.token_file), first);
	cr_assert_eq(n_tokens(f.store), 1);
	close_fixture(&f);
}

Test(auth_bootstrap, without_a_token_file_refuses_a_store_that_has_no_token)
{
	struct fixture f;
	open_fixture(&f);
	for (int i = 0; i < 2; i++) {
		bool created = true;
		char err[512] = "";
		cr_assert_eq(rig_auth_bootstrap(f.store, i ? "" : NULL, &created, err, sizeof err),
			     -1);
		cr_assert_not(created);
		cr_assert(strstr(err, "no token file"), "%s", err);
		cr_assert_eq(n_tokens(f.store), 0, "nothing was stored");
	}
	close_fixture(&f);
}

Test(auth_bootstrap, without_a_token_file_accepts_a_store_that_has_tokens)
{
	struct fixture f;
	open_fixture(&f);
	bool created = false;
	char err[512] = "";
	cr_assert_eq(rig_auth_bootstrap(f.store, f.token_file, &created, err, sizeof err), 0, "%s",
		     err);
	cr_assert_eq(rig_auth_bootstrap(f.store, NULL, &created, err, sizeof err), 0, "%s", err);
	cr_assert_not(created);
	close_fixture(&f);
}
