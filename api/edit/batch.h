/* The edit pipeline: one batch of ops applied atomically to one shot.
 *
 * Direct batches (POST /v1/shots/{id}/edits), plan validation and plan apply
 * all run rig_batch_apply(): decode every op, load the shot, check the
 * expected version, apply the ops in order (past any that fail, so that every
 * independent error is found), validate the whole shot, check frames when
 * asked (checkFrames), then
 * write the changes, bump the version by one and store the receipt. It
 * returns what happened as data (struct rig_batch_result); only handlers turn
 * that into a response. Writes run it inside the committer's transaction
 * sequence (committer.h), validation inside a read snapshot.
 */
#ifndef RIG_BATCH_H
#define RIG_BATCH_H

#include <jansson.h>
#include <stdbool.h>

#include "api/context.h"
#include "api/edit/frame_check.h"
#include "api/edit/ops.h"
#include "api/util/etag.h"
#include "api/util/jsonread.h"

struct rig_batch {
	const char *shot_id;
	json_t *ops;            /* borrowed array */
	struct rig_op *decoded; /* ops already decoded (borrowed; used once), or NULL */
	/* The violations found decoding them (borrowed; NULL: none): reported
	 * first, beside what applying the other ops and validating finds. */
	const struct rig_errs *decode_errs;
	bool has_expected_version; /* expectedVersion of the body, a plan's baseVersion (409) */
	long long expected_version;
	/* If-Match: the versions it accepts, checked first (answered 412, not
	 * 409); borrowed, NULL or not constraining: none. */
	const struct rig_if_match *if_match;
	bool dry_run;
	const char *actor;
	const char *principal; /* owns locks (exchange.h) */
	const char *token_id;  /* recorded in the receipt; "" or NULL when none */
	const char *idem_key;  /* recorded on the receipt; may be NULL */
	json_t *receipt_extra; /* members merged into the receipt (planId, …); borrowed, may be NULL
				*/
	struct rig_app *app;   /* for the write path's shot cache, when use_cache */
	bool use_cache;        /* the caller holds the write turn and calls rig_shot_cache_settle */
	bool has_fence;        /* the batch proves it holds lock_id at fencing_token */
	char lock_id[RIG_ID_MAX + 1];
	long long fencing_token;
	/* checkFrames: after final validation passed, the layers the ops can
	 * have changed are evaluated over a range (frame_check.h); any failing
	 * frame is a violation, so the batch is not applied. */
	struct rig_check_frames check_frames;
	/* Set (and ready) by rig_batch_prepare: rig_batch_apply stores it
	 * instead of applying the ops again. Borrowed. */
	struct rig_batch_prepared *prepared;
};

/* What a batch made on a read snapshot, waiting for the write turn. */
struct rig_batch_prepared {
	bool ready;
	struct rig_shot_model model; /* the shot after the ops, not yet stored */
	char *receipt;               /* its text (owned) */
	char receipt_id[RIG_RECEIPT_ID_MAX];
	long long seq, version;         /* the shot row and version the ops ran on */
	struct rig_foreign_lock *locks; /* other owners' live locks then (owned) */
	size_t n_locks;
};

/* How a batch ended. Only APPLIED carries a receipt. */
enum rig_batch_outcome {
	RIG_BATCH_APPLIED,          /* applied (and, unless dry_run, written): receipt */
	RIG_BATCH_INVALID,          /* the ops break rules: errs (each with opIndex and pointer) */
	RIG_BATCH_VERSION_CONFLICT, /* the shot is at from_version: If-Match or expected_version
				       fail */
	RIG_BATCH_LOCK_LOST,        /* the fence does not hold: lock_why, current_fencing_token */
	RIG_BATCH_SHOT_UNREADABLE,  /* the shot could not be read: rc (-RIG_NOT_FOUND: none) */
	RIG_BATCH_STORAGE,          /* reading or writing failed: rc and what */
	RIG_BATCH_NO_MEMORY,        /* no memory for the error list itself */
	RIG_BATCH_STALE,            /* prepared: the shot or its locks moved since; prepare again */
};

/* What rig_batch_apply found; release with rig_batch_result_release. */
struct rig_batch_result {
	enum rig_batch_outcome outcome;
	struct rig_errs *errs; /* violations (INVALID); owned */
	/* APPLIED: the receipt's text, as stored (unless a dry run) and answered; owned */
	char *receipt;
	char receipt_id[RIG_RECEIPT_ID_MAX]; /* APPLIED and written; "" for a dry run */
	long long from_version; /* the shot's version when the batch started (once read) */
	long long to_version;   /* APPLIED: from_version + 1 */
	int rc;                 /* SHOT_UNREADABLE, STORAGE: a negative rig code */
	const char *what;       /* STORAGE: what failed ("writing the batch") */
	const char *lock_why;   /* LOCK_LOST: why the fence does not hold ("has expired") */
	long long current_fencing_token; /* LOCK_LOST: the lock's token now, 0 when gone */
};

/* Runs the batch inside a write transaction the caller opened (and will end,
 * whatever happens): decodes (unless decoded), loads the shot, checks the
 * expected version, the fence and the locks, applies the ops in order,
 * validates, and unless dry_run writes the changes, the new version and the
 * receipt. Fills *r (always; release it) and returns 0 when APPLIED, else -1.
 * The caller decides what the outcome means to its client. */
int rig_batch_apply(struct rig_tx *conn, const struct rig_batch *b, struct rig_batch_result *r);

/* Runs the batch as rig_batch_apply would, on conn (a read snapshot the
 * caller opened and ends), writing nothing: when every rule and frame passes,
 * moves the shot it made and its receipt into *out (ready; release it with
 * rig_batch_prepared_release) and sets b->prepared = out. Fills *r either way
 * (APPLIED with the receipt, or why not); returns 0 when prepared, else -1. */
int rig_batch_prepare(struct rig_tx *conn, struct rig_batch *b, struct rig_batch_prepared *out,
		      struct rig_batch_result *r);

/* Frees what a prepared batch holds and zeroes it; safe on a zeroed one. */
void rig_batch_prepared_release(struct rig_batch_prepared *p);

/* Frees what a result holds and zeroes it. */
void rig_batch_result_release(struct rig_batch_result *r);

/* Reads the optional lockId and fencingToken of body (they go together) into
 * b's fence. Returns 0, or -1 with violations recorded through jr. */
int rig_batch_read_fence(struct rig_batch *b, json_t *body, const struct rig_jr *jr);

/* Decodes every op of ops (an array, borrowed), reporting every problem of
 * every op in errs; an op that had any is marked failed (the batch skips it).
 * bulk (may be NULL) holds the body's decoded arrays. Returns the decoded ops
 * (free with rig_ops_free), or NULL when memory ran out (MEMORY_BUSY recorded). */
struct rig_op *rig_batch_decode(json_t *ops, struct rig_bulk *bulk, struct rig_errs *errs);

#endif
