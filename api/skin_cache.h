/* Prepared skin evaluators shared by read requests.
 *
 * Preparing a stored skin (reading its arrays out of SQLite, decoding them,
 * inverting binds, laying weights out for the kernel, computing source areas)
 * costs several times one evaluation. The result is a pure function of the
 * stored row, and a row is named for good by (shot seq, layer id, revision):
 * shot seqs are never reused and every rewrite of a skin row records the new
 * shot version (migrations/0006). So reads share evaluators by that key.
 *
 * This holds inputs, never results: each request still builds its own resolver
 * and evaluates every frame it answers (SPEC §4). A request reads the key in
 * its own snapshot, so it always gets the evaluator of the skin it sees.
 *
 * Bounded by bytes (rig_skin_bytes); least recently used entries go first. An
 * evicted entry lives on until its last user releases it. Thread-safe.
 */
#ifndef RIG_SKIN_CACHE_H
#define RIG_SKIN_CACHE_H

#include <stddef.h>

#include "skin.h"

struct rig_skin_cache;
struct rig_skin_ref; /* one user's hold on a shared (or private) evaluator */

/* A cache of at most max_bytes; 0 keeps nothing (every put stays private).
 * Returns NULL when out of memory. */
struct rig_skin_cache *rig_skin_cache_new(size_t max_bytes);

/* Frees the cache. Every ref must have been released. NULL is a no-op. */
void rig_skin_cache_free(struct rig_skin_cache *cache);

/* The evaluator stored under the key, held for the caller, or NULL. */
struct rig_skin_ref *rig_skin_cache_get(struct rig_skin_cache *cache, long long shot_seq,
					const char *layer_id, long long revision);

/* Takes ownership of skin and files it under the key; returns a hold on the
 * key's evaluator: skin itself, or the equal one another request filed first
 * (skin is then freed). Entries of the same layer with older revisions are
 * dropped: no snapshot that could still ask for them will be taken again. A
 * skin larger than the whole cache stays private to the returned ref. Returns
 * NULL only when out of memory (skin is freed). */
struct rig_skin_ref *rig_skin_cache_put(struct rig_skin_cache *cache, long long shot_seq,
					const char *layer_id, long long revision,
					struct rig_skin *skin);

/* The held evaluator; valid until the ref is released. */
const struct rig_skin *rig_skin_ref_skin(const struct rig_skin_ref *ref);

/* Drops a hold; NULL is a no-op. */
void rig_skin_cache_release(struct rig_skin_cache *cache, struct rig_skin_ref *ref);

/* Entries and bytes currently filed (for tests and logs). */
void rig_skin_cache_stats(struct rig_skin_cache *cache, size_t *entries, size_t *bytes);

#endif
