/* A fresh store for unit tests that open one through store.h only (not the
 * repositories' bare handles of bare_tx.h): the SQLite backend's, a database
 * file in a folder of the test's. Included as "store_fixture.h" through
 * rig_test_store (CMakeLists.txt here); every backend's test folder has one. */
#ifndef RIG_TEST_STORE_FIXTURE_H
#define RIG_TEST_STORE_FIXTURE_H

#include <stddef.h>
#include <stdio.h>

/* Writes to out the URL of an empty store kept in the folder dir (which the
 * caller creates and removes with whatever the store put in it). */
static inline void store_fixture_url(char *out, size_t size, const char *dir)
{
	snprintf(out, size, "sqlite:%s/rigd.db", dir);
}

#endif
