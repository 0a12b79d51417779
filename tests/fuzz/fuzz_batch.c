/* libFuzzer target over the request decoder and the op validator: arbitrary
 * bytes as an edit-batch body. The body is parsed as the server parses it,
 * every op is decoded, the decoded ops are applied to an in-memory shot (a
 * small joint hierarchy and a skinned mesh, no database) and the whole shot is
 * validated, then every rejection is rendered as the problem+json the client
 * would get. Nothing may crash, leak or trip a sanitizer, and every rejection
 * must be a structured error with a stable code.
 *
 * The body also goes through the compact skin-array decoder (api/bulk.c) as
 * the server does it, and is checked against the plain path: jansson must
 * accept or reject the blanked body exactly as the original (same line,
 * column, position and text), and decoding with the bulk arrays must reject
 * with exactly the problem+json the tree alone gives.
 */
#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "api/edit/ops.h"
#include "api/http/problem.h"

/* The shot every input edits: root → a → b joints, mesh "m" skinned to a and b. */
static void build_shot(struct rig_shot_model *m)
{
	memset(m, 0, sizeof *m);
	strcpy(m->id, "s");
	strcpy(m->project_id, "p");
	m->name = strdup("shot");
	rig_shot_model_add(m, "root", "root", RIG_LAYER_GROUP, NULL);
	rig_shot_model_add(m, "a", "a", RIG_LAYER_GROUP, "root");
	rig_shot_model_add(m, "b", "b", RIG_LAYER_GROUP, "a");
	struct rig_model_layer *mesh = rig_shot_model_add(m, "m", "m", RIG_LAYER_MESH, "root");
	struct rig_skin_def *d = calloc(1, sizeof *d);
	static const double src[8] = {0, 0, 10, 0, 10, 10, 0, 10};
	static const uint32_t tris[6] = {0, 1, 2, 0, 2, 3};
	static const uint32_t offsets[5] = {0, 1, 3, 4, 5};
	static const struct rig_skin_influence infl[5] = {
		{0, 1}, {0, 0.5}, {1, 0.5}, {1, 1}, {0, 1}};
	d->n_verts = 4;
	d->source = malloc(sizeof src);
	memcpy(d->source, src, sizeof src);
	d->n_tris = 2;
	d->triangles = malloc(sizeof tris);
	memcpy(d->triangles, tris, sizeof tris);
	d->n_joints = 2;
	d->joints = calloc(2, sizeof *d->joints);
	strcpy(d->joints[0].id, "ja");
	strcpy(d->joints[0].layer_id, "a");
	strcpy(d->joints[1].id, "jb");
	strcpy(d->joints[1].layer_id, "b");
	d->joints[0].bind = d->joints[1].bind = rig_affine_identity();
	d->n_weight_lists = 4;
	d->weight_offsets = malloc(sizeof offsets);
	memcpy(d->weight_offsets, offsets, sizeof offsets);
	d->influences = malloc(sizeof infl);
	memcpy(d->influences, infl, sizeof infl);
	rig_model_binding_set(mesh, &rig_binding_skin, d);
	mesh->binding.loaded = true; /* in memory: the op never asks the (absent) database */
	mesh->binding.dirty = false;
	mesh->binding.n_verts = 4;
	mesh->binding.n_tris = 2;
}

static void check_rejection(const struct rig_errs *errs)
{
	if (!rig_errs_any(errs))
		return;
	for (size_t i = 0; i < errs->count; i++)
		if (errs->items[i].code <= RIG_OK || errs->items[i].code >= RIG_CODE_COUNT)
			abort(); /* every rejection carries a stable code */
	struct rig_resp resp = {0};
	rig_problem_errs(&resp, errs, 0);
	if (!resp.body || resp.status < 400)
		abort();
	rig_resp_release(&resp);
}

#define FLAGS (JSON_REJECT_DUPLICATES | JSON_ALLOW_NUL)

/* Decodes every op of ops; returns the decoded array (n entries) and whether any failed. */
static struct rig_op *decode(json_t *ops, struct rig_bulk *bulk, struct rig_errs *errs, int *bad)
{
	size_t n = json_array_size(ops);
	struct rig_op *decoded = calloc(n ? n : 1, sizeof *decoded);
	*bad = 0;
	for (size_t i = 0; i < n; i++)
		*bad |= rig_op_decode(&decoded[i], json_array_get(ops, i), (long)i, bulk, errs) !=
			0;
	return decoded;
}

static char *problem_text(const struct rig_errs *errs)
{
	json_t *o = rig_problem_from_errs(errs);
	char *text = json_dumps(o, JSON_COMPACT | JSON_REAL_PRECISION(17));
	json_decref(o);
	return text;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *copy = malloc(size + 1);
	memcpy(copy, data, size);
	copy[size] = '\0';
	struct rig_bulk *bulk = NULL;
	if (rig_bulk_extract(&bulk, copy, size, RIG_BULK_EDITS, 0) != 0)
		abort(); /* only an allocation failure may fail it */
	json_error_t jerr, jerr_plain;
	json_t *body = json_loadb(copy, size, FLAGS, &jerr);
	json_t *plain = json_loadb((const char *)data, size, FLAGS, &jerr_plain);
	if (!body != !plain)
		abort(); /* blanking changed whether the body parses */
	if (!body && (jerr.line != jerr_plain.line || jerr.column != jerr_plain.column ||
		      jerr.position != jerr_plain.position || strcmp(jerr.text, jerr_plain.text)))
		abort(); /* ... or how its syntax error reads */
	json_t *ops = json_object_get(body, "ops");
	if (!json_is_array(ops) || json_array_size(ops) > 256) {
		json_decref(body);
		json_decref(plain);
		rig_bulk_free(bulk);
		free(copy);
		return 0;
	}
	struct rig_errs *errs = rig_errs_new(), *errs_plain = rig_errs_new();
	if (!errs || !errs_plain)
		abort(); /* the fuzzer's own memory, not an input's fault */
	size_t n = json_array_size(ops);
	int bad, bad_plain;
	struct rig_op *decoded = decode(ops, bulk, errs, &bad);
	struct rig_op *decoded_plain =
		decode(json_object_get(plain, "ops"), NULL, errs_plain, &bad_plain);
	if (bad != bad_plain)
		abort();
	if (bad) {
		char *a = problem_text(errs), *b = problem_text(errs_plain);
		if (!a || !b || strcmp(a, b))
			abort(); /* the bulk arrays changed a rejection */
		free(a);
		free(b);
	}
	rig_ops_free(decoded_plain, n);
	rig_errs_free(errs_plain);
	json_decref(plain);
	if (!bad) {
		struct rig_shot_model model;
		build_shot(&model);
		struct rig_op_ctx ctx;
		rig_op_ctx_init(&ctx, &model, NULL, errs);
		size_t i = 0;
		/* receipt.revert reads the history from a store, which this target
		 * does not have (conn is NULL): its decoding is fuzzed, its apply is
		 * the e2e suite's (test_revert.py). */
		while (i < n && strcmp(decoded[i].name, "receipt.revert") != 0 &&
		       rig_op_apply(&ctx, &decoded[i]) == 0)
			i++;
		if (i == n)
			rig_ops_validate_shot(&ctx);
		rig_op_ctx_release(&ctx);
		rig_shot_model_release(&model);
	}
	check_rejection(errs);
	rig_ops_free(decoded, n);
	rig_errs_free(errs);
	json_decref(body);
	rig_bulk_free(bulk);
	free(copy);
	return 0;
}
