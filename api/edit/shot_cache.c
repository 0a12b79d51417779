/* The write path's shot cache of shot_cache.h. */
#include "api/edit/shot_cache.h"

#include <stdlib.h>
#include <string.h>

#include "storage/resources.h"
#include "storage/shot_repo.h"

struct rig_shot_cache {
	bool valid;
	struct rig_shot_model model; /* mirrors the stored shot at model.version */
	bool pending;
	struct rig_shot_model next; /* written by a batch, awaiting its commit */
};

/* Bindings at least this large leave the cache without their per-vertex arrays. */
#define CACHE_BINDING_MAX_VERTS 65536

struct rig_shot_cache *rig_shot_cache_new(void)
{
	return calloc(1, sizeof(struct rig_shot_cache));
}

void rig_shot_cache_free(struct rig_shot_cache *cache)
{
	if (!cache)
		return;
	rig_shot_model_release(&cache->model);
	rig_shot_model_release(&cache->next);
	free(cache);
}

bool rig_shot_cache_take(struct rig_shot_cache *c, struct rig_tx *tx, const char *shot_id,
			 struct rig_shot_model *out)
{
	memset(out, 0, sizeof *out);
	if (!c)
		return false;
	rig_shot_cache_settle(c, false);
	if (!c->valid || strcmp(c->model.id, shot_id) != 0)
		return false;
	long long seq = -1, version = -1;
	int rc = rig_shot_stamp(tx, shot_id, &seq, &version);
	c->valid = false;
	if (rc == 0 && seq == c->model.seq && version == c->model.version) {
		*out = c->model; /* taken: a failed batch must not leave it half-edited */
		memset(&c->model, 0, sizeof c->model);
		return true;
	}
	rig_shot_model_release(&c->model);
	return false;
}

/* Drops the per-vertex arrays of large bindings of any kind, as the loader
 * leaves them (a skin's joints only; rig_shot_load_binding reads the rest back
 * on demand): the cache keeps the tree and keys, not a copy of every stored
 * mesh. */
static void shed_large_bindings(struct rig_shot_model *m)
{
	for (size_t i = 0; i < m->n_layers; i++) {
		struct rig_model_layer *l = &m->layers[i];
		struct rig_model_binding *b = &l->binding;
		if (!b->loaded || b->n_verts < CACHE_BINDING_MAX_VERTS)
			continue;
		b->type->def_release_arrays(b->def);
		b->loaded = false;
	}
}

void rig_shot_cache_hold(struct rig_shot_cache *c, struct rig_shot_model *m, long long version)
{
	if (!c)
		return;
	rig_shot_cache_settle(c, false);
	rig_shot_model_settle(m, version);
	shed_large_bindings(m);
	c->next = *m;
	c->pending = true;
	memset(m, 0, sizeof *m);
}

void rig_shot_cache_settle(struct rig_shot_cache *c, bool committed)
{
	if (!c || !c->pending)
		return;
	c->pending = false;
	if (committed) {
		rig_shot_model_release(&c->model);
		c->model = c->next;
		c->valid = true;
	} else {
		rig_shot_model_release(&c->next);
	}
	memset(&c->next, 0, sizeof c->next);
}

void rig_shot_cache_forget(struct rig_shot_cache *c)
{
	if (!c)
		return;
	rig_shot_cache_settle(c, false);
	if (c->valid)
		rig_shot_model_release(&c->model);
	c->valid = false;
}
