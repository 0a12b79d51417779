/* GET /v1/shots/{shotId}/diff?from&to: what changed between two retained
 * versions of a shot (issue 15), paged.
 *
 * Both versions load from one read snapshot with the ?version loader
 * (rig_shot_load_at: 410 VERSION_COMPACTED below the retained window, 404
 * above the head); from > to is 400. The comparison is api/eval/model_diff.h;
 * a binding whose stored revision differs is read whole in both versions, one
 * layer at a time, with the largest pair's bytes reserved in the memory
 * budget first (503 MEMORY_BUSY without room).
 *
 * Paging. The answer is a list of units: per layer record one head (change,
 * fields, keys, counts, the parts of other shapes) and then one unit per run
 * of changed indices (the runs of the kind's RIG_DIFF_RUNS parts, in its
 * row's order: source, triangles, a skin's weights). Part names and their
 * lists come from the kind's row (core/binding.h). A page carries units from its
 * offset on, as items: a record's head starts its item; a page that starts
 * inside a record's runs opens a continuation item ({layerId, change,
 * continued: true}) carrying only runs. A page ends before pageSize items or
 * when the next unit would pass maxBytes of compact JSON (it always carries
 * one unit). The token (api/http/paging.c) pins the to version and the
 * query (from, to, pageSize, maxBytes); the diff of two fixed versions never
 * changes, so pages and their strong ETag hold while both are retained.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/eval/model_diff.h"
#include "api/handlers/frames.h"
#include "api/handlers/handlers.h"
#include "api/http/paging.h"
#include "api/http/problem.h"
#include "api/http/request.h"
#include "api/util/membudget.h"
#include "storage/shot_repo.h"
#include "storage/store.h"

#define DIFF_PAGES "diff"

/* ?from or ?to: required, a non-negative integer. */
static int version_param(struct rig_req *req, struct rig_resp *resp, const char *name,
			 long long *out)
{
	const char *s = rig_api__query(req, name);
	unsigned long long v;
	if (!s || rig_api__parse_count(&v, s) || v >= LLONG_MAX) {
		rig_problem(resp, RIG_INVALID_QUERY, json_pack("{s:s}", "parameter", name),
			    "%s must be given as a shot version (a non-negative integer)", name);
		return -1;
	}
	*out = (long long)v;
	return 0;
}

/* Bytes one whole definition of a bound layer and its part lists hold at
 * worst, as its kind's row estimates them. */
static size_t binding_bytes(const struct rig_model_binding *b)
{
	return b->type->diff_bytes(b->def, b->n_verts, b->n_tris);
}

/* Compares the bindings of every record that needs its parts. */
static int compare_bindings(struct rig_req *req, struct rig_resp *resp, struct rig_tx *tx,
			    struct rig_model_diff *d, const struct rig_shot_model *from,
			    const struct rig_shot_model *to, struct rig_mem_claim *claim)
{
	size_t most = 0;
	for (size_t i = 0; i < d->n_layers; i++) {
		const struct rig_layer_diff *ld = &d->layers[i];
		if (!ld->binding.needs_parts)
			continue;
		size_t bytes = binding_bytes(&from->layers[ld->from_index].binding) +
			       binding_bytes(&to->layers[ld->to_index].binding);
		most = bytes > most ? bytes : most;
	}
	if (most &&
	    !rig_frames__reserve(req, resp, claim, most, "the two bindings this diff reads"))
		return -1;
	for (size_t i = 0; i < d->n_layers; i++) {
		struct rig_layer_diff *ld = &d->layers[i];
		if (!ld->binding.needs_parts)
			continue;
		const struct rig_model_layer *a = &from->layers[ld->from_index];
		const struct rig_model_layer *b = &to->layers[ld->to_index];
		void *da = NULL, *db = NULL;
		int rc = rig_shot_read_binding(&da, tx, from, a);
		if (!rc)
			rc = rig_shot_read_binding(&db, tx, to, b);
		if (!rc && rig_model_diff_binding(ld, da, db))
			rc = -RIG_INTERNAL;
		if (da)
			a->binding.type->def_free(da);
		if (db)
			b->binding.type->def_free(db);
		if (rc) {
			rig_api__fail(resp, rc, "reading a binding to compare");
			return -1;
		}
	}
	rig_model_diff_prune(d);
	return 0;
}

/* ---- JSON ---- */

static const char *const change_names[] = {"created", "deleted", "changed"};
static const char *const binding_change_names[] = {"same", "created", "deleted", "kindChanged",
						   "changed"};

static json_t *frames_json(const struct rig_frame_list *l)
{
	json_t *a = json_array();
	for (size_t i = 0; i < l->count; i++)
		json_array_append_new(a, json_real(l->items[i]));
	return a;
}

static json_t *key_diff_json(const struct rig_key_diff *k)
{
	return json_pack("{s:o, s:o, s:o}", "added", frames_json(&k->added), "removed",
			 frames_json(&k->removed), "changed", frames_json(&k->changed));
}

static json_t *ids_json(const struct rig_id_list *l)
{
	json_t *a = json_array();
	for (size_t i = 0; i < l->count; i++)
		json_array_append_new(a, json_string(l->items[i]));
	return a;
}

/* A run: a lone index as a number, a longer run as [first, last]. */
static json_t *run_json(const struct rig_index_run *r)
{
	if (r->first == r->last)
		return json_integer((json_int_t)r->first);
	return json_pack("[I, I]", (json_int_t)r->first, (json_int_t)r->last);
}

static size_t run_bytes(const struct rig_index_run *r)
{
	char s[64];
	int n = r->first == r->last ? snprintf(s, sizeof s, "%zu,", r->first)
				    : snprintf(s, sizeof s, "[%zu,%zu],", r->first, r->last);
	return (size_t)n;
}

/* The runs of part p of the record's binding: NULL unless its parts were
 * compared and p is a RIG_DIFF_RUNS part. */
static const struct rig_index_runs *part_runs(const struct rig_layer_diff *ld, size_t p)
{
	const struct rig_binding_diff *bd = &ld->binding;
	return bd->parts && bd->type->parts[p].shape == RIG_DIFF_RUNS ? &bd->parts[p].runs : NULL;
}

static size_t n_parts(const struct rig_layer_diff *ld)
{
	return ld->binding.parts ? ld->binding.type->n_parts : 0;
}

static size_t record_units(const struct rig_layer_diff *ld)
{
	size_t n = 1;
	for (size_t p = 0; p < n_parts(ld); p++)
		if (part_runs(ld, p))
			n += part_runs(ld, p)->count;
	return n;
}

/* The head of a record: everything but the runs (empty lists for parts
 * that have runs; pieces fill them). */
static json_t *head_json(const struct rig_layer_diff *ld, const struct rig_shot_model *from,
			 const struct rig_shot_model *to)
{
	json_t *item = json_pack("{s:s, s:s}", "layerId", ld->layer_id, "change",
				 change_names[ld->change]);
	const struct rig_model_layer *l =
		ld->to_index >= 0 ? &to->layers[ld->to_index] : &from->layers[ld->from_index];
	if (ld->change != RIG_DIFF_CHANGED)
		json_object_set_new(item, "kind",
				    json_string(l->kind == RIG_LAYER_MESH ? "mesh" : "group"));
	if (ld->change == RIG_DIFF_CHANGED) {
		json_t *fields = json_array();
		static const char *const names[] = {"name", "kind", "parentId", "timeOffset"};
		for (int f = 0; f < 4; f++)
			if (ld->fields & (1u << f))
				json_array_append_new(fields, json_string(names[f]));
		char name[64];
		for (int ch = 0; ch < RIG_CH_COUNT; ch++)
			if (ld->fields & (RIG_DIFF_F_STATIC << ch)) {
				snprintf(name, sizeof name, "transform.%s",
					 rig_channel_name((enum rig_channel)ch));
				json_array_append_new(fields, json_string(name));
			}
		json_object_set_new(item, "fields", fields);
		json_t *keys = json_object();
		for (int ch = 0; ch < RIG_CH_COUNT; ch++) {
			const struct rig_key_diff *k = &ld->keys[ch];
			if (k->added.count || k->removed.count || k->changed.count)
				json_object_set_new(keys, rig_channel_name((enum rig_channel)ch),
						    key_diff_json(k));
		}
		json_object_set_new(item, "keys", keys);
	}
	const struct rig_binding_diff *bd = &ld->binding;
	if (bd->change == RIG_BINDING_SAME)
		return item;
	json_t *b = json_pack(
		"{s:s, s:o, s:o, s:[I, I], s:[I, I]}", "change", binding_change_names[bd->change],
		"kindFrom", bd->kind_from ? json_string(bd->kind_from) : json_null(), "kindTo",
		bd->kind_to ? json_string(bd->kind_to) : json_null(), "vertexCount",
		(json_int_t)bd->n_verts_from, (json_int_t)bd->n_verts_to, "triangleCount",
		(json_int_t)bd->n_tris_from, (json_int_t)bd->n_tris_to);
	if (bd->change == RIG_BINDING_CHANGED) {
		json_t *parts = json_object();
		for (size_t p = 0; p < n_parts(ld); p++) {
			const struct rig_binding_part *row = &bd->type->parts[p];
			const struct rig_part_diff *pd = &bd->parts[p];
			json_t *part = NULL;
			if (row->shape == RIG_DIFF_RUNS && pd->runs.count)
				part = json_pack("{s:I, s:[]}", "total",
						 (json_int_t)pd->runs.n_indices, row->list);
			else if (row->shape == RIG_DIFF_IDS && rig_id_diff_any(&pd->ids))
				part = json_pack("{s:o, s:o, s:o}", "added",
						 ids_json(&pd->ids.added), "removed",
						 ids_json(&pd->ids.removed), "changed",
						 ids_json(&pd->ids.changed));
			else if (row->shape == RIG_DIFF_FRAMES && rig_key_diff_any(&pd->frames))
				part = key_diff_json(&pd->frames);
			else if (row->shape == RIG_DIFF_VALUE && pd->value.from && pd->value.to)
				part = json_pack("{s:s, s:s}", "from", pd->value.from, "to",
						 pd->value.to);
			if (part)
				json_object_set_new(parts, row->name, part);
		}
		json_object_set_new(b, "parts", parts);
	}
	json_object_set_new(item, "binding", b);
	return item;
}

static size_t json_bytes(const json_t *j)
{
	char *s = json_dumps(j, JSON_COMPACT);
	size_t n = s ? strlen(s) + 1 : 64;
	free(s);
	return n;
}

/* The array of part p's runs in item, made when missing (a continuation
 * item gets binding.parts.<name>.<list> on its first run). */
static json_t *part_array(json_t *item, const struct rig_binding_part *p, size_t *bytes)
{
	json_t *b = json_object_get(item, "binding");
	if (!b) {
		b = json_object();
		json_object_set_new(item, "binding", b);
		*bytes += 12;
	}
	json_t *parts = json_object_get(b, "parts");
	if (!parts) {
		parts = json_object();
		json_object_set_new(b, "parts", parts);
		*bytes += 10;
	}
	json_t *part = json_object_get(parts, p->name);
	if (!part) {
		part = json_object();
		json_object_set_new(parts, p->name, part);
		*bytes += 32;
	}
	json_t *list = json_object_get(part, p->list);
	if (!list) {
		list = json_array();
		json_object_set_new(part, p->list, list);
	}
	return list;
}

struct page {
	size_t page_size, max_bytes;
	size_t next;            /* the unit the next page starts at; total when done */
	const char *limited_by; /* NULL, "pageSize" or "maxBytes" */
};

/* Fills items with the units from offset on (page.h's rules above). */
static void cut_page(json_t *items, struct page *pg, const struct rig_model_diff *d,
		     const struct rig_shot_model *from, const struct rig_shot_model *to,
		     size_t offset)
{
	size_t base = 0, bytes = 0, n_units = 0;
	pg->limited_by = NULL;
	for (size_t r = 0; r < d->n_layers; r++) {
		const struct rig_layer_diff *ld = &d->layers[r];
		size_t units = record_units(ld);
		if (offset >= base + units) {
			base += units;
			continue;
		}
		size_t u = offset > base ? offset - base : 0;
		if (json_array_size(items) == pg->page_size) {
			pg->limited_by = "pageSize";
			pg->next = base + u;
			return;
		}
		json_t *item;
		if (u == 0) {
			item = head_json(ld, from, to);
			size_t cost = json_bytes(item);
			if (n_units && bytes + cost > pg->max_bytes) {
				json_decref(item);
				pg->limited_by = "maxBytes";
				pg->next = base;
				return;
			}
			bytes += cost;
			n_units++;
			u = 1;
		} else {
			item = json_pack("{s:s, s:s, s:b}", "layerId", ld->layer_id, "change",
					 change_names[ld->change], "continued", 1);
			bytes += json_bytes(item);
		}
		json_array_append_new(items, item);
		/* Unit u (≥ 1) of the record is run u − 1 across the parts. */
		size_t skip = u - 1;
		for (size_t p = 0; p < n_parts(ld); p++) {
			const struct rig_index_runs *runs = part_runs(ld, p);
			if (!runs)
				continue;
			if (skip >= runs->count) {
				skip -= runs->count;
				continue;
			}
			json_t *list = NULL;
			for (size_t k = skip; k < runs->count; k++, u++) {
				size_t cost = run_bytes(&runs->items[k]);
				if (n_units && bytes + cost > pg->max_bytes) {
					pg->limited_by = "maxBytes";
					pg->next = base + u;
					return;
				}
				if (!list)
					list = part_array(item, &ld->binding.type->parts[p],
							  &bytes);
				json_array_append_new(list, run_json(&runs->items[k]));
				bytes += cost;
				n_units++;
			}
			skip = 0;
		}
		base += units;
	}
	pg->next = base;
}

static json_t *constraints_json(const struct rig_model_diff *d)
{
	return json_pack("{s:o, s:o, s:o}", "created", ids_json(&d->constraints_created), "deleted",
			 ids_json(&d->constraints_deleted), "changed",
			 ids_json(&d->constraints_changed));
}

void rig_h_shot_diff(struct rig_req *req, struct rig_resp *resp)
{
	long long v_from, v_to;
	struct page pg = {0};
	struct rig_shot_model from, to;
	struct rig_model_diff d;
	struct rig_mem_claim claim = {0, 0};
	memset(&from, 0, sizeof from);
	memset(&to, 0, sizeof to);
	memset(&d, 0, sizeof d);
	if (version_param(req, resp, "from", &v_from) || version_param(req, resp, "to", &v_to) ||
	    rig_api__page_size(req, resp, &pg.page_size) ||
	    rig_frames__max_bytes(req, resp, &pg.max_bytes))
		return;
	if (v_from > v_to) {
		rig_problem(resp, RIG_INVALID_QUERY,
			    json_pack("{s:s, s:I, s:I}", "parameter", "from", "from",
				      (json_int_t)v_from, "to", (json_int_t)v_to),
			    "from (%lld) must not be greater than to (%lld); swap them to see the "
			    "change the other way",
			    v_from, v_to);
		return;
	}
	struct rig_tx *tx = rig_store_read(req->app->store);
	int rc = rig_tx_snapshot(tx);
	long long failed_at = v_to;
	if (!rc)
		rc = rig_shot_load_at(&to, tx, req->params[0], v_to);
	if (!rc) {
		failed_at = v_from;
		rc = rig_shot_load_at(&from, tx, req->params[0], v_from);
	}
	if (rc) {
		rig_api__fail_shot_at(resp, tx, rc, req->params[0], failed_at);
		goto out;
	}
	char scope[RIG_ID_MAX + 24], query[96];
	snprintf(scope, sizeof scope, "%s#%lld", to.id, to.seq);
	snprintf(query, sizeof query, "%lld|%lld|%zu|%zu", v_from, v_to, pg.page_size,
		 pg.max_bytes);
	struct rig_pinned_page pp = {DIFF_PAGES, scope, query, "from, to, pageSize and maxBytes",
				     v_to};
	size_t offset;
	if (rig_api__pinned_page_open(req, resp, &pp, SIZE_MAX, &offset) ||
	    rig_frames__etag(req, resp, v_to))
		goto out;
	if (rig_model_diff_shots(&d, &from, &to)) {
		rig_problem(resp, RIG_INTERNAL, NULL, "out of memory");
		goto out;
	}
	if (compare_bindings(req, resp, tx, &d, &from, &to, &claim))
		goto out;
	size_t total = 0;
	for (size_t i = 0; i < d.n_layers; i++)
		total += record_units(&d.layers[i]);
	if (offset > total) {
		rig_problem(resp, RIG_PAGE_TOKEN_INVALID,
			    json_pack("{s:s}", "parameter", "pageToken"),
			    "pageToken is not a token this server issued for this list");
		goto out;
	}
	json_t *items = json_array();
	cut_page(items, &pg, &d, &from, &to, offset);
	json_t *body = json_pack("{s:s, s:I, s:I, s:o, s:o, s:o}", "shotId", to.id, "from",
				 (json_int_t)v_from, "to", (json_int_t)v_to, "constraints",
				 constraints_json(&d), "layers", items, "limitedBy",
				 pg.limited_by ? json_string(pg.limited_by) : json_null());
	rig_api__pinned_page_answer(req, resp, &pp, pg.next < total, pg.next, body);
out:
	rig_membudget_settle(req->app->budget, &claim);
	rig_model_diff_release(&d);
	rig_shot_model_release(&from);
	rig_shot_model_release(&to);
	rig_tx_end(tx);
}
