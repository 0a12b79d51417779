/* The read cache of read_cache.h. Entries are chained in hash buckets and in
 * one recency list; refs count the users plus one for being filed.
 */
#include "api/eval/read_cache.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/err.h" /* RIG_ID_MAX, rig_strlcpy */

#define N_BUCKETS 256 /* power of two; entries are few (bounded by bytes) */

struct rig_read_ref {
	void *value;
	void (*free_value)(void *);
	size_t bytes;
	long long shot_seq;
	long long revision;
	char name[RIG_ID_MAX + 1];
	unsigned refs;
	struct rig_read_ref *bucket_next;
	struct rig_read_ref *newer, *older; /* recency list, while filed */
};

struct rig_read_cache {
	pthread_mutex_t lock;
	size_t max_bytes;
	size_t bytes;
	size_t entries;
	struct rig_read_ref *buckets[N_BUCKETS];
	struct rig_read_ref *newest, *oldest;
};

static size_t bucket_of(long long shot_seq, const char *name)
{
	uint64_t h = 1469598103934665603ULL ^ (uint64_t)shot_seq;
	for (const unsigned char *p = (const unsigned char *)name; *p; p++)
		h = (h ^ *p) * 1099511628211ULL;
	return (size_t)(h & (N_BUCKETS - 1));
}

static struct rig_read_ref **slot_of(struct rig_read_cache *c, long long shot_seq, const char *name)
{
	struct rig_read_ref **at = &c->buckets[bucket_of(shot_seq, name)];
	while (*at && ((*at)->shot_seq != shot_seq || strcmp((*at)->name, name) != 0))
		at = &(*at)->bucket_next;
	return at;
}

static void recency_unlink(struct rig_read_cache *c, struct rig_read_ref *e)
{
	if (e->newer)
		e->newer->older = e->older;
	else
		c->newest = e->older;
	if (e->older)
		e->older->newer = e->newer;
	else
		c->oldest = e->newer;
	e->newer = e->older = NULL;
}

static void recency_push(struct rig_read_cache *c, struct rig_read_ref *e)
{
	e->older = c->newest;
	e->newer = NULL;
	if (c->newest)
		c->newest->newer = e;
	else
		c->oldest = e;
	c->newest = e;
}

static void ref_free(struct rig_read_ref *e)
{
	e->free_value(e->value);
	free(e);
}

/* Drops a reference under the lock; returns the entry when it must be freed
 * (outside the lock), else NULL. */
static struct rig_read_ref *unref_locked(struct rig_read_ref *e)
{
	return --e->refs == 0 ? e : NULL;
}

/* Takes a filed entry out of the table; returns it when nobody holds it. */
static struct rig_read_ref *unfile_locked(struct rig_read_cache *c, struct rig_read_ref *e)
{
	struct rig_read_ref **at = slot_of(c, e->shot_seq, e->name);
	*at = e->bucket_next;
	e->bucket_next = NULL;
	recency_unlink(c, e);
	c->bytes -= e->bytes;
	c->entries--;
	return unref_locked(e);
}

struct rig_read_cache *rig_read_cache_new(size_t max_bytes)
{
	struct rig_read_cache *c = calloc(1, sizeof *c);
	if (!c)
		return NULL;
	pthread_mutex_init(&c->lock, NULL);
	c->max_bytes = max_bytes;
	return c;
}

void rig_read_cache_free(struct rig_read_cache *c)
{
	if (!c)
		return;
	while (c->oldest) {
		struct rig_read_ref *e = unfile_locked(c, c->oldest);
		if (e)
			ref_free(e);
	}
	pthread_mutex_destroy(&c->lock);
	free(c);
}

struct rig_read_ref *rig_read_cache_get(struct rig_read_cache *c, long long shot_seq,
					const char *name, long long revision)
{
	pthread_mutex_lock(&c->lock);
	struct rig_read_ref *e = *slot_of(c, shot_seq, name);
	if (e && e->revision == revision) {
		e->refs++;
		recency_unlink(c, e);
		recency_push(c, e);
	} else {
		e = NULL;
	}
	pthread_mutex_unlock(&c->lock);
	return e;
}

struct rig_read_ref *rig_read_cache_put(struct rig_read_cache *c, long long shot_seq,
					const char *name, long long revision, void *value,
					size_t bytes, void (*free_value)(void *))
{
	struct rig_read_ref *e = calloc(1, sizeof *e);
	if (!e) {
		free_value(value);
		return NULL;
	}
	e->value = value;
	e->free_value = free_value;
	e->bytes = bytes + sizeof *e;
	e->shot_seq = shot_seq;
	e->revision = revision;
	rig_strlcpy(e->name, name, sizeof e->name);
	e->refs = 1;

	struct rig_read_ref *doomed = NULL; /* freed after unlocking, chained by bucket_next */
	pthread_mutex_lock(&c->lock);
	struct rig_read_ref **at = slot_of(c, shot_seq, name);
	struct rig_read_ref *filed = *at;
	if (filed && filed->revision == revision) {
		/* Another request prepared the same row first: share theirs. */
		filed->refs++;
		recency_unlink(c, filed);
		recency_push(c, filed);
		doomed = e;
		e = filed;
	} else if (e->bytes <= c->max_bytes && !(filed && filed->revision > revision)) {
		struct rig_read_ref *gone = filed ? unfile_locked(c, filed) : NULL;
		for (;;) {
			if (gone) {
				gone->bucket_next = doomed;
				doomed = gone;
			}
			if (!c->oldest || c->bytes + e->bytes <= c->max_bytes)
				break;
			gone = unfile_locked(c, c->oldest);
		}
		e->refs++; /* the table's own reference */
		e->bucket_next = NULL;
		*slot_of(c, shot_seq, name) = e;
		recency_push(c, e);
		c->bytes += e->bytes;
		c->entries++;
	}
	pthread_mutex_unlock(&c->lock);
	while (doomed) {
		struct rig_read_ref *next = doomed->bucket_next;
		ref_free(doomed);
		doomed = next;
	}
	return e;
}

void *rig_read_ref_value(const struct rig_read_ref *ref)
{
	return ref->value;
}

void rig_read_cache_release(struct rig_read_cache *c, struct rig_read_ref *ref)
{
	if (!ref)
		return;
	pthread_mutex_lock(&c->lock);
	struct rig_read_ref *e = unref_locked(ref);
	pthread_mutex_unlock(&c->lock);
	if (e)
		ref_free(e);
}

void rig_read_cache_stats(struct rig_read_cache *c, size_t *entries, size_t *bytes)
{
	pthread_mutex_lock(&c->lock);
	*entries = c->entries;
	*bytes = c->bytes;
	pthread_mutex_unlock(&c->lock);
}
