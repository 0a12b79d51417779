/* The application context every handler sees: the database, the limits and the
 * process-wide state the API needs (in-flight idempotency keys, draining flag,
 * caches, the committer). A declaration only: api/app.c wires it up.
 */
#ifndef RIG_CONTEXT_H
#define RIG_CONTEXT_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

#include "core/rig_limits.h"
#include "storage/store.h"

/* The limits themselves are the table of core/rig_limits.h. */

struct rig_app_limits {
	size_t max_body_bytes;
	size_t max_connections;
	unsigned connection_timeout_seconds;
	size_t read_cache_bytes;    /* decoded shots and skins shared by reads; 0 shares none */
	unsigned frame_workers;     /* libuv's work-queue threads (--threads); 0 counts as 2 */
	bool auth_off;              /* --auth off: no tokens, X-Rigd-Actor trusted (development) */
	double rate_limit;          /* --rate-limit: requests per second per token; 0 = none */
	size_t memory_budget_bytes; /* membudget.h; 0: unlimited */
	long long history_versions; /* versions of each shot kept readable; 0 means the default */
};

/* --history-versions when not given (docs/history.md). */
#define RIG_HISTORY_VERSIONS_DEFAULT 1000

struct rig_inflight;   /* the set of idempotency keys being processed */
struct rig_shot_cache; /* the write path's last committed shot (edit/shot_cache.h) */
struct rig_committer;  /* group commit of edit batches (committer.h) */
struct rig_read_cache; /* decoded shots and skins shared by reads (read_cache.h) */
struct rig_ratelimit;  /* per-token request budgets (ratelimit.h) */
struct rig_membudget;  /* bodies, parses and range streams (membudget.h) */
struct json_t;         /* jansson's value, for the log hook */

/* The server's structured log: one line at level ("info", "warn", "error")
 * saying msg, with fields (reference stolen; may be NULL). Handlers call it
 * for what no response can tell, like a range that failed after its 200. */
typedef void (*rig_log_fn)(const char *level, const char *msg, struct json_t *fields);

struct rig_app {
	struct rig_store *store;
	struct rig_app_limits limits;
	atomic_bool draining;
	struct rig_inflight *inflight;
	struct rig_shot_cache *shot_cache;
	struct rig_committer *committer;
	struct rig_read_cache *read_cache;
	struct rig_ratelimit *ratelimit; /* NULL: no rate limit */
	struct rig_membudget *budget;
	rig_log_fn log; /* set by the server after rig_app_init; NULL logs nothing */
};

#endif
