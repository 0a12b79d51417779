/* The rules between constraints and the layer tree (rig.h): IK_CHAIN,
 * IK_TARGET, IK_CYCLE, and whether the resolver can solve a constraint. IK
 * and follow chains share them; a follow chain adds that no other constraint
 * moves its target. A walker has no chain: its body must exist and be moved
 * by no constraint, and each foot names an IK constraint whose target layer
 * no constraint moves and no other walker places. Walkers run before every
 * other constraint and read keyed poses only, so they take no part in
 * cycles. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/rig.h"

static bool is_at_or_below(const struct rig_scene *scene, long x, long root)
{
	return x != RIG_NO_LAYER && root != RIG_NO_LAYER &&
	       (x == root || rig_scene_is_ancestor(scene, root, x));
}

bool rig_constraint_depends(const struct rig_scene *scene, const struct rig_constraint *a,
			    const struct rig_constraint *b)
{
	if (a->kind == RIG_CONSTRAINT_FOOTSTEP || b->kind == RIG_CONSTRAINT_FOOTSTEP)
		return false;
	long root = b->n_chain ? b->chain[0] : RIG_NO_LAYER;
	for (size_t i = 0; i < a->n_chain; i++)
		if (is_at_or_below(scene, a->chain[i], root))
			return true;
	return is_at_or_below(scene, a->target, root) || is_at_or_below(scene, a->pole, root);
}

static struct rig_err *add(struct rig_errs *errs, enum rig_code code,
			   const struct rig_constraint *c, const char *layer_id,
			   const char *pointer, const char *fmt, const char *a, const char *b)
{
	struct rig_err *e = errs ? rig_errs_add(errs, code, fmt, c->id, a, b) : NULL;
	if (!e)
		return NULL;
	rig_err_extra(e, "constraintId", c->id);
	if (layer_id && layer_id[0])
		rig_strlcpy(e->layer_id, layer_id, sizeof e->layer_id);
	rig_strlcpy(e->pointer, pointer, sizeof e->pointer);
	return e;
}

/* A follow chain replays its target's keyed motion and a walker its body's
 * (rig_replay.c), and a walker places its feet's IK targets, so no other
 * constraint may move those layers: 1 (recorded at pointer) when one does. */
static int moved_layer(const struct rig_scene *scene, const struct rig_constraint *c, long layer,
		       const char *layer_id, const char *pointer, struct rig_errs *errs)
{
	for (size_t k = 0; k < scene->n_constraints; k++) {
		const struct rig_constraint *b = &scene->constraints[k];
		if (b == c || !b->n_chain || !is_at_or_below(scene, layer, b->chain[0]))
			continue;
		struct rig_err *e = add(errs, RIG_IK_TARGET, c, layer_id, pointer,
					"constraint '%s': layer '%s' is moved by constraint '%s', "
					"and a follow chain or a walker reads keyed motion only",
					layer_id, b->id);
		if (e)
			rig_err_extra(e, "otherConstraintId", b->id);
		return 1;
	}
	return 0;
}

/* The rules of walker c: its body, and per foot an IK constraint whose
 * target layer it alone places. */
static int check_walker(const struct rig_scene *scene, const struct rig_constraint *c,
			struct rig_errs *errs)
{
	int bad = 0;
	char ptr[48];
	if (c->target == RIG_NO_LAYER) {
		add(errs, RIG_IK_TARGET, c, c->target_id, "/body",
		    "constraint '%s': body layer '%s' does not exist%s", c->target_id, "");
		bad++;
	} else {
		bad += moved_layer(scene, c, c->target, c->target_id, "/body", errs);
	}
	for (size_t i = 0; i < c->walk.n_feet; i++) {
		snprintf(ptr, sizeof ptr, "/feet/%zu/ikConstraintId", i);
		const char *id = c->walk.ik_ids[i];
		long k = c->walk.ik[i];
		if (k < 0 || scene->constraints[k].kind != RIG_CONSTRAINT_IK) {
			struct rig_err *e = add(errs, RIG_CONSTRAINT_NOT_FOUND, c, NULL, ptr,
						"constraint '%s': a foot names '%s', which is not "
						"an IK constraint of the shot%s",
						id, "");
			if (e)
				rig_err_extra(e, "otherConstraintId", id);
			bad++;
			continue;
		}
		const struct rig_constraint *ik = &scene->constraints[k];
		if (ik->target == RIG_NO_LAYER) {
			bad++; /* the IK constraint's own rules report it */
			continue;
		}
		if (moved_layer(scene, c, ik->target, ik->target_id, ptr, errs)) {
			bad++;
			continue;
		}
		for (size_t o = 0; o < scene->n_constraints; o++) {
			const struct rig_constraint *w = &scene->constraints[o];
			if (w == c || w->kind != RIG_CONSTRAINT_FOOTSTEP ||
			    strcmp(w->id, c->id) > 0)
				continue;
			for (size_t f = 0; f < w->walk.n_feet; f++) {
				if (w->walk.ik[f] != k)
					continue;
				struct rig_err *e = add(errs, RIG_IK_TARGET, c, ik->target_id, ptr,
							"constraint '%s': the target of '%s' is "
							"placed by walker '%s' already",
							id, w->id);
				if (e)
					rig_err_extra(e, "otherConstraintId", w->id);
				bad++;
			}
		}
	}
	return bad;
}

/* The chain and target rules of one constraint; errs may be NULL (only the
 * answer is wanted). Returns the number of violations. */
static int check_one(const struct rig_scene *scene, const struct rig_constraint *c,
		     struct rig_errs *errs)
{
	if (c->kind == RIG_CONSTRAINT_FOOTSTEP)
		return check_walker(scene, c, errs);
	int bad = 0;
	char ptr[24];
	size_t lo = rig_constraint_min_chain(c->kind), hi = rig_constraint_max_chain(c->kind);
	if (c->n_chain < lo || c->n_chain > hi) {
		char allowed[32];
		snprintf(allowed, sizeof allowed, "%zu to %zu", lo, hi);
		add(errs, RIG_IK_CHAIN, c, NULL, "/chain",
		    "constraint '%s' has a chain of %s layers (%s allowed)",
		    c->n_chain < lo ? "too few" : "too many", allowed);
		return 1;
	}
	for (size_t i = 0; i < c->n_chain; i++) {
		snprintf(ptr, sizeof ptr, "/chain/%zu", i);
		long x = c->chain[i];
		const char *id = c->chain_ids[i];
		if (x == RIG_NO_LAYER) {
			add(errs, RIG_IK_CHAIN, c, id, ptr,
			    "constraint '%s': chain layer '%s' does not exist%s", id, "");
			bad++;
		} else if (scene->layers[x].kind != RIG_LAYER_GROUP) {
			add(errs, RIG_IK_CHAIN, c, id, ptr,
			    "constraint '%s': chain layer '%s' is not a group layer%s", id, "");
			bad++;
		} else if (i > 0 && c->chain[i - 1] != RIG_NO_LAYER &&
			   scene->layers[x].parent != c->chain[i - 1]) {
			struct rig_err *e = add(errs, RIG_IK_CHAIN, c, id, ptr,
						"constraint '%s': chain layer '%s' is not a child "
						"of '%s'",
						id, c->chain_ids[i - 1]);
			if (e)
				rig_err_extra(e, "parentLayerId", c->chain_ids[i - 1]);
			bad++;
		}
	}
	const char *which[2] = {"target", "pole"};
	const char *ids[2] = {c->target_id, c->pole_id};
	const long idx[2] = {c->target, c->pole};
	for (int k = 0; k < 2; k++) {
		if (k == 1 && !c->pole_id[0])
			continue;
		snprintf(ptr, sizeof ptr, "/%s", which[k]);
		if (idx[k] == RIG_NO_LAYER) {
			add(errs, RIG_IK_TARGET, c, ids[k], ptr,
			    "constraint '%s': %s layer '%s' does not exist", which[k], ids[k]);
			bad++;
		} else if (is_at_or_below(scene, idx[k], c->chain[0])) {
			add(errs, RIG_IK_TARGET, c, ids[k], ptr,
			    "constraint '%s': %s layer '%s' is the chain root or below it",
			    which[k], ids[k]);
			bad++;
		}
	}
	if (c->kind == RIG_CONSTRAINT_CHAIN && c->target != RIG_NO_LAYER)
		bad += moved_layer(scene, c, c->target, c->target_id, "/target", errs);
	return bad;
}

bool rig_constraint_is_usable(const struct rig_scene *scene, const struct rig_constraint *c)
{
	return check_one(scene, c, NULL) == 0;
}

/* Depth-first search for a cycle through the dependency graph; state 0 new,
 * 1 on the stack, 2 done. Reports the first edge that closes a cycle. */
static bool find_cycle(const struct rig_scene *scene, size_t a, unsigned char *state,
		       struct rig_errs *errs)
{
	state[a] = 1;
	const struct rig_constraint *cs = scene->constraints;
	for (size_t b = 0; b < scene->n_constraints; b++) {
		if (b == a || !rig_constraint_depends(scene, &cs[a], &cs[b]))
			continue;
		if (state[b] == 1) {
			struct rig_err *e = add(errs, RIG_IK_CYCLE, &cs[a], NULL, "",
						"constraint '%s' depends on constraint '%s', which "
						"depends back on it%s",
						cs[b].id, "");
			if (e)
				rig_err_extra(e, "otherConstraintId", cs[b].id);
			return true;
		}
		if (state[b] == 0 && find_cycle(scene, b, state, errs))
			return true;
	}
	state[a] = 2;
	return false;
}

int rig_constraints_check(const struct rig_scene *scene, struct rig_errs *errs)
{
	size_t before = errs->total;
	bool all_usable = true;
	for (size_t i = 0; i < scene->n_constraints; i++)
		if (check_one(scene, &scene->constraints[i], errs))
			all_usable = false;
	if (all_usable && scene->n_constraints > 1) {
		unsigned char *state = calloc(scene->n_constraints, 1);
		if (!state) {
			rig_errs_add(errs, RIG_INTERNAL, "out of memory checking constraints");
			return -1;
		}
		for (size_t i = 0; i < scene->n_constraints; i++)
			if (state[i] == 0 && find_cycle(scene, i, state, errs))
				break;
		free(state);
	}
	return errs->total == before ? 0 : -1;
}
