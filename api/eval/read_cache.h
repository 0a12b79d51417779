/* Prepared inputs shared by read requests: decoded shots and binding
 * evaluators (of any kind).
 *
 * Loading a shot (every layer row, every keys blob) and preparing a stored
 * binding (its arrays read out of storage and decoded; for a skin binds
 * inverted and weights laid out for the kernel; source areas computed) cost
 * more than evaluating a frame.
 * Both are pure functions of stored rows, and the rows are named for good by
 * (shot seq, name, revision): shot seqs are never reused; a shot at a version
 * is named (seq, "", version); a binding by (seq, layer id, the shot version
 * that wrote its row — migrations/sqlite/0006). Reads look the name up in their own
 * snapshot, so each gets exactly the inputs it would have loaded itself.
 *
 * This holds inputs, never results: every request builds its own resolver and
 * evaluates every frame it answers (SPEC §4).
 *
 * One entry per (seq, name): a shot has one current version and a layer one
 * current binding, so filing a newer revision replaces the older. Bounded by
 * bytes; least recently used entries go first. An entry that is replaced or
 * evicted lives on until its last user releases it. Thread-safe.
 */
#ifndef RIG_READ_CACHE_H
#define RIG_READ_CACHE_H

#include <stddef.h>

struct rig_read_cache;
struct rig_read_ref; /* one user's hold on a shared (or private) value */

/* A cache of at most max_bytes; 0 keeps nothing (every put stays private).
 * Returns NULL when out of memory. */
struct rig_read_cache *rig_read_cache_new(size_t max_bytes);

/* Frees the cache. Every ref must have been released. NULL is a no-op. */
void rig_read_cache_free(struct rig_read_cache *cache);

/* The value filed under the key, held for the caller, or NULL. */
struct rig_read_ref *rig_read_cache_get(struct rig_read_cache *cache, long long shot_seq,
					const char *name, long long revision);

/* Takes ownership of value (bytes large, freed with free_value) and files it
 * under the key; returns a hold on the key's value: value itself, or the equal
 * one another request filed first (value is then freed). A newer revision
 * already filed for (seq, name), or a value larger than the whole cache, leaves
 * value private to the returned ref. Returns NULL only when out of memory
 * (value is freed). */
struct rig_read_ref *rig_read_cache_put(struct rig_read_cache *cache, long long shot_seq,
					const char *name, long long revision, void *value,
					size_t bytes, void (*free_value)(void *));

/* The held value; valid until the ref is released. */
void *rig_read_ref_value(const struct rig_read_ref *ref);

/* Drops a hold; NULL is a no-op. */
void rig_read_cache_release(struct rig_read_cache *cache, struct rig_read_ref *ref);

/* Entries and bytes currently filed (for tests and logs). */
void rig_read_cache_stats(struct rig_read_cache *cache, size_t *entries, size_t *bytes);

#endif
