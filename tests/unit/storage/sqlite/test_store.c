/* The SQLite store's write turn (storage/sqlite/store.c): writers of one
 * process get it in the order they asked, so one that gives it up and asks
 * again at once (a compaction sweep between two steps) goes behind a writer
 * already waiting; a begin that fails gives the turn back. */
#include <criterion/criterion.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "storage/sqlite/sqlite_tx.h"
#include "storage/store.h"
#include "store_fixture.h"

struct fixture {
	char dir[32];
	char url[64];
	struct rig_store *store;
};

static void open_store(struct fixture *f)
{
	snprintf(f->dir, sizeof f->dir, "/tmp/rig-test-turn-XXXXXX");
	cr_assert_not_null(mkdtemp(f->dir));
	store_fixture_url(f->url, sizeof f->url, f->dir);
	struct rig_store_options opt = {.url = f->url, .pool_size = 3};
	char err[256] = "";
	f->store = rig_store_open(&opt, err, sizeof err);
	cr_assert_not_null(f->store, "%s", err);
}

static void close_store(struct fixture *f)
{
	rig_store_close(f->store);
	char path[64];
	for (const char *const *end = (const char *const[]){"", "-wal", "-shm", NULL}; *end;
	     end++) {
		snprintf(path, sizeof path, "%s/rigd.db%s", f->dir, *end);
		unlink(path);
	}
	rmdir(f->dir);
}

struct waiter {
	struct rig_store *store;
	atomic_bool had_turn;
	int rc;
};

/* On a thread of its own: one write (asserted on the test's thread). */
static void *write_once(void *arg)
{
	struct waiter *w = arg;
	struct rig_tx *tx = NULL;
	w->rc = rig_store_write(w->store, &tx);
	if (w->rc == 0) {
		atomic_store(&w->had_turn, true); /* while it holds the turn */
		w->rc = rig_tx_commit(tx);
		rig_tx_end(tx);
	}
	return NULL;
}

Test(store_turn, a_writer_asking_again_goes_behind_one_that_waits)
{
	struct fixture f;
	open_store(&f);
	struct rig_tx *tx = NULL;
	cr_assert_eq(rig_store_write(f.store, &tx), 0);
	struct waiter w = {.store = f.store};
	pthread_t thread;
	cr_assert_eq(pthread_create(&thread, NULL, write_once, &w), 0);
	while (rig_sqlite__turn_queued(f.store) < 2) /* the holder and the waiter */
		sched_yield();
	cr_assert_eq(rig_tx_commit(tx), 0);
	rig_tx_end_write(tx);
	cr_assert_eq(rig_tx_begin_write(tx), 0); /* at once, as a sweep's next step */
	cr_assert(atomic_load(&w.had_turn), "the waiting writer went first");
	rig_tx_end(tx);
	pthread_join(thread, NULL);
	cr_assert_eq(w.rc, 0);
	rig_store_write_pause(f.store); /* returns: the last turn was short */
	cr_assert_eq(rig_sqlite__turn_queued(f.store), 0);
	close_store(&f);
}

Test(store_turn, a_failed_begin_gives_the_turn_back)
{
	struct fixture f;
	open_store(&f);
	struct rig_tx *reader = rig_store_read(f.store);
	cr_assert_eq(rig_tx_snapshot(reader), 0);
	cr_assert_neq(rig_tx_begin_write(reader), 0, "a transaction is open already");
	cr_assert_eq(rig_sqlite__turn_queued(f.store), 0);
	rig_tx_end(reader);
	struct rig_tx *tx = NULL;
	cr_assert_eq(rig_store_write(f.store, &tx), 0, "the turn is free");
	rig_tx_end(tx);
	close_store(&f);
}
