/* layer.skin.weights.put: replaces the whole influence list of one vertex
 * ({vertexIndex, influences}) or of many ({vertices: [{vertexIndex,
 * influences}]}) in one op, optionally rescaling positive finite weights to
 * sum 1 (normalize: true).
 *
 * Every entry is checked on its own and every violation names its entry
 * (/ops/<i>/vertices/<k>/influences/<m>/weight, …); nothing changes unless
 * every entry holds. A list of n entries on a skin of V vertices costs
 * O(n log n + V): joint ids are found by binary search, repeated vertices by
 * sorting, and the weight arrays are rewritten once (in place when no list
 * changes length).
 *
 * The weights rule itself is the core's (rig_skin_check_influences); other
 * skin ops are in ops_skin.c and ops_skin_joints.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/edit/ops_internal.h"
#include "api/edit/ops_skin.h"

/* ---- decoding ---- */

/* Reads obj's vertexIndex and influences (the op itself in the single form,
 * an element of vertices in the list form) into entry, appending the
 * influences at out->u.weights.influences[*at]. */
static int decode_entry(struct rig_op *out, json_t *obj, const struct rig_jr *jr,
			struct rig_weights_entry *entry, size_t *at)
{
	int rc = rig_jr_int(jr, obj, "vertexIndex", true, 0, INT32_MAX, &entry->vertex_index, NULL);
	json_t *list = json_object_get(obj, "influences");
	if (!json_is_array(list))
		return rig_jr_fail(jr, "influences",
				   "field 'influences' must be [{jointId, weight}]");
	size_t n = json_array_size(list);
	if (n > RIG_MAX_INFLUENCES) {
		struct rig_err *e = rig_errs_add(jr->errs, RIG_SKIN_WEIGHTS,
						 "vertex has %zu influences; the limit is %d", n,
						 RIG_MAX_INFLUENCES);
		rig_err_extra_number(e, "influenceCount", (double)n);
		rig_err_extra_number(e, "limit", RIG_MAX_INFLUENCES);
		rig_strlcpy(e->layer_id, out->layer_id, sizeof e->layer_id);
		e->op_index = jr->op_index;
		e->vertex_index = (long)entry->vertex_index;
		snprintf(e->pointer, sizeof e->pointer, "%s/influences", jr->base);
		return -1;
	}
	entry->first = (uint32_t)*at;
	entry->n = (uint32_t)n;
	for (size_t k = 0; k < n; k++) {
		json_t *inf = json_array_get(list, k);
		char base[RIG_ERR_POINTER_MAX];
		snprintf(base, sizeof base, "%s/influences/%zu", jr->base, k);
		struct rig_jr ijr = {jr->errs, RIG_OP_INVALID, base, jr->op_index};
		static const char *const fields[] = {"jointId", "weight", NULL};
		struct rig_weights_influence *to = &out->u.weights.influences[*at + k];
		if (!json_is_object(inf)) {
			rc = rig_jr_fail(&ijr, "", "influence must be {jointId, weight}");
			continue;
		}
		char id[RIG_ID_MAX + 1];
		rc |= rig_jr_known(&ijr, inf, fields);
		if (rig_jr_id(&ijr, inf, "jointId", true, false, id, NULL) == 0)
			to->joint_id = json_string_value(json_object_get(inf, "jointId"));
		else
			rc = -1;
		json_t *w = json_object_get(inf, "weight");
		if (!json_is_number(w))
			rc = rig_jr_fail(&ijr, "weight", "field 'weight' must be a number");
		to->weight = json_number_value(w);
	}
	*at += n;
	return rc;
}

/* The influences the entries of the op may hold at most (each list counted up
 * to the limit, past which it is refused anyway). */
static size_t count_influences(json_t *op, json_t *vertices)
{
	if (!vertices) {
		size_t n = json_array_size(json_object_get(op, "influences"));
		return n > RIG_MAX_INFLUENCES ? 0 : n;
	}
	size_t total = 0, i;
	json_t *v;
	json_array_foreach(vertices, i, v)
	{
		size_t n = json_array_size(json_object_get(v, "influences"));
		total += n > RIG_MAX_INFLUENCES ? 0 : n;
	}
	return total;
}

int rig_op__weights_put_decode(struct rig_op *out, json_t *op, const struct rig_jr *jr,
			       struct rig_bulk *bulk)
{
	(void)bulk;
	static const char *const allowed[] = {"op",       "layerId",   "vertexIndex", "influences",
					      "vertices", "normalize", NULL};
	int rc = rig_jr_known(jr, op, allowed);
	rc |= rig_jr_id(jr, op, "layerId", true, false, out->layer_id, NULL);
	rc |= rig_jr_bool(jr, op, "normalize", false, &out->u.weights.normalize);
	json_t *vertices = json_object_get(op, "vertices");
	if (vertices) {
		if (json_object_get(op, "vertexIndex") || json_object_get(op, "influences"))
			return rig_jr_fail(jr, "vertices",
					   "give either 'vertices' or 'vertexIndex' with "
					   "'influences', not both");
		if (!json_is_array(vertices) || json_array_size(vertices) == 0)
			return rig_jr_fail(jr, "vertices",
					   "field 'vertices' must be a non-empty array of "
					   "{vertexIndex, influences}");
		if (json_array_size(vertices) > RIG_MAX_VERTICES)
			return rig_jr_fail(jr, "vertices",
					   "field 'vertices' lists %zu vertices; a mesh has at "
					   "most %d",
					   json_array_size(vertices), RIG_MAX_VERTICES);
	}
	size_t n_entries = vertices ? json_array_size(vertices) : 1;
	size_t n_infl = count_influences(op, vertices);
	out->u.weights.entries = calloc(n_entries, sizeof *out->u.weights.entries);
	out->u.weights.influences = calloc(n_infl ? n_infl : 1, sizeof *out->u.weights.influences);
	if (!out->u.weights.entries || !out->u.weights.influences)
		return rig_jr_out_of_memory(jr, vertices ? "vertices" : "influences");
	out->u.weights.json = json_incref(op);
	out->u.weights.is_list = vertices != NULL;
	out->u.weights.n_entries = n_entries;
	size_t at = 0;
	if (!vertices)
		return rc | decode_entry(out, op, jr, &out->u.weights.entries[0], &at);
	static const char *const entry_fields[] = {"vertexIndex", "influences", NULL};
	for (size_t i = 0; i < n_entries; i++) {
		json_t *v = json_array_get(vertices, i);
		char base[96];
		snprintf(base, sizeof base, "%s/vertices/%zu", jr->base, i);
		struct rig_jr ejr = {jr->errs, RIG_OP_INVALID, base, jr->op_index};
		if (!json_is_object(v)) {
			rc = rig_jr_fail(&ejr, "", "entry %zu must be {vertexIndex, influences}",
					 i);
			continue;
		}
		rc |= rig_jr_known(&ejr, v, entry_fields);
		rc |= decode_entry(out, v, &ejr, &out->u.weights.entries[i], &at);
		if (jr->errs->total > RIG_ERRS_KEEP)
			return -1; /* enough to fix; the rest would be cut anyway */
	}
	return rc;
}

void rig_op__weights_put_release(struct rig_op *op)
{
	free(op->u.weights.entries);
	free(op->u.weights.influences);
	json_decref(op->u.weights.json);
}

/* ---- applying ---- */

/* Joint ids in sorted order, to find a joint in O(log n) per influence. */
struct joint_lookup {
	const struct rig_skin_def *d;
	uint16_t order[RIG_MAX_JOINTS];
};

static int cmp_ids(const struct rig_skin_def *d, uint16_t a, uint16_t b)
{
	return strcmp(d->joints[a].id, d->joints[b].id);
}

static uint32_t lookup(const struct joint_lookup *jl, const char *id)
{
	size_t lo = 0, hi = jl->d->n_joints < RIG_MAX_JOINTS ? jl->d->n_joints : RIG_MAX_JOINTS;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int cmp = strcmp(jl->d->joints[jl->order[mid]].id, id);
		if (cmp == 0)
			return jl->order[mid];
		if (cmp < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return RIG_JOINT_UNKNOWN;
}

/* Insertion sort of the ≤ 256 joint indices by id: no global comparator
 * context needed, and n is small. */
static void lookup_init(struct joint_lookup *jl, const struct rig_skin_def *d)
{
	jl->d = d;
	for (size_t j = 0; j < d->n_joints && j < RIG_MAX_JOINTS; j++) {
		uint16_t x = (uint16_t)j;
		size_t i = j;
		while (i > 0 && cmp_ids(d, jl->order[i - 1], x) > 0) {
			jl->order[i] = jl->order[i - 1];
			i--;
		}
		jl->order[i] = x;
	}
}

/* The pointer of entry i of op: "/ops/<n>" or "/ops/<n>/vertices/<i>". */
static void entry_pointer(char *out, size_t size, const struct rig_op *op, size_t i)
{
	if (op->u.weights.is_list)
		snprintf(out, size, "%s/vertices/%zu", op->pointer, i);
	else
		snprintf(out, size, "%s", op->pointer);
}

static bool has_extra(const struct rig_err *e, const char *name)
{
	for (int i = 0; i < e->n_extra && i < RIG_ERR_EXTRAS; i++)
		if (strcmp(e->extra[i].name, name) == 0)
			return true;
	return false;
}

/* Checks entry i's list (rescaled first under normalize) into list: the
 * core's weights rule, its violations pointed into the entry. */
static int check_entry(struct rig_op_ctx *ctx, const struct rig_op *op, size_t i,
		       const struct joint_lookup *jl, struct rig_skin_influence *list)
{
	const struct rig_weights_entry *en = &op->u.weights.entries[i];
	const struct rig_weights_influence *in = &op->u.weights.influences[en->first];
	const struct rig_skin_def *d = jl->d;
	for (uint32_t k = 0; k < en->n; k++) {
		list[k].joint = in[k].joint_id ? lookup(jl, in[k].joint_id) : RIG_JOINT_UNKNOWN;
		list[k].weight = in[k].weight;
	}
	if (op->u.weights.normalize)
		rig_skin_normalize_influences(list, en->n);
	size_t from = ctx->errs->count;
	if (rig_skin_check_influences(list, en->n, d->n_joints, (size_t)en->vertex_index,
				      ctx->errs) == 0)
		return 0;
	char at[RIG_ERR_POINTER_MAX];
	entry_pointer(at, sizeof at, op, i);
	for (size_t k = from; k < ctx->errs->count; k++) {
		struct rig_err *e = &ctx->errs->items[k];
		e->op_index = op->index;
		rig_strlcpy(e->layer_id, op->layer_id, sizeof e->layer_id);
		long m = e->influence_index;
		if (m < 0 || m >= (long)en->n) {
			snprintf(e->pointer, sizeof e->pointer, "%.150s/influences", at);
			continue;
		}
		/* A weight's violation names the weight; the others its joint. */
		bool is_weight = has_extra(e, "weight");
		snprintf(e->pointer, sizeof e->pointer, "%.150s/influences/%ld/%s", at, m,
			 is_weight ? "weight" : "jointId");
		if (!e->joint_id[0] && in[m].joint_id)
			rig_strlcpy(e->joint_id, in[m].joint_id, sizeof e->joint_id);
		if (!is_weight && list[m].joint == RIG_JOINT_UNKNOWN)
			rig_op__list_joint_ids(e, d);
	}
	return -1;
}

/* An entry's vertex beside its index, so qsort needs no context. */
struct by_vertex {
	long long vertex_index;
	uint32_t entry;
};

static int cmp_by_vertex(const void *a, const void *b)
{
	const struct by_vertex *x = a, *y = b;
	if (x->vertex_index != y->vertex_index)
		return x->vertex_index < y->vertex_index ? -1 : 1;
	return x->entry < y->entry ? -1 : x->entry > y->entry;
}

/* Writes the checked lists (lists, laid out as the entries' influences) into
 * d: in place when no list changes length, else into new arrays built in one
 * pass over the vertices. order holds the entries sorted by vertex. Returns 0
 * or -1 when out of memory (d unchanged). */
static int install(struct rig_skin_def *d, const struct rig_op *op, const struct by_vertex *order,
		   const struct rig_skin_influence *lists)
{
	const struct rig_weights_entry *en = op->u.weights.entries;
	size_t n = op->u.weights.n_entries;
	bool same_shape = true;
	long long total = d->weight_offsets[d->n_verts];
	for (size_t i = 0; i < n; i++) {
		size_t v = (size_t)en[i].vertex_index;
		uint32_t had = d->weight_offsets[v + 1] - d->weight_offsets[v];
		if (had != en[i].n)
			same_shape = false;
		total += (long long)en[i].n - had;
	}
	if (same_shape) {
		for (size_t i = 0; i < n; i++)
			memcpy(&d->influences[d->weight_offsets[en[i].vertex_index]],
			       &lists[en[i].first], en[i].n * sizeof *lists);
		return 0;
	}
	uint32_t *offsets = malloc((d->n_verts + 1) * sizeof *offsets);
	struct rig_skin_influence *infl = malloc((size_t)(total ? total : 1) * sizeof *infl);
	if (!offsets || !infl) {
		free(offsets);
		free(infl);
		return -1;
	}
	size_t at = 0, next = 0;
	for (size_t v = 0; v < d->n_verts; v++) {
		offsets[v] = (uint32_t)at;
		if (next < n && (size_t)order[next].vertex_index == v) {
			const struct rig_weights_entry *e = &en[order[next++].entry];
			memcpy(&infl[at], &lists[e->first], e->n * sizeof *infl);
			at += e->n;
		} else {
			uint32_t from = d->weight_offsets[v], to = d->weight_offsets[v + 1];
			memcpy(&infl[at], &d->influences[from], (to - from) * sizeof *infl);
			at += to - from;
		}
	}
	offsets[d->n_verts] = (uint32_t)at;
	free(d->weight_offsets);
	free(d->influences);
	d->weight_offsets = offsets;
	d->influences = infl;
	return 0;
}

int rig_op__weights_put_apply(struct rig_op_ctx *ctx, struct rig_op *op)
{
	struct rig_model_layer *l = rig_op__skin_target(ctx, op);
	if (!l)
		return -1;
	struct rig_skin_def *d = l->binding.def;
	const struct rig_weights_entry *en = op->u.weights.entries;
	size_t n = op->u.weights.n_entries;
	size_t n_infl = n ? en[n - 1].first + en[n - 1].n : 0;
	struct joint_lookup *jl = malloc(sizeof *jl);
	struct rig_skin_influence *lists = malloc((n_infl ? n_infl : 1) * sizeof *lists);
	struct by_vertex *order = malloc((n ? n : 1) * sizeof *order);
	int rc = -1;
	if (!jl || !lists || !order) {
		rig_op__fail_layer(ctx, op, RIG_MEMORY_BUSY, "", "the server ran out of memory");
		goto out;
	}
	lookup_init(jl, d);
	size_t before = ctx->errs->total;
	char at[RIG_ERR_POINTER_MAX];
	for (size_t i = 0; i < n; i++) {
		long long v = en[i].vertex_index;
		order[i] = (struct by_vertex){v, (uint32_t)i};
		if ((size_t)v >= d->n_verts) {
			entry_pointer(at, sizeof at, op, i);
			struct rig_err *e = rig_errs_add(
				ctx->errs, RIG_SKIN_WEIGHT_VERTEX,
				"vertex %lld is out of range: layer '%s' has %zu vertices", v,
				l->id, d->n_verts);
			e->op_index = op->index;
			snprintf(e->pointer, sizeof e->pointer, "%.180s/vertexIndex", at);
			rig_strlcpy(e->layer_id, l->id, sizeof e->layer_id);
			e->vertex_index = (long)v;
			rig_err_extra_number(e, "vertexCount", (double)d->n_verts);
			continue;
		}
		check_entry(ctx, op, i, jl, &lists[en[i].first]);
	}
	qsort(order, n, sizeof *order, cmp_by_vertex);
	for (size_t k = 1; k < n; k++) {
		const struct by_vertex *a = &order[k - 1], *b = &order[k];
		if (a->vertex_index != b->vertex_index || (size_t)b->vertex_index >= d->n_verts)
			continue;
		entry_pointer(at, sizeof at, op, b->entry);
		struct rig_err *e = rig_errs_add(ctx->errs, RIG_OP_INVALID,
						 "vertex %lld is listed twice (entries %u and %u)",
						 b->vertex_index, a->entry, b->entry);
		e->op_index = op->index;
		snprintf(e->pointer, sizeof e->pointer, "%.180s/vertexIndex", at);
		rig_strlcpy(e->layer_id, l->id, sizeof e->layer_id);
		e->vertex_index = (long)b->vertex_index;
		rig_err_extra_number(e, "firstEntryIndex", a->entry);
	}
	if (ctx->errs->total > before)
		goto out;
	if (install(d, op, order, lists) != 0) {
		rig_op__fail_layer(ctx, op, RIG_MEMORY_BUSY, "", "the server ran out of memory");
		goto out;
	}
	rig_op__binding_edited(ctx, op, l);
	rc = 0;
out:
	free(jl);
	free(lists);
	free(order);
	return rc;
}
