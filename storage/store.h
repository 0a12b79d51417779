/* The storage interface: a store (struct rig_store) and a borrowed
 * connection with its transaction state (struct rig_tx). Everything outside
 * storage/ reaches the store only through this header and the repository
 * headers beside it (shot_repo.h, resources.h, receipts.h, plans.h, locks.h,
 * tokens.h), which take a struct rig_tx *. No SQL and no backend type leaks
 * out: the backend this binary is built with (RIG_STORE_BACKEND; SQLite's is
 * storage/sqlite/) implements these headers, and another backend is another
 * folder implementing them. A store is named by its URL (store_url.h).
 *
 * A request borrows one transaction handle from the store's pool and ends it
 * when done. Reads run as single statements, or inside a snapshot for several
 * consistent reads; writes take the process's write turn and a write-locking
 * transaction, may nest one savepoint at a time, and commit.
 *
 * Actions return 0 or a negative enum rig_code: -RIG_STORAGE_UNAVAILABLE
 * (busy, retryable), -RIG_STORAGE_FULL (a full disk), -RIG_INTERNAL.
 */
#ifndef RIG_STORE_H
#define RIG_STORE_H

#include <stdbool.h>
#include <stddef.h>

enum rig_store_durability {
	RIG_STORE_DURABILITY_FULL,    /* acknowledged writes survive power loss */
	RIG_STORE_DURABILITY_PROCESS, /* they survive a process crash only */
};

struct rig_store_options {
	const char *url; /* the store's URL (store_url.h): "sqlite:PATH"; created when missing */
	enum rig_store_durability durability;
	size_t pool_size; /* connections; 0 means 8 */
};

struct rig_store;
struct rig_tx;

/* ---- the store ---- */

/* Opens the store at opt->url (creating it when missing), applies pending
 * migrations and fills the pool. Returns a new handle, or NULL with a message
 * in err (a URL this binary does not serve, a schema newer than this binary,
 * a store that cannot be read, …). Free with rig_store_close(). */
struct rig_store *rig_store_open(const struct rig_store_options *opt, char *err, size_t err_size);

/* Closes every connection and frees the handle; NULL is a no-op. No
 * transaction handle may be borrowed. */
void rig_store_close(struct rig_store *store);

/* True when the store answers and its schema is the newest this binary
 * knows. Borrows a pooled connection (waits for one). */
bool rig_store_ready(struct rig_store *store);

/* Readiness below this many free bytes where the store keeps its data (when
 * the backend can tell). */
#define RIG_STORE_MIN_FREE_BYTES (8ull << 20)

/* What rig_store_probe found. */
struct rig_store_health {
	bool readable;                 /* the schema version read back and is current */
	bool space_known;              /* the backend could tell the free space */
	unsigned long long free_bytes; /* free to unprivileged writers, when space_known */
	char error[160];               /* why not ready; "" when ready */
};

/* Probes the store cheaply for readiness on a connection of its own (never
 * waiting for the pool, so it can run on an I/O thread): reads the schema
 * version and, where the backend can tell, the free space the store can grow
 * into (for a file, its filesystem's). Fills out; returns true when ready
 * (readable, and at least RIG_STORE_MIN_FREE_BYTES free when the free space is
 * known). */
bool rig_store_probe(struct rig_store *store, struct rig_store_health *out);

/* The server's secret for signing page tokens: 32 bytes stored in the store
 * (created by the first start), so every server on one store shares it.
 * Borrowed for the store's lifetime. */
const unsigned char *rig_store_secret(const struct rig_store *store);

/* ---- borrowing ---- */

/* Borrows a transaction handle (one pooled connection), waiting while all are
 * in use; never NULL. Statements on it run on their own (autocommit) until
 * rig_tx_snapshot() or rig_tx_begin_write(). Allocates nothing: the pool
 * holds one handle per connection. Return it with rig_tx_end(). */
struct rig_tx *rig_store_read(struct rig_store *store);

/* Borrows a handle and begins a write on it (rig_tx_begin_write). Sets *out to
 * the handle and returns 0, or returns a negative rig code with *out NULL and
 * nothing borrowed. End it with rig_tx_end(), committed or not. */
int rig_store_write(struct rig_store *store, struct rig_tx **out);

/* Returns tx to its pool: rolls back a transaction left open and gives up the
 * write turn if tx holds it. NULL is a no-op. */
void rig_tx_end(struct rig_tx *tx);

/* ---- transactions on a borrowed handle ---- */

/* Begins a read transaction (deferred: it takes no lock), so the reads that
 * follow see one snapshot until the transaction ends. Returns 0, or
 * -RIG_INTERNAL (a transaction is already open, out of memory). */
int rig_tx_snapshot(struct rig_tx *tx);

/* Takes the process's write turn for tx, then begins a transaction that holds
 * the store's write lock from its start. Writers of one process queue for the
 * turn in the order they ask (each woken the moment it is theirs) rather than
 * wait inside the backend, which may poll; so a writer that gives the turn up
 * and asks again goes behind those already waiting. The backend still
 * arbitrates between processes. The turn is held until rig_tx_end_write() or
 * rig_tx_end(). Returns 0 or a negative rig code (turn not held then). */
int rig_tx_begin_write(struct rig_tx *tx);

/* Gives up the write turn if tx holds it, keeping the handle borrowed (a
 * committer that writes group after group on one handle). Does not end the
 * transaction: commit or roll back first. */
void rig_tx_end_write(struct rig_tx *tx);

/* For a background job that writes in many transactions one after the other
 * (history compaction), called between two of them, holding no turn: sleeps
 * about as long as the last write turn held the store's write lock, so that
 * other writers get the lock in between. This process's writers need no
 * pause (they queue for the turn in order), but another process's, waiting
 * on the backend's lock, may only try it now and then: the pause is at most
 * the backend's longest wait between two tries (100 ms in storage/sqlite/), so
 * a writer of another process that waits gets in at its next try after a long
 * turn.
 * A courtesy, not a guarantee anything relies on. */
void rig_store_write_pause(struct rig_store *store);

/* Opens a savepoint inside the open transaction. Savepoints do not nest: one
 * at a time, closed by rig_tx_savepoint_release() or
 * rig_tx_savepoint_rollback(). Returns 0 or a negative rig code. */
int rig_tx_savepoint(struct rig_tx *tx);

/* Keeps what was written since the savepoint and closes it (the outer
 * transaction still has to commit). Returns 0 or a negative rig code. */
int rig_tx_savepoint_release(struct rig_tx *tx);

/* Undoes what was written since the savepoint and closes it. Returns 0 or a
 * negative rig code; check rig_tx_open() afterwards, since the backend may
 * have rolled the whole transaction back on its own (an I/O error, a full
 * disk). */
int rig_tx_savepoint_rollback(struct rig_tx *tx);

/* Commits the open transaction. Returns 0, or a negative rig code when it did
 * not commit (the transaction may still be open: roll it back). */
int rig_tx_commit(struct rig_tx *tx);

/* Rolls back the open transaction, if any (a no-op otherwise). Keeps the write
 * turn (rig_tx_end_write gives it up). */
void rig_tx_rollback(struct rig_tx *tx);

/* True while a transaction is open on tx: begun and neither committed, rolled
 * back, nor lost to an error that made the backend roll it back itself. */
bool rig_tx_open(const struct rig_tx *tx);

/* Why the transaction on tx was lost, from the last failed call on it:
 * -RIG_STORAGE_FULL when the disk is full, else -RIG_STORAGE_UNAVAILABLE
 * (either way nothing of it was written, and a retry may succeed). */
int rig_tx_lost_code(struct rig_tx *tx);

/* The backend's message for the last failed call on tx (for logs and
 * start-up errors, never for HTTP bodies); borrowed until the next call. */
const char *rig_tx_errmsg(struct rig_tx *tx);

#endif
