/* The committer of committer.h: the transaction sequence of every edit. */
#include "api/edit/committer.h"
#include "storage/db.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define MAX_GROUP 64

struct job {
	struct rig_write *w;
	bool applied; /* written inside the group, waiting for the COMMIT */
	bool done;
	struct job *next;
};

struct rig_committer {
	struct rig_app *app;
	sqlite3 *conn; /* the committer thread's own */
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t queued;
	pthread_cond_t finished;
	struct job *head, *tail; /* queued, not yet in a group */
	bool running;            /* a group is being applied or committed */
	bool stopping;
};

static bool exec_ok(sqlite3 *db, const char *sql)
{
	return rig_db_exec(db, sql) == SQLITE_OK;
}

/* Why the group's transaction was lost: a full disk when SQLite says so,
 * else the database was unavailable (both leave nothing written). */
static int lost_code(sqlite3 *db)
{
	int rc = rig_db_fail(sqlite3_extended_errcode(db));
	return rc == -RIG_STORAGE_FULL ? rc : -RIG_STORAGE_UNAVAILABLE;
}

/* Undoes one batch inside the group. False when that failed, or when SQLite
 * has already rolled the whole transaction back (an I/O error, a full disk):
 * then every batch of the group is gone. */
static bool undo_one(sqlite3 *db)
{
	return exec_ok(db, "ROLLBACK TO batch") && exec_ok(db, "RELEASE batch") &&
	       !sqlite3_get_autocommit(db);
}

static int run_hook(rig_write_hook hook, struct rig_write *w, sqlite3 *conn)
{
	return hook ? hook(w, conn) : 0;
}

/* Runs one write inside the group's transaction, under its own savepoint.
 * Returns 0 when it is settled alone (done, refused, failed or undone: the
 * group goes on), -1 when the group's transaction is lost. */
static int apply_one(struct rig_committer *c, struct job *j)
{
	struct rig_write *w = j->w;
	if (run_hook(w->recheck, w, c->conn)) {
		w->state = RIG_WRITE_REFUSED;
		return sqlite3_get_autocommit(c->conn) ? -1 : 0;
	}
	if (!exec_ok(c->conn, "SAVEPOINT batch"))
		return -1;
	if (run_hook(w->prepare, w, c->conn)) {
		w->state = RIG_WRITE_REFUSED;
		return undo_one(c->conn) ? 0 : -1;
	}
	if (rig_batch_apply(c->conn, w->batch, &w->result) != 0) {
		w->state = RIG_WRITE_FAILED;
		return undo_one(c->conn) ? 0 : -1;
	}
	int rc = run_hook(w->finish, w, c->conn);
	if (!rc)
		rc = run_hook(w->record, w, c->conn);
	if (rc) { /* nothing of this write may stay */
		rig_shot_cache_settle(c->app->shot_cache, false);
		w->state = RIG_WRITE_UNDONE;
		w->rc = rc;
		if (!w->what)
			w->what = "storing the batch";
		return undo_one(c->conn) ? 0 : -1;
	}
	if (w->batch->dry_run) { /* it wrote nothing; its answer stands whatever follows */
		w->state = RIG_WRITE_DONE;
		return undo_one(c->conn) ? 0 : -1;
	}
	if (!exec_ok(c->conn, "RELEASE batch") || sqlite3_get_autocommit(c->conn)) {
		rig_shot_cache_settle(c->app->shot_cache, false);
		w->state = RIG_WRITE_UNDONE;
		w->rc = lost_code(c->conn);
		w->what = "storing the batch";
		return -1;
	}
	/* Later batches of the group may start from this model: the group's
	 * transaction already holds its writes. A failed COMMIT drops it below. */
	rig_shot_cache_settle(c->app->shot_cache, true);
	w->state = RIG_WRITE_DONE;
	j->applied = true;
	return 0;
}

/* Begins, applies and commits one group and settles every write in it. A
 * write is DONE only when the COMMIT holding it returned; when the group's
 * transaction is lost, none of its writes was kept, so each is LOST and may
 * be retried. */
static void run_group(struct rig_committer *c, struct job *group)
{
	int rc = rig_db_begin_write(c->app->db, c->conn);
	bool lost = rc != 0;
	int lost_rc = rc ? rc : -RIG_STORAGE_UNAVAILABLE;
	for (struct job *j = group; j; j = j->next) {
		if (lost) {
			j->w->state = RIG_WRITE_LOST;
			continue;
		}
		if (apply_one(c, j) < 0) {
			lost = true;
			lost_rc = lost_code(c->conn);
			if (j->w->state == RIG_WRITE_QUEUED) { /* its savepoint never opened */
				j->w->state = RIG_WRITE_LOST;
				j->w->what = "starting the batch";
			}
		}
	}
	if (!lost && !exec_ok(c->conn, "COMMIT")) {
		lost = true;
		lost_rc = lost_code(c->conn);
	}
	if (lost) {
		if (!sqlite3_get_autocommit(c->conn))
			exec_ok(c->conn, "ROLLBACK");
		rig_shot_cache_forget(c->app->shot_cache);
		for (struct job *j = group; j; j = j->next)
			if (j->applied)
				j->w->state = RIG_WRITE_LOST;
	}
	for (struct job *j = group; j; j = j->next) {
		if (j->w->state != RIG_WRITE_LOST)
			continue;
		j->w->rc = lost_rc;
		if (!j->w->what)
			j->w->what = "committing the batch";
	}
	if (rc == 0)
		rig_db_end_write(c->app->db, c->conn);
	/* Read next before done: a waiter whose job is done returns and its job
	 * (on its stack) goes away as soon as it sees done under the lock. */
	pthread_mutex_lock(&c->lock);
	for (struct job *j = group, *next; j; j = next) {
		next = j->next;
		j->done = true;
	}
	pthread_cond_broadcast(&c->finished);
	pthread_mutex_unlock(&c->lock);
}

static void *run(void *arg)
{
	struct rig_committer *c = arg;
	pthread_mutex_lock(&c->lock);
	for (;;) {
		while ((!c->head || c->running) && !c->stopping)
			pthread_cond_wait(&c->queued, &c->lock);
		if (c->running) { /* stopping while a lone batch runs: let it finish */
			pthread_cond_wait(&c->queued, &c->lock);
			continue;
		}
		if (!c->head)
			break; /* stopping, nothing left */
		/* Everything queued during the last group's fsync forms the next group. */
		struct job *group = c->head, *last = group;
		for (int n = 1; n < MAX_GROUP && last->next; n++)
			last = last->next;
		c->head = last->next;
		if (!c->head)
			c->tail = NULL;
		last->next = NULL;
		c->running = true;
		pthread_mutex_unlock(&c->lock);
		run_group(c, group);
		pthread_mutex_lock(&c->lock);
		c->running = false;
	}
	pthread_mutex_unlock(&c->lock);
	return NULL;
}

struct rig_committer *rig_committer_start(struct rig_app *app)
{
	struct rig_committer *c = calloc(1, sizeof *c);
	if (!c)
		return NULL;
	c->app = app;
	pthread_mutex_init(&c->lock, NULL);
	pthread_cond_init(&c->queued, NULL);
	pthread_cond_init(&c->finished, NULL);
	c->conn = rig_db_acquire(app->db);
	if (pthread_create(&c->thread, NULL, run, c) != 0) {
		rig_db_release(app->db, c->conn);
		pthread_cond_destroy(&c->finished);
		pthread_cond_destroy(&c->queued);
		pthread_mutex_destroy(&c->lock);
		free(c);
		return NULL;
	}
	return c;
}

void rig_committer_run(struct rig_committer *c, struct rig_write *w)
{
	w->state = RIG_WRITE_QUEUED;
	struct job j = {.w = w};
	pthread_mutex_lock(&c->lock);
	if (!c->running && !c->head && !c->stopping) {
		/* Idle: commit this lone batch on the caller's thread, sparing it two
		 * hand-offs. Batches arriving meanwhile queue for the committer
		 * thread, which starts once this one is done. */
		c->running = true;
		pthread_mutex_unlock(&c->lock);
		run_group(c, &j);
		pthread_mutex_lock(&c->lock);
		c->running = false;
		/* Queued batches, or a stop, wait on us; an idle committer thread
		 * need not wake (a context switch per batch on a 2-core machine). */
		if (c->head || c->stopping)
			pthread_cond_signal(&c->queued);
		pthread_mutex_unlock(&c->lock);
		return;
	}
	if (c->tail)
		c->tail->next = &j;
	else
		c->head = &j;
	c->tail = &j;
	pthread_cond_signal(&c->queued);
	while (!j.done)
		pthread_cond_wait(&c->finished, &c->lock);
	pthread_mutex_unlock(&c->lock);
}

void rig_committer_stop(struct rig_committer *c)
{
	if (!c)
		return;
	pthread_mutex_lock(&c->lock);
	c->stopping = true;
	pthread_cond_signal(&c->queued);
	pthread_mutex_unlock(&c->lock);
	pthread_join(c->thread, NULL);
	rig_db_release(c->app->db, c->conn);
	pthread_cond_destroy(&c->finished);
	pthread_cond_destroy(&c->queued);
	pthread_mutex_destroy(&c->lock);
	free(c);
}
